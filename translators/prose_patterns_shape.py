"""Rules about the shape of a returned collection (issue 24, requirements-document round): one result element
per input element and an element-wise arithmetic map (the condition "the object a method's sentence names is
empty" is :func:`evalgap.translators.prose_conditions.object_condition`).

Each rule entry is ``(name, phrasing, template, worked example, function)`` as in
:mod:`prose_patterns_more`. Like every phrase reader of the pattern engine a
rule returns None for a phrase it does not understand: nothing is guessed. A parameter is named by its own
name or by its singular ("one level per input level" binds ``levels``), and only when it is a collection.

Written on the development documents (tests/fixtures/authoring/dev and the first evaluation document,
which had been run once as frozen and is development material since); the later frozen documents
(tests/fixtures/authoring/eval2, eval3) were committed before these rules.
"""

from __future__ import annotations

import re
from typing import Callable

from evalgap.translators.prose_terms import Clause, Context

__all__ = ["SHAPE_RULES", "collection_named"]

_Fn = Callable[[str, Context], "list[Clause] | None"]
_COLLECTIONS = ("list", "tuple", "set", "dict")
_RESULT = r"(?:returned|resulting|output|result(?:ing)?|new)"
_OPS = {"plus": "+", "minus": "-", "times": "*", "multiplied by": "*", "increased by": "+", "decreased by": "-",
        "added to": "+"}


def _singulars(name: str) -> set[str]:
    """Singular forms a plural parameter name is read from: ``levels`` -> level, ``entries`` -> entry,
    ``boxes`` -> box."""
    out = set()
    if name.endswith("ies") and len(name) > 3:
        out.add(name[:-3] + "y")
    if name.endswith("es") and len(name) > 2:
        out.add(name[:-2])
    if name.endswith("s") and len(name) > 1:
        out.add(name[:-1])
    return out


def collection_named(ctx: Context, phrase: str) -> str | None:
    """The collection parameter (or attribute) a noun phrase names by its own name or its singular
    (``the input level`` -> ``levels``), or None when none or several do."""
    words = re.findall(r"[A-Za-z_]\w*", phrase.strip("`'\"., "))
    named = ctx.param(phrase, _COLLECTIONS + ("str",))
    if named and any(w == named or w == named.removeprefix("self.") for w in words):
        return named
    found = [n for n, t in ctx.sig.params if ctx.sig.kind_of(n) in _COLLECTIONS
             and _singulars(n) & set(words)]
    return found[0] if len(found) == 1 else None


def _one_per(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("list", "tuple", "str", "any"):
        return None
    m = re.search(r"\b(?:returns?|gives?|is|yields?)\b.*?\bwith (?:exactly )?one (?:\w+ )?(?:per|for each|for every) "
                  r"(?:input |given |original )?(.+?)(?:\s+(?:of|in) .+?)?\.?$", s, re.I) \
        or re.search(r"\b(?:has|contains|holds|with) (?:exactly )?as many (?:\w+ )?as (?:there are (?:in )?)?"
                     r"(?:the )?(?:input |given )?(.+?)\.?$", s, re.I) \
        or re.search(r"\bone (?:\w+ )?(?:per|for each|for every) (?:input |given |original )?(\w+)\s*$",
                     s.rstrip("."), re.I)
    if not m or not re.search(rf"\b(?:returns?|result|output|{_RESULT})\b", s, re.I):
        return None
    xs = collection_named(ctx, m.group(1))
    return [Clause("ensures", f"len(result) == len({xs})")] if xs else None


def _elementwise(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("list", "tuple", "any"):
        return None
    ops = "|".join(sorted(_OPS, key=len, reverse=True))
    m = re.search(rf"^(?:each|every) (?:{_RESULT} )?(\w+)(?: of the result| in the result)? (?:equals|is|is equal to) "
                  rf"(?:the )?(?:input|given|original|corresponding) (\w+)(?: of (?:the )?\S+?)? ({ops}) (.+?)\.?$",
                  s.strip(), re.I)
    if not m:
        return None
    if not re.search(rf"\b{_RESULT}\b|\bthe result\b", s, re.I):
        return None
    xs = collection_named(ctx, m.group(2))
    n = ctx.operand(m.group(4))
    if not xs or not n or ctx.sig.kind_of(xs) not in ("list", "tuple"):
        return None
    op = _OPS[m.group(3).lower()]
    return [Clause("ensures", f"forall i in range(min(len(result), len({xs}))): result[i] == {xs}[i] {op} {n}")]


def _no_edge_space(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("str", "any"):
        return None
    m = re.search(r"^(?:the result|it|the (?:returned|output) (?:string|value)|the function)\s+(?:shall|must|will|does|do|"
                  r"should)?\s*(?:not|never) (?:begins?|starts?) or ends? with (?:an? )?(white ?space|space)(?: characters?)?"
                  r"\.?$", s.strip(), re.I) \
        or re.search(r"\b(?:returns?|gives?) (?:an? |the )?(?:string|text|value) (?:with(?:out)?|that has) no (?:leading or "
                     r"trailing|leading and trailing) (white ?space|spaces?)\.?$", s.strip(), re.I)
    if not m:
        return None
    return [Clause("ensures", "result == result.strip()" if "white" in m.group(1).lower()
                   else 'result == result.strip(" ")')]


SHAPE_RULES: tuple[tuple[str, str, str, tuple[str, str, str], _Fn], ...] = (
    ("one-per", "returns a list with one <x> per <element of p>; the result has as many <x> as <p>",
     "ensures len(result) == len(<p>)",
     ("It returns a new list with one level per input level.", "f(levels: list[int], amount: int) -> list[int]",
      "len(result) == len(levels)"), _one_per),
    ("elementwise", "each returned <x> equals the input|corresponding <x> plus|minus|times <n>",
     "ensures forall i in range(min(len(result), len(<p>))): result[i] == <p>[i] + <n>",
     ("Each returned level equals the input level plus `amount`.", "f(levels: list[int], amount: int) -> list[int]",
      "forall i in range(min(len(result), len(levels))): result[i] == levels[i] + amount"), _elementwise),
    ("no-edge-space", "the result shall not begin or end with a whitespace character; returns a string without leading "
     "or trailing whitespace", "ensures result == result.strip()  (result.strip(\" \") for spaces)",
     ("The result shall not begin or end with a whitespace character.", "f(name: str) -> str",
      "result == result.strip()"), _no_edge_space),
)
