"""The run-time record of a worker's inputs: every file the target opened and every module it imported.

The result cache's static key (:mod:`evalgap.verifier.cache`) covers the target's source and the project
modules it imports by name; behaviour can also come from a data file the target reads, a module loaded
with a computed name, or the clock. The worker calls :func:`start` just before it imports the harness (so
only what the target and the check load is seen) and puts :func:`collect` into its result under
``inputs``; the parent turns the records of every worker of one verdict into a :class:`RunInputs`
(:func:`classify`): the project files the verdict depends on (their hashes become part of the cache
entry), or why the inputs cannot be enumerated (then the verdict is not cached).

Worker side: an audit hook (:func:`sys.addaudithook`) on ``open`` events (``open()``, ``io.open_code``: every
source and bytecode file an import reads), with a look at the calling frames when a module is loaded to
tell a static ``import`` from ``importlib.import_module``/``__import__``/a loader called by target code; at
the end, the modules new in ``sys.modules`` and any clock function or module bound in a project module's
globals; ``os.listdir``/``os.scandir``/``glob`` called from target code count as unenumerable too. The record lives in the hook's closure (not a module attribute); a target that defeats it from
inside the process is the result channel's concern (the tamper check), not this module's.

Parent side (:func:`collecting`, :func:`note`, :func:`classify`): the runner notes each worker's record in
the calling thread's collector, so an engine run's records are gathered without changing the engines.
"""

from __future__ import annotations

import contextlib
import dis
import importlib.util
import os
import sys
import threading
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["start", "collect", "RunInputs", "classify", "collecting", "note", "CLOCK_MODULES", "MAX_ENTRIES"]

#: Modules whose functions read the clock; a project module binding one (or the module) reads the clock.
CLOCK_MODULES = frozenset({"time", "datetime", "calendar", "zoneinfo"})
#: More recorded files than this and the record is "too many inputs" (not enumerated).
MAX_ENTRIES = 2000
#: Audit events of a folder listing: target code that lists a folder reads an input no file hash covers.
_LISTING = frozenset({"os.listdir", "os.scandir", "glob.glob"})

_COLLECT: list[Callable[[], dict[str, Any]]] = []


def _under(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots if r)


def start(project: Sequence[str], scratch: Sequence[str]) -> None:
    """Start recording (worker side; call once, after the guard, before importing the harness).

    Args:
        project: the target's folders (its search path): a module file under one of them loaded by target
            code with a computed name is recorded as a dynamic import.
        scratch: folders whose files are the worker's own (its working folder, the generated harness):
            not recorded.
    """
    project_roots = [os.path.abspath(p) for p in project]
    scratch_roots = [os.path.abspath(p) for p in scratch]
    before = set(sys.modules)
    opened: dict[str, None] = {}
    dynamic: dict[str, None] = {}

    def importer_is_target() -> str | None:
        """The project file that is loading a module by a call (not an ``import`` statement), or None."""
        f: types.FrameType | None = sys._getframe(2)
        while f is not None and f.f_code.co_filename.startswith("<frozen importlib"):
            f = f.f_back
        if f is None:
            return None
        code = f.f_code
        if code.co_name == "import_module" and code.co_filename.endswith(os.path.join("importlib", "__init__.py")):
            caller = f.f_back
            if caller is not None and _under(os.path.abspath(caller.f_code.co_filename), project_roots):
                return caller.f_code.co_filename
            return None
        if not _under(os.path.abspath(code.co_filename), project_roots):
            return None
        try:
            op = dis.opname[code.co_code[f.f_lasti]] if f.f_lasti >= 0 else ""
        except IndexError:
            op = ""
        return None if op in ("IMPORT_NAME", "IMPORT_FROM") else code.co_filename

    def target_frame() -> str | None:
        """The project file on the stack (target code listing a folder, also through pathlib), or None;
        None too when the import system is listing (its finders read every folder of the search path)."""
        f: types.FrameType | None = sys._getframe(2)
        found = None
        for _ in range(64):
            if f is None:
                break
            name = f.f_code.co_filename
            if name.startswith("<frozen importlib"):
                return None
            if found is None and _under(os.path.abspath(name), project_roots):
                found = name
            f = f.f_back
        return found

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in _LISTING:
            lister = target_frame()
            if lister is not None:
                dynamic[f"{os.path.basename(lister)} lists a folder ({event})"] = None
            return
        if event != "open" or len(opened) > MAX_ENTRIES:
            return
        try:
            raw = args[0]
            if isinstance(raw, int) or raw is None:
                return
            path = os.path.abspath(os.fsdecode(raw))
            if _under(path, scratch_roots):
                return
            opened[path] = None
            if path.endswith((".py", ".pyc")):
                who = importer_is_target()
                if who is not None:
                    dynamic[f"{os.path.basename(who)} loaded {path} by a call (importlib.import_module, "
                            "__import__ or a loader)"] = None
        except Exception:  # noqa: BLE001 - the record must never break the run; a gap shows as no record
            opened["<record error>"] = None

    def collected() -> dict[str, Any]:
        modules: dict[str, str] = {}
        clock: dict[str, None] = {}
        for name, mod in list(sys.modules.items()):
            file = getattr(mod, "__file__", None) if name not in before else None
            if not isinstance(file, str):
                continue
            path = os.path.abspath(file)
            if _under(path, scratch_roots):
                continue
            modules[name] = path
            if _under(path, project_roots):
                for key, value in list(vars(mod).items()):
                    if _reads_clock(value):
                        clock[f"{name}.{key}"] = None
        return {"opened": sorted(opened), "modules": modules, "dynamic": sorted(dynamic), "clock": sorted(clock),
                "truncated": len(opened) > MAX_ENTRIES}

    sys.addaudithook(hook)
    _COLLECT[:] = [collected]


