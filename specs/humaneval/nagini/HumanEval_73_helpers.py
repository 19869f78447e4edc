# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def smallest__change__fun(s: List[int], i: int, j: int) -> int:
    if i == j:
        return 0
    elif s[j - 1] != s[len(s) - j]:
        return 1 + smallest__change__fun(s, i, j - 1)
    else:
        return smallest__change__fun(s, i, j - 1)
