# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def modp__rec(n: int, p: int) -> int:
    if n == 0:
        return 1 % p
    elif True:
        return modp__rec(n - 1, p) * 2 % p
