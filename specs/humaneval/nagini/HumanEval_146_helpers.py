# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def first__digit(n: int) -> int:
    if n < 10:
        return n
    else:
        return first__digit(n // 10)


def last__digit(n: int) -> int:
    return n % 10
