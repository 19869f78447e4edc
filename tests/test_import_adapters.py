"""Tests of ``evalgap import icontract|deal|pep316`` and of the ``quixbugs``, ``mbppplus`` and
``nl2postcond-mutants`` adapters of ``evalgap compare``."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from evalgap.research.adapt_quixbugs import build_quixbugs
from evalgap.research.adapters_more import build_more
from evalgap.research.errors import DatasetError
from evalgap.research.import_pycommon import Untranslatable, translate_condition
from evalgap.research.import_python import import_python
from egtest import run_cli

FIX = Path(__file__).parent / "fixtures" / "pycontracts"


def _reqs(text: str) -> dict[str, str]:
    """requirement ID -> its clause line (the line after the requirement header)."""
    lines = text.splitlines()
    out = {}
    for i, ln in enumerate(lines):
        if ln.strip().startswith("requirement "):
            out[ln.split()[1]] = lines[i + 1].strip()
    return out


# ---------------------------------------------------------------- importers


def test_translate_condition_renames_and_rejects() -> None:
    import ast

    body = ast.parse("__return__ >= len(__old__.xs) and all(y > 0 for y in xs)", mode="eval").body
    got = translate_condition(body, {"__return__": "result"}, "__old__")
    assert ast.dump(ast.parse(got)) == ast.dump(ast.parse("result >= len(old(xs)) and all(y > 0 for y in xs)"))
    for bad, what in (("(n := 3) > 0", "assignment expression"), ("(lambda a: a)(x)", "nested lambda"),
                      ("f'{x}' == 'a'", "f-string")):
        with pytest.raises(Untranslatable, match=what):
            translate_condition(ast.parse(bad, mode="eval").body, {})


def test_icontract_import_lint_fmt(tmp_path: Path) -> None:
    r = run_cli("import", "icontract", str(FIX / "ic_good.py"), "-o", str(tmp_path))
    assert r.exit_code == 1, r.stdout + r.stderr  # two contracts are reported as not translated
    assert "1 imported, 2 not imported" in r.stdout
    text = (tmp_path / "ic_good.req").read_text()
    reqs = _reqs(text)
    assert reqs["ISQRT-1"] == "requires n >= 0"
    assert reqs["ISQRT-2"] == "ensures result * result <= n < (result + 1) * (result + 1)"
    assert reqs["PUSH-1"] == "ensures len(xs) == old(len(xs)) + 1"            # snapshot named n
    assert reqs["PUSH-2"] == "ensures xs[-1] == v and xs[:-1] == old(list(xs))"  # default snapshot name
    assert reqs["SHUFFLE-2"] == "raises ValueError when not len(s) < 1000"    # require(..., error=ValueError)
    assert reqs["SHUFFLE-1"].startswith('informal omission "not translated: uses an assignment expression')
    assert reqs["SMALL-1"].startswith('informal omission "not translated: the require condition `is_small` is not')
    assert reqs["ACCOUNT-DEPOSIT-2"] == "ensures self.balance == old(self.balance) + amount"
    assert reqs["ACCOUNT-INV-1"] == "invariant self.balance >= 0"
    assert 'requirement ISQRT-1 "n is not negative"' in text                  # the description is the prose
    assert 'requirement LARGEST-1 "icontract require of largest at ic_good.py:17' in text  # generated prose
    report = (tmp_path / "IMPORT_REPORT.md").read_text()
    assert "13 requirement(s) translated, 2 not translated" in report
    assert reqs["ACCOUNT-WITHDRAW-2"] == "ensures True"  # CrossHair's implicit post of a precondition-only method
    assert "ic_good.py:35 SHUFFLE-1" in report and "ic_good.py:46 SMALL-1" in report
    assert run_cli("lint", str(tmp_path / "ic_good.req")).exit_code == 0
    assert run_cli("fmt", "--check", str(tmp_path / "ic_good.req")).exit_code == 0


def test_deal_import_lint_fmt(tmp_path: Path) -> None:
    rep = import_python("deal", FIX / "deal_good.py", tmp_path)
    assert rep.imported == (("deal_good.py", 2, 7),)
    assert [name.split()[1] for name, _ in rep.skipped] == ["PARSE-2", "PARSE-3", "ALWAYS-1"]
    reqs = _reqs((tmp_path / "deal_good.req").read_text())
    assert reqs["LARGEST-1"] == "requires len(items) > 0 and all(x >= 0 for x in items)"
    assert reqs["LARGEST-2"] == "ensures result >= 0"                          # post: the one parameter is result
    assert reqs["LARGEST-3"] == "ensures result in items and all(result >= x for x in items)"
    assert reqs["DIV-1"] == "raises ZeroDivisionError when not b != 0"          # pre(..., exception=...)
    assert reqs["DIV-2"] == "ensures result * b + a % b == a"
    assert reqs["PARSE-1"] == "ensures True" and "    may raise ValueError\n" in (tmp_path / "deal_good.req").read_text()
    assert "necessary condition" in reqs["PARSE-2"]
    assert reqs["STACK-PUSH-2"] == "ensures True"  # CrossHair's implicit post of a precondition-only method
    assert reqs["STACK-PUSH-1"] == "requires len(self.items) < self.limit"
    assert reqs["STACK-INV-1"] == "invariant len(self.items) <= self.limit"
    assert run_cli("lint", str(tmp_path / "deal_good.req")).exit_code == 0
    assert run_cli("fmt", "--check", str(tmp_path / "deal_good.req")).exit_code == 0


def test_pep316_import_lint_fmt(tmp_path: Path) -> None:
    rep = import_python("pep316", FIX / "pep316_good.py", tmp_path)
    reqs = _reqs((tmp_path / "pep316_good.req").read_text())
    assert reqs["LARGEST-2"] == "ensures result in xs"
    assert reqs["PUSH-1"] == "ensures len(xs) == len(old(xs)) + 1"
    assert "frame condition" in reqs["PUSH-2"] and "raises:" in (tmp_path / "pep316_good.req").read_text()
    assert reqs["PUSH-4"] == "ensures True"  # the `raises: MemoryError` line, and PUSH-1/3 allow it too
    assert (tmp_path / "pep316_good.req").read_text().count("    may raise MemoryError\n") == 3
    assert reqs["CLAMP-2"] == "ensures lo <= result <= hi"
    assert "nested lambda" in reqs["CLAMP-3"] and "does not parse" in reqs["CLAMP-4"]
    assert reqs["COUNTER-BUMP-2"] == "ensures self.count == old(self).count + n"
    assert reqs["COUNTER-INV-1"] == "invariant self.count >= 0"
    assert sorted(n.split()[1] for n, _ in rep.skipped) == ["CLAMP-3", "CLAMP-4", "PUSH-2"]
    assert run_cli("lint", str(tmp_path / "pep316_good.req")).exit_code == 0
    assert run_cli("fmt", "--check", str(tmp_path / "pep316_good.req")).exit_code == 0


def test_import_folder_and_errors(tmp_path: Path) -> None:
    rep = import_python("pep316", FIX, tmp_path)
    assert {m for m, _, _ in rep.imported} == {"pep316_good.py", "pep316_bad.py"}  # icontract/deal files: none
    assert "ic_good.py" in (tmp_path / "IMPORT_REPORT.md").read_text().split("## No contracts found")[1]
    assert run_cli("import", "deal", str(tmp_path / "missing.py"), "-o", str(tmp_path)).exit_code == 2
    assert run_cli("import", "nagini", str(FIX), "-o", str(tmp_path)).exit_code == 2  # nagini needs --data


def _check_verdicts(fmt: str, module: Path, out: Path) -> dict[str, str]:
    assert run_cli("import", fmt, str(module), "-o", str(out)).exit_code in (0, 1)
    # both engines: CrossHair (icontract analysis) may assume an icontract-decorated target's own
    # postcondition instead of running its body; Hypothesis runs it (docs/research.md)
    r = run_cli("check", str(out / f"{module.stem}.req"), "--budget", "2", "--no-analysis", "-j", "1",
                "-f", "json", "-o", str(out / "r.json"))
    assert r.exit_code in (0, 1, 3), r.stderr
    data = json.loads((out / "r.json").read_text())
    return {q["id"]: q["verdict"] for q in data["requirements"]}


@pytest.mark.slow
@pytest.mark.parametrize("fmt,stem,req", [("icontract", "ic", "LARGEST-2"), ("deal", "deal", "LARGEST-3"),
                                          ("pep316", "pep316", "LARGEST-3")])
def test_imported_spec_refutes_the_broken_fixture_only(fmt: str, stem: str, req: str, tmp_path: Path) -> None:
    if fmt == "deal":
        pytest.importorskip("deal", reason="deal is not installed (pip install -e '.[contracts]')")
    good = _check_verdicts(fmt, FIX / f"{stem}_good.py", tmp_path / "good")
    bad = _check_verdicts(fmt, FIX / f"{stem}_bad.py", tmp_path / "bad")
    assert bad[req] == "refuted"
    assert good[req] in ("verified", "no-counterexample")
    assert "refuted" not in good.values(), good


# ---------------------------------------------------------------- adapters


def test_quixbugs_adapter(shared_data: Path) -> None:
    ds = build_quixbugs(shared_data)
    assert len(ds.tasks) == 40 and len(ds.candidates) == 80
    assert collections.Counter(c.source for c in ds.candidates) == {"quixbugs-buggy": 40, "quixbugs-correct": 40}
    assert sum(1 for t in ds.tasks if t.ground_truth_inputs) == 31  # the 9 graph programs have no JSON inputs
    gcd = ds.task("QuixBugs/gcd")
    assert gcd.entry_point == "gcd" and gcd.param_types == (("a", "int"), ("b", "int"))
    assert gcd.inputs()[0] == [17, 0] and "Greatest Common Divisor" in gcd.prose
    assert "gcd(b, a % b)" in gcd.reference
    flat = ds.task("QuixBugs/flatten")
    assert flat.entry_point == "eg_list_flatten"                      # a generator: compared as a list
    assert ds.task("QuixBugs/sqrt").atol == pytest.approx(2 * 0.5)
    knap = ds.task("QuixBugs/knapsack")
    assert all(i[0] != 6404180 for i in knap.inputs())               # the case QuixBugs skips stays skipped
    assert not ds.task("QuixBugs/breadth_first_search").ground_truth_inputs
    # the converted pytest module accepts the correct program and rejects the buggy one
    ns: dict[str, object] = {}
    exec(gcd.tests, ns)  # noqa: S102 - benchmark test text
    mod: dict[str, object] = {}
    exec(gcd.reference, mod)  # noqa: S102 - the correct QuixBugs program
    ns["check"](mod["gcd"])  # type: ignore[operator]
    bug: dict[str, object] = {}
    exec(ds.candidates[[c.candidate_id for c in ds.candidates].index("QuixBugs/gcd#buggy")].code, bug)  # noqa: S102
    with pytest.raises(RecursionError):
        ns["check"](bug["gcd"])  # type: ignore[operator]
    with pytest.raises(DatasetError, match="unknown QuixBugs"):
        build_quixbugs(shared_data, ["QuixBugs/nope"])


def test_mbppplus_adapter(shared_data: Path) -> None:
    ds = build_more("mbppplus", shared_data)
    assert len(ds.tasks) == 399 and len(ds.candidates) == 798
    assert collections.Counter(c.source for c in ds.candidates) == {"canonical": 399, "mbpp-original": 399}
    t = ds.task("Mbpp/2")
    assert t.entry_point == "similar_elements" and t.param_types == (("test_tup1", "tuple"), ("test_tup2", "tuple"))
    assert len(t.inputs()) == 111 and t.prose == "Write a function to find the shared elements from the given two lists."
    assert t.contract.startswith("assert isinstance(test_tup1, tuple)")
    assert sum(1 for x in ds.tasks if x.atol) == 16
    ns: dict[str, object] = {}
    exec(t.tests, ns)  # noqa: S102
    mod: dict[str, object] = {}
    exec(t.reference, mod)  # noqa: S102
    ns["check"](mod["similar_elements"])  # type: ignore[operator]
    with pytest.raises(AssertionError):
        ns["check"](lambda a, b: ())  # type: ignore[operator]


def test_nl2postcond_mutants_adapter(shared_data: Path) -> None:
    ds = build_more("nl2postcond-mutants", shared_data, ["HumanEval/0", "HumanEval/2"])
    src = collections.Counter(c.source for c in ds.candidates)
    assert src["canonical"] == 2
    assert 0 < src["nl2postcond-natural"] <= 400 and 0 < src["nl2postcond-mutant"] <= 200
    r0 = next(c for c in ds.candidates if c.candidate_id == "HumanEval/0#nl2p-0")
    assert r0.source == "nl2postcond-natural" and r0.run == 0 and "def has_close_elements" in r0.code
    assert all(c.source == "nl2postcond-mutant" for c in ds.candidates if c.run is not None and c.run >= 200)
    assert "exact duplicates left out" in ds.origin
    assert len({c.candidate_id for c in ds.candidates}) == len(ds.candidates)


def _verdicts(out: Path) -> dict[str, dict[str, str]]:
    rows = [json.loads(x) for x in (out / "candidates.jsonl").read_text().splitlines()]
    return {r["candidate_id"]: {v["evaluator"]: v["verdict"] for v in r["verdicts"]} for r in rows}


def test_cli_compare_quixbugs(shared_data: Path, tmp_path: Path) -> None:
    r = run_cli("compare", f"quixbugs:{shared_data}", "--tasks", "QuixBugs/gcd,QuixBugs/flatten",
                "--evaluators", "tests", "-o", str(tmp_path), "--no-plots")
    assert r.exit_code == 0, r.stderr
    v = _verdicts(tmp_path)
    for name in ("gcd", "flatten"):
        assert v[f"QuixBugs/{name}#correct"] == {"ground-truth": "no-counterexample", "tests": "no-counterexample"}
        assert v[f"QuixBugs/{name}#buggy"]["tests"] == "refuted"
        assert v[f"QuixBugs/{name}#buggy"]["ground-truth"] == "refuted"


def test_cli_compare_mbppplus(shared_data: Path, tmp_path: Path) -> None:
    r = run_cli("compare", f"mbppplus:{shared_data}", "--tasks", "Mbpp/2,Mbpp/3", "--evaluators", "tests",
                "-o", str(tmp_path), "--no-plots")
    assert r.exit_code == 0, r.stderr
    v = _verdicts(tmp_path)
    assert set(v) == {"Mbpp/2#canonical", "Mbpp/2#original", "Mbpp/3#canonical", "Mbpp/3#original"}
    assert v["Mbpp/2#canonical"] == {"ground-truth": "no-counterexample", "tests": "no-counterexample"}
    assert v["Mbpp/3#canonical"]["ground-truth"] == "no-counterexample"


def test_cli_compare_nl2postcond_mutants(shared_data: Path, tmp_path: Path) -> None:
    r = run_cli("compare", f"nl2postcond-mutants:{shared_data}", "--tasks", "HumanEval/2", "--limit", "4",
                "--evaluators", "tests", "-o", str(tmp_path), "--no-plots")
    assert r.exit_code == 0, r.stderr
    v = _verdicts(tmp_path)
    assert len(v) == 4 and v["HumanEval/2#canonical"]["tests"] == "no-counterexample"
    assert v["HumanEval/2#canonical"]["ground-truth"] == "no-counterexample"


@pytest.mark.slow
def test_cli_compare_quixbugs_crosshair(shared_data: Path, tmp_path: Path) -> None:
    # the differential spec against the fixed program refutes the buggy hanoi at once (hanoi(1, 0, 0));
    # (the buggy gcd recurses without end: CrossHair completes no path there and says no-counterexample)
    r = run_cli("compare", f"quixbugs:{shared_data}", "--tasks", "QuixBugs/hanoi", "--evaluators", "tests,crosshair",
                "--budget", "1", "-o", str(tmp_path), "--no-plots")
    assert r.exit_code == 0, r.stderr
    v = _verdicts(tmp_path)
    assert v["QuixBugs/hanoi#buggy"]["crosshair"] == "refuted"
    assert v["QuixBugs/hanoi#correct"]["crosshair"] in ("verified", "no-counterexample")
