"""On-disk cache of engine verdicts, keyed so that only what changed is checked again.

Location: ``$EVALGAP_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/evalgap`` (``~/.cache/evalgap``).
``evalgap check --no-cache`` turns it off; the test suite points ``EVALGAP_CACHE_DIR`` at a temporary folder.

A key (SHA-256, hex) covers everything a verdict depends on (:func:`entry_key`):

* evalgap's own version and the text of its source files (grammar, translators, verifier);
* the requirement: its harness code (conditions, scenario body, applied preconditions) and obligation;
* the target's source that the requirement can reach (:func:`target_fingerprint`): the module's
  top-level statements that are not definitions (imports, assignments with effects), the definitions
  the requirement names and, transitively, the definitions those name (the whole module when one of them
  looks names up at run time: ``globals()``, ``getattr``, ``eval`` ..., see :data:`DYNAMIC_LOOKUPS`); and the
  whole text of every module of the project (found on the target's search path) that the module imports,
  transitively. A change to one function therefore re-checks only the requirements whose closure contains it.
  A target found beyond its folders (an installed module, ``--target slugify``) is keyed the same way, and
  for every target the key also covers the installed modules it reaches and their distributions' metadata
  (:mod:`evalgap.verifier.cachedeps`);
* the engine, its budget (CPU seconds, examples, seed, memory limit) and the versions of Python,
  crosshair-tool, z3-solver, hypothesis and icontract.

Beyond the key, an entry records the **run-time inputs** of the verdict (:mod:`evalgap.verifier.sandbox.record`):
the project files the workers saw the target open or import that the static key does not cover (a data
file, a module loaded by ``importlib.import_module``), each with its SHA-256; a read entry whose files changed
is stale (deleted, re-checked). A run whose inputs cannot be enumerated (a file outside the project, a
module loaded with a computed name, the clock) is not stored.

Trust: only the parent process writes entries (workers only send results back). Every entry carries an
HMAC-SHA256 over its key, payload and inputs with the user's key (:mod:`evalgap.verifier.cachekey`, a file
outside the cache that workers cannot read), and entries live in a folder per key (``v{FORMAT}/KEYID/``).
An entry that is not UTF-8, does not parse, or whose key or MAC does not match is deleted and rebuilt:
never trusted, never a crash. Under ``sandbox: python-guard`` (:func:`evalgap.verifier.sandbox.mode.sandbox_mode`:
no OS isolation, so a target could reach the key) no ``verified`` is stored or served.

Robustness: an entry is one JSON file written to a temporary name and renamed into place
(``os.replace``, atomic on POSIX), so two runs sharing a cache, or a run killed half-way, never leave a
half-written entry under a real name. Only verdicts that do not depend on the machine's load are stored
(see :func:`cacheable`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from evalgap.verifier.cachedeps import InstalledClosure, installed_closure, locate, startup_fingerprint, worker_path
from evalgap.verifier.cachestore import FORMAT, CacheInfo, ResultCache, verdict_from_dict, verdict_to_dict
from evalgap.verifier.findings import EngineVerdict, Verdict

__all__ = ["ResultCache", "default_cache_dir", "entry_key", "target_fingerprint", "cacheable",
           "verdict_to_dict", "verdict_from_dict", "evalgap_fingerprint", "FORMAT", "aux_key",
           "module_closure_fingerprint", "dist_version", "static_files", "static_inputs", "DYNAMIC_LOOKUPS", "UNCACHEABLE", "CacheInfo"]


#: Names that look a definition up at run time (so the closure of named definitions may miss it): a
#: reached definition using one makes the fingerprint cover the whole module.
DYNAMIC_LOOKUPS = frozenset({"globals", "locals", "vars", "getattr", "eval", "exec", "compile", "__dict__",
                             "__globals__", "f_globals", "_getframe", "currentframe", "modules", "__import__",
                             "import_module", "__builtins__", "inspect", "attrgetter", "methodcaller"})

#: Names of code whose verdict is never stored: imports the static closure cannot see (``exec``-built
#: imports, ``importlib`` by a computed name) and reaching into the worker's own objects (the run-time record's
#: closure, ``gc.get_objects()``, frames' code, ctypes), with which a target can hide what its verdict
#: depends on from the key and the record (found by a red-team pass, 2026-12-02).
UNCACHEABLE = frozenset({"exec", "eval", "compile", "__import__", "import_module", "find_spec",
                         "spec_from_file_location", "run_path", "runpy", "__closure__", "get_objects",
                         "get_referrers", "ctypes", "__code__", "cell_contents"})

_TOOLS = ("crosshair-tool", "z3-solver", "hypothesis", "icontract")
#: ``unknown`` reasons that follow from the code and spec alone (so may be cached); others (timeouts,
#: crashes, engine errors, memory) may depend on the machine's load and are re-checked every run.
_STABLE_UNKNOWN = ("spec error", "unsupported", "vacuous precondition", "precondition violated",
                   "nondeterminism", "blocked side effect", "not reproduced", "too much filtering")


def default_cache_dir() -> Path:
    """``$EVALGAP_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/evalgap``, else ``~/.cache/evalgap``."""
    env = os.environ.get("EVALGAP_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evalgap"


def _version(dist: str) -> str:
    return dist_version(dist) or "absent"


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=1)
def _dist_infos() -> dict[str, str]:
    """Normalized distribution name -> version, from the ``NAME-VERSION.dist-info`` folders on ``sys.path``
    (first one wins, as for :func:`importlib.metadata.version`)."""
    out: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for n in names:
            if n.endswith(".dist-info"):
                name, sep, version = n[:-len(".dist-info")].partition("-")
                if sep:
                    out.setdefault(_normalized(name), version)
    return out


def dist_version(dist: str) -> str | None:
    """The installed version of distribution ``dist``, or None when it is not installed.

    Read from the ``.dist-info`` folder names on ``sys.path`` (a few directory listings); only when there is
    none (an egg, a zip) from :mod:`importlib.metadata`, whose import alone costs more than a cached run's
    whole lookup.
    """
    found = _dist_infos().get(_normalized(dist))
    if found is not None:
        return found
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _package_dir(name: str) -> Path:
    """The folder of package ``name``, found without importing it (a cached run need not load it)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"package {name} not found")
    return Path(list(spec.submodule_search_locations)[0])


