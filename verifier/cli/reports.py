"""``evalgap schema``, ``evalgap explain`` and ``evalgap diff``: commands over saved JSON gap reports."""

from __future__ import annotations

from pathlib import Path

import click

from evalgap.verifier.cli.common import handles_errors
from evalgap.verifier.report.diff import diff_reports, render_diff
from evalgap.verifier.report.explain import explain as explain_requirement
from evalgap.verifier.report.gap import EXIT_OK, EXIT_REFUTED
from evalgap.verifier.report.json_report import load_report, schema_text

__all__ = ["schema", "explain", "diff"]


@click.command()
def schema() -> None:
    """Print the JSON Schema of the JSON gap report (the version in its schema_version)."""
    click.echo(schema_text(), nl=False)


@click.command()
@click.argument("report", type=click.Path(path_type=Path))
@click.argument("req_id", metavar="ID")
@handles_errors()
def explain(report: Path, req_id: str) -> None:
    """Print one requirement's full story from a JSON gap REPORT: prose, formal text, verdicts, evidence."""
    click.echo(explain_requirement(load_report(report), req_id), nl=False)
    raise SystemExit(EXIT_OK)


@click.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--all", "show_all", is_flag=True, help="Also list requirements whose verdict did not change.")
@handles_errors()
def diff(old: Path, new: Path, show_all: bool) -> None:
    """Show verdict changes from OLD to NEW JSON gap reports; exit 1 when a requirement broke (became refuted)."""
    changes = diff_reports(load_report(old), load_report(new))
    click.echo(render_diff(changes, show_same=show_all), nl=False)
    raise SystemExit(EXIT_REFUTED if any(c.kind == "broke" for c in changes) else EXIT_OK)
