# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def abs(x: int) -> int:
    if x >= 0:
        return x
    elif True:
        return 0 - x


def sum__abs(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 0
    else:
        return abs(s[j - 1]) + sum__abs(i, j - 1, s)


def count_negatives(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 0
    else:
        return (1 if s[j - 1] < 0 else 0) + count_negatives(i, j - 1, s)
