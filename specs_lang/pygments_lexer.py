"""A Pygments lexer for ``.req`` spec files, registered through the ``pygments.lexers`` entry point
(``pygmentize -l evalgap-req FILE.req``). Pygments is imported only here."""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words  # type: ignore[import-untyped]
from pygments.token import (  # type: ignore[import-untyped]
    Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace,
)

__all__ = ["ReqLexer"]

_DECL = ("spec", "target", "import", "assume", "function", "class", "method", "requirement", "record", "config",
         "schema", "stub", "def", "let")
_CLAUSE = ("requires", "ensures", "invariant", "example", "informal", "scenario", "expect", "raises", "may", "raise",
           "when", "forall", "exists", "and", "or", "not", "in", "is", "if", "else", "for", "len", "one", "of", "chars")
_CONST = ("True", "False", "None", "result", "self", "old", "any")
_TYPES = ("int", "float", "bool", "str", "bytes", "list", "tuple", "dict", "set", "Optional", "ascii", "printable",
          "digits", "letters", "alnum", "lowercase", "uppercase", "hexdigits")


class ReqLexer(RegexLexer):  # type: ignore[misc]
    """Lexer for evalgap requirement specs (``.req``)."""

    name = "evalgap requirement spec"
    aliases = ["evalgap-req", "req"]
    filenames = ["*.req"]
    mimetypes = ["text/x-evalgap-req"]

    tokens = {
        "root": [
            (r"[ \t\f]+", Whitespace),
            (r"\n", Text),
            (r"#[^\n]*", Comment.Single),
            (r"(requirement)(\s+)([A-Za-z_][A-Za-z0-9_]*(?:[-.][A-Za-z0-9_]+)*)",
             bygroups(Keyword.Declaration, Whitespace, Name.Label)),
            (r"(informal)(\s+)([a-z-]+)", bygroups(Keyword, Whitespace, Name.Tag)),
            (words(_DECL, suffix=r"\b"), Keyword.Declaration),
            (words(_CLAUSE, suffix=r"\b"), Keyword),
            (words(_CONST, suffix=r"\b"), Keyword.Constant),
            (words(_TYPES, suffix=r"\b"), Keyword.Type),
            (r'b?"(?:[^"\\\n]|\\.)*"', String.Double),
            (r"b?'(?:[^'\\\n]|\\.)*'", String.Single),
            (r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", Number.Float),
            (r"[0-9][0-9_]*", Number.Integer),
            (r"==>|<==>|\.\.|==|!=|<=|>=|//|\*\*|->|[-+*/%<>=]", Operator),
            (r"[()\[\]{}:,.]", Punctuation),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
        ],
    }
