"""Frozen result records: what each engine showed about each requirement.

The verdict words are fixed across code, reports and docs (docs/verdicts.md):

* ``verified``: CrossHair exhausted every path (a proof, within CrossHair's modelling of Python).
* ``refuted``: a counterexample, replayed concretely with contracts enforced in a fresh process.
* ``no-counterexample``: none found within the stated budget (seconds and completed paths): not a proof.
* ``unknown``: nothing can be said; ``reason`` says why (budget exhausted, import error, spec error ...).
* ``not-formalized``: the requirement is informal; ``category`` says why.

Overall verdict of a requirement, worst first: refuted > unknown > no-counterexample > verified.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

__all__ = ["Verdict", "Budget", "EngineVerdict", "RequirementResult", "Strength", "worst", "UNKNOWN_REASONS", "SpecFinding",
           "Smell", "TestEvidence", "domain_bounds"]


class Verdict(str, Enum):
    """A verdict about code (never about the spec itself)."""

    VERIFIED = "verified"
    REFUTED = "refuted"
    NO_COUNTEREXAMPLE = "no-counterexample"
    UNKNOWN = "unknown"
    NOT_FORMALIZED = "not-formalized"


#: Severity for the overall verdict (higher is worse).
_SEVERITY = {Verdict.VERIFIED: 0, Verdict.NO_COUNTEREXAMPLE: 1, Verdict.UNKNOWN: 2, Verdict.REFUTED: 3}

#: Reason categories of ``unknown`` (the text after the colon is free-form detail).
UNKNOWN_REASONS = (
    "budget exhausted", "timeout", "vacuous precondition", "spec error", "import error", "unsupported",
    "nondeterminism", "not reproduced", "precondition violated by counterexample", "crash", "engine error",
    "memory limit", "blocked side effect", "too much filtering", "tampered", "gaming suspected",
    "depends on the hash seed",
)


def domain_bounds(narrowed_by: tuple[str, ...]) -> list[str]:
    """The entries of a requirement's ``narrowed_by`` that bound its domain: the narrowed parameter types
    (``name: type ...``, as :func:`evalgap.specs_lang.lower.narrowing_text` writes them), not the IDs of
    assumptions and precondition requirements (which are logical preconditions, not bounds)."""
    return [n for n in narrowed_by if ": " in n]


def worst(verdicts: list[Verdict]) -> Verdict | None:
    """The overall verdict of several engine verdicts, worst first; None for an empty list.

    Args:
        verdicts: code verdicts (``not-formalized`` is ignored here).
    """
    ranked = [v for v in verdicts if v in _SEVERITY]
    return max(ranked, key=_SEVERITY.__getitem__) if ranked else None


@dataclass(frozen=True)
class Budget:
    """What an engine spent or was allowed.

    Attributes:
        seconds: CPU seconds allowed per requirement (the ``--budget``).
        used_s: CPU seconds actually used by the analysis (None when unknown).
        paths: completed (confirmed) execution paths, for CrossHair.
        examples: concrete examples run (for examples and replays; for Hypothesis, valid examples).
        rejected: Hypothesis examples rejected by ``assume()`` (preconditions), for the filter rate.
        seed: the Hypothesis seed of a research run (None: derandomized, the seed is fixed by the test).
        hash_seeds: the ``PYTHONHASHSEED`` of each run the verdict rests on (CrossHair: the first run and,
            for ``verified``, the second; Hypothesis: its run), chosen at random per process.
    """

    seconds: float | None = None
    used_s: float | None = None
    paths: int | None = None
    examples: int | None = None
    rejected: int | None = None
    seed: int | None = None
    hash_seeds: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "hash_seeds", tuple(int(s) for s in self.hash_seeds))

    def describe(self) -> str:
        """``"10.0 s budget, 3.2 s used, 14 paths"``-style text."""
        parts = []
        if self.seconds is not None:
            parts.append(f"{self.seconds:g} s budget")
        if self.used_s is not None:
            parts.append(f"{self.used_s:.1f} s used")
        if self.paths is not None:
            parts.append(f"{self.paths} path{'s' if self.paths != 1 else ''} completed")
        if self.examples is not None:
            parts.append(f"{self.examples} example{'s' if self.examples != 1 else ''}")
        if self.rejected:
            total = self.rejected + (self.examples or 0)
            parts.append(f"{self.rejected} rejected by preconditions ({100 * self.rejected / total:.0f}% "
                         "filtered)")
        if self.seed is not None:
            parts.append(f"seed {self.seed}")
        if self.hash_seeds:
            parts.append(f"PYTHONHASHSEED {', '.join(map(str, self.hash_seeds))}")
        return ", ".join(parts)


@dataclass(frozen=True)
class EngineVerdict:
    """One engine's verdict on one requirement.

    Attributes:
        engine: ``crosshair``, ``example`` (concrete run of ``example`` clauses), ...
        verdict: the verdict.
        reason: for ``unknown`` the category and detail (``"budget exhausted: no path completed"``); for
            ``refuted`` what failed; for ``verified`` the caveat; for ``no-counterexample`` the budget text.
        budget: what was allowed and spent.
        counterexample: the refuting call in the spec's terms (``isqrt(5)``, ``KV-1 with key='', ...``).
        args: the counterexample's arguments as Python source, in parameter order.
        elapsed_s: wall-clock seconds, including replay.
        assumptions: what the verdict assumes beyond the spec's own preconditions (value ranges, alphabets,
            sizes, an imported benchmark's input contract); non-empty sets the ``narrowed-domain`` flag.
        reproducer: for ``refuted``, a short Python snippet reproducing the counterexample against the
            target (see :mod:`evalgap.verifier.report.emit_tests`).
        cached: True when this verdict was answered from the result cache (``elapsed_s`` is then the
            original run's).
        bounds: what made this verdict bounded beyond the spec's own domain: limits of the harness or the
            engine (``"call sequence: at most 3 method calls after construction"`` for a class invariant;
            collection sizes, numeric ranges, string alphabets). A ``verified`` with bounds is a bounded
            proof (the ``bounded-proof`` flag); it holds only within them. See docs/verdicts.md.
        schedule: for a ``schedules`` refutation, the event-loop choices that replay it (with ``args``; see
            :mod:`evalgap.verifier.engines.schedloop`), else empty.
    """

    engine: str
    verdict: Verdict
    reason: str
    budget: Budget = field(default_factory=Budget)
    counterexample: str | None = None
    args: tuple[tuple[str, str], ...] = ()
    elapsed_s: float = 0.0
    reproducer: str | None = None
    cached: bool = False
    assumptions: tuple[str, ...] = ()
    bounds: tuple[str, ...] = ()
    schedule: tuple[int, ...] = ()


@dataclass(frozen=True)
class Strength:
    """The spec strength of one requirement, by mutation analysis (:mod:`evalgap.verifier.strength`).

    Attributes:
        mutants: mutants of the requirement's target functions that were checked.
        killed: mutants the requirement refuted.
        equivalent: surviving mutants that differential testing against the original code could not tell
            apart from it (likely equivalent: left out of the ratio).
        inconclusive: mutants on which the requirement's check was ``unknown`` (left out of the ratio).
        survivors: descriptions of the surviving, non-equivalent mutants (``gcd line 4: `a % b` -> `a // b`
            (AOR)``), at most 5.
        weak_below: the ratio under which the requirement is flagged ``weak``.
    """

    mutants: int
    killed: int
    equivalent: int = 0
    inconclusive: int = 0
    survivors: tuple[str, ...] = ()
    weak_below: float = 0.5

    @property
    def scored(self) -> int:
        """The mutants the ratio is over: checked, neither likely equivalent nor inconclusive."""
        return self.mutants - self.equivalent - self.inconclusive

    @property
    def ratio(self) -> float | None:
        """``killed / scored`` (0..1), or None when no mutant is scored."""
        return round(self.killed / self.scored, 4) if self.scored > 0 else None

    @property
    def weak(self) -> bool:
        """True when the ratio is below :attr:`weak_below`."""
        return self.ratio is not None and self.ratio < self.weak_below

    def describe(self) -> str:
        """One line for every report format: ``strength: kills 1 of 4 mutants (25 %; 2 likely equivalent):
        weak, e.g. it passes is_adult line 2: `age >= 18` -> `age > 18` (ROR)``."""
        extra = [f"{100 * self.ratio:.0f} %"] if self.ratio is not None else []
        extra += [f"{self.equivalent} likely equivalent"] if self.equivalent else []
        extra += [f"{self.inconclusive} inconclusive"] if self.inconclusive else []
        line = f"strength: kills {self.killed} of {self.scored} mutants" + (f" ({'; '.join(extra)})" if extra else "")
        if self.weak:
            line += ": weak" + (f", e.g. it passes {self.survivors[0]}" if self.survivors else "")
        elif self.survivors:
            line += f"; survived by {self.survivors[0]}"
        return line


@dataclass(frozen=True)
class RequirementResult:
    """Everything the gap report says about one requirement.

    Attributes:
        id, prose: from the spec.
        location: ``file:line:col`` of the requirement.
        formalization: ``formal``, ``example`` or ``informal``.
        role: ``property`` (checked against the code) or ``precondition`` (narrows the domain of the
            function's other requirements; not itself checked against the code).
        category: the informal category (informal only), with ``reason``.
        formal_text: the requirement's clauses as written in the spec.
        verdicts: one per engine run.
        verdict: the overall verdict (None for preconditions).
        elapsed_s: wall-clock seconds over all engines.
        target_functions: qualified names of the target's functions the requirement exercises
            (``KVStore.put``), filled by :func:`evalgap.verifier.report.gap.build_report`.
        tests: the project's tests that executed one of those functions (``--tests``), with outcomes.
        smells: requirement smells found in the prose.
        flags: evaluation-gap flags (:data:`evalgap.verifier.report.gap.FLAGS`), filled by the gap report.
        strength: the spec strength by mutation analysis, when it was measured (``--strength``).
    """

    id: str
    prose: str
    location: str
    formalization: str
    role: str = "property"
    category: str | None = None
    informal_reason: str | None = None
    formal_text: str = ""
    function: str | None = None
    narrowed_by: tuple[str, ...] = ()
    verdicts: tuple[EngineVerdict, ...] = ()
    verdict: Verdict | None = None
    elapsed_s: float = 0.0
    target_functions: tuple[str, ...] = ()
    tests: tuple[TestEvidence, ...] = ()
    smells: tuple[Smell, ...] = ()
    flags: tuple[str, ...] = ()
    strength: Strength | None = None

    @property
    def disagreement(self) -> str | None:
        """When engines disagree (one refuted, another did not), a sentence saying which; else None."""
        refuting = [v.engine for v in self.verdicts if v.verdict is Verdict.REFUTED]
        others = [f"{v.engine} {v.verdict.value}" for v in self.verdicts
                  if v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)]
        if refuting and others:
            return f"engines disagree: {', '.join(refuting)} refuted; {', '.join(others)}"
        return None

    @property
    def bounds(self) -> tuple[str, ...]:
        """What the overall verdict is bounded by, in order, without repeats: the ``bounds`` of the engine
        verdicts that pass (``verified``, ``no-counterexample``), then the narrowed parameter types among
        ``narrowed_by`` (``n: int in 0..1000``: a numeric range, size or alphabet the spec or an import
        put on the domain; assumption and precondition IDs are not bounds). Empty for a refuted,
        unknown or not-formalized requirement (a counterexample is not weakened by a bound)."""
        if self.verdict not in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE):
            return ()
        out = [b for v in self.verdicts if v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)
               for b in v.bounds]
        out += domain_bounds(self.narrowed_by)
        return tuple(dict.fromkeys(out))

    @property
    def counterexample(self) -> str | None:
        """The first refuting engine's counterexample, if any."""
        for v in self.verdicts:
            if v.verdict is Verdict.REFUTED and v.counterexample:
                return v.counterexample
        return None


#: Kinds of :class:`SpecFinding` that are notes about the analysis, not findings about the spec.
NOTE_KINDS = frozenset({"consistent", "realizable", "approximated", "repair", "unknown"})


@dataclass(frozen=True)
class SpecFinding:
    """A finding about the spec itself (not a verdict about code): the one model for the Z3 analysis
    (:mod:`evalgap.verifier.analysis`), ``check-config`` and the gap report's ``spec_findings``.

    Attributes:
        code: an ``EG3xx`` code (docs/analysis.md, docs/diagnostics.md).
        kind: ``conflict`` (an unsat core of requirements), ``vacuous``, ``redundant``, ``witness`` (a
            weak-spec witness: trivial or clearly wrong behaviour the spec admits), ``consistent``,
            ``unrealizable``, ``violation``, ``repair``, ``unknown``, ...
        severity: ``error`` (exit code 1 like a refutation: a conflict, an unrealizable contract, a config
            violation), ``warning``, ``info`` or ``unknown``; empty means derived from ``kind`` (:attr:`level`).
        scope: what was analysed (``function sort_list``, ``config retention``).
        requirements: the requirement IDs involved (for a conflict: the minimal core, in source order).
        message: one line for people.
        details: further lines (the prose of each requirement in a core, the model, ...).
        witness: a concrete call or assignment (``sort_list([3, 1]) -> []``), when there is one.
        elapsed_s: solver wall-clock seconds.
    """

    code: str
    kind: str
    severity: str
    scope: str
    requirements: tuple[str, ...]
    message: str
    details: tuple[str, ...] = ()
    witness: str | None = None
    elapsed_s: float = 0.0

    @property
    def requirement_ids(self) -> tuple[str, ...]:
        """The requirements involved (the same as :attr:`requirements`)."""
        return self.requirements

    @property
    def detail(self) -> str:
        """:attr:`details` as lines, then ``witness: ...`` when there is a witness; may be empty."""
        text = "\n".join(self.details)
        if self.witness:
            text = f"{text}\nwitness: {self.witness}"
        return text.strip()

    @property
    def is_note(self) -> bool:
        """True for what the analysis says about itself rather than a problem of the spec: ``consistent``,
        ``realizable``, ``approximated``, ``repair`` and ``unknown`` (e.g. EG308 "not in the Z3 fragment").
        Reports count only the others (conflict, vacuous, redundant, unrealizable, witness, violation) as
        spec findings and list the notes apart."""
        return self.kind in NOTE_KINDS

    @property
    def level(self) -> str:
        """``severity``, or for an empty one: ``error`` for conflict/unrealizable/violation, ``warning`` for
        vacuous/witness, ``unknown`` for unknown, else ``info``."""
        if self.severity:
            return self.severity
        if self.kind in ("conflict", "unrealizable", "violation"):
            return "error"
        if self.kind in ("vacuous", "witness"):
            return "warning"
        return "unknown" if self.kind == "unknown" else "info"


@dataclass(frozen=True)
class Smell:
    """A requirement smell in a requirement's prose (:mod:`evalgap.verifier.analysis.smells`).

    Attributes:
        code: the smell kind (``vague-term``, ``open-ended``, ``unbounded-universal``, ``comparative``,
            ``passive-no-actor``, ``missing-unit``, ``weak-modal``).
        phrase: the text that smells, exactly as in the prose.
        start, end: character offsets of ``phrase`` in the prose (0-based, end exclusive).
        message: why it smells and what to write instead.
    """

    code: str
    phrase: str
    start: int
    end: int
    message: str


@dataclass(frozen=True)
class TestEvidence:
    """One project test that executed a requirement's target function (``--tests``).

    Attributes:
        test: the pytest node id (``test_ycsb.py::test_delete``).
        outcome: ``passed``, ``failed``, ``error`` or ``skipped``.
        functions: the requirement's target functions this test executed (qualified names).
    """

    test: str
    outcome: str
    functions: tuple[str, ...] = ()
