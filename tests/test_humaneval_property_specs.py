"""The shipped HumanEval property-spec set (specs/humaneval/properties): well-formed, with provenance, never
calling the function under test, and (slow) validated end to end on the canonical and HumanEvalFix buggy programs."""

from __future__ import annotations

import ast
import json
import re
from typing import Any
from pathlib import Path

import pytest
from egtest import ROOT, run_cli

PROPS = ROOT / "specs" / "humaneval" / "properties"
SPECS = sorted(PROPS.glob("HumanEval_*.req"), key=lambda p: int(p.stem.split("_")[1]))
HELPERS = sorted(PROPS.glob("HumanEval_*_helpers.py"))


def test_the_set_covers_at_least_60_tasks() -> None:
    assert len(SPECS) >= 60


def test_every_shipped_spec_passes_lint() -> None:
    r = run_cli("lint", *map(str, SPECS))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.count(": ok") == len(SPECS)


def test_every_shipped_spec_is_in_the_canonical_layout() -> None:
    r = run_cli("fmt", "--check", *map(str, SPECS))
    assert r.exit_code == 0, r.stdout + r.stderr


def test_fix_spaces_helper_states_the_docstring_examples() -> None:
    # HumanEval/140's spec is `result == spaces_fixed(text)`: the helper must give the docstring's examples
    ns: dict[str, object] = {}
    exec((PROPS / "HumanEval_140_helpers.py").read_text(encoding="utf-8"), ns)  # noqa: S102 - a shipped pure helper
    f = ns["spaces_fixed"]
    assert callable(f)
    assert [f(t) for t in ("Example", "Example 1", " Example 2", " Example   3", "a  b", "    ", "a_ _b")] == \
        ["Example", "Example_1", "_Example_2", "_Example-3", "a__b", "-", "a___b"]


@pytest.mark.parametrize("path", SPECS + HELPERS, ids=lambda p: p.name)
def test_every_file_starts_with_a_provenance_line(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# provenance: "), first
    assert "hand-written" in first or "HumanEval-Nagini" in first


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_no_spec_calls_the_function_under_test(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    entry = re.search(r"^function (\w+)\(", text, re.M)
    assert entry is not None
    helpers = PROPS / f"{path.stem}_helpers.py"
    clauses = [ln for ln in text.splitlines() if not ln.startswith("function ")]
    if helpers.is_file():
        clauses += helpers.read_text(encoding="utf-8").splitlines()
    code = [re.sub(r'"[^"]*"', '""', ln) for ln in clauses if not ln.lstrip().startswith("#")]  # titles may cite calls
    called = [ln for ln in code if re.search(rf"\b{entry.group(1)}\(", ln)]
    assert called == [], f"{path.name} calls {entry.group(1)}: {called}"


@pytest.mark.parametrize("path", HELPERS, ids=lambda p: p.name)
def test_helpers_are_pure_function_definitions(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        assert isinstance(node, (ast.FunctionDef, ast.Assign, ast.ImportFrom)), ast.dump(node)[:80]
        if isinstance(node, ast.ImportFrom):
            assert node.module == "typing"


@pytest.mark.slow
def test_specs_hold_on_canonical_and_refute_the_buggy_program(shared_data: Path, tmp_path: Path) -> None:
    tasks = ["HumanEval/3", "HumanEval/53", "HumanEval/152"]
    r = run_cli("compare", f"humanevalfix:{shared_data}", "--specs", str(PROPS), "--tasks", ",".join(tasks),
                "--evaluators", "spec-inputs,crosshair-prop", "--budget", "2", "-j", "1", "-o", str(tmp_path),
                "--no-plots")
    assert r.exit_code in (0, 1), r.stdout + r.stderr
    rows = [json.loads(x) for x in (tmp_path / "candidates.jsonl").read_text().splitlines()]
    verdict = {(row["candidate_id"], v["evaluator"]): v for row in rows for v in row["verdicts"]}
    for t in tasks:
        fixed_si = verdict[(f"{t}#fixed", "spec-inputs")]
        assert fixed_si["verdict"] == "no-counterexample", fixed_si
        assert verdict[(f"{t}#buggy", "spec-inputs")]["verdict"] == "refuted"
        fixed_ch = verdict[(f"{t}#fixed", "crosshair-prop")]
        assert fixed_ch["verdict"] in ("verified", "no-counterexample"), fixed_ch
        assert fixed_ch["verdict"] == "verified" or (fixed_ch["detail"] or {}).get("paths", 0) > 0
        buggy_ch = verdict[(f"{t}#buggy", "crosshair-prop")]
        assert buggy_ch["verdict"] == "refuted", buggy_ch
        assert buggy_ch["counterexample"]


NAGINI_TWO_CONTRACTED = '''from nagini_contracts.contracts import *

def SortAndName(arr: List[int]) -> List[str]:
    Requires(Acc(list_pred(arr)))
    Ensures(len(Result()) <= len(arr))
    return [NumberToName(x) for x in arr]

def NumberToName(n: int) -> str:
    Requires(n >= 1 and n <= 9)
    Ensures(len(Result()) > 0)
    return "One"
'''


def test_nagini_importer_takes_the_uncalled_function_as_main_when_no_name_matches() -> None:
    # regression: the importer took the last contracted function (a helper: NumberToName) for HumanEval/105
    from research.import_nagini import import_nagini

    im = import_nagini(NAGINI_TWO_CONTRACTED, "HumanEval/105", "by_length", (("arr", "List[int]"),))
    assert "ensures len(result) <= len(arr)" in im.spec_text
    assert "arr >= 1" not in im.spec_text


def _validation_script() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("property_specs_humaneval",
                                                  ROOT / "benchmarks" / "property_specs_humaneval.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_validation_status_reads_the_named_canonical_and_never_counts_a_timeout_as_refuting() -> None:
    m = _validation_script()
    d = {"fixed": "refuted", "canonical": "no-counterexample", "canonical_paths": 12, "buggy": "refuted"}
    assert m._status(d, True) == "fails on canonical"
    assert m._status(d, True, "canonical") == "validated"
    assert m._status({**d, "canonical_paths": 0}, True, "canonical") == "unknown on canonical"
    loops = {"fixed": "no-counterexample", "fixed_paths": 5, "buggy": "unknown"}
    assert m._status(loops, True, bug_loops=True) == "holds; buggy does not terminate"
    assert m._status(loops, True) == "unknown on buggy"
    assert m._status({**loops, "buggy": "refuted"}, True, bug_loops=True) == "validated"
    # every task given HumanEval+'s canonical solution or a non-terminating bug has a spec in the set
    shipped = {p.stem.replace("HumanEval_", "HumanEval/") for p in SPECS}
    assert set(m.CANONICAL_PLUS) <= shipped and set(m.NONTERMINATING_BUG) <= shipped
    assert not set(m.NOT_SPECIFIED) & shipped
