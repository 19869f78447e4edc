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


_SUBJECT = (r"(?:the result|the output|the return value|the returned (?:value|number|count|list|string)|it|its result|"
            r"the (?:function|method)'s result)")
_SIGNS = {"negative": ">= 0", "non-negative": ">= 0", "nonnegative": ">= 0", "positive": "> 0", "zero": "!= 0"}


def _result_sign(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(rf"^{_SUBJECT} (?:is|shall be|must be|will be|should be) (never|not|always) (?:an? )?"
                  r"(negative|non-negative|nonnegative|positive|zero|empty|none)(?: (?:number|integer|value|list|string))?"
                  r"\.?$", s.strip(), re.I)
    if not m:
        return None
    never, word = m.group(1).lower() != "always", m.group(2).lower()
    if word in ("empty", "none"):
        if not never:
            return None
        if word == "none":
            return [Clause("ensures", "result is not None")]
        if ctx.sig.result_kind not in ("list", "str", "tuple", "dict", "set"):
            return None
        return [Clause("ensures", "len(result) > 0")]
    if ctx.sig.result_kind not in ("int", "float"):
        return None
    if never and word in ("negative", "zero"):
        return [Clause("ensures", f"result {_SIGNS[word]}")]
    if not never and word in ("non-negative", "nonnegative", "positive"):
        return [Clause("ensures", f"result {_SIGNS[word]}")]
    return None


_EXC = r"`?(\w+(?:Error|Exception))`?"


def _subject_condition(ctx: Context, subject: str) -> str | None:
    """The condition a noun phrase about one parameter states: ``a negative width`` -> ``width < 0``,
    ``a limit below 1`` -> ``limit < 1``, ``an empty name`` -> ``len(name) == 0``."""
    words = re.sub(r"^(?:an?|the|any)\s+", "", subject.strip().strip("`"), flags=re.I).replace("`", "").split()
    names = [n for n, _ in ctx.sig.params]
    if len(words) >= 2 and words[-1] in names and words[0] not in names:
        return ctx.condition(f"{words[-1]} is {' '.join(words[:-1])}")
    if len(words) >= 2 and words[0] in names:
        return ctx.condition(f"{words[0]} is {' '.join(words[1:])}")
    return None


def _rejected(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(rf"^(.+?) (?:is|are) (?:rejected|refused) with (?:an? )?{_EXC}\.?$", s.strip(), re.I) or \
        re.search(rf"^(.+?) makes (?:the (?:function|method|constructor|call)|it) (?:raise|throw) (?:an? )?{_EXC}\.?$",
                  s.strip(), re.I)
    if not m:
        return None
    cond = _subject_condition(ctx, m.group(1))
    return [Clause("raises", f"{m.group(2)} when {cond}")] if cond else None


def _holds_at_most(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.kind != "class":
        return None
    m = re.search(r"^(?:the (?:object|class|instance)|it) (?:shall |must |will |can |should )?never (?:holds?|contains?|has|have|"
                  r"stores?|keeps?) more than (\w+) (\w+)(?: (\w+))?\.?$", s.strip(), re.I)
    if not m:
        return None
    attrs = {n for n, _ in ctx.sig.attrs}
    collections = [n for n in attrs if ctx.sig.kind_of("self." + n) in _COLLECTIONS]
    named = [w for w in (m.group(2), m.group(3)) if w and w in collections]
    attr = named[0] if len(named) == 1 else (collections[0] if len(collections) == 1 and not named else None)
    bound = m.group(1)
    n = f"self.{bound}" if bound in attrs else (bound if re.fullmatch(r"\d+", bound) else None)
    return [Clause("invariant", f"len(self.{attr}) <= {n}")] if attr and n else None


def _last_element(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"^(?:(?:after|when|once) the (?:method|function) returns,\s*)?(\w+) (?:shall|must|will|should) be the "
                  r"(last|first) (?:element|item|entry|value) (?:of|in) (?:the )?(\w+)\.?$", s.strip(), re.I)
    if not m or m.group(1) not in [n for n, _ in ctx.sig.params]:
        return None
    seq = f"self.{m.group(3)}" if m.group(3) in {n for n, _ in ctx.sig.attrs} else \
        ("result" if m.group(3).lower() == "result" else None)
    if seq is None:
        return None
    idx = "-1" if m.group(2).lower() == "last" else "0"
    return [Clause("ensures", f"len({seq}) > 0 and {seq}[{idx}] == {m.group(1)}")]


def _every_in_result(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"^(?:every|each|all) (\w+?)s? (?:in|of) the result (?:is|are|shall be|must be) (.+?)\.?$", s.strip(), re.I)
    if not m:
        return None
    kind = ctx.sig.result_kind
    if kind == "dict":
        over = "result" if m.group(1).lower() == "key" else "result.values()"
    elif kind in ("list", "tuple", "set"):
        over = "result"
    else:
        return None
    pred = ctx.elem_pred(m.group(2), "x")
    return [Clause("ensures", f"forall x in {over}: {pred}")] if pred else None


def _keys_of_result(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"^the keys of the result are (?:exactly )?the (?:distinct |different |unique )?(?:entries|elements|items|"
                  r"values|members) (?:of|in) (?:the )?(\w+)\.?$", s.strip(), re.I)
    if not m or ctx.sig.result_kind != "dict":
        return None
    xs = ctx.param(m.group(1), _COLLECTIONS)
    return [Clause("ensures", f"set(result) == set({xs})")] if xs else None


def _first_of(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"^the (first|last) (?:element|item|entry|value) of the result (?:equals|is|is equal to) the (first|last) "
                  r"(\w+)\.?$", s.strip(), re.I)
    if not m or m.group(1).lower() != m.group(2).lower() or ctx.sig.result_kind not in ("list", "tuple", "any"):
        return None
    xs = collection_named(ctx, m.group(3))
    if not xs or ctx.sig.kind_of(xs) not in ("list", "tuple"):
        return None
    i = "0" if m.group(1).lower() == "first" else "-1"
    return [Clause("ensures", f"len({xs}) > 0 and len(result) > 0 ==> result[{i}] == {xs}[{i}]")]


def _returned_unchanged(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"^(?:an? |the )?`?(\w+)`? (?:that|which|whose \w+) (.+?) (?:is|are) returned (?:unchanged|as it is|as is)\.?$",
                  s.strip(), re.I)
    if not m or m.group(1) not in [n for n, _ in ctx.sig.params]:
        return None
    rest = m.group(2)
    cond = ctx.condition(f"{m.group(1)} {rest}" if re.match(r"(?:is|are|has|contains|consists)\b", rest) else
                         f"{m.group(1)} is {rest}")
    return [Clause("ensures", f"({cond}) ==> result == {m.group(1)}")] if cond else None


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
    ("result-sign", "the result is never negative|zero|empty|None; the result is always non-negative|positive",
     "ensures result >= 0 | result != 0 | len(result) > 0 | result is not None | result > 0",
     ("The result is never negative.", "f(xs: list[int]) -> int", "result >= 0"), _result_sign),
    ("rejected-with", "a <adjective> <param> | a <param> <predicate> is rejected with <Exc>; ... makes the "
     "function|constructor raise <Exc>", "raises <Exc> when <condition>",
     ("A negative `width` is rejected with `ValueError`.", "f(name: str, width: int) -> str",
      "ValueError when width < 0"), _rejected),
    ("holds-at-most", "(class) the object shall never hold|contain more than <attribute or n> <items>",
     "invariant len(self.<collection>) <= self.<attribute>",
     ("The object shall never hold more than capacity readings.", "B(capacity: int) -> None; capacity: int, readings: list[int]",
      "len(self.readings) <= self.capacity"), _holds_at_most),
    ("last-element", "(after the method returns,) <param> shall be the last|first element of <attribute>",
     "ensures len(self.<a>) > 0 and self.<a>[-1] == <param>  ([0] for first)",
     ("After the method returns, value shall be the last element of readings.",
      "B.add(value: int) -> None; readings: list[int]", "len(self.readings) > 0 and self.readings[-1] == value"),
     _last_element),
    ("every-in-result", "every|each <noun> in|of the result is <predicate>",
     "ensures forall x in result: <predicate>  (result.values() for a dict, keys for \"key\")",
     ("Every count in the result is at least 1.", "f(xs: list[str]) -> dict[str, int]",
      "forall x in result.values(): x >= 1"), _every_in_result),
    ("keys-of-result", "the keys of the result are exactly the distinct entries of <p>", "ensures set(result) == set(<p>)",
     ("The keys of the result are exactly the distinct entries of statuses.", "f(statuses: list[str]) -> dict[str, int]",
      "set(result) == set(statuses)"), _keys_of_result),
    ("first-of", "the first|last element of the result equals the first|last <element of p>",
     "ensures len(<p>) > 0 and len(result) > 0 ==> result[0] == <p>[0]",
     ("The first element of the result equals the first reading.", "f(readings: list[int]) -> list[int]",
      "len(readings) > 0 and len(result) > 0 ==> result[0] == readings[0]"), _first_of),
    ("returned-unchanged", "a <param> that <condition> is returned unchanged", "ensures (<condition>) ==> result == <param>",
     ("A name that is already width characters or longer is returned unchanged.", "f(name: str, width: int) -> str",
      "(len(name) >= width) ==> result == name"), _returned_unchanged),
)
