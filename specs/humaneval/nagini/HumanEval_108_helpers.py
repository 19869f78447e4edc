# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def get_positive(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 0
    else:
        return (digits__sum(s[j - 1]) > 0) + get_positive(i, j - 1, s)


def digits__sum(x: int) -> int:
    if abs(x) < 10:
        return x % 10
    else:
        return 10 - x % 10 + digits__sum(x // 10)


def abs(x: int) -> int:
    if x >= 0:
        return x
    elif True:
        return 0 - x
