# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def rot__sym(c: int) -> int:
    alph: int = c - 0
    return (alph + 2 * 2) % 26
