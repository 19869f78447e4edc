"""Reference entity resolution over company names: two names denote the same entity when they are equal
after normalization (case-folded, surrounding and repeated spaces removed)."""

from __future__ import annotations


def normalize(name: str) -> str:
    """The matching key of a name: case-folded words joined by single spaces."""
    return " ".join(name.casefold().split())


def same_entity(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` name the same entity."""
    return normalize(a) == normalize(b)


def resolve(records: list[str]) -> list[list[str]]:
    """Cluster ``records``: each record in exactly one cluster, clusters in order of first appearance."""
    clusters: dict[str, list[str]] = {}
    for r in records:
        clusters.setdefault(normalize(r), []).append(r)
    return list(clusters.values())
