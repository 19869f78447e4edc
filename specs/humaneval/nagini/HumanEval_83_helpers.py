# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def Pow(base: int, exponent: int) -> int:
    if exponent == 0:
        return 1
    else:
        return base * Pow(base, exponent - 1)
