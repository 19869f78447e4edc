"""The gate's behaviour-diff step: which changed functions are diffed, with which input types, and how each
replayed difference is classified (``explained``, ``breaks``, ``possibly-explained``, ``possibly-breaks``,
``outside-precondition``, ``unexplained``).

The search itself is :func:`evalgap.verifier.gate.behavior_diff.diff_function` (CrossHair and Hypothesis, every
difference replayed concretely). Inputs are typed from the function's annotations (a parameter one version
leaves unannotated takes the other version's annotation, else the spec's type), and Hypothesis draws from the
spec's domain (its types with their narrowings) where the spec declares the function.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from evalgap.specs_lang import ast as A
from evalgap.translators.to_hypothesis import strategy_source
from evalgap.translators.to_icontract import Harness, build_harness
from evalgap.verifier.engines.run import ReplayResult, replay
from evalgap.verifier.gate.behavior_diff import BehaviorDifference, DiffOutcome, diff_function
from evalgap.verifier.gate.gitdiff import ChangedUnit, FileChange, Snapshot
from evalgap.verifier.gate.model import ClassifiedDifference, GateOptions
from evalgap.verifier.project.targets import Target
from evalgap.verifier.sandbox.harness_load import write_prepared

__all__ = ["DiffContext", "Side", "diff_units", "classify", "harness_sides", "param_annotations"]

@dataclass(frozen=True)
class Side:
    """One version's harness (for replaying a difference against the requirements)."""

    harness: Harness
    hdir: Path
    target: Target


@dataclass(frozen=True)
class DiffContext:
    """What the diff step needs from the gate run (all frozen data of the run)."""

    units: tuple[ChangedUnit, ...]
    files: list[FileChange]
    snap: Snapshot
    spec: A.Spec
    spec_source: str
    base_target: Target
    head_target: Target
    tmp: Path
    changed_spec: set[str]
    reach_by_req: dict[str, set[str]]
    transitions: dict[str, str]
    broken: frozenset[str]
    options: GateOptions
    extra_paths: tuple[str, ...] = ()


def _pre_violation(rep: ReplayResult) -> bool:
    """A replay that stopped at a precondition (icontract prefixes the message with its location, so the
    ``[pre]`` marker can start the second line; the replay worker's ``kind`` misses that case)."""
    msg = str(rep.data.get("message", ""))
    return rep.outcome == "violation" and (rep.data.get("kind") == "pre" or msg.startswith("[pre] ")
                                           or "\n[pre] " in msg)


