"""``evalgap lsp``: serve the language server for ``.req`` files on stdio; a thin layer over
:mod:`evalgap.verifier.integrations.lsp_server` (docs/lsp.md)."""

from __future__ import annotations

import click

from evalgap.verifier.cli.common import fail

__all__ = ["lsp"]


@click.command()
@click.option("--no-lint-on-save", is_flag=True, help="On save, do not run `evalgap lint` (which reads the "
              "target's signatures in a sandboxed subprocess); diagnostics then come from the spec alone.")
def lsp(no_lint_on_save: bool) -> None:
    """Serve the evalgap language server (diagnostics, formatting, hover, definition, completion) on stdio."""
    try:
        from evalgap.verifier.integrations.lsp_server import build_server
    except ImportError as exc:
        fail(f"evalgap lsp needs pygls ({exc}); install it with: pip install 'evalgap[integrations]'")
    build_server(lint_on_save=not no_lint_on_save).start_io()
