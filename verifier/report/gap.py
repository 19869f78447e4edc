"""Build the :class:`GapReport` (frozen data) from requirement results; renderers only render it.

The report adds to the engines' verdicts: traceability to the target's functions, the project's tests that
exercise each requirement (``--tests``), requirement smells in the prose, the evaluation-gap flags, spec-level
findings (e.g. the Z3 analysis) and formalization coverage. Every flag and exit code: docs/verdicts.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from evalgap.verifier.sandbox import isolation
from evalgap.specs_lang import ast as A
from evalgap.specs_lang.diagnostics import codes_of
from evalgap.verifier.errors import UsageError
from evalgap.verifier.findings import RequirementResult, SpecFinding, Verdict
from evalgap.verifier.analysis.smells import find_smells
from evalgap.verifier.project.tests_map import TestSuiteResult, tests_for
from evalgap.verifier.report.traceability import requirement_functions, target_definitions

if TYPE_CHECKING:
    from evalgap.verifier.analysis.spec_findings import AnalysisReport

__all__ = ["GapReport", "build_report", "exit_code", "requirement_flags", "parse_fail_on", "SCHEMA_VERSION",
           "EXIT_OK", "EXIT_REFUTED", "EXIT_USAGE", "EXIT_UNKNOWN", "FLAGS", "FAIL_ON_CHOICES",
           "DEFAULT_FAIL_ON", "REPORT_CODES", "bounded", "verdict_label", "split_location", "spec_findings_from"]

SCHEMA_VERSION = "1.3"

#: Exit codes, the same for every command (docs/verdicts.md). Precedence when several apply: 2, 1, 3.
EXIT_OK, EXIT_REFUTED, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3

#: Evaluation-gap flags, in display order, with their meaning.
FLAGS: dict[str, str] = {
    "tests-pass-but-refuted": "the project's tests that exercise this requirement all pass, yet the code is "
                              "refuted: the evaluator missed a violation",
    "tested-only": "tests exercise the requirement's functions, but no engine reached a verdict (not "
                   "formalized, or every formal check unknown)",
    "example-only": "only concrete examples are formalized: a test, not a property",
    "bounded-only": "no counterexample within the budget, but no proof either",
    "bounded-proof": "verified only within the listed bounds (a class invariant's call-sequence length, "
                     "collection sizes, numeric ranges, string alphabets): a proof of the bounded claim",
    "not-formalized": "the requirement has no formal clause (see its category and reason)",
    "engines-disagree": "one engine refuted what another verified or found no counterexample for",
    "narrowed-domain": "the verdict holds only under the listed assumptions (preconditions, ranges, "
                       "alphabets, imported benchmark contracts)",
    "weak": "verified or unrefuted, but the requirement rejects few mutants of the code it is about "
            "(spec strength below its threshold; --strength): a wrong version would pass it too",
}

#: Finding codes of the gap report itself (EG5xx; EG1xx/EG2xx are spec errors, EG3xx spec analysis).
REPORT_CODES: dict[str, str] = {c: d.title for c, d in codes_of("EG5").items()}  # a view of the registry

#: What ``--fail-on`` accepts; exit 1 for all but ``unknown`` (exit 3).
FAIL_ON_CHOICES = ("refuted", "unknown", "bounded", "not-formalized", "smell", "weak")
DEFAULT_FAIL_ON = ("refuted", "unknown")


def _version(dist: str) -> str:
    from evalgap.verifier.cache import dist_version  # no importlib.metadata on the common path

    return dist_version(dist) or "not installed"


@dataclass(frozen=True)
class GapReport:
    """The gap report of one spec checked against one target.

    Attributes:
        spec_name, spec_title, spec_file: the spec.
        target: how the target was named (path, module or ``name (file)``).
        budget_s: CrossHair CPU seconds per requirement.
        requirements: one result per requirement, in source order (with traceability, tests, smells, flags).
        elapsed_s: wall-clock seconds of the whole check.
        tools: versions of evalgap, crosshair-tool, icontract, z3-solver.
        expected: for a case folder, requirement ID -> acceptable verdicts from the manifest.
        target_file: the target's file (absolute) when known.
        function_lines: target function qualified name -> 1-based line of its ``def`` in ``target_file``.
        spec_findings: findings about the spec itself (conflicts, vacuity, weak-spec witnesses, ...).
        tests: the project's test run when ``--tests`` was given.
        analysis: the Z3 analysis report the ``spec_findings`` come from (its timing and scopes), or None.
        sandbox: the isolation the target's code ran under: ``os (landlock abi 7, netns, pidns, userns)`` (the
            mechanisms in force) or ``python-guard`` (no OS isolation: only the audit-hook guard and rlimits).
    """

    spec_name: str
    spec_title: str
    spec_file: str
    target: str
    budget_s: float
    requirements: tuple[RequirementResult, ...]
    elapsed_s: float
    tools: dict[str, str] = field(default_factory=dict)
    expected: dict[str, tuple[str, ...]] = field(default_factory=dict)
    target_file: str | None = None
    function_lines: dict[str, int] = field(default_factory=dict)
    spec_findings: tuple[SpecFinding, ...] = ()
    tests: TestSuiteResult | None = None
    analysis: AnalysisReport | None = None
    sandbox: str = "python-guard"

    def summary(self) -> dict[str, int]:
        """Counts: requirements, formalized, preconditions, and one per verdict word."""
        counts = {v.value: 0 for v in Verdict}
        for r in self.requirements:
            if r.verdict is not None:
                counts[r.verdict.value] += 1
        counts["requirements"] = len(self.requirements)
        counts["formalized"] = sum(1 for r in self.requirements if r.formalization != "informal")
        counts["preconditions"] = sum(1 for r in self.requirements if r.role == "precondition")
        return counts

    def coverage(self) -> dict[str, float | int]:
        """Formalization coverage: ``formalized`` / ``requirements`` as ``ratio`` (0..1; 0 for no
        requirements), plus ``checked`` (requirements with a verdict other than unknown/not-formalized)."""
        n = len(self.requirements)
        formalized = sum(1 for r in self.requirements if r.formalization != "informal")
        checked = sum(1 for r in self.requirements if r.verdict in (Verdict.VERIFIED, Verdict.REFUTED,
                                                                      Verdict.NO_COUNTEREXAMPLE))
        return {"requirements": n, "formalized": formalized, "checked": checked,
                "ratio": round(formalized / n, 4) if n else 0.0}

    def real_spec_findings(self) -> list[SpecFinding]:
        """The spec findings that are problems of the spec (conflict, vacuous, redundant, unrealizable,
        witness, violation): what the summary counts as "spec findings"."""
        return [f for f in self.spec_findings if not f.is_note]

    def analysis_notes(self) -> list[SpecFinding]:
        """The analysis's notes about itself (consistent, realizable, approximated, unknown such as EG308
        "not in the Z3 fragment"), listed apart from the spec findings."""
        return [f for f in self.spec_findings if f.is_note]

    def flag_counts(self) -> dict[str, int]:
        """Flag -> number of requirements carrying it (every flag of :data:`FLAGS` present)."""
        out = {f: 0 for f in FLAGS}
        for r in self.requirements:
            for f in r.flags:
                out[f] += 1
        return out

    def smell_counts(self) -> dict[str, int]:
        """Smell code -> number of occurrences over all requirements' prose (only codes that occur)."""
        out: dict[str, int] = {}
        for r in self.requirements:
            for s in r.smells:
                out[s.code] = out.get(s.code, 0) + 1
        return out

    def findings_for(self, req_id: str) -> list[SpecFinding]:
        """The spec findings that name requirement ``req_id``."""
        return [f for f in self.spec_findings if req_id in f.requirement_ids]

    def unknown_expected(self) -> list[str]:
        """Requirement IDs the manifest gives a verdict for that the spec does not have (a typo or a renamed
        requirement: a manifest that names them must not read as matching), sorted."""
        return sorted(set(self.expected) - {r.id for r in self.requirements})

    def mismatches(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """``(id, actual, expected)`` for every requirement whose verdict the manifest does not accept."""
        out = []
        for r in self.requirements:
            want = self.expected.get(r.id)
            got = r.verdict.value if r.verdict is not None else "precondition"
            if want is not None and got not in want:
                out.append((r.id, got, want))
        return out


def requirement_flags(r: RequirementResult) -> tuple[str, ...]:
    """The evaluation-gap flags of one requirement (see :data:`FLAGS`), in :data:`FLAGS` order.

    Reads ``verdict``, ``verdicts``, ``formalization``, ``tests``, ``bounds`` and ``narrowed_by``/``assumptions``;
    a precondition requirement gets no flag (it is not checked against the code; it *is* a narrowing).
    """
    if r.role == "precondition":
        return ()
    flags: set[str] = set()
    engines = {v.verdict for v in r.verdicts}
    ran = [t for t in r.tests if t.outcome != "skipped"]
    if r.verdict is Verdict.REFUTED and ran and all(t.outcome == "passed" for t in ran):
        flags.add("tests-pass-but-refuted")
    if ran and r.verdict in (Verdict.NOT_FORMALIZED, Verdict.UNKNOWN):
        flags.add("tested-only")
    if r.formalization == "example":
        flags.add("example-only")
    if r.verdict is Verdict.NO_COUNTEREXAMPLE:
        flags.add("bounded-only")
    if r.verdict is Verdict.VERIFIED and r.bounds:
        flags.add("bounded-proof")
    if r.verdict is Verdict.NOT_FORMALIZED:
        flags.add("not-formalized")
    if Verdict.REFUTED in engines and engines & {Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE}:
        flags.add("engines-disagree")
    if r.narrowed_by or any(v.assumptions for v in r.verdicts):
        flags.add("narrowed-domain")
    if r.strength is not None and r.strength.weak and r.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE):
        flags.add("weak")
    return tuple(f for f in FLAGS if f in flags)


