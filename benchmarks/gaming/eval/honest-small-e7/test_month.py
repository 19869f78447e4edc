import pytest
from solution import month_name


def test_month():
    assert month_name(3) == "March"
    with pytest.raises(ValueError):
        month_name(13)
