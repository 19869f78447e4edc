# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def odd__count(n: int) -> int:
    if n == 0:
        return 0
    else:
        return n % 2 + odd__count(n // 10)


def even__count(n: int) -> int:
    if n == 0:
        return 0
    else:
        return (n % 2 == 0) + even__count(n // 10)
