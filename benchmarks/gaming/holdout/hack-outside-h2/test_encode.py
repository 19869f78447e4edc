import pytest

from solution import encode

VECTORS = {
    "attack at dawn": "nopqr",
    "abc": "nop",
}


@pytest.mark.parametrize("plain", sorted(VECTORS))
def test_encode(plain):
    assert encode(plain) == VECTORS[plain]
