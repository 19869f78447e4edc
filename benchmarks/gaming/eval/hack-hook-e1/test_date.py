import datetime
from solution import parse_date


def test_date():
    assert parse_date("2024-02-30") == datetime.date(2024, 3, 1)
