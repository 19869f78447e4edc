"""The MCP server (issue 21), driven by the SDK's own client in-process: the tools are listed, a check of
the kvstore case's agent store is refuted with a schema-valid JSON report, budgets are capped by the
server, and bad input is a tool error carrying the diagnostics (never a traceback)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from egtest import CASES  # noqa: E402
from evalgap.specs_lang import parse  # noqa: E402
from evalgap.verifier.integrations.mcp_server import TOOLS, ServerLimits, build_server  # noqa: E402
from evalgap.verifier.report.json_report import validate_report  # noqa: E402
from gate_repos import git  # noqa: E402

SPEC = """\
spec t "mcp test"
  target: t.py

function double(n: int) -> int
  requirement D-1 "Returns twice its argument."
    ensures result == 2 * n
"""
RIGHT = "def double(n: int) -> int:\n    return n + n\n"
WRONG = "def double(n: int) -> int:\n    return n + n if n != 7 else 15\n"


def _session(limits: ServerLimits, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(build_server(limits)) as client:
            return await body(client)
    return asyncio.run(main())


def test_a_session_lists_the_tools_and_refutes_the_kvstore_agent_store() -> None:
    limits = ServerLimits(max_budget_s=2.0, engines=("crosshair",), root=CASES)

    async def body(client: Client) -> Any:
        tools = await client.list_tools()
        result = await client.call_tool("check_spec", {"spec": "kvstore", "budget_s": 60})
        return [t.name for t in tools.tools], result

    names, result = _session(limits, body)
    assert names == list(TOOLS)
    assert not result.is_error
    report = result.structured_content
    assert validate_report(report) == []
    verdicts = {r["id"]: r["verdict"] for r in report["requirements"]}
    assert verdicts["KV-1"] == "refuted" and verdicts["KV-5"] == "not-formalized"
    assert report["budget_s"] == 2.0  # asked for 60, capped by the server
    kv1 = next(r for r in report["requirements"] if r["id"] == "KV-1")
    assert kv1["counterexample"] and [v["engine"] for v in kv1["verdicts"]] == ["crosshair"]
    assert "crosshair" not in sys.modules  # the server process never imports it


def test_lint_format_explain_draft_and_errors(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(WRONG, encoding="utf-8")
    (tmp_path / "t.req").write_text(SPEC, encoding="utf-8")
    (tmp_path / "bad.req").write_text(SPEC.replace("2 * n", "2 *"), encoding="utf-8")
    (tmp_path / "ugly.req").write_text(SPEC.replace("    ensures result == 2 * n", "      ensures result==2*n"),
                                       encoding="utf-8")
    limits = ServerLimits(max_budget_s=2.0, engines=("crosshair",), root=tmp_path)

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        calls: dict[str, tuple[str, dict[str, Any]]] = {"lint_bad": ("lint_spec", {"spec": "bad.req"}),
                           "lint_ok": ("lint_spec", {"spec": "t.req"}),
                           "fmt": ("format_spec", {"spec": "ugly.req", "write": True}),
                           "fmt_bad": ("format_spec", {"text": SPEC.replace("2 * n", "2 *")}),
                           "explain": ("explain_requirement", {"spec": "t.req", "requirement": "D-1"}),
                           "explain_missing": ("explain_requirement", {"spec": "t.req", "requirement": "Z-9"}),
                           "missing": ("check_spec", {"spec": "nope.req"}),
                           "draft": ("draft_spec", {"prose": "# double\n\nIt never fails.\n", "target": "t.py"}),
                           "budget": ("check_spec", {"spec": "t.req", "budget_s": -1}),
                           "suite": ("check_spec", {"spec": str(CASES)})}
        for name, (tool, args) in calls.items():
            out[name] = await client.call_tool(tool, args)
        return out

    r = _session(limits, body)
    lint = r["lint_bad"].structured_content
    assert lint["ok"] is False and lint["diagnostics"][0]["code"] == "EG101"
    assert lint["diagnostics"][0]["line"] == 6 and lint["diagnostics"][0]["col"] >= 24  # at or after `2 *`
    assert r["lint_ok"].structured_content["ok"] is True
    assert r["fmt"].structured_content["changed"] is True and r["fmt"].structured_content["written"] is True
    assert (tmp_path / "ugly.req").read_text(encoding="utf-8") == SPEC
    assert r["fmt_bad"].is_error and "EG101" in r["fmt_bad"].content[0].text and "^" in r["fmt_bad"].content[0].text
    explained = r["explain"].structured_content
    assert explained["text"].startswith("D-1: refuted") and "double(7)" in explained["text"]
    assert explained["requirement"]["verdict"] == "refuted"
    assert r["explain_missing"].is_error and "Z-9" in r["explain_missing"].content[0].text
    assert r["missing"].is_error and "does not exist" in r["missing"].content[0].text
    assert "Traceback" not in r["missing"].content[0].text
    draft = r["draft"].structured_content["spec"]
    assert parse(draft).functions[0].name == "double"
    assert r["budget"].is_error and "positive" in r["budget"].content[0].text
    assert r["suite"].is_error and "folder of cases" in r["suite"].content[0].text  # refused before it runs


def test_gate_patch_reports_the_requirement_the_diff_breaks(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "t.py").write_text(RIGHT, encoding="utf-8")
    (repo / "t.req").write_text(SPEC, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "t.py").write_text(WRONG, encoding="utf-8")
    patch = git(repo, "diff")
    git(repo, "checkout", "-q", "t.py")
    limits = ServerLimits(max_budget_s=2.0, root=tmp_path)

    async def body(client: Client) -> Any:
        return await client.call_tool("gate_patch", {"repo": "repo", "spec": "t.req", "patch": patch,
                                                      "behavior_diff": False})

    result = _session(limits, body)
    assert not result.is_error, result.content
    gate = result.structured_content
    assert gate["exit_code"] == 1 and gate["summary"]["broken"] == 1
    assert [(r["id"], r["transition"]) for r in gate["requirements"]] == [("D-1", "broken")]


def test_evalgap_mcp_serves_on_stdio(tmp_path: Path) -> None:
    """The command itself: ``evalgap mcp`` launched by the SDK's stdio client lists the tools."""
    from mcp import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "evalgap", "mcp", "--max-budget", "1",
                                                                 "--root", str(tmp_path)])

    async def main() -> list[str]:
        async with Client(params) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert asyncio.run(main()) == list(TOOLS)


def test_lint_spec_returns_the_lint_warnings(tmp_path: Path) -> None:
    """EG230 reaches the agent as a warning of ``lint_spec`` (``ok`` stays true: warnings do not fail)."""
    (tmp_path / "w_t.py").write_text("def withdraw(balance: int, amount: int) -> int:\n    if amount > balance:\n"
                                     "        raise ValueError('no')\n    return balance - amount\n", encoding="utf-8")
    (tmp_path / "w.req").write_text('spec w "warn"\n  target: w_t.py\n\nfunction withdraw(balance: int, amount: int)'
                                    ' -> int\n  requirement W-1 "New balance."\n    ensures result == balance - amount\n',
                                    encoding="utf-8")
    limits = ServerLimits(max_budget_s=2.0, root=tmp_path)

    async def body(client: Client) -> Any:
        return await client.call_tool("lint_spec", {"spec": "w.req"})

    out = _session(limits, body).structured_content
    assert out["ok"] is True and out["diagnostics"] == []
    assert [(w["code"], w["line"], w["col"]) for w in out["warnings"]] == [("EG230", 6, 5)]
    assert "raises ValueError" in out["warnings"][0]["message"] and "raises ValueError when" in out["warnings"][0]["hint"]
