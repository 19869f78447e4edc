"""The spec grammar's LALR(1) tables, shipped prebuilt beside the grammar (``grammar/spec.tables``).

Building the parser from ``grammar/spec.lark`` with ``strict=True`` (every shift/reduce conflict and terminal
collision an error) costs about 0.8 CPU s, the largest single cost of a first ``evalgap check`` on a new
machine or with an empty cache folder. The tables lark computes are data: this module writes them once, at
development time, and :func:`load` turns them back into a parser in about 0.05 s.

The file holds a pickled dict ``{"key", "grammar_sha256", "lark", "data", "memo"}`` (lark's own serialisation, the one
``Lark.save`` writes, without the options that are objects). ``key`` is :func:`tables_key`: the SHA-256 of the
grammar's text, lark's version and the build options, so tables from another grammar or another lark
version are never used (the parser is then built from the grammar, through lark's on-disk cache). The file
is as trusted as the package's code beside it; nothing outside the installed package is unpickled here.

Regenerate after editing the grammar (a test fails until you do)::

    python -m evalgap.specs_lang.tables
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import lark
from lark import Lark

__all__ = ["OPTIONS", "TABLES_NAME", "tables_key", "grammar_text", "build_strict", "load", "saved", "write"]

#: The file's name inside ``evalgap/specs_lang/grammar/``.
TABLES_NAME = "spec.tables"

#: lark options of the spec parser that are plain values (the post-lexer and the transformer are objects,
#: given again on load).
OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "contextual", "keep_all_tokens": True,
                           "maybe_placeholders": False, "propagate_positions": False, "strict": True}

# options lark records that are objects or paths of this machine: left out of the file, given on load
_UNSAVED = ("postlex", "transformer", "import_paths", "source_path", "edit_terminals", "lexer_callbacks",
            "_plugins", "tree_class", "cache")


def grammar_text() -> str:
    """The grammar's text (``grammar/spec.lark`` of the installed package).

    Returns:
        The text, decoded as UTF-8.
    """
    return resources.files("evalgap.specs_lang").joinpath("grammar", "spec.lark").read_text(encoding="utf-8")


def tables_key(text: str | None = None) -> str:
    """The key that tables must carry to be used with this grammar text and this lark.

    Args:
        text: the grammar's text (default: :func:`grammar_text`).

    Returns:
        A hex SHA-256 digest (64 characters).
    """
    text = grammar_text() if text is None else text
    options = ",".join(f"{k}={OPTIONS[k]!r}" for k in sorted(OPTIONS))
    return hashlib.sha256(f"{text}\0{lark.__version__}\0{options}".encode()).hexdigest()


def build_strict(postlex: Any, transformer: Any, cache: str | bool = False) -> Lark:
    """Build the parser from the grammar text with :data:`OPTIONS` (``strict=True``).

    Args:
        postlex: the indentation post-lexer.
        transformer: the embedded transformer (the AST builder).
        cache: lark's ``cache`` option (a file path, or False).

    Returns:
        The parser.

    Raises:
        lark.exceptions.GrammarError: the grammar has a conflict or a terminal collision.
    """
    return Lark.open_from_package("evalgap.specs_lang", "spec.lark", ("grammar",), postlex=postlex,
                                  transformer=transformer, cache=cache, **OPTIONS)


def _file() -> Path:
    return Path(str(resources.files("evalgap.specs_lang").joinpath("grammar", TABLES_NAME)))


def saved() -> dict[str, Any] | None:
    """The shipped file's header: its ``key``, ``grammar_sha256`` (of the grammar text it was built from) and
    ``lark`` (the version that built it).

    Returns:
        The three values, or None when the file is missing or unreadable.
    """
    try:
        with _file().open("rb") as f:
            found = pickle.load(f)
        return {k: found[k] for k in ("key", "grammar_sha256", "lark")}
    except Exception:  # noqa: BLE001 - a missing or foreign file
        return None


def load(postlex: Any, transformer: Any) -> Lark | None:
    """The parser from the shipped tables, when they match this grammar and this lark.

    Args:
        postlex: the indentation post-lexer.
        transformer: the embedded transformer.

    Returns:
        The parser, or None when the file is missing, unreadable, or its key is not :func:`tables_key`
        (the caller then builds the parser from the grammar).
    """
    try:
        with _file().open("rb") as f:
            saved = pickle.load(f)
        if not isinstance(saved, dict) or saved.get("key") != tables_key():
            return None
        parser = Lark.__new__(Lark)
        parser._load({"data": saved["data"], "memo": saved["memo"]}, postlex=postlex, transformer=transformer,
                     propagate_positions=OPTIONS["propagate_positions"])
        return parser
    except Exception:  # noqa: BLE001 - any unreadable or foreign file: build from the grammar instead
        return None


def write(path: Path | None = None) -> Path:
    """Build the parser strictly and write its tables.

    Args:
        path: where to write (default: the package's ``grammar/spec.tables``).

    Returns:
        The path written.

    Raises:
        lark.exceptions.GrammarError: the grammar has a conflict or a terminal collision.
        OSError: the file cannot be written.
    """
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    from evalgap.specs_lang.build import Builder
    from evalgap.specs_lang.parser import layout

    parser = build_strict(layout(), Builder())
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k not in _UNSAVED}
    target = path or _file()
    tmp = target.with_name(target.name + ".tmp")
    with tmp.open("wb") as f:
        pickle.dump({"key": tables_key(), "grammar_sha256": hashlib.sha256(grammar_text().encode()).hexdigest(),
                     "lark": lark.__version__, "data": data, "memo": memo}, f, protocol=4)
    tmp.replace(target)
    return target


if __name__ == "__main__":
    print(write())
    sys.exit(0)
