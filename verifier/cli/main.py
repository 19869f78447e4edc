"""The ``evalgap`` command line: the group, its commands and the console-script entry point.

Each command lives in its own module of this package and is a thin layer over the library API
(:mod:`evalgap`): parse options, call the API, render, exit. Commands are imported only when used, so
``evalgap --help`` and ``evalgap lint`` do not pay for the engines. Other packages add commands through the
``evalgap.commands`` entry-point group (``NAME = "module:command"``); ``evalgap.research`` adds ``compare``
and ``import`` that way.

Exit codes, the same for every command: 0 nothing refuted and nothing unknown; 1 something refuted;
2 usage or spec error; 3 nothing refuted but something unknown. Precedence: 2, then 1, then 3.
Commands take their output streams from click, so tests call them in-process with ``CliRunner``.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.metadata import entry_points

import click

__all__ = ["main", "cli", "BUILTIN_COMMANDS"]

_C = "evalgap.verifier.cli"
#: command name -> "module:attribute" of the built-in commands.
BUILTIN_COMMANDS: dict[str, str] = {
    "check": f"{_C}.check:check", "lint": f"{_C}.lint:lint", "fmt": f"{_C}.lint:fmt",
    "analyze": f"{_C}.analyze:analyze", "check-config": f"{_C}.analyze:check_config",
    "gate": f"{_C}.gate:gate", "author": f"{_C}.authoring:author", "export": f"{_C}.authoring:export",
    "schema": f"{_C}.reports:schema", "explain": f"{_C}.reports:explain", "diff": f"{_C}.reports:diff",
    "cache": f"{_C}.cache:cache", "mcp": f"{_C}.mcp:mcp", "lsp": f"{_C}.lsp:lsp",
}


def _plugins() -> dict[str, str]:
    """Commands of the ``evalgap.commands`` entry-point group (a built-in name cannot be taken)."""
    return {ep.name: ep.value for ep in entry_points(group="evalgap.commands") if ep.name not in BUILTIN_COMMANDS}


class _LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*BUILTIN_COMMANDS, *_plugins()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = BUILTIN_COMMANDS.get(cmd_name) or _plugins().get(cmd_name)
        if where is None:
            return None
        module, _, attr = where.partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command


def _version_message() -> str:
    from evalgap import __version__
    from evalgap.verifier.sandbox import isolation

    return f"evalgap {__version__}\nsandbox: {isolation.probe()}"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(_version_message())
        ctx.exit()


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and the sandbox a job would run under, and exit.")
def cli() -> None:
    """evalgap: measure the gap between "the tests pass" and "the code meets its requirements"."""


def main() -> None:
    """Console-script entry point (also ``python -m evalgap``)."""
    try:
        cli.main(prog_name="evalgap", standalone_mode=False)
    except click.exceptions.Exit as exc:  # --help, --version
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # a bad option or argument: click's message, exit 2
        exc.show()
        sys.exit(2)
    except (KeyboardInterrupt, click.exceptions.Abort):  # Ctrl-C: 130 as shells expect, never 1 ("refuted")
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - never show a user a traceback
        if os.environ.get("EVALGAP_DEBUG"):
            raise
        click.echo(f"evalgap: internal error: {type(exc).__name__}: {exc}\n"
                   "This is a bug in evalgap; rerun with EVALGAP_DEBUG=1 to see the traceback and report it.",
                   err=True)
        sys.exit(2)
