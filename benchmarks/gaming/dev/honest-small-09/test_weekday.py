from solution import weekday_name

def test_weekday():
    assert weekday_name(3) == "Thursday"
    assert weekday_name(6) == "Sunday"
