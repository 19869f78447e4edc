from solution import http_reason


def test_reason():
    assert http_reason(404) == "Not Found"
    assert http_reason(200) == "OK"
    assert http_reason(999) == "Unknown"
