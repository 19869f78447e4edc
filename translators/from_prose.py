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
import builtins
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from evalgap.translators.errors import TranslationError
from evalgap.translators.prose_match import is_worked_example, match_rules
from evalgap.translators.prose_split import ProseExample, Sentence, segment_text
from evalgap.translators.prose_draft import (Draft, DraftRequirement, Engine, Proposal, ProseUnit, example_clause,
                                             lint_clause, lint_pairs, lint_text, render_req)
from evalgap.translators.prose_targets import (ModuleTargets, by_heading_words, by_parameters, defaults_of,
                                               engine_text, is_generator, mentions, read_targets, resolve, type_text,
                                               with_reexports)
from evalgap.translators.prose_terms import Clause, Context, Signature
from evalgap.specs_lang.textfile import MAX_TEXT_BYTES, read_text

__all__ = ["ProseUnit", "DraftRequirement", "Draft", "load_units", "signature_of", "pattern_engine",
           "draft_spec", "render_req", "lint_clause", "lint_text", "ProseInputError", "Proposal", "Engine",
           "example_clause", "target_file", "AMBIGUOUS_REASON", "with_requirement"]


class ProseInputError(TranslationError, ValueError):
    """The prose input cannot be read or bound to a target function (a usage error)."""


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
        t = type_text(a.annotation)
        if t in (None, "list", "dict", "tuple", "set"):
            inferred = _literal_type([e.args[i] for e in examples if len(e.args) > i])
            t = inferred or ({"list": "list[Any]", "dict": "dict[Any, Any]"}.get(t or "", t) or "Any")
        params.append((a.arg, t))
    ret = type_text(fn.returns)
    if ret in (None, "list", "dict", "tuple"):
        ret = _literal_type([e.expected for e in examples]) or ret
    return Signature(fn.name, tuple(params), ret, defaults=defaults_of(fn, False), generator=is_generator(fn))


def _prefix(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", name).upper()[:12] or "REQ"


def _docstring(node: ast.FunctionDef | ast.ClassDef) -> str | None:
    """The docstring, or the first string statement of the body (HumanEval prompts after an import)."""
    return ast.get_docstring(node) or next(
        (inspect.cleandoc(st.value.value) for st in node.body if isinstance(st, ast.Expr)
         and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str)), None)


def _nodes(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.ClassDef]:
    """Functions, classes and ``Class.method`` nodes of a module by qualified name."""
    out: dict[str, ast.FunctionDef | ast.ClassDef] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        if isinstance(node, ast.ClassDef):
            out.update({f"{node.name}.{f.name}": f for f in node.body if isinstance(f, ast.FunctionDef)})
    return out


def _units_from_python(source: str, path: str, only: str | None) -> list[ProseUnit]:
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise ProseInputError(f"{path}: not valid Python ({exc.msg}, line {exc.lineno})") from exc
    nodes = _nodes(tree)
    units = []
    for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:  # private functions too (HumanEval)
        if only and fn.name != only:
            continue
        doc = _docstring(fn)
        if doc:
            sentences, examples, headers = segment_text(doc, fn.name)
            units.append(ProseUnit(signature_of(fn, examples), tuple(sentences), tuple(examples), tuple(headers),
                                   _prefix(fn.name)))
    for sig in read_targets(tree, only).targets:
        if sig.kind == "function":
            continue
        node = nodes.get(sig.qualname)
        doc = _docstring(node) if node is not None else None
        if doc:
            sentences, examples, headers = segment_text(doc, None)
            units.append(ProseUnit(sig, tuple(_bind(s, sig, ModuleTargets((sig,))) for s in sentences), (),
                                   tuple(headers), _prefix(sig.qualname.replace(".", "_"))))
    if not units:
        what = f"function {only}" if only else "a function"
        raise ProseInputError(f"{path}: no docstring of {what} to draft from")
    return units


