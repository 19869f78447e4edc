"""On-disk cache of engine verdicts, keyed so that only what changed is checked again.

Location: ``$EVALGAP_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/evalgap`` (``~/.cache/evalgap``).
``evalgap check --no-cache`` turns it off; the test suite points ``EVALGAP_CACHE_DIR`` at a temporary folder.

A key (SHA-256, hex) covers everything a verdict depends on (:func:`entry_key`):

* evalgap's own version and the text of its source files (grammar, translators, verifier);
* the requirement: its harness code (conditions, scenario body, applied preconditions) and obligation;
* the target's source that the requirement can reach (:func:`target_fingerprint`): the module's
  top-level statements that are not definitions (imports, assignments with effects), the definitions
  the requirement names and, transitively, the definitions those name; and the whole text of every
  module of the project (found on the target's search path) that the module imports, transitively.
  A change to one function therefore re-checks only the requirements whose closure contains it;
* the engine, its budget (CPU seconds, examples, seed, memory limit) and the versions of Python,
  crosshair-tool, z3-solver, hypothesis and icontract.

Robustness: an entry is one JSON file written to a temporary name and renamed into place
(``os.replace``, atomic on POSIX), so two runs sharing a cache, or a run killed half-way, never leave a
half-written entry under a real name. Every entry repeats its key and a SHA-256 of its payload; an entry
that does not parse or whose checksum or key does not match is ignored, deleted and rebuilt (never
trusted). Only verdicts that do not depend on the machine's load are stored (see :func:`cacheable`).
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
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evalgap.verifier.findings import Budget, EngineVerdict, Verdict

__all__ = ["ResultCache", "default_cache_dir", "entry_key", "target_fingerprint", "cacheable",
           "verdict_to_dict", "verdict_from_dict", "evalgap_fingerprint", "FORMAT", "aux_key",
           "module_closure_fingerprint", "dist_version"]

#: Version of the entry format; part of every key and of the folder name.
FORMAT = 1

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
    """SHA-256 of evalgap's version and of every ``.py``/``.lark`` file of its packages, plus tool versions."""
    h = hashlib.sha256(f"format={FORMAT};evalgap={_version('evalgap')};py={sys.version}".encode())
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


def _project_closure(module: str, paths: tuple[str, ...], seen: dict[str, bytes]) -> None:
    """Add ``module`` and every project module it imports (transitively) to ``seen`` (name -> source)."""
    if module in seen:
        return
    f = _module_file(module, paths)
    if f is None:
        return
    data = f.read_bytes()
    seen[module] = data
    package = module if f.name == "__init__.py" else module.rpartition(".")[0]
    for m in _imports_of(data, package):
        _project_closure(m, paths, seen)


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
    f = _module_file(module, paths)
    if f is None:
        return None
    text = f.read_text(encoding="utf-8", errors="surrogateescape")
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
    for name in sorted(reached):
        for seg in segments[name]:
            h.update(f"\0def {name}\0".encode())
            h.update(seg.encode("utf-8", "surrogateescape"))
    project: dict[str, bytes] = {}
    package = module if f.name == "__init__.py" else module.rpartition(".")[0]
    for m in sorted(_imported_modules(tree, package)):
        _project_closure(m, paths, project)
    for m in sorted(project):
        h.update(f"\0import {m}\0".encode())
        h.update(project[m])
    return h.hexdigest()


_Index = tuple[dict[str, list[str]], dict[str, list[str]], str, list[str], ast.Module]