@functools.lru_cache(maxsize=1)
def evalgap_fingerprint() -> str:
    """SHA-256 of evalgap's version and of every ``.py``/``.lark`` file of its packages, plus tool versions and
    the interpreter's start-up code (:func:`evalgap.verifier.cachedeps.startup_fingerprint`)."""
    h = hashlib.sha256(f"format={FORMAT};evalgap={_version('evalgap')};py={sys.version}".encode())
    h.update(f";startup={startup_fingerprint()}".encode())  # .pth files and sitecustomize: run in every worker
    for tool in _TOOLS:
        h.update(f";{tool}={_version(tool)}".encode())
    roots = [_package_dir("evalgap.specs_lang"), _package_dir("evalgap.translators"), Path(__file__).parent]
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.suffix in (".py", ".lark") and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(root.parent)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()


# ------------------------------------------------------------------ target dependency closure
def _module_file(name: str, paths: tuple[str, ...]) -> Path | None:
    rel = Path(*name.split("."))
    for base in paths:
        for cand in (Path(base) / rel.with_suffix(".py"), Path(base) / rel / "__init__.py"):
            if cand.is_file():
                return cand
    return None


def _imported_modules(tree: ast.Module, package: str) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - node.level + 1] if node.level > 1 else parts
                base = ".".join([*parts, base] if base else parts)
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return {m for m in out if m}


def _project_closure(module: str, paths: tuple[str, ...], seen: dict[str, bytes],
                     outside: set[str] | None = None) -> None:
    """Add ``module`` and every project module it imports (transitively) to ``seen`` (name -> source); the
    imported names not found in the project go to ``outside``."""
    if module in seen:
        return
    f = _module_file(module, paths)
    if f is None:
        if outside is not None:
            outside.add(module)
        return
    data = f.read_bytes()
    seen[module] = data
    package = module if f.name == "__init__.py" else module.rpartition(".")[0]
    for m in _imports_of(data, package):
        _project_closure(m, paths, seen, outside)


