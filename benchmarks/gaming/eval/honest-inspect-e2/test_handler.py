import pytest
from solution import validate_handler


def test_ok():
    assert validate_handler(lambda req, resp: None) is True


def test_bad():
    with pytest.raises(TypeError):
        validate_handler(lambda req: None)
