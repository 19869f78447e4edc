"""Matching one sentence against the pattern catalogue (:mod:`evalgap.translators.prose_patterns`): the
worked-example and code-fragment filters, the rules a docstring entry may match, and the guards that keep a
rule off a function whose key/comparator parameter redefines what the rule assumes."""

from __future__ import annotations

import re

from evalgap.translators.prose_conditions import guard_defaults
from evalgap.translators.prose_patterns import CATALOGUE, SIGNATURE_ONLY_RULES
from evalgap.translators.prose_terms import Clause, Context

__all__ = ["is_worked_example", "is_code_like", "match_rules"]


def is_worked_example(sentence: str) -> bool:
    """True for a worked example in prose (``arr = [2, 1] -> sort arr -> [1, 2]``): literal values chained with
    arrows; no rule reads it as a property (the splitter turns only closed calls into ``example``s)."""
    return bool(re.search(r"[\]\)\d'\"]\s*(?:->|=>|\u2192)|(?:->|=>|\u2192)\s*[\[\(\d'\"]", sentence))


def is_code_like(sentence: str) -> bool:
    """True for a fragment of an example the splitter did not turn into an ``example`` (a doctest with a
    lambda, an assignment, a call followed by its printed result, a doctest directive): no rule reads code."""
    return bool(re.search(r"\blambda\b|^\s*[A-Za-z_][\w.]*(?:\[[^\]]*\])? = |#\s*doctest:|>>>|"
                          r"\b[a-z_]\w*\([^()]*(?:\([^()]*\)[^()]*)*\)\s+[\[\(\{'\"\d-]", sentence))


#: The rules an ``Argument X: ...`` / ``Attribute X: ...`` entry (docstring sections) may match.
_ENTRY_RULES = {"Argument": frozenset({"arg-entry", "arg-choice"}), "Attribute": frozenset({"invariant"})}
#: Rules whose clause assumes the natural order or the elements themselves (not a key function's values).
_ORDER_RULES = frozenset({"sorted", "average", "extremum", "membership", "filter"})
_CALLABLE_PARAMS = re.compile(r"^(key|keys|comparator|cmp|iteratee|callback|predicate|func|fn|sort_key|reverse|by|"
                              r"customizer)$")
#: Rules whose condition (equality, membership) a required key/comparator/customizer parameter redefines.
_CALLABLE_RULES = frozenset({"check-if", "bool-iff"})


def _has_callable_param(ctx: Context) -> bool:
    """True when the target takes a key/comparator/iteratee (or ``reverse``) parameter."""
    return any(_CALLABLE_PARAMS.match(n) or "Callable" in t for n, t in ctx.sig.params)


def _has_required_callable(ctx: Context) -> bool:
    """True when a key/comparator/customizer parameter has no default (it always changes the condition)."""
    with_default = {n for n, _ in ctx.sig.defaults}
    return any((_CALLABLE_PARAMS.match(n) or "Callable" in t) and n not in with_default for n, t in ctx.sig.params)


def match_rules(sentence: str, ctx: Context) -> list[tuple[str, Clause]]:
    """Every ``(rule name, clause)`` the catalogue produces for ``sentence``, duplicates removed.

    A sentence whose rules produce both ``raises`` and ``ensures`` clauses keeps only the ``raises`` ones
    (a choice of the pattern engine; the language itself allows both in one requirement, docs/language.md).
    """
    out: list[tuple[str, Clause]] = []
    seen: set[tuple[str, str]] = set()
    if is_worked_example(sentence) or is_code_like(sentence):
        return out
    entry = re.match(r"^(Argument|Attribute) \w+: ", sentence)
    if sentence.lstrip().startswith(".."):  # a reST directive (``.. versionchanged:: 3.0``) states no behaviour
        return out
    for rule in CATALOGUE:
        if entry and rule.name not in _ENTRY_RULES[entry.group(1)]:
            continue  # an Args/Attributes entry describes its parameter or attribute, not the result
        if rule.name in _ORDER_RULES and _has_callable_param(ctx):
            continue
        if rule.name in _CALLABLE_RULES and _has_required_callable(ctx):
            continue  # a key/comparator/iteratee parameter changes what "sorted"/"mean"/"largest" is about
        try:
            found = rule.fn(sentence, ctx)
        except (KeyError, IndexError):
            found = None
        for c in found or []:
            if ctx.sig.generator and re.search(r"\blen\(result\)|\bresult\[", c.text):
                continue  # a generator function returns an iterator: no length, no indexing
            if (c.kind, c.text) not in seen:
                seen.add((c.kind, c.text))
                out.append((rule.name, c))
    guarded = [(r, c.kind, c.text if r in SIGNATURE_ONLY_RULES else guard_defaults(c.kind, c.text, ctx))
               for r, c in out]
    out = [(r, Clause(k, t)) for r, k, t in guarded if t is not None]
    if any(c.kind == "raises" for _, c in out):
        out = [(r, c) for r, c in out if c.kind == "raises"]
    if any(c.kind == "requires" for _, c in out) and any(c.kind != "requires" for _, c in out):
        out = [(r, c) for r, c in out if c.kind != "requires"]
    return out
