"""Behaviour diffs a reviewer can trust (issue 28): every reported difference is replayed concretely on both
versions (one that does not replay is dropped), CrossHair's proxies never count as inputs, Hypothesis searches
alongside CrossHair, annotation-only changes are diffed, and a difference that breaks a requirement is listed
under it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from egtest import run_cli
from gate_repos import git

from evalgap.verifier.gate.behavior_diff import diff_function
from evalgap.verifier.sandbox.runner import Limits, run_worker

SPEC = """\
spec t "titles"
  target: titles.py

function shout(text: str) -> str
  requirement T-1 "The result is the text in upper case."
    ensures result == text.upper()
"""
# unannotated, as in the report: CrossHair alone passes proxies of any type for `text`
BASE = "def shout(text):\n    return text.upper()\n"
REFACTORED = "def shout(text):\n    out = ''.join(c.upper() for c in text)\n    return text.upper() if out != text.upper() else out\n"
CHANGED = "def shout(text):\n    return text.upper() + ('!' if text.endswith('a') else '')\n"
ANNOTATED = "def shout(text: str) -> str:\n    return text.upper()\n"


def _repo(tmp_path: Path, base: str, head: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    (repo / "t.req").write_text(SPEC, encoding="utf-8")
    (repo / "titles.py").write_text(base, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "titles.py").write_text(head, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "head")
    return repo


def _gate(repo: Path) -> tuple[int, dict[str, Any]]:
    res = run_cli("gate", str(repo), "--spec", "t.req", "--budget", "2", "-f", "json")
    return res.exit_code, json.loads(res.stdout)


def _versions(tmp_path: Path, base: str, head: str) -> tuple[Path, Path]:
    b, h = tmp_path / "b", tmp_path / "h"
    for folder, src in ((b, base), (h, head)):
        folder.mkdir()
        (folder / "titles.py").write_text(src, encoding="utf-8")
    return b, h


def test_a_difference_that_does_not_replay_is_dropped(tmp_path: Path) -> None:
    b, h = _versions(tmp_path, BASE, CHANGED)
    req = {"base_root": str(b), "head_root": str(h), "module": "titles", "qualname": "shout",
           "candidates": [{"args": {"text": "'abc'"}, "found_by": "crosshair"},   # the same on both: dropped
                          {"args": {"text": "'xa'"}, "found_by": "crosshair"},    # differs: kept, replayed
                          {"args": {"text": "<crosshair.SymbolicObject at 0x1>"}, "found_by": "crosshair"}],
           "call_timeout_s": 2.0, "hypothesis": None}
    out = run_worker("diffreplay", req, Limits(cpu_s=30, wall_s=60, memory_bytes=2 * 1024**3)).result
    assert out is not None and not out.get("error"), out
    assert (out["dropped"], out["unevaluable"]) == (1, 1)
    [d] = out["diffs"]
    assert d["args"] == {"text": "'xa'"} and d["base"]["returns"] == "'XA'" and d["head"]["returns"] == "'XA!'"


def test_hypothesis_finds_a_difference_from_the_spec_s_domain(tmp_path: Path) -> None:
    b, h = _versions(tmp_path, BASE, CHANGED)
    req = {"base_root": str(b), "head_root": str(h), "module": "titles", "qualname": "shout", "candidates": [],
           "call_timeout_s": 2.0, "hypothesis": {"examples": 300, "strategies": {"text": "st.text(alphabet='ab')"},
                                                 "annotations": {}}}
    out = run_worker("diffreplay", req, Limits(cpu_s=60, wall_s=120, memory_bytes=2 * 1024**3)).result
    assert out is not None and out["hypothesis"]["status"] == "found", out
    [d] = out["diffs"]
    assert d["found_by"] == "hypothesis" and d["args"] == {"text": "'a'"}  # shrunk to the smallest input
    assert (d["base"]["returns"], d["head"]["returns"]) == ("'A'", "'A!'")


@pytest.mark.slow
def test_no_symbolic_artefacts_on_an_unannotated_function(tmp_path: Path) -> None:
    """The spec types `text` as str: no proxy of another type is passed, and nothing differs on a refactoring."""
    b, h = _versions(tmp_path, BASE, REFACTORED)
    out = diff_function(b, h, "titles.py", "shout", 3.0, annotations={"text": "str"},
                        strategies={"text": "st.text()"})
    assert out.status in ("no-difference", "equivalent"), out
    assert not out.differences and "Symbolic" not in out.reason


@pytest.mark.slow
def test_a_harmless_refactoring_passes_with_no_unexplained_difference(tmp_path: Path) -> None:
    code, report = _gate(_repo(tmp_path, BASE, REFACTORED))
    assert code == 0 and report["differences"] == []
    [o] = report["behavior_diffs"]
    assert o["status"] in ("no-difference", "equivalent") and "ran" in o["hypothesis"]


@pytest.mark.slow
def test_a_real_behaviour_change_is_found_replayed_and_grouped_under_its_requirement(tmp_path: Path) -> None:
    code, report = _gate(_repo(tmp_path, BASE, CHANGED))
    [req] = report["requirements"]
    assert code == 1 and req["transition"] == "broken"
    assert req["differences"], report["differences"]
    for d in req["differences"]:  # each one replayed: base upper-cases, head adds '!' after a final 'a'
        text = eval(d["arguments"]["text"])  # noqa: S307 - our own report's Python source
        assert isinstance(text, str) and text.endswith(("a",))
        assert d["classification"] == "breaks" and d["explained_by"] == ["T-1"]
        assert d["base"] == f"returns {text.upper()!r}" and d["head"] == f"returns {text.upper() + '!'!r}"


@pytest.mark.slow
def test_an_annotation_only_change_is_diffed_with_no_difference(tmp_path: Path) -> None:
    code, report = _gate(_repo(tmp_path, BASE, ANNOTATED))
    assert code == 0
    [o] = report["behavior_diffs"]
    assert o["function"] == "shout" and o["status"] == "no-difference" and "only annotations" in o["reason"]
    assert not any("not diffed" in n for n in report["notes"])
