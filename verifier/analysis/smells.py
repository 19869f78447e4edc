"""Requirement smells: rule-based detection of wording that makes a prose requirement hard to verify.

The catalogue follows ISO/IEC/IEEE 29148:2018, section 5.2.7 ("requirements language criteria": avoid
superlatives, subjective language, vague pronouns, ambiguous adverbs and adjectives, open-ended
non-verifiable terms, comparative phrases, loopholes and negative statements) and the requirements-smells
literature: Femmer, Méndez Fernández, Wagner, Eder, "Rapid quality assurance with Requirements Smells",
Journal of Systems and Software 123 (2017), whose Smella tool detects subjective language, ambiguous
adverbs/adjectives, loopholes, open-ended terms, superlatives, comparatives, negative statements, vague
pronouns and incomplete references; and Berry, Kamsties, Krieger, "From contract drafting to software
specification: linguistic sources of ambiguity" (2003) for weak modals ("should", "may") and passive voice.
Details, the word lists and measured precision: docs/smells.md.

Detection is deliberately simple (word lists and a few local patterns; no language model): each rule is a
hint for a person, with the phrase and its span, not a verdict.

| code                  | what                                                        | example          |
|-----------------------|-------------------------------------------------------------|------------------|
| ``vague-term``        | subjective or ambiguous adjective/adverb, loophole          | "fast", "as appropriate" |
| ``open-ended``        | open-ended list                                             | "etc.", "and so on" |
| ``unbounded-universal`` | always/never/all/every/any with no scope in the sentence  | "Never expose ..." |
| ``comparative``       | comparative with no reference ("than ...")                  | "faster"         |
| ``passive-no-actor``  | passive voice with no "by ..." actor                        | "was never written" |
| ``missing-unit``      | a number bounding a quantity with no unit                   | "within 200"     |
| ``weak-modal``        | "should", "may", "might", "could" where shall/must is meant | "should return"  |
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from evalgap.specs_lang.diagnostics import (SMELL_COMPARATIVE, SMELL_MISSING_UNIT, SMELL_OPEN_ENDED,
                                            SMELL_PASSIVE_NO_ACTOR, SMELL_UNBOUNDED_UNIVERSAL, SMELL_VAGUE_TERM,
                                            SMELL_WEAK_MODAL, codes_of)
from evalgap.translators.prose_split import sentence_spans
from evalgap.verifier.findings import Smell

__all__ = ["find_smells", "SMELL_CODES"]

#: Smell code -> one-line description (also used by docs/verdicts.md and the HTML legend): a view of
#: :data:`evalgap.specs_lang.diagnostics.REGISTRY`, where smells are added.
SMELL_CODES: dict[str, str] = {c: d.title for c, d in codes_of("smell").items()}

_VAGUE = (
    "fast", "quick", "quickly", "slow", "slowly", "user-friendly", "user friendly", "easy", "easily",
    "simple", "simply", "appropriate", "appropriately", "as appropriate", "adequate", "adequately",
    "sufficient", "sufficiently", "efficient", "efficiently", "reasonable", "reasonably", "normal",
    "normally", "robust", "flexible", "intuitive", "seamless", "seamlessly", "timely", "as needed",
    "fast enough", "good enough", "large enough", "small enough", "if possible", "where possible",
    "as far as possible", "if necessary", "when necessary", "enough",
    "good", "well", "acceptable", "significant", "significantly", "minimal", "optimal", "optimally",
    "best", "state-of-the-art", "high-performance", "performant", "scalable", "secure", "securely",
    "reliable", "reliably", "clean", "nice", "properly", "correctly", "gracefully",
    "large", "small", "huge", "many", "few", "several", "various", "usually", "generally",
    "typically", "mostly", "almost", "approximately", "roughly", "similar",
)
_OPEN_ENDED = ("etc.", "etc", "and so on", "and so forth", "and the like", "including but not limited to",
               "but not limited to", "among others", "or similar", "and/or")
_UNIVERSAL = ("always", "never", "all", "none", "nothing", "everything", "anything", "no one", "at all times",
              "in all cases", "under all circumstances")
#: Words that give a sentence a scope, so a universal in it is bounded ("for each key written with put").
_SCOPE = re.compile(r"\b(if|when|whenever|after|before|while|unless|until|once|given|where|within|"
                    r"during|for (each|every|all|any)|of (the|a|its|this)|in (the|a|its)|that|which|whose|"
                    r"with)\b", re.I)
_COMPARATIVE = ("faster", "slower", "better", "worse", "more", "less", "fewer", "larger", "smaller", "higher",
                "lower", "greater", "bigger", "cheaper", "easier", "simpler", "safer", "stronger", "weaker",
                "longer", "shorter", "quicker", "sooner", "later", "earlier")
_BE = r"(?:is|are|was|were|be|been|being)"
_IRREGULAR = ("written", "given", "taken", "done", "made", "seen", "known", "shown", "kept", "sent", "read",
              "set", "put", "held", "found", "built", "run", "thrown", "chosen", "stored", "lost", "left",
              "hidden", "broken", "driven", "forgotten", "begun", "spent", "split", "cut", "hit", "let",
              "meant", "paid", "sold", "told", "understood", "won", "bound", "fed", "led", "met")
_PASSIVE = re.compile(rf"\b{_BE}\s+(?:(?:not|never|always|also|only|then|still|already|\w+ly)\s+)*"
                      rf"((?:\w+ed)|(?:{'|'.join(_IRREGULAR)}))\b", re.I)
#: Participles that read as adjectives after "be" (state, not action): not passive for this rule.
_ADJECTIVAL = {"used", "based", "allowed", "required", "supposed", "interested", "concerned", "sorted",
               "related", "needed", "limited", "expected", "called", "named", "fixed", "tested", "advised",
               "balanced", "nested", "closed", "opened", "empty", "red", "bed", "shed", "need", "speed",
               "feed", "seed", "breed", "embed", "proceed", "exceed", "succeed"}
_WEAK_MODAL = re.compile(r"\b(should|may|might|could)\b", re.I)
#: "may/might" stating what the input can be or what the reader may assume: permission or possibility,
#: not a weakened obligation.
_POSSIBILITY = re.compile(r"^\s+(not\s+)?(assume|contain|be|have|include|appear|occur|vary|differ)\b", re.I)
#: Participles that define or presuppose rather than describe an action with a missing actor.
_DEFINITIONAL = {"defined", "considered", "given", "guaranteed", "assumed", "known", "called", "represented",
                 "denoted", "satisfied", "met", "tasked"}
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.]*\w)")
_UNITS = re.compile(r"^\s*(%|percent|ms|milliseconds?|s|sec|seconds?|minutes?|min|hours?|h|days?|weeks?|"
                    r"months?|years?|us|µs|ns|microseconds?|nanoseconds?|b|bytes?|kb|kib|mb|mib|gb|gib|tb|"
                    r"bits?|characters?|chars?|items?|elements?|entries|entry|keys?|values?|requests?|"
                    r"operations?|ops|times|users?|clients?|connections?|records?|rows?|digits?|words?|"
                    r"lines?|files?|°c|°f|m|km|cm|mm|kg|g|hz|khz|mhz|ghz|v|w|kw|a|per)\b", re.I)
#: Words before a number that make it a physical quantity (time, size, rate), so it needs a unit.
_QUANTITY_CUE = re.compile(r"\b(within|timeout|latency|delay|deadline|memory|throughput|bandwidth|duration|"
                           r"kept for|retained for|stored for|every|after|respond(?:s)? in|takes?|wait(?:s)?)"
                           r"\s+(?:\w+\s+){0,2}$", re.I)


def _words(phrases: tuple[str, ...]) -> re.Pattern[str]:
    alts = sorted({re.escape(p) for p in phrases}, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(alts) + r")(?![\w-])", re.I)


_VAGUE_RE = _words(_VAGUE)
_OPEN_RE = re.compile(r"(?<![\w-])(" + "|".join(sorted((re.escape(p) for p in _OPEN_ENDED), key=len,
                                                         reverse=True)) + r")(?![\w])", re.I)
_UNIVERSAL_RE = _words(_UNIVERSAL)
_COMPARATIVE_RE = _words(_COMPARATIVE)


def _in_code(text: str, pos: int) -> bool:
    """True inside a backquoted code span or a quoted literal (``'etc'``), which are not prose."""
    return text[:pos].count("`") % 2 == 1 or text[:pos].count('"') % 2 == 1


def _sentence_smells(text: str, s: int, e: int) -> Iterator[Smell]:
    sent = text[s:e]

    def smell(code: str, m: re.Match[str], group: int = 1, extra: str = "") -> Smell:
        a, b = s + m.start(group), s + m.end(group)
        return Smell(code, text[a:b], a, b, f"{SMELL_CODES[code]}{extra}")

    open_spans: list[tuple[int, int]] = []
    for m in _OPEN_RE.finditer(sent):
        if not _in_code(sent, m.start()):
            open_spans.append((m.start(), m.end()))
            yield smell(SMELL_OPEN_ENDED, m)
    for m in _VAGUE_RE.finditer(sent):
        word = m.group(1).lower()
        if _in_code(sent, m.start()) or any(a <= m.start() < b for a, b in open_spans):
            continue
        after = sent[m.end():]
        if re.search(rf"\b(is|are|be)\s+(\w+\s+){{0,3}}{re.escape(word)}(\s+\w+){{0,3}}\s+(if|iff|when)\b", text,
                     re.I):
            continue  # the prose defines the term ("a string is good if ...")
        if word in ("well",) and not re.match(r"[\s-]+(defined|formed|known|tested|behaved)", after):
            continue  # "as well as" is a conjunction, not vagueness
        if word in ("some", "many", "few", "several", "large", "small") and re.match(r"\s+(of the|than)\b",
                                                                                    after):
            continue
        if word == "many" and re.search(r"\bhow\s+$", sent[:m.start()], re.I):
            continue  # "how many" asks for a count
        yield smell(SMELL_VAGUE_TERM, m)
    for m in _UNIVERSAL_RE.finditer(sent):
        if _in_code(sent, m.start()):
            continue
        word = m.group(1)
        if word == "None" and m.start() > 0:
            continue  # Python's None, not "none"
        if word.lower() == "all" and (re.search(r"\b(of|in|for|over|to|from|between|among|on)\s+(the\s+)?$",
                                                sent[:m.start()], re.I) or re.match(r"\s+of\b", sent[m.end():])):
            continue  # "the product of all factors", "all of the keys": the set is named
        rest = sent[:m.start()] + sent[m.end():]
        if re.search(r"\bassum", rest, re.I):
            continue  # "assume the input is always valid": an assumption about the input, scoped to it
        if _SCOPE.search(rest):
            continue
        yield smell(SMELL_UNBOUNDED_UNIVERSAL, m)
    for m in _COMPARATIVE_RE.finditer(sent):
        if _in_code(sent, m.start()):
            continue
        after = sent[m.end():]
        if re.search(r"\bthan\b", after) or re.match(r"\s+(or equal|of|one)\b", after):
            continue
        if m.group(1).lower() in ("more", "less", "fewer") and re.match(r"\s+(than|or)\b", after):
            continue
        if re.search(r"\b(the|a)\s+$", sent[:m.start()], re.I) or re.match(r"\s+(number|one|value|element|"
                                                                          r"item|half|part)s?\b", after):
            continue  # "the larger of", "(smaller number, larger number)": the reference is in the phrase
        if m.group(1).lower() in ("later", "earlier") and re.search(r"\b(than|after|before)\b", after):
            continue
        yield smell(SMELL_COMPARATIVE, m)
    for m in _PASSIVE.finditer(sent):
        part = m.group(1).lower()
        if part in _ADJECTIVAL or part in _DEFINITIONAL or _in_code(sent, m.start()):
            continue
        if re.search(r"\b(you|we)\s+(\w+\s+){0,2}$", sent[:m.start()], re.I):
            continue  # "you are given", "you will be given": addresses the reader, not the system
        if re.search(r"\bby\b", sent[m.end():]):
            continue
        if re.search(r"\b(can|could|cannot)\s+$", sent[:m.start()], re.I):
            continue  # "can be decomposed": a statement of possibility, not an action whose actor is missing
        yield Smell(SMELL_PASSIVE_NO_ACTOR, text[s + m.start():s + m.end()], s + m.start(), s + m.end(),
                    SMELL_CODES[SMELL_PASSIVE_NO_ACTOR])
    for m in _NUMBER.finditer(sent):
        if _in_code(sent, m.start()) or not _QUANTITY_CUE.search(sent[:m.start()]):
            continue
        if _UNITS.match(sent[m.end():]):
            continue
        yield smell(SMELL_MISSING_UNIT, m)
    for m in _WEAK_MODAL.finditer(sent):
        if _in_code(sent, m.start()):
            continue
        if m.group(1).lower() in ("may", "might") and (_POSSIBILITY.match(sent[m.end():])
                                                        or re.search(r"\byou\s+$", sent[:m.start()], re.I)):
            continue
        yield smell(SMELL_WEAK_MODAL, m)


def find_smells(prose: str) -> tuple[Smell, ...]:
    """Every requirement smell in ``prose``, ordered by position.

    Args:
        prose: a requirement's text (one or more sentences).

    Returns:
        Frozen :class:`~evalgap.verifier.findings.Smell` records whose ``start``/``end`` index ``prose``
        (``prose[start:end] == phrase``). Overlapping smells of different kinds are all reported.
    """
    out: list[Smell] = []
    for s, e in sentence_spans(prose):
        out.extend(_sentence_smells(prose, s, e))
    return tuple(sorted(out, key=lambda sm: (sm.start, sm.code)))
