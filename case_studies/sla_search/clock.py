"""The service clock (milliseconds). Implementations call ``clock.now_ms()`` so the clock can be replaced:
the tests use the real one, evalgap's spec replaces it with a ``stub`` whose readings are symbolic."""

from __future__ import annotations

import time


def now_ms() -> int:
    """Milliseconds of a monotonic clock."""
    return int(time.monotonic() * 1000)
