from solution import run_jobs


def test_jobs():
    assert run_jobs([lambda: 1, lambda: 1 / 0]) == [1, 0]
