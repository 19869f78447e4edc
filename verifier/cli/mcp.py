"""``evalgap mcp``: serve the MCP server for coding agents on stdio; a thin layer over
:mod:`evalgap.verifier.integrations.mcp_server` (docs/mcp.md)."""

from __future__ import annotations

from pathlib import Path

import click

from evalgap.verifier.cli.common import fail, finite_seconds

__all__ = ["mcp"]


@click.command()
@click.option("--max-budget", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              callback=finite_seconds,
              metavar="SECONDS", help="The most CrossHair CPU seconds per requirement a tool call may ask for "
                                      "(also the default).")
@click.option("--max-examples", type=click.IntRange(min=1), default=200, show_default=True,
              help="The most Hypothesis examples per requirement a tool call may ask for.")
@click.option("--engines", default=None, metavar="LIST", help="Engines run by the check tools, comma-separated "
              "(default: the project's settings).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Requirements checked in parallel.")
@click.option("--root", type=click.Path(path_type=Path, file_okay=False, exists=True), default=".",
              help="Folder that relative paths in tool calls are resolved against (default: here).")
def mcp(max_budget: float, max_examples: int, engines: str | None, jobs: int | None, root: Path) -> None:
    """Serve evalgap's tools (check, gate, lint, format, explain, draft) to an MCP client on stdio."""
    try:
        from evalgap.verifier.integrations.mcp_server import ServerLimits, serve
    except ImportError as exc:
        fail(f"evalgap mcp needs the MCP SDK ({exc}); install it with: pip install 'evalgap[integrations]'")
    from evalgap.verifier.errors import UsageError
    from evalgap.verifier.options import parse_engines

    try:
        names = parse_engines(engines) if engines else None
    except UsageError as exc:
        fail(str(exc))
    serve(ServerLimits(max_budget_s=max_budget, max_examples=max_examples, engines=names, jobs=jobs,
                       root=root.resolve()))
