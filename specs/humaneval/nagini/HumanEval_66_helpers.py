# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def upper__sum__rec(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 0
    else:
        return s[j - 1] + upper__sum__rec(i, j - 1, s)
