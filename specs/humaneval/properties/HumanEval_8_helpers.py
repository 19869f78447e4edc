# provenance: imported from HumanEval-Nagini (Apache-2.0, see /work/shared/data/humaneval-nagini/SOURCE.txt) by `evalgap import nagini`; unchanged
from typing import List, Dict, Optional, Tuple


def psum(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 0
    else:
        return s[j - 1] + psum(i, j - 1, s)


def prod(i: int, j: int, s: List[int]) -> int:
    if i == j:
        return 1
    else:
        return s[j - 1] * prod(i, j - 1, s)
