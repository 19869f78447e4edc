"""The ``evalgap author`` command's logic: load prose, draft with an engine, optionally walk through the
draft interactively, validate, lint the whole text, and return the text and summary (the CLI prints).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from evalgap.specs_lang.ast import INFORMAL_CATEGORIES
from evalgap.translators.from_prose import (Draft, DraftRequirement, Engine, draft_spec, lint_clause, lint_text,
                                            ProseInputError, load_units, pattern_engine, render_req, target_file,
                                            with_requirement)
from evalgap.translators.prose_terms import Clause, Signature
from evalgap.verifier.authoring.author import AuthorSummary, render_summary, summarize, validate_draft
from evalgap.verifier.errors import VerifierError

__all__ = ["AuthorOptions", "AuthorResult", "run_author", "interactive_review", "Prompter"]

#: ``prompt(text, default) -> answer`` and ``echo(text)``: the terminal, injectable for tests.
Prompter = tuple[Callable[[str, str], str], Callable[[str], None]]


@dataclass(frozen=True)
class AuthorOptions:
    """Options of one ``author`` run (see the CLI help for each)."""

    input_path: Path
    target: Path | None = None
    function: str | None = None
    output: Path | None = None
    reference: Path | None = None
    name: str | None = None


@dataclass(frozen=True)
class AuthorResult:
    """The spec text, its draft, the summary and notes; ``conflicts`` counts clauses rejected by validation."""

    text: str
    draft: Draft
    summary: AuthorSummary
    notes: tuple[str, ...]
    conflicts: int

    def summary_text(self) -> str:
        """The printable summary."""
        return render_summary(self.summary, self.notes)


def _parse_clause(line: str) -> Clause | None:
    m = re.match(r"^\s*(requires|ensures|raises)\s+(.+?)\s*$", line)
    return Clause(m.group(1), m.group(2)) if m else None


def interactive_review(draft: Draft, prompter: Prompter) -> Draft:
    """Walk through every sentence requirement: show the proposal; ``a`` accept, ``e`` edit (type clauses as
    ``ensures EXPR`` lines, an empty line ends; each is linted and re-asked until clean), ``i`` mark informal
    with a category and reason.
    """
    ask, say = prompter
    for sig, reqs in list(draft.functions):
        for r in reqs:
            if r.example is not None:
                continue
            say(f"\n{r.id}: {r.prose}")
            if r.clauses:
                for rule, c in r.clauses:
                    say(f"  proposed ({rule}): {c.kind} {c.text}")
            else:
                cat, why = r.informal or ("omission", "")
                say(f"  proposed: informal {cat} ({why})")
            choice = ask("[a]ccept, [e]dit, [i]nformal", "a").strip().lower()[:1]
            if choice == "e":
                draft = with_requirement(draft, _edit(r, sig, prompter))
            elif choice == "i":
                cat = ""
                while cat not in INFORMAL_CATEGORIES:
                    cat = ask(f"category ({'/'.join(INFORMAL_CATEGORIES)})", "omission").strip()
                reason = ask("reason", "marked informal by the author").strip()
                draft = with_requirement(draft, replace(r, clauses=(), informal=(cat, reason)))
    return draft


def _edit(r: DraftRequirement, sig: Signature, prompter: Prompter) -> DraftRequirement:
    ask, say = prompter
    clauses: list[tuple[str, Clause]] = []
    while True:
        line = ask("clause (requires|ensures|raises ...; empty line ends)", "").strip()
        if not line:
            break
        c = _parse_clause(line)
        problem = "start with requires, ensures or raises" if c is None else lint_clause(sig, c)
        if problem or c is None:
            say(f"  rejected: {problem.splitlines()[0] if problem else ''}")
            continue
        clauses.append(("interactive", c))
    if not clauses:
        return r
    return replace(r, clauses=tuple(clauses), informal=None)


def _target_path(opts: AuthorOptions) -> Path | None:
    """The target's ``.py`` file (``--target`` a path or a module name; a ``.py`` input is its own target)."""
    if opts.target is not None:
        return target_file(opts.target)
    return opts.input_path if opts.input_path.suffix == ".py" else None


