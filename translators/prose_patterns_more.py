"""The wider catalogue (issue 24): length bounds, prefixes, character classes, membership, sums and counts,
idempotence, returns-unchanged, does-not-modify, adjective raises-when, state changes of methods, class
invariants, and docstring ``Args:`` entries. Each entry is ``(name, phrasing, template, worked example,
function)``; :mod:`prose_patterns` turns them into :class:`Rule` s after its own. A rule returns None when a
phrase inside the sentence is not understood (nothing is guessed).

Sentences reach these rules with their own target's mention rewritten to "The function"/"The method"
(:func:`evalgap.translators.prose_targets.engine_text`) and docstring section entries rewritten to
"Argument X: ...", "Attribute X: ...", "Returns ...", "Raises E if ..." (:mod:`prose_blocks`).
"""

from __future__ import annotations

import re
from typing import Callable

from evalgap.translators.prose_terms import Clause, Context

__all__ = ["MORE_RULES"]

_Fn = Callable[[str, Context], "list[Clause] | None"]
_SUBJ = r"(?:(?:the|this|it|its) (?:function|method|result|output|returned (?:value|string|list))|it|the result|the output)"
_SEQ_NOUN = r"(?:characters?|chars?|elements?|items?|entries|entry|values?|words?|letters?|scores?|levels?)"


def _seq_result(ctx: Context) -> bool:
    return ctx.sig.result_kind in ("str", "list", "tuple", "any")


def _bound(word: str) -> str:
    return {"at most": "<=", "no more than": "<=", "up to": "<=", "not more than": "<=", "at least": ">=",
            "no fewer than": ">=", "no less than": ">=", "exactly": "=="}[word.lower()]


def _length_bound(s: str, ctx: Context) -> list[Clause] | None:
    if not _seq_result(ctx):
        return None
    q = r"(at most|no more than|not more than|up to|at least|no fewer than|no less than|exactly)"
    m = (re.search(rf"\b(?:returns?|is|gives?|be)\s+(?:an? |the )?(?:\w+ )?(?:string|list|text|sequence|tuple)\s+"
                   rf"(?:of|with)\s+{q}\s+(.+?)\s+{_SEQ_NOUN}\b", s, re.I)
         or re.search(rf"\bwhose (?:length|size) is {q}\s+(.+?)(?:\s+{_SEQ_NOUN})?\.?$", s, re.I)
         or re.search(rf"^{_SUBJ}\s+(?:is|has|shall be|must be)\s+{q}\s+(.+?)\s+{_SEQ_NOUN}(?: long)?\.?$", s, re.I)
         or re.search(rf"\b(?:returns?|yields?|gives?)\s+{q}\s+(.+?)\s+{_SEQ_NOUN}\b", s, re.I)
         or re.search(rf"\b(?:returns?|is|gives?|be)\s+(?:an? |the )?(?:\w+ )?(?:string|list|text|sequence|tuple)\s+{q}\s+"
                      rf"(.+?)\s+{_SEQ_NOUN} long\b", s, re.I)
         or re.search(rf"^(?:the )?(?:length|size) of {_SUBJ} is {q}\s+(.+?)\.?$", s, re.I))
    if m:
        n = ctx.operand(m.group(2))
        return [Clause("ensures", f"len(result) {_bound(m.group(1))} {n}")] if n else None
    m = re.search(r"\bnever returns? an? (?:string|list|text|sequence) (longer|shorter) than (.+?)\.?$", s, re.I) or \
        re.search(rf"^{_SUBJ} is never (longer|shorter) than (.+?)\.?$", s, re.I) or \
        re.search(rf"^{_SUBJ} is (?:no|not) (longer|shorter) than (.+?)\.?$", s, re.I)
    if m:
        x = ctx.param(m.group(2), ("str", "list", "tuple"))
        n = f"len({x})" if x else ctx.operand(m.group(2))
        return [Clause("ensures", f"len(result) {'<=' if m.group(1).lower() == 'longer' else '>='} {n}")] if n else None
    return None


