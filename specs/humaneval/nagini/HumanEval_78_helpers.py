# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def IsPrimeHexDigit(c: int) -> bool:
    return ((((c == 2 or c == 3) or c == 5) or c == 7) or c == 11) or c == 13


def count__prime__hex__digits__rec(i: int, j: int, num: List[int]) -> int:
    if i == j:
        return 0
    else:
        return (1 if IsPrimeHexDigit(num[j - 1]) else 0) + count__prime__hex__digits__rec(i, j - 1, num)
