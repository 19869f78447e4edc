"""Agent-written matcher: to also match abbreviations ("acme" vs "acme corp") it compares by prefix, in
one direction only; its example tests all put the longer name first."""

from __future__ import annotations


def same_entity(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` name the same entity (``b`` may abbreviate ``a``)."""
    return a.lower().strip().startswith(b.lower().strip())


def resolve(records: list[str]) -> list[list[str]]:
    """Cluster ``records``: each record joins the first cluster whose first member matches it."""
    clusters: list[list[str]] = []
    for r in records:
        for c in clusters:
            if same_entity(c[0], r):
                c.append(r)
                break
        else:
            clusters.append([r])
    return clusters
