"""Run evalgap's gaming rules (EG4xx) over real bug fixes and count the findings (target: zero).

Data (``../shared/data`` relative to the repository root, or ``--data``):

* HumanEvalFix (164 tasks): ``humanevalfix-python/humanevalfix_python_pairs.jsonl.gz``; the buggy program is
  ``buggy_program_with_visible_check`` without its trailing ``def check(...)`` / ``check(...)``; the visible
  check's literals are the visible tests for EG407; the fix is ``fixed_program``.
* QuixBugs (40 programs): ``quixbugs/python_programs/X.py`` -> ``quixbugs/correct_python_programs/X.py``;
  visible tests: ``quixbugs/json_testcases/X.json`` and ``quixbugs/python_testcases/test_X.py``.

Each fix is scanned as a patch: only the lines the fix adds are checked, as ``evalgap gate`` does.

Usage: ``python benchmarks/gaming_false_alarms.py [--data DIR] [--limit N] [--json]``. Exit 0 when there are
no findings, 1 otherwise, 2 when the data is missing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from evalgap.verifier.analysis.gaming import GamingFinding, TestLiterals, scan_source
from evalgap.verifier.analysis.visible_tests import VisibleCase
from evalgap.verifier.gate.gitdiff import added_lines

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
HEF = Path("humanevalfix-python") / "humanevalfix_python_pairs.jsonl.gz"
QB = Path("quixbugs")


@dataclass(frozen=True)
class Pair:
    """One buggy -> fixed pair with its visible tests' literals."""

    name: str
    buggy: str
    fixed: str
    literals: TestLiterals


def split_visible_check(program: str) -> tuple[str, str]:
    """(program, visible check) of HumanEvalFix's ``buggy_program_with_visible_check``."""
    m = re.search(r"^def check\(", program, flags=re.MULTILINE)
    if m is None:
        return program, ""
    return program[:m.start()], program[m.start():]


def humanevalfix_pairs(data: Path) -> Iterator[Pair]:
    """The 164 HumanEvalFix pairs."""
    with gzip.open(data / HEF, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            buggy, check = split_visible_check(row["buggy_program_with_visible_check"])
            # the check calls the function as `candidate(...)`: name it, so its cases (issue 22) are matched too
            check = re.sub(r"\bcandidate\b", row["entry_point"], check)
            yield Pair(row["task_id"], buggy, row["fixed_program"],
                       TestLiterals.from_test_source(check, path=f"{row['task_id']}/check"))


def _json_literals(path: Path) -> TestLiterals:
    """QuixBugs' JSON test cases (``[args, expected]`` per line) as literals and as cases of ``path.stem``."""
    ins: list[Any] = []
    outs: list[Any] = []
    cases: list[VisibleCase] = []
    if path.is_file():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                args, expected = json.loads(line)
            except (ValueError, TypeError):
                continue
            args = args if isinstance(args, list) else [args]
            ins.extend(args)
            outs.append(expected)
            cases.append(VisibleCase(path.stem, tuple(args), (True,) * len(args), expected, True, f"{path.name}:{i}"))
    lits = TestLiterals.from_values(ins, outs)
    return TestLiterals(lits.inputs, lits.outputs, lits.shown, tuple(cases))


def quixbugs_pairs(data: Path) -> Iterator[Pair]:
    """The 40 QuixBugs pairs (every program but ``node.py`` and the ``*_test.py`` helpers)."""
    root = data / QB
    for buggy in sorted((root / "python_programs").glob("*.py")):
        if buggy.name == "node.py" or buggy.stem.endswith("_test"):
            continue
        fixed = root / "correct_python_programs" / buggy.name
        lits = _json_literals(root / "json_testcases" / f"{buggy.stem}.json")
        test = root / "python_testcases" / f"test_{buggy.name}"
        if test.is_file():
            lits = lits.merge(TestLiterals.from_test_source(test.read_text(encoding="utf-8"), path=test.name))
        yield Pair(f"QuixBugs/{buggy.stem}", buggy.read_text(encoding="utf-8"), fixed.read_text(encoding="utf-8"),
                   lits)


def scan_pair(pair: Pair) -> list[GamingFinding]:
    """Findings of the gaming rules on the lines ``pair``'s fix adds (silenced ones excluded)."""
    found = scan_source(pair.fixed, pair.name, added_lines(pair.buggy, pair.fixed), pair.literals)
    return [f for f in found if not f.silenced]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    ap.add_argument("--limit", type=int, default=None, help="pairs per data set (default: all)")
    ap.add_argument("--json", action="store_true", help="print a JSON summary")
    args = ap.parse_args(argv)
    if not (args.data / HEF).is_file() or not (args.data / QB / "python_programs").is_dir():
        print(f"data missing under {args.data} (need {HEF} and {QB}/python_programs)", file=sys.stderr)
        return 2
    start = time.monotonic()
    summary: dict[str, Any] = {}
    total = 0
    for label, pairs in (("humanevalfix", humanevalfix_pairs(args.data)), ("quixbugs", quixbugs_pairs(args.data))):
        n = 0
        findings: list[GamingFinding] = []
        with_literals = 0
        with_cases = 0
        for pair in pairs:
            if args.limit is not None and n >= args.limit:
                break
            n += 1
            with_literals += bool(pair.literals)
            with_cases += any(c.all_known and f"def {c.func}(" in pair.fixed for c in pair.literals.cases)
            findings.extend(scan_pair(pair))
        total += len(findings)
        summary[label] = {"pairs": n, "pairs_with_test_literals": with_literals, "pairs_with_matched_cases": with_cases,
                          "findings": len(findings),
                          "details": [f"{f.location} {f.code} {f.message}" for f in findings]}
        if not args.json:
            print(f"{label}: {n} buggy->fixed pairs ({with_literals} with visible-test literals, {with_cases} with "
                  "cases of a function they define), "
                  f"{len(findings)} gaming finding(s)")
            for f in findings:
                print(f"  {f.location}: {f.code} {f.message}\n    {f.snippet}")
    summary["total_findings"] = total
    summary["elapsed_s"] = round(time.monotonic() - start, 2)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"total gaming findings on real fixes: {total} (target 0) in {summary['elapsed_s']} s")
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
