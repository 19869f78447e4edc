"""The gate's result model (frozen data): options, per-requirement transitions, classified behaviour
differences, the :class:`GateReport` and its exit code. Rendering is in :mod:`evalgap.verifier.gate.report`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from evalgap.verifier.analysis.gaming import GamingFinding
from evalgap.verifier.gate.baseline import Baseline
from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.gate.behavior_diff import BehaviorDifference, DiffOutcome
from evalgap.verifier.gate.gitdiff import ChangedUnit
from evalgap.verifier.options import ENGINES, Settings
from evalgap.verifier.report.gap import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN

__all__ = ["DEFAULT_TEST_GLOBS", "GateOptions", "RequirementChange", "ClassifiedDifference", "GateReport",
           "gate_exit_code", "blocks", "inconclusive"]


#: Files whose literals count as the visible tests (EG407), relative to the repository root.
DEFAULT_TEST_GLOBS = ("tests/*.py", "tests/**/*.py", "test_*.py", "**/test_*.py", "*_test.py", "**/*_test.py")


@dataclass(frozen=True)
class GateOptions:
    """Options of a gate run.

    Attributes:
        budget_s: CrossHair CPU seconds per requirement (as ``check --budget``).
        diff_budget_s: CrossHair CPU seconds per changed function for behaviour diffing.
        jobs: requirements checked in parallel.
        test_globs: repository-relative globs of the visible tests (their literals feed EG407).
        behavior_diff: run behaviour diffing at all.
        fail_on_unexplained: an unexplained behaviour change makes the exit code 1 (``--fail-on unexplained``).
        target: repository-relative ``.py`` path overriding the spec's ``target:``.
        engines: the engines run on each reached requirement, as for ``check`` (default: CrossHair and
            Hypothesis).
        hypothesis_examples: Hypothesis ``max_examples`` per requirement.
        fail_on_still_refuted: a requirement refuted on both sides blocks too (``--fail-on still-refuted``);
            by default only newly broken requirements block, as code-scanning tools report new findings apart
            from existing ones.
        baseline: a recorded report (``--baseline FILE``): a requirement refuted on base and head blocks
            unless the baseline has it refuted too; a newly broken one blocks whatever the baseline says.
        install_deps: install the project's own dependencies (its ``pyproject.toml`` / ``requirements.txt``)
            into the environment the target runs in (``--install-deps``).
    """

    budget_s: float = 10.0
    diff_budget_s: float = 10.0
    jobs: int = 1
    test_globs: tuple[str, ...] = DEFAULT_TEST_GLOBS
    behavior_diff: bool = True
    fail_on_unexplained: bool = False
    target: str | None = None
    engines: tuple[str, ...] = ENGINES
    hypothesis_examples: int = 200
    fail_on_still_refuted: bool = False
    baseline: Baseline | None = None
    install_deps: bool = False

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> GateOptions:
        """The gate's options from the one settings record (:func:`evalgap.verifier.options.resolve_settings`:
        defaults <- ``[tool.evalgap]`` <- profile <- command line): budget (also the diff budget), jobs,
        engines, Hypothesis examples and ``gate_fail_on``; ``overrides`` set any field directly."""
        base = cls(budget_s=settings.budget_s, diff_budget_s=settings.budget_s, jobs=settings.jobs,
                   engines=settings.engines, hypothesis_examples=settings.hypothesis_examples,
                   fail_on_unexplained="unexplained" in settings.gate_fail_on,
                   fail_on_still_refuted="still-refuted" in settings.gate_fail_on)
        return replace(base, **overrides)


@dataclass(frozen=True)
class RequirementChange:
    """One checked requirement: its result on head and base and what the change did to it.

    Attributes:
        id, prose: from the (head) spec.
        transition: ``fixed`` (refuted on base, not on head), ``broken`` (refuted on head only),
            ``still-refuted``, ``unchanged``, ``new`` (not in the base spec) or ``changed-spec`` (its text
            changed in this change).
        head, base: the check results (``base`` None when base was not checked).
        because: the changed units (``file:qualname``) or spec change that selected it.
        known: refuted in the recorded baseline (``--baseline``) with the same formal text.
    """

    id: str
    prose: str
    transition: str
    head: RequirementResult
    base: RequirementResult | None
    because: tuple[str, ...]
    known: bool = False


@dataclass(frozen=True)
class ClassifiedDifference:
    """A behaviour difference with its classification.

    Attributes:
        file, qualname: the changed function.
        difference: the input and both behaviours.
        classification: ``explained``, ``possibly-explained``, ``outside-precondition`` or ``unexplained``.
        explained_by: requirement IDs that explain it (or whose precondition it violates).
        note: one sentence saying why it got this classification.
    """

    file: str
    qualname: str
    difference: BehaviorDifference
    classification: str
    explained_by: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class GateReport:
    """Everything ``evalgap gate`` found (frozen data; rendering is in :mod:`evalgap.verifier.gate.report`).

    Attributes:
        repo, base_rev, head_rev, spec_file, target: what was compared and against which spec.
        changed: the changed units (all ``.py`` files of the change).
        requirements: the checked requirements, in spec order.
        not_rechecked: ``(id, prose)`` of requirements the change does not reach (not checked again).
        diffs: the behaviour-diff outcome per changed function with an unchanged signature.
        differences: every difference found, classified.
        gaming: gaming findings on added lines (silenced ones included).
        notes: remarks (files that did not parse, changed test files, functions not diffed and why).
        budget_s, diff_budget_s, elapsed_s: budgets and wall-clock time.
        sandbox: the isolation the code of both revisions ran under (as in the gap report).
        spec_name: the spec's declared name (``spec kvstore ...``; JUnit names cases ``evalgap.<name>``
            as ``check`` does); '' when unknown (then the spec file's stem stands in).
        baseline: the baseline file the blocking policy used (``--baseline``), or None.
    """

    repo: str
    base_rev: str
    head_rev: str
    spec_file: str
    target: str
    changed: tuple[ChangedUnit, ...]
    requirements: tuple[RequirementChange, ...]
    not_rechecked: tuple[tuple[str, str], ...]
    diffs: tuple[DiffOutcome, ...]
    differences: tuple[ClassifiedDifference, ...]
    gaming: tuple[GamingFinding, ...]
    notes: tuple[str, ...]
    budget_s: float
    diff_budget_s: float
    elapsed_s: float
    fail_on_unexplained: bool = False
    fail_on_still_refuted: bool = False
    sandbox: str = "python-guard"
    spec_name: str = ""
    baseline: str | None = None

    def active_gaming(self) -> list[GamingFinding]:
        """Gaming findings that are not silenced."""
        return [g for g in self.gaming if not g.silenced]

    def unexplained(self) -> list[ClassifiedDifference]:
        """Behaviour differences no requirement explains."""
        return [d for d in self.differences if d.classification == "unexplained"]


def blocks(report: GateReport, r: RequirementChange) -> bool:
    """Whether a checked requirement blocks the change: refuted on head and newly so. A requirement the change
    broke (``broken``, or refuted and ``new``/``changed-spec``) always blocks. One refuted on base and head
    (``still-refuted``) blocks with ``fail_on_still_refuted``, or against a baseline that does not have it
    refuted (the baseline is the accepted state: a refutation it does not record is new); otherwise not."""
    if r.head.verdict is not Verdict.REFUTED:
        return False
    if r.transition != "still-refuted" or report.fail_on_still_refuted:
        return True
    return report.baseline is not None and not r.known


def inconclusive(r: RequirementChange) -> bool:
    """Whether a checked requirement leaves the gate inconclusive: unknown on head, unless it was unknown on
    base too with the same spec text (``unchanged``: the change did not make it so; the behaviour diff still
    covers the function, and the report lists it as unknown on both sides)."""
    if r.head.verdict is not Verdict.UNKNOWN:
        return False
    return not (r.transition == "unchanged" and r.base is not None and r.base.verdict is Verdict.UNKNOWN)


def gate_exit_code(report: GateReport) -> int:
    """1: a reached requirement newly refuted on head (:func:`blocks`), an unsilenced gaming finding, or (with
    ``fail_on_unexplained``) an unexplained behaviour change; 3: a reached requirement newly unknown on head
    (:func:`inconclusive`); else 0."""
    blocking = [r for r in report.requirements if blocks(report, r)]
    if blocking or report.active_gaming() or (report.fail_on_unexplained and report.unexplained()):
        return EXIT_REFUTED
    if any(inconclusive(r) for r in report.requirements):
        return EXIT_UNKNOWN
    return EXIT_OK
