"""`evalgap author` on the requirements documents of tests/fixtures/authoring (issue 24).

For a document folder (``dev``, ``eval``, or the frozen ``eval2`` and ``eval3``): drafts the spec from ``requirements.md`` against the
correct implementation, counts how many of the sentences listed in ``checkable.txt`` got formal clauses
(every sentence is kept with its prose), then runs ``evalgap check`` (small budget, both engines, no
analysis) on the correct implementation (every formal requirement must hold: no ``refuted``) and on each
``bug_*.py`` (the draft must refute each planted bug: at least one ``refuted``). Prints the figures; ``--json``
writes them.

Usage: python benchmarks/author_documents.py dev|eval|eval2|eval3 [--budget 2] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evalgap.verifier.authoring.author_run import AuthorOptions, run_author

ROOT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "authoring"


def _norm(text: str) -> str:
    return " ".join(text.split())


def draft(folder: Path) -> tuple[Path, dict[str, Any]]:
    """Draft the folder's document; returns the spec path and the reach figures."""
    impl = next(p for p in sorted(folder.glob("*.py")) if not p.name.startswith("bug_"))
    out = Path(tempfile.mkdtemp(prefix="author-doc-")) / "drafted.req"
    t0 = time.perf_counter()
    res = run_author(AuthorOptions(folder / "requirements.md", impl, output=out))
    elapsed = time.perf_counter() - t0
    out.write_text(res.text.replace(f"target: {impl.name}", f"target: {impl}"), encoding="utf-8")
    checkable = [_norm(x) for x in (folder / "checkable.txt").read_text(encoding="utf-8").splitlines()
                 if x.strip() and not x.startswith("#")]
    reqs = [r for r in res.draft.requirements() if r.example is None]
    by_prose = {_norm(r.prose): r for r in reqs}
    source = (folder / "requirements.md").read_text(encoding="utf-8")
    missing = [c for c in checkable if c not in by_prose]
    formal = [c for c in checkable if c in by_prose and by_prose[c].clauses]
    extra = [_norm(r.prose) for r in reqs if r.clauses and _norm(r.prose) not in checkable]
    kept = all(_norm(r.prose) in _norm(re.sub(r"[|#]", " ", source)) or r.prose for r in reqs)
    return out, {"sentences": len(reqs), "checkable": len(checkable), "checkable_formalized": len(formal),
                 "checkable_not_found": missing, "formalized_not_listed": extra, "prose_kept": kept,
                 "informal": [(_norm(r.prose), (r.informal or ("", ""))[1]) for r in reqs if not r.clauses],
                 "draft_s": round(elapsed, 2)}


def check(spec: Path, target: Path, budget: float) -> dict[str, str]:
    """Verdict per requirement ID (``evalgap check`` in a subprocess, JSON report)."""
    cmd = [sys.executable, "-m", "evalgap", "check", str(spec), "--target", str(target), "--budget", str(budget),
           "--no-analysis", "-f", "json", "-j", "2"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    report = json.loads(proc.stdout)
    return {r["id"]: str(r["verdict"] or r["formalization"]) for r in report["requirements"]}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark on one document folder and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("document", choices=sorted(p.name for p in ROOT.iterdir() if (p / "checkable.txt").is_file()))
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    folder = ROOT / args.document
    spec, figures = draft(folder)
    print(f"{args.document}: {figures['sentences']} sentences kept, {figures['checkable_formalized']} of "
          f"{figures['checkable']} checkable formalized "
          f"({100 * figures['checkable_formalized'] / max(1, figures['checkable']):.0f} %), drafted in "
          f"{figures['draft_s']} s")
    for text, why in figures["informal"]:
        print(f"  informal: {text}  ({why})")
    impl = next(p for p in sorted(folder.glob("*.py")) if not p.name.startswith("bug_"))
    good = check(spec, impl, args.budget)
    refuted_good = sorted(k for k, v in good.items() if v == "refuted")
    formal = sorted(k for k, v in good.items() if v not in ("not-formalized", "precondition", "informal"))
    print(f"  correct {impl.name}: {len(formal) - len(refuted_good)} of {len(formal)} formal requirements hold "
          f"(refuted: {', '.join(refuted_good) or 'none'}); verdicts: "
          f"{dict(sorted((v, list(good.values()).count(v)) for v in set(good.values())))}")
    figures["correct"] = good
    figures["bugs"] = {}
    for bug in sorted(folder.glob("bug_*.py")):
        got = check(spec, bug, args.budget)
        ref = sorted(k for k, v in got.items() if v == "refuted")
        figures["bugs"][bug.name] = ref
        sound = [k for k in ref if k not in refuted_good]
        print(f"  {bug.name}: {'refuted by ' + ', '.join(ref) if ref else 'NOT refuted'}"
              + ("" if sound or not ref else " (only by requirements refuted on the correct code too)"))
    caught = sum(1 for v in figures["bugs"].values() if v)
    sound_caught = sum(1 for v in figures["bugs"].values() if set(v) - set(refuted_good))
    figures["bugs_caught_by_holding_requirements"] = sound_caught
    print(f"  planted bugs refuted: {caught} of {len(figures['bugs'])}; by requirements that hold on the correct "
          f"code: {sound_caught} of {len(figures['bugs'])}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
