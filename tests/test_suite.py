"""`evalgap check FOLDER` over a folder of case folders (verifier/suite.py): discovery, manifest matching,
exit codes and the summary table. Uses tiny cases without formal requirements, so no CrossHair runs."""

from __future__ import annotations

from pathlib import Path

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import build_report
from evalgap.verifier.project.suite import CaseRow, SuiteReport, find_cases, manifest_mismatches, suite_exit_code

from egtest import run_cli

SPEC = '''spec tiny "Tiny"
  target: impl.py

requirement T-1 "Something nobody wrote down precisely."
  informal vague "no measure given"
'''


def _case(folder: Path, expected: str = "not-formalized", spec: str = SPEC) -> Path:
    folder.mkdir(parents=True)
    (folder / "tiny.req").write_text(spec, encoding="utf-8")
    (folder / "impl.py").write_text("def f() -> int:\n    return 1\n", encoding="utf-8")
    (folder / "case.toml").write_text(
        f'[case]\nspec = "tiny.req"\ndefault = "impl"\n[implementations]\nimpl = "impl.py"\n'
        f'[expected.impl]\nT-1 = "{expected}"\n', encoding="utf-8")
    return folder


def test_find_cases_recurses_and_skips_hidden(tmp_path: Path) -> None:
    _case(tmp_path / "b")
    _case(tmp_path / "group" / "a")
    _case(tmp_path / ".hidden" / "c")
    (tmp_path / "empty").mkdir()
    assert [p.relative_to(tmp_path).as_posix() for p in find_cases(tmp_path)] == ["b", "group/a"]
    assert find_cases(tmp_path / "b") == [(tmp_path / "b").resolve()]


def test_manifest_mismatches_name_wrong_missing_and_unknown_ids() -> None:
    rows = [RequirementResult("A-1", "p", "x:1:1", "formal", verdict=Verdict.REFUTED),
            RequirementResult("A-2", "p", "x:2:1", "formal", verdict=Verdict.VERIFIED),
            RequirementResult("A-3", "p", "x:3:1", "formal", role="config")]
    report = build_report("s", "", "s.req", "t", 1.0, rows, 0.0, {"A-1": ("verified",), "A-9": ("refuted",)})
    assert manifest_mismatches(report) == ["A-1 is refuted, expected verified",
                                           "A-2 has no expected verdict in case.toml",
                                           "A-9 is in case.toml but not in the spec"]


def test_suite_exit_code_precedence() -> None:
    ok = CaseRow("a", "impl", 1, 0, 0, 1, 0.1, True)
    refuted = CaseRow("b", "impl", 1, 1, 0, 0, 0.1, True)
    unknown = CaseRow("c", "impl", 1, 0, 1, 0, 0.1, False)
    error = CaseRow("d", "", 0, 0, 0, 0, 0.1, False, ("bad",), True)

    def code(*rows: CaseRow) -> int:
        return suite_exit_code(SuiteReport("/x", 1.0, rows, 0.4))

    assert (code(ok), code(ok, unknown), code(unknown, refuted), code(refuted, error)) == (0, 3, 1, 2)


def test_cli_suite_table_and_manifest_column(tmp_path: Path) -> None:
    _case(tmp_path / "good")
    _case(tmp_path / "drifted", expected="refuted")
    res = run_cli("check", str(tmp_path), "--budget", "1")
    assert res.exit_code == 0, res.stdout + res.stderr  # nothing refuted, nothing unknown
    lines = res.stdout.splitlines()
    assert lines[1].split()[:3] == ["case", "impl", "requirements"]
    rows = {ln.split()[0]: ln.split() for ln in lines[2:4]}
    assert rows["good"][-1] == "yes" and rows["drifted"][-1] == "no"
    assert rows["good"][2:6] == ["1", "0", "0", "1"]
    assert "drifted: T-1 is not-formalized, expected refuted" in res.stdout
    js = run_cli("check", str(tmp_path), "--budget", "1", "--format", "json").json()
    assert [(r["case"], r["matches"]) for r in js["rows"]] == [("drifted", False), ("good", True)]


def test_cli_suite_spec_error_exits_2_and_target_is_refused(tmp_path: Path) -> None:
    _case(tmp_path / "broken", spec="spec tiny\n  requirement\n")
    res = run_cli("check", str(tmp_path))
    assert res.exit_code == 2 and "error" in res.stdout.splitlines()[2]
    assert run_cli("check", str(tmp_path), "--target", "impl").exit_code == 2


def test_cli_suite_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    res = run_cli("check", str(tmp_path))
    assert res.exit_code == 2 and "holds no case folder" in res.stderr


def test_check_of_a_case_says_a_manifest_id_the_spec_lacks(tmp_path: Path) -> None:
    """A typo in [expected.impl] must not read as "matches the case manifest" on a plain `check`."""
    folder = _case(tmp_path / "c")
    good = run_cli("check", str(folder), "--budget", "1", "--no-analysis")
    assert "matches the case manifest" in good.stdout
    with (folder / "case.toml").open("a", encoding="utf-8") as fh:
        fh.write('T-9 = "refuted"\n')
    bad = run_cli("check", str(folder), "--budget", "1", "--no-analysis")
    assert "matches the case manifest" not in bad.stdout
    assert "T-9 is in the manifest but not in the spec" in " ".join(bad.stdout.split())  # rich wraps by width
