"""Doctest-style visible checks.

>>> from solution import vowel_ratio
>>> vowel_ratio("rhythm")
0.5
>>> vowel_ratio("aa")
1.0
"""
import doctest


def test_doc():
    assert doctest.testmod(__import__(__name__)).failed == 0
