"""Every renderer of the gap report: JSON (against the shipped schema), SARIF 2.1.0 (against the official
schema), JUnit XML, Markdown, self-contained HTML, and the --format/--output plan."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from report_fixtures import sample_report, shared_data_or_skip

from evalgap.verifier.errors import UsageError
from evalgap.verifier.findings import SpecFinding
from evalgap.verifier.report.outputs import Destination, plan_outputs, render
from evalgap.verifier.report.json_report import load_schema, to_dict, validate_report

TARGET = '''class Store:
    def __init__(self):
        self.d = {}

    def get(self, k):
        return self.d[k]

    def put(self, k, v):
        self.d[k] = v


def sort(xs):
    return sorted(set(xs))
'''


@pytest.fixture()
def report(tmp_path: Path):  # type: ignore[no-untyped-def]
    target = tmp_path / "demo_store.py"
    target.write_text(TARGET, encoding="utf-8")
    spec = tmp_path / "demo.req"
    spec.write_text("# demo\n", encoding="utf-8")
    return sample_report(spec_findings=(SpecFinding("EG301", "conflict", "", "function f", ("R-2", "R-3"),
                                                    "R-2 and R-3 conflict", ("unsat core: R-2, R-3",)),),
                         target_file=str(target), spec_file=str(spec))


# ------------------------------------------------------------------ JSON
def test_json_validates_against_shipped_schema(report) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(render(report, "json"))
    assert validate_report(data) == []
    assert data["schema_version"] == "1.3"
    assert data["coverage"]["formalized"] == 6
    assert data["requirements"][0]["flags"] == ["tests-pass-but-refuted"]
    assert data["spec_findings"][0]["requirement_ids"] == ["R-2", "R-3"]
    assert data["function_lines"] == {"Store": 1, "Store.__init__": 2, "Store.get": 5, "Store.put": 8, "sort": 12}


def _all_paths(node: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append(path + (k,))
            out += _all_paths(v, path + (k,))
    elif isinstance(node, list) and node:
        out += _all_paths(node[0], path + (0,))
    return out


def test_removing_any_field_fails_validation(report) -> None:  # type: ignore[no-untyped-def]
    data = to_dict(report)
    fixed_keys = {"function_lines", "tools", "smell_counts", "arguments"}  # maps with free keys
    checked = 0
    for p in _all_paths(data):
        if any(k in fixed_keys for k in p[:-1]):
            continue
        broken = copy.deepcopy(data)
        node: Any = broken
        for k in p[:-1]:
            node = node[k]
        del node[p[-1]]
        assert validate_report(broken), f"removing {'/'.join(map(str, p))} still validates"
        checked += 1
    assert checked > 60


def test_unknown_property_and_bad_values_fail(report) -> None:  # type: ignore[no-untyped-def]
    data = to_dict(report)
    extra = copy.deepcopy(data)
    extra["requirements"][0]["colour"] = "red"
    assert any("colour" in p for p in validate_report(extra))
    bad = copy.deepcopy(data)
    bad["requirements"][0]["verdict"] = "probably-fine"
    assert validate_report(bad)
    flag = copy.deepcopy(data)
    flag["requirements"][0]["flags"] = ["looks-ok"]
    assert validate_report(flag)


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema())


# ------------------------------------------------------------------ SARIF
def test_sarif_validates_against_official_schema(report) -> None:  # type: ignore[no-untyped-def]
    data = shared_data_or_skip()
    schema = json.loads((data / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    sarif = json.loads(render(report, "sarif"))
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(sarif))
    assert errors == []


def test_sarif_results_and_lines(report) -> None:  # type: ignore[no-untyped-def]
    sarif = json.loads(render(report, "sarif"))
    results = sarif["runs"][0]["results"]
    # refuted, unknown R-4; nothing else
    assert [(r["properties"]["requirementId"], r["ruleId"], r["level"]) for r in results] == [
        ("R-1", "EG501", "error"), ("R-4", "EG502", "warning"), ("R-7", "EG501", "error")]
    spec_lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results]
    assert spec_lines == [3, 16, 26]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("demo.req")
               for r in results)
    # R-1 exercises Store.get (line 5) and Store.put (line 8); R-4's Store.size does not exist; R-7 sort (12)
    fn = [[(loc["logicalLocations"][0]["fullyQualifiedName"], loc["physicalLocation"]["region"]["startLine"])
           for loc in r["locations"][1:]] for r in results]
    assert fn == [[("Store.get", 5), ("Store.put", 8)], [], [("sort", 12)]]
    assert "put then get with key=''" in results[0]["message"]["text"]


# ------------------------------------------------------------------ JUnit
def test_junit_one_case_per_requirement(report) -> None:  # type: ignore[no-untyped-def]
    doc = ET.fromstring(render(report, "junit"))
    assert doc.tag == "testsuites"  # the one JUnit writer, shared with the gate
    [root] = doc.findall("testsuite")
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("7", "2", "2")
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert list(cases) == ["R-1", "R-2", "R-3", "R-4", "R-5", "R-6", "R-7"]  # stable: the verdict is data
    props = {n: {p.get("name"): p.get("value") for p in c.iter("property")} for n, c in cases.items()}
    assert [props[n]["verdict"] for n in cases] == ["refuted", "verified", "no-counterexample", "unknown",
                                                    "not-formalized", "no-counterexample", "refuted"]
    assert props["R-3"]["verdict_detail"] == "no-counterexample within 2 s" and props["R-3"]["budget"] == "2 s"
    failure = cases["R-1"].find("failure")
    assert failure is not None and (failure.get("message") or "").startswith("refuted: counterexample: ")
    assert "put then get" in (failure.get("message") or "")
    skipped = cases["R-4"].find("skipped")
    assert skipped is not None and skipped.get("message", "").startswith("unknown (budget ")
    assert "budget exhausted" in skipped.get("message", "")
    assert cases["R-3"].find("failure") is None
    assert cases["R-2"].get("line") == "8"


# ------------------------------------------------------------------ Markdown
def test_markdown_has_table_and_collapsible_details(report) -> None:  # type: ignore[no-untyped-def]
    md = render(report, "markdown")
    assert md.count("<details><summary><b>R-") == 7
    assert md.count("</details>") == 8  # 7 requirements + the flags legend
    assert "| R-1 | ❌ `refuted` | tests-pass-but-refuted |" in md
    assert "counterexample `put then get with key=''`" in md
    assert "spec finding `EG301` **conflict** (R-2, R-3)" in md
    assert md.count("Spec finding `EG301` **conflict** (error): R-2 and R-3 conflict") == 2  # under
    assert "*vague-term* \u201cfast enough\u201d" in md


# ------------------------------------------------------------------ HTML (static checks; rendering: test_report_html)
def test_html_is_self_contained(report) -> None:  # type: ignore[no-untyped-def]
    html = render(report, "html")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "<link" not in html
    assert html.count('<tr class="req"') == 7
    assert '<mark class="smell" data-smell="vague-term"' in html
    assert "put then get with key=&#39;&#39;" in html
    assert html.count('<div class="finding"><b>spec conflict</b> <code>EG301</code>') == 2


# ------------------------------------------------------------------ --format / --output
def test_plan_outputs() -> None:
    assert plan_outputs((), (), "kv") == [Destination("text", None)]
    assert plan_outputs(("json",), ("r.json",), "kv") == [Destination("json", Path("r.json"))]
    assert plan_outputs(("json", "sarif", "text"), ("out",), "kv") == [
        Destination("json", Path("out/kv.gap.json")), Destination("sarif", Path("out/kv.gap.sarif")),
        Destination("text", Path("out/kv.gap.txt"))]
    assert plan_outputs((), ("sarif=a.sarif", "junit=j.xml"), "kv") == [
        Destination("sarif", Path("a.sarif")), Destination("junit", Path("j.xml")), Destination("text", None)]
    assert plan_outputs(("json", "text"), ("json=r.json",), "kv") == [
        Destination("json", Path("r.json")), Destination("text", None)]


@pytest.mark.parametrize(("formats", "outputs", "message"), [
    (("json", "sarif"), (), "would all go to standard output"),
    (("json",), ("a", "b"), "may be given once"),
    ((), ("pdf=x.pdf",), "unknown format 'pdf'"),
    ((), ("json=a", "json=b"), "already goes to"),
])
def test_plan_outputs_errors(formats: tuple[str, ...], outputs: tuple[str, ...], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        plan_outputs(formats, outputs, "kv")
