from solution import is_async

async def co():
    return 1

def test_async():
    assert is_async(co) is True
    assert is_async(len) is False