def target_file(target: Path, base: Path | None = None) -> Path:
    """The ``.py`` file of ``--target``: a path, or a module name (``pkg.mod``) found on the current folder or
    ``sys.path`` without importing anything.

    Raises:
        ProseInputError: neither an existing file nor a module that can be found.
    """
    text = str(target)
    where = base or Path.cwd()
    if text.endswith(".py") or "/" in text or (where / text).is_file():
        return target if base is None else base / target  # as given: messages name the file the way the user did
    if not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", text):
        raise ProseInputError(f"--target {text!r} is neither a .py file nor a module name")
    import importlib.machinery
    import sys

    search: list[str] | None = [str(where)] + sys.path
    spec = None
    for part in text.split("."):
        spec = importlib.machinery.PathFinder.find_spec(part, search)
        if spec is None:
            raise ProseInputError(f"--target {text!r}: no module named {part!r} in {where} or on sys.path")
        search = list(spec.submodule_search_locations or [])
    origin = spec.origin if spec is not None else None
    if not origin or not origin.endswith(".py"):
        raise ProseInputError(f"--target {text!r}: the module has no Python source file to read")
    return Path(origin)


def _bind(s: Sentence, sig: Signature, targets: ModuleTargets) -> Sentence:
    """``s`` with the text the engine reads: its own target's mentions rewritten (:func:`engine_text`)."""
    return replace(s, engine=engine_text(s.engine or s.text, sig, mentions(s.text, targets)))


def _assign(sentences: Sequence[Sentence], targets: ModuleTargets) -> tuple[dict[Signature, list[Sentence]],
                                                                              list[Sentence]]:
    """Map each sentence to its target (see :mod:`prose_targets`); the ambiguous ones are returned apart."""
    by_target: dict[Signature, list[Sentence]] = {t: [] for t in targets.targets}
    ambiguous: list[Sentence] = []
    heading_target: dict[str, Signature | None] = {}
    last: tuple[int, Signature] | None = None
    only = targets.targets[0] if len(targets.targets) == 1 else None
    for s in sentences:
        if s.heading not in heading_target:
            heading_target[s.heading] = resolve(mentions(s.heading, targets))[0] or \
                by_heading_words(s.heading, targets)
        sig, amb = resolve(mentions(s.text, targets), s.text)
        if sig is None and not amb:
            sig = by_parameters(s.text, targets)
        if sig is None and not amb:
            sig = (last[1] if last and last[0] == s.block else None) or heading_target[s.heading] or only
        if sig is None:
            ambiguous.append(s)
            continue
        last = (s.block, sig)
        by_target[sig].append(_bind(s, sig, targets))
    return by_target, ambiguous


_DIRECTIVE = "a reStructuredText directive (version note, see-also), not a statement of behaviour"

#: The reason of a sentence no target could be told for.
AMBIGUOUS_REASON = ("cannot tell which function, class or method this sentence is about (it names none or "
                    "several, and so does its heading); name one in backticks")


def load_units(input_path: Path, target: Path | None = None, function: str | None = None) -> list[ProseUnit]:
    """Read prose: a ``.py`` file (its function, class and method docstrings), or Markdown/plain text about
    the functions, classes and methods of ``target`` (a ``.py`` file or a module name, parsed, never
    imported); each sentence goes to the target it is about (:mod:`prose_targets`); the ones that stay
    ambiguous form a unit of kind ``module`` (informal requirements at the top of the spec).

    Raises:
        ProseInputError: unreadable or empty input, no docstring, a target that cannot be read.
    """
    source = read_text(input_path, "prose", MAX_TEXT_BYTES)  # EG100/EG107 with file, line, column, offset
    if not source.strip():
        raise ProseInputError(f"{input_path}: the prose is empty: there is nothing to draft from")
    if input_path.suffix == ".py":
        return _units_from_python(source, str(input_path), function)
    if target is None:
        sig = Signature(function or "f", (), None)
        sentences, examples, headers = segment_text(source, function)
        if not sentences and not examples:
            raise ProseInputError(f"{input_path}: no requirement sentence in the prose (only headings, table rules "
                                  "or markup): there is nothing to draft from")
        return [ProseUnit(sig, tuple(sentences), tuple(examples), tuple(headers), _prefix(input_path.stem))]
    path = target_file(target)
    try:
        tree = ast.parse(read_text(path, "target", MAX_TEXT_BYTES), filename=str(path))
    except SyntaxError as exc:
        raise ProseInputError(f"target {path}:{exc.lineno}: not valid Python ({exc.msg})") from exc
    tree = with_reexports(tree, path)  # a package's __init__ re-exporting its modules' functions
    targets = read_targets(tree, function)
    if not targets.targets:
        raise ProseInputError(f"target {path}: no public function or class{f' named {function}' if function else ''}"
                              " for the prose to be about")
    nodes = _nodes(tree)
    funcs = [t.name for t in targets.targets if t.kind == "function"]
    sentences, all_examples, headers = segment_text(source, funcs)
    if not sentences and not all_examples:
        raise ProseInputError(f"{input_path}: no requirement sentence in the prose (only headings, table rules or "
                              "markup): there is nothing to draft from")
    by_target, ambiguous = _assign(sentences, targets)
    units: list[ProseUnit] = []
    prefix = _prefix(input_path.stem)
    if ambiguous:
        units.append(ProseUnit(Signature("", (), None, None, "module"), tuple(ambiguous), (), (), prefix))
    for sig, sents in by_target.items():
        node = nodes.get(sig.qualname)
        unit_examples: list[ProseExample] = []
        if sig.kind == "function" and isinstance(node, ast.FunctionDef):
            unit_examples = [e for e in all_examples if e.call.split("(", 1)[0].strip() == sig.name]
            sig = signature_of(node, unit_examples)
        if sents or unit_examples:
            units.append(ProseUnit(sig, tuple(sents), tuple(unit_examples), tuple(headers), prefix))
    return units


