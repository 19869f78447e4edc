"""``evalgap analyze`` and ``evalgap check-config``: Z3 over the spec alone; thin layers over
:func:`evalgap.analyze`."""

from __future__ import annotations

import io
from pathlib import Path

import click

import evalgap
from evalgap.verifier.analysis.spec_findings import AnalysisReport, analysis_exit_code
from evalgap.verifier.cli.common import finite_seconds, handles_errors
from evalgap.verifier.options import resolve_settings
from evalgap.verifier.report.analysis_text import render_analysis_json, render_analysis_text

__all__ = ["analyze", "check_config"]


def _print(report: AnalysisReport, fmt: str) -> None:
    if fmt == "json":
        click.echo(render_analysis_json(report), nl=False)
    else:
        buf = io.StringIO()
        render_analysis_text(report, buf)
        click.echo(buf.getvalue(), nl=False)
    raise SystemExit(analysis_exit_code(report))


@click.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0.01), default=None, metavar="SECONDS",
              callback=finite_seconds, help="Solver timeout per query (default: [tool.evalgap] analysis_timeout, "
              "else 5).")
@handles_errors()
def analyze(spec: Path, fmt: str, timeout: float | None) -> None:
    """Z3 analysis of SPEC's requirements: conflicts, vacuity, redundancy, realizability, weak-spec witnesses.

    Exit 1 on a conflict or an unrealizable contract, 3 when something could not be analysed, else 0.
    """
    _print(evalgap.analyze(spec, timeout_s=_timeout(spec, timeout)), fmt)


def _timeout(spec: Path, given: float | None) -> float:
    """``--timeout``, else ``analysis_timeout`` of the spec's settings (``[tool.evalgap]``), else 5 s.

    Raises:
        UsageError: a bad ``[tool.evalgap]`` table.
    """
    settings = resolve_settings({"analysis_timeout": given}, spec if spec.is_dir() else spec.parent)
    return settings.analysis_timeout_s


@click.command("check-config")
@click.argument("spec", type=click.Path(path_type=Path))
@click.argument("config_file", type=click.Path(path_type=Path))
@click.option("--config", "config_name", metavar="NAME", help="The config block (when the spec has several).")
@click.option("--freeze", multiple=True, metavar="GLOB", help="Fields the repair must keep, e.g. "
              "'datasets[*].pii' (repeatable; also [configs] freeze in case.toml).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0.01), default=None, metavar="SECONDS",
              callback=finite_seconds, help="Solver timeout per query (default: [tool.evalgap] analysis_timeout, "
              "else 5).")
@handles_errors()
def check_config(spec: Path, config_file: Path, config_name: str | None, freeze: tuple[str, ...], fmt: str,
                 timeout: float | None) -> None:
    """Check CONFIG_FILE (.json, .yaml, .toml) against SPEC's config rules; name every violated rule with
    the offending values and propose the smallest repair. Exit 1 on a violation."""
    _print(evalgap.analyze(spec, timeout_s=_timeout(spec, timeout), config=config_file, config_name=config_name,
                           freeze=freeze), fmt)
