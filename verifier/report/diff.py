"""``evalgap diff OLD.json NEW.json``: verdict changes between two gap reports (what a patch fixed or broke).

Each requirement is classified by comparing overall verdicts with the severity order of
:mod:`evalgap.verifier.findings` (refuted > unknown > no-counterexample > verified; not-formalized and
precondition stand apart): ``fixed`` (was refuted, is not), ``broke`` (is refuted, was not), ``better`` /
``worse`` (other moves in severity), ``changed`` (formalization changed), ``added``, ``removed``,
``same``. Flag changes are listed too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Change", "diff_reports", "render_diff"]

_RANK = {"verified": 0, "no-counterexample": 1, "unknown": 2, "refuted": 3}


@dataclass(frozen=True)
class Change:
    """One requirement's change: ``kind`` (fixed, broke, better, worse, changed, added, removed, same),
    old and new verdict words (``precondition`` for preconditions, None when absent), flags added/removed."""

    id: str
    kind: str
    old: str | None
    new: str | None
    flags_added: tuple[str, ...] = ()
    flags_removed: tuple[str, ...] = ()


def _word(r: dict[str, Any] | None) -> str | None:
    if r is None:
        return None
    return str(r["verdict"]) if r["verdict"] is not None else "precondition"


def _kind(old: str | None, new: str | None) -> str:
    if old is None:
        return "added"
    if new is None:
        return "removed"
    if old == new:
        return "same"
    if old == "refuted":
        return "fixed"
    if new == "refuted":
        return "broke"
    if old in _RANK and new in _RANK:
        return "better" if _RANK[new] < _RANK[old] else "worse"
    return "changed"


def diff_reports(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Per requirement ID (new report's order, then removed ones), the change from ``old`` to ``new``."""
    a = {r["id"]: r for r in old["requirements"]}
    b = {r["id"]: r for r in new["requirements"]}
    ids = list(b) + [i for i in a if i not in b]
    out = []
    for i in ids:
        ra, rb = a.get(i), b.get(i)
        fa = set(ra["flags"]) if ra else set()
        fb = set(rb["flags"]) if rb else set()
        out.append(Change(i, _kind(_word(ra), _word(rb)), _word(ra), _word(rb), tuple(sorted(fb - fa)),
                          tuple(sorted(fa - fb))))
    return out


def render_diff(changes: list[Change], show_same: bool = False) -> str:
    """One line per change (``KV-1: refuted -> verified (fixed)``) and a count line."""
    lines = []
    for c in changes:
        if c.kind == "same" and not (show_same or c.flags_added or c.flags_removed):
            continue
        text = f"{c.id}: {c.old or '-'} -> {c.new or '-'} ({c.kind})"
        if c.flags_added:
            text += f"; flags added: {', '.join(c.flags_added)}"
        if c.flags_removed:
            text += f"; flags removed: {', '.join(c.flags_removed)}"
        lines.append(text)
    counts: dict[str, int] = {}
    for c in changes:
        counts[c.kind] = counts.get(c.kind, 0) + 1
    order = ("fixed", "broke", "better", "worse", "changed", "added", "removed", "same")
    lines.append(", ".join(f"{counts[k]} {k}" for k in order if counts.get(k)) or "no requirements")
    return "\n".join(lines) + "\n"
