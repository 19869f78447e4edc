"""The pattern catalogue: phrasings of requirement prose mapped to clause templates.

Each :class:`Rule` has a name (recorded on every formalization it produces), the phrasing it recognizes,
the template it instantiates with names bound from the target's signature, and a worked example; the
catalogue is documented in ``docs/authoring.md``. Rules are tried in order and every matching rule
contributes its clauses (duplicates removed); a rule returns None when a phrase inside the sentence is not
understood, so nothing is guessed.

EARS forms follow Mavin et al., "Easy Approach to Requirements Syntax (EARS)", RE 2009: event-driven
("When <trigger>, the <system> shall <response>") and unwanted behaviour ("If <condition>, then the
<system> shall <response>").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from evalgap.translators.prose_patterns_lib import LIB_RULES
from evalgap.translators.prose_patterns_more import MORE_RULES
from evalgap.translators.prose_patterns_shape import SHAPE_RULES
from evalgap.translators.prose_terms import Clause, Context, base_kind

__all__ = ["Rule", "CATALOGUE", "match_rules", "SIGNATURE_ONLY_RULES", "is_worked_example", "is_code_like"]

_Fn = Callable[[str, Context], "list[Clause] | None"]


@dataclass(frozen=True)
class Rule:
    """One catalogue entry.

    Attributes:
        name: the rule name recorded on each formalization it produces.
        phrasing: the phrasing recognized (human-readable).
        template: the clause template (human-readable).
        example: ``(sentence, signature, clause text)`` worked example for the docs and tests.
        fn: ``fn(sentence, context) -> clauses or None``.
    """

    name: str
    phrasing: str
    template: str
    example: tuple[str, str, str]
    fn: _Fn


def _res_list(ctx: Context) -> bool:
    return ctx.sig.result_kind in ("list", "any", "tuple", "str")


def _ears_when(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^(?:when|whenever|if|in case)\s+(.+?),\s*(?:then\s+)?(.+)$", s.strip(), re.I)
    if not m:
        m = re.match(r"^(?:when|if)\s+(.+?)\s+(?:then\s+)?((?:the \w+ )?(?:shall|must|should|will)?\s*"
                     r"(?:return|raise|throw)s?\b.+)$", s.strip(), re.I)
    if not m:
        return None
    cond = ctx.condition(re.sub(r"^(?:the (?:function|method)|it) is (?:called|invoked) (?:with (?:an? |the )?|on )", "",
                                m.group(1), flags=re.I))
    resp = ctx.response(re.sub(r"\s*\bthen\b\s*", " ", m.group(2)))
    if not cond or not resp:
        return None
    out = []
    for c in resp:
        out.append(Clause("raises", f"{c.text} when {cond}") if c.kind == "raises"
                   else Clause("ensures", f"({cond}) ==> {c.text}"))
    return out


def _return_if(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^(?:the \w+ (?:shall|must|should|will) )?(?:it )?(?:should )?(?:returns?|outputs?)\s+"
                 r"(.+?)\s+(?:if|when|whenever|in case)\s+(.+?)\.?$", s.strip(), re.I)
    f = re.match(r"^(?:the \w+ (?:shall|must|should|will) )?(?:it )?(?:returns?|outputs?)\s+(\S+)\s+for\s+(?:any|every|each|an?)\s+"
                 r"([A-Za-z_]\w*)\s+(.+?)\.?$", s.strip(), re.I)
    if not m and f and f.group(2) in [n for n, _ in ctx.sig.params]:  # "return low for any value below low"
        v = ctx.value(f.group(1)) or (f.group(1) if f.group(1) in [n for n, _ in ctx.sig.params] else None)
        cond = ctx.condition(f"{f.group(2)} is {f.group(3)}")
        if v is None or cond is None:
            return None
        return [Clause("ensures", f"({cond}) ==> " + ("result is None" if v == "None" else f"result == {v}"))]
    if not m or re.search(r"\b(true|false)\b", m.group(1), re.I):
        return None
    v = ctx.value(m.group(1))
    cond = ctx.condition(re.sub(r"^(?:the case (?:that|where)|that)\s+", "", m.group(2)))
    if v is None or cond is None:
        return None
    return [Clause("ensures", f"({cond}) ==> " + ("result is None" if v == "None" else f"result == {v}"))]


def _check_if(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^(?:(?:checks?|determines?|tests?|returns? whether|decides?)\s+(?:if|whether)|returns?\s+whether|"
                 r"whether)\s+(?:the )?(.+?)\.?$", s.strip(), re.I)
    if not m or ctx.sig.result_kind not in ("bool", "any"):
        return None
    cond = ctx.condition(m.group(1))
    untyped = [n for n, t in ctx.sig.params if base_kind(t) == "any" and re.search(rf"\b{n}\b", cond or "")]
    if untyped and re.search(r"len\(|%|[<>]=? 0\b", cond or "") and not (cond or "").startswith("isinstance("):
        return None  # emptiness/parity/sign of an untyped parameter: the clause would raise on other kinds of value
    return [Clause("ensures", f"result == ({cond})")] if cond else None


def _bool_iff(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\breturns?\s+true\s+(if and only if|iff|if|when)\s+(.+?)(?:,?\s*(?:and|or|otherwise|else)?\s*"
                  r"(?:returns?\s+)?false(?:\s+(?:otherwise|in any other case|in other cases|if not))?)?\.?$",
                  s.strip(), re.I)
    if not m:
        return None
    cond = ctx.condition(m.group(2))
    if cond is None:
        return None
    both = re.search(r"\bfalse\b", s[m.start(2):], re.I) or m.group(1).lower() in ("iff", "if and only if")
    return [Clause("ensures", f"result == ({cond})" if both else f"({cond}) ==> result")]


def _raises(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:raises?|throws?|must raise|shall raise)\s+(?:an? )?(\w+(?:Error|Exception))\s+"
                  r"(?:if|when|whenever|in case|(for|on) (?:an? |the )?)\s*(.+?)\.?$", s, re.I)
    if not m:
        return None
    cond = ctx.condition(m.group(3))
    if m.group(2) and cond and not re.match(r"[A-Za-z_]\w* ", m.group(3)):
        cond = None  # "for <noun phrase>": only "for a <parameter> <predicate>"
    return [Clause("raises", f"{m.group(1)} when {cond}")] if cond else None


def _negative(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:must|shall|should|will|does|do)\s*(?:never|not|n't)\s+(?:ever\s+)?(?:returns?|be)\s+(.+?)"
                  r"\.?$", s, re.I) or re.search(r"\bnever\s+returns?\s+(.+?)\.?$", s, re.I)
    if m:
        v = ctx.value(m.group(1))
        if v is not None:
            return [Clause("ensures", "result is not None" if v == "None" else f"result != {v}")]
        rng = ctx.sign_of("a " + m.group(1).replace("a ", "", 1))
        flip = {"result >= 0": "result < 0", "result > 0": "result <= 0", "result < 0": "result >= 0",
                "result <= 0": "result > 0"}
        return [Clause("ensures", flip[rng])] if rng else None
    m = re.search(r"\b(?:must|shall|should|does|do)\s*(?:never|not|n't)\s+(?:modify|change|mutate|alter)\s+"
                  r"(.+?)\.?$", s, re.I) or re.search(r"\b(?:don't|do not|never)\s+(?:modify|change|mutate|alter)\s+"
                                                     r"(.+?)\.?$", s, re.I)
    if m:
        x = ctx.param(m.group(1))
        return [Clause("ensures", f"{x} == old({x})")] if x else None
    return None


_ORDER_WORDS = (r"(?:in (?:the )?(?:order )?from smallest to largest|in (?:ascending|increasing|non-decreasing) order|"
                r"(?:in (?:the )?(?:order )?)?from (?:largest|highest|biggest|greatest) to (?:smallest|lowest)|"
                r"in (?:descending|decreasing|non-increasing) order|(?:largest|highest|biggest) first)")


def _sorted(s: str, ctx: Context) -> list[Clause] | None:
    low = s.lower()
    if re.search(r"\bfrom shortest to longest\b", low) and re.search(r"\breturns?\b", low) and \
            ctx.sig.result_kind in ("list", "any"):
        return [Clause("ensures", "forall i in range(len(result) - 1): len(result[i]) <= len(result[i + 1])")]
    mono = re.search(r"^(?:the result|it|the output|the returned list|its elements) (?:never|does not|shall never|must never)"
                     r" (decrease|increase)s?\b(?: from one (?:position|element|item|entry) to the next| along the list)?\.?$", low)
    if mono and ctx.sig.result_kind in ("list", "tuple", "any"):
        op = "<=" if mono.group(1) == "decrease" else ">="
        return [Clause("ensures", f"forall i in range(len(result) - 1): result[i] {op} result[i + 1]")]
    if not (re.search(r"\bsort(ed)?\b", low) or re.search(_ORDER_WORDS, low)) or not _res_list(ctx) or ctx.sig.result_kind == "str":
        return None
    if re.search(r"\b(whether|if|check|is sorted|are sorted|can be|possible)\b.*\bsorted\b", low):
        return None
    if not re.search(r"\b(return|returns|output|result|returned|sorted list|sorted unique|lists)\b", low):
        return None
    if re.search(r"\b(by|according to|based on)\b", low):
        return None
    desc = re.search(r"\b(descending|decreasing|non-increasing|(?:largest|highest|biggest|greatest) to "
                     r"(?:smallest|lowest)|(?:largest|highest|biggest) first|reverse order)\b", low)
    op = ">=" if desc else "<="
    return [Clause("ensures", f"forall i in range(len(result) - 1): result[i] {op} result[i + 1]")]


def _remove_repeated(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\bfrom (?:an? |the )?(?:given |input )?(.+?),?\s+remove (?:all )?(?:the )?(?:elements|items|numbers|values)"
                  r" that (?:occur|appear) more than once\b", s, re.I)
    if not m or ctx.sig.result_kind not in ("list", "any"):
        return None
    xs = ctx.param(m.group(1), ("list",))
    return [Clause("ensures", f"forall x in result: {xs}.count(x) == 1"),
            Clause("ensures", f"forall x in result: x in {xs}")] if xs else None


def _modulo(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\breturns?\b.*\b(?:modulo|mod)\s+(\w+)\b", s, re.I)
    if not m or ctx.sig.result_kind not in ("int", "any"):
        return None
    p = ctx.operand(m.group(1))
    return [Clause("ensures", f"({p} > 0) ==> 0 <= result < {p}")] if p and not p.lstrip("-").isdigit() else None


def _average(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:returns?|calculate|compute|find)\s+(?:the )?(?:median|mean|average|arithmetic mean)\s+of\s+"
                  r"(?:the )?(?:elements|numbers|values|items)?\s*(?:in|of)?\s*(?:the )?(.+?)\.?$", s, re.I)
    if not m or ctx.sig.result_kind not in ("int", "float", "any"):
        return None
    xs = ctx.param(m.group(1), ("list",))
    if xs and ctx.sig.kind_of(xs) != "list":
        return None  # an untyped collection may be a mapping, whose min() reads the keys
    return [Clause("ensures", f"len({xs}) > 0 ==> min({xs}) <= result <= max({xs})")] if xs else None


def _gcd(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\bgreatest common divisor of (?:two (?:integers|numbers) )?(\w+) and (\w+)\b", s, re.I)
    if not m or ctx.sig.result_kind not in ("int", "any"):
        return None
    a, b = ctx.operand(m.group(1)), ctx.operand(m.group(2))
    if not a or not b:
        return None
    return [Clause("ensures", f"result != 0 ==> {a} % result == 0 and {b} % result == 0")]


def _unique(s: str, ctx: Context) -> list[Clause] | None:
    low = s.lower()
    if not ctx.sig.result_kind in ("list", "any") or re.search(r"\b(count|how many|number of)\b", low):
        return None
    if not re.search(r"\b(unique|distinct|no duplicates?|without duplicates?|(?:each|every) (?:\w+ )?(?:only |exactly )?"
                     r"once)\b", low):
        return None
    if not re.search(r"\b(return|returns|output|result|list|lists)\b", low):
        return None
    return [Clause("ensures", "len(set(result)) == len(result)")]


def _count(s: str, ctx: Context) -> list[Clause] | None:
    low = s.lower()
    if ctx.sig.result_kind not in ("int",):
        return None
    if re.search(r"\b(return|returns|output|outputs|find|count|counts|calculate|compute|determine)\b.*"
                 r"\b(the number of|how many|the count of|the total number of|number of times)\b", low) or \
            re.match(r"^(count|counts)\b", low):
        return [Clause("ensures", "result >= 0")]
    return None


def _sign(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:returns?|outputs?|result is)\s+(.+)$", s, re.I)
    if not m or ctx.sig.result_kind not in ("int", "float", "any"):
        return None
    rng = ctx.sign_of(m.group(1))
    return [Clause("ensures", rng)] if rng else None


def _length_of(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:returns?|outputs?)\s+(?:the )?(?:length|size) of (?:the )?(?:given |input )?(.+?)\.?$", s, re.I)
    if not m:
        return None
    x = ctx.param(m.group(1), ("list", "str", "dict", "tuple", "set"))
    return [Clause("ensures", f"result == len({x})")] if x else None


def _extremum(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:returns?|find|finds)\s+(?:the )?(maximum|max|largest|greatest|biggest|minimum|min|smallest)\s+"
                  r"(?:element|number|value|item|integer)s?\s+(?:in|of|from)\s+(.+?)\.?$", s, re.I)
    if not m:
        return None
    xs = ctx.param(m.group(2), ("list", "tuple", "set"))
    if not xs:
        return None
    op = "<=" if m.group(1).lower() in ("maximum", "max", "largest", "greatest", "biggest") else ">="
    return [Clause("ensures", f"result in {xs} and (forall x in {xs}: x {op} result)")]


def _filter(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("list", "any"):
        return None
    m = re.search(r"\bfilter\s+(?:an? |the )?(?:input |given )?(.+?)\s+only\s+for\s+(?:ones|those|elements|items)\s+"
                  r"(?:that|which)\s+(.+?)\.?$", s, re.I)
    if m:
        xs, pred_text = ctx.param(m.group(1), ("list",)), m.group(2)
    else:
        m = re.search(r"\breturns?\s+only\s+(?:the\s+)?(positive|negative|even|odd|non-negative)\s+"
                      r"(?:numbers|elements|integers|values|items)\s+(?:in|of|from)\s+(.+?)\.?$", s, re.I)
        if not m:
            return None
        xs, pred_text = ctx.param(m.group(2), ("list",)), m.group(1)
    pred = ctx.elem_pred(pred_text, "x")
    if not xs or not pred:
        return None
    return [Clause("ensures", f"forall x in result: {pred}"), Clause("ensures", f"forall x in result: x in {xs}")]


def _permutation(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:contains exactly the elements of|is a permutation of|has the same elements as|"
                  r"rearrang\w*|reorder\w*|a copy of)\s+(?:the )?(?:given |input )?(.+?)(?:\s+(?:after|in|by|so)\b.*)?\.?$",
                  s, re.I)
    if not m or ctx.sig.result_kind not in ("list", "any"):
        return None
    xs = ctx.param(m.group(1), ("list",))
    return [Clause("ensures", f"sorted(result) == sorted({xs})")] if xs else None


def _length_rel(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:list|array|string|tuple|sequence)\s+of\s+(?:length|size)\s+(.+?)(?:[,.]|\s+(?:such|where|with|"
                  r"that|in|whose)\b|$)", s, re.I)
    if m:
        n = ctx.operand(m.group(1))
        return [Clause("ensures", f"len(result) == {n}")] if n else None
    m = re.search(r"\b(?:same (?:length|size) as|(?:exactly )?as long as) (?:the )?(?:given |input )?(\w+)(?:\s.*)?\.?$",
                  s, re.I)
    if m and re.search(r"\b(return|result|output)", s, re.I):
        xs = ctx.param(m.group(1), ("list", "str", "tuple"))
        return [Clause("ensures", f"len(result) == len({xs})")] if xs else None
    return None


def _membership(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:out of|from)\s+(?:the |a |an )?(?:given |input )?(.+?),\s*returns?\s+the\s+(?:longest|shortest|"
                  r"first|last|largest|smallest)\s+one\b", s, re.I) or \
        re.search(r"\breturns?\s+(?:one of the elements of|an element of|one of)\s+(?:the )?(?:given )?(.+?)\.?$", s, re.I)
    if not m:
        return None
    xs = ctx.param(m.group(1), ("list", "tuple", "set"))
    if not xs:
        return None
    guard = "result is None or " if ctx.sig.optional_result else ""
    return [Clause("ensures", f"{guard}result in {xs}")]


def _one_of_values(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:returns?|result is|gives?)\s+(?:one of|either)\s+(.+?)\.?$", s, re.I)
    if not m:
        return None
    items = [x for x in re.split(r",\s*(?:or\s+)?|\s+or\s+", m.group(1).strip()) if x]
    values = [Context.value(x.strip("`")) for x in items]
    if len(values) < 2 or any(v is None or v in ("[]", '""', "()", "{}") and False for v in values) or None in values:
        return None
    guard = "result is None or " if ctx.sig.optional_result and "None" not in values else ""
    return [Clause("ensures", f"{guard}result in ({', '.join(dict.fromkeys(str(v) for v in values))})")]


def _between(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"\b(?:returns?|result is)\s+(?:a |an |the )?(?:\w+ )?(?:number|integer|value|float)?\s*"
                  r"(?:between|in the range(?: from)?|from)\s+(.+?)\s+(?:and|to)\s+(.+?)(?:,?\s+(?:both )?inclusive)?\.?$", s, re.I)
    if not m or ctx.sig.result_kind not in ("int", "float", "any"):
        return None
    lo, hi = ctx.operand(m.group(1)), ctx.operand(m.group(2))
    return [Clause("ensures", f"{lo} <= result <= {hi}")] if lo and hi else None


def _precondition(s: str, ctx: Context) -> list[Clause] | None:
    st = s.strip()
    about_result = bool(re.match(r"^(?:if|when|whenever|unless)\b", st, re.I) or
                        re.search(r"\b(?:return(?:s|ed)?|result|raised?|raises|thrown|throws?)\b", st, re.I))
    m = re.match(r"^(?:you (?:may|can) )?assume(?:s)?(?: that)?\s+(.+?)\.?$", st, re.I) or (None if about_result else \
        re.match(r"^(?:the )?(?:input |given )?(.+?\s+(?:will be|is always|are always|is guaranteed to be)\s+.+?)\.?$",
                 st, re.I))  # "If ..., then the returned X will be ...": a statement about the result, not the input
    if m:
        text = re.sub(r"\b(will be|is always|is guaranteed to be)\b", "is", m.group(1))
        text = re.sub(r"\bare always\b", "are", text)
        parts = re.split(r"\s+and\s+", text)
        conds = [ctx.condition(p) for p in parts]
        if all(conds) and conds:
            return [Clause("requires", c) for c in conds if c]
        return None
    m = re.match(r"^(?:you are |you're |you will be )?given (?:an? |the )?(non-empty |nonempty )?(?:list|array) of "
                 r"(positive|non-negative|negative|even|odd) (?:integers|numbers)(?:\s+(\w+))?", st, re.I)
    if m:
        x = ctx.param(m.group(3) or "list", ("list",))
        pred = ctx.elem_pred(m.group(2), "x")
        if not x or not pred:
            return None
        return ([Clause("requires", f"len({x}) > 0")] if m.group(1) else []) + [
            Clause("requires", f"forall x in {x}: {pred}")]
    m = re.match(r"^(?:you are |you're |you will be )?given (?:an? |the )?(non-empty|nonempty|positive|non-negative|negative)\s+(list|array|integer|number|"
                 r"string)(?:\s+of\s+\w+)?(?:\s+(\w+))?\b", st, re.I)
    if m:
        kinds = ("list", "str") if m.group(2).lower() in ("list", "array", "string") else ("int", "float")
        x = ctx.param(m.group(3) or m.group(2), kinds)
        if not x:
            return None
        q = m.group(1).lower()
        if q in ("non-empty", "nonempty"):
            return [Clause("requires", f"len({x}) > 0")] if kinds[0] == "list" else None
        if kinds[0] != "int":
            return None
        return [Clause("requires", {"positive": f"{x} > 0", "non-negative": f"{x} >= 0", "negative": f"{x} < 0"}[q])]
    return None


def _signature_type(s: str, ctx: Context) -> list[Clause] | None:
    m = re.fullmatch(r"(?:it |the function |this function )?(?:returns?|outputs?)\s+(?:an? |the )?(int|integer|string|str|"
                     r"list|bool|boolean|float|tuple|dict|dictionary)(?:\s+of\s+\w+)?\.?", s.strip(), re.I)
    if not m:
        return None
    t = {"integer": "int", "string": "str", "boolean": "bool", "dictionary": "dict"}.get(m.group(1).lower(),
                                                                                         m.group(1).lower())
    return [Clause("ensures", f"isinstance(result, {t})")]


_E = ("", "", "")
CATALOGUE: tuple[Rule, ...] = (
    Rule("ears-event", "When/If <condition>, [then] [the <system> shall] return <value> | raise <Exc>",
         "ensures (<condition>) ==> result == <value>; raises <Exc> when <condition>",
         ("If the list is empty, return None.", "f(l: list[int]) -> int", "(len(l) == 0) ==> result is None"),
         _ears_when),
    Rule("return-if", "Return <value> if/when/in case <condition>",
         "ensures (<condition>) ==> result == <value>",
         ("Return -1 if n is greater than m.", "f(n: int, m: int) -> int", "(n > m) ==> result == -1"), _return_if),
    Rule("check-if", "Check(s) if/whether <condition> (bool result)", "ensures result == (<condition>)",
         ("Checks if given string is a palindrome", "f(text: str) -> bool", "result == (text == text[::-1])"),
         _check_if),
    Rule("bool-iff", "return True if <condition> [, and False otherwise]",
         "ensures result == (<condition>)  (only `(<condition>) ==> result` without the False part)",
         ("Return True if all numbers in the list l are below threshold t.", "f(l: list[int], t: int) -> bool",
          "(forall x in l: x < t) ==> result"), _bool_iff),
    Rule("raises", "raises <Exc> if/when <condition>", "raises <Exc> when <condition>",
         ("Raises ValueError if n is negative.", "f(n: int) -> int", "ValueError when n < 0"), _raises),
    Rule("negative", "must/shall/should never|not return <value|sign>; must not modify <param>",
         "ensures result != <value>; ensures <flipped sign>; ensures <param> == old(<param>)",
         ("The function must never return None.", "f(s: str) -> str | None", "result is not None"), _negative),
    Rule("sorted", "return ... sorted [in ascending|descending order]",
         "ensures forall i in range(len(result) - 1): result[i] <= result[i + 1]  (>= for descending)",
         ("Return sorted unique elements in a list.", "f(l: list[int]) -> list[int]",
          "forall i in range(len(result) - 1): result[i] <= result[i + 1]"), _sorted),
    Rule("unique", "return ... unique / distinct / without duplicates / each once",
         "ensures len(set(result)) == len(result)",
         ("Return sorted unique elements in a list.", "f(l: list[int]) -> list[int]",
          "len(set(result)) == len(result)"), _unique),
    Rule("remove-repeated", "from <list>, remove all elements that occur more than once",
         "ensures forall x in result: <list>.count(x) == 1; ensures forall x in result: x in <list>",
         ("From a list of integers, remove all elements that occur more than once.",
          "f(numbers: list[int]) -> list[int]", "forall x in result: numbers.count(x) == 1"), _remove_repeated),
    Rule("modulo", "return ... modulo <param>", "ensures (<param> > 0) ==> 0 <= result < <param>",
         ("Return 2^n modulo p.", "f(n: int, p: int) -> int", "(p > 0) ==> 0 <= result < p"), _modulo),
    Rule("average", "return the median/mean/average of <list>",
         "ensures len(<list>) > 0 ==> min(<list>) <= result <= max(<list>)",
         ("Return median of elements in the list l.", "f(l: list[int]) -> float",
          "len(l) > 0 ==> min(l) <= result <= max(l)"), _average),
    Rule("gcd", "greatest common divisor of <a> and <b>",
         "ensures result != 0 ==> <a> % result == 0 and <b> % result == 0",
         ("Return a greatest common divisor of two integers a and b", "f(a: int, b: int) -> int",
          "result != 0 ==> a % result == 0 and b % result == 0"), _gcd),
    Rule("count-nonneg", "return/find/count the number of | how many ... (int result)", "ensures result >= 0",
         ("Find how many times a given substring can be found in the original string.",
          "f(string: str, substring: str) -> int", "result >= 0"), _count),
    Rule("sign", "returns a non-negative|positive|negative <number>", "ensures result >= 0 | > 0 | < 0",
         ("Returns a non-negative integer.", "f(x: int) -> int", "result >= 0"), _sign),
    Rule("length-of", "return the length of <param>", "ensures result == len(<param>)",
         ("Return length of given string.", "f(string: str) -> int", "result == len(string)"), _length_of),
    Rule("extremum", "return the maximum|minimum element in <list>",
         "ensures result in <list> and (forall x in <list>: x <= result)  (>= for minimum)",
         ("Return maximum element in the list.", "f(l: list[int]) -> int",
          "result in l and (forall x in l: x <= result)"), _extremum),
    Rule("filter", "filter <list> only for ones that <predicate>; return only <positive|even|...> numbers in <list>",
         "ensures forall x in result: <predicate>; ensures forall x in result: x in <list>",
         ("Filter an input list of strings only for ones that start with a given prefix.",
          "f(strings: list[str], prefix: str) -> list[str]", "forall x in result: x.startswith(prefix)"), _filter),
    Rule("permutation", "contains exactly the elements of <list> | is a permutation of | rearranges | a copy of",
         "ensures sorted(result) == sorted(<list>)",
         ("The result contains exactly the elements of xs.", "f(xs: list[int]) -> list[int]",
          "sorted(result) == sorted(xs)"), _permutation),
    Rule("length", "a list/string of length <n>; the same length as <param>",
         "ensures len(result) == <n>; ensures len(result) == len(<param>)",
         ("Returns a list of length n.", "f(n: int) -> list[int]", "len(result) == n"), _length_rel),
    Rule("membership", "out of <list>, return the longest|first|... one; return one of the elements of <list>",
         "ensures result in <list>  (result is None or ... when the result is Optional)",
         ("Out of list of strings, return the longest one.", "f(strings: list[str]) -> str | None",
          "result is None or result in strings"), _membership),
    Rule("one-of-values", "returns one of <v1>, <v2> ... or <vn> (literals)", "ensures result in (<v1>, ..., <vn>)",
         ('Returns one of "A", "B" or "C".', "f(n: int) -> str", 'result in ("A", "B", "C")'), _one_of_values),
    Rule("between", "returns a number between|from <a> and|to <b>", "ensures <a> <= result <= <b>",
         ("Returns a value between 0 and n.", "f(n: int) -> int", "0 <= result <= n"), _between),
    Rule("precondition", "Assume <condition>; <param> will be|is always <condition>; Given a non-empty list / "
         "positive integer <param>", "requires <condition>",
         ("Assume n > 1.", "f(n: int) -> int", "n > 1"), _precondition),
    Rule("signature-type", "returns an int|string|list|bool ... (nothing more)", "ensures isinstance(result, T) "
         "(implied by the signature; not counted as a formalization in the benchmark)",
         ("Returns an integer.", "f(x: int) -> int", "isinstance(result, int)"), _signature_type),
)

CATALOGUE = CATALOGUE + tuple(Rule(*entry) for entry in MORE_RULES) + tuple(Rule(*entry) for entry in LIB_RULES) + \
    tuple(Rule(*entry) for entry in SHAPE_RULES)

#: Rules whose clauses the signature alone implies (excluded from the reach figures).
SIGNATURE_ONLY_RULES = frozenset({"signature-type"})