def _refuse_overwriting_sources(opts: AuthorOptions) -> None:
    """``-o`` naming the prose or the target module (or a link to either) would replace what the draft is
    read from: refused before anything is read or written.

    Raises:
        ProseInputError: the output is the input or the target file."""
    out = opts.output
    if out is None or not out.exists():
        return
    sources = [("the prose input", opts.input_path)]
    if opts.target is not None:
        try:
            sources.append(("the --target module", target_file(opts.target)))
        except ProseInputError:
            pass  # reported by load_units, with its own message
    for what, src in sources:
        try:
            same = src.exists() and os.path.samefile(out, src)
        except OSError:
            same = False
        if same:
            raise ProseInputError(f"{out}: -o names {what} ({src}); writing the draft there would replace it. "
                                  "Give another output file")


def _target_line(opts: AuthorOptions) -> str | None:
    tgt = _target_path(opts)
    if tgt is None:
        return None
    base = (opts.output.parent if opts.output else Path.cwd()).resolve()
    return os.path.relpath(tgt.resolve(), base)


def _canonical(text: str, file: str, signatures: object) -> tuple[str, str | None]:
    """``text`` in the formatter's canonical layout (as ``evalgap fmt`` writes it, comments kept), and the
    structure/names/types diagnostic of the spec (None when clean). Parsed once: each clause was already
    linted and translated on its own (:func:`lint_clauses`), so this stays linear in the draft's size."""
    from evalgap.specs_lang import SpecError, parse
    from evalgap.specs_lang.check import check_spec
    from evalgap.specs_lang.format import format_spec

    try:
        spec = parse(text, file)
        check_spec(spec, text, signatures)
    except SpecError as exc:
        return text, exc.render()
    return format_spec(spec, text), None


def _signatures(opts: AuthorOptions) -> object:
    """The target's real signatures (imported in a sandboxed worker, as ``evalgap lint`` does), or None."""
    tgt = _target_path(opts)
    if tgt is None:
        return None
    from evalgap.verifier.project.signatures import target_signatures
    from evalgap.verifier.project.targets import resolve_target

    return target_signatures(resolve_target(str(tgt.resolve()), Path.cwd()))


#: Drafts up to this size (bytes) are linted again in full after formatting (translation included).
_RELINT_BYTES = 64 * 1024


def run_author(opts: AuthorOptions, engine: Engine = pattern_engine, engine_note: str = "pattern engine",
               prompter: Prompter | None = None) -> AuthorResult:
    """Draft, review (when ``prompter`` is given), validate and lint a spec from prose.

    Raises:
        ProseInputError: the input cannot be read or bound to a function.
        VerifierError: the final text does not lint (a bug in the drafting; reported, never written).
    """
    _refuse_overwriting_sources(opts)
    units = load_units(opts.input_path, opts.target, opts.function)
    name = opts.name or re.sub(r"\W", "_", opts.input_path.stem) or "drafted"
    notes = [f"Drafted by `evalgap author` from {opts.input_path.name} ({engine_note}); review before use."]
    if engine is not pattern_engine:
        notes.append("Machine-drafted: every formal clause below was proposed by a language model.")
    sigs = _signatures(opts)
    draft = draft_spec(units, engine, name=name, target=_target_line(opts), notes=notes, signatures=sigs)
    if prompter is not None:
        draft = interactive_review(draft, prompter)
    before = sum(len(r.rejected) for r in draft.requirements())
    draft, vnotes = validate_draft(draft, opts.reference)
    conflicts = sum(len(r.rejected) for r in draft.requirements()) - before
    text, problem = _canonical(render_req(draft), str(opts.output or "<draft>"), sigs)
    if problem is None and len(text) <= _RELINT_BYTES:  # small drafts: the canonical text is linted in full again
        problem = lint_text(text, str(opts.output or "<draft>"), sigs)
    if problem:
        raise VerifierError(f"internal: the drafted spec does not lint:\n{problem}")
    return AuthorResult(text, draft, summarize(draft), tuple(vnotes), conflicts)
