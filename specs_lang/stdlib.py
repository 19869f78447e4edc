"""The allow-listed part of the standard library that spec clauses may use (docs/language.md, "Standard
library in clauses").

Each module maps the names a clause may read to the kind of value a call gives (``str``, ``int``, ``bool``,
``list[str]``, ``any``), ``const:KIND`` for a constant, or ``class`` for a class whose methods are allowed; anything else of an allowed module is
EG229, and the clock reads of ``datetime`` (``now``, ``today``, ``utcnow``, ``fromtimestamp``, ...) are EG219
(impure). Every name listed is a pure function, a constant or a constructor of immutable values: a clause's
value depends only on its arguments. The harness imports these modules; the Z3 translation supports only ``re.fullmatch``/``match``/``search``
with a literal pattern of a documented subset (translators/to_z3/regex.py); any other use is EG308 there,
i.e. ``unknown`` for the analysis, never a wrong finding.
"""

from __future__ import annotations

__all__ = ["STDLIB", "STDLIB_MODULES", "IMPURE_STDLIB", "member_kind"]

_RE_FLAGS = {f: "const:int" for f in ("IGNORECASE", "I", "MULTILINE", "M", "DOTALL", "S", "ASCII", "A", "VERBOSE",
                                "X", "UNICODE", "U")}

#: module -> allowed attribute -> kind of its value.
STDLIB: dict[str, dict[str, str]] = {
    "re": {"match": "any", "fullmatch": "any", "search": "any", "findall": "list", "sub": "str", "subn": "tuple",
           "split": "list[str]", "escape": "str", "compile": "any", **_RE_FLAGS},
    "bisect": {"bisect_left": "int", "bisect_right": "int", "bisect": "int"},
    "string": {"capwords": "str", **{n: "const:str" for n in ("ascii_letters", "ascii_lowercase", "ascii_uppercase",
                                                              "digits", "hexdigits", "octdigits", "punctuation",
                                                              "printable", "whitespace")}},
    "itertools": {n: "any" for n in ("accumulate", "chain", "combinations", "combinations_with_replacement",
                                     "compress", "dropwhile", "filterfalse", "groupby", "islice", "pairwise",
                                     "permutations", "product", "starmap", "takewhile", "zip_longest")},
    "functools": {"reduce": "any"},
    "collections": {"Counter": "any"},
    "operator": {n: "any" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos", "abs",
                                    "eq", "ne", "lt", "le", "gt", "ge", "not_", "truth", "and_", "or_", "xor",
                                    "itemgetter", "contains", "countOf", "indexOf", "getitem", "concat",
                                    "is_", "is_not", "index")},
    "unicodedata": {"category": "str", "normalize": "str", "name": "str", "lookup": "str", "numeric": "any",
                    "decimal": "any", "digit": "any", "combining": "int", "east_asian_width": "str",
                    "bidirectional": "str", "mirrored": "int", "is_normalized": "bool", "unidata_version": "const:str"},
    "datetime": {"date": "class", "datetime": "class", "timedelta": "class", "timezone": "class", "time": "class",
                 "MINYEAR": "const:int", "MAXYEAR": "const:int"},
}

#: The allowed modules (names a clause may use without the target defining them).
STDLIB_MODULES: frozenset[str] = frozenset(STDLIB)

#: Class attributes that read the clock or the environment (EG219 in a clause).
IMPURE_STDLIB: frozenset[str] = frozenset({"now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp",
                                           "timestamp", "astimezone"})


def member_kind(module: str, attr: str) -> str | None:
    """The kind of ``module.attr`` (see :data:`STDLIB`), or None when it is not allow-listed.

    >>> member_kind("re", "fullmatch"), member_kind("bisect", "insort")
    ('any', None)
    """
    return STDLIB.get(module, {}).get(attr)
