import pytest
from solution import reverse_words

@pytest.mark.parametrize("text, expected", [
    ("one two three", "three one two"),
    ("a b", "b a"),
])
def test_rev(text, expected):
    assert reverse_words(text) == expected
