# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def sum__chars__rec(i: int, j: int, lst: List[int]) -> int:
    if i == j:
        return 0
    else:
        return (lst[j - 1] if lst[j - 1] < 100 else 0) + sum__chars__rec(i, j - 1, lst)
