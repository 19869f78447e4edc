from solution import await_if_needed


async def seven():
    return 7


def test_await():
    assert await_if_needed(seven()) == 7
    assert await_if_needed(3) == 3
