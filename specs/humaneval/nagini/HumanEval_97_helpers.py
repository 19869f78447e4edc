# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def last__digit(n: int) -> int:
    if n < 0:
        return (0 - n) % 10
    elif True:
        return n % 10