def _unmatched_category(sentence: str) -> tuple[str, str]:
    low = sentence.lower()
    if is_worked_example(sentence):
        return "omission", "a worked example in prose, not a closed call with its result (not turned into an example)"
    if re.search(r"\b(assume|will be|guaranteed|constraint|input is|you may)\b", low):
        return "environment", "an assumption about the input that the pattern catalogue could not formalize"
    if re.search(r"\b(efficient|fast|quickly|recursion|algorithm|implement|write a function)\b", low):
        return "unobservable", "about how the code is written, not about its input/output behaviour"
    return "omission", "no catalogue pattern matched this phrasing (pattern engine)"


#: The longest sentence (characters) the pattern catalogue reads.
MAX_RULE_SENTENCE = 1000


def pattern_engine(sentence: str, sig: Signature, examples: Sequence[ProseExample] = ()) -> Proposal:
    """The offline, deterministic engine: the catalogue of :mod:`prose_patterns` bound to ``sig``. A sentence
    longer than :data:`MAX_RULE_SENTENCE` characters is not read (the rules' patterns take time in the square
    of a sentence's length: a 72 KB sentence took 7 s); it stays informal, saying so."""
    if len(sentence) > MAX_RULE_SENTENCE:
        return Proposal(informal=("omission", f"longer than {MAX_RULE_SENTENCE} characters: not read by the pattern "
                                              "catalogue (split it into sentences)"))
    found = match_rules(sentence, Context(sig))
    if found:
        return Proposal(tuple(found))
    return Proposal(informal=_unmatched_category(sentence))


_SPEC_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[-.](?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+))*")


def spec_id(given: str | None, prefix: str) -> str | None:
    """An ID a document gave (a table's ID column, ``[REQ-1]`` or ``REQ-1:`` at a line's start) in the spec
    language's form (docs/language.md: a name, then ``-`` or ``.`` separated names or digit runs), or None when it cannot be
    written so (a fresh ID is then made): Markdown marks are dropped (```LG-02```, ``**R1**``), a bare number
    gets the unit's prefix (``7`` -> ``PREFIX-7``) and spaces or other characters become ``-``
    (``REQ 1`` -> ``REQ-1``)."""
    if not given:
        return None
    text = given.strip().strip("`*_ ").strip()
    if re.fullmatch(r"\d[\w.-]*", text):
        text = f"{prefix}-{text}"
    text = re.sub(r"[^A-Za-z0-9_.]+", "-", text).strip("-.")
    text = re.sub(r"([-.])[-.]+", r"\1", text)
    return text if _SPEC_ID.fullmatch(text) else None


