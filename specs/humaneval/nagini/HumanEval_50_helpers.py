# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def encode__char(c: int) -> int:
    return (c - 97 + 5) % 26 + 97


def decode__char(c: int) -> int:
    return (c - 97 - 5) % 26 + 97
