"""Phrase-level building blocks of the pattern engine: the target's signature, noun phrases bound to its
parameters, conditions, values and responses, each turned into spec-language expression text.

Everything here is rule-based and deterministic; a phrase that is not understood yields ``None`` (the
caller then leaves the sentence informal rather than guess).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evalgap.translators.prose_conditions import (compound_condition, joined_condition, library_condition,
                                                  length_condition, object_condition, written_expression,
                                                  written_operand)

__all__ = ["Signature", "Clause", "Context", "base_kind"]

_NUM_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
              "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
_LIST_NOUNS = r"(?:list|array|sequence|vector|numbers|integers|elements|values|items|strings|words|lst)"
_STR_NOUNS = r"(?:string|word|text|message|sentence|str)"
_NUM_NOUNS = r"(?:number|integer|int|value|float|n)"


def base_kind(type_text: str | None) -> str:
    """``list``, ``str``, ``int``, ``float``, ``bool``, ``dict``, ``tuple``, ``set``, ``None`` or ``any``."""
    if not type_text:
        return "any"
    t = type_text.strip()
    m = re.match(r"(?:Optional\[)?(\w+)", t)
    head = (m.group(1) if m else t).lower()
    return {"list": "list", "sequence": "list", "str": "str", "int": "int", "float": "float", "bool": "bool",
            "dict": "dict", "tuple": "tuple", "set": "set", "none": "None"}.get(head, "any")


@dataclass(frozen=True)
class Signature:
    """The target function's signature, in spec-language type syntax.

    Attributes:
        name: the function name (the method name for a method, the class name for a class).
        params: ``(name, type text)`` in order (``Any`` where unknown; ``self`` excluded; a class's are its
            ``__init__`` parameters).
        returns: the return type text, or None when unknown.
        owner: the class a method belongs to (None for a module-level function or a class).
        kind: ``function``, ``method`` or ``class``.
        attrs: for a method or a class, the instance attributes ``(name, type text)`` (read as ``self.NAME``).
        defaults: ``(name, default)`` of the parameters that have a default: the default as spec-language
            literal text, or None when it is not a literal (a sentinel object, a call).
        generator: True for a generator function (its body yields): the result is an iterator.
    """

    name: str
    params: tuple[tuple[str, str], ...]
    returns: str | None
    owner: str | None = None
    kind: str = "function"
    attrs: tuple[tuple[str, str], ...] = ()
    defaults: tuple[tuple[str, str | None], ...] = ()
    generator: bool = False

    @property
    def qualname(self) -> str:
        """``Class.method`` for a method, else the name."""
        return f"{self.owner}.{self.name}" if self.owner else self.name

    def kind_of(self, param: str) -> str:
        """:func:`base_kind` of a parameter's type (``self.X``: of the attribute's type)."""
        if param.startswith("self."):
            return next((base_kind(t) for n, t in self.attrs if n == param[5:]), "any")
        return next((base_kind(t) for n, t in self.params if n == param), "any")

    @property
    def result_kind(self) -> str:
        """:func:`base_kind` of the return type."""
        return base_kind(self.returns)

    @property
    def optional_result(self) -> bool:
        """True when the return type admits None."""
        return bool(self.returns) and ("Optional" in str(self.returns) or "None" in str(self.returns))


@dataclass(frozen=True)
class Clause:
    """A proposed formal clause.

    Attributes:
        kind: ``requires``, ``ensures`` or ``raises``.
        text: the spec-language text after the keyword (for ``raises``: ``EXC when EXPR``).
    """

    kind: str
    text: str


#: Words an operand's noun phrase may hold beside the parameter's name ("the given number n").
_OPERAND_FILLER = frozenset({"the", "a", "an", "given", "input", "number", "integer", "value", "parameter", "argument",
                             "its", "current", "int", "float", "positive", "non", "negative", "whole", "real", "count",
                             "amount", "specified", "provided", "passed", "in", "of"})


class Context:
    """Binds noun phrases of a sentence to the parameters of :class:`Signature`."""

    def __init__(self, sig: Signature) -> None:
        """Args: sig: the target signature the names are bound from."""
        self.sig = sig

    def _sole(self, kinds: tuple[str, ...]) -> str | None:
        found = [n for n, t in self.sig.params if base_kind(t) in kinds]
        if len(found) == 1:
            return found[0]
        if not found and len(self.sig.params) == 1 and self.sig.kind_of(self.sig.params[0][0]) == "any":
            return self.sig.params[0][0]
        return None

    def param(self, phrase: str, kinds: tuple[str, ...] = ()) -> str | None:
        """The parameter a noun phrase names (``the given list``, ``l``, ``the string s``), or None."""
        p = phrase.strip().strip("`'\".,")
        words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", p)
        names = [n for n, _ in self.sig.params]
        for w in reversed(words):
            if w in names and (len(w) > 1 or w not in ("a", "I")):
                if not kinds or self.sig.kind_of(w) in kinds + ("any",):
                    return str(w)
        attrs = [n for n, _ in self.sig.attrs]
        for w in reversed(words):
            if w in attrs and len(w) > 1 and (not kinds or self.sig.kind_of("self." + w) in kinds + ("any",)):
                return "self." + str(w)
        low = p.lower()
        if re.search(rf"\b{_LIST_NOUNS}\b", low) and (not kinds or "list" in kinds):
            return self._sole(("list",))
        if re.search(rf"\b{_STR_NOUNS}\b", low) and (not kinds or "str" in kinds):
            return self._sole(("str",))
        if re.search(rf"\b{_NUM_NOUNS}\b", low) and (not kinds or set(kinds) & {"int", "float"}):
            return self._sole(("int", "float"))
        return None

    def operand(self, phrase: str) -> str | None:
        """A numeric operand: a literal, a number word, ``the length of X``, or a parameter."""
        raw = phrase.strip().strip(".,;`'\"")
        if raw in [n for n, _ in self.sig.params]:
            return raw
        written = written_operand(self, raw)
        if written:
            return written
        if re.fullmatch(r"(?:the )?(?:current )?(\w+)", raw.lower()) and raw.split()[-1] in [n for n, _ in self.sig.attrs]:
            return "self." + raw.split()[-1]
        p = re.sub(r"^(the|a|an)\s+", "", raw.lower())
        if re.fullmatch(r"-?\d+(\.\d+)?", p):
            return p
        if p in _NUM_WORDS:
            return _NUM_WORDS[p]
        m = re.fullmatch(r"(?:the\s+)?(?:length|size) of (.+)", p) or re.fullmatch(r"(.+?)(?:'s)? (?:length|size)", p)
        if m:
            x = self.param(m.group(1), ("list", "str", "dict", "tuple", "set"))
            return f"len({x})" if x else None
        words = re.findall(r"[A-Za-z_]\w*", raw)
        if len([w for w in words if w.lower() not in _OPERAND_FILLER]) > 1:
            return None  # a clause, not a noun phrase: "ValueError is raised if r" names no operand
        return self.param(phrase, ("int", "float"))

    @staticmethod
    def value(phrase: str) -> str | None:
        """A returned value: None, True/False, a number, an empty list/string/tuple/dict, a quoted string."""
        p = phrase.strip().rstrip(".,;").strip()
        low = p.lower()
        low = re.sub(r"^(the\s+(?:value|boolean|integer|number)\s+)", "", low)
        if low in ("none", "null", "nothing"):
            return "None"
        if low in ("true", "false"):
            return low.capitalize()
        if re.fullmatch(r"-?\d+(\.\d+)?", low):
            return low
        if low in ("minus one", "negative one"):
            return "-1"
        if low in _NUM_WORDS:
            return _NUM_WORDS[low]
        if re.fullmatch(r"(an? )?empty (list|array)|\[\]", low):
            return "[]"
        if re.fullmatch(r"(an? )?empty string|''|\"\"", low):
            return '""'
        if re.fullmatch(r"(an? )?empty tuple|\(\)", low):
            return "()"
        if re.fullmatch(r"(an? )?empty (dict|dictionary)|\{\}", low):
            return "{}"
        m = re.fullmatch(r"(?:the string )?(\"[^\"\\]*\"|'[^'\\]*')", p)
        if m:
            return '"' + m.group(1)[1:-1] + '"'
        return None

    def elem_pred(self, phrase: str, var: str) -> str | None:
        """A predicate on one element: ``positive``, ``below T``, ``contain S``, ``start with P``, ..."""
        p = phrase.strip().rstrip(".,;").lower()
        p = re.sub(r"^(are|is|be)\s+", "", p)
        kinds = {"integers": "int", "ints": "int", "strings": "str", "floats": "float", "booleans": "bool"}
        if p in kinds:
            return f"isinstance({var}, {kinds[p]})"
        simple = {"positive": f"{var} > 0", "negative": f"{var} < 0", "non-negative": f"{var} >= 0",
                  "nonnegative": f"{var} >= 0", "even": f"{var} % 2 == 0", "odd": f"{var} % 2 == 1",
                  "zero": f"{var} == 0", "non-zero": f"{var} != 0", "nonzero": f"{var} != 0"}
        if p in simple:
            return simple[p]
        m = re.fullmatch(r"(below|less than|smaller than|lower than|under|above|greater than|larger than|"
                         r"bigger than|more than|at least|at most|equal to) (?:the )?(?:threshold )?(.+)", p)
        if m:
            rhs = self.operand(m.group(2))
            op = {"below": "<", "less than": "<", "smaller than": "<", "lower than": "<", "under": "<",
                  "above": ">", "greater than": ">", "larger than": ">", "bigger than": ">", "more than": ">",
                  "at least": ">=", "at most": "<=", "equal to": "=="}[m.group(1)]
            return f"{var} {op} {rhs}" if rhs else None
        m = re.fullmatch(r"(contains?|starts? with|ends? with|begins? with) (?:an? |the )?(?:given )?(.+)", p)
        if m:
            arg = self.param(m.group(2), ("str",))
            if not arg:
                return None
            verb = m.group(1)
            if verb.startswith("contain"):
                return f"{arg} in {var}"
            if verb.startswith(("start", "begin")):
                return f"{var}.startswith({arg})"
            return f"{var}.endswith({arg})"
        return None

    def condition(self, phrase: str) -> str | None:
        """A condition over the parameters: emptiness, sign, parity, comparisons, palindromes, ``all ... in X
        are P``, ``X contains Y``; None when not understood."""
        p = phrase.strip().rstrip(".,;").strip()
        p = re.sub(r"^(that|the case that)\s+", "", p, flags=re.I)
        lib = written_expression(self, p.strip("`")) or length_condition(self, p) or library_condition(self, p) or \
            object_condition(self, p) or joined_condition(self, p.lower())
        if lib:
            return lib
        low = p.lower()
        m = re.fullmatch(r"(?:all|every|each) (?:of the )?(?:\w+ )?(?:in|of) (.+?) (?:are|is) (.+)", low)
        if m:
            xs = self.param(m.group(1), ("list", "str", "tuple", "set"))
            pred = self.elem_pred(m.group(2), "x")
            return f"forall x in {xs}: {pred}" if xs and pred else None
        m = re.fullmatch(r"(?:there (?:are|is) no (?:elements?|items?|numbers?|values?) in )(.+)", low)
        if m:
            xs = self.param(m.group(1), ("list", "str"))
            return f"len({xs}) == 0" if xs else None
        m = re.fullmatch(r"(.+?) (?:is|are) (not )?(?:an? )?empty(?: (?:list|string|array|dictionary))?", low)
        if m:
            xs = self.param(m.group(1), ("list", "str", "dict", "tuple", "set"))
            return (f"len({xs}) {'>' if m.group(2) else '=='} 0") if xs else None
        m = re.fullmatch(r"(.+?) (?:is|are) (not )?(?:an? )?palindrom(?:e|ic)(?: \w+)?", low)
        if m:
            xs = self.param(m.group(1), ("list", "str"))
            return (f"{xs} {'!=' if m.group(2) else '=='} {xs}[::-1]") if xs else None
        m = re.fullmatch(r"(.+?) (?:is|are) (not )?(?:an? )?prime(?: number)?", low)
        if m:
            x = self.operand(m.group(1))
            if not x:
                return None
            prime = f"{x} > 1 and (forall d in range(2, {x}): {x} % d != 0)"
            return f"not ({prime})" if m.group(2) else prime
        m = re.fullmatch(r"(.+?) (?:is|are) (not )?(?:an? )?(positive|negative|non-negative|zero|even|odd)"
                         r"(?: (?:number|integer|value))?", low)
        if m:
            x = self.operand(m.group(1))
            if not x:
                return compound_condition(self, p)  # "any port is negative"
            if m.group(2):
                neg = {"positive": f"{x} <= 0", "negative": f"{x} >= 0", "non-negative": f"{x} < 0",
                       "zero": f"{x} != 0", "even": f"{x} % 2 == 1", "odd": f"{x} % 2 == 0"}
                return neg[m.group(3)]
            return self.elem_pred(m.group(3), x)
        ops = [(r"is (?:strictly )?(?:greater|larger|bigger|more) than", ">"),
               (r"is (?:strictly )?(?:less|smaller|fewer|lower) than", "<"),
               (r"is (?:greater|larger) than or equal to|is at least|>=", ">="),
               (r"is (?:less|smaller) than or equal to|is at most|<=", "<="),
               (r"is equal to|equals|==", "=="), (r"is not equal to|!=", "!="), (r">", ">"), (r"<", "<")]
        for words, op in (ops[2], ops[3], ops[5], ops[0], ops[1], ops[4], ops[6], ops[7]):  # "or equal to" first
            m = re.fullmatch(rf"(.+?)\s+(?:{words})\s+(.+)", low)
            if m:
                a, b = self.operand(m.group(1)), self.operand(m.group(2))
                if a and b:
                    return f"{a} {op} {b}"
        m = re.fullmatch(r"(.+?) (?:contains|includes) (.+)", low)
        if m:
            xs = self.param(m.group(1), ("list", "str", "set", "dict"))
            y = self.param(m.group(2)) or self.value(m.group(2))
            return f"{y} in {xs}" if xs and y and y != xs else None
        return compound_condition(self, p)

    def response(self, phrase: str) -> list[Clause] | None:
        """What the function does: ``return V``, ``return a non-negative number``, ``raise E``."""
        p = phrase.strip().rstrip(".;").strip()
        p = re.sub(r"^(?:the (?:function|system|method|\w+) |it )?(?:shall|must|should|will|is to)?\s*", "", p,
                   flags=re.I)
        m = re.fullmatch(r"(?:raises?|throws?)\s+(?:an? )?(\w+(?:Error|Exception|Exit))\b.*", p)
        if m:
            return [Clause("raises", m.group(1))]
        m = re.fullmatch(r"(?:returns?|outputs?|gives?|be)\s+(.+)", p, re.I)
        if not m:
            return None
        what = m.group(1)
        v = self.value(what)
        m = re.fullmatch(r"an? (?:string|text) (?:consisting|made|composed) (?:only|entirely|solely) of [`'\"]?(\S)[`'\"]? "
                         r"characters?", what.strip(". "))
        if v is None and m and self.sig.result_kind in ("str", "any"):
            return [Clause("ensures", f"forall c in result: c == {self._char(m.group(1))}")]
        if v is None:  # "return high", "return a list equal to scores": a parameter named by its own name
            name = re.sub(r"^(?:an? |the )?(?:\w+ )?(?:equal to|identical to|the same as) ", "", what.strip("`. "))
            v = name.strip("`") if name.strip("`") in [n for n, _ in self.sig.params] else None
        if v is not None:
            return [Clause("ensures", "result is None" if v == "None" else f"result == {v}")]
        rng = self.sign_of(what)
        return [Clause("ensures", rng)] if rng else None

    @staticmethod
    def _char(ch: str) -> str:
        return '"\\\\"' if ch == "\\" else ('"\\""' if ch == '"' else f'"{ch}"')

    def sign_of(self, phrase: str) -> str | None:
        """``a non-negative integer`` -> ``result >= 0`` (and positive/negative/non-positive)."""
        m = re.match(r"(?:an? |the )?(non-negative|nonnegative|positive|negative|non-positive)\s+"
                     r"(?:integer|number|value|int|float|count|amount|result)", phrase.strip().lower())
        if not m:
            return None
        return {"non-negative": "result >= 0", "nonnegative": "result >= 0", "positive": "result > 0",
                "negative": "result < 0", "non-positive": "result <= 0"}[m.group(1)]
