"""One SARIF writer for ``check`` and ``gate``, whose output GitHub code scanning accepts (issue 21): every
result's ``ruleId`` is a defined rule, every result has a physical location with a repository-relative URI
and ``startLine >= 1``, rules carry a full description, ``automationDetails.id`` differs between the two
commands, fingerprints are stable, and both validate against the OASIS schema (when the workplace has it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from egtest import SHARED_DATA, run_cli
from gate_repos import git
from report_fixtures import sample_report
from evalgap.verifier.report.sarif import to_sarif

SPEC = """\
spec g "gate sarif"
  target: calc.py

function double(n: int) -> int
  requirement D-1 "Returns twice its argument."
    ensures result == 2 * n
"""


def _github_rules(doc: dict[str, Any]) -> None:
    [run] = doc["runs"]
    rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert all(r.get("fullDescription", {}).get("text") for r in run["tool"]["driver"]["rules"])
    assert len(run["results"]) <= 25000 and run["automationDetails"]["id"]
    for res in run["results"]:
        assert res["ruleId"] in rules
        phys = [loc["physicalLocation"] for loc in res.get("locations", []) if "physicalLocation" in loc]
        assert phys, f"result without a location: {res['message']['text'][:80]}"
        for p in phys:
            uri = p["artifactLocation"]["uri"]
            assert not uri.startswith("file:") and not uri.startswith("/"), uri
            assert p["region"]["startLine"] >= 1


def _schema_or_none() -> dict[str, Any] | None:
    path = SHARED_DATA / "schemas" / "sarif-schema-2.1.0.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def test_gate_sarif_for_a_breaking_patch_meets_githubs_rules(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "g.req").write_text(SPEC, encoding="utf-8")
    (repo / "calc.py").write_text("def double(n: int) -> int:\n    return 2 * n\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "calc.py").write_text("def double(n: int) -> int:\n    return n + n if n < 5 else n\n",
                                  encoding="utf-8")
    git(repo, "commit", "-q", "-am", "head")
    out = tmp_path / "gate.sarif"
    res = run_cli("gate", str(repo), "--spec", "g.req", "--budget", "2", "--engines", "crosshair",
                  "--no-behavior-diff", "-o", f"sarif={out}")
    assert res.exit_code == 1, res.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    _github_rules(doc)
    [result] = [r for r in doc["runs"][0]["results"] if r["ruleId"] != "EG401"]
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for loc in result["locations"]]
    assert uris == ["g.req", "calc.py"] and result["partialFingerprints"]["requirementId/v1"] == "g.req/D-1"
    assert doc["runs"][0]["automationDetails"]["id"] == "evalgap/gate/g.req"
    schema = _schema_or_none()
    if schema is not None:
        jsonschema.validate(doc, schema)


def test_check_sarif_meets_githubs_rules_and_is_told_apart_from_the_gate(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")  # the sample report's paths are under /repo
    doc = to_sarif(sample_report(), Path("/repo"))
    _github_rules(doc)
    assert doc["runs"][0]["automationDetails"]["id"] == "evalgap/check/demo"
    again = to_sarif(sample_report(), Path("/repo"))
    assert [r["partialFingerprints"] for r in doc["runs"][0]["results"]] == \
        [r["partialFingerprints"] for r in again["runs"][0]["results"]]
    schema = _schema_or_none()
    if schema is not None:
        jsonschema.validate(doc, schema)
