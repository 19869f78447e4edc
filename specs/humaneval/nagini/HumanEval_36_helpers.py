# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def fizz_buzz_fun(n: int) -> int:
    if n == 0:
        return 0
    else:
        return (count7__r(n - 1) if (n - 1) % 11 == 0 or (n - 1) % 13 == 0 else 0) + fizz_buzz_fun(n - 1)


def count7__r(x: int) -> int:
    if x == 0:
        return 0
    else:
        return (x % 10 == 7) + count7__r(x // 10)
