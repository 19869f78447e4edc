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
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterable

import evalgap
from evalgap.specs_lang.loader import LoadedSpec
from evalgap.specs_lang import ast as A
from evalgap.specs_lang import check_structure, parse_file
from evalgap.verifier.gate.behavior_diff import DiffOutcome
from evalgap.verifier.gate.diffs import DiffContext, diff_units
from evalgap.verifier.gate.layout import (install_dependencies, project_dependencies, pytest_test_globs,
                                          write_version_files)
from evalgap.verifier.options import Settings
from evalgap.verifier.engines.run import formal_text
from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.analysis.gaming import GamingFinding, TestLiterals, is_test_path, scan_source
from evalgap.verifier.gate.model import (DEFAULT_TEST_GLOBS, ClassifiedDifference, GateOptions, GateReport,
                                         RequirementChange, gate_exit_code)
from evalgap.verifier.gate.gitdiff import ChangedUnit, GateError, Snapshot, file_changes, materialize
from evalgap.verifier.errors import TargetError
from evalgap.verifier.project.targets import Target, resolve_target
from evalgap.specs_lang.textfile import MAX_SPEC_BYTES, read_text
from evalgap.verifier.sandbox.scratch import scratch_dir

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
                lits = lits.merge(TestLiterals.from_test_source(p.read_text(encoding="utf-8", errors="replace"),
                                                                path=p.relative_to(head_dir).as_posix()))
    return lits


def _is_test_file(rel: str, globs: tuple[str, ...]) -> bool:
    return is_test_path(rel) or any(fnmatch.fnmatch(rel, g) for g in globs)


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
    spec's ``target:`` is relative to the spec when that file exists, else relative to the repository (so a
    spec kept in ``specs/``, or outside the repository, can name ``src/pkg/core.py``); it must land inside
    the repository."""
    if override is not None:
        return resolve_target(override, root)
    if spec.target is None:
        raise GateError(f"{spec_path.name}: no target: add `target: FILE.py` to the spec or pass --target")
    if spec_path.resolve().is_relative_to(root.resolve()):
        try:
            return resolve_target(spec.target, spec_path.parent.resolve())
        except TargetError:
            if not (root / spec.target).exists():
                raise
            return resolve_target(spec.target, root)
    outside = (spec_path.parent / spec.target).resolve()
    if outside.is_relative_to(top) and outside.exists():
        return resolve_target(str(outside.relative_to(top)), root)
    if (root / spec.target).exists() or (top / spec.target).exists():
        return resolve_target(spec.target, root)
    raise TargetError(f"the spec's target {spec.target!r} is neither next to the spec nor in the repository {top}; "
                    "pass --target FILE.py (repository-relative)")


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
    with scratch_dir("evalgap-gate-") as tmp:
        snap = materialize(top, base, head, patch, Path(tmp))
        written = sorted(set(write_version_files(snap.head_dir)) | set(write_version_files(snap.base_dir)))
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
        notes: list[str] = [f"{w}: a placeholder version module written (the build step that generates it from "
                             "git did not run)" for w in written]
        try:
            base_target: Target | None = _target(
                head_spec, snap.base_dir / head_spec_path.relative_to(snap.head_dir)
                if head_spec_path.is_relative_to(snap.head_dir) else head_spec_path,
                snap.base_dir, options.target, top)
        except TargetError:
            base_target = None
            notes.append("the target does not exist in the base version: requirements are checked on head only "
                         "and no behaviour is diffed")
        extra_paths: tuple[str, ...] = ()
        if options.install_deps:
            head_target, base_target, extra_paths = _with_dependencies(snap, head_target, base_target, notes)
        test_globs = tuple(dict.fromkeys(options.test_globs + pytest_test_globs(snap.head_dir)))
        try:
            files = file_changes(snap)
        except SyntaxError as exc:
            raise GateError(f"{exc.filename}:{exc.lineno}: the changed file does not parse: {exc.msg}") from None
        code_files = [f for f in files if not _is_test_file(f.path, test_globs)]
        tests_changed = [f.path for f in files if _is_test_file(f.path, test_globs)]
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
            diffs, classified = diff_units(DiffContext(
                units, code_files, snap, head_spec, head_src, base_target, head_target, Path(tmp), changed_spec,
                reach_by_req, transitions, frozenset(c.id for c in changes if c.transition != "still-refuted"
                                                     and c.head.verdict is Verdict.REFUTED), options,
                extra_paths), notes)
        gaming: list[GamingFinding] = []
        literals = _test_literals(snap.head_dir, test_globs)
        for f in code_files:
            if f.head_source is None:
                continue
            try:
                found = scan_source(f.head_source, f.path, f.added, literals)
            except SyntaxError as exc:
                notes.append(f"{f.path}: not scanned for gaming (does not parse: {exc.msg})")
                continue
            kept = _new_findings(found, f.base_source, f.path, literals)
            if len(kept) < len(found):
                old = [g for g in found if g not in kept]
                notes.append(f"{f.path}: {len(old)} gaming finding(s) on edited lines not reported, the same finding "
                             "being in the base version already (existing code): " +
                             "; ".join(f"{g.code} line {g.line}: {g.message}" for g in old))
            gaming.extend(kept)
        return GateReport(str(top), snap.base_rev, snap.head_rev, spec_display, head_target.display, units,
                          tuple(changes), not_rechecked, tuple(diffs), tuple(classified), tuple(gaming),
                          tuple(notes), options.budget_s, options.diff_budget_s, time.monotonic() - started,
                          options.fail_on_unexplained, options.fail_on_still_refuted,
                          isolation.summary(jobs_from), head_spec.name,
                          options.baseline.file if options.baseline is not None else None)


def _new_findings(found: list[GamingFinding], base_source: str | None, path: str,
                  literals: TestLiterals) -> list[GamingFinding]:
    """The findings of the added lines that the base version of the file does not have already (the same
    code and message anywhere in it): an edited line that keeps an existing pattern is existing code."""
    if not found or base_source is None:
        return found
    try:
        before = {(g.code, g.message) for g in scan_source(base_source, path, None, literals)}
    except SyntaxError:
        return found
    return [g for g in found if (g.code, g.message) not in before]


def _with_dependencies(snap: Snapshot, head: Target, base: Target | None,
                       notes: list[str]) -> tuple[Target, Target | None, tuple[str, ...]]:
    """Both targets with the project's installed dependencies on their paths (``--install-deps``), and the
    dependency folders (for the diff workers)."""
    from evalgap.verifier.cache import default_cache_dir

    out: list[Target | None] = []
    folders: list[str] = []
    for label, target, root in (("head", head, snap.head_dir), ("base", base, snap.base_dir)):
        if target is None:
            out.append(None)
            continue
        deps = project_dependencies(root)
        folder = install_dependencies(deps, default_cache_dir())
        if folder is None:
            out.append(target)
            continue
        notes.append(f"{label}: the project's dependencies installed for its code ({', '.join(deps)})")
        folders.append(str(folder))
        out.append(dataclasses.replace(target, paths=(*target.paths, str(folder))))
    assert out[0] is not None
    return out[0], out[1], tuple(dict.fromkeys(folders))


def _defs(src: str) -> list[str]:
    return [n.name for n in ast.walk(ast.parse(src))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
