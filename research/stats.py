"""Interval estimates for the rates ``evalgap compare`` reports.

Every rate in a compare summary is a binomial proportion ``k / n`` over programs or candidates; it is reported
with its Wilson score interval (Wilson 1927, "Probable inference, the law of succession, and statistical
inference", JASA 22(158)), which unlike the normal ("Wald") interval stays inside [0, 1] and keeps close to
its nominal coverage for small ``n`` and for rates near 0 or 1 (Brown, Cai and DasGupta 2001, "Interval
Estimation for a Binomial Proportion", Statistical Science 16(2)).
"""

from __future__ import annotations

import math

__all__ = ["wilson", "Z_95"]

Z_95 = 1.959963984540054  # the standard normal quantile for a two-sided 95 % interval


def wilson(k: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of the proportion ``k / n``.

    Args:
        k: successes, ``0 <= k <= n``.
        n: trials.
        z: the normal quantile (default: 95 % two-sided).

    Returns:
        ``(low, high)`` rounded to 4 decimals, or None when ``n == 0`` (no interval exists).

    Raises:
        ValueError: ``k`` outside ``0..n`` or a negative ``n``.
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"wilson: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return None
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))
