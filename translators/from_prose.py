"""Draft a ``.req`` spec from prose requirements (the offline pattern engine and the draft model).

Pipeline: :func:`load_units` reads Markdown/plain text (bound to a target function) or a Python module
whose docstrings are the prose → :mod:`prose_split` gives sentences and examples → an engine proposes
clauses for each sentence (:func:`pattern_engine` here, :mod:`llm_client` for a language model) → every
clause is linted on its own (parse, structure, translation) → :func:`render_req` writes the spec, where
every sentence is a requirement, with formal clauses or ``informal CATEGORY "reason"``, and every example
is an ``example`` requirement. Validation against examples and a reference runs in the verifier
(:mod:`evalgap.verifier.authoring.author`), since it executes code.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from evalgap.specs_lang import SpecError, parse
from evalgap.specs_lang.check import check_spec
from evalgap.translators.errors import TranslationError
from evalgap.translators.prose_patterns import SIGNATURE_ONLY_RULES, is_worked_example, match_rules
from evalgap.translators.prose_split import ProseExample, Sentence, segment_text
from evalgap.translators.prose_terms import Clause, Context, Signature
from evalgap.specs_lang.textfile import MAX_TEXT_BYTES, read_text

__all__ = ["ProseUnit", "DraftRequirement", "Draft", "load_units", "signature_of", "pattern_engine",
           "draft_spec", "render_req", "lint_clause", "lint_text", "ProseInputError", "Proposal", "Engine"]


class ProseInputError(TranslationError, ValueError):
    """The prose input cannot be read or bound to a target function (a usage error)."""


@dataclass(frozen=True)
class ProseUnit:
    """The prose of one target function.

    Attributes:
        sig: the function's signature.
        sentences: its requirement sentences, in order.
        examples: its examples (doctests and inline forms).
        headers: example headers with no content of their own.
        prefix: the ID prefix for generated IDs.
    """

    sig: Signature
    sentences: tuple[Sentence, ...]
    examples: tuple[ProseExample, ...]
    headers: tuple[str, ...]
    prefix: str


@dataclass(frozen=True)
class Proposal:
    """An engine's answer for one sentence: clauses (each with the rule or model that produced it), or why
    none: ``informal`` is ``(category, reason)``."""

    clauses: tuple[tuple[str, Clause], ...] = ()
    informal: tuple[str, str] | None = None


#: An engine maps (sentence text, signature, examples) to a :class:`Proposal`.
Engine = Callable[[str, Signature, Sequence[ProseExample]], Proposal]


@dataclass(frozen=True)
class DraftRequirement:
    """One requirement of the draft.

    Attributes:
        id: requirement ID (kept from the text or generated).
        prose: the sentence (or the example's text).
        clauses: formal clauses with their producing rule/model, ``(rule, Clause)``.
        informal: ``(category, reason)`` when not formalized.
        example: the example, for ``example`` requirements.
        rejected: ``(clause text, reason)`` of clauses dropped by lint or validation.
        line: line of the input it came from.
    """

    id: str
    prose: str
    clauses: tuple[tuple[str, Clause], ...] = ()
    informal: tuple[str, str] | None = None
    example: ProseExample | None = None
    rejected: tuple[tuple[str, str], ...] = ()
    line: int = 0

    @property
    def rules(self) -> tuple[str, ...]:
        """The distinct rules/models that produced the clauses."""
        return tuple(dict.fromkeys(r for r, _ in self.clauses))

    @property
    def signature_only(self) -> bool:
        """True when every clause comes from a rule the signature alone implies."""
        return bool(self.clauses) and all(r in SIGNATURE_ONLY_RULES for r, _ in self.clauses)


@dataclass(frozen=True)
class Draft:
    """A drafted spec: per function, its requirements; ``notes`` go into the header comment."""

    name: str
    title: str
    target: str | None
    functions: tuple[tuple[Signature, tuple[DraftRequirement, ...]], ...]
    notes: tuple[str, ...] = field(default=())

    def requirements(self) -> list[DraftRequirement]:
        """Every requirement, in order."""
        return [r for _, reqs in self.functions for r in reqs]


_TYPE_MAP = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset"}


def _type_text(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    text = ast.unparse(node)
    for k, v in _TYPE_MAP.items():
        text = re.sub(rf"\b{k}\b", v, text)
    text = text.replace("typing.", "")
    if "|" in text or "..." in text or "Callable" in text:
        return "Any"
    return text


def _literal_type(values: list[Any]) -> str | None:
    kinds = {type(v) for v in values}
    if not kinds or len(kinds) > 1 and kinds != {int, float}:
        return None
    if kinds == {int, float}:
        return "float"
    t = kinds.pop()
    if t in (int, float, str, bool):
        return t.__name__
    if t in (list, tuple, dict, set):
        inner = [x for v in values for x in v] if t is not dict else [x for v in values for x in v.keys()]
        it = _literal_type(inner)
        if t is dict:
            vt = _literal_type([x for v in values for x in v.values()])
            return f"dict[{it}, {vt}]" if it and vt else "dict[Any, Any]"
        if t is tuple:
            return "tuple"
        return f"{t.__name__}[{it}]" if it else f"{t.__name__}[Any]"
    if t is type(None):
        return None
    return None


def signature_of(fn: ast.FunctionDef, examples: Sequence[ProseExample] = ()) -> Signature:
    """The :class:`Signature` of a parsed function: annotations translated to spec syntax (``List`` →
    ``list``), missing ones inferred from the examples' literal values, else ``Any``."""
    params = []
    for i, a in enumerate(fn.args.args):
        t = _type_text(a.annotation)
        if t in (None, "list", "dict", "tuple", "set"):
            inferred = _literal_type([e.args[i] for e in examples if len(e.args) > i])
            t = inferred or ({"list": "list[Any]", "dict": "dict[Any, Any]"}.get(t or "", t) or "Any")
        params.append((a.arg, t))
    ret = _type_text(fn.returns)
    if ret in (None, "list", "dict", "tuple"):
        ret = _literal_type([e.expected for e in examples]) or ret
    return Signature(fn.name, tuple(params), ret)


def _prefix(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", name).upper()[:12] or "REQ"


def _units_from_python(source: str, path: str, only: str | None) -> list[ProseUnit]:
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise ProseInputError(f"{path}: not valid Python ({exc.msg}, line {exc.lineno})") from exc
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    units = []
    for fn in fns:
        if only and fn.name != only:
            continue
        doc = ast.get_docstring(fn) or next(
            (inspect.cleandoc(st.value.value) for st in fn.body if isinstance(st, ast.Expr)
             and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str)), None)
        if not doc:
            continue
        sentences, examples, headers = segment_text(doc, fn.name)
        units.append(ProseUnit(signature_of(fn, examples), tuple(sentences), tuple(examples), tuple(headers),
                               _prefix(fn.name)))
    if not units:
        what = f"function {only}" if only else "a function"
        raise ProseInputError(f"{path}: no docstring of {what} to draft from")
    return units


def _target_function(target: Path, only: str | None) -> ast.FunctionDef:
    try:
        tree = ast.parse(read_text(target, "target", MAX_TEXT_BYTES), filename=str(target))
    except (OSError, SyntaxError) as exc:
        raise ProseInputError(f"target {target}: {exc}") from exc
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
    if only:
        fns = [f for f in fns if f.name == only]
    if len(fns) != 1:
        names = ", ".join(f.name for f in fns) or "none"
        raise ProseInputError(f"target {target}: cannot tell which function the prose is about (public functions: "
                              f"{names}); pass --function NAME")
    return fns[0]


def load_units(input_path: Path, target: Path | None = None, function: str | None = None) -> list[ProseUnit]:
    """Read prose: a ``.py`` file (its function docstrings), or Markdown/plain text bound to one function of
    ``target`` (a ``.py`` file, parsed, never imported).

    Raises:
        ProseInputError: unreadable input, no docstring, or no single function to bind the prose to.
    """
    source = read_text(input_path, "prose", MAX_TEXT_BYTES)  # EG100/EG107 with file, line, column, offset
    if input_path.suffix == ".py":
        return _units_from_python(source, str(input_path), function)
    if target is None:
        sig = Signature(function or "f", (), None)
        sentences, examples, headers = segment_text(source, function)
        return [ProseUnit(sig, tuple(sentences), tuple(examples), tuple(headers), _prefix(input_path.stem))]
    fn = _target_function(target, function)
    sentences, examples, headers = segment_text(source, fn.name)
    return [ProseUnit(signature_of(fn, examples), tuple(sentences), tuple(examples), tuple(headers),
                      _prefix(input_path.stem))]


def _unmatched_category(sentence: str) -> tuple[str, str]:
    low = sentence.lower()
    if is_worked_example(sentence):
        return "omission", "a worked example in prose, not a closed call with its result (not turned into an example)"
    if re.search(r"\b(assume|will be|guaranteed|constraint|input is|you may)\b", low):
        return "environment", "an assumption about the input that the pattern catalogue could not formalize"
    if re.search(r"\b(efficient|fast|quickly|recursion|algorithm|implement|write a function)\b", low):
        return "unobservable", "about how the code is written, not about its input/output behaviour"
    return "omission", "no catalogue pattern matched this phrasing (pattern engine)"


def pattern_engine(sentence: str, sig: Signature, examples: Sequence[ProseExample] = ()) -> Proposal:
    """The offline, deterministic engine: the catalogue of :mod:`prose_patterns` bound to ``sig``."""
    found = match_rules(sentence, Context(sig))
    if found:
        return Proposal(tuple(found))
    return Proposal(informal=_unmatched_category(sentence))


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _lit(value: Any) -> str:
    return repr(value)


def example_clause(sig: Signature, ex: ProseExample) -> str:
    """The ``example`` clause text for an example (floats compared with a relative tolerance of 1e-6)."""
    call = f"{sig.name}({', '.join(_lit(a) for a in ex.args)})"
    if isinstance(ex.expected, float):
        return f"abs({call} - {_lit(ex.expected)}) <= 1e-06 * max(1.0, abs({_lit(ex.expected)}))"
    return f"{call} == {_lit(ex.expected)}"


def _function_header(sig: Signature) -> str:
    params = ", ".join(f"{n}: {t}" for n, t in sig.params)
    ret = f" -> {sig.returns}" if sig.returns else ""
    return f"function {sig.name}({params}){ret}"


def _req_lines(r: DraftRequirement, sig: Signature) -> list[str]:
    out = []
    if r.rules:
        out.append(f"  # rule: {', '.join(r.rules)}")
    for text, why in r.rejected:
        out.append(f"  # rejected: {text}  ({why})")
    out.append(f"  requirement {r.id} {_q(r.prose)}")
    if r.example is not None:
        out.append(f"    example {example_clause(sig, r.example)}")
    elif r.clauses:
        out += [f"    {c.kind} {c.text}" for _, c in r.clauses]
    else:
        cat, reason = r.informal or ("omission", "not formalized")
        out.append(f"    informal {cat} {_q(reason)}")
    return out


def render_req(draft: Draft) -> str:
    """The ``.req`` text of a draft (a header comment with the notes, then one function block per
    function; each requirement is preceded by a comment naming the rule or model that produced it)."""
    lines = [f"# {n}" for n in draft.notes]
    lines.append(f"spec {draft.name} {_q(draft.title)}")
    if draft.target:
        lines.append(f"  target: {draft.target}")
    for sig, reqs in draft.functions:
        lines += ["", _function_header(sig)]
        for r in reqs:
            lines += _req_lines(r, sig)
    return "\n".join(lines) + "\n"


def lint_text(text: str, file: str = "<draft>", signatures: object = None) -> str | None:
    """Parse, check (structure, names and types; against the target's signatures when given, as
    ``evalgap lint`` does) and translate spec text; return the diagnostic text, or None if clean.

    Args:
        text: the spec text; file: its name in diagnostics; signatures: a
            :class:`evalgap.specs_lang.signatures.ModuleSig` or None.

    Translation (:func:`evalgap.translators.to_icontract.build_harness`) is included because a clause that
    parses but cannot be compiled would make ``evalgap check`` report it ``unknown``.
    """
    from evalgap.translators.to_icontract import build_harness

    try:
        spec = parse(text, file)
        check_spec(spec, text, signatures)
        harness = build_harness(spec, "evalgap_lint_target")
    except SpecError as exc:
        return exc.render()
    except TranslationError as exc:
        return f"{type(exc).__name__}: {exc}"
    bad = [o for o in harness.obligations if o.kind == "unsupported"]
    return f"unsupported: {bad[0].reason}" if bad else None


def lint_clause(sig: Signature, clause: Clause, signatures: object = None) -> str | None:
    """Lint one clause in a one-requirement spec over ``sig`` (and the target's ``signatures`` when given);
    the diagnostic text, or None when clean."""
    probe = DraftRequirement("PROBE-1", "probe", (("probe", clause),))
    text = render_req(Draft("probe", "probe", None, ((sig, (probe,)),)))
    return lint_text(text, signatures=signatures)


def draft_spec(units: Sequence[ProseUnit], engine: Engine = pattern_engine, name: str = "drafted",
               title: str = "", target: str | None = None, notes: Sequence[str] = (),
               signatures: object = None) -> Draft:
    """Run ``engine`` on every sentence and build a :class:`Draft` where every sentence is a requirement.

    ``signatures`` are the target's (for :func:`lint_clause`). A clause that fails :func:`lint_clause` is dropped and recorded in ``rejected``; a sentence left with no
    clause becomes ``informal``. Examples become ``example`` requirements after the sentences.
    """
    funcs = []
    used: set[str] = set()
    for unit in units:
        reqs: list[DraftRequirement] = []
        n = 0

        def next_id(given: str | None) -> str:
            nonlocal n
            if given and given not in used:
                used.add(given)
                return given
            while True:
                n += 1
                cand = f"{unit.prefix}-{n}"
                if cand not in used:
                    used.add(cand)
                    return cand

        for s in unit.sentences:
            prop = engine(s.text, unit.sig, unit.examples)
            keep, rejected = [], []
            for rule, c in prop.clauses:
                problem = lint_clause(unit.sig, c, signatures)
                if problem:
                    rejected.append((f"{c.kind} {c.text}", "lint: " + problem.splitlines()[0][:160]))
                else:
                    keep.append((rule, c))
            informal = prop.informal
            if not keep and informal is None:
                informal = ("omission", "every proposed clause was rejected by lint")
            reqs.append(DraftRequirement(next_id(s.given_id), s.text, tuple(keep), None if keep else informal,
                                         None, tuple(rejected), s.line))
        header = re.sub(r"\W+$", "", unit.headers[0]) + ": " if unit.headers else ""
        for ex in unit.examples:
            reqs.append(DraftRequirement(next_id(None), f"{header}{ex.text}", example=ex))
        funcs.append((unit.sig, tuple(reqs)))
    return Draft(name, title or f"Drafted from prose: {', '.join(u.sig.name for u in units)}", target,
                 tuple(funcs), tuple(notes))


def with_requirement(draft: Draft, req: DraftRequirement) -> Draft:
    """A copy of ``draft`` with the requirement of the same ID replaced by ``req``."""
    funcs = tuple((sig, tuple(req if r.id == req.id else r for r in reqs)) for sig, reqs in draft.functions)
    return replace(draft, functions=funcs)