def draft_spec(units: Sequence[ProseUnit], engine: Engine = pattern_engine, name: str = "drafted",
               title: str = "", target: str | None = None, notes: Sequence[str] = (),
               signatures: object = None) -> Draft:
    """Run ``engine`` on every sentence and build a :class:`Draft` where every sentence is a requirement.

    ``signatures`` are the target's (for :func:`lint_clause`). A clause that fails :func:`lint_clause` is dropped and recorded in ``rejected``; a sentence left with no
    clause becomes ``informal``. Examples become ``example`` requirements after the sentences.
    """
    funcs = []
    used: set[str] = set()
    proposals: list[list[Proposal]] = []
    about: list[list[Signature]] = []  # per sentence, the target its clauses are about
    for unit in units:
        if unit.sig.kind == "module":
            proposals.append([Proposal(informal=("omission", AMBIGUOUS_REASON)) for _ in unit.sentences])
        else:
            proposals.append([Proposal(informal=("omission", _DIRECTIVE)) if s.section == "directive" else
                              engine(s.engine or s.text, unit.sig, unit.examples) for s in unit.sentences])
        about.append([unit.sig] * len(unit.sentences))
        init = _constructor(unit.sig)
        if init is not None:
            _to_constructor(unit, init, engine, proposals[-1], about[-1])
    # a clause is linted once per target, all targets' clauses in shared batches
    distinct = list(dict.fromkeys((sig, c) for props, sigs in zip(proposals, about) for p, sig in zip(props, sigs)
                                  for _, c in p.clauses))
    verdict = dict(zip(distinct, lint_pairs(distinct, signatures)))
    counters: dict[str, int] = {}  # per prefix: the units of one target share it (no rescan from 1 per unit)
    # the IDs the prose gives are kept even when a generated one would come first (`REQ-1` of a later row)
    given_ids = {g for unit in units for given in (*(s.given_id for s in unit.sentences),
                                                   *(e.given_id for e in unit.examples))
                 if (g := spec_id(given, unit.prefix))}
    for unit, props, sigs in zip(units, proposals, about):
        reqs: list[DraftRequirement] = []
        init_reqs: list[DraftRequirement] = []

        def next_id(given: str | None) -> str:
            given = spec_id(given, unit.prefix)
            if given and given not in used:
                used.add(given)
                return given
            n = counters.get(unit.prefix, 0)
            while True:
                n += 1
                cand = f"{unit.prefix}-{n}"
                if cand not in used and cand not in given_ids:
                    used.add(cand)
                    counters[unit.prefix] = n
                    return cand

        problems = iter([verdict[(sig, c)] for p, sig in zip(props, sigs) for _, c in p.clauses])
        for s, prop, sig in zip(unit.sentences, props, sigs):
            keep, rejected = [], []
            for rule, c in prop.clauses:
                problem = next(problems)
                if problem:
                    rejected.append((f"{c.kind} {c.text}", "lint: " + problem.splitlines()[0][:160]))
                else:
                    keep.append((rule, c))
            informal = prop.informal
            if not keep and informal is None:
                informal = ("omission", "every proposed clause was rejected by lint")
            (init_reqs if sig is not unit.sig else reqs).append(
                DraftRequirement(next_id(s.given_id), s.text, tuple(keep), None if keep else informal, None,
                                 tuple(rejected), s.line))
        reqs, init_reqs = _allow_documented(reqs), _allow_documented(init_reqs)
        if unit.sig.kind == "method":
            reqs = _guard_method(reqs)
        header = re.sub(r"\W+$", "", unit.headers[0]) + ": " if unit.headers else ""
        for ex in unit.examples:
            reqs.append(DraftRequirement(next_id(ex.given_id), f"{header}{ex.text}", example=ex))
        if init_reqs:
            funcs.append((sigs[next(i for i, x in enumerate(sigs) if x is not unit.sig)], tuple(init_reqs)))
        funcs.append((unit.sig, tuple(reqs)))
    return Draft(name, title or f"Drafted from prose: {', '.join(u.sig.qualname for u in units if u.sig.name)}", target,
                 tuple(funcs), tuple(notes))


_EXC_NAME = re.compile(r"\b([A-Z][A-Za-z0-9_]*(?:Error|Exception))\b")
_BUILTIN_EXC = frozenset(n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, Exception))


