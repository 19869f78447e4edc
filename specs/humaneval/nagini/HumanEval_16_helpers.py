# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def contains_char(s: List[int], c: int, i: int, j: int) -> bool:
    if i == j:
        return False
    else:
        return s[j - 1] == c or contains_char(s, c, i, j - 1)


def count_chars_inter(s: List[int], c: int) -> int:
    if c == 97:
        return 0
    else:
        return count_chars_inter(s, c - 1) + (1 if contains_char(s, c - 1, 0, len(s)) else 0)
