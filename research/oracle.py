"""Result comparison of the ground truth and of differential specs (pure Python, no imports beyond math).

Rule (EvalPlus's ``is_floats``/``np.allclose`` comparison, Liu et al. 2023): two results agree when they are
``==``, or when they are numbers at least one of which is a float and ``|a - b| <= atol + 1e-7 * |b|`` (two
NaNs agree, and equal infinities), applied elementwise through lists and tuples of equal length.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["same_result"]


def same_result(got: Any, expected: Any, atol: float = 0.0) -> bool:
    """True when ``got`` agrees with ``expected`` (see the module rule; ``atol`` is absolute, in the result's units)."""
    if isinstance(got, float) or isinstance(expected, float):
        if isinstance(got, (int, float)) and isinstance(expected, (int, float)) \
                and not isinstance(got, bool) and not isinstance(expected, bool):
            if math.isnan(got) or math.isnan(expected):
                return bool(math.isnan(got) and math.isnan(expected))
            if math.isinf(got) or math.isinf(expected):  # inf - inf is NaN and 1e-7 * inf is inf: no tolerance
                return bool(got == expected)
            return bool(abs(got - expected) <= atol + 1e-7 * abs(expected))
        return False
    if isinstance(got, (list, tuple)) and isinstance(expected, (list, tuple)) and type(got) is type(expected):
        if len(got) != len(expected):
            return False
        return all(same_result(g, e, atol) for g, e in zip(got, expected))
    return bool(got == expected)
