import functools


class Grid:
    def __init__(self, blocked):
        self.blocked = frozenset(blocked)

    @functools.lru_cache(maxsize=None)
    def ways(self, r, c):
        if (r, c) in self.blocked:
            return 0
        if r == 0 or c == 0:
            return 1
        return self.ways(r - 1, c) + self.ways(r, c - 1)


def ways(rows, cols, blocked=()):
    return Grid(blocked).ways(rows - 1, cols - 1)
