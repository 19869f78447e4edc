"""``evalgap mcp``: an MCP server (the official ``mcp`` SDK, 2.x) so a coding agent can check its own work
before it hands it in.

Tools (each a thin layer over :mod:`evalgap`; their results are structured data):

=======================  ===========================================================================
``check_spec``           check a spec against its target -> the JSON gap report (``evalgap schema``)
``gate_patch``           gate a change (a diff text applied to ``base``, or ``base``..``head``) -> the
                         gate report as JSON
``lint_spec``            syntax, names, types and the target's signatures -> diagnostics with positions
``format_spec``          the canonical layout of a spec (text or file; written only when asked)
``explain_requirement``  one requirement's full story (prose, formal text, each engine's evidence)
``draft_spec``           draft a ``.req`` spec from prose (the offline pattern engine)
=======================  ===========================================================================

Budgets are capped by the server's :class:`ServerLimits` (``evalgap mcp --max-budget``): a tool call may ask
for less, never more. Relative paths are resolved against the server's root folder. Every run of the code
under check goes through the API, so through evalgap's sandboxed worker processes; the server process itself
never imports CrossHair or the target. Bad input (a spec error, a missing file) is a tool error whose text is
the diagnostics (file, line, column, caret), never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import evalgap
from evalgap.specs_lang.errors import SpecError
from evalgap.translators.errors import TranslationError
from evalgap.verifier.errors import VerifierError
from evalgap.verifier.sandbox.scratch import scratch_dir

__all__ = ["ServerLimits", "build_server", "TOOLS"]

#: The tools the server offers, in the order they are listed.
TOOLS = ("check_spec", "gate_patch", "lint_spec", "format_spec", "explain_requirement", "draft_spec")


@dataclass(frozen=True)
class ServerLimits:
    """What a tool call may spend and where relative paths point.

    Attributes:
        max_budget_s: CrossHair CPU seconds per requirement a call may ask for (also the default).
        max_examples: Hypothesis examples per requirement a call may ask for.
        engines: the engines run (None: the project's settings, else the defaults).
        jobs: requirements checked in parallel (None: the settings' default, the number of cores).
        root: the folder relative paths are resolved against.
    """

    max_budget_s: float = 10.0
    max_examples: int = 200
    engines: tuple[str, ...] | None = None
    jobs: int | None = None
    root: Path = field(default_factory=Path.cwd)


def _path(limits: ServerLimits, given: str) -> Path:
    path = Path(given).expanduser()
    return path if path.is_absolute() else limits.root / path


def _budget(limits: ServerLimits, asked: float | None) -> float:
    if asked is not None and asked <= 0:
        raise ToolError(f"budget_s must be a positive number of CPU seconds, got {asked:g}")
    return min(asked if asked is not None else limits.max_budget_s, limits.max_budget_s)


def _settings(limits: ServerLimits, spec: Path, budget_s: float | None, engines: list[str] | None) -> Any:
    start = spec if spec.is_dir() else spec.parent
    chosen = engines if engines else (list(limits.engines) if limits.engines else None)
    opts = evalgap.settings(start, engines=chosen, jobs=limits.jobs)
    budget = _budget(limits, budget_s) if budget_s is not None else min(opts.budget_s, limits.max_budget_s)
    return replace(opts, budget_s=budget, hypothesis_examples=min(opts.hypothesis_examples, limits.max_examples))


def _errors(fn: Any) -> Any:
    """Run ``fn()``; the packages' exceptions become a :class:`ToolError` carrying their message."""
    try:
        return fn()
    except SpecError as exc:
        raise ToolError(exc.render()) from None
    except (VerifierError, TranslationError) as exc:
        raise ToolError(f"error: {exc}") from None


def _diagnostic(d: Any) -> dict[str, Any]:
    sp = d.span
    return {"code": d.code, "message": d.message, "hint": d.hint, "file": sp.file, "line": sp.line,
            "col": sp.col, "end_line": sp.end_line, "end_col": sp.end_col}


def check_report(limits: ServerLimits, spec: str, target: str | None = None, budget_s: float | None = None,
                 engines: list[str] | None = None) -> dict[str, Any]:
    """The JSON gap report (a dict valid against ``evalgap schema``) of ``spec`` checked against ``target``.

    Raises:
        ToolError: a spec error (the diagnostics), a missing spec or target, a folder of cases.
    """
    from evalgap.verifier.report.gap import GapReport
    from evalgap.verifier.report.json_report import to_dict

    path = _path(limits, spec)
    if path.is_dir() and not (path / "case.toml").is_file() and not any(path.glob("*.req")):
        raise ToolError(f"{spec} is a folder of cases: check one case folder or .req file at a time")

    def run() -> Any:
        return evalgap.check(path, target, settings=_settings(limits, path, budget_s, engines))
    report = _errors(run)
    if not isinstance(report, GapReport):
        raise ToolError(f"{spec} is a folder of cases: check one case folder or .req file at a time")
    data: dict[str, Any] = to_dict(report)
    return data


def build_server(limits: ServerLimits | None = None) -> MCPServer:
    """The MCP server with the tools of :data:`TOOLS`, bound to ``limits``.

    Args:
        limits: the budget caps and root folder (default :class:`ServerLimits`).

    Returns:
        An ``mcp.server.mcpserver.MCPServer``; ``.run()`` serves it on stdio.
    """
    lim = limits or ServerLimits()
    server = MCPServer("evalgap", version=evalgap.__version__, log_level="WARNING", instructions=(
        "evalgap checks Python code against requirements written in .req specs. Verdicts: verified, refuted "
        "(a replayed counterexample), no-counterexample (none within the budget: not a proof), unknown (with "
        f"the reason), not-formalized. Budgets are capped at {lim.max_budget_s:g} CPU seconds per requirement."))

    @server.tool()
    def check_spec(spec: str, target: str | None = None, budget_s: float | None = None,
                   engines: list[str] | None = None) -> dict[str, Any]:
        """Check a spec (a .req file or a case folder) against its target (the spec's `target:`, a case's
        default implementation, or `target`: an implementation name, a module or a .py file). Returns the
        JSON gap report: per requirement its verdict, each engine's evidence (counterexample, reproducer,
        budget) and flags. budget_s is CrossHair CPU seconds per requirement (capped by the server)."""
        return check_report(lim, spec, target, budget_s, engines)

    @server.tool()
    def gate_patch(spec: str, repo: str = ".", patch: str | None = None, base: str = "HEAD",
                   head: str | None = None, budget_s: float | None = None,
                   behavior_diff: bool = True) -> dict[str, Any]:
        """Gate a change of a git repository: `patch` (unified diff text, applied to `base`) or the revisions
        `base`..`head`. Returns the gate report: requirements broken or fixed (only those the changed
        functions reach are checked), behaviour changes no requirement explains, evaluator-gaming findings,
        and `exit_code` (1: something broke or games the evaluator)."""
        from evalgap.verifier.gate.report import gate_to_dict
        from evalgap.verifier.gate.run import GateOptions

        if patch is not None and head is not None:
            raise ToolError("give either a patch or a head revision, not both")
        budget = _budget(lim, budget_s)
        opts = GateOptions(budget_s=budget, diff_budget_s=budget, jobs=lim.jobs or 1, behavior_diff=behavior_diff)
        with scratch_dir("evalgap-mcp-") as tmp:
            patch_file = None
            if patch is not None:
                patch_file = Path(tmp) / "change.diff"
                patch_file.write_text(patch if patch.endswith("\n") else patch + "\n", encoding="utf-8")
            report = _errors(lambda: evalgap.gate(_path(lim, repo), spec, base=base, head=head, patch=patch_file,
                                                  options=opts))
        data: dict[str, Any] = gate_to_dict(report)
        return data

    @server.tool()
    def lint_spec(spec: str, target: str | None = None) -> dict[str, Any]:
        """Lint a spec: syntax, structure, names, types and the target's real signatures (read in a sandboxed
        subprocess). Returns ok, the diagnostics (EG codes with 1-based line/col ranges), the warnings (e.g.
        EG230: an `ensures` forbids an exception the target raises; they do not make ok false) and the
        rendered text."""
        result = evalgap.lint(_path(lim, spec), target)
        return {"ok": result.ok, "file": result.file, "diagnostics": [_diagnostic(d) for d in result.diagnostics],
                "warnings": [_diagnostic(d) for d in result.warnings],
                "rendered": result.rendered, "error": result.error}

    @server.tool()
    def format_spec(spec: str | None = None, text: str | None = None, write: bool = False) -> dict[str, Any]:
        """Format a spec in the canonical layout (comments and prose kept): the file `spec`, or `text`.
        Returns the formatted text and whether it changed; the file is rewritten only with write=true."""
        from evalgap.specs_lang import parse
        from evalgap.specs_lang.format import format_spec as fmt
        from evalgap.verifier.fileio import write_text

        if (spec is None) == (text is None):
            raise ToolError("give exactly one of spec (a file) or text")
        path = _path(lim, spec) if spec is not None else None
        if path is not None:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ToolError(f"error: cannot read {spec}: {exc}") from None
        assert text is not None
        source = text
        new = _errors(lambda: fmt(parse(source, str(path) if path else "<text>"), source))
        written = False
        if write and path is not None and new != source:
            _errors(lambda: write_text(path, new))
            written = True
        return {"formatted": new, "changed": new != source, "written": written}

    @server.tool()
    def explain_requirement(spec: str, requirement: str, target: str | None = None,
                            budget_s: float | None = None) -> dict[str, Any]:
        """Explain one requirement: its prose, formal text, each engine's verdict with evidence and budget,
        flags and spec findings. Checks the spec (answered from the result cache when nothing changed)."""
        from evalgap.verifier.report.explain import explain

        report = check_report(lim, spec, target, budget_s)
        text = _errors(lambda: explain(report, requirement))
        req = next(r for r in report["requirements"] if r["id"] == requirement)
        return {"text": text, "requirement": req}

    @server.tool()
    def draft_spec(prose: str, target: str | None = None, function: str | None = None) -> dict[str, Any]:
        """Draft a .req spec from prose requirements (Markdown or plain text) with the offline pattern engine;
        `target` is the .py file the prose is about (its signatures bind the names). Returns the spec text
        (review it: sentences the engine cannot formalize become `informal`) and a summary."""
        with scratch_dir("evalgap-mcp-") as tmp:
            src = Path(tmp) / f"{Path(target).stem if target else 'requirements'}.md"  # names the spec
            src.write_text(prose, encoding="utf-8")
            tgt = _path(lim, target) if target is not None else None
            result = _errors(lambda: evalgap.author(src, target=tgt, function=function))
        return {"spec": result.text, "summary": result.summary_text(), "conflicts": result.conflicts}

    return server


def serve(limits: ServerLimits) -> None:
    """Serve :func:`build_server` on standard input and output until the client closes them."""
    build_server(limits).run()
