"""``evalgap serve``: the long-lived local server with warm workers (:mod:`evalgap.verifier.server`)."""

from __future__ import annotations

from pathlib import Path

import click

from evalgap.verifier.cli.common import handles_errors

__all__ = ["serve"]


@click.command()
@click.option("--socket", "socket_path", type=click.Path(path_type=Path), metavar="PATH",
              help="The Unix socket to listen on (default: $EVALGAP_SERVER_SOCKET, else serve.sock in "
                   "$XDG_RUNTIME_DIR/evalgap, else in ~/.cache/evalgap/run; its folder is made 0700).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Warm workers of each kind (default: the number "
              "of cores).")
@handles_errors()
def serve(socket_path: Path | None, jobs: int | None) -> None:
    """Serve checks on a private Unix socket with warm workers, for `evalgap check --server` and
    `evalgap.check(..., server=True)`; stops on SIGINT or SIGTERM."""
    from evalgap.verifier.server import serve as run

    def ready(where: Path) -> None:
        click.echo(f"evalgap serve: listening on {where}", err=True)
    raise SystemExit(run(str(socket_path) if socket_path else None, jobs, ready))
