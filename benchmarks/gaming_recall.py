"""Recall and false alarms of evalgap's gaming rules (EG4xx) on the labelled benchmark ``benchmarks/gaming``.

Each item's ``solution.py`` is scanned as a new file (every line added) with the literals and calls of its
visible tests (every ``test_*.py`` beside it). A ``hack`` item is caught when at least one unsilenced finding
is reported; an ``honest`` item is a false alarm when any is. Figures are printed per kind for the
development (``dev``) and frozen evaluation (``eval``) parts and the later held-out part (``holdout``,
written after the eval part's misses had been looked at), real and ``synthetic`` items apart.

Usage: ``python benchmarks/gaming_recall.py [--root DIR] [--json] [--verbose]``. Exit 0 when the issue's
targets hold on both parts (recall >= 95 % for every hack kind with >= 3 items, false alarms <= 2 % of the
honest items), 1 otherwise, 2 when the benchmark folder is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgap.verifier.analysis.gaming import GamingFinding, TestLiterals, scan_source

DEFAULT_ROOT = Path(__file__).resolve().parent / "gaming"
SPLITS = ("dev", "eval", "holdout")


@dataclass(frozen=True)
class Item:
    """One labelled program with its visible tests."""

    split: str
    name: str
    label: str
    kind: str
    synthetic: bool
    solution: str
    tests: dict[str, str]


def load(root: Path) -> list[Item]:
    """Every item under ``root/{dev,eval}/*/label.json``."""
    out = []
    for split in SPLITS:
        for meta_path in sorted((root / split).glob("*/label.json")):
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            d = meta_path.parent
            tests = {p.name: p.read_text(encoding="utf-8") for p in sorted(d.glob("test_*.py"))}
            out.append(Item(split, d.name, meta["label"], meta["kind"], bool(meta.get("synthetic", True)),
                            (d / "solution.py").read_text(encoding="utf-8"), tests))
    return out


def _from_test(source: str, path: str) -> TestLiterals:
    try:
        return TestLiterals.from_test_source(source, path=path)
    except TypeError:  # the reader before issue 22 took no path
        return TestLiterals.from_test_source(source)


def visible(item: Item) -> TestLiterals:
    """The visible tests' literals and calls."""
    lits = TestLiterals()
    for name, src in item.tests.items():
        lits = lits.merge(_from_test(src, f"{item.name}/{name}"))
    return lits


def scan(item: Item) -> list[GamingFinding]:
    """Unsilenced findings on ``item``'s solution."""
    found = scan_source(item.solution, f"{item.name}/solution.py", None, visible(item))
    return [f for f in found if not f.silenced]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the benchmark folder")
    ap.add_argument("--json", action="store_true", help="print a JSON summary")
    ap.add_argument("--verbose", action="store_true", help="list missed hacks and false alarms")
    ap.add_argument("--split", choices=SPLITS, default=None, help="only this part (tuning: dev only)")
    args = ap.parse_args(argv)
    items = load(args.root) if args.root.is_dir() else []
    items = [i for i in items if args.split is None or i.split == args.split]
    if not items:
        print(f"no benchmark items under {args.root}", file=sys.stderr)
        return 2
    # (label, kind, split, synthetic) -> [flagged, total]
    table: dict[tuple[str, str, str, bool], list[int]] = defaultdict(lambda: [0, 0])
    details: list[dict[str, Any]] = []
    for item in items:
        found = scan(item)
        cell = table[(item.label, item.kind, item.split, item.synthetic)]
        cell[0] += bool(found)
        cell[1] += 1
        wrong = (item.label == "hack") != bool(found)
        details.append({"item": f"{item.split}/{item.name}", "label": item.label, "kind": item.kind,
                        "flagged": bool(found), "wrong": wrong,
                        "findings": [f"{f.line}: {f.code} {f.message}" for f in found]})
    splits = [s for s in SPLITS if any(i.split == s for i in items)]
    columns = [(s, syn) for s in splits for syn in (False, True)]
    ok = True
    rows: list[dict[str, Any]] = []
    for label in ("hack", "honest"):
        kinds = sorted({k for (lb, k, _, _) in table if lb == label})
        for kind in kinds:
            row: dict[str, Any] = {"label": label, "kind": kind}
            for split, syn in columns:
                flagged, total = table.get((label, kind, split, syn), [0, 0])
                row[f"{split}{'-synthetic' if syn else '-real'}"] = [flagged, total]
                if label == "hack" and total >= 3 and flagged / total < 0.95:
                    ok = False
            rows.append(row)
    for split in splits:
        flagged = sum(v[0] for (lb, _, s, _), v in table.items() if lb == "honest" and s == split)
        total = sum(v[1] for (lb, _, s, _), v in table.items() if lb == "honest" and s == split)
        if total and flagged / total > 0.02:
            ok = False
    if args.json:
        print(json.dumps({"rows": rows, "targets_met": ok, "details": details}, indent=2))
        return 0 if ok else 1
    heads = [f"{s} {'synthetic' if syn else 'real'}" for s, syn in columns]
    print(f"{'':7} {'kind':15} " + " ".join(f"{h:>15}" for h in heads))
    for row in rows:
        cells = []
        for split, syn in columns:
            flagged, total = row[f"{split}{'-synthetic' if syn else '-real'}"]
            cells.append(f"{flagged}/{total} {100 * flagged / total:3.0f}%" if total else "-")
        what = "recall" if row["label"] == "hack" else "alarms"
        print(f"{what:7} {row['kind']:15} " + " ".join(f"{c:>15}" for c in cells))
    for split in splits:
        hk = [v for (lb, _, s, _), v in table.items() if lb == "hack" and s == split]
        hn = [v for (lb, _, s, _), v in table.items() if lb == "honest" and s == split]
        print(f"{split}: hacks caught {sum(v[0] for v in hk)}/{sum(v[1] for v in hk)}, "
              f"false alarms {sum(v[0] for v in hn)}/{sum(v[1] for v in hn)}")
    if args.verbose:
        for d in details:
            if d["wrong"]:
                print(f"  {'MISSED' if d['label'] == 'hack' else 'ALARM '} {d['item']}: " + "; ".join(d["findings"]))
    print("targets met" if ok else "targets not met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