def _allow_documented(reqs: list[DraftRequirement]) -> list[DraftRequirement]:
    """``may raise E, ...`` added to a target's ``ensures`` requirements for each built-in exception its prose
    names in a sentence that did not become a ``raises E when ...`` clause ("raises ValueError if the
    seconds field is not exactly two digits", left informal): the document says the call raises E on
    inputs the draft cannot describe, and without the allowance every such input would refute the target's
    other requirements (on four documents written without the rules, four of the 15 requirements refuted on
    correct code were refuted so). A sentence that negates ("never raises KeyError") allows nothing; custom
    exception classes are left out (their names may not resolve); a requirement that already lists the
    exception in a ``raises`` clause keeps its own reading."""
    named: list[str] = []
    for r in reqs:
        if r.example is not None or any(c.kind == "raises" for _, c in r.clauses):
            continue
        for m in _EXC_NAME.finditer(r.prose):
            if m.group(1) in _BUILTIN_EXC and not re.search(r"\b(?:never|not|no|without)\b|n't\b",
                                                             r.prose[:m.start()], re.I):
                named.append(m.group(1))
    allowed = list(dict.fromkeys(named))
    if not allowed:
        return reqs
    out = []
    for r in reqs:
        if any(c.kind == "ensures" for _, c in r.clauses) and not any(c.kind == "raises" for _, c in r.clauses):
            r = replace(r, clauses=r.clauses + (("may-raise", Clause("may raise", ", ".join(allowed))),))
        out.append(r)
    return out


def _constructor(sig: Signature) -> Signature | None:
    """The ``__init__`` method of a class target with constructor parameters (as a method target), else None."""
    if sig.kind != "class" or not sig.params:
        return None
    return Signature("__init__", sig.params, None, sig.name, "method", sig.attrs, sig.defaults)


def _to_constructor(unit: ProseUnit, init: Signature, engine: Engine, props: list[Proposal],
                    sigs: list[Signature]) -> None:
    """A class's sentences that state nothing about its state but a precondition or an exception of its
    constructor (a docstring's ``Args:`` entry "must be at least 1", "`Throttle(n)` raises ValueError if n is
    less than 1") are proposed for its ``__init__`` method instead: only their ``requires`` and ``raises``
    clauses are kept. Changes ``props`` and ``sigs`` in place."""
    for k, s in enumerate(unit.sentences):
        if props[k].clauses and not any(c.kind == "raises" for _, c in props[k].clauses) or s.section == "directive":
            continue
        text = s.engine or s.text
        if not (text.startswith("Argument ") or re.search(r"\b(?:raises?|throws?)\b", text, re.I)):
            continue
        alt = engine(text, init, ())
        kept = tuple((r, c) for r, c in alt.clauses if c.kind in ("requires", "raises"))
        if kept:
            props[k], sigs[k] = Proposal(clauses=kept), init


def _guard_method(reqs: list[DraftRequirement]) -> list[DraftRequirement]:
    """Method requirements with ``ensures`` get ``requires not (W)`` for each ``raises E when W`` drafted for the
    same method: a method requirement is checked on every call (docs/language.md), and where the prose says the
    method raises, its other requirements do not apply (functions get this narrowing from the checker)."""
    whens = [c.text.split(" when ", 1)[1] for r in reqs for _, c in r.clauses if c.kind == "raises" and " when " in c.text]
    whens = list(dict.fromkeys(whens))
    if not whens:
        return reqs
    out = []
    for r in reqs:
        if any(c.kind == "ensures" for _, c in r.clauses) and not any(c.kind == "raises" for _, c in r.clauses):
            guard = tuple(("raises-guard", Clause("requires", f"not ({w})")) for w in whens)
            r = replace(r, clauses=guard + r.clauses)
        out.append(r)
    return out


def with_requirement(draft: Draft, req: DraftRequirement) -> Draft:
    """A copy of ``draft`` with the requirement of the same ID replaced by ``req``."""
    funcs = tuple((sig, tuple(req if r.id == req.id else r for r in reqs)) for sig, reqs in draft.functions)
    return replace(draft, functions=funcs)