@functools.lru_cache(maxsize=256)
def _imports_of(data: bytes, package: str) -> tuple[str, ...]:
    """The modules a source imports, sorted (memoized by content: a run asks once per requirement)."""
    try:
        tree = ast.parse(data)
    except SyntaxError:
        return ()
    return tuple(sorted(_imported_modules(tree, package)))


def _defined_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if all(isinstance(t, ast.Name) for t in targets):
            return [t.id for t in targets if isinstance(t, ast.Name)]
    return []


def target_fingerprint(module: str, paths: tuple[str, ...], names: set[str]) -> str | None:
    """SHA-256 of the target source that code using ``names`` of ``module`` can reach (see module doc).

    Args:
        module: the target module's importable name.
        paths: folders searched for it and for the project modules it imports.
        names: identifiers the requirement reads from the module (an over-approximation is fine).

    Returns:
        The hex digest, or None when the module's source is not found on ``paths`` (then nothing is cached).
    """
    found = _target_file(module, paths)
    if found is None:
        return None
    f, installed = found
    text = f.read_text(encoding="utf-8", errors="surrogateescape")
    if names_in(text) & UNCACHEABLE:
        return None
    index = _module_index(text)
    if index is None:
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    segments, refs, always_dump, always_refs, tree = index
    todo = [n for n in sorted(names) if n in segments] + list(always_refs)  # names read by top-level code too
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo += refs[name]
    h = hashlib.sha256(f"module={module}".encode())
    h.update(always_dump.encode())
    if any(names_in(seg) & DYNAMIC_LOOKUPS for name in reached for seg in segments[name]):
        h.update(b"\0whole module\0" + text.encode("utf-8", "surrogateescape"))  # a run-time name lookup
    for name in sorted(reached):
        for seg in segments[name]:
            h.update(f"\0def {name}\0".encode())
            h.update(seg.encode("utf-8", "surrogateescape"))
    package = module if f.name == "__init__.py" else module.rpartition(".")[0]
    project, outside = _closure(module, paths, _imports_of(text.encode("utf-8", "surrogateescape"), package),
                                installed)
    if any(names_in(project[m].decode("utf-8", "surrogateescape")) & UNCACHEABLE for m in project):
        return None
    for m in sorted(project):
        h.update(f"\0import {m}\0".encode())
        h.update(project[m])
    for part in outside.digest_parts():
        h.update(part)
    return h.hexdigest()


def _target_file(module: str, paths: tuple[str, ...]) -> tuple[Path, bool] | None:
    """The target module's source file and whether it is installed (found beyond ``paths``, on the workers'
    search path), or None (no ``.py`` source anywhere: nothing is cached)."""
    f = _module_file(module, paths)
    if f is not None:
        return f, False
    hit = locate(module, worker_path())
    if hit is None or hit[0].suffix != ".py":
        return None
    return hit[0], True


def _closure(module: str, paths: tuple[str, ...], imported: set[str] | tuple[str, ...],
             installed: bool) -> tuple[dict[str, bytes], InstalledClosure]:
    """The project modules ``imported`` reaches (name -> source) and what they and the target reach beyond
    the project (:func:`evalgap.verifier.cachedeps.installed_closure`)."""
    project: dict[str, bytes] = {}
    outside: set[str] = set()
    for m in sorted(imported):
        _project_closure(m, paths, project, outside)
    if installed:  # importing ``a.b`` runs ``a/__init__.py`` first
        parts = module.split(".")
        outside |= {".".join(parts[:i]) for i in range(1, len(parts))}
    return project, installed_closure(outside, paths, skip=project, target=module if installed else None)


_Index = tuple[dict[str, list[str]], dict[str, list[str]], str, list[str], ast.Module]


