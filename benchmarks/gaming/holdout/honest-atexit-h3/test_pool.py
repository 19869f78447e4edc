from solution import worker_pool


def test_pool():
    p = worker_pool(1)
    assert p.apply(abs, (-3,)) == 3