def build_report(spec_name: str, spec_title: str, spec_file: str, target: str, budget_s: float,
                 results: list[RequirementResult], elapsed_s: float,
                 expected: dict[str, tuple[str, ...]] | None = None, *, spec: A.Spec | None = None,
                 target_file: str | None = None, tests: TestSuiteResult | None = None,
                 spec_findings: tuple[SpecFinding, ...] = (), sandbox: str | None = None) -> GapReport:
    """Assemble a :class:`GapReport`: tool versions, traceability, tests, smells and flags.

    Args:
        spec_name, spec_title, spec_file, target, budget_s, elapsed_s, expected: see :class:`GapReport`.
        results: the engines' results, one per requirement, in source order.
        spec: the parsed spec, for traceability to target functions (None: no traceability, no tests).
        target_file: the target's ``.py`` file, parsed (not imported) for its functions' lines.
        tests: the project's test run (:func:`evalgap.verifier.project.tests_map.run_tests`), or None.
        spec_findings: findings about the spec (the Z3 analysis), attached as they are.
        sandbox: what the jobs ran under (None: every job of this process so far,
            :func:`evalgap.verifier.sandbox.isolation.summary`).
    """
    tools = {d: _version(d) for d in ("evalgap", "crosshair-tool", "icontract", "z3-solver", "lark")}
    defs = target_definitions(target_file)
    owners = {req.id: (req, owner) for req, owner in spec.all_requirements()} if spec is not None else {}
    out = []
    for r in results:
        funcs: tuple[str, ...] = r.target_functions
        if r.id in owners and spec is not None:
            req, owner = owners[r.id]
            funcs = requirement_functions(req, owner, spec, defs) or (
                (r.function,) if r.function and r.function in defs else ())
        ev = tests_for(funcs, tests) if tests is not None else r.tests
        r2 = replace(r, target_functions=funcs, tests=ev, smells=r.smells or find_smells(r.prose))
        out.append(replace(r2, flags=requirement_flags(r2)))
    return GapReport(spec_name, spec_title, spec_file, target, budget_s, tuple(out), elapsed_s, tools,
                     dict(expected or {}), target_file, defs, tuple(spec_findings), tests,
                     sandbox=sandbox if sandbox is not None else isolation.summary())


