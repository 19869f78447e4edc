"""The gaming scan of ``check`` (issue 18): the ``EG4xx`` rules over the checked target file and the project
modules it imports, and what a finding does to the gap report.

A finding inside a function marks the requirements that reach that function (their target functions and
what those call, by name, across the scanned files); a finding at module level (import-time code) marks
every requirement. A marked requirement that is not ``refuted`` becomes ``unknown (gaming suspected: EG4xx
...)``, with an engine verdict ``gaming`` carrying the evidence; every finding is also a spec-level finding
of kind ``gaming`` and level ``error``, so the command exits 1 for it (design.md, section 6). A run the
workers reported as tampered (``unknown (tampered: ...)``) gives an ``EG402`` finding the same way.
EG407 (visible-test literals) needs the tests and is left to ``gate``.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable

from evalgap.verifier.analysis.gaming import GamingFinding, scan_source
from evalgap.verifier.findings import EngineVerdict, RequirementResult, SpecFinding, Verdict
from evalgap.specs_lang.diagnostics import PATCHES_VERIFICATION_LIBRARY, SPECIAL_CASES_TEST_LITERALS

__all__ = ["ScannedCode", "scan_target", "apply_findings", "apply_entropy", "MAX_FILES"]

#: At most this many project files are scanned (the target and what it imports, breadth first).
MAX_FILES = 60


@dataclass(frozen=True)
class ScannedCode:
    """The gaming scan of a target and its project imports.

    Attributes:
        findings: unsilenced findings (EG407 excluded), in file and line order.
        owners: per finding (same order), the qualified name of the function holding it, or None at
            module level.
        calls: function qualified name -> the names it calls (simple names and attribute names).
        files: the files scanned.
        entropy: reads of randomness or the clock, as ``(owning function or None, file, line, what)``: a
            result that depends on them is not a proof (:func:`apply_entropy`).
        concurrency: calls that start concurrent tasks or threads (``asyncio.gather``, ``threading.Thread``
            ...), in the same shape: the schedule is an input no path-exhausting engine explores.
    """

    findings: tuple[GamingFinding, ...]
    owners: tuple[str | None, ...]
    calls: dict[str, frozenset[str]]
    files: tuple[str, ...]
    entropy: tuple[tuple[str | None, str, int, str], ...] = ()
    concurrency: tuple[tuple[str | None, str, int, str], ...] = ()


def _imports(tree: ast.Module, here: Path, roots: list[Path]) -> list[Path]:
    """Project files a module imports: ``import a.b`` / ``from a import b`` / relative imports resolved
    under ``roots`` (a module or a package's ``__init__.py``)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = here.parent
                for _ in range(node.level - 1):
                    pkg = pkg.parent
                for a in node.names:
                    for cand in (pkg / Path(*base.split(".")) if base else pkg,):
                        names.append(str(cand / a.name))
                        names.append(str(cand))
                continue
            names += [base] + [f"{base}.{a.name}" for a in node.names]
    out = []
    for name in names:
        parts = Path(name) if os.sep in name else None
        for root in ([Path("/")] if parts is not None else roots):
            stem = parts if parts is not None else root / Path(*name.split("."))
            for cand in (stem.with_suffix(".py"), stem / "__init__.py"):
                if cand.is_file():
                    out.append(cand.resolve())
    return out


def _functions(tree: ast.Module) -> list[tuple[str, int, int, frozenset[str]]]:
    """(qualified name, first line, last line, names called) of every function and method."""
    out: list[tuple[str, int, int, frozenset[str]]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = f"{prefix}{child.name}"
                called = frozenset(
                    (c.func.id if isinstance(c.func, ast.Name) else c.func.attr)
                    for c in ast.walk(child) if isinstance(c, ast.Call)
                    and isinstance(c.func, (ast.Name, ast.Attribute)))
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                out.append((qual, first, child.end_lineno or child.lineno, called))
                visit(child, f"{qual}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
    visit(tree, "")
    return out


#: the pseudo-function of import-time code in :attr:`ScannedCode.calls`: what module-level statements (class
#: bodies, decorators and default values included) call, and every special method (``__getattribute__``,
#: ``__eq__``, ``__del__``, ...: the interpreter calls them without a call by name). A finding reachable from it
#: concerns every requirement, like one at module level.
MODULE_CODE = "<module>"


def _module_calls(tree: ast.Module) -> frozenset[str]:
    """Names called by ``tree``'s import-time code, and the special methods it defines (see MODULE_CODE)."""
    called: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if not isinstance(child, ast.Lambda):
                    if child.name.startswith("__") and child.name.endswith("__"):
                        called.add(child.name)
                    for d in child.decorator_list:
                        visit_all(d)
                visit_all(child.args)  # default values run at import
                continue
            if isinstance(child, ast.Call) and isinstance(child.func, (ast.Name, ast.Attribute)):
                called.add(child.func.id if isinstance(child.func, ast.Name) else child.func.attr)
            visit(child)

    def visit_all(node: ast.AST) -> None:
        for c in ast.walk(node):
            if isinstance(c, ast.Call) and isinstance(c.func, (ast.Name, ast.Attribute)):
                called.add(c.func.id if isinstance(c.func, ast.Name) else c.func.attr)

    visit(tree)
    return frozenset(called)


def scan_target(file: str | None, paths: Iterable[str]) -> ScannedCode:
    """Scan ``file`` and the project modules it imports (found under ``paths``, transitively).

    Args:
        file: the target's ``.py`` file (None: nothing is scanned).
        paths: the folders the target is imported from.

    Returns:
        A :class:`ScannedCode`; files that do not parse are skipped (the check itself reports the target's
        import error).
    """
    roots = [Path(p).resolve() for p in paths]
    todo = [Path(file).resolve()] if file else []
    seen: list[Path] = []
    findings: list[GamingFinding] = []
    owners: list[str | None] = []
    calls: dict[str, frozenset[str]] = {}
    entropy: list[tuple[str | None, str, int, str]] = []
    concurrency: list[tuple[str | None, str, int, str]] = []
    while todo and len(seen) < MAX_FILES:
        path = todo.pop(0)
        if path in seen or "site-packages" in path.parts:
            continue
        seen.append(path)
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source, filename=str(path))
            found = scan_source(source, str(path))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        funcs = _functions(tree)
        for qual, _, _, called in funcs:
            calls[qual] = calls.get(qual, frozenset()) | called
        calls[MODULE_CODE] = calls.get(MODULE_CODE, frozenset()) | _module_calls(tree)
        for line, what in _entropy_reads(tree):
            inner = [q for q, lo, hi, _ in funcs if lo <= line <= hi]
            entropy.append((max(inner, key=len) if inner else None, str(path), line, what))
        for line, what in _entropy_reads(tree, _CONCURRENCY, frozenset()):
            inner = [q for q, lo, hi, _ in funcs if lo <= line <= hi]
            concurrency.append((max(inner, key=len) if inner else None, str(path), line, what))
        for f in found:
            if f.silenced or f.code == SPECIAL_CASES_TEST_LITERALS:
                continue
            inner = [q for q, lo, hi, _ in funcs if lo <= f.line <= hi]
            findings.append(f)
            owners.append(max(inner, key=len) if inner else None)
        todo += [p for p in _imports(tree, path, roots) if p not in seen]
    return ScannedCode(tuple(findings), tuple(owners), calls, tuple(str(p) for p in seen), tuple(entropy),
                       tuple(concurrency))


#: Module -> its functions that read randomness or the clock (``None``: every function of the module). Code that
#: calls one gives a different result on another run, so one run's "all paths exhausted" proves nothing.
_ENTROPY: dict[str, frozenset[str] | None] = {
    "random": None, "secrets": None, "uuid": frozenset({"uuid1", "uuid4"}),
    "os": frozenset({"urandom", "getrandom", "times"}), "resource": frozenset({"getrusage"}),
    "time": frozenset({"time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
                       "process_time", "localtime", "gmtime", "ctime", "asctime"}),
    "datetime": frozenset({"now", "today", "utcnow"}), "date": frozenset({"today"}),
}
_ENTROPY_KEEP = frozenset({"seed", "Random", "SystemRandom"})  # a seeded generator is a value, not a draw
#: calls that run tasks or threads concurrently: which interleaving happens is an input CrossHair never varies
_CONCURRENCY: dict[str, frozenset[str] | None] = {
    "asyncio": frozenset({"gather", "create_task", "ensure_future", "wait", "as_completed", "TaskGroup",
                          "run_coroutine_threadsafe", "to_thread", "wait_for", "shield", "timeout"}),
    "threading": frozenset({"Thread", "Timer"}), "_thread": frozenset({"start_new_thread"}),
    "futures": frozenset({"ThreadPoolExecutor", "ProcessPoolExecutor"}), "multiprocessing": None,
}


def _entropy_reads(tree: ast.Module, table: dict[str, frozenset[str] | None] | None = None,
                   keep: frozenset[str] = _ENTROPY_KEEP) -> list[tuple[int, str]]:
    """``(line, "random.random()")`` for every call that reads randomness or the clock (or, with another
    ``table`` of module -> function names, None for every function, calls of those), through ``import m``,
    ``import m as x``, ``from m import f`` or ``datetime.datetime.now()``."""
    table = _ENTROPY if table is None else table
    alias: dict[str, str] = {}  # local name -> "module" or "module.function"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                alias[(a.asname or a.name).split(".")[0]] = a.name.split(".")[0] if not a.asname else a.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                alias[a.asname or a.name] = f"{node.module}.{a.name}"
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        parts: list[str] = []
        f: ast.expr = node.func
        while isinstance(f, ast.Attribute):
            parts.insert(0, f.attr)
            f = f.value
        if not isinstance(f, ast.Name) or f.id not in alias:
            continue
        dotted = ".".join([*alias[f.id].split("."), *parts])
        chain = dotted.split(".")
        func = chain[-1]
        for mod in chain[:-1][::-1]:
            names = table.get(mod, frozenset())
            if (names is None and func not in keep) or (names and func in names):
                out.append((node.lineno, f"{dotted}()"))
                break
    return out


def apply_entropy(results: Iterable[RequirementResult], scanned: ScannedCode,
                  stubbed: frozenset[str] = frozenset()) -> tuple[RequirementResult, ...]:
    """A ``verified`` requirement that reaches a read of randomness or the clock becomes ``unknown`` with the
    read as evidence (design.md section 4: a result that depends on randomness or the clock is never
    ``verified``); other verdicts are unchanged (a refutation was replayed; no-counterexample claims no proof).

    Args:
        results: the gap report's requirements (with ``target_functions`` filled).
        scanned: :func:`scan_target`'s result.
        stubbed: simple names of the functions the spec replaces by ``stub`` declarations (a stubbed clock
            returns symbolic readings: its real body never runs in the check).
    """
    calls = {q: c - stubbed for q, c in scanned.calls.items() if q.rsplit(".", 1)[-1] not in stubbed}
    entropy = [e for e in scanned.entropy if e[0] is None or e[0].rsplit(".", 1)[-1] not in stubbed]
    out = _downgrade(results, entropy, calls, lambda what, where: (
        f"nondeterminism: depends on randomness or the clock ({what} at {where}): all paths of one run "
        "exhausted, but another run draws other values, so this is not a proof"))
    # concurrency: CrossHair exhausts the paths of one interleaving (the event loop's or the OS's default
    # order); the schedule is an input it never varies (`explore schedules` explores them)
    return _downgrade(out, list(scanned.concurrency), calls, lambda what, where: (
        f"nondeterminism: runs tasks or threads concurrently ({what} at {where}): all paths of one "
        "interleaving exhausted, but the schedule was not varied, so this is not a proof (state the requirement "
        "with `explore schedules` to explore interleavings)"))


def _downgrade(results: Iterable[RequirementResult], reads: list[tuple[str | None, str, int, str]],
               calls: dict[str, frozenset[str]], reason: Callable[[str, str], str]) -> tuple[RequirementResult, ...]:
    """Each ``verified`` requirement whose functions reach one of ``reads`` becomes ``unknown`` with
    ``reason(what, "file:line")`` as an added ``nondeterminism`` verdict; other requirements are unchanged."""
    out: list[RequirementResult] = []
    for r in results:
        if r.verdict is not Verdict.VERIFIED or not reads:
            out.append(r)
            continue
        reach = _reach([*r.target_functions, MODULE_CODE], calls) if r.target_functions else None
        mine = [e for e in reads if e[0] is None or reach is None or e[0] in reach]
        if not mine:
            out.append(r)
            continue
        _, path, line, what = mine[0]
        ev = EngineVerdict("nondeterminism", Verdict.UNKNOWN, reason(what, f"{os.path.basename(path)}:{line}"))
        out.append(replace(r, verdicts=(*r.verdicts, ev), verdict=Verdict.UNKNOWN))
    return tuple(out)


def _reach(start: Iterable[str], calls: dict[str, frozenset[str]]) -> set[str]:
    """Qualified names of the functions reachable from ``start`` by simple-name calls."""
    by_name: dict[str, list[str]] = {}
    for qual in calls:
        by_name.setdefault(qual.rsplit(".", 1)[-1], []).append(qual)
    out: set[str] = set()
    todo = [q for s in start for q in ([s] if s in calls else by_name.get(s.rsplit(".", 1)[-1], []))]
    todo += [q for s in start for q in calls if q.startswith(s + ".")]  # a class: its methods
    while todo:
        q = todo.pop()
        if q in out:
            continue
        out.add(q)
        for name in calls.get(q, ()):
            todo += by_name.get(name, [])
        todo += [n for n in calls if n.startswith(q + ".")]  # its nested functions (a closure factory's)
    return out


def _where(f: GamingFinding) -> str:
    return f"{f.code} at {os.path.basename(f.path)}:{f.line}:{f.col}: {f.message}"


def apply_findings(results: Iterable[RequirementResult],
                   scanned: ScannedCode) -> tuple[tuple[RequirementResult, ...], tuple[SpecFinding, ...]]:
    """Mark the requirements a gaming finding concerns (see the module docstring).

    Args:
        results: the gap report's requirements (with ``target_functions`` filled).
        scanned: :func:`scan_target`'s result.

    Returns:
        ``(requirements, gaming findings as SpecFinding records of kind "gaming")``; requirements not
        concerned are returned unchanged.
    """
    out: list[RequirementResult] = []
    hits: dict[int, list[str]] = {}
    tamper: dict[str, list[str]] = {}
    for r in results:
        checked = r.verdict is not None and r.verdict is not Verdict.NOT_FORMALIZED and r.role == "property"
        reach = _reach([*r.target_functions, MODULE_CODE], scanned.calls) if r.target_functions else None
        mine = [i for i, owner in enumerate(scanned.owners)
                if owner is None or reach is None or owner in reach]
        for i in mine if checked else []:
            hits.setdefault(i, []).append(r.id)
        for v in r.verdicts:
            if v.verdict is Verdict.UNKNOWN and v.reason.startswith("tampered"):
                tamper.setdefault(v.reason, []).append(r.id)
        if not checked or not mine:
            out.append(r)
            continue
        first = scanned.findings[mine[0]]
        more = f" (and {len(mine) - 1} more)" if len(mine) > 1 else ""
        ev = EngineVerdict("gaming", Verdict.UNKNOWN, f"gaming suspected: {_where(first)}{more}")
        verdict = r.verdict if r.verdict is Verdict.REFUTED else Verdict.UNKNOWN
        out.append(replace(r, verdicts=(*r.verdicts, ev), verdict=verdict))
    spec_findings = [SpecFinding(f.code, "gaming", "error", f"code {f.path}", tuple(hits[i]),
                                 f"gaming suspected: {_where(f)}", (f.snippet,) if f.snippet else ())
                     for i, f in enumerate(scanned.findings) if i in hits]
    spec_findings += [SpecFinding(PATCHES_VERIFICATION_LIBRARY, "gaming", "error", "run time", tuple(ids),
                                  f"at run time, {reason.removeprefix('tampered: ')}")
                      for reason, ids in tamper.items()]
    return tuple(out), tuple(spec_findings)
