"""How many of 40 real library functions reach ``verified`` within a stated budget (issue 20).

The specs are ``benchmarks/libraries40/*.req``: one function (or one scenario) of a pure-Python PyPI package
each (pydash, python-slugify, text-unidecode, python-dateutil, packaging, sortedcontainers), written from the
package's documentation, with domains no smaller than collections of 3, strings of 3 characters and 8-bit
integers (``benchmarks/libraries40/README.md``). 15 of them are the frozen evaluation part, chosen by a hash
rule written down there (:func:`split`); the other 25 are the development part, the only one tuned on.

Each spec is checked with :func:`evalgap.check` (what ``evalgap check SPEC --budget B -j J --no-cache`` runs)
and a function counts as *verified* when every checked requirement of its spec is ``verified`` (with or without
bounds; bounded ones are counted separately). With ``--strength`` the passing requirements are also run on
mutants of the library function (``check --strength``, :mod:`evalgap.verifier.strength`) and the mean
strength (killed / scored mutants) and the share flagged ``weak`` are printed beside the verified share, so that
weak specs cannot carry it.

Usage: ``python benchmarks/library_proofs.py [--part dev|eval|all] [--budget S] [-j N] [--engines LIST]
[--strength] [--mutants N] [--only NAME,...] [--json FILE]``. Needs the libraries installed (the ``test``
extra has them); exit 2 when one is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import evalgap

HERE = Path(__file__).resolve().parent / "libraries40"
#: the salt of the hash rule that picks the evaluation part (fixed before any tuning; never change it)
SALT = "libraries40:"
EVAL_SIZE = 15
PACKAGES = ("pydash", "slugify", "text_unidecode", "dateutil", "packaging", "sortedcontainers")


def split(names: list[str]) -> dict[str, list[str]]:
    """The frozen split: the 15 names with the smallest ``sha256("libraries40:" + name)`` are ``eval``."""
    ranked = sorted(names, key=lambda n: hashlib.sha256(f"{SALT}{n}".encode()).hexdigest())
    return {"eval": sorted(ranked[:EVAL_SIZE]), "dev": sorted(ranked[EVAL_SIZE:])}


def listed(readme: Path = HERE / "README.md") -> dict[str, list[str]]:
    """The split as written in the README (``- **eval (15)**: a, b, ...``), to check it against :func:`split`."""
    import re

    text = readme.read_text(encoding="utf-8")
    out = {}
    for part in ("eval", "dev"):
        m = re.search(rf"\*\*{part} \(\d+\)\*\*: (.*?)(?:\n- |\Z)", text, re.S)
        out[part] = sorted(x.strip() for x in m.group(1).replace("\n", " ").split(",")) if m else []
    return out


def run_one(spec: Path, settings: evalgap.Settings) -> dict[str, Any]:
    """Check one spec; its per-requirement verdicts, bounds, per-engine time and strength."""
    t0 = time.monotonic()
    report = evalgap.check(spec, settings=settings)
    rows = []
    for r in report.requirements:
        if r.role != "property":  # a precondition: narrows the others, gets no verdict
            continue
        st = r.strength
        rows.append({"id": r.id, "verdict": r.verdict.value if r.verdict else None, "bounds": list(r.bounds),
                     "engines": {v.engine: {"verdict": v.verdict.value, "elapsed_s": round(v.elapsed_s, 2),
                                            "used_s": v.budget.used_s if v.budget else None,
                                            "reason": v.reason[:300]}
                                 for v in r.verdicts},
                     "strength": None if st is None else {"killed": st.killed, "scored": st.scored,
                                                          "ratio": st.ratio, "weak": st.weak}})
    verified = bool(rows) and all(q["verdict"] == "verified" for q in rows)
    return {"name": spec.stem, "verified": verified, "bounded": verified and any(q["bounds"] for q in rows),
            "elapsed_s": round(time.monotonic() - t0, 1), "requirements": rows}


def summary(part: str, results: list[dict[str, Any]]) -> str:
    """One line: the share verified (bounded ones among them) and, when measured, the spec strength."""
    n = len(results)
    v = sum(r["verified"] for r in results)
    b = sum(r["bounded"] for r in results)
    line = f"{part}: {v}/{n} verified ({100 * v / n:.1f} %; {b} of them within bounds)" if n else f"{part}: none"
    ratios = [q["strength"]["ratio"] for r in results for q in r["requirements"]
              if q["strength"] and q["strength"]["ratio"] is not None]
    weak = [q["strength"]["weak"] for r in results for q in r["requirements"] if q["strength"]]
    if ratios:
        line += (f"; spec strength mean {statistics.fmean(ratios):.2f} over {len(ratios)} passing requirements, "
                 f"{sum(weak)} weak")
    return line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("dev", "eval", "all"), default="dev")
    ap.add_argument("--budget", type=float, default=3.0, help="CrossHair CPU s per requirement (default 3)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--engines", default="crosshair,hypothesis")
    ap.add_argument("--examples", type=int, default=100, help="Hypothesis examples per requirement")
    ap.add_argument("--strength", action="store_true")
    ap.add_argument("--mutants", type=int, default=3, help="mutants per function with --strength")
    ap.add_argument("--only", default="", help="comma-separated spec names")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    missing = [p for p in PACKAGES if importlib.util.find_spec(p) is None]
    if missing:
        print(f"missing libraries: {', '.join(missing)} (pip install -e '.[test]')", file=sys.stderr)
        return 2
    parts = split(sorted(p.stem for p in HERE.glob("*.req")))
    if parts != listed():
        print("the hash split no longer matches the README's listing (a spec was added, removed or renamed)",
              file=sys.stderr)
        return 2
    chosen = ("dev", "eval") if a.part == "all" else (a.part,)
    only = {s for s in a.only.split(",") if s}
    settings = evalgap.Settings(budget_s=a.budget, jobs=a.jobs, engines=tuple(a.engines.split(",")), cache=False,
                                analysis=False, hypothesis_examples=a.examples, strength=a.strength,
                                strength_mutants=a.mutants)
    out: dict[str, list[dict[str, Any]]] = {}
    for part in chosen:
        out[part] = []
        for name in parts[part]:
            if only and name not in only:
                continue
            res = run_one(HERE / f"{name}.req", settings)
            out[part].append(res)
            shown = ", ".join(f"{q['id']} {q['verdict']}" + (" (bounded)" if q["bounds"] else "") + " ["
                              + " ".join(f"{e} {d['elapsed_s']}s" for e, d in q["engines"].items()) + "]"
                              + (f" strength {q['strength']['killed']}/{q['strength']['scored']}"
                                 if q["strength"] else "") for q in res["requirements"])
            print(f"{part} {name}: {shown}  [{res['elapsed_s']} s]", flush=True)
    print(f"\nbudget {a.budget:g} s, engines {a.engines}, -j {a.jobs}, {a.examples} examples"
          + (f", strength with {a.mutants} mutants" if a.strength else ""))
    for part in chosen:
        print(summary(part, out[part]))
    if a.json:
        a.json.write_text(json.dumps({"budget_s": a.budget, "engines": a.engines, "jobs": a.jobs,
                                      "strength": a.strength, "parts": out}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
