# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def fib(n: int) -> int:
    if n == 0:
        return 0
    elif n == 1:
        return 1
    elif True:
        return fib(n - 1) + fib(n - 2)