def split_location(location: str) -> tuple[str, int, int]:
    """``"path/spec.req:12:3"`` -> ``("path/spec.req", 12, 3)``; a location without line/column gives 0s."""
    parts = location.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    return location, 0, 0


def spec_findings_from(analysis: AnalysisReport | None) -> tuple[SpecFinding, ...]:
    """The findings of the Z3 analysis report ``analysis`` (the same records: one findings model), ``()`` for
    None."""
    return () if analysis is None else tuple(analysis.findings)


def budget_use(r: RequirementResult) -> str:
    """How much of its budget each engine used on ``r``, e.g. ``crosshair 2.1 of 3 s, 41 paths (8.0 s wall);
    hypothesis 200 examples (3.5 s wall)``; empty when no engine ran (issue 20: engines side by side)."""
    parts = []
    for v in r.verdicts:
        b = v.budget
        if b is None or v.engine in ("none", "nondeterminism", "gaming"):
            continue
        if v.engine == "enumeration" and b.examples is not None:
            used = f"{b.examples} inputs"
        elif b.seconds is not None and b.used_s is not None:
            used = f"{b.used_s:.1f} of {b.seconds:g} s" + (f", {b.paths} paths" if b.paths is not None else "")
        elif b.examples is not None:
            used = f"{b.examples} examples"
        else:
            continue
        parts.append(f"{v.engine} {used}" + (" (cached)" if v.cached else f" ({v.elapsed_s:.1f} s wall)"))
    return "; ".join(parts)


