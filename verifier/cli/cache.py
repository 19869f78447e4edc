"""``evalgap cache info`` and ``evalgap cache clear``: the result cache (:mod:`evalgap.verifier.cache`)."""

from __future__ import annotations

import click

from evalgap.verifier.cache import ResultCache, default_cache_dir
from evalgap.verifier.report.gap import EXIT_OK

__all__ = ["cache"]


@click.group()
def cache() -> None:
    """The result cache: where it is, how big, and how to empty it (``$EVALGAP_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/evalgap``; entries are authenticated with a per-user key kept outside it)."""


@cache.command("info")
def info() -> None:
    """Print the cache folder, this user's entries and their size in bytes, the key file and the sandbox
    mode (under ``python-guard`` no ``verified`` is stored or served)."""
    found = ResultCache(default_cache_dir()).info()
    click.echo(f"folder: {found.folder}")
    click.echo(f"entries: {found.entries}")
    click.echo(f"size: {found.size_bytes} bytes")
    click.echo(f"key: {found.key_file}" + (f" (not used: {found.key_problem}; the cache is off)"
                                           if found.key_problem else ""))
    click.echo(f"sandbox: {found.mode}" + (" (verified results are not cached)" if found.mode == "python-guard"
                                           else ""))
    raise SystemExit(EXIT_OK)


@cache.command("clear")
def clear() -> None:
    """Delete every entry under the cache folder (all formats and keys); the key file stays."""
    store = ResultCache(default_cache_dir())
    removed = store.clear()
    click.echo(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {store.root}")
    raise SystemExit(EXIT_OK)
