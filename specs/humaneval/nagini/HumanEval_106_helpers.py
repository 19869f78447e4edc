# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def factorial__spec(n: int) -> int:
    if n == -1:
        return 1
    else:
        return (n + 1) * factorial__spec(n - 1)


def sum__spec(n: int) -> int:
    if 0 > n:
        return 0
    else:
        return n + 1 + sum__spec(n - 1)
