# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def abs(x: int) -> int:
    if x < 0:
        return 0 - x
    elif True:
        return x
