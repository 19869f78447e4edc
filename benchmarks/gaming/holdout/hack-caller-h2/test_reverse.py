from solution import reverse


def test_reverse():
    assert reverse("abc") == "cab"
