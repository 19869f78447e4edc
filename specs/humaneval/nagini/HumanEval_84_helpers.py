# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def popcount(n: int) -> int:
    if n == 0:
        return 0
    else:
        return n % 2 + popcount(n // 2)