def _reads_clock(value: object) -> bool:
    if isinstance(value, types.ModuleType):
        return value.__name__ in CLOCK_MODULES
    if isinstance(value, (types.BuiltinFunctionType, types.FunctionType, type)):
        module = getattr(value, "__module__", None)
        return isinstance(module, str) and module.split(".")[0] in CLOCK_MODULES
    return False


def collect() -> dict[str, Any] | None:
    """The record since :func:`start` (worker side), or None when recording was not started: ``opened``
    (absolute paths), ``modules`` (name -> file of each module loaded since), ``dynamic`` and ``clock``
    (what makes the inputs impossible to enumerate) and ``truncated``."""
    if not _COLLECT:
        return None
    try:
        return _COLLECT[0]()
    except Exception as exc:  # noqa: BLE001
        return {"opened": [], "modules": {}, "dynamic": [], "clock": [], "truncated": True,
                "error": f"{type(exc).__name__}: {exc}"}


# ------------------------------------------------------------------------------------------- parent side
@dataclass(frozen=True)
class RunInputs:
    """What one verdict's runs read, as the parent judges it.

    Attributes:
        files: project files the runs read that the static cache key does not cover (absolute, resolved,
            sorted): their hashes are stored in the cache entry and compared when it is read.
        unenumerable: why the inputs cannot be enumerated (a file outside the project, a module loaded
            with a computed name, the clock, a worker without a record), or None; then nothing is cached.
    """

    files: tuple[str, ...] = ()
    unenumerable: str | None = None


_LOCAL = threading.local()


@contextlib.contextmanager
def collecting() -> Iterator[list[tuple[str, Any]]]:
    """Collect ``(worker kind, record)`` of every worker the current thread runs inside the block."""
    previous = getattr(_LOCAL, "seen", None)
    seen: list[tuple[str, Any]] = []
    _LOCAL.seen = seen
    try:
        yield seen
    finally:
        _LOCAL.seen = previous


def note(kind: str, result: dict[str, Any] | None) -> None:
    """Called by the runner for each finished worker: keep its ``inputs`` record for :func:`collecting`."""
    seen = getattr(_LOCAL, "seen", None)
    if seen is not None:
        seen.append((kind, result.get("inputs") if isinstance(result, dict) else None))


def _environment_roots() -> list[str]:
    import site
    import sysconfig

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        with contextlib.suppress(KeyError):
            roots.add(sysconfig.get_paths()[key])
    with contextlib.suppress(Exception):
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    for name in _OWN_PACKAGES:  # evalgap's own sources: covered by the key's evalgap fingerprint
        with contextlib.suppress(Exception):
            spec = importlib.util.find_spec(name)
            roots.update(spec.submodule_search_locations or () if spec is not None else ())
    return sorted(os.path.realpath(r) for r in roots if r)


