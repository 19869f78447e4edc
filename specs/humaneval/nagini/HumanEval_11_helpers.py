# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def xor(a: int, b: int) -> int:
    result: int = int(0)
    if a == b:
        result = 0
    else:
        result = 1
    return result
