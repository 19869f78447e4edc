"""Catalogue rules of the library round of issue 24 (sentence patterns of library docstrings, found on the
development libraries pydash and humanize; never a library's names): reverse order, first/last element,
named case styles, and an ``Args:`` entry that lists the accepted literal values. Same entry format as
:mod:`prose_patterns_more`; each rule returns None when a phrase is not understood.
"""

from __future__ import annotations

import re
from typing import Callable

from evalgap.translators.prose_terms import Clause, Context

__all__ = ["LIB_RULES"]

_Fn = Callable[[str, Context], "list[Clause] | None"]
_SEQ_TYPE = re.compile(r"^(?:Optional\[)?(?:list|tuple|str|Sequence|MutableSequence|SequenceT)\b")


def _sequence_param(ctx: Context, phrase: str) -> str | None:
    """The parameter ``phrase`` names by its own name when its type is a sequence (list, tuple, str,
    ``Sequence``): indexing and reversal apply to it."""
    p = phrase.strip().strip("`'\".,")
    types = dict(ctx.sig.params)
    return p if p in types and _SEQ_TYPE.match(types[p]) else None


def _reverse(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^(?:the function )?(?:returns?|gives?) (?:the )?(?:given |input )?(\S+?) in reversed? order\.?$", s.strip(),
                 re.I) or re.match(r"^(?:the function )?reverses? (?:the order of )?(?:the )?(?:given |input )?(\S+?)\.?$",
                                   s.strip(), re.I)
    x = _sequence_param(ctx, m.group(1)) if m else None
    return [Clause("ensures", f"list(result) == list({x})[::-1]")] if x else None


def _first_last(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^(?:the function )?(?:returns?|gets?) the (first|last) (?:element|item|value|entry) (?:of|in|from) "
                 r"(?:the )?(?:given |input )?(\S+?)\.?$", s.strip(), re.I)
    x = _sequence_param(ctx, m.group(2)) if m else None
    if not x or not m:
        return None
    return [Clause("ensures", f"len({x}) > 0 ==> result == {x}[{0 if m.group(1).lower() == 'first' else -1}]")]


#: Case styles: ``(lower/upper test or None, word separator)``; every style has no whitespace.
_STYLES = {"kebab": "lower", "spinal": "lower", "snake": "lower", "camel": None, "pascal": None,
           "constant": "upper", "screaming snake": "upper"}


def _case_style(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("str", "any"):
        return None
    m = re.match(r"^(?:the function )?(?:converts?|transforms?|returns?) (?:the )?(?:given )?(?:string |text )?"
                 r"(?:\S+ )?(?:converted )?(?:in)?to (kebab|spinal|snake|camel|pascal|constant|screaming snake)[- _]?case\b",
                 s.strip(), re.I)
    if not m:
        return None
    case = _STYLES[m.group(1).lower()]
    out = [Clause("ensures", "forall c in result: not c.isspace()")]
    return out + [Clause("ensures", f"result == result.{case}()")] if case else out


_LIT = r"(?:\"[^\"\\]*\"|'[^'\\]*'|``[^`]*``|-?\d+(?:\.\d+)?)"


def _arg_choice(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^Argument (\w+): (.+)$", s.strip())
    if not m or ctx.sig.kind == "class" or m.group(1) not in [n for n, _ in ctx.sig.params]:
        return None
    c = re.search(rf"\b(?:accepts?|must be|should be|can be|is|may be)\s+(?:either\s+|one of\s+)({_LIT}(?:\s*,\s*{_LIT})*"
                  rf",?\s+or\s+{_LIT})\.?(?:\s|$)", m.group(2), re.I) or \
        re.search(rf"(?:^|\.\s+)(?:one of|either)\s+({_LIT}(?:\s*,\s*{_LIT})*,?\s+or\s+{_LIT})\.?(?:\s|$)", m.group(2), re.I)
    if not c:
        return None
    vals = []
    for lit in re.findall(_LIT, c.group(1)):
        lit = lit.strip("`")
        vals.append('"' + lit[1:-1] + '"' if lit[:1] in "'\"" else lit)
    if len(vals) < 2 or any(v.count('"') not in (0, 2) for v in vals):
        return None
    return [Clause("requires", f"{m.group(1)} in ({', '.join(vals)})")]


LIB_RULES: tuple[tuple[str, str, str, tuple[str, str, str], _Fn], ...] = (
    ("reverse-order", "returns <x> in reverse order; reverses (the order of) <x> (<x> a sequence-typed parameter)",
     "ensures list(result) == list(<x>)[::-1]",
     ("Return `array` in reverse order.", "f(array: Sequence[int]) -> Sequence[int]",
      "list(result) == list(array)[::-1]"), _reverse),
    ("first-last", "returns|gets the first|last element of <x> (<x> a sequence-typed parameter)",
     "ensures len(<x>) > 0 ==> result == <x>[0]  ([-1] for last)",
     ("Return the first element of `array`.", "f(array: Sequence[int]) -> Optional[int]",
      "len(array) > 0 ==> result == array[0]"), _first_last),
    ("case-style", "converts <text> to kebab|snake|camel|pascal|constant case",
     "ensures forall c in result: not c.isspace(); kebab/snake: result == result.lower(); constant: .upper()",
     ("Converts `text` to kebab case (a.k.a. spinal case).", "f(text: str) -> str", "result == result.lower()"),
     _case_style),
    ("arg-choice", "docstring Args entry: <param>: ... accepts either \"A\" or \"B\"; must be one of A, B or C",
     "requires <param> in (A, B, ...)",
     ("Argument gender: Gender for translations. Accepts either \"male\" or \"female\".",
      "f(value: int, gender: str) -> str", "gender in (\"male\", \"female\")"), _arg_choice),
)
