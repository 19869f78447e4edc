"""``evalgap author``: draft a spec from prose, validate the draft by running its clauses, summarize.

Validation (both engines): every formal clause is evaluated concretely, in a sandboxed worker
(:mod:`evalgap.verifier.authoring.clause_worker`), on the prose's own examples (a clause that contradicts an example is
rejected and reported) and, with ``--reference``, with a reference implementation called on the examples'
inputs. The weak-spec witness check runs when the Z3 analysis module is installed; otherwise the summary
says it did not run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from evalgap.specs_lang import ast as A
from evalgap.specs_lang import parse
from evalgap.translators.from_prose import Draft, example_clause, render_req
from evalgap.translators.prose_terms import Signature
from evalgap.translators.pyexpr import collect_old, to_python
from evalgap.verifier.sandbox.runner import Limits, run_worker
from evalgap.specs_lang.textfile import MAX_TEXT_BYTES, read_text

__all__ = ["CompiledClause", "compile_clauses", "evaluate_clauses", "validate_draft", "AuthorSummary", "summarize",
           "render_summary", "WITNESS_MODULE"]

#: The Z3 analysis module that answers the weak-spec witness queries.
WITNESS_MODULE = "evalgap.verifier.analysis.run"


@dataclass(frozen=True)
class CompiledClause:
    """A clause of a draft, compiled to Python for :mod:`clause_worker`.

    Attributes:
        key: ``REQ-ID#i`` (i-th clause of the requirement).
        req_id: the requirement ID.
        kind: ``ensures`` or ``raises``.
        py: Python source (for ``raises``: the condition).
        exc: the exception name for ``raises``.
        old: Python source of each ``old()`` argument, evaluated on the pre-state.
        text: the clause's spec text (for messages).
    """

    key: str
    req_id: str
    kind: str
    py: str
    exc: str | None
    old: tuple[str, ...]
    text: str

    def request(self) -> dict[str, Any]:
        """The clause as a worker request entry."""
        return {"key": self.key, "kind": self.kind, "py": self.py, "exc": self.exc, "old": list(self.old)}


def compile_clauses(req_text: str | A.Spec, function: str) -> tuple[list[str], list[str], list[CompiledClause]]:
    """Parse a rendered draft (or take its parsed spec) and compile the clauses on ``function``.

    Returns:
        ``(params, preconditions, clauses)``: parameter names; Python of every ``requires`` clause of a
        requirement made only of ``requires``; the ``ensures``/``raises`` clauses.

    Raises:
        SpecError: the text does not parse (a bug: drafts are linted clause by clause).
    """
    spec = parse(req_text, "<draft>") if isinstance(req_text, str) else req_text
    decl = next((f for f in spec.functions if f.name == function), None)
    if decl is None:
        return [], [], []
    pres: list[str] = []
    out: list[CompiledClause] = []
    for req in decl.requirements:
        kinds = {type(c) for c in req.clauses}
        if kinds == {A.Requires}:
            pres += [to_python(c.expr) for c in req.clauses if isinstance(c, A.Requires)]
            continue
        for i, c in enumerate(req.clauses):
            if isinstance(c, A.Ensures):
                olds = collect_old(c.expr)
                mapping = {o: f"__eg_old[{j}]" for j, o in enumerate(olds)}
                out.append(CompiledClause(f"{req.id}#{i}", req.id, "ensures", to_python(c.expr, mapping), None,
                                          tuple(to_python(o.expr) for o in olds), "ensures " + to_python(c.expr,
                                                                                                       mapping)))
            elif isinstance(c, A.Raises):
                out.append(CompiledClause(f"{req.id}#{i}", req.id, "raises", to_python(c.when), c.exception, (),
                                          f"raises {c.exception} when {to_python(c.when)}"))
    return [p.name for p in decl.params], pres, out


def evaluate_clauses(program: str | None, function: str, params: Sequence[str], pres: Sequence[str],
                     clauses: Sequence[CompiledClause], cases: Sequence[dict[str, str]], per_call_s: float = 1.0,
                     budget_s: float = 30.0) -> dict[str, Any]:
    """Evaluate ``clauses`` on ``cases`` in a sandboxed worker.

    Args:
        program: Python source defining ``function`` (None: each case carries its ``result``).
        function: the function's name.
        params: its parameter names.
        pres: Python preconditions (cases where one is false are skipped).
        clauses: the compiled clauses.
        cases: ``{"args": "[...]"}`` (plus ``"result"`` when ``program`` is None), Python literal text.
        per_call_s: seconds per call; budget_s: seconds for the whole run.

    Returns:
        The worker's result dict (see :mod:`clause_worker`), or ``{"error": reason}``.
    """
    request = {"program": program, "function": function, "params": list(params), "pre": list(pres),
               "clauses": [c.request() for c in clauses], "cases": list(cases), "per_call_s": per_call_s,
               "budget_s": budget_s}
    outcome = run_worker("clause", request,
                         Limits(cpu_s=budget_s + 10, wall_s=budget_s + 20, memory_bytes=2 * 1024**3))
    if outcome.result is None:
        return {"error": f"worker {outcome.status}: {outcome.stderr[-300:]}"}
    return outcome.result


def _reject(draft: Draft, sig: Signature, failing: dict[str, list[str]]) -> Draft:
    """Move the failing clauses (by requirement ID → reasons per clause index) into ``rejected``."""
    funcs = []
    for s, reqs in draft.functions:
        new = []
        for r in reqs:
            if s is not sig or r.id not in failing:
                new.append(r)
                continue
            reasons: dict[str, str] = {}
            for x in failing[r.id]:
                i_text, why = x.split("|", 1)
                reasons[i_text] = f"{reasons[i_text]}; {why}" if i_text in reasons else why
            keep, rejected = [], list(r.rejected)
            for i, (rule, c) in enumerate(r.clauses):
                if str(i) in reasons:
                    rejected.append((f"{c.kind} {c.text}", reasons[str(i)]))
                else:
                    keep.append((rule, c))
            informal = None if keep else ("conflict", "the drafted clause contradicts the prose's own example: "
                                          + rejected[-1][1])
            new.append(replace(r, clauses=tuple(keep), rejected=tuple(rejected), informal=informal))
        funcs.append((s, tuple(new)))
    return replace(draft, functions=tuple(funcs))


def validate_draft(draft: Draft, reference: Path | None = None) -> tuple[Draft, list[str]]:
    """Reject clauses that contradict the prose's examples (or fail on ``reference``'s results there).

    Returns:
        ``(validated draft, notes)``; notes say what was checked and what could not be.
    """
    notes: list[str] = []
    program = read_text(reference, "reference", MAX_TEXT_BYTES) if reference else None
    spec: A.Spec | None = None
    for sig, reqs in draft.functions:
        examples = [r.example for r in reqs if r.example is not None]
        if not examples or sig.kind != "function":
            continue
        spec = spec or parse(render_req(draft), "<draft>")  # parsed once, only when some function has examples
        params, pres, clauses = compile_clauses(spec, sig.name)
        if not clauses:
            continue
        failing: dict[str, list[str]] = {}
        runs: list[tuple[str, str | None, list[dict[str, str]]]] = []
        if examples:
            runs.append(("example", None, [{"args": repr(list(e.args)), "result": repr(e.expected)} for e in examples]))
        if program is not None and examples:
            runs.append(("reference", program, [{"args": repr(list(e.args))} for e in examples]))
        for label, prog, cases in runs:
            res = evaluate_clauses(prog, sig.name, params, pres, clauses, cases)
            if "error" in res:
                notes.append(f"{sig.name}: {label} validation did not run ({res['error']})")
                continue
            for c in clauses:
                st = res["clauses"][c.key]
                if st["failed"]:
                    ex = examples[st["first_fail"]]
                    what = (f"contradicts example {example_clause(sig, ex)}" if label == "example"
                            else f"fails on the reference implementation for {sig.name}"
                                 f"({', '.join(map(repr, ex.args))})")
                    failing.setdefault(c.req_id, []).append(f"{c.key.split('#')[1]}|{what}")
            notes.append(f"{sig.name}: clauses evaluated on {len(cases)} {label} case(s)")
        if failing:
            draft = _reject(draft, sig, failing)
    formal = sum(1 for r in draft.requirements() if r.clauses)
    if formal > WEAK_SPEC_MAX_REQUIREMENTS:  # counted on the draft: a large one is not even rendered again here
        notes.append(_TOO_MANY.format(formal))
    else:
        notes.extend(weak_spec_notes(render_req(draft)))
    return draft, notes


#: The largest draft (formal requirements) whose weak-spec witnesses ``author`` looks for: the Z3 queries
#: grow with the square of the requirements of a function (docs/authoring.md).
WEAK_SPEC_MAX_REQUIREMENTS = 40
#: Solver time per query of the draft's weak-spec check (seconds): a witness is advice, and at 2 s a
#: 25-requirement draft spent 11 s in queries that timed out anyway (``evalgap analyze`` uses its own, longer).
WEAK_SPEC_TIMEOUT_S = 0.5
_TOO_MANY = ("weak-spec witness check: not run ({} formal requirements, more than " + str(WEAK_SPEC_MAX_REQUIREMENTS)
             + "); run `evalgap analyze` on the draft")


def weak_spec_notes(req_text: str) -> list[str]:
    """Run the Z3 weak-spec witness queries (:mod:`evalgap.verifier.analysis.run`) on a drafted spec.

    Args:
        req_text: the drafted ``.req`` text.

    Returns:
        One note per witness ("`f([3, 1])` may return `[]` under this spec"), or one note saying why the
        check could not run. Witnesses are advice to tighten the draft, never a rejection.
    """
    from evalgap.specs_lang import SpecError, parse
    from evalgap.verifier.analysis.run import analyze_spec

    try:
        spec = parse(req_text, "<draft>")
        formal = sum(1 for r, _ in spec.all_requirements() if r.clauses and r.informal is None)
        if formal > WEAK_SPEC_MAX_REQUIREMENTS:  # the analysis grows faster than linearly: keep author linear
            return [_TOO_MANY.format(formal)]
        report = analyze_spec(spec, timeout_s=WEAK_SPEC_TIMEOUT_S)
    except (SpecError, ValueError) as exc:
        return [f"weak-spec witness check: not run ({str(exc).splitlines()[0]})"]
    witnesses = [f for f in report.findings if f.kind == "witness"]
    timed_out = sum(1 for f in report.findings if f.kind == "unknown" and f.message.startswith("weak-spec query")
                    and "timeout" in f.message)
    if not witnesses and timed_out:
        return [f"weak-spec witness check: no witness found, but {timed_out} weak-spec "
                f"{'query' if timed_out == 1 else 'queries'} timed out ({WEAK_SPEC_TIMEOUT_S:g} s each); run "
                "`evalgap analyze` on the draft for the full check"]
    if not witnesses:
        return ["weak-spec witness check: no obviously wrong behaviour admitted (within the Z3 fragment)"]
    return [f"weak-spec witness: {f.message}" for f in witnesses]


@dataclass(frozen=True)
class AuthorSummary:
    """Counts of a draft.

    Attributes:
        sentences: requirement sentences; formalized: those with formal clauses; examples: example requirements.
        by_rule: formalized sentences per rule/model; informal: per category; rejected: rejected clauses, as
            ``(requirement ID, clause, reason)``.
    """

    sentences: int
    formalized: int
    examples: int
    by_rule: tuple[tuple[str, int], ...]
    informal: tuple[tuple[str, int], ...]
    rejected: tuple[tuple[str, str, str], ...]


def summarize(draft: Draft) -> AuthorSummary:
    """Count a draft's sentences by outcome."""
    reqs = draft.requirements()
    sents = [r for r in reqs if r.example is None]
    formal = [r for r in sents if r.clauses]
    rules = Counter(rule for r in formal for rule in r.rules)
    cats = Counter((r.informal or ("?", ""))[0] for r in sents if not r.clauses)
    rej = tuple((r.id, t, why) for r in reqs for t, why in r.rejected)
    return AuthorSummary(len(sents), len(formal), len(reqs) - len(sents), tuple(sorted(rules.items())),
                         tuple(sorted(cats.items())), rej)


def render_summary(s: AuthorSummary, notes: Sequence[str] = ()) -> str:
    """The summary as text lines."""
    lines = [f"{s.formalized} of {s.sentences} sentences formalized, {s.sentences - s.formalized} informal, "
             f"{s.examples} examples (example-only)"]
    if s.by_rule:
        lines.append("  formalized by: " + ", ".join(f"{k} {v}" for k, v in s.by_rule))
    if s.informal:
        lines.append("  informal: " + ", ".join(f"{k} {v}" for k, v in s.informal))
    for rid, text, why in s.rejected:
        lines.append(f"  rejected {rid}: {text} ({why})")
    lines += [f"  {n}" for n in notes]
    return "\n".join(lines) + "\n"

