"""What every registered report format must do (issue 15): a new format is one module plus one
registration line, and it passes these checks: the output is deterministic text naming every requirement
and the spec, machine-readable formats parse (JSON against the published schema, SARIF 2.1.0, JUnit XML),
``-o FOLDER`` uses the format's extension, and an unknown name is a usage error."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from evalgap.verifier.errors import UsageError
from evalgap.verifier.report import formats
from evalgap.verifier.report.json_report import schema_text
from evalgap.verifier.report.outputs import EXTENSIONS, FORMATS, plan_outputs, render
from report_fixtures import sample_report


def test_the_registry_holds_the_builtin_formats() -> None:
    assert FORMATS == formats.names()
    assert set(FORMATS) >= {"text", "json", "markdown", "sarif", "junit", "html"}
    assert EXTENSIONS["junit"] == "xml" and EXTENSIONS["markdown"] == "md"


@pytest.mark.parametrize("name", formats.names())
def test_every_format_is_deterministic_and_names_every_requirement(name: str) -> None:
    """Every format names every requirement; SARIF (a list of problems) names every refuted or unknown one."""
    report = sample_report()
    first, second = render(report, name), render(report, name)
    assert isinstance(first, str) and first == second
    problems = {"refuted", "unknown"}
    for r in report.requirements:
        if name != "sarif" or (r.verdict is not None and r.verdict.value in problems):
            assert r.id in first, f"{name} leaves out {r.id}"
    assert "demo" in first


@pytest.mark.parametrize("name", formats.names())
def test_machine_readable_formats_parse(name: str) -> None:
    text = render(sample_report(), name)
    if name == "json":
        jsonschema.validate(json.loads(text), json.loads(schema_text()))
    elif name == "sarif":
        doc = json.loads(text)
        assert doc["version"] == "2.1.0" and doc["runs"][0]["tool"]["driver"]["name"] == "evalgap"
    elif name == "junit":
        assert ET.fromstring(text).tag in ("testsuites", "testsuite")
    elif name == "html":
        assert text.lstrip().lower().startswith("<!doctype html")


@pytest.mark.parametrize("name", formats.names())
def test_a_folder_output_uses_the_format_extension(name: str, tmp_path: Path) -> None:
    others = [f for f in formats.names() if f != name][:1]
    dests = plan_outputs((name, *others), (str(tmp_path),), "demo")
    mine = next(d for d in dests if d.fmt == name)
    assert mine.path == tmp_path / f"demo.gap.{EXTENSIONS[name]}"


def test_a_registered_format_is_used_and_an_unknown_one_is_a_usage_error() -> None:
    class Ids:
        name = "ids"
        extension = "txt"

        def render(self, report: object, color: bool = False) -> str:
            return ",".join(r.id for r in report.requirements)  # type: ignore[attr-defined]

    formats.register(Ids())
    try:
        assert render(sample_report(), "ids") == ",".join(r.id for r in sample_report().requirements)
    finally:
        formats._FORMATS.pop("ids")
    with pytest.raises(UsageError, match="unknown format 'nope'"):
        render(sample_report(), "nope")
