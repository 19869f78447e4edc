"""Conditions of library docstrings (issue 24, library round): type tests (``X is a string``, ``X is a
``dict`` or ``list````), ``X is None``, membership (``X is in Y``, ``X is included in Y``), ``X and Y are
equal``, ``X is blank``, and sign/parity tests of an untyped parameter (guarded by an ``isinstance`` test so
that the clause does not raise on other kinds of value).

:meth:`evalgap.translators.prose_terms.Context.condition` tries :func:`library_condition` first; like every
phrase reader of the pattern engine it returns None for a phrase it does not understand.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from evalgap.translators.prose_terms import Context

__all__ = ["library_condition", "numeric_guard", "object_condition", "compound_condition", "joined_condition",
           "written_expression", "written_operand",
           "length_condition"]

_COLLECTIONS = ("list", "tuple", "set", "dict")

#: Type nouns and the ``isinstance`` test they mean (``integer`` excludes ``bool``, a subclass of ``int``).
_TYPES = {"string": "isinstance({x}, str)", "str": "isinstance({x}, str)", "list": "isinstance({x}, list)",
          "dict": "isinstance({x}, dict)", "dictionary": "isinstance({x}, dict)", "tuple": "isinstance({x}, tuple)",
          "float": "isinstance({x}, float)", "boolean": "isinstance({x}, bool)", "bool": "isinstance({x}, bool)",
          "integer": "(isinstance({x}, int) and not isinstance({x}, bool))",
          "int": "(isinstance({x}, int) and not isinstance({x}, bool))"}
_WORD = re.compile(r"[A-Za-z_]\w*")
_MEMBER = r"(?:in|included in|found in|contained in|present in|a member of|an element of)"


def numeric_guard(x: str) -> str:
    """The test that ``x`` is a real number (``bool`` excluded): the guard of a sign or parity test of an
    untyped parameter."""
    return f"isinstance({x}, (int, float)) and not isinstance({x}, bool)"


def _named(ctx: Context, phrase: str) -> str | None:
    """The parameter ``phrase`` names by its own name (a backticked ``value``, ``the value x``), or None: these
    conditions never bind a parameter by its kind alone."""
    if re.search(r"\b(?:return(?:s|ed)?|result|output)\b", phrase, re.I):
        return None  # "the returned value" is the result, not a parameter named value
    x = ctx.param(phrase)
    return x if x and x in [n for n, _ in ctx.sig.params] and x in _WORD.findall(phrase) else None


def _type_test(words: str, x: str) -> str | None:
    alts = [re.sub(r"^(?:an?|the)\s+", "", w.strip()).strip("`") for w in re.split(r"\s+or\s+|\s*,\s*", words)]
    alts = [re.sub(r"\s+(?:object|value|instance|type)$", "", a) for a in alts if a]
    if not alts or any(a not in _TYPES for a in alts):
        return None
    tests = [_TYPES[a].format(x=x) for a in alts]
    return tests[0] if len(tests) == 1 else "(" + " or ".join(tests) + ")"


def library_condition(ctx: Context, phrase: str) -> str | None:
    """A condition of the forms above over ``ctx``'s parameters, or None."""
    p = re.sub(r"\s+or not$", "", phrase.strip().rstrip(".,;").strip(), flags=re.I)
    p = re.sub(r"^(?:the )?(?:given |passed )?", "", p, flags=re.I)
    m = re.fullmatch(r"(.+?) (?:is|are) (not )?(?:an? |of type )?((?:``\w+``|`\w+`|\w+)(?: (?:object|value|instance))?"
                     r"(?:(?:,| or) (?:an? )?(?:``\w+``|`\w+`|\w+)(?: (?:object|value|instance))?)*)", p, re.I)
    if m:
        x = _named(ctx, m.group(1))
        words = m.group(3).lower()
        if x:
            if re.fullmatch(r"``none``|`none`|none", words):
                return f"{x} is {'not ' if m.group(2) else ''}None"
            if words == "callable":
                return f"{'not ' if m.group(2) else ''}callable({x})"
            if words == "blank" and not m.group(2):
                return f"isinstance({x}, str) and {x}.strip() == \"\""
            test = _type_test(words, x)
            if test:
                return f"not {test}" if m.group(2) else test
    m = re.fullmatch(rf"(.+?) (?:is|are) (not )?{_MEMBER} (.+)", p, re.I)
    if m:
        xs = _named(ctx, m.group(3))
        y = _named(ctx, m.group(1)) or ctx.value(m.group(1))
        if xs and y and y != xs:
            return f"{y} {'not in' if m.group(2) else 'in'} {xs}"
    m = re.fullmatch(r"(.+?) and (.+?) are (not )?equal", p, re.I)
    if m:
        a, b = _named(ctx, m.group(1)), _named(ctx, m.group(2))
        if a and b and a != b:
            return f"{a} {'!=' if m.group(3) else '=='} {b}"
    m = re.fullmatch(r"(.+?) (?:is|are) (?:an? )?(positive|negative|even|odd|zero|``0``|`0`)(?: (?:number|integer|value))?",
                     p, re.I)
    if m:
        x = _named(ctx, m.group(1))
        if x and ctx.sig.kind_of(x) == "any":
            test = {"positive": f"{x} > 0", "negative": f"{x} < 0", "even": f"{x} % 2 == 0", "odd": f"{x} % 2 == 1",
                    "zero": f"{x} == 0"}.get(m.group(2).lower().strip("`"), f"{x} == 0")
            return f"{numeric_guard(x)} and {test}"
    return None


