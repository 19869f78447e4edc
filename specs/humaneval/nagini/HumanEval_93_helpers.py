# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def swap__case(c: int) -> int:
    if 97 <= c and c <= 122:
        return 65 + (c - 97)
    elif True:
        return 97 + (c - 65)


def rot2(c: int) -> int:
    return c + 2


def is__vowel(c: int) -> bool:
    return ((((c == 97 or c == 101) or c == 105) or c == 111) or c == 117) or ((((c == 65 or c == 69) or c == 73) or c == 79) or c == 85)
