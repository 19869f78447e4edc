# provenance: hand-written from the HumanEval docstring (evalgap): all index triples 1 <= i < j < k <= n


def triples_upto(n: int) -> list:
    return [(i, j, k) for i in range(1, n + 1) for j in range(i + 1, n + 1) for k in range(j + 1, n + 1)]
