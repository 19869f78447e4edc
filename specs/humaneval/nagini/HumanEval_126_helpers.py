# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def count_set(a: List[int], x: int, i: int) -> int:
    if i == 0:
        return 0
    else:
        return count_set(a, x, i - 1) + (a[i - 1] == x)
