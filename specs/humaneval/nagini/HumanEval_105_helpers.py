# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def WithinRange(n: int) -> bool:
    return n >= 1 and n <= 9


def WithinRangeString(s: str) -> bool:
    return s == 'One' or s == 'Two' or s == 'Three' or (s == 'Four') or (s == 'Five') or (s == 'Six') or (s == 'Seven') or (s == 'Eight') or (s == 'Nine')
