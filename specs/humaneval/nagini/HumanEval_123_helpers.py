# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def iterate__to__odd(n: int) -> int:
    if n // 2 % 2 == 1:
        return n // 2
    else:
        return iterate__to__odd(n // 2)


def next__odd__collatz(n: int) -> int:
    if n % 2 == 0:
        return iterate__to__odd(n)
    else:
        return iterate__to__odd(3 * n + 1)
