from solution import triangle_area


def expect(args, value):
    assert triangle_area(*args) == value


def test_area():
    expect((13, 17), 111)
    expect((4, 3), 6)