def _prefix(s: str, ctx: Context) -> list[Clause] | None:
    w = re.search(r"^(?:the result|the output|it|the returned \w+|the (?:\w+ )?(?:string|label|text|code|name|list))\s+"
                  r"(?:always |shall |must |will |should )*(starts?|begins?|ends?) with (?:the (?:given |input )?)?(\w+)\.?$",
                  s.strip(), re.I)
    if w and ctx.sig.result_kind in ("str", "any") and w.group(2) in [n for n, _ in ctx.sig.params] and \
            ctx.sig.kind_of(w.group(2)) in ("str", "any") and \
            not set(re.findall(r"\w+", s[:w.start(1)])) & {n for n, _ in ctx.sig.params}:
        meth = "startswith" if w.group(1).lower().startswith(("start", "begin")) else "endswith"
        return [Clause("ensures", f"result.{meth}({w.group(2)})")]
    m = re.search(rf"(?:^{_SUBJ} is|\breturns?) (?:a|the) (prefix|suffix|substring|sub-string|start|beginning|end) of "
                  rf"(?:the )?(?:given |input )?(.+?)\.?$", s, re.I)
    if not m or ctx.sig.result_kind not in ("str", "list", "any"):
        return None
    x = ctx.param(m.group(2), ("str", "list"))
    if not x:
        return None
    kind = m.group(1).lower()
    if kind in ("prefix", "start", "beginning"):
        return [Clause("ensures", f"result == {x}[:len(result)]")]
    if kind in ("suffix", "end"):
        return [Clause("ensures", f"len(result) == 0 or result == {x}[-len(result):]")]
    return [Clause("ensures", f"result in {x}")] if ctx.sig.kind_of(x) == "str" else None


def _unchanged(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^(?:if|when|whenever)\s+(.+?),\s*(?:then\s+)?(?:the (?:function|method) )?(?:shall |must |will )?"
                 r"returns?\s+(.+?)\s+(?:unchanged|unmodified|as is|as-is|itself)\.?$", s.strip(), re.I)
    if m:
        cond, x = ctx.condition(m.group(1)), ctx.param(m.group(2))
        return [Clause("ensures", f"({cond}) ==> result == {x}")] if cond and x else None
    m = re.search(r"\breturns?\s+(.+?)\s+(?:unchanged|unmodified|as is|as-is|itself)\s+(?:if|when|whenever)\s+(.+?)"
                  r"(?:,\s*(?:and )?otherwise\b.*)?\.?$", s, re.I)
    if m:
        cond, x = ctx.condition(m.group(2)), ctx.param(m.group(1))
        return [Clause("ensures", f"({cond}) ==> result == {x}")] if cond and x else None
    return None


