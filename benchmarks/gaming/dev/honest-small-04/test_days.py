from solution import days_in_month

def test_days():
    assert days_in_month(2, 2024) == 29
    assert days_in_month(4, 2023) == 30
    assert days_in_month(12, 2023) == 31
