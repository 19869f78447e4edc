from solution import metrics


def test_metrics():
    assert metrics("a") == 1
    assert metrics("a") == 2
