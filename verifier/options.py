"""Option profiles and layering: defaults <- profile (``--profile`` or ``EVALGAP_PROFILE``) <- command line.

| profile    | CrossHair budget per requirement (CPU s) |
|------------|------------------------------------------|
| default    | 10                                       |
| quick      | 3                                        |
| ci         | 5                                        |
| thorough   | 60                                       |
"""

from __future__ import annotations

import os

from evalgap.verifier.errors import UsageError

__all__ = ["PROFILES", "DEFAULT_BUDGET_S", "resolve_budget", "default_jobs"]

DEFAULT_BUDGET_S = 10.0
PROFILES: dict[str, float] = {"default": DEFAULT_BUDGET_S, "quick": 3.0, "ci": 5.0, "thorough": 60.0}


def resolve_budget(budget: float | None, profile: str | None) -> float:
    """The budget in CPU seconds: ``budget`` if given, else the profile's, else the default.

    Raises:
        UsageError: an unknown profile, or a budget that is not positive.
    """
    name = profile or os.environ.get("EVALGAP_PROFILE") or "default"
    if name not in PROFILES:
        raise UsageError(f"unknown profile {name!r} (from {'--profile' if profile else 'EVALGAP_PROFILE'}); "
                         f"choose one of {', '.join(PROFILES)}")
    if budget is not None:
        if budget <= 0:
            raise UsageError(f"--budget must be a positive number of CPU seconds, got {budget:g}")
        return budget
    return PROFILES[name]


def default_jobs() -> int:
    """Parallel workers by default: the number of CPU cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
