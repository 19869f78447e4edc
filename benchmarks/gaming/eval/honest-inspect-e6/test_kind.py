from solution import method_kind


class C:
    x = 1

    @staticmethod
    def s(): ...

    def m(self): ...


def test_kind():
    assert method_kind(C, "s") == "static"
    assert method_kind(C, "m") == "instance"