@functools.lru_cache(maxsize=32)
def _module_index(text: str) -> _Index | None:
    """The parsed target module, memoized by its text (a run fingerprints it once per requirement):
    each definition's source segments, the definitions each one names, the dump of the top-level code that
    is not a definition and the definitions that code names; None on a syntax error."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
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
    seen: dict[str, bytes] = {}
    _project_closure(module, paths, seen)
    if module not in seen:
        return None
    h = hashlib.sha256()
    for name in sorted(seen):
        h.update(f"\0{name}\0".encode())
        h.update(seen[name])
    return h.hexdigest()


def names_in(code: str) -> set[str]:
    """Every identifier-like word of ``code`` (an over-approximation of the names it reads)."""
    return set(_WORD.findall(code))


def cacheable(v: EngineVerdict) -> bool:
    """Whether ``v`` follows from the code, spec and budget alone (timeouts and crashes are not stored)."""
    if v.verdict is not Verdict.UNKNOWN:
        return True
    return v.reason.startswith(_STABLE_UNKNOWN)


def verdict_to_dict(v: EngineVerdict) -> dict[str, Any]:
    """JSON-ready form of an :class:`EngineVerdict` (inverse: :func:`verdict_from_dict`)."""
    d = asdict(v)
    d["verdict"] = v.verdict.value
    d["args"] = [list(a) for a in v.args]
    return d


def verdict_from_dict(d: dict[str, Any]) -> EngineVerdict:
    """Rebuild an :class:`EngineVerdict`; raises KeyError/TypeError/ValueError on a malformed dict."""
    fields = dict(d)
    fields["verdict"] = Verdict(fields["verdict"])
    fields["budget"] = Budget(**fields["budget"])
    fields["args"] = tuple((str(a), str(b)) for a, b in fields["args"])
    fields["assumptions"] = tuple(str(a) for a in fields.get("assumptions", ()))
    return EngineVerdict(**fields)


class ResultCache:
    """A folder of cache entries (one JSON file per key).

    Args:
        folder: the cache folder (created on first write); entries live in ``folder/v{FORMAT}/``.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder) / f"v{FORMAT}"
        self.hits = 0
        self.misses = 0
        self.rejected = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> EngineVerdict | None:
        """The stored verdict for ``key``, or None (missing, unreadable, corrupt: a corrupt one is deleted)."""
        payload = self.get_payload(key)
        if payload is None:
            return None
        try:
            return verdict_from_dict(payload)
        except (ValueError, KeyError, TypeError, AttributeError):
            self.hits -= 1  # counted by get_payload, but not a usable verdict
            self._reject(key)
            return None

    def _reject(self, key: str) -> None:
        self.rejected += 1
        self.misses += 1
        try:
            self._path(key).unlink()
        except OSError:
            pass

    def get_payload(self, key: str) -> Any:
        """The JSON payload stored for ``key`` (a verdict, a target's signatures, an analysis report), or
        None when it is missing, unreadable, or corrupt (a corrupt entry is deleted: never trusted)."""
        path = self._path(key)
        try:
            raw = path.read_text(encoding="utf-8")
        except OSError:
            self.misses += 1
            return None
        try:
            entry = json.loads(raw)
            body = json.dumps(entry["payload"], sort_keys=True)
            if entry.get("key") != key or entry.get("sha256") != hashlib.sha256(body.encode()).hexdigest():
                raise ValueError("checksum or key mismatch")
            self.hits += 1
            return entry["payload"]
        except (ValueError, KeyError, TypeError, AttributeError):
            self._reject(key)
            return None

    def contains(self, key: str | None) -> bool:
        """Whether an entry file exists for ``key`` (not validated: :meth:`get` does that)."""
        return key is not None and self._path(key).is_file()

    def put(self, key: str, verdict: EngineVerdict) -> None:
        """Store ``verdict`` under ``key`` atomically; failures to write (read-only disk) are ignored."""
        self.put_payload(key, verdict_to_dict(verdict))

    def put_payload(self, key: str, payload: Any) -> None:
        """Store a JSON-serializable ``payload`` under ``key`` atomically (temporary file, then
        ``os.replace``); failures to write (read-only disk) are ignored."""
        body = json.dumps(payload, sort_keys=True)
        entry = {"key": key, "sha256": hashlib.sha256(body.encode()).hexdigest(), "payload": payload}
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(entry, fh)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            pass