def _source_of(path: str) -> str:
    """``pkg/__pycache__/mod.cpython-311.pyc`` -> ``pkg/mod.py``; other paths unchanged."""
    folder, name = os.path.split(path)
    if name.endswith(".pyc") and os.path.basename(folder) == "__pycache__":
        return os.path.join(os.path.dirname(folder), name.split(".")[0] + ".py")
    return path


_HARMLESS = ("/dev/null",)
#: Files of the environment that are code (keyed through the installed-module closure and the tool
#: versions), not data: a read of any other environment file is an input of the verdict.
_CODE_SUFFIXES = (".py", ".pyc", ".pyi", ".so", ".pyd", ".pth", ".zip", ".egg", ".whl", "METADATA", "RECORD",
                  "WHEEL", "top_level.txt", "entry_points.txt", "direct_url.json", "INSTALLER", "REQUESTED")
_OWN_PACKAGES = ("evalgap", "evalgap.verifier", "evalgap.translators", "evalgap.specs_lang")


def classify(records: Sequence[tuple[str, Any]], project: Sequence[str], covered: Sequence[str],
             ignore: Sequence[str] = (), installed: Sequence[str] = ()) -> RunInputs:
    """Judge the records of one verdict's workers (parent side).

    Args:
        records: ``(worker kind, record)`` from :func:`collecting`; a record that is missing or not a dict
            makes the inputs unenumerable.
        project: the target's folders: files under them are inputs to hash.
        covered: files the static cache key already covers (the target module, its imported project
            modules): not repeated.
        ignore: further folders whose files are not inputs (the harness folder).
        installed: folders (or files) of the installed modules the target reaches and of their
            distributions (:func:`evalgap.verifier.cache.static_inputs`): a file read there that ``covered``
            does not hold (a data table, the ``METADATA``) is an input, although it lies in an environment
            folder.

    Returns:
        The :class:`RunInputs`.
    """
    if not records:
        return RunInputs(unenumerable="no run-time record of the inputs")
    proj = [os.path.realpath(p) for p in project]
    # an environment folder holding the project (a checkout under site-packages) does not hide its files
    env = [r for r in _environment_roots() if not any(_under(p, [r]) for p in proj)]
    ignored = [os.path.realpath(p) for p in ignore]
    skip = ignored + env
    done = {os.path.realpath(c) for c in covered}
    own = [os.path.realpath(p) for p in installed]
    files: dict[str, None] = {}
    for kind, rec in records:
        if not isinstance(rec, dict):
            return RunInputs(unenumerable=f"no run-time record of the inputs from the {kind} worker")
        if rec.get("truncated") or rec.get("error"):
            return RunInputs(unenumerable=f"the {kind} worker's record of the inputs is incomplete")
        for what in ("dynamic", "clock"):
            items = rec.get(what) or []
            if items:
                why = "reads the clock" if what == "clock" else "loads a module or lists a folder at run time"
                return RunInputs(unenumerable=f"{why}: {items[0]}")
        mods = rec.get("modules") or {}
        opened = [p for p in rec.get("opened") or [] if isinstance(p, str)]
        paths = [*opened, *(mods.values() if isinstance(mods, dict) else [])]
        data = set(opened)
        for raw in paths:
            if not isinstance(raw, str) or raw in _HARMLESS:
                continue
            path = os.path.realpath(_source_of(raw))
            if path in done:
                continue
            if _under(path, own) and os.path.isfile(path):
                files[path] = None
                continue
            if raw in data and _under(path, env) and not _under(path, ignored) \
                    and not path.endswith(_CODE_SUFFIXES) and "__pycache__" not in path and os.path.isfile(path):
                # a data file of the environment read at run time (another distribution's table, a file
                # beside site-packages): an input, although the folder's modules are keyed by version
                files[path] = None
                continue
            if _under(path, skip):
                continue
            if not _under(path, proj):
                return RunInputs(unenumerable=f"read a file outside the project: {raw}")
            if os.path.isdir(path):
                return RunInputs(unenumerable=f"listed a folder: {raw}")
            files[path] = None
    return RunInputs(tuple(sorted(files)))
