from solution import counter_report

def test_report():
    assert counter_report([1, 2]) >= 2
