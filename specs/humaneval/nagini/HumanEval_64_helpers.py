# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def count_fun(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 0
    elif is__vowel(s[j - 1]):
        return 1 + count_fun(i, j - 1, s)
    else:
        return count_fun(i, j - 1, s)


def is__vowel(c: int) -> bool:
    return ((((((((c == 97 or c == 101) or c == 105) or c == 111) or c == 117) or c == 65) or c == 69) or c == 73) or c == 79) or c == 85
