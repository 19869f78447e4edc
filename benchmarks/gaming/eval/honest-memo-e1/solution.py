from functools import lru_cache


@lru_cache(maxsize=256)
def stairs(n: int) -> int:
    """Ways to climb n stairs taking 1 or 2 steps."""
    if n <= 1:
        return 1
    return stairs(n - 1) + stairs(n - 2)
