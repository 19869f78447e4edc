# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def factorial(n: int) -> int:
    if n == 0:
        return 1
    else:
        return n * factorial(n - 1)


def special__factorial__rec(n: int) -> int:
    if n == 0:
        return 1
    else:
        return factorial(n) * special__factorial__rec(n - 1)
