"""The gate's blocking policy (issue 28): newly broken requirements block, requirements refuted on both sides
are reported as ``still-refuted`` and block only when asked; the gate runs the same engines as ``check``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from egtest import run_cli
from gate_repos import git

SPEC = """\
spec g "gate policy"
  target: calc.py

function double(n: int) -> int
  requirement D-1 "Returns twice its argument."
    ensures result == 2 * n
"""
BUGGY = "def double(n: int) -> int:\n    return n + n if n < 5 else n\n"
REFACTORED = "def double(n: int) -> int:\n    # the same behaviour, written differently\n    return n * 2 if n < 5 else n\n"
FIXED = "def double(n: int) -> int:\n    return 2 * n\n"


def _repo(tmp_path: Path, base: str, head: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    (repo / "g.req").write_text(SPEC, encoding="utf-8")
    (repo / "calc.py").write_text(base, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "calc.py").write_text(head, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "head")
    return repo


def _gate(repo: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    res = run_cli("gate", str(repo), "--spec", "g.req", "--budget", "2", "--no-behavior-diff", "-f", "json", *extra)
    return res.exit_code, json.loads(res.stdout)


def test_an_old_bug_does_not_block_a_refactoring_unless_asked(tmp_path: Path) -> None:
    repo = _repo(tmp_path, BUGGY, REFACTORED)
    code, report = _gate(repo, "--engines", "crosshair")
    [req] = report["requirements"]
    assert req["transition"] == "still-refuted" and code == 0
    code, _ = _gate(repo, "--engines", "crosshair", "--fail-on", "still-refuted")
    assert code == 1


def test_a_newly_broken_requirement_blocks_and_a_fix_passes(tmp_path: Path) -> None:
    broken = _repo(tmp_path / "a", FIXED, BUGGY)
    code, report = _gate(broken, "--engines", "crosshair")
    assert code == 1 and report["requirements"][0]["transition"] == "broken"
    fixed = _repo(tmp_path / "b", BUGGY, FIXED)
    code, report = _gate(fixed, "--engines", "crosshair")
    assert code == 0 and report["requirements"][0]["transition"] == "fixed"


def test_the_gate_runs_hypothesis_as_check_does(tmp_path: Path) -> None:
    repo = _repo(tmp_path, FIXED, BUGGY)
    code, report = _gate(repo, "--engines", "hypothesis")
    [req] = report["requirements"]
    assert code == 1 and req["head_verdict"] == "refuted" and "double(5)" in req["head"]
    assert "random examples" in req["base"]  # Hypothesis's own words: it ran, not CrossHair
    res = run_cli("gate", str(repo), "--spec", "g.req", "--fail-on", "sometimes")
    assert res.exit_code == 2 and "unknown word 'sometimes'" in res.stderr


def _check_report(tmp_path: Path, code: str, name: str) -> Path:
    """A gap report of ``check -f json`` on ``code`` (the baseline a main branch records)."""
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "g.req").write_text(SPEC, encoding="utf-8")
    (folder / "calc.py").write_text(code, encoding="utf-8")
    out = folder / "report.json"
    res = run_cli("check", str(folder / "g.req"), "--budget", "2", "--engines", "crosshair", "-f", "json",
                  "-o", str(out))
    assert res.exit_code in (0, 1), res.stderr
    return out


def test_a_baseline_accepts_recorded_refutations_and_blocks_unrecorded_ones(tmp_path: Path) -> None:
    repo = _repo(tmp_path, BUGGY, REFACTORED)
    recorded = _check_report(tmp_path, BUGGY, "main")  # main records D-1 as refuted: a known bug
    assert json.loads(recorded.read_text())["requirements"][0]["verdict"] == "refuted"
    code, report = _gate(repo, "--engines", "crosshair", "--baseline", str(recorded))
    [req] = report["requirements"]
    assert (code, req["transition"], req["known"], req["blocks"]) == (0, "still-refuted", True, False)
    assert report["baseline"] == str(recorded)
    clean = _check_report(tmp_path, FIXED, "clean")  # a baseline where D-1 held: its refutation is new
    code, report = _gate(repo, "--engines", "crosshair", "--baseline", str(clean))
    assert code == 1 and report["requirements"][0]["known"] is False and report["requirements"][0]["blocks"]
    # a gate report serves as a baseline too (its head verdicts)
    gate_json = tmp_path / "gate.json"
    gate_json.write_text(json.dumps(report), encoding="utf-8")
    code, again = _gate(repo, "--engines", "crosshair", "--baseline", str(gate_json))
    assert code == 0 and again["requirements"][0]["known"] is True


def test_a_baseline_never_excuses_a_newly_broken_requirement(tmp_path: Path) -> None:
    broken = _repo(tmp_path / "a", FIXED, BUGGY)
    recorded = _check_report(tmp_path, BUGGY, "main")
    code, report = _gate(broken, "--engines", "crosshair", "--baseline", str(recorded))
    assert code == 1 and report["requirements"][0]["transition"] == "broken"


def test_a_bad_baseline_is_a_usage_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, BUGGY, REFACTORED)
    bad = tmp_path / "bad.json"
    bad.write_text('{"requirements": [', encoding="utf-8")
    res = run_cli("gate", str(repo), "--spec", "g.req", "--baseline", str(bad))
    assert res.exit_code == 2 and "bad.json:1:" in res.stderr and "not JSON" in res.stderr
    bad.write_text('{"x": 1}', encoding="utf-8")
    res = run_cli("gate", str(repo), "--spec", "g.req", "--baseline", str(bad))
    assert res.exit_code == 2 and "not an evalgap JSON report" in res.stderr
    assert "Traceback" not in res.stderr


def _change(transition: str, head: str, base: str | None) -> Any:
    from evalgap.verifier.findings import RequirementResult, Verdict
    from evalgap.verifier.gate.model import RequirementChange

    def res(v: str) -> RequirementResult:
        return RequirementResult("R-1", "p", "x.req:1:1", "formal", verdict=Verdict(v))
    return RequirementChange("R-1", "p", transition, res(head), res(base) if base else None, ())


def test_an_unknown_on_both_sides_does_not_make_the_gate_inconclusive() -> None:
    from evalgap.verifier.gate.model import inconclusive

    assert not inconclusive(_change("unchanged", "unknown", "unknown"))  # the change did not make it so
    assert inconclusive(_change("unchanged", "unknown", "no-counterexample"))  # newly unknown
    assert inconclusive(_change("fixed", "unknown", "refuted"))  # a fix not shown to hold
    assert inconclusive(_change("new", "unknown", None))
    assert inconclusive(_change("changed-spec", "unknown", "unknown"))  # another text: not the same question
    assert not inconclusive(_change("unchanged", "no-counterexample", "unknown"))


def test_a_gaming_pattern_already_in_base_does_not_block_an_edit_of_its_line(tmp_path: Path) -> None:
    """humanize 3af1a68 edited `digit = 0 if value % 100 in (11, 12, 13) ...` (11 is a visible test's
    input) into `abs_value % 100 in (11, 12, 13)`: the special case existed before, so it is not new."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "g.req").write_text(SPEC, encoding="utf-8")
    (repo / "tests" / "test_calc.py").write_text("from calc import suffix\n\ndef test_it():\n    assert suffix(11) == 0\n"
                                                 "    assert suffix(37) == 8\n", encoding="utf-8")
    # EG407 fires where a branch returns a visible test's expected output that the rest would not compute
    (repo / "calc.py").write_text(FIXED + "\n\ndef suffix(n: int) -> int:\n    if n == 11:\n        return 0\n"
                                  "    return n % 10\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "calc.py").write_text(FIXED + "\n\ndef suffix(n: int) -> int:\n    if n == 11:  # an edited line\n"
                                  "        return 0\n    return abs(n) % 10\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "edit the line")
    code, report = _gate(repo, "--engines", "crosshair")
    assert code == 0 and report["gaming"] == []
    assert any("gaming finding(s) on edited lines not reported" in n and "EG407" in n for n in report["notes"])
    (repo / "calc.py").write_text(FIXED + "\n\ndef suffix(n: int) -> int:\n    if n == 37:\n        return 8\n"
                                  "    if n == 11:  # an edited line\n        return 0\n    return abs(n) % 10\n",
                                  encoding="utf-8")
    git(repo, "commit", "-q", "-am", "a new special case")
    code, report = _gate(repo, "--engines", "crosshair")
    assert code == 1 and [g["code"] for g in report["gaming"]] == ["EG407"] and "37" in report["gaming"][0]["message"]
