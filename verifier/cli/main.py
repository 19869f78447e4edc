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

import errno
import importlib
import os
import signal
import sys
import threading

import click

__all__ = ["main", "cli", "BUILTIN_COMMANDS", "SHORT_HELP"]

_C = "evalgap.verifier.cli"
#: command name -> "module:attribute" of the built-in commands.
BUILTIN_COMMANDS: dict[str, str] = {
    "check": f"{_C}.check:check", "lint": f"{_C}.lint:lint", "fmt": f"{_C}.lint:fmt",
    "analyze": f"{_C}.analyze:analyze", "check-config": f"{_C}.analyze:check_config",
    "gate": f"{_C}.gate:gate", "author": f"{_C}.authoring:author", "export": f"{_C}.authoring:export",
    "schema": f"{_C}.reports:schema", "explain": f"{_C}.reports:explain", "diff": f"{_C}.reports:diff",
    "cache": f"{_C}.cache:cache", "mcp": f"{_C}.mcp:mcp", "lsp": f"{_C}.lsp:lsp",
    "serve": f"{_C}.serve:serve",
}


def _plugins() -> dict[str, str]:
    """Commands of the ``evalgap.commands`` entry-point group (a built-in name cannot be taken)."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group="evalgap.commands") if ep.name not in BUILTIN_COMMANDS}


#: The one-line help ``evalgap --help`` lists for each built-in command, so that listing them imports none of
#: them (each command module pulls in the spec language, the reports, ...); a test keeps these equal to the
#: commands' own ``get_short_help_str()``.
SHORT_HELP: dict[str, str] = {
    "analyze": "Z3 analysis of SPEC's requirements: conflicts, vacuity,...",
    "author": "Draft a .req spec from prose INPUT (Markdown, text, or a...",
    "cache": "The result cache: where it is, how big, and how to empty...",
    "check": "Check SPEC (a .req file or a case folder with case.toml)...",
    "check-config": "Check CONFIG_FILE (.json, .yaml, .toml) against SPEC's...",
    "diff": "Show verdict changes from OLD to NEW JSON gap reports;...",
    "explain": "Print one requirement's full story from a JSON gap...",
    "export": "Export SPEC's requirements as an icontract module or a...",
    "fmt": "Rewrite FILES (.req) in the canonical layout, keeping...",
    "gate": "Gate a change of REPO (default .): requirements it...",
    "lint": "Check SPECS: syntax, structure, names and types, and the...",
    "lsp": "Serve the evalgap language server (diagnostics,...",
    "mcp": "Serve evalgap's tools (check, gate, lint, format,...",
    "schema": "Print the JSON Schema of the JSON gap report (the version...",
    "serve": "Serve checks on a private Unix socket with warm workers,...",
}


class _LazyGroup(click.Group):
    """A group whose commands are imported on first use (``--help`` lists the built-in ones from
    :data:`SHORT_HELP` without importing them)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*BUILTIN_COMMANDS, *_plugins()})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names), default=0)
        for name in names:
            if name in SHORT_HELP:
                rows.append((name, SHORT_HELP[name]))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

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


#: errno values that mean "the output could not be written" (a full disk, a quota, an I/O error), not a bug.
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE})


def _run() -> None:
    """Run the group, then flush standard output so a failed write surfaces here, not at interpreter exit."""
    code: str | int | None = 0
    try:
        cli.main(prog_name="evalgap", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
    sys.stdout.flush()
    sys.exit(code)


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null so the unwritable buffer's flush at exit cannot fail again."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    except OSError:  # pragma: no cover - nothing more can be done
        pass


def _on_signal(signum: int, _frame: object) -> None:
    """SIGINT/SIGTERM: stop the fork servers (their workers die with them; spawned workers die with this
    process, see :mod:`evalgap.verifier.sandbox.lifetime`), remove evalgap's temporary folders
    (:mod:`evalgap.verifier.sandbox.scratch`) and exit 128+signal at once, without waiting for the running checks."""
    try:
        sys.stderr.write("evalgap: interrupted\n")
        sys.stderr.flush()
    except OSError:
        pass
    try:
        from evalgap.verifier.sandbox import scratch
        from evalgap.verifier.sandbox import forkserver

        forkserver.shutdown()
        scratch.remove_all(final=True)  # the `with` blocks' own clean-up does not run under os._exit
    finally:
        os._exit(128 + signum)


def _install_signal_exit() -> None:
    """Run :func:`_on_signal` for SIGINT/SIGTERM from a watcher thread, woken through the signal wake-up fd.

    A Python-level handler runs only when the main thread executes bytecode; a signal the kernel delivers to
    another thread while the main thread sleeps in a lock (waiting for the checks) would wait for that.
    The wake-up fd is written by the C-level handler in whichever thread caught the signal."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _on_signal)

    def watch() -> None:
        while True:
            data = os.read(read_fd, 1)
            if not data:
                return
            if data[0] in (signal.SIGINT, signal.SIGTERM):
                _on_signal(data[0], None)

    threading.Thread(target=watch, name="evalgap-signals", daemon=True).start()


def main() -> None:
    """Console-script entry point (also ``python -m evalgap``)."""
    _install_signal_exit()
    try:
        _run()
    except KeyboardInterrupt:  # pragma: no cover - interactive
        click.echo("interrupted", err=True)
        sys.exit(130)
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS or os.environ.get("EVALGAP_DEBUG"):
            _internal_error(exc)
        _silence_stdout()
        if exc.errno == errno.EPIPE:  # the reader went away (`evalgap ... | head`): nothing to say
            sys.exit(1)
        click.echo(f"evalgap: error: cannot write the output: {exc.strerror or exc} (errno {exc.errno}); "
                   "free space or choose another place with -o", err=True)
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - never show a user a traceback
        _internal_error(exc)


def _internal_error(exc: BaseException) -> None:
    if os.environ.get("EVALGAP_DEBUG"):
        raise exc
    click.echo(f"evalgap: internal error: {type(exc).__name__}: {exc}\n"
               "This is a bug in evalgap; rerun with EVALGAP_DEBUG=1 to see the traceback and report it.",
               err=True)
    sys.exit(2)
