from solution import profile_calls


def test_profile():
    f = profile_calls(lambda x: x + 1)
    assert f(1) == 2