def _sum(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("int", "float", "any"):
        return None
    m = re.search(rf"(?:^{_SUBJ} (?:is|equals|shall be|must be)|\breturns?|\bshall return|\bcomputes?)\s+the (?:total |"
                  r"arithmetic )?sum of (?:all |the )*(?:\w+ (?:of|in) (?:all |the )*)?(.+?)\.?$", s, re.I) or \
        re.search(r"^the (?:function|method) adds up (?:all |the )*(.+?)\.?$", s, re.I)
    if not m:
        return None
    phrase = m.group(1)
    if re.search(r"\bsum of (?:all |the )*(?:squares?|cubes?|digits?|products?|absolute|lengths?|logs?|"
                 r"logarithms?|reciprocals?|powers?|differences?)\b", s, re.I):
        return None  # the sum of something computed from each element
    if len(phrase.split()) > 4 or re.search(r"\b(that|which|where|whose|odd|even|positive|negative|squares?|cubes?|"
                                            r"digits?|first|last|except|if|when|with|at|in|positions?|greater|less|"
                                            r"unique|distinct|absolute|products?)\b", phrase, re.I):
        return None  # a sum over part of the collection, or of something computed from it: not sum(xs)
    xs = ctx.param(phrase, ("list", "tuple", "set"))
    if not xs or not re.search(r"\b(int|float)\b", dict(ctx.sig.params).get(xs, "")):
        return None
    return [Clause("ensures", f"result == sum({xs})")]


def _empty_gives(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^(?:an?|the) (empty|negative|zero|non-positive) (.+?) (gives|returns|yields|results in|raises|throws)"
                 r"\s+(?:an? )?(.+?)\.?$", s.strip(), re.I)
    if not m:
        return None
    adj, noun, verb, what = m.group(1).lower(), m.group(2), m.group(3).lower(), m.group(4)
    x = ctx.param(noun, ("list", "str", "dict", "tuple", "set") if adj == "empty" else ("int", "float"))
    if not x:
        return None
    cond = {"empty": f"len({x}) == 0", "negative": f"{x} < 0", "zero": f"{x} == 0", "non-positive": f"{x} <= 0"}[adj]
    if verb in ("raises", "throws"):
        exc = re.match(r"^(\w+(?:Error|Exception))\b", what)
        return [Clause("raises", f"{exc.group(1)} when {cond}")] if exc else None
    v = ctx.value(what)
    if v is None:
        return None
    return [Clause("ensures", f"({cond}) ==> " + ("result is None" if v == "None" else f"result == {v}"))]


def _idempotent(s: str, ctx: Context) -> list[Clause] | None:
    low = s.lower()
    if not (re.search(r"^(?:the function|it) (?:is|shall be|must be|should be|will be) idempotent\b", low) or re.search(
            r"\b(?:applying|calling) (?:the function|it) (?:twice|two times|again(?: on its (?:own )?result)?|on its own "
            r"result) (?:gives|returns|yields) the same (?:result|list|string|value)", low)):
        return None
    sig = ctx.sig
    if sig.kind != "function" or not sig.params or sig.params[0][1] != sig.returns:
        return None
    rest = "".join(f", {n}" for n, _ in sig.params[1:])
    return [Clause("ensures", f"{sig.name}(result{rest}) == result")]


def _elements_of(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(rf"^(?:every|each|all) (?:element|item|value|entry|member)s? (?:of|in) {_SUBJ} (?:is|are) (?:an? )?"
                  r"(?:element|item|value|entry|member)s? of (?:the )?(?:given |input )?(.+?)\.?$", s, re.I) or \
        re.search(rf"^{_SUBJ} (?:only )?contains only (?:elements|items|values) (?:of|from) (?:the )?(.+?)\.?$", s, re.I)
    if not m or ctx.sig.result_kind not in ("list", "tuple", "set", "any"):
        return None
    xs = ctx.param(m.group(1), ("list", "tuple", "set", "dict"))
    return [Clause("ensures", f"forall x in result: x in {xs}")] if xs else None


_CHARS = {"spaces": "c != \" \"", "space": "c != \" \"", "whitespace": "not c.isspace()", "digits": "not c.isdigit()",
          "uppercase letters": "not c.isupper()", "upper-case letters": "not c.isupper()"}
_ONLY = {"digits": "c.isdigit()", "letters": "c.isalpha()", "alphanumeric characters": "c.isalnum()",
         "lowercase letters": "c.islower()", "ascii characters": "ord(c) < 128"}


def _char_class(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("str", "any"):
        return None
    m = re.search(rf"(?:^{_SUBJ}|\breturns? a string that) (?:is|shall be|must be|will be) (?:in |all )?(lower|upper)[- ]?case\b",
                  s, re.I) or re.search(r"\breturns? an? (lower|upper)[- ]?case string\b", s, re.I)
    if m:
        return [Clause("ensures", f"result == result.{m.group(1).lower()}()")]
    m = re.search(rf"^{_SUBJ} (?:contains|has|shall contain|must contain|includes) no ([\w -]+?)\.?$", s, re.I)
    if m and m.group(1).lower() in _CHARS:
        return [Clause("ensures", f"forall c in result: {_CHARS[m.group(1).lower()]}")]
    m = re.search(rf"^{_SUBJ} (?:contains|consists of|shall contain|must contain) only ([\w -]+?)\.?$", s, re.I)
    if m and m.group(1).lower() in _ONLY:
        return [Clause("ensures", f"forall c in result: {_ONLY[m.group(1).lower()]}")]
    return None


def _case_conversion(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("str", "any"):
        return None
    m = re.search(r"^(?:(?:the function )?returns? (?:the )?(?:given )?(?:string|text)\s+|converts? (?:the )?(?:given )?(?:string |text )?"
                  r"(?:\w+ )?)(?:converted )?(?:in)?to (lower|upper)[- ]?case(?: (?:text|string|letters))?\b", s, re.I)
    if m and not re.search(r"\b(first|last|initial|each|every)\b", s, re.I):
        return [Clause("ensures", f"result == result.{m.group(1).lower()}()")]
    return None


def _index(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.result_kind not in ("int", "any") or not re.search(
            r"^(?:the function )?returns? (?:the )?(?:\w+ )?index\b.*\bor (?:``)?-1(?:``)?(?: if| when|$|\.)", s, re.I):
        return None
    return [Clause("ensures", "result >= -1")]


def _untouched(s: str, ctx: Context) -> list[Clause] | None:
    m = re.search(r"^(?:the )?(?:input |given )?(.+?) (?:is|are) (?:left )?(?:untouched|unchanged|unmodified|not modified|"
                  r"not changed|not mutated)\b", s, re.I)
    m = m or re.search(r"\b(?:shall |must |should |will )?leaves? (?:the )?(?:input |given )?(?:\w+ passed as )?(.+?) "
                       r"(?:untouched|unchanged|unmodified|as (?:it was|they were))\.?$", s, re.I)
    if not m:
        return None
    x = ctx.param(m.group(1), ("list", "dict", "set"))
    return [Clause("ensures", f"{x} == old({x})")] if x and not x.startswith("self.") else None


def _state_change(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.kind != "method":
        return None
    m = re.search(r"\b(?:shall |must |will |should )?(increases?|decreases?|raises?|reduces?|lowers?|adds?|subtracts?)\s+"
                  r"(?:the |its )?(\w+)\s+by\s+(.+?)\.?$", s, re.I)
    if m:
        attr = ctx.param(m.group(2))
        n = ctx.operand(m.group(3))
        if not attr or not attr.startswith("self.") or not n or ctx.sig.kind_of(attr) not in ("int", "float"):
            return None
        op = "+" if m.group(1).lower().startswith(("incr", "rais", "add")) else "-"
        return [Clause("ensures", f"{attr} == old({attr}) {op} {n}")]
    m = re.search(r"\b(?:the |its )?(\w+) (?:shall |must |will )?(?:contains?|has|have|holds?) exactly (one|1|two|2) "
                  r"(more|fewer|less) (?:entry|entries|elements?|items?|values?)\b", s, re.I)
    if m:
        attr = ctx.param(m.group(1))
        if not attr or not attr.startswith("self.") or ctx.sig.kind_of(attr) not in ("list", "dict", "set", "any"):
            return None
        k = {"one": "1", "two": "2"}.get(m.group(2).lower(), m.group(2))
        op = "+" if m.group(3).lower() == "more" else "-"
        return [Clause("ensures", f"len({attr}) == len(old({attr})) {op} {k}")]
    return None


_NEVER = {"negative": ">= 0", "positive": "<= 0", "zero": "!= 0", "empty": None}
_ALWAYS = {"non-negative": ">= 0", "nonnegative": ">= 0", "positive": "> 0", "negative": "< 0"}


def _invariant(s: str, ctx: Context) -> list[Clause] | None:
    if ctx.sig.kind != "class":
        return None
    m = re.match(r"^(?:the (?:object|class)'?s? |the |its |attribute )?(\w+)(?: of (?:the |a |an )?object)?[: ].*?\b"
                 r"(never|always|is never|is always|shall never be|must never be|shall always be|never becomes|stays)\s+"
                 r"(negative|positive|zero|non-negative|nonnegative|empty)\b", s.strip(), re.I)
    if not m:
        return None
    attr = ctx.param(m.group(1))
    if not attr or not attr.startswith("self."):
        return None
    word, adj = m.group(2).lower(), m.group(3).lower()
    if adj == "empty":
        return [Clause("invariant", f"len({attr}) > 0")] if "never" in word else None
    if ctx.sig.kind_of(attr) not in ("int", "float"):
        return None
    op = _NEVER.get(adj) if "never" in word else _ALWAYS.get(adj)
    return [Clause("invariant", f"{attr} {op}")] if op else None


def _arg_entry(s: str, ctx: Context) -> list[Clause] | None:
    m = re.match(r"^Argument (\w+): (.+)$", s.strip())
    if not m or ctx.sig.kind == "class":
        return None
    x = ctx.param(m.group(1))
    if x is None or x != m.group(1):
        return None
    desc = m.group(2).lower()
    if re.search(r"\b(?:must|should|shall) not be empty\b|\bnon-?empty\b", desc):
        if ctx.sig.kind_of(x) in ("list", "str", "dict", "tuple", "set"):
            return [Clause("requires", f"len({x}) > 0")]
    if ctx.sig.kind_of(x) in ("int", "float"):
        r = re.search(r"\b(?:must|should|shall) be at least (.+?) and at most (.+?)(?:[;,.]|$)", desc) or \
            re.search(r"\b(?:must|should|shall) (?:be|lie) (?:between|from|in the range(?: from)?) (.+?) (?:and|to) (.+?)"
                      r"(?:,? inclusive)?(?:[;,.]|$)", desc)
        if r:
            lo, hi = ctx.operand(r.group(1)), ctx.operand(r.group(2))
            if lo and hi and x not in (lo, hi):
                return [Clause("requires", f"{x} >= {lo}"), Clause("requires", f"{x} <= {hi}")]
        m = re.search(r"\b(?:must|should|shall) (?:be (?:at least|no less than|not (?:be )?(?:smaller|less) than)|"
                      r"not be (?:smaller|less) than) (.+?)(?:[;,.]|$)", desc) \
            or re.search(r"\b(?:must|should|shall) be (zero) or (?:more|greater)\b", desc) \
            or re.search(r"\b(?:must|should|shall) not be (negative)\b", desc)
        if m:
            bound = "0" if m.group(1) in ("zero", "negative") else ctx.operand(m.group(1))
            if bound and bound != x:
                return [Clause("requires", f"{x} >= {bound}")]
    for word, cond in (("non-negative", ">= 0"), ("nonnegative", ">= 0"), ("positive", "> 0")):
        if re.search(rf"(?:\b(?:must|should|shall) be (?:a )?|^(?:a |an )?){word}\b", desc) and \
                ctx.sig.kind_of(x) in ("int", "float"):
            return [Clause("requires", f"{x} {cond}")]
    return None


_E = ("", "", "")
MORE_RULES: tuple[tuple[str, str, str, tuple[str, str, str], _Fn], ...] = (
    ("length-bound", "returns a string|list of at most|at least <n> characters|elements; whose length is at most <n>; "
     "the result is at most <n> characters long; returns at most <n> elements; never returns a string longer than <x>",
     "ensures len(result) <= <n>  (>= for at least; len(<x>) for a parameter)",
     ("The result is at most max_length characters long.", "f(text: str, max_length: int) -> str",
      "len(result) <= max_length"), _length_bound),
    ("prefix", "the result is a prefix|suffix|substring of <x>", "ensures result == <x>[:len(result)] (suffix: "
     "result == <x>[-len(result):]; substring: result in <x>)",
     ("The result is a prefix of text.", "f(text: str, n: int) -> str", "result == text[:len(result)]"), _prefix),
    ("unchanged", "If <condition>, returns <x> unchanged; returns <x> unchanged if <condition>",
     "ensures (<condition>) ==> result == <x>",
     ("If the length of text is at most n, the function returns text unchanged.", "f(text: str, n: int) -> str",
      "(len(text) <= n) ==> result == text"), _unchanged),
    ("sum", "the result is|returns the sum of (the amounts of) all <list>; adds up <list> (int/float elements)",
     "ensures result == sum(<list>)",
     ("The result is the sum of all entries.", "f(entries: list[int]) -> int", "result == sum(entries)"), _sum),
    ("empty-gives", "An empty|negative|zero <param> gives|returns <value> | raises <Exc>",
     "ensures (len(<param>) == 0) ==> result == <value>; raises <Exc> when <param> < 0",
     ("An empty separator raises ValueError.", "f(text: str, separator: str) -> list[str]",
      "ValueError when len(separator) == 0"), _empty_gives),
    ("idempotent", "The function is idempotent; applying it twice gives the same result (result has the type of "
     "the first parameter)", "ensures f(result, <other params>) == result",
     ("The function is idempotent.", "norm(s: str) -> str", "norm(result) == result"), _idempotent),
    ("elements-of", "every element of the result is an element of <list>; the result contains only elements of <list>",
     "ensures forall x in result: x in <list>",
     ("Every element of the result is an element of items.", "f(items: list[int]) -> list[int]",
      "forall x in result: x in items"), _elements_of),
    ("char-class", "returns a lowercase|uppercase string; the result contains no spaces|whitespace|digits; contains only "
     "digits|letters|alphanumeric characters", "ensures result == result.lower(); ensures forall c in result: <test>",
     ("The result contains no spaces.", "f(title: str) -> str", "forall c in result: c != \" \""), _char_class),
    ("case-conversion", "returns the string converted to lower|upper case; converts <text> to lower|upper case (not "
     "for the first/each character only)", "ensures result == result.lower()  (upper())",
     ("Converts the given text to lower case.", "f(text: str) -> str", "result == result.lower()"), _case_conversion),
    ("index-or-minus-one", "returns the index of ... or -1 if not found", "ensures result >= -1",
     ("Returns index of found item or -1 if not found.", "f(xs: list[int], v: int) -> int", "result >= -1"),
     _index),
    ("untouched", "<param> is left untouched|unchanged|unmodified", "ensures <param> == old(<param>)",
     ("The input list is left untouched.", "f(levels: list[int], k: int) -> list[int]", "levels == old(levels)"),
     _untouched),
    ("state-change", "(method) shall increase|decrease <attribute> by <n>; <attribute> shall contain exactly one more|"
     "fewer entry", "ensures self.<a> == old(self.<a>) + <n>; ensures len(self.<a>) == len(old(self.<a>)) + 1",
     ("The method shall increase the balance by amount.", "W.deposit(amount: int) -> None; balance: int",
      "self.balance == old(self.balance) + amount"), _state_change),
    ("invariant", "(class) <attribute> shall never be negative; <attribute>: ..., never negative; <attribute> is always "
     "positive", "invariant self.<a> >= 0  (> 0, <= 0, len(self.<a>) > 0 for never empty)",
     ("The object balance shall never be negative.", "W(owner: str) -> None; balance: int", "self.balance >= 0"),
     _invariant),
    ("arg-entry", "docstring Args entry: <param>: ...; must be non-negative|positive|not be empty",
     "requires <param> >= 0 | > 0 | len(<param>) > 0",
     ("Argument n: How many to keep; must be non-negative.", "f(xs: list[int], n: int) -> list[int]", "n >= 0"),
     _arg_entry),
)
