# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def lower(c: int) -> bool:
    return 0 <= c and c <= 25


def upper(c: int) -> bool:
    return 26 <= c and c <= 51


def alpha(c: int) -> bool:
    return lower(c) or upper(c)
