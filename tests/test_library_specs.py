"""Specs of two real PyPI libraries written from their documentation (issue 23): the real library is
`no-counterexample` or `verified`, a copy with a planted bug is `refuted` (specs/libraries/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.specs_lang import check_structure, parse_file
from evalgap.verifier.engines.run import check_spec
from evalgap.verifier.findings import Verdict
from evalgap.verifier.options import Settings
from evalgap.verifier.project.targets import resolve_target

LIB = Path(__file__).resolve().parents[1] / "specs" / "libraries"

pytest.importorskip("sortedcontainers", reason="sortedcontainers is in the test extra")
pytest.importorskip("slugify", reason="python-slugify is in the test extra")


def _verdict(spec_name: str, target: str | None) -> tuple[Verdict | None, list[str]]:
    spec = LIB / spec_name
    parsed = parse_file(spec)
    source = spec.read_text(encoding="utf-8")
    check_structure(parsed, source)
    assert parsed.target is not None
    tgt = resolve_target(target or parsed.target, LIB)
    res = check_spec(parsed, source, tgt, Settings(engines=("crosshair", "hypothesis"), jobs=1, cache=False,
                                                   budget_s=6.0))
    assert len(res) == 1
    return res[0].verdict, [v.reason for v in res[0].verdicts]


@pytest.mark.slow
@pytest.mark.parametrize("spec, planted", [("sortedlist.req", "planted_sorted.py"), ("slugify.req", "planted_slug.py")])
def test_real_library_holds_and_planted_bug_is_refuted(spec: str, planted: str) -> None:
    real, why = _verdict(spec, None)
    assert real in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE), why
    bad, why = _verdict(spec, planted)
    assert bad is Verdict.REFUTED, why
