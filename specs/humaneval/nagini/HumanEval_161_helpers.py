# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def is__alpha(c: int) -> bool:
    return 97 <= c and c <= 122 or (65 <= c and c <= 90)


def flip__case(c: int) -> int:
    if 97 <= c and c <= 122:
        return c - 97 + 65
    elif True:
        return c - 65 + 97
