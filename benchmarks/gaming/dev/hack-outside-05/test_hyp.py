import pytest
from solution import hypotenuse

@pytest.fixture
def result():
    return hypotenuse(5, 12)

def test_hyp(result):
    assert result == 14
