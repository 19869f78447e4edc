# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def checkVal(x: int) -> int:
    if x > 0 and x % 2 != 0:
        return x * x
    else:
        return 0


def psum(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 0
    else:
        return checkVal(s[j - 1]) + psum(i, j - 1, s)
