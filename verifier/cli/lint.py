"""``evalgap lint`` and ``evalgap fmt``: the spec's own problems; thin layers over :func:`evalgap.lint` and
:func:`evalgap.verifier.authoring.fmt.format_file`."""

from __future__ import annotations

from pathlib import Path

import click

import evalgap
from evalgap.specs_lang.errors import SpecError
from evalgap.specs_lang.textfile import STDIN_NAME
from evalgap.verifier.cli.common import read_stdin_spec
from evalgap.verifier.cli.common import handles_errors
from evalgap.verifier.errors import UsageError, VerifierError
from evalgap.verifier.options import resolve_settings
from evalgap.verifier.report.gap import EXIT_OK, EXIT_USAGE

__all__ = ["lint", "fmt"]


@click.command()
@click.argument("specs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--target", "target_arg", metavar="NAME|MODULE|FILE",
              help="Check names and signatures against this code (default: the case's default, else the "
                   "spec's `target:`); the target is imported in a sandboxed subprocess.")
@handles_errors()
def lint(specs: tuple[Path, ...], target_arg: str | None) -> None:
    """Check SPECS: syntax, structure, names and types, and the target's real signatures; exit 2 on any
    problem (all problems of a file are reported in one run). `-` reads a spec from standard input (named
    `<stdin>` in the diagnostics; its target and imports are relative to the current folder). Without SPECS,
    the specs `[tool.evalgap] specs` of the pyproject.toml in the current folder (or its parents) names."""
    bad = False
    if not specs:
        settings = resolve_settings({}, Path.cwd())
        specs = settings.specs
        if not specs:
            raise UsageError("give the specs to lint (or `-` for standard input), or list them in "
                             f"[tool.evalgap] specs of {settings.pyproject or 'a pyproject.toml'}")
    for sp in specs:
        if str(sp) == "-":
            try:
                text = read_stdin_spec()
            except SpecError as exc:
                click.echo(exc.render(), err=True)
                bad = True
                continue
            result = evalgap.lint(STDIN_NAME, target_arg, text=text)
        else:
            result = evalgap.lint(sp, target_arg)
        if result.ok:
            if result.warnings:
                click.echo(result.rendered, err=True)
            click.echo(f"{result.file}: ok" + (f" ({len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''})"
                                               if result.warnings else ""))
        else:
            click.echo(result.rendered, err=True)
            bad = True
    raise SystemExit(EXIT_USAGE if bad else EXIT_OK)


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 when a file would change.")
def fmt(files: tuple[Path, ...], check_only: bool) -> None:
    """Rewrite FILES (.req) in the canonical layout, keeping comments and prose; exit 2 on a syntax error.
    `-` formats standard input to standard output (with --check: writes nothing, exit 1 when it would
    change)."""
    from evalgap.verifier.authoring.fmt import format_file, format_text

    changed = bad = False
    for f in files:
        if str(f) == "-":
            try:
                text = read_stdin_spec()
                new = format_text(text, STDIN_NAME)
            except SpecError as exc:
                click.echo(exc.render(), err=True)
                bad = True
                continue
            changed |= new != text
            if not check_only:
                click.echo(new, nl=False)
            elif new != text:
                click.echo(f"would reformat {STDIN_NAME}", err=True)
            continue
        try:
            res = format_file(f, check_only)
        except SpecError as exc:
            click.echo(exc.render(), err=True)
            bad = True
            continue
        except VerifierError as exc:
            click.echo(f"error: {exc}", err=True)
            bad = True
            continue
        changed |= res.changed
        if res.changed:
            click.echo(f"{'would reformat' if check_only else 'reformatted'} {f}")
    raise SystemExit(EXIT_USAGE if bad else (1 if check_only and changed else EXIT_OK))
