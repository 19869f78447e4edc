"""``evalgap gate``: gate a change of a git repository; a thin layer over :func:`evalgap.gate`."""

from __future__ import annotations

from pathlib import Path

import click

import evalgap
from evalgap.verifier.cli.common import handles_errors, write_output
from evalgap.verifier.fileio import preflight
from evalgap.verifier.options import (GATE_FAIL_ON_CHOICES, PROFILES, check_budget, parse_engines,
                                      parse_gate_fail_on, resolve_settings)
from evalgap.verifier.report.outputs import plan_outputs

__all__ = ["gate", "GATE_FORMATS", "GATE_FAIL_ON"]

GATE_FORMATS = ("text", "json", "markdown", "sarif", "junit")
#: What ``--fail-on`` may add to the gate's blocking policy.
GATE_FAIL_ON = frozenset(GATE_FAIL_ON_CHOICES)


@click.command()
@click.argument("repo", required=False, default=".", type=click.Path(path_type=Path, file_okay=False))
@click.option("--spec", "spec", required=True, type=click.Path(path_type=Path),
              help="The .req spec (repository-relative: read from each version).")
@click.option("--base", default="HEAD~1", show_default=True, help="Base revision.")
@click.option("--head", default=None, help="Head revision (default HEAD).")
@click.option("--patch", type=click.Path(path_type=Path, dir_okay=False), help="A diff applied to --base "
              "instead of --head.")
@click.option("--staged", is_flag=True, help="Gate the staged changes against HEAD (for pre-commit).")
@click.option("--target", "target_arg", metavar="FILE.py", help="Repository-relative target overriding the "
              "spec's `target:`.")
@click.option("--format", "-f", "formats", type=click.Choice(GATE_FORMATS), multiple=True,
              help="Report format; repeat for several (default text), as for `check`.")
@click.option("--output", "-o", "outputs", multiple=True, metavar="[FORMAT=]PATH",
              help="FORMAT=PATH writes that format to PATH; a plain PATH takes the one format given, or is a "
                   "folder for several (as for `check`).")
@click.option("--sarif", "sarif_out", type=click.Path(path_type=Path), help="Same as -o sarif=PATH.")
@click.option("--markdown", "md_out", type=click.Path(path_type=Path), help="Same as -o markdown=PATH.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), help="Same as -o json=PATH.")
@click.option("--junit", "junit_out", type=click.Path(path_type=Path), help="Same as -o junit=PATH.")
@click.option("--budget", type=float, metavar="SECONDS", help="CrossHair CPU seconds per requirement.")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), help="Budget profile (also EVALGAP_PROFILE).")
@click.option("--diff-budget", type=float, metavar="SECONDS", help="CrossHair CPU seconds per behaviour "
              "diff (default: the requirement budget).")
@click.option("--no-behavior-diff", is_flag=True, help="Skip behaviour diffing.")
@click.option("--fail-on-unexplained", is_flag=True, help="Same as --fail-on unexplained.")
@click.option("--fail-on", "fail_on", default=None, metavar="LIST",
              help="Also block on: still-refuted (a requirement refuted on base and head), unexplained (a "
                   "behaviour change no requirement explains). By default ([tool.evalgap] gate_fail_on of the "
                   "repository's pyproject.toml, else nothing) only newly broken requirements and gaming "
                   "findings block.")
@click.option("--engines", metavar="LIST", help="Engines per requirement, comma-separated: crosshair, "
              "hypothesis (default: both, as for `check`).")
@click.option("--tests", "tests", multiple=True, metavar="GLOB", help="Visible tests (repository-relative "
              "globs) whose literals EG407 looks for (default: tests/**, test_*.py, *_test.py).")
@click.option("--baseline", "baseline", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="A JSON report recorded earlier (`check -f json` or `gate -f json`, e.g. on the main branch): "
                   "a requirement refuted on base and head blocks unless the baseline has it refuted too.")
@click.option("--install-deps", is_flag=True, help="Install the project's dependencies (pyproject.toml "
              "[project].dependencies, else requirements.txt; wheels only, cached) for the code under check.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Requirements checked in parallel.")
@handles_errors()
def gate(repo: Path, spec: Path, base: str, head: str | None, patch: Path | None, staged: bool,
         target_arg: str | None, formats: tuple[str, ...], outputs: tuple[str, ...], sarif_out: Path | None,
         md_out: Path | None, json_out: Path | None, junit_out: Path | None, budget: float | None,
         profile: str | None, diff_budget: float | None, no_behavior_diff: bool, fail_on_unexplained: bool,
         fail_on: str | None, engines: str | None, tests: tuple[str, ...], baseline: Path | None,
         install_deps: bool, jobs: int | None) -> None:
    """Gate a change of REPO (default .): requirements it breaks, unexplained behaviour changes, gaming.

    Budget, profile, jobs, engines, Hypothesis examples and gate_fail_on come from `[tool.evalgap]` of the
    pyproject.toml in REPO (or its parents) where the command line does not set them, as for `check`."""
    from evalgap.verifier.gate import report as gr
    from evalgap.verifier.gate.baseline import load_baseline
    from evalgap.verifier.gate.run import DEFAULT_TEST_GLOBS, GateOptions, gate_exit_code

    aliases = tuple(f"{fmt}={path}" for fmt, path in (("sarif", sarif_out), ("markdown", md_out),
                                                      ("json", json_out), ("junit", junit_out)) if path)
    for dest in plan_outputs(formats, outputs + aliases, "gate"):  # bad -o / -f fail before anything runs
        if dest.path is not None:
            preflight(dest.path, dest.folder)
    settings = resolve_settings({"budget": budget, "profile": profile, "jobs": jobs,
                                 "engines": parse_engines(engines) if engines is not None else None,
                                 "gate_fail_on": parse_gate_fail_on(fail_on) if fail_on is not None else None},
                                repo)
    if diff_budget is not None:
        check_budget(diff_budget, "--diff-budget")
    opts = GateOptions.from_settings(settings, diff_budget_s=diff_budget or settings.budget_s,
                                     test_globs=tests or DEFAULT_TEST_GLOBS, behavior_diff=not no_behavior_diff,
                                     target=target_arg, fail_on_unexplained=fail_on_unexplained
                                     or "unexplained" in settings.gate_fail_on,
                                     baseline=load_baseline(baseline) if baseline is not None else None,
                                     install_deps=install_deps)
    report = evalgap.gate(repo, spec, base=base, head=head, patch=patch, staged=staged, options=opts)
    renderers = {"text": gr.render_gate_text, "json": gr.render_gate_json, "markdown": gr.render_gate_markdown,
                 "sarif": gr.render_gate_sarif, "junit": gr.render_gate_junit}
    for dest in plan_outputs(formats, outputs + aliases, "gate"):
        text = renderers[dest.fmt](report)
        if dest.path is not None:
            write_output(dest.path, text, dest.folder)
        else:
            click.echo(text, nl=False)
    raise SystemExit(gate_exit_code(report))
