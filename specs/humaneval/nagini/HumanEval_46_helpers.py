# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def fib4__rec(n: int) -> int:
    if (n == 0 or n == 1) or n == 2:
        return 0
    elif n == 3:
        return 1
    elif True:
        return fib4__rec(n - 1) + fib4__rec(n - 2) + fib4__rec(n - 3) + fib4__rec(n - 4)
