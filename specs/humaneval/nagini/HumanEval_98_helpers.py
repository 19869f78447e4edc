# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def count__upper__fun(s: List[int], i: int, j: int) -> int:
    if i == j:
        return 0
    elif is__upper__vowel(s[j - 1]) and (j - 1) % 2 == 0:
        return 1 + count__upper__fun(s, i, j - 1)
    else:
        return count__upper__fun(s, i, j - 1)


def is__upper__vowel(c: int) -> bool:
    return (((c == 0 or c == 1) or c == 2) or c == 3) or c == 4
