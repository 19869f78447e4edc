"""The draft model of ``evalgap author`` (units of prose, proposals, drafted requirements) and its rendering
to ``.req`` text, with the lint of single clauses (batched) and of whole texts.

A draft has one unit per target: a ``function`` block, a ``method`` block inside its ``class`` block, the
class's own requirements (invariants) after its methods, and a ``module`` unit whose requirements (sentences
that could not be bound to one target) come first, at the top level, always ``informal``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from evalgap.specs_lang import SpecError, parse
from evalgap.specs_lang.check import check_spec
from evalgap.translators.errors import TranslationError
from evalgap.translators.prose_patterns import SIGNATURE_ONLY_RULES
from evalgap.translators.prose_split import ProseExample, Sentence
from evalgap.translators.prose_terms import Clause, Signature

__all__ = ["ProseUnit", "Proposal", "Engine", "DraftRequirement", "Draft", "render_req", "lint_text", "lint_clause",
           "lint_clauses", "lint_pairs", "example_clause"]


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
    return f"{'method' if sig.kind == 'method' else 'function'} {sig.name}({params}){ret}"


def _req_lines(r: DraftRequirement, sig: Signature, pad: str = "  ") -> list[str]:
    out = []
    if r.rules:
        out.append(f"{pad}# rule: {', '.join(r.rules)}")
    for text, why in r.rejected:
        out.append(f"{pad}# rejected: {text}  ({why})")
    out.append(f"{pad}requirement {r.id} {_q(r.prose)}")
    if r.example is not None:
        out.append(f"{pad}  example {example_clause(sig, r.example)}")
    elif r.clauses:
        out += [f"{pad}  {c.kind} {c.text}" for _, c in r.clauses]
    else:
        cat, reason = r.informal or ("omission", "not formalized")
        out.append(f"{pad}  informal {cat} {_q(reason)}")
    return out


def _class_header(sig: Signature) -> list[str]:
    lines = ["", f"class {sig.name}"]
    if sig.params:
        lines.append(f"  method __init__({', '.join(f'{n}: {t}' for n, t in sig.params)})")
    return lines


def render_req(draft: Draft) -> str:
    """The ``.req`` text of a draft (a header comment with the notes, the ambiguous sentences at the top level,
    then one ``function`` block per function and one ``class`` block per class with its ``method`` blocks and
    its own requirements; each requirement is preceded by a comment naming the rule or model that produced it)."""
    lines = [f"# {n}" for n in draft.notes]
    lines.append(f"spec {draft.name} {_q(draft.title)}")
    if draft.target:
        lines.append(f"  target: {draft.target}")
    classes = {s.name: s for s, _ in draft.functions if s.kind == "class"}
    for s, _ in draft.functions:  # a method's class block is written even when the class has no prose
        if s.kind == "method" and s.owner and s.owner not in classes:
            classes[s.owner] = Signature(s.owner, (), None, None, "class", s.attrs)
    done: set[str] = set()
    for sig, reqs in draft.functions:
        if sig.kind == "module":
            for r in reqs:
                lines += _req_lines(r, sig)
    for sig, reqs in draft.functions:
        if sig.kind == "function":
            lines += ["", _function_header(sig)]
            lines += [x for r in reqs for x in _req_lines(r, sig)]
        elif sig.kind in ("method", "class"):
            owner = sig.owner if sig.kind == "method" else sig.name
            if owner is None or owner in done:
                continue
            done.add(owner)
            own_init = any(m.kind == "method" and m.owner == owner and m.name == "__init__" for m, _ in draft.functions)
            lines += _class_header(classes[owner])[:2] if own_init else _class_header(classes[owner])
            for msig, mreqs in draft.functions:
                if msig.kind == "method" and msig.owner == owner:
                    lines += ["  " + _function_header(msig)]
                    lines += [x for r in mreqs for x in _req_lines(r, msig, "    ")]
            for csig, creqs in draft.functions:
                if csig.kind == "class" and csig.name == owner:
                    lines += [x for r in creqs for x in _req_lines(r, csig)]
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
    return lint_clauses(sig, [clause], signatures)[0]


#: Clauses linted together in one probe spec (a batch's harness grows with the square of its raises clauses).
LINT_BATCH = 32


def lint_clauses(sig: Signature, clauses: Sequence[Clause], signatures: object = None) -> list[str | None]:
    """Lint clauses over ``sig`` (:func:`lint_pairs` with one target). Returns, per clause, the diagnostic
    text, or None when clean."""
    return lint_pairs([(sig, c) for c in clauses], signatures)


def lint_pairs(pairs: Sequence[tuple[Signature, Clause]], signatures: object = None) -> list[str | None]:
    """Lint clauses, each over its own target: one probe spec per batch of :data:`LINT_BATCH` clauses (one
    requirement per clause, one block per target; a batch mixes targets, since a probe's fixed cost, about
    0.8 ms, is five clauses' worth and most targets have fewer); a batch that fails is split in halves until
    each failing clause is linted alone, so the cost is linear in the number of clauses (plus a logarithmic
    factor per rejected clause) and a diagnostic always comes from a probe of that one clause.

    Args:
        pairs: ``(target, clause)`` in any order.
        signatures: the target module's :class:`evalgap.specs_lang.signatures.ModuleSig`, or None.

    Returns:
        Per pair, the diagnostic text, or None when clean.
    """
    out: list[str | None] = [None] * len(pairs)

    def probe(idx: Sequence[int]) -> str | None:
        by_sig: dict[Signature, list[DraftRequirement]] = {}
        for k in idx:
            sig, clause = pairs[k]
            by_sig.setdefault(sig, []).append(DraftRequirement(f"PROBE-{k + 1}", "probe", (("probe", clause),)))
        owners = dict.fromkeys(sig.owner for sig in by_sig if sig.kind == "method" and sig.owner)
        classes = {sig.name for sig in by_sig if sig.kind == "class"}
        attrs = {sig.owner: sig.attrs for sig in by_sig if sig.kind == "method" and sig.owner}
        units: list[tuple[Signature, tuple[DraftRequirement, ...]]] = [
            (Signature(o, (), None, None, "class", attrs[o]), ()) for o in owners if o not in classes]
        units += [(sig, tuple(reqs)) for sig, reqs in by_sig.items()]
        return lint_text(render_req(Draft("probe", "probe", None, tuple(units))), signatures=signatures)

    def run(idx: Sequence[int]) -> None:
        problem = probe(idx)
        if problem is None:
            return
        if len(idx) == 1:
            out[idx[0]] = problem
            return
        run(idx[:len(idx) // 2])
        run(idx[len(idx) // 2:])

    for a in range(0, len(pairs), LINT_BATCH):
        run(list(range(a, min(a + LINT_BATCH, len(pairs)))))
    return out