def bounded(r: RequirementResult) -> bool:
    """Whether ``--fail-on bounded`` counts ``r``: its overall verdict is ``no-counterexample`` (the
    ``bounded-only`` flag) or a ``verified`` that holds only within its bounds (``bounded-proof``)."""
    return r.verdict is Verdict.NO_COUNTEREXAMPLE or (r.verdict is Verdict.VERIFIED and bool(r.bounds))


def verdict_label(r: RequirementResult) -> str:
    """The overall verdict word with its bounds, as every renderer prints it: ``verified within bounds:
    call sequence: at most 3 method calls ...`` for a bounded proof, ``no-counterexample within bounds:
    ...`` likewise, else the bare word (``precondition`` for a precondition requirement)."""
    if r.verdict is None:
        return "precondition"
    if r.bounds:
        return f"{r.verdict.value} within bounds: {'; '.join(r.bounds)}"
    return r.verdict.value


def parse_fail_on(text: str, origin: str = "--fail-on") -> tuple[str, ...]:
    """``"refuted,smell"`` -> ``("refuted", "smell")``; ``origin`` names where the text came from in the message.

    Raises:
        UsageError: an empty list or a word not in :data:`FAIL_ON_CHOICES` (the message lists them).
    """
    words = tuple(w.strip() for w in text.split(",") if w.strip())
    bad = [w for w in words if w not in FAIL_ON_CHOICES]
    if bad or not words:
        raise UsageError(f"{origin} {text!r}: {'unknown word ' + repr(bad[0]) if bad else 'empty'}; "
                         f"use a comma-separated list of {', '.join(FAIL_ON_CHOICES)}")
    return words


def exit_code(report: GapReport, fail_on: tuple[str, ...] = DEFAULT_FAIL_ON) -> int:
    """The exit code of ``check`` (usage and spec errors exit 2 before a report exists).

    1 when something listed in ``fail_on`` other than ``unknown`` occurs: ``refuted`` (a refuted
    requirement or a spec finding of level ``error``: conflict, unrealizable contract, config violation),
    ``bounded`` (a no-counterexample verdict, or a ``verified`` with bounds: see :func:`bounded`),
    ``not-formalized``, ``smell`` (any requirement smell), ``weak`` (a requirement flagged ``weak`` by
    ``--strength``); else 3 when ``unknown`` is listed and a verdict
    is unknown; else 0. With the default ``refuted,unknown``: 1 refuted, 3 only unknowns, 0 otherwise.
    """
    verdicts = {r.verdict for r in report.requirements}
    failing = (
        ("refuted" in fail_on and (Verdict.REFUTED in verdicts
                                   or any(f.level == "error" for f in report.spec_findings)
                                   or (report.analysis is not None
                                       and any(f.level == "error" for f in report.analysis.findings))))
        or ("bounded" in fail_on and any(bounded(r) for r in report.requirements))
        or ("not-formalized" in fail_on and Verdict.NOT_FORMALIZED in verdicts)
        or ("smell" in fail_on and any(r.smells for r in report.requirements))
        or ("weak" in fail_on and any("weak" in r.flags for r in report.requirements))
    )
    if failing:
        return EXIT_REFUTED
    if "unknown" in fail_on and Verdict.UNKNOWN in verdicts:
        return EXIT_UNKNOWN
    return EXIT_OK
