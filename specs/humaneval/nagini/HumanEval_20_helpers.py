# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def dist(a: int, b: int) -> int:
    if a < b:
        return b - a
    else:
        return a - b
