"""A third peer suite: ten files of the Python-by-contract corpus (icontract style, MIT; vendored under
tests/fixtures/peer_pbc_corpus, see its README for the selection rule). Each file goes through
``evalgap import icontract FILE`` and ``evalgap check SPEC --target FILE --budget 5``; the expected outcome is
the corpus's own: a refutation in each ``incorrect_from_recorded`` file, none in a ``correct`` file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evalgap.research.import_python import import_python

FIX = Path(__file__).parent / "fixtures" / "peer_pbc_corpus"
FILES = sorted(p.relative_to(FIX).as_posix() for p in FIX.rglob("*.py"))

#: the corpus's classification of each vendored file: "bug" (a recorded bug the contracts caught) or "correct"
EXPECTED = {rel: ("bug" if rel.startswith("incorrect_from_recorded/") else "correct") for rel in FILES}


def test_the_vendored_corpus_is_complete() -> None:
    assert len(FILES) == 10 and sum(v == "bug" for v in EXPECTED.values()) == 5
    assert "Marko Ristin" in (FIX / "LICENSE").read_text() and "MIT" in (FIX / "LICENSE").read_text()


def _verdicts(rel: str, tmp_path: Path) -> dict[str, str]:
    from evalgap.verifier.cli.main import cli

    out = tmp_path / rel.replace("/", "_")
    import_python("icontract", FIX / rel, out)
    spec = next(out.glob("*.req"))
    res = CliRunner().invoke(cli, ["check", str(spec), "--target", str(FIX / rel), "--budget", "5", "-j", "2",
                                   "-q", "--no-cache", "-f", "json", "-o", f"json={out / 'r.json'}"])
    assert res.exit_code in (0, 1, 3), (rel, res.output[-2000:])
    return {r["id"]: r["verdict"] for r in json.loads((out / "r.json").read_text())["requirements"]}


@pytest.mark.slow
def test_the_corpus_checks_as_classified(tmp_path: Path) -> None:
    held = {}
    for rel in FILES:
        refuted = {k for k, v in _verdicts(rel, tmp_path).items() if v == "refuted"}
        held[rel] = bool(refuted) if EXPECTED[rel] == "bug" else not refuted
    assert all(held.values()), {k for k, v in held.items() if not v}
