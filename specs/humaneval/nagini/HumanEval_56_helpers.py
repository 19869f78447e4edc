# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def CalBal(s: List[int], i: int, j: int) -> int:
    if i == j:
        return 0
    else:
        return (1 if s[j - 1] == 0 else -1) + CalBal(s, i, j - 1)
