"""The merge gate: what a proposed change breaks, which behaviour it changes that nobody asked for, and
whether it games the evaluator.

Steps (``evalgap gate``; docs/gate.md):

1. Materialize base and head side by side (:mod:`evalgap.verifier.gate.gitdiff`) and find the changed
   functions, methods and classes by parsing both versions.
2. Map them to the requirements that mention them: directly (the ``function`` a requirement belongs to,
   or a name in its clauses) or through calls (a static call graph of the changed files and the target:
   a scenario calling ``process`` reaches a changed helper ``_dedupe`` that ``process`` calls).
   Requirements whose text changed in the spec are included too.
3. Check only those requirements (:func:`evalgap.verifier.engines.run.check_spec`) on head and on base; the
   transition (fixed, broken, still refuted, unchanged, new) is reported per requirement.
4. For each changed function with the same signature in both versions, search for inputs where base and
   head differ (:mod:`evalgap.verifier.gate.behavior_diff`) and classify each difference:
   ``explained`` (a requirement on that function is violated by base and met by head at that input, or a
   requirement mentioning it changed in this change), ``possibly-explained`` (a requirement reaching it
   through a scenario or a caller was refuted on base and not on head: the input cannot be replayed
   against it),
   ``outside-precondition`` (the input violates the function's preconditions) or ``unexplained``.
5. Scan the added lines for evaluator gaming (:mod:`evalgap.verifier.analysis.gaming`).

Exit codes (:func:`gate_exit_code`): 1 when a checked requirement is refuted on head or an unsilenced gaming
finding exists (and, with ``fail_on_unexplained``, an unexplained behaviour change); 3 when a checked
requirement is unknown and nothing is 1; else 0. Usage and spec errors raise (the CLI exits 2).
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import evalgap
from evalgap.specs_lang.loader import LoadedSpec
from evalgap.specs_lang import ast as A
from evalgap.specs_lang import check_structure, parse_file
from evalgap.translators.to_icontract import Harness, build_harness
from evalgap.verifier.gate.behavior_diff import BehaviorDifference, DiffOutcome, diff_function
from evalgap.verifier.options import Settings
from evalgap.verifier.engines.run import ReplayResult, formal_text, replay
from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.analysis.gaming import GamingFinding, TestLiterals, is_test_path, scan_source
from evalgap.verifier.gate.model import (DEFAULT_TEST_GLOBS, ClassifiedDifference, GateOptions, GateReport,
                                         RequirementChange, gate_exit_code)
from evalgap.verifier.gate.gitdiff import ChangedUnit, GateError, Snapshot, file_changes, materialize
from evalgap.verifier.errors import TargetError
from evalgap.verifier.project.targets import Target, resolve_target
from evalgap.specs_lang.textfile import MAX_SPEC_BYTES, read_text

__all__ = ["GateOptions", "RequirementChange", "ClassifiedDifference", "GateReport", "run_gate",
           "gate_exit_code", "requirement_names", "DEFAULT_TEST_GLOBS"]


# ------------------------------------------------------------------ requirement -> names
def _walk_names(node: Any, out: set[str]) -> None:
    if isinstance(node, A.Name):
        out.add(node.id)
    elif isinstance(node, A.Attribute):
        out.add(node.attr)
    elif isinstance(node, A.TypeRef):
        out.add(node.name.rsplit(".", 1)[-1])
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            if f.name != "span":
                _walk_names(getattr(node, f.name), out)
    elif isinstance(node, tuple):
        for item in node:
            _walk_names(item, out)


def requirement_names(req: A.Requirement, owner: object) -> set[str]:
    """The names a requirement mentions: its clauses' names and attributes (``s.put`` gives ``put``), type
    names, and the function, method or class it belongs to."""
    out: set[str] = set()
    _walk_names(req.clauses, out)
    if isinstance(owner, (A.FunctionDecl, A.MethodDecl, A.ClassDecl)):
        out.add(owner.name)
        if not isinstance(owner, A.ClassDecl):
            _walk_names(owner.params, out)
    return out


def _call_graph(sources: Iterable[str]) -> dict[str, set[str]]:
    """Simple name -> names it calls or instantiates (``self.m()`` gives ``m``); a class reaches its
    ``__init__``/``__post_init__``/``__call__``. Merges same-named units (a static over-approximation)."""
    graph: dict[str, set[str]] = {}
    for src in sources:
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                called = graph.setdefault(node.name, set())
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Call):
                        f = sub.func
                        if isinstance(f, ast.Name):
                            called.add(f.id)
                        elif isinstance(f, ast.Attribute):
                            called.add(f.attr)
                    elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                        called.add(sub.id)  # functions passed as values (key=_rank)
            elif isinstance(node, ast.ClassDef):
                graph.setdefault(node.name, set()).update(
                    {"__init__", "__post_init__", "__call__", "__new__"} & {
                        s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))})
    return graph


def _reach(names: set[str], graph: dict[str, set[str]]) -> set[str]:
    seen = set(names)
    todo = list(names)
    while todo:
        for callee in graph.get(todo.pop(), ()):
            if callee not in seen:
                seen.add(callee)
                todo.append(callee)
    return seen


def _unit_keys(u: ChangedUnit, units_by_file: dict[str, set[str]]) -> set[str]:
    if u.qualname == "<module>":
        return units_by_file.get(u.file, set())
    return {u.name}


# ------------------------------------------------------------------ spec helpers
def _req_text(spec: A.Spec, source: str) -> dict[str, str]:
    return {r.id: r.prose + "\n" + formal_text(r, source) for r, _ in spec.all_requirements()}


def _filter_spec(spec: A.Spec, keep: set[str]) -> A.Spec:
    """``spec`` with only the requirements in ``keep`` (plus the precondition-only requirements of the
    functions that keep any, since they narrow those requirements' domain)."""
    def pre_only(r: A.Requirement) -> bool:
        return r.informal is None and bool(r.clauses) and all(isinstance(c, A.Requires) for c in r.clauses)

    functions = []
    for f in spec.functions:
        mine = [r for r in f.requirements if r.id in keep]
        if any(not pre_only(r) for r in mine):
            mine = [r for r in f.requirements if r.id in keep or pre_only(r)]
        if mine:
            functions.append(dataclasses.replace(f, requirements=tuple(mine)))
    classes = []
    for c in spec.classes:
        methods = tuple(dataclasses.replace(m, requirements=tuple(r for r in m.requirements if r.id in keep))
                        for m in c.methods)
        classes.append(dataclasses.replace(c, methods=methods,
                                           requirements=tuple(r for r in c.requirements if r.id in keep)))
    return dataclasses.replace(spec, requirements=tuple(r for r in spec.requirements if r.id in keep),
                               functions=tuple(functions), classes=tuple(classes))


def _transition(base: RequirementResult | None, head: RequirementResult, in_base_spec: bool,
                spec_changed: bool) -> str:
    if not in_base_spec:
        return "new"
    if spec_changed:
        return "changed-spec"
    hb = head.verdict is Verdict.REFUTED
    bb = base is not None and base.verdict is Verdict.REFUTED
    if hb and not bb:
        return "broken"
    if hb:
        return "still-refuted"
    if bb:
        return "fixed"
    return "unchanged"


def _test_literals(head_dir: Path, globs: tuple[str, ...]) -> TestLiterals:
    lits = TestLiterals()
    seen: set[Path] = set()
    for pattern in globs:
        for p in sorted(head_dir.glob(pattern)):
            if p.is_file() and p.suffix == ".py" and p not in seen:
                seen.add(p)
                lits = lits.merge(TestLiterals.from_test_source(p.read_text(encoding="utf-8", errors="replace")))
    return lits


def _is_test_file(rel: str, globs: tuple[str, ...]) -> bool:
    return is_test_path(rel) or any(fnmatch.fnmatch(rel, g) for g in globs)


# ------------------------------------------------------------------ classification of differences
@dataclass(frozen=True)
class _Side:
    harness: Harness
    hdir: Path
    target: Target


def _pre_violation(rep: ReplayResult) -> bool:
    """A replay that stopped at a precondition (icontract prefixes the message with its location, so the
    ``[pre]`` marker can start the second line; the replay worker's ``kind`` misses that case)."""
    msg = str(rep.data.get("message", ""))
    return rep.outcome == "violation" and (rep.data.get("kind") == "pre" or msg.startswith("[pre] ")
                                           or "\n[pre] " in msg)


def _classify(unit: ChangedUnit, diff: BehaviorDifference, spec: A.Spec, sides: tuple[_Side, _Side] | None,
              changed_spec: set[str], reach_by_req: dict[str, set[str]],
              transitions: dict[str, str]) -> ClassifiedDifference:
    mentioned = [rid for rid, names in reach_by_req.items() if unit.name in names]
    by_spec = [rid for rid in mentioned if rid in changed_spec]
    if by_spec:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "explained", tuple(by_spec),
                                    "a requirement on this behaviour was added or changed in this change")
    fn_reqs = [(r, f) for f in spec.functions if f.name == unit.name and unit.kind == "function"
               for r in f.requirements if r.informal is None and any(isinstance(c, A.Ensures) for c in r.clauses)]
    if sides is not None and fn_reqs:
        values = dict(diff.args)
        fixed: list[str] = []
        pre: list[str] = []
        for req, _decl in fn_reqs:
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
        if fixed:
            return ClassifiedDifference(unit.file, unit.qualname, diff, "explained", tuple(fixed),
                                        "base violates the requirement at this input and head meets it")
        if pre:
            return ClassifiedDifference(unit.file, unit.qualname, diff, "outside-precondition", tuple(pre),
                                        "the input violates the function's preconditions, where any behaviour "
                                        "is allowed")
    scen_fixed = [rid for rid in mentioned if transitions.get(rid) == "fixed"
                  and rid not in {r.id for r, _ in fn_reqs}]
    if scen_fixed:
        return ClassifiedDifference(unit.file, unit.qualname, diff, "possibly-explained", tuple(scen_fixed),
                                    "a requirement reaching this function (a scenario, or a function calling "
                                    "it) was refuted on base and holds on head; this input cannot be replayed "
                                    "against that requirement, so the match is not certain")
    return ClassifiedDifference(unit.file, unit.qualname, diff, "unexplained", (),
                                "no requirement asked for this change: none is violated by base here, and "
                                "none mentioning this function changed")


