# Pure helpers imported from HumanEval-Nagini (Apache-2.0)
from typing import List, Dict, Optional, Tuple


def getVal(mx: Optional[int]) -> int:
    return mx
