from solution import percent


def assert_close(got, want):
    assert abs(got - want) < 1e-9


def test_percent():
    assert_close(percent(7, 9), 80)
    assert_close(percent(1, 2), 50)
