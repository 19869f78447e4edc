from solution import next_token


def test_tokens():
    assert next_token("begin x end") == "BEGIN"
    assert next_token("begin x end") == "x"
