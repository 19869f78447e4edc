"""The installed-module part of the result cache's key: what a target outside the project reaches.

A target named by module (``--target slugify``, ``--target json``) or a project module that imports an
installed library depends on files that are not under the target's folders. :func:`installed_closure` walks
the modules such a target imports, transitively, as the workers will find them (the target's folders
first, then :func:`worker_path`, the interpreter's own search path: ``$PYTHONPATH``, the standard library,
the site folders and the folders their ``.pth`` files add; not the user's site folder, which the workers'
scrubbed ``HOME`` hides), and returns:

* every reached module file outside the standard library (``.py`` source, or an extension module's bytes):
  their whole content goes into the key;
* the distributions owning them (``NAME-VERSION.dist-info`` folder, found through ``top_level.txt`` or
  ``RECORD``), each with the SHA-256 of its ``METADATA`` (which holds the version): an upgrade, or a target
  that rewrites its own metadata, changes the key;
* the folders those modules live in (the top-level package or module, the ``.dist-info``): a file the
  target opens there at run time that the key does not cover (a data table) is one of the verdict's
  run-time inputs (:func:`evalgap.verifier.sandbox.record.classify`), hashed in the entry.

Not followed: the standard library (Python's version is in every key), evalgap's tools (crosshair, z3,
hypothesis, icontract: their versions are in every key) and evalgap itself. Imports are found by a regular
expression over the source (``import x``, ``from x import a, b``, ``import_module("x")``): an
over-approximation (an import inside a string adds a dependency, never removes one) that is fast enough
for a cached run over a large library.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import os
import re
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["InstalledClosure", "installed_closure", "worker_path", "locate", "TOOL_PACKAGES"]

#: Top-level packages whose versions the key already holds (evalgap and its tools): not walked.
TOOL_PACKAGES = frozenset({"evalgap", "crosshair", "z3", "hypothesis", "icontract", "_hypothesis_pytestplugin",
                           "_hypothesis_globals", "_hypothesis_ftz_detector"})

_IMPORT_RE = re.compile(
    rb"\bfrom[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*(?:\\\n[^\n#;]*)*)"
    rb"|\bimport[ \t]+([\w. \t,]+(?:\\\n[\w. \t,]*)*)"
    rb"|\bimport_module\(\s*['\"]([\w.]+)['\"]")
_NAME_RE = re.compile(rb"[A-Za-z_][\w.]*")


@functools.lru_cache(maxsize=1)
def worker_path() -> tuple[str, ...]:
    """The folders a worker's interpreter searches after the target's own (absolute, in order).

    The workers are started with a scrubbed environment that keeps ``PYTHONPATH``
    (:func:`evalgap.verifier.sandbox.runner._scrubbed_env`) but not ``HOME``, so: ``$PYTHONPATH``, then the
    standard library folders, then each site folder followed by the existing folders its ``.pth`` files
    name (as :mod:`site` adds them; ``import`` lines are not run here).
    """
    out: list[str] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    paths = sysconfig.get_paths()
    out += [p for p in (paths.get("stdlib"), paths.get("platstdlib")) if p]
    out += [p for p in sys.path if p.endswith(("lib-dynload", ".zip"))]
    for site_dir in _site_dirs():
        out.append(site_dir)
        try:
            pths = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth"))
        except OSError:
            continue
        for name in pths:
            try:
                lines = Path(site_dir, name).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.rstrip()
                if not line or line.startswith(("#", "import ", "import\t")):
                    continue
                full = os.path.join(site_dir, line)
                if os.path.isdir(full):
                    out.append(full)
    return tuple(dict.fromkeys(os.path.abspath(p) for p in out))


def startup_fingerprint() -> str:
    """SHA-256 of the code every worker's interpreter runs at start-up before evalgap's own: the name and
    bytes of each ``.pth`` file of the site folders (their ``import`` lines run in every process) and of the
    ``sitecustomize``/``usercustomize`` modules found on :func:`worker_path`. Part of every cache key
    (:func:`evalgap.verifier.cache.evalgap_fingerprint`): a start-up hook installed or changed since a verdict
    was stored may change what the target sees, so that verdict is not served."""
    h = hashlib.sha256(b"startup")
    for site_dir in _site_dirs():
        try:
            pths = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth"))
        except OSError:
            continue
        for name in pths:
            h.update(f";{site_dir}/{name}=".encode())
            h.update(_file_sha(Path(site_dir, name)).encode())
    for mod in ("sitecustomize", "usercustomize"):
        found = locate(mod, worker_path())
        h.update(f";{mod}={found[0] if found else None}".encode())
        if found and found[0].is_file():
            h.update(_file_sha(found[0]).encode())
    return h.hexdigest()


def _site_dirs() -> list[str]:
    import site

    dirs: list[str] = []
    try:
        dirs += site.getsitepackages()
    except AttributeError:  # pragma: no cover - virtualenv's old site.py
        pass
    paths = sysconfig.get_paths()
    dirs += [p for p in (paths.get("purelib"), paths.get("platlib")) if p]
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


@functools.lru_cache(maxsize=1)
def _stdlib_roots() -> tuple[tuple[str, ...], tuple[str, ...]]:
    paths = sysconfig.get_paths()
    std = [paths.get("stdlib"), paths.get("platstdlib"), *(p for p in sys.path if p.endswith("lib-dynload"))]
    return (tuple(os.path.realpath(p) for p in std if p),
            tuple(os.path.realpath(p) for p in _site_dirs()))


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _is_stdlib(path: str) -> bool:
    std, sites = _stdlib_roots()
    real = os.path.realpath(path)
    return _under(real, std) and not _under(real, sites)


def locate(name: str, search: Sequence[str]) -> tuple[Path, str] | None:
    """The file of module ``name`` on ``search`` (first match, in the import system's order within a folder:
    a package, an extension module, a ``.py`` source), and the folder of ``search`` it was found under;
    None when there is none (a builtin, a name that is not a module, a module only a meta-path finder
    knows, a namespace package)."""
    *parents, last = name.split(".")
    suffixes = (*importlib.machinery.EXTENSION_SUFFIXES, ".py")
    for base in search:
        folder = os.path.join(base, *parents)
        entries = _entries(folder)
        if not entries:
            continue
        if last in entries and "__init__.py" in _entries(os.path.join(folder, last)):
            return Path(folder, last, "__init__.py"), base
        for suffix in suffixes:
            if last + suffix in entries and os.path.isfile(os.path.join(folder, last + suffix)):
                return Path(folder, last + suffix), base
    return None


_LISTINGS: dict[str, tuple[int, frozenset[str]]] = {}


def _entries(folder: str) -> frozenset[str]:
    """The names in ``folder`` (empty when it is not one), remembered while its mtime stays the same (a
    folder's mtime changes when an entry is added, removed or renamed)."""
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return frozenset()
    known = _LISTINGS.get(folder)
    if known is not None and known[0] == mtime:
        return known[1]
    try:
        names = frozenset(os.listdir(folder))
    except OSError:
        names = frozenset()
    _LISTINGS[folder] = (mtime, names)
    return names


@functools.lru_cache(maxsize=1024)
def _scan(data: bytes, package: str) -> tuple[str, ...]:
    """The modules a source may import (absolute names, candidates ``x.a`` for ``from x import a``)."""
    out: set[str] = set()
    for m in _IMPORT_RE.finditer(data):
        frm, names, plain, dyn = m.groups()
        if plain is not None:
            out |= {n.decode() for n in _NAME_RE.findall(plain.replace(b" as ", b" , "))}
            continue
        if dyn is not None:
            out.add(dyn.decode())
            continue
        base = frm.decode()
        if base.startswith("."):
            level = len(base) - len(base.lstrip("."))
            parts = package.split(".") if package else []
            parts = parts[:len(parts) - level + 1] if level > 1 else parts
            rest = base.lstrip(".")
            base = ".".join([*parts, rest] if rest else parts)
        if base:
            out.add(base)
            for n in _NAME_RE.findall(names or b""):
                if n != b"as" and b"." not in n:
                    out.add(f"{base}.{n.decode()}")
    return tuple(sorted(n.strip(".") for n in out if n.strip(".")))


@dataclass(frozen=True)
class InstalledClosure:
    """What :func:`installed_closure` found.

    Attributes:
        modules: ``(module name, file)`` of every reached module outside the standard library and the tools,
            sorted by name (the project's own modules included when an installed one imports them).
        dists: ``(dist-info folder name, SHA-256 of its METADATA)`` of the distributions owning them, sorted.
        roots: the folders (or single-module files) those modules and distributions live in: files read
            there at run time are inputs of the verdict.
    """

    modules: tuple[tuple[str, str], ...] = ()
    dists: tuple[tuple[str, str], ...] = ()
    roots: tuple[str, ...] = ()

    def digest_parts(self) -> Iterable[bytes]:
        """The bytes the cache key hashes: each module's name and whole content, then each distribution."""
        for name, file in self.modules:
            yield f"\0installed {name}\0".encode()
            try:
                yield Path(file).read_bytes()
            except OSError:
                yield b"\0unreadable\0"
        for dist, meta in self.dists:
            yield f"\0dist {dist} {meta}\0".encode()


def installed_closure(names: Iterable[str], paths: Sequence[str], skip: Iterable[str] = (),
                      target: str | None = None) -> InstalledClosure:
    """Walk the modules ``names`` and what they import, transitively (see the module doc).

    Args:
        names: modules imported by the target (absolute names; those not found anywhere are ignored).
        paths: the target's folders (searched first, as the workers do).
        skip: modules already covered by the caller (the project modules it hashed itself).
        target: an installed target module that the caller hashes itself (per definition): walked for its
            imports, its folder and its distribution, but not listed in ``modules``.

    Returns:
        An :class:`InstalledClosure`; reads files, imports nothing.
    """
    search = (*paths, *worker_path())
    done = set(skip)
    todo = sorted(set(names) - done)
    if target is not None:
        done.discard(target)
        todo.append(target)
    found: dict[str, str] = {}
    dists: dict[str, str] = {}
    roots: dict[str, None] = {}
    std_checked: dict[str, bool] = {}
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        top = name.split(".")[0]
        if top in TOOL_PACKAGES or top in sys.builtin_module_names:
            continue
        if top in sys.stdlib_module_names and top not in std_checked:
            std_checked[top] = locate(top, paths) is None  # not shadowed by a project module
        if std_checked.get(top):
            continue
        hit = locate(name, search)
        if hit is None:
            continue
        file, base = hit
        if _is_stdlib(str(file)):
            continue
        if name != target:
            found[name] = str(file)
        if base not in paths:  # found beyond the target's own folders: an installed module
            top_path = Path(base) / top
            roots[str(top_path if top_path.is_dir() else file)] = None
            owner = _owner(base, top)
            if owner is not None:
                dists[owner.name] = _file_sha(owner / "METADATA")
                roots[str(owner)] = None
        if file.suffix == ".py":
            try:
                data = file.read_bytes()
            except OSError:
                continue
            package = name if file.name == "__init__.py" else name.rpartition(".")[0]
            todo += [m for m in _scan(data, package) if m not in done]
            if "." in name:
                todo.append(name.rpartition(".")[0])  # importing a submodule runs its package's __init__
    return InstalledClosure(tuple(sorted(found.items())), tuple(sorted(dists.items())), tuple(roots))


def _file_sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "absent"


def _owner(site_dir: str, top: str) -> Path | None:
    """The ``.dist-info`` folder in ``site_dir`` that installed top-level module ``top``, or None."""
    return _owners(site_dir).get(top)


@functools.lru_cache(maxsize=16)
def _owners(site_dir: str) -> dict[str, Path]:
    """Top-level name -> owning ``.dist-info`` folder, for every distribution installed in ``site_dir``
    (``top_level.txt`` where present, else the first component of each ``RECORD`` line)."""
    out: dict[str, Path] = {}
    try:
        infos = sorted(n for n in os.listdir(site_dir) if n.endswith(".dist-info"))
    except OSError:
        return out
    for info in infos:
        folder = Path(site_dir, info)
        tops: set[str] = set()
        try:
            tops = {t.strip() for t in (folder / "top_level.txt").read_text(encoding="utf-8").split() if t.strip()}
        except (OSError, UnicodeDecodeError):
            try:
                for line in (folder / "RECORD").read_text(encoding="utf-8").splitlines():
                    first = line.split(",", 1)[0].split("/", 1)[0]
                    if first and not first.endswith((".dist-info", ".data")) and not first.startswith(".."):
                        tops.add(first[:-3] if first.endswith(".py") else first.split(".")[0])
            except (OSError, UnicodeDecodeError):
                continue
        for t in tops:
            out.setdefault(t, folder)
    return out
