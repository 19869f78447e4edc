"""What every command module shares: turning the library's exceptions into a message and exit 2, and
writing a named output file."""

from __future__ import annotations

import functools
import math
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn, TypeVar

import click

from evalgap.specs_lang.errors import SpecError
from evalgap.verifier.errors import VerifierError
from evalgap.verifier.fileio import make_folder, write_text

__all__ = ["fail", "handles_errors", "write_output", "echo_or_write", "finite_seconds", "read_stdin_spec"]

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, prefix: str = "error: ") -> NoReturn:
    """Print ``message`` on standard error and exit 2 (usage or spec error)."""
    click.echo(f"{prefix}{message}" if prefix and not message.startswith(prefix) else message, err=True)
    from evalgap.verifier.report.gap import EXIT_USAGE

    raise SystemExit(EXIT_USAGE)


def handles_errors(prefix: str = "error: ") -> Callable[[F], F]:
    """Decorate a command: a :class:`SpecError` prints its diagnostics (file, line, column, caret) and a
    :class:`VerifierError` its message, both exiting 2; ``prefix`` starts the latter (``error: ``)."""
    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except SpecError as exc:
                fail(exc.render(), prefix="")
            except VerifierError as exc:
                fail(str(exc), prefix=prefix)
        return run  # type: ignore[return-value]
    return wrap


def finite_seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A click callback: ``value`` (seconds) must be finite and positive (``nan``/``inf`` pass click's own
    ranges); raises :class:`click.BadParameter` (exit 2) otherwise."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"must be a finite, positive number of seconds, got {value:g}")
    return value


def write_output(path: Path, text: str, folder: Path | None = None) -> None:
    """Write a user-named output file (:func:`evalgap.verifier.fileio.write_text`), first creating
    ``folder`` (``-o DIR/``, one level) when given; raises UsageError."""
    if folder is not None:
        make_folder(folder)
    write_text(path, text)


def echo_or_write(text: str, output: Path | None) -> None:
    """``text`` to ``output`` when given (``-``: standard output), else to standard output."""
    if output is not None and str(output) != "-":
        write_output(output, text)
    else:
        click.echo(text, nl=False)


def stderr_is_terminal() -> bool:
    """Whether progress may be drawn (standard error is a terminal)."""
    return sys.stderr.isatty()


def read_stdin_spec() -> str:
    """A spec piped into standard input (``-`` as the spec argument), named ``<stdin>``.

    Raises:
        SpecSyntaxError: EG100 (not UTF-8, binary) or EG107 (larger than a spec may be), at ``<stdin>``.
    """
    from evalgap.specs_lang.textfile import STDIN_NAME, read_stream

    return read_stream(sys.stdin.buffer, STDIN_NAME)
