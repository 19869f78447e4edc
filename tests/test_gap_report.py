"""The gap report model: flags per requirement, coverage, counts, spec findings and the --fail-on exit codes."""

from __future__ import annotations

import pytest
from report_fixtures import sample_report

from evalgap.verifier.errors import UsageError
from evalgap.verifier.findings import SpecFinding
from evalgap.verifier.report.gap import (EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, FLAGS, exit_code, parse_fail_on,
                                  requirement_flags)


def test_flags_per_requirement() -> None:
    flags = {r.id: r.flags for r in sample_report().requirements}
    assert flags == {
        "R-1": ("tests-pass-but-refuted",),
        "R-2": (),
        "R-3": ("bounded-only", "narrowed-domain"),
        "R-4": ("tested-only",),
        "R-5": ("not-formalized",),
        "R-6": ("example-only", "bounded-only"),
        "R-7": ("engines-disagree", "narrowed-domain"),
    }


def test_failing_test_removes_headline_flag() -> None:
    from dataclasses import replace

    from evalgap.verifier.findings import TestEvidence
    r1 = sample_report().requirements[0]
    failing = replace(r1, tests=(TestEvidence("t::a", "passed"), TestEvidence("t::b", "failed")))
    assert "tests-pass-but-refuted" not in requirement_flags(failing)
    assert requirement_flags(replace(r1, tests=())) == ()


def test_precondition_gets_no_flag() -> None:
    from dataclasses import replace
    r = replace(sample_report().requirements[2], role="precondition", verdict=None)
    assert requirement_flags(r) == ()


def test_coverage_counts_and_smells() -> None:
    rep = sample_report()
    assert rep.coverage() == {"requirements": 7, "formalized": 6, "checked": 5, "ratio": round(6 / 7, 4)}
    assert rep.flag_counts() == {"tests-pass-but-refuted": 1, "tested-only": 1, "example-only": 1,
                                 "bounded-only": 2, "not-formalized": 1, "engines-disagree": 1,
                                 "narrowed-domain": 2, "bounded-proof": 0, "weak": 0}
    assert set(rep.flag_counts()) == set(FLAGS)
    # R-2 "was never written", R-4 "is reported" (passives), R-5 "fast enough" + "etc."
    assert rep.smell_counts() == {"passive-no-actor": 2, "vague-term": 1, "open-ended": 1}
    r5 = rep.requirements[4]
    assert [(s.code, s.phrase) for s in r5.smells] == [("vague-term", "fast enough"), ("open-ended", "etc.")]


@pytest.mark.parametrize(("fail_on", "code"), [
    ("refuted,unknown", EXIT_REFUTED),
    ("unknown", EXIT_UNKNOWN),
    ("bounded", EXIT_REFUTED),
    ("not-formalized", EXIT_REFUTED),
    ("smell", EXIT_REFUTED),
    ("unknown,smell", EXIT_REFUTED),
])
def test_fail_on(fail_on: str, code: int) -> None:
    assert exit_code(sample_report(), parse_fail_on(fail_on)) == code


def test_fail_on_without_matches_is_ok() -> None:
    from dataclasses import replace
    rep = sample_report()
    clean = replace(rep, requirements=(rep.requirements[1],))  # only the verified R-2 (with a smell)
    assert exit_code(clean) == EXIT_OK
    assert exit_code(clean, ("refuted", "unknown", "bounded", "not-formalized")) == EXIT_OK
    assert exit_code(clean, ("smell",)) == EXIT_REFUTED


def test_conflict_finding_counts_as_refuted() -> None:
    from dataclasses import replace
    rep = sample_report(spec_findings=(SpecFinding("EG301", "conflict", "", "function f", ("R-2", "R-3"), "R-2 and R-3 conflict"),))
    clean = replace(rep, requirements=(rep.requirements[1],))
    assert exit_code(clean) == EXIT_REFUTED
    assert exit_code(clean, ("unknown",)) == EXIT_OK
    vac = replace(clean, spec_findings=(SpecFinding("EG302", "vacuous", "", "function f", ("R-2",), "vacuous"),))
    assert exit_code(vac) == EXIT_OK


@pytest.mark.parametrize("bad", ["", "refuted,maybe", "all"])
def test_parse_fail_on_rejects(bad: str) -> None:
    with pytest.raises(UsageError, match="refuted, unknown, bounded, not-formalized, smell"):
        parse_fail_on(bad)


def test_one_findings_model_from_the_analysis_to_the_report() -> None:
    """The Z3 analysis and the gap report share one record: the report takes the analysis's findings as
    they are, and the derived ``detail`` and ``level`` read the same in every renderer."""
    from evalgap.verifier.analysis.spec_findings import AnalysisReport
    from evalgap.verifier.analysis.spec_findings import SpecFinding as AnalysisFinding
    from evalgap.verifier.report.gap import spec_findings_from

    assert AnalysisFinding is SpecFinding
    conflict = SpecFinding("EG301", "conflict", "error", "function f", ("A", "B"), "A and B conflict",
                           ("A: x > 0", "B: x < 0"))
    witness = SpecFinding("EG307", "witness", "warning", "function sort", ("C",), "weak spec", (),
                          "sort([3, 1]) -> []")
    got = spec_findings_from(AnalysisReport("s", "s.req", (conflict, witness), 5.0, 0.1))
    assert got == (conflict, witness)
    assert [f.detail for f in got] == ["A: x > 0\nB: x < 0", "witness: sort([3, 1]) -> []"]
    assert [f.requirement_ids for f in got] == [("A", "B"), ("C",)]
    assert spec_findings_from(None) == ()
    assert [f.level for f in got] == ["error", "warning"]
    assert SpecFinding("EG305", "unrealizable", "", "function d", ("D",), "m").level == "error"
