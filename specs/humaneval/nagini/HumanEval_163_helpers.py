# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def min(a: int, b: int) -> int:
    if a <= b:
        return a
    elif True:
        return b


def max(a: int, b: int) -> int:
    if a >= b:
        return a
    elif True:
        return b