# ------------------------------------------------------------------ orchestration
def _locate_spec(spec: Path, snap: Snapshot, top: Path) -> tuple[Path, Path | None, str]:
    """(head spec, base spec or None, display) for a spec inside the repository or outside it."""
    cand = spec if spec.is_absolute() else (Path.cwd() / spec)
    try:
        rel = cand.resolve().relative_to(top)
    except ValueError:
        rel = None
    if rel is None and not spec.is_absolute() and (snap.head_dir / spec).exists():
        rel = spec
    if rel is not None:
        head = snap.head_dir / rel
        if not head.is_file():
            raise GateError(f"spec {rel} does not exist in the head version")
        base = snap.base_dir / rel
        return head, base if base.is_file() else None, str(rel)
    if not cand.is_file():
        raise GateError(f"spec {spec} does not exist")
    return cand, cand, str(spec)


def _target(spec: A.Spec, spec_path: Path, root: Path, override: str | None, top: Path) -> Target:
    """The target inside ``root`` (one materialized version): ``--target`` is repository-relative; a
    spec's ``target:`` is relative to the spec, and must land inside the repository."""
    if override is not None:
        return resolve_target(override, root)
    if spec.target is None:
        raise GateError(f"{spec_path.name}: no target: add `target: FILE.py` to the spec or pass --target")
    if spec_path.resolve().is_relative_to(root.resolve()):
        return resolve_target(spec.target, spec_path.parent.resolve())
    outside = (spec_path.parent / spec.target).resolve()
    if not outside.is_relative_to(top):
        raise GateError(f"the spec's target {spec.target!r} is outside the repository {top}; pass --target "
                        "FILE.py (repository-relative)")
    return resolve_target(str(outside.relative_to(top)), root)


