from solution import pool

def test_pool():
    assert pool().submit(lambda: 3).result() == 3
