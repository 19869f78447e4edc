from solution import is_method_overridden


class B:
    def run(self): ...


class C(B):
    def run(self): ...


class D(B):
    pass


def test_override():
    assert is_method_overridden(C, B, "run") is True
    assert is_method_overridden(D, B, "run") is False