def guard_defaults(kind: str, text: str, ctx: Context) -> str | None:
    """``text`` (an ``ensures`` expression or a ``raises`` clause ``E when W``) narrowed to calls that leave
    the parameters it does not read at their defaults: a docstring sentence describes the default behaviour
    (``includes(collection, target, from_index=0)``: "Returns whether `target` is in `collection`" →
    ``(from_index == 0) ==> result == (target in collection)``). None when such a parameter's default is not
    a literal (a sentinel object): "left at its default" cannot be written, so no clause is proposed."""
    if kind not in ("ensures", "raises"):
        return text
    used = set(_WORD.findall(text))
    free = [(n, d) for n, d in ctx.sig.defaults if n not in used]
    if not free:
        return text
    if any(d is None for _, d in free):
        return None
    guard = " and ".join(f"{n} is {d}" if d in ("None", "True", "False") else f"{n} == {d}" for n, d in free)
    if kind == "raises":
        exc, _, cond = text.partition(" when ")
        return f"{exc} when {guard} and ({cond})"
    return f"({guard}) ==> ({text})"


def object_condition(ctx: Context, phrase: str) -> str | None:
    """``the shelf is empty`` / ``it is not empty`` / ``an empty buffer`` / ``the buffer holds no readings`` in
    a method's sentence, the phrase naming the method's own object (its class's name or a word of it,
    ``it``, ``the object``, ``the instance``): ``len(self.A) == 0`` (``> 0`` negated) for the class's one
    collection attribute ``A`` (None when it has none or several)."""
    if ctx.sig.kind != "method" or not ctx.sig.owner:
        return None
    low = phrase.strip().lower()
    noun, negated = None, False
    m = re.fullmatch(r"(?:the |this |it |its )?(\w+)?\s*(?:is|are) (not )?empty", low)
    if m:  # "the shelf is (not) empty"
        noun, negated = m.group(1) or "it", bool(m.group(2))
    m = m or re.fullmatch(r"(?:an? |the |this )(non-)?empty (\w+)", low)
    if m and noun is None:  # "an empty buffer"
        noun, negated = m.group(2), bool(m.group(1))
    m = m or re.fullmatch(r"(?:the |this |it |its )?(\w+)?\s*(?:holds|contains|has|stores) no \w+", low)
    if m and noun is None:  # "the buffer holds no readings"
        noun = m.group(1) or "it"
    if noun is None:
        return None
    owner_words = {w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", ctx.sig.owner)}
    if noun.lower() not in {ctx.sig.owner.lower(), "it", "object", "instance"} | owner_words:
        return None
    attrs = [n for n, t in ctx.sig.attrs if ctx.sig.kind_of("self." + n) in _COLLECTIONS]
    if len(attrs) != 1:
        return None
    return f"len(self.{attrs[0]}) {'>' if negated else '=='} 0"


_VERB = re.compile(r"\s(?:is|are|consists?|contains?|has|have)\s")


def compound_condition(ctx: Context, phrase: str) -> str | None:
    """The conditions :meth:`Context.condition` tries last (requirements-document round of issue 24):

    * ``X is empty or consists only of whitespace``: parts joined by ``or`` / ``and``, a part without its own
      subject taking the first part's (``a score below 0 or above 100``);
    * ``X consists only of whitespace`` / ``X is blank`` (a ``str`` parameter): ``X.strip() == ""``;
    * ``X is outside A to B`` / ``outside the range A to B``: ``not (A <= X <= B)``; ``X is between A and B``;
    * ``any element of X is P`` / ``any of X is P``: ``exists x in X: P``;
    * ``X is below 0`` (a copula and an element predicate of :meth:`Context.elem_pred`).

    Returns None for anything else."""
    low = phrase.strip().rstrip(".,;").lower()
    joined = joined_condition(ctx, low)
    if joined:
        return joined
    return _simple(ctx, low)


def joined_condition(ctx: Context, low: str) -> str | None:
    """``A or B`` / ``A and B`` where every part is a condition (a part without its own subject takes the
    first part's); None otherwise (``or equal to`` and ``between A and B`` are not joints)."""
    for joiner, op in ((" or ", "or"), (" and ", "and")):
        if joiner not in low or re.search(r"\bbetween\b|\bor equal\b|\bequal or\b|\beither\b|\bboth\b", low):
            continue
        parts = [x.strip() for x in low.split(joiner)]
        m = _VERB.search(" " + parts[0] + " ")
        subject = parts[0][:m.start()].strip() if m else re.sub(r"^(?:an?|the) ", "", parts[0]).split()[0]
        first = ctx.condition(parts[0]) or (None if m else ctx.condition(
            f"{subject} is {re.sub(r'^(?:an?|the) ', '', parts[0]).split(' ', 1)[-1]}"))
        out = [first] if first else []
        for part in parts[1:]:
            got = ctx.condition(part) if _VERB.search(" " + part + " ") else None
            got = got or ctx.condition(f"{subject} {part}") or ctx.condition(f"{subject} is {part}")
            out.append(got) if got else None
        if first and len(out) == len(parts):
            return f" {op} ".join(f"({x})" for x in out)
        return None
    return None


_EXPR = re.compile(r"[A-Za-z_]\w*|-?\d+(?:\.\d+)?|<=|>=|==|!=|<|>|[+\-*%()]")


def written_expression(ctx: Context, text: str) -> str | None:
    """A condition the prose writes as an expression over the parameters (``low <= value <= high``,
    ``n % 2 == 0``): names that are parameters, numbers, arithmetic and comparisons only, at least one
    comparison; returned as written (the draft's lint then checks it)."""
    tokens = _EXPR.findall(text)
    if "".join(tokens) != re.sub(r"\s+", "", text) or not any(t in ("<=", ">=", "==", "!=", "<", ">") for t in tokens):
        return None
    names = {n for n, _ in ctx.sig.params}
    if any(re.fullmatch(r"[A-Za-z_]\w*", t) and t not in names for t in tokens):
        return None
    return " ".join(text.split())


_OPERAND = re.compile(r"[A-Za-z_]\w*|\d+|//|[+\-*%(),]")
_OPERAND_CALLS = frozenset({"len", "max", "min", "abs"})


def written_operand(ctx: Context, text: str) -> str | None:
    """An operand the prose writes as code (``max(len(name), width)``): parameters, numbers, ``len``/``max``/
    ``min``/``abs`` calls and arithmetic only, at least one parameter and one operator or call; as written."""
    raw = text.strip().strip("`").strip()
    tokens = _OPERAND.findall(raw)
    if "".join(tokens) != re.sub(r"\s+", "", raw) or not any(t in _OPERAND_CALLS or t in "+-*%" or t == "//"
                                                            for t in tokens):
        return None
    names = {n for n, _ in ctx.sig.params}
    words = [t for t in tokens if re.fullmatch(r"[A-Za-z_]\w*", t)]
    if not words or any(t not in names and t not in _OPERAND_CALLS for t in words) or not set(words) & names:
        return None
    if raw.count("(") != raw.count(")"):
        return None
    return " ".join(raw.split())


def length_condition(ctx: Context, phrase: str) -> str | None:
    """``X is (already) N characters or longer`` / ``at least N characters long`` / ``shorter than N items``
    (``X`` a sized parameter): ``len(X) >= N`` and so on; None otherwise."""
    low = phrase.strip().rstrip(".,;").lower()
    m = re.fullmatch(r"(.+?) (?:is|are) (?:already )?(?:(\w+) (?:characters?|elements?|items?) (or longer|or more|or shorter|or "
                     r"fewer|or less)|(at least|at most|shorter than|longer than|fewer than|more than) (\w+) (?:characters?|"
                     r"elements?|items?)(?: long)?)", low)
    if m:  # "name is already width characters or longer"
        x = ctx.param(m.group(1), ("str", "list", "tuple", "dict", "set"))
        n = ctx.operand(m.group(2) or m.group(5))
        op = {"or longer": ">=", "or more": ">=", "or shorter": "<=", "or fewer": "<=", "or less": "<=",
              "at least": ">=", "at most": "<=", "shorter than": "<", "longer than": ">", "fewer than": "<",
              "more than": ">"}[m.group(3) or m.group(4)]
        return f"len({x}) {op} {n}" if x and n else None
    return None


def _collection_by_singular(ctx: Context, noun: str) -> str | None:
    """The one list/tuple/set parameter whose name is ``noun``'s plural (``port`` -> ``ports``), or None."""
    found = [n for n, _ in ctx.sig.params if ctx.sig.kind_of(n) in ("list", "tuple", "set")
             and n in (noun + "s", noun + "es", noun[:-1] + "ies" if noun.endswith("y") else "")]
    return found[0] if len(found) == 1 else None


def _simple(ctx: Context, low: str) -> str | None:
    m = re.fullmatch(r"(.+?) (?:consists?|is made) (?:only|entirely|solely) of (?:white ?space|spaces)(?: characters)?|"
                     r"(.+?) (?:is|are) (?:blank|whitespace-only|all whitespace)", low)
    if m:
        x = ctx.param(m.group(1) or m.group(2), ("str",))
        return f'{x}.strip() == ""' if x else None
    m = re.fullmatch(r"(?:any|some) (?:element|item|value|entry|member|one)s? (?:of|in) (.+?) (?:is|are) (.+)", low) or \
        re.fullmatch(r"(?:any|some) (\w+) (?:is|are) (.+)", low)
    if m:
        xs = ctx.param(m.group(1), ("list", "tuple", "set")) if " " in m.group(1) or m.re.pattern.count("(?:of|in)") \
            else _collection_by_singular(ctx, m.group(1))
        inner = _simple(_element_context(ctx), "x " + ("is " if not m.group(2).startswith("is ") else "") + m.group(2)) \
            if xs else None
        return f"exists x in {xs}: {inner}" if xs and inner else None
    m = re.fullmatch(r"(.+?) (?:is |are |lies )?(not )?(outside|between|within|in)(?: the range(?: from)?| the interval)? "
                     r"(-?\w+) (?:to|and|through) (-?\w+)(?: inclusive)?", low)
    if m:
        x, lo, hi = ctx.operand(m.group(1)), ctx.operand(m.group(4)), ctx.operand(m.group(5))
        if not (x and lo and hi):
            return None
        inside = f"{lo} <= {x} <= {hi}"
        return inside if (m.group(3) == "outside") == bool(m.group(2)) else f"not ({inside})"
    m = re.fullmatch(r"(.+?) (?:is|are) (.+)", low)
    if m:
        x = ctx.operand(m.group(1))
        if x and re.fullmatch(r"-?\d+(?:\.\d+)?", m.group(2)):
            return f"{x} == {m.group(2)}"  # "bonus is 0"
        return ctx.elem_pred(m.group(2), x) if x else None
    return None


def _element_context(ctx: Context) -> Context:
    """A :class:`Context` over the same signature in which the bound variable ``x`` of a quantifier is an
    operand."""
    from evalgap.translators.prose_terms import Context

    class _Elem(Context):
        def operand(self, phrase: str) -> str | None:
            return "x" if phrase.strip() == "x" else super().operand(phrase)

    return _Elem(ctx.sig)
