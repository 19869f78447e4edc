# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def IsEven(n: int) -> bool:
    return n % 2 == 0


def CountEvens(i: int, lst: List[int]) -> int:
    if len(lst) == i:
        return 0
    return CountEvens(i + 1, lst) + IsEven(lst[i])
