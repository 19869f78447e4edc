# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def psum(i: int, j: int) -> int:
    if i > j:
        return 0
    else:
        return j + 1 + psum(i, j - 1)