@functools.lru_cache(maxsize=32)
def _module_index(text: str) -> _Index | None:
    """The parsed target module, memoized by its text (a run fingerprints it once per requirement):
    each definition's source segments, the definitions each one names, the dump of the top-level code that
    is not a definition and the definitions that code names; None on a syntax error."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # not UTF-8 (surrogates), too deep
        return None
    defs: dict[str, list[ast.stmt]] = {}
    always: list[ast.stmt] = []
    for node in tree.body:
        named = _defined_names(node)
        if named and not isinstance(node, (ast.Assign, ast.AnnAssign)) or (named and _pure_value(node)):
            for n in named:
                defs.setdefault(n, []).append(node)
        else:
            always.append(node)
    always_refs = [n.id for node in always for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in defs]
    refs: dict[str, list[str]] = {}
    segments: dict[str, list[str]] = {}
    for name, nodes in defs.items():
        refs[name] = [n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in defs]
        refs[name] += [n.attr for node in nodes for n in ast.walk(node)
                       if isinstance(n, ast.Attribute) and n.attr in defs]
        segments[name] = [ast.get_source_segment(text, node) or ast.dump(node) for node in nodes]
    always_dump = "".join(ast.dump(node, include_attributes=False) for node in always)
    return segments, refs, always_dump, always_refs, tree


def _pure_value(node: ast.stmt) -> bool:
    """An assignment whose value is a literal or a simple name/attribute (no call: no import-time effect)."""
    value = getattr(node, "value", None)
    return value is None or not any(isinstance(n, ast.Call) for n in ast.walk(value))


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def entry_key(engine: str, requirement_code: str, target_fp: str, budget: dict[str, Any]) -> str:
    """The cache key of one engine's verdict on one requirement.

    Args:
        engine: ``crosshair``, ``hypothesis``, ``example``.
        requirement_code: the requirement's harness code and obligation text.
        target_fp: :func:`target_fingerprint` of what the requirement reaches.
        budget: the engine's budget settings (JSON-serializable).

    Returns:
        A SHA-256 hex digest.
    """
    payload = json.dumps({"evalgap": evalgap_fingerprint(), "engine": engine, "requirement": requirement_code,
                          "target": target_fp, "budget": budget}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def aux_key(kind: str, parts: dict[str, Any]) -> str:
    """The cache key of a result other than a verdict (``signatures`` of a target, ``analysis`` of a spec).

    Args:
        kind: what is stored.
        parts: everything the result depends on besides evalgap itself and the tool versions (which
            :func:`evalgap_fingerprint` adds), JSON-serializable.

    Returns:
        A SHA-256 hex digest.
    """
    payload = json.dumps({"evalgap": evalgap_fingerprint(), "kind": kind, **parts}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def module_closure_fingerprint(module: str, paths: tuple[str, ...]) -> str | None:
    """SHA-256 of the whole text of ``module`` and of every project module it imports, transitively (what a
    target's signatures depend on), or None when the module's source is not on ``paths``."""
    found = _target_file(module, paths)
    if found is None:
        return None
    seen, outside = _closure(module, paths, (module,) if not found[1] else (), found[1])
    h = hashlib.sha256()
    if found[1]:
        h.update(f"\0installed target {module}\0".encode() + found[0].read_bytes())
    for name in sorted(seen):
        h.update(f"\0{name}\0".encode())
        h.update(seen[name])
    for part in outside.digest_parts():
        h.update(part)
    return h.hexdigest()


def names_in(code: str) -> set[str]:
    """Every identifier-like word of ``code`` (an over-approximation of the names it reads)."""
    return set(_WORD.findall(code))


def cacheable(v: EngineVerdict) -> bool:
    """Whether ``v`` follows from the code, spec and budget alone (timeouts and crashes are not stored)."""
    if v.verdict is not Verdict.UNKNOWN:
        return True
    return v.reason.startswith(_STABLE_UNKNOWN)


def static_files(module: str, paths: tuple[str, ...]) -> list[str]:
    """The files whose text the static key already covers: the target module's and those of the project
    modules it imports, transitively (the run-time record does not repeat them)."""
    return static_inputs(module, paths)[0]


def static_inputs(module: str, paths: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """``(files, roots)``: the files the static key covers (the target's, its project modules' and the
    installed modules' it reaches) and the installed folders a run-time read in which is an input of the
    verdict (:func:`evalgap.verifier.sandbox.record.classify`'s ``installed``)."""
    found = _target_file(module, paths)
    if found is None:
        return [], []
    seen, outside = _closure(module, paths, (module,) if not found[1] else (), found[1])
    out = [str(found[0])] if found[1] else []
    for name in seen:
        f = _module_file(name, paths)
        if f is not None:
            out.append(str(f))
    out += [file for _, file in outside.modules]
    return out, list(outside.roots)


