class PascalTriangle:
    def __init__(self):
        self._rows = [[1]]

    def row(self, n):
        while len(self._rows) <= n:
            prev = self._rows[-1]
            self._rows.append([1] + [a + b for a, b in zip(prev, prev[1:])] + [1])
        return self._rows[n]


_TRIANGLE = PascalTriangle()


def pascal_row(n):
    return list(_TRIANGLE.row(n))