def classify(unit: ChangedUnit, diff: BehaviorDifference, spec: A.Spec, sides: tuple[Side, Side] | None,
             changed_spec: set[str], reach_by_req: dict[str, set[str]],
             transitions: dict[str, str], broken: frozenset[str] = frozenset()) -> ClassifiedDifference:
    """Classify one replayed difference.

    Args:
        unit: the changed function.
        diff: the difference (its input as Python source).
        spec: the head spec.
        sides: base's and head's harnesses (None: no replay against the requirements).
        changed_spec: requirement IDs added or changed in this change.
        reach_by_req: requirement ID -> the names it reaches.
        transitions: requirement ID -> its transition in this gate.
        broken: requirement IDs newly refuted on head (``broken``, or refuted and ``new``/``changed-spec``).

    Returns:
        ``explained`` / ``breaks`` (a requirement on the function replayed at this very input: base violates
        and head meets it, or the reverse), ``outside-precondition``, ``possibly-explained`` /
        ``possibly-breaks`` (a requirement reaching the function was fixed / newly broken, but this input
        cannot be replayed against it), or ``unexplained``.
    """
    mentioned = [rid for rid, names in reach_by_req.items() if unit.name in names]
    by_spec = [rid for rid in mentioned if rid in changed_spec and rid not in broken]
    fn_reqs = [r for f in spec.functions if f.name == unit.name and unit.kind == "function"
               for r in f.requirements if r.informal is None and any(isinstance(c, A.Ensures) for c in r.clauses)]
    fixed: list[str] = []
    broke: list[str] = []
    pre: list[str] = []
    if sides is not None and fn_reqs:
        values = dict(diff.args)
        for req in fn_reqs:
            ob = sides[1].harness.obligation(req.id)
            if ob.kind != "function" or ob.function is None or any(n not in values for n, _ in ob.params):
                continue
            args = [values[n] for n, _ in ob.params]
            b = replay(sides[0].hdir, sides[0].harness, sides[0].target, ob.function, args)
            h = replay(sides[1].hdir, sides[1].harness, sides[1].target, ob.function, args)
            if _pre_violation(b) or _pre_violation(h):
                pre.append(req.id)
            elif b.outcome in ("violation", "exception") and h.outcome == "passed":
                fixed.append(req.id)
            elif h.outcome in ("violation", "exception") and b.outcome == "passed":
                broke.append(req.id)
    if broke:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "breaks", tuple(broke),
                                    "head violates the requirement at this input and base meets it")
    if by_spec:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "explained", tuple(by_spec),
                                    "a requirement on this behaviour was added or changed in this change")
    if fixed:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "explained", tuple(fixed),
                                    "base violates the requirement at this input and head meets it")
    if pre:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "outside-precondition", tuple(pre),
                                    "the input violates the function's preconditions, where any behaviour "
                                    "is allowed")
    direct = {r.id for r in fn_reqs}
    newly = [rid for rid in mentioned if rid in broken]
    if newly:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "possibly-breaks", tuple(newly),
                                    "a requirement reaching this function is newly refuted on head; this input "
                                    "was not shown to violate it, so the link is not certain")
    scen_fixed = [rid for rid in mentioned if transitions.get(rid) == "fixed" and rid not in direct]
    if scen_fixed:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "possibly-explained", tuple(scen_fixed),
                                    "a requirement reaching this function (a scenario, or a function calling "
                                    "it) was refuted on base and holds on head; this input cannot be replayed "
                                    "against that requirement, so the match is not certain")
    return ClassifiedDifference(unit.file, unit.qualname, diff, "unexplained", (),
                                "no requirement asked for this change: none is violated by base here, and "
                                "none mentioning this function changed")


def harness_sides(spec: A.Spec, source: str, base_target: Target, head_target: Target,
                  tmp: Path) -> tuple[Side, Side]:
    """Base's and head's harness modules, written under ``tmp`` (for replaying differences)."""
    sides = []
    for label, target in (("base", base_target), ("head", head_target)):
        harness = build_harness(spec, target.module, f"evalgap_gate_{label}_harness")
        hdir = tmp / f"harness-{label}"
        hdir.mkdir(exist_ok=True)
        (hdir / f"{harness.module}.py").write_text(harness.source, encoding="utf-8")
        write_prepared(hdir, harness.module, harness.source)
        sides.append(Side(harness, hdir, target))
    return sides[0], sides[1]


def roots(rel: str, snap: Snapshot, head_target: Target, base_target: Target) -> tuple[Path, Path, str]:
    """Import roots for a changed file: the target's import root when the file lies under it (a package's
    folder, a ``src/`` folder: its imports resolve there, relative ones inside its package), else the
    repository root."""
    if base_target.paths and head_target.paths:
        hroot, broot = Path(head_target.paths[0]), Path(base_target.paths[0])
        f = snap.head_dir / rel
        if f.is_relative_to(hroot) and broot.is_relative_to(snap.base_dir):
            return broot, hroot, str(f.relative_to(hroot))
    return snap.base_dir, snap.head_dir, rel


def param_annotations(source: str | None, qualname: str) -> dict[str, str]:
    """Parameter -> annotation source of ``qualname`` in ``source`` (``{}`` when absent or unannotated)."""
    if not source:
        return {}
    try:
        body: list[ast.stmt] = ast.parse(source).body
    except SyntaxError:
        return {}
    node: ast.stmt | None = None
    for part in qualname.split("."):
        node = next((s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and s.name == part), None)
        if node is None:
            return {}
        body = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    a = node.args
    return {p.arg: ast.unparse(p.annotation) for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]
            if p.annotation is not None}


