# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def Sum(a: List[int], s: int, t: int) -> int:
    if s == t:
        return 0
    else:
        return a[t - 1] + Sum(a, s, t - 1)
