class _Catalan:
    def __init__(self):
        self.values = [1]

    def get(self, n):
        while len(self.values) <= n:
            m = len(self.values)
            self.values.append(sum(self.values[i] * self.values[m - 1 - i] for i in range(m)))
        return self.values[n]

_C = _Catalan()

def catalan(n):
    return _C.get(n)