def _spec_domain(spec: A.Spec, unit: ChangedUnit) -> tuple[dict[str, str], dict[str, str]]:
    """(parameter -> type source, parameter -> Hypothesis strategy source) from the spec's declaration."""
    if unit.kind != "function":
        return {}, {}
    for f in spec.functions:
        if f.name == unit.name:
            strategies: dict[str, str] = {}
            for p in f.params:
                try:
                    strategies[p.name] = strategy_source(p.type, from_type=True)
                except Exception:  # noqa: BLE001 - a type without a strategy falls back to the annotation
                    pass
            return {p.name: str(p.type) for p in f.params}, strategies
    return {}, {}


def diff_units(ctx: DiffContext, notes: list[str]) -> tuple[list[DiffOutcome], list[ClassifiedDifference]]:
    """Diff every changed function whose parameters are the same in both versions and classify what differs.

    Args:
        ctx: the gate run's data.
        notes: the report's notes (functions not diffed are noted here, with why).

    Returns:
        (one outcome per diffed function, the classified differences).
    """
    units = ctx.units
    candidates = [u for u in units if u.kind in ("function", "method") and (u.same_signature or u.same_parameters)]
    reshaped = {u.qualname.rsplit(".", 1)[0] for u in units if u.kind == "method" and u.name in (
        "__init__", "__post_init__", "__new__", "__setstate__")} | {u.qualname for u in units if u.kind == "class"}
    for u in [c for c in candidates if c.kind == "method" and c.qualname.rsplit(".", 1)[0] in reshaped]:
        candidates.remove(u)
        notes.append(f"{u.file}:{u.qualname} not diffed: its class's constructor or class body changed, "
                     "so one instance cannot stand for both versions")
    for u in units:
        if u.kind in ("function", "method") and u.change == "modified" and not (u.same_signature or u.same_parameters):
            notes.append(f"{u.file}:{u.qualname} changed its parameters {u.base_signature} -> "
                         f"{u.head_signature}: not diffed (inputs of one version do not fit the other)")
    sources = {f.path: (f.base_source, f.head_source) for f in ctx.files}
    sides = harness_sides(ctx.spec, ctx.spec_source, ctx.base_target, ctx.head_target, ctx.tmp) if candidates else None
    opts = ctx.options
    examples = opts.hypothesis_examples if "hypothesis" in opts.engines else 0
    diffs: list[DiffOutcome] = []
    classified: list[ClassifiedDifference] = []
    for u in candidates:
        if u.annotations_only and not u.decorated:
            diffs.append(DiffOutcome(u.qualname, u.file, "no-difference", reason=(
                "only annotations changed (parameters, defaults, decorators and body are the same, and no "
                "decorator reads the annotations): no input behaves differently")))
            continue
        base_src, head_src = sources.get(u.file, (None, None))
        spec_types, strategies = _spec_domain(ctx.spec, u)
        annotations = {**spec_types, **param_annotations(base_src, u.qualname), **param_annotations(head_src, u.qualname)}
        root_b, root_h, rel = roots(u.file, ctx.snap, ctx.head_target, ctx.base_target)
        outcome = diff_function(root_b, root_h, rel, u.qualname, opts.diff_budget_s, annotations=annotations,
                                hypothesis_examples=examples, strategies=strategies,
                                storage_dir=_storage_dir(), extra_paths=ctx.extra_paths, spec_types=spec_types)
        outcome = dataclasses.replace(outcome, file=u.file)  # repository-relative, whatever the import root
        diffs.append(outcome)
        for d in outcome.differences:
            classified.append(classify(u, d, ctx.spec, sides, ctx.changed_spec, ctx.reach_by_req, ctx.transitions,
                                       ctx.broken))
    return diffs, classified


def _storage_dir() -> str:
    from evalgap.verifier.engines.hypothesis import _storage_dir as shared
    from evalgap.verifier.options import Settings

    return shared(Settings())
