# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def psum(i: int, j: int, s: List[int]) -> int:
    if i > j:
        return 0
    else:
        return (s[j] if j % 2 == 1 and s[j] % 2 == 0 else 0) + psum(i, j - 1, s)