def run_gate(repo: Path, spec: Path, base: str, head: str | None, patch: Path | None,
             options: GateOptions) -> GateReport:
    """Run the gate on a change of ``repo``.

    Args:
        repo: a folder inside a git repository.
        spec: the ``.req`` file (repository-relative or inside the repository: read from each version;
            outside it: the same file for both).
        base, head, patch: the change (see :func:`evalgap.verifier.gate.gitdiff.materialize`).
        options: budgets and switches.

    Returns:
        The :class:`GateReport`.

    Raises:
        GateError: the change cannot be materialized or the spec/target cannot be found.
        SpecError: the spec does not parse or is structurally wrong.
    """
    started = time.monotonic()
    from evalgap.verifier.sandbox import isolation

    jobs_from = isolation.mark()
    import subprocess

    try:
        top = Path(subprocess.run(["git", "-C", str(repo), "rev-parse", "--show-toplevel"], capture_output=True,
                                  text=True, check=True).stdout.strip()).resolve()
    except (subprocess.CalledProcessError, FileNotFoundError):
        raise GateError(f"{repo} is not inside a git repository") from None
    with tempfile.TemporaryDirectory(prefix="evalgap-gate-") as tmp:
        snap = materialize(top, base, head, patch, Path(tmp))
        head_spec_path, base_spec_path, spec_display = _locate_spec(spec, snap, top)
        head_src = read_text(head_spec_path, "spec", MAX_SPEC_BYTES)
        head_spec = parse_file(head_spec_path)
        check_structure(head_spec, head_src)
        base_text: dict[str, str] = {}
        if base_spec_path is not None:
            try:
                base_src = read_text(base_spec_path, "spec", MAX_SPEC_BYTES)
                base_text = _req_text(parse_file(base_spec_path), base_src)
            except Exception:  # noqa: BLE001 - a base spec that no longer parses only loses the comparison
                base_text = {}
        head_text = _req_text(head_spec, head_src)
        changed_spec = {rid for rid, t in head_text.items() if base_text.get(rid) != t}
        head_target = _target(head_spec, head_spec_path, snap.head_dir, options.target, top)
        notes: list[str] = []
        try:
            base_target: Target | None = _target(
                head_spec, snap.base_dir / head_spec_path.relative_to(snap.head_dir)
                if head_spec_path.is_relative_to(snap.head_dir) else head_spec_path,
                snap.base_dir, options.target, top)
        except TargetError:
            base_target = None
            notes.append("the target does not exist in the base version: requirements are checked on head only "
                         "and no behaviour is diffed")
        try:
            files = file_changes(snap)
        except SyntaxError as exc:
            raise GateError(f"{exc.filename}:{exc.lineno}: the changed file does not parse: {exc.msg}") from None
        code_files = [f for f in files if not _is_test_file(f.path, options.test_globs)]
        tests_changed = [f.path for f in files if _is_test_file(f.path, options.test_globs)]
        if tests_changed:
            notes.append(f"the change edits test files: {', '.join(tests_changed)} (review them: the gate does "
                         "not check tests)")
        units = tuple(u for f in code_files for u in f.units)
        # ---- mapping
        sources = [f.head_source or "" for f in code_files] + [f.base_source or "" for f in code_files]
        if head_target.file and Path(head_target.file).is_file():
            sources.append(Path(head_target.file).read_text(encoding="utf-8", errors="replace"))
        graph = _call_graph(sources)
        units_by_file: dict[str, set[str]] = {}
        for f in code_files:
            for src in (f.head_source, f.base_source):
                if src:
                    try:
                        units_by_file.setdefault(f.path, set()).update(
                            q.rsplit(".", 1)[-1] for q in _defs(src))
                    except SyntaxError:
                        pass
        reach_by_req: dict[str, set[str]] = {}
        because: dict[str, list[str]] = {}
        for req, owner in head_spec.all_requirements():
            reach = _reach(requirement_names(req, owner), graph)
            reach_by_req[req.id] = reach
            for u in units:
                if _unit_keys(u, units_by_file) & reach:
                    because.setdefault(req.id, []).append(f"{u.file}:{u.qualname}")
            if req.id in changed_spec:
                because.setdefault(req.id, []).append("spec: " + ("added" if req.id not in base_text else "changed"))
        selected = set(because)
        subset = _filter_spec(head_spec, selected)
        copts = Settings(budget_s=options.budget_s, jobs=options.jobs, engines=options.engines, cache=False,
                         analysis=False, hypothesis_examples=options.hypothesis_examples)
        base_ids = {rid for rid in selected if rid in base_text}
        def side(spec_part: A.Spec, target: Target) -> list[RequirementResult]:
            """One side's requirement checks, through the library's one way (:func:`evalgap.check`)."""
            loaded = LoadedSpec(spec_part, {str(head_spec_path): head_src}, [str(head_spec_path)])
            return list(evalgap.check(loaded, target, settings=copts).requirements)

        with ThreadPoolExecutor(max_workers=2) as pool:  # head and base side by side (workers are processes)
            head_future = pool.submit(side, subset, head_target) if selected else None
            base_future = pool.submit(side, _filter_spec(head_spec, base_ids), base_target) \
                if base_ids and base_target is not None else None
            head_results = {r.id: r for r in head_future.result()} if head_future else {}
            base_results: dict[str, RequirementResult] = {r.id: r for r in base_future.result()} if base_future \
                else {}
        changes = []
        transitions: dict[str, str] = {}
        for req, _owner in head_spec.all_requirements():
            if req.id not in selected or req.id not in head_results:
                continue
            hr = head_results[req.id]
            if hr.role == "precondition" and req.id not in because:
                continue
            t = _transition(base_results.get(req.id), hr, req.id in base_text,
                            req.id in changed_spec and req.id in base_text)
            transitions[req.id] = t
            known = options.baseline is not None and options.baseline.known(req.id, hr.formal_text)
            changes.append(RequirementChange(req.id, req.prose, t, hr, base_results.get(req.id),
                                             tuple(because.get(req.id, ())), known))
        not_rechecked = tuple((r.id, r.prose) for r, _ in head_spec.all_requirements() if r.id not in selected)
        # ---- behaviour diffs
        diffs: list[DiffOutcome] = []
        classified: list[ClassifiedDifference] = []
        if options.behavior_diff and base_target is not None:
            candidates = [u for u in units if u.kind in ("function", "method") and u.same_signature]
            reshaped = {u.qualname.rsplit(".", 1)[0] for u in units if u.kind == "method" and u.name in (
                "__init__", "__post_init__", "__new__", "__setstate__")} | {u.qualname for u in units
                                                                          if u.kind == "class"}
            for u in [c for c in candidates if c.kind == "method" and c.qualname.rsplit(".", 1)[0] in reshaped]:
                candidates.remove(u)
                notes.append(f"{u.file}:{u.qualname} not diffed: its class's constructor or class body changed, "
                             "so one instance cannot stand for both versions")
            for u in units:
                if u.kind in ("function", "method") and u.change == "modified" and not u.same_signature:
                    notes.append(f"{u.file}:{u.qualname} changed its signature {u.base_signature} -> "
                                 f"{u.head_signature}: not diffed (inputs of one version do not fit the other)")
            sides = _harness_sides(head_spec, head_src, base_target, head_target, Path(tmp)) if candidates else None
            for u in candidates:
                root_b, root_h, rel = _roots(u.file, snap, head_target, base_target)
                outcome = diff_function(root_b, root_h, rel, u.qualname, options.diff_budget_s)
                diffs.append(outcome)
                for d in outcome.differences:
                    classified.append(_classify(u, d, head_spec, sides, changed_spec, reach_by_req, transitions))
        gaming: list[GamingFinding] = []
        literals = _test_literals(snap.head_dir, options.test_globs)
        for f in code_files:
            if f.head_source is None:
                continue
            try:
                gaming.extend(scan_source(f.head_source, f.path, f.added, literals))
            except SyntaxError as exc:
                notes.append(f"{f.path}: not scanned for gaming (does not parse: {exc.msg})")
        return GateReport(str(top), snap.base_rev, snap.head_rev, spec_display, head_target.display, units,
                          tuple(changes), not_rechecked, tuple(diffs), tuple(classified), tuple(gaming),
                          tuple(notes), options.budget_s, options.diff_budget_s, time.monotonic() - started,
                          options.fail_on_unexplained, options.fail_on_still_refuted,
                          isolation.summary(jobs_from),
                          options.baseline.file if options.baseline is not None else None)


def _defs(src: str) -> list[str]:
    return [n.name for n in ast.walk(ast.parse(src))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def _roots(rel: str, snap: Snapshot, head_target: Target, base_target: Target) -> tuple[Path, Path, str]:
    """Import roots for a changed file: the target's folder when the file is the target (its imports
    resolve there), else the repository root."""
    if head_target.file and base_target.file:
        h = Path(head_target.file)
        if h.is_relative_to(snap.head_dir) and str(h.relative_to(snap.head_dir)) == rel:
            return Path(base_target.paths[0]), Path(head_target.paths[0]), h.name
    return snap.base_dir, snap.head_dir, rel


def _harness_sides(spec: A.Spec, source: str, base_target: Target, head_target: Target,
                   tmp: Path) -> tuple[_Side, _Side]:
    sides = []
    for label, target in (("base", base_target), ("head", head_target)):
        harness = build_harness(spec, target.module, f"evalgap_gate_{label}_harness")
        hdir = tmp / f"harness-{label}"
        hdir.mkdir(exist_ok=True)
        (hdir / f"{harness.module}.py").write_text(harness.source, encoding="utf-8")
        sides.append(_Side(harness, hdir, target))
    return sides[0], sides[1]

