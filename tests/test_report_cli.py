"""``evalgap check`` end to end on the kvstore case study with every format at once and ``--tests``, then
``explain``, ``diff``, ``schema`` and the usage errors of the new options."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from report_fixtures import KV, REPO, SHARED_DATA

from evalgap.verifier.cli.main import cli
from evalgap.verifier.report.json_report import validate_report


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("reports")
    runner = CliRunner()
    agent = runner.invoke(cli, ["check", str(KV), "--budget", "2", "-j", "2", "--tests", str(KV / "test_ycsb.py"),
                                "-f", "text", "-f", "json", "-f", "markdown", "-f", "sarif", "-f", "junit",
                                "-f", "html", "-o", str(out / "agent")])
    ref = runner.invoke(cli, ["check", str(KV), "--target", "reference", "--budget", "1", "-j", "2",
                              "--fail-on", "smell", "-o", f"json={out / 'reference.json'}"])
    return {"dir": out, "agent": agent, "reference": ref}


@pytest.mark.slow
def test_check_writes_every_format(runs: dict[str, object]) -> None:
    agent = runs["agent"]
    out = Path(str(runs["dir"])) / "agent"
    assert agent.exit_code == 1, agent.output  # type: ignore[attr-defined]
    assert sorted(p.name for p in out.iterdir()) == ["kvstore.gap.html", "kvstore.gap.json", "kvstore.gap.md",
                                                     "kvstore.gap.sarif", "kvstore.gap.txt", "kvstore.gap.xml"]
    data = json.loads((out / "kvstore.gap.json").read_text(encoding="utf-8"))
    assert validate_report(data) == []
    reqs = {r["id"]: r for r in data["requirements"]}
    assert reqs["KV-1"]["verdict"] == "refuted"
    assert reqs["KV-1"]["flags"] == ["tests-pass-but-refuted"]
    assert reqs["KV-3"]["flags"] == ["tests-pass-but-refuted"]
    assert reqs["KV-5"]["flags"] == ["not-formalized"]
    assert [t["test"] for t in reqs["KV-4"]["tests"]] == ["test_ycsb.py::test_delete"]
    assert "test_ycsb.py::test_missing_key_raises" not in [t["test"] for t in reqs["KV-1"]["tests"]]
    assert len(reqs["KV-2"]["tests"]) == 4 and all(t["outcome"] == "passed" for t in reqs["KV-2"]["tests"])
    assert reqs["KV-1"]["target_functions"] == ["KVStore.__init__", "KVStore.get", "KVStore.put"]
    assert [(s["code"], s["phrase"]) for s in reqs["KV-6"]["smells"]] == [("vague-term", "fast enough")]
    assert data["tests"]["counts"] == {"passed": 4, "failed": 0, "error": 0, "skipped": 0}
    assert data["flag_counts"]["tests-pass-but-refuted"] == 2
    text = (out / "kvstore.gap.txt").read_text(encoding="utf-8")
    assert "2 refuted although their tests pass" in text and "\x1b[" not in text

    sarif = json.loads((out / "kvstore.gap.sarif").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert [r["properties"]["requirementId"] for r in results] == ["KV-1", "KV-3"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [5, 15]
    defs = {"KVStore.__init__": 25, "KVStore.put": 28, "KVStore.get": 32}
    assert [(loc["logicalLocations"][0]["fullyQualifiedName"], loc["physicalLocation"]["region"]["startLine"])
            for loc in results[0]["locations"][1:]] == [("KVStore.__init__", defs["KVStore.__init__"]),
                                                        ("KVStore.get", defs["KVStore.get"]),
                                                        ("KVStore.put", defs["KVStore.put"])]
    if SHARED_DATA.is_dir():
        schema = json.loads((SHARED_DATA / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
        assert list(jsonschema.Draft7Validator(schema).iter_errors(sarif)) == []

    cases = [c.get("name") for c in ET.parse(out / "kvstore.gap.xml").getroot().iter("testcase")]
    assert cases[0] == "KV-1 [refuted]" and len(cases) == 7
    assert (out / "kvstore.gap.md").read_text(encoding="utf-8").count("<details>") == 7
    assert (out / "kvstore.gap.html").read_text(encoding="utf-8").count('<tr class="req"') == 7


@pytest.mark.slow
def test_fail_on_smell_and_reference(runs: dict[str, object]) -> None:
    ref = runs["reference"]
    assert ref.exit_code == 1, ref.output  # type: ignore[attr-defined]  # no refutation, but smells
    data = json.loads((Path(str(runs["dir"])) / "reference.json").read_text(encoding="utf-8"))
    assert data["summary"]["refuted"] == 0 and sum(data["smell_counts"].values()) == 3
    assert "6 requirements" in ref.output  # type: ignore[attr-defined]  # text still on standard output


@pytest.mark.slow
def test_explain_and_diff(runs: dict[str, object]) -> None:
    d = Path(str(runs["dir"]))
    agent_json, ref_json = d / "agent" / "kvstore.gap.json", d / "reference.json"
    runner = CliRunner()
    res = runner.invoke(cli, ["explain", str(agent_json), "KV-1"])
    assert res.exit_code == 0
    assert "KV-1: refuted" in res.output and "counterexample: scenario of KV-1 with" in res.output
    assert "expect s.get(key) == value" in res.output
    assert "test_ycsb.py::test_load_then_read_all: passed" in res.output
    assert "flag tests-pass-but-refuted" in res.output
    bad = runner.invoke(cli, ["explain", str(agent_json), "KV-99"])
    assert bad.exit_code == 2 and "KV-1, KV-2" in bad.output
    fixed = runner.invoke(cli, ["diff", str(agent_json), str(ref_json)])
    assert fixed.exit_code == 0
    assert "KV-1: refuted -> " in fixed.output and "(fixed)" in fixed.output
    assert "2 fixed" in fixed.output
    broke = runner.invoke(cli, ["diff", str(ref_json), str(agent_json)])
    assert broke.exit_code == 1 and "-> refuted (broke)" in broke.output


def test_schema_command_prints_shipped_schema() -> None:
    res = CliRunner().invoke(cli, ["schema"])
    assert res.exit_code == 0
    shipped = (REPO / "verifier" / "report" / "schema" / "gap-report.schema.json").read_text(encoding="utf-8")
    assert json.loads(res.output) == json.loads(shipped)


@pytest.mark.parametrize(("args", "message"), [
    (["--fail-on", "maybe"], "--fail-on 'maybe'"),
    (["-f", "json", "-f", "sarif"], "would all go to standard output"),
    (["-o", "pdf=x.pdf"], "unknown format 'pdf'"),
    (["--tests", "no/such/tests.py"], "--tests no/such/tests.py: no such file"),
])
def test_check_usage_errors_exit_2(args: list[str], message: str) -> None:
    res = CliRunner().invoke(cli, ["check", str(KV), *args])
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


def test_explain_rejects_a_non_report(tmp_path: Path) -> None:
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps({"schema_version": "1.1"}), encoding="utf-8")
    res = CliRunner().invoke(cli, ["explain", str(bad), "KV-1"])
    assert res.exit_code == 2 and "not a gap report of schema 1.3" in res.output
