from solution import power_of_two


def test_pow2():
    assert power_of_two(4) is True
    assert power_of_two(6) is False
