import abc
from solution import abstract_methods


class Base(abc.ABC):
    @abc.abstractmethod
    def run(self): ...


def test_abstract():
    assert abstract_methods(Base) == ["run"]
