"""The one worker scaffold: read the request, open the result channel, run, check for tampering, report.

Every worker kind (:mod:`evalgap.verifier.sandbox.workers`) has a ``main(argv)`` that is
``channel.run(argv, work)``. The scaffold, *before anything of the target is imported*:

* reads the request (``argv[0]``) and opens the result file (``argv[1]``; the guard later blocks writes
  outside the worker folder, and the result file lives beside it);
* binds its serializer: CPython's C JSON encoder object, built here from ``_json``'s own functions, so a
  target that patches ``json.dump``/``json.dumps``/``JSONEncoder`` at import time cannot rewrite what is
  written;
* snapshots the objects a verdict depends on (:meth:`Channel.watch`): ``builtins``, ``json`` and its
  encoder/decoder modules, this module, the guard, and what the worker adds (icontract's and CrossHair's
  entry points, the harness's check functions and their contracts);
* removes ``PYTHONHASHSEED`` from ``os.environ`` (the interpreter has read it; a normal run has none, so a
  target must not be able to tell the sandbox by it).

After the run, :meth:`Channel.send` compares every snapshot with what is there now. Any difference (an
entry replaced or removed), or a tamper sign the worker flagged (:meth:`Channel.flag`, e.g. the target
raised CrossHair's own ``IgnoreAttempt``), replaces the result by ``{"tampered": [...], "error": ...,
"stage": "integrity", "outcome": "tampered"}``: the engine reports ``unknown (tampered: ...)``, never a
verdict. The worker may also record module state the target changed across calls (:meth:`Channel.watch_state`):
``state_changed`` in the result (a hidden call counter), which the engines treat as nondeterminism.

This raises the bar against naive forging; code in the same interpreter can still reach around it
(``gc``, ``ctypes``): the operating-system sandbox is the boundary (docs/engine.md).
"""

from __future__ import annotations

import builtins
import json
import json.decoder
import json.encoder
import json.scanner
import importlib
import itertools
import os
import signal
import sys
import types
from typing import Any, Callable, Iterable, TypedDict

from evalgap.verifier.sandbox import enforcement, guard, harness_load, record, snapshot
from evalgap.verifier.sandbox.snapshot import MISSING as _MISSING
from evalgap.verifier.sandbox.snapshot import Watch as _Watch
from evalgap.verifier.sandbox.snapshot import cell_value as _cell_value
from evalgap.verifier.sandbox.snapshot import closure_state as _closure_state
from evalgap.verifier.sandbox.snapshot import function_parts as _function_parts
from evalgap.verifier.sandbox.snapshot import is_entry as _is_entry
from evalgap.verifier.sandbox.snapshot import entries_of as _entries
from evalgap.verifier.sandbox.snapshot import module_owners as _module_owners
from evalgap.verifier.sandbox.snapshot import same as _same

__all__ = ["Channel", "run", "encode", "WorkerRequest", "WorkerResult"]


class WorkerRequest(TypedDict, total=False):
    """Keys every worker request may carry (each worker documents its own keys beside these).

    Attributes:
        paths: folders prepended to ``sys.path`` (harness folder first, then the target's).
        guard: install the audit-hook guard (default True where the worker uses it).
    """

    paths: list[str]
    guard: bool


class WorkerResult(TypedDict, total=False):
    """Keys the scaffold itself puts in a result.

    Attributes:
        blocked: operations the guard blocked (workers that install it).
        tampered: what the code under check changed or did to the checking machinery (then nothing else
            of the result is kept).
        error, stage, outcome, reason: ``tampered: ...``, ``integrity``, ``tampered`` for a tampered run (for
            the workers' several conventions); ``error`` and ``stage`` also for a worker error.
        state_changed: module globals of the target that changed during the run (``module.name: a -> b``).
    """

    blocked: list[str]
    tampered: list[str]
    error: str
    stage: str
    outcome: str
    reason: str
    state_changed: list[str]


# ------------------------------------------------------------------ bound before any target code runs
_isinstance, _repr, _len, _list, _tuple, _str, _type = isinstance, repr, len, list, tuple, str, type
_getattr, _vars, _sorted, _id, _map, _zip = getattr, vars, sorted, id, map, zip
_repeat = itertools.repeat
_dict_get = dict.get


#: the modules a fork server loaded before forking (:func:`preload`), name -> module: evalgap's, its
#: engines' and the standard library's, loaded before any target ran; :meth:`Channel.watch_state` skips them
#: when the same module object is still there (resolving ~300 files' real paths costs ~30 ms a job). Each
#: :class:`Channel` copies it when it opens, before any target code runs: what a target adds later is not read.
_PRELOADED: dict[str, Any] = {}


def preload() -> None:
    """In a fork server, before it forks jobs: remember the loaded modules (see :data:`_PRELOADED`)."""
    _PRELOADED.update(sys.modules)


def _module_entry(name: str) -> Callable[[], Any]:
    """A reader of ``sys.modules[name]`` looked up at each call (a replaced ``sys.modules`` is seen)."""
    return lambda: _dict_get(sys.modules, name)


def _default(obj: Any) -> str:
    """What a value JSON has no form for becomes: its ``repr`` (workers only send builtin data)."""
    return _repr(obj)


def _py_encoder() -> Callable[[Any], str]:  # pragma: no cover - CPython always has the C encoder
    enc = json.JSONEncoder(default=_default)
    return enc.encode


def _c_encoder() -> Callable[[Any], str] | None:
    make = json.encoder.c_make_encoder  # type: ignore[attr-defined]  # private, not in typeshed
    if make is None:  # pragma: no cover
        return None
    chunks = make(None, _default, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True)
    join = "".join

    def encode(obj: Any) -> str:
        return join(chunks(obj, 0))
    return encode


#: The serializer of every result: bound at import, before the target can patch ``json``.
encode: Callable[[Any], str] = _c_encoder() or _py_encoder()


#: the exit code of a worker whose result file cannot be trusted (:meth:`Channel.send`); the parent keeps a
#: result only from a worker that ended with 0, or one that reports tampering
UNTRUSTED_EXIT = 86


def _threads_left() -> dict[str, Any]:
    """The result of a run that ended with another thread still running (it could write the result file
    after the scaffold did)."""
    why = "a thread started during the run was still running when the result was written"
    return {"tampered": [why], "error": f"tampered: {why}", "stage": "integrity", "outcome": "tampered",
            "reason": f"tampered: {why}"}


class Channel:
    """A worker's request, result channel and tamper check (see the module docstring).

    Args:
        argv: ``[REQUEST.json, RESULT.json]``.

    Attributes:
        request: the request dict.
    """

    def __init__(self, argv: list[str]) -> None:
        with open(argv[0], encoding="utf-8") as fh:
            self.request: dict[str, Any] = json.load(fh)
        # the result file, by descriptor, and which file it is: the target runs in this process and can
        # write to the descriptor, or point it at another file (dup2); send() checks the file is the same
        # one and writes the whole of it itself, last (see send)
        self._out = os.open(argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        st = os.fstat(self._out)
        self._out_id = (st.st_dev, st.st_ino)
        self._threads = frozenset(sys._current_frames())  # a worker has one; a test process may have more
        self._sent = False
        self._exits = False  # set by run(): the process ends right after the result is written
        self._watches: list[_Watch] = []
        self._objects: list[tuple[str, Callable[[], Any], Any]] = []
        self._flags: list[str] = []
        self._state: list[tuple[str, Any, dict[str, Any]]] = []
        self._cells: list[tuple[str, list[tuple[str, Any, Any]]]] = []
        self._recording = False
        # read now, before any target code runs (see _PRELOADED); the import machinery as it is now: a
        # finder or path hook put ahead of these (sys.meta_path.insert(0, ...)) can rewrite any later
        # import, the harness's too
        self._preloaded = dict(_PRELOADED)
        self._prebuilt = snapshot.take_prebuilt()
        self._meta_path, self._path_hooks = _tuple(sys.meta_path), _tuple(sys.path_hooks)
        os.environ.pop("PYTHONHASHSEED", None)
        self.watch("builtins", builtins, everything=True)
        for mod in (json, json.encoder, json.decoder, json.scanner, sys.modules[__name__], guard, record,
                    harness_load, snapshot, enforcement):
            self.watch(mod.__name__, mod)
        for cls in (json.JSONEncoder, json.JSONDecoder, Channel, _Watch):
            self.watch(f"{cls.__module__}.{cls.__qualname__}", cls)
        for name in ("json", "json.encoder", "builtins"):
            self.watch_object(f"sys.modules[{name!r}]", _module_entry(name), sys.modules[name])

    # -- paths and guard
    def add_paths(self, paths: Iterable[str] | None = None) -> None:
        """Prepend ``paths`` (default: the request's ``paths``) to ``sys.path``, first one first.

        Bytecode is read from, and written to, a fresh empty folder only (``sys.pycache_prefix``): a
        ``__pycache__/*.pyc`` planted beside a target's source, with the header of the source's size and mtime,
        would otherwise be run instead of the source that the spec, the cache key and the report describe."""
        import tempfile

        sys.dont_write_bytecode = True
        sys.pycache_prefix = tempfile.mkdtemp(prefix="evalgap-pyc-")
        importlib.invalidate_caches()
        for p in reversed(_list(paths if paths is not None else self.request.get("paths", []))):
            sys.path.insert(0, p)

    def import_harness(self, name: str, _load: Any = harness_load.load_harness) -> types.ModuleType:
        """Import the harness module ``name`` from the request's first path: the target first, then the
        harness's own source, checked for names the target put into it
        (:func:`evalgap.verifier.sandbox.harness_load.load_harness`; tamper signs are flagged).

        Raises:
            whatever the target's import or the harness raises (the worker reports an import error).
        """
        paths = _list(self.request.get("paths") or ["."])
        module: types.ModuleType = _load(paths[0], name, self.flag)
        for dotted, cls, owner in harness_load.MODELS:  # a reference model patched while the target runs
            self.watch(f"reference model {dotted}", cls)
            if owner is not None:
                self.watch(f"module of the reference model {dotted}", owner)
        return module

    def start_record(self) -> None:
        """Start the run-time record of the target's inputs (:mod:`evalgap.verifier.sandbox.record`): the
        files it opens and the modules it loads, sent as ``inputs`` for the parent's cache decision. Call it
        just before the harness is imported. The request's first path is the harness folder, the rest the
        target's."""
        paths = _list(self.request.get("paths", []))
        record.start(paths[1:], [os.path.dirname(os.getcwd()), *paths[:1]])  # target; scratch, harness
        self._recording = True

    def install_guard(self) -> None:
        """Install the audit-hook guard for the working folder unless the request says ``guard: false``.

        The functions of the snapshots taken so far are handed to it: assigning their code, defaults or
        keyword defaults is then flagged here (``label.name rewritten``) and blocked, so the check after the
        run compares only identities (reading those attributes again is an audited event each)."""
        if self.request.get("guard", True):
            import ctypes  # noqa: F401 - loaded now (its import opens libpython), so a target may import it

            fns: dict[int, _Watch] = {}
            for w in reversed(self._watches):  # a function held by several: the first snapshot names it
                fns.update(_zip(_map(_id, w.functions()), _repeat(w)))
                fns[_id(w.owner)] = w  # its module or class: assigning __class__ is reported too
            if guard.install(os.getcwd(), fns, self._rewritten):
                for w in self._watches:
                    w.guarded = True

    def _rewritten(self, w: _Watch, fn: Any, attr: str, _label_of: Any = _Watch.label_of) -> None:
        """The guard's report of an assignment to ``attr`` of ``fn``, a function of snapshot ``w`` (the guard
        blocks it afterwards, whatever this does)."""
        self.flag(f"{_label_of(w, fn)} rewritten (its {attr} assigned)")

    # -- what is watched
    def watch(self, label: str, owner: Any, everything: bool = False) -> None:
        """Snapshot the entries of ``owner`` (a module or class ``__dict__``): functions, classes and
        descriptors (every entry with ``everything``)."""
        self._watches.append(_Watch(label, owner, _entries(owner, everything)))

    def watch_modules(self, prefixes: tuple[str, ...]) -> None:
        """:meth:`watch` every loaded module whose name is one of ``prefixes`` or below one, and every class
        such a module defines (its methods and descriptors: ``SymbolicInt.__eq__`` replaced or its code
        rewritten is tampering as much as a module function is).

        A module the fork server snapshotted before forking (:func:`.snapshot.prebuild`) and still the same object
        reuses those snapshots, each checked first (identity, code and defaults; no target code has run yet):
        one that differs (the worker's own patches) is taken again from what is here now. The entries are
        compared, not the functions' code and defaults: only evalgap's own code has run in the job so far,
        and it replaces entries, never code."""
        below = _tuple(p + "." for p in prefixes)
        fresh = []
        for name, mod in _sorted(sys.modules.items(), key=lambda kv: kv[0]):
            if mod is None or not (name in prefixes or name.startswith(below)):
                continue
            held = _dict_get(self._prebuilt, name)
            if held is None or held[0] is not mod:
                fresh.append(name)
                continue
            for w in held[1]:
                self._watches.append(w if w.same_entries() else _Watch(w.label, w.owner, _entries(w.owner)))
        if fresh:
            for name, mod, owners in _module_owners(_tuple(fresh)):
                if name in fresh:
                    for label, owner in owners:
                        self.watch(label, owner)

    def watch_object(self, label: str, read: Callable[[], Any], expected: Any) -> None:
        """Require ``read()`` to still return ``expected`` (by identity) after the run."""
        self._objects.append((label, read, expected))

    def watch_function(self, label: str, fn: Any) -> None:
        """Snapshot a checked function: the object, its code, defaults and closure, the functions it wraps
        (``__wrapped__``) and its icontract contracts (their conditions and the conditions' code)."""
        parts = _function_parts(fn)
        self._objects.append((label, lambda: _function_parts(fn), parts))

    def watch_state(self, roots: Iterable[str]) -> None:
        """Record the module globals that can count calls (numbers, short lists of numbers, bytearrays, sets of
        scalars, ``itertools.count``: :func:`.snapshot.cell_value`) of every loaded module whose file is under
        one of ``roots``, and the closure cells and default arguments of its functions that hold such values: a
        change after the run means the code keeps state across calls."""
        real = [os.path.join(os.path.realpath(r), "") for r in roots if r]
        for name, mod in _list(sys.modules.items()):
            if _dict_get(self._preloaded, name) is mod:
                continue
            file = _getattr(mod, "__file__", None)
            if not file or not _isinstance(file, _str):
                continue
            full = os.path.realpath(file)
            if not any(full.startswith(r) for r in real) or "site-packages" in full:
                continue
            nums = {k: c for k, v in _vars(mod).items()
                    if not k.startswith("__") and (c := _cell_value(v)) is not _MISSING}
            self._state.append((name, mod, nums))
            self._cells.append((name, _closure_state(_vars(mod))))

    def flag(self, what: str) -> None:
        """Record a tamper sign the worker saw itself (the run is then reported as tampered)."""
        if _len(self._flags) < 20:
            self._flags.append(what)

    # -- the check
    def tampered(self, _intact: Any = _Watch.intact, _changes: Any = _Watch.changes, _same: Any = _same,
                 _list: Any = _list, _len: Any = _len, _tuple: Any = _tuple, _sys: Any = sys,
                 _MISSING: Any = _MISSING) -> list[str]:
        """What differs from the snapshots (``label.name replaced``/``removed``) and the flagged signs.

        The methods and helpers it runs are bound as defaults when this module is imported (before any
        target code): replacing ``Channel.tampered``, ``Watch.intact`` or a helper of this module changes
        what the target's own later calls see, not this check, and the replacement itself is reported (the
        classes and this module are watched)."""
        out = _list(self._flags)
        for w in self._watches:
            if not _intact(w):
                out += _changes(w)
        for label, read, expected in self._objects:
            try:
                cur = read()
            except BaseException:  # noqa: BLE001 - an attribute deleted or made to raise
                cur = _MISSING
            if not _same(cur, expected):
                out.append(f"{label} replaced")
        for label, now, then in (("sys.meta_path", _sys.meta_path, self._meta_path),
                                 ("sys.path_hooks", _sys.path_hooks, self._path_hooks)):
            if not _same(_tuple(now[:_len(then)]), then):
                out.append(f"{label} changed (a finder or hook put ahead of the interpreter's own)")
        first: list[str] = out[:20]
        return first

    def state_changes(self, _vars: Any = _vars, _dict_get: Any = _dict_get, _type: Any = _type,
                      _repr: Any = _repr, _MISSING: Any = _MISSING,
                      _closure_changes: Any = snapshot.closure_changes,
                      _cell_value: Any = snapshot.cell_value) -> list[str]:
        """Numeric module globals of the target that changed since :meth:`watch_state` (``mod.name: a -> b``;
        its helpers bound at import, see :meth:`tampered`)."""
        out = []
        for name, mod, nums in self._state:
            now = _vars(mod)
            for key, old in nums.items():
                cur = _dict_get(now, key, _MISSING)
                seen = _cell_value(cur) if cur is not _MISSING else _MISSING
                if seen is not _MISSING and seen is not old and seen != old:
                    out.append(f"{name}.{key}: {_repr(old)[:40]} -> {_repr(seen)[:40]}")
        for name, cells in self._cells:
            out += [f"{name}.{line}" for line in _closure_changes(cells)]
        return out[:10]

    def _write_file(self, text: str, _fstat: Any = os.fstat, _pwrite: Any = os.pwrite,
                    _close: Any = os.close, _frames: Any = sys._current_frames, _len: Any = _len,
                    _encode_utf8: Any = str.encode, _encode: Any = encode,
                    _threads_left: Any = _threads_left) -> bool:
        """:meth:`_write`'s checks and the write itself (see there)."""
        try:
            st = _fstat(self._out)
            if (st.st_dev, st.st_ino) != self._out_id:
                return False
            if not self._threads.issuperset(_frames()):
                text = _encode(_threads_left())
                ok = False
            else:
                ok = True
            raw = _encode_utf8(text, "utf-8")
            done = 0
            while done < _len(raw):
                done += _pwrite(self._out, raw[done:], done)
            size = _fstat(self._out).st_size
            _close(self._out)
            return ok and size == _len(raw)  # longer: the target wrote past the end of this result
        except OSError:
            return False

    def _write(self, text: str, _file: Any = _write_file, _mask: Any = signal.pthread_sigmask,
               _signals: Any = frozenset(signal.valid_signals()),
               _setprofile: Any = sys.setprofile, _settrace: Any = sys.settrace,
               _getprofile: Any = sys.getprofile, _gettrace: Any = sys.gettrace) -> bool:
        """Write ``text`` as the whole result file; False when it cannot be trusted (the worker must then not
        end with exit code 0: the parent keeps a result only from one that did). The target may have written
        to the descriptor (a forged result), pointed it elsewhere, or left a thread, a signal handler on a timer,
        or a profile function to write after this: the file must be the one opened before the target ran
        (device and inode), no Python thread may have started since (Z3's timer threads run no Python code),
        the file is written whole from offset 0 and must be exactly that long (the guard blocks truncating it),
        with every signal blocked and no profile or trace function left. A channel used in-process (a test,
        not through :func:`run`, which exits right after) gets its mask, profile and trace back."""
        before = (_mask(signal.SIG_BLOCK, _signals), _getprofile(), _gettrace())
        try:
            _setprofile(None)
            _settrace(None)
            return bool(_file(self, text))
        finally:
            if not self._exits:
                _mask(signal.SIG_SETMASK, before[0])
                _setprofile(before[1])
                _settrace(before[2])

    def send(self, data: dict[str, Any], _tampered: Any = tampered, _state_changes: Any = state_changes,
             _installed_root: Any = guard.installed_root, _blocked: Any = guard.BLOCKED,
             _collect: Any = record.collect, _encode: Any = encode, _list: Any = _list,
             _write: Any = _write) -> bool:
        """Write the result once (later calls are ignored): the tamper check's verdict replaces ``data``
        when anything was changed; ``blocked`` and ``state_changed`` are added. What it runs is bound when
        this module is imported (see :meth:`tampered`).

        Returns:
            True when the result file holds this result and nothing else can write it (see :meth:`_write`);
            False otherwise, or on a second call: the worker must then end with a non-zero exit code."""
        if self._sent:
            return False
        self._sent = True
        changed = _tampered(self)
        if changed:
            data = {"tampered": changed, "error": f"tampered: {changed[0]}", "stage": "integrity",
                    "outcome": "tampered", "reason": f"tampered: {'; '.join(changed[:3])}"}
        state = _state_changes(self)
        if state:
            data["state_changed"] = state
        if _installed_root() is not None:
            data["blocked"] = _list(_blocked)
        if self._recording:
            data["inputs"] = _collect()
        return bool(_write(self, _encode(data)))


def run(argv: list[str], work: Callable[[Channel], dict[str, Any]], _Channel: Any = Channel,
        _send: Any = Channel.send, _untrusted: int = UNTRUSTED_EXIT) -> int:
    """The scaffold's main: open the channel, run ``work`` (its returned dict is the result), send it.

    Args:
        argv: ``[REQUEST.json, RESULT.json]``.
        work: the worker's body; anything it raises becomes ``{"error": "worker error: ...", "stage":
            "worker"}`` (the target's exceptions are data; a worker should catch them itself).

    Returns:
        the exit code: 0, or :data:`UNTRUSTED_EXIT` when the result file cannot be trusted (what happened
        is in the result).

    ``Channel``, ``Channel.send`` and :data:`UNTRUSTED_EXIT` are bound as defaults when this module is
    imported: the result goes out through them, not through whatever the target made of them (setting
    ``channel.UNTRUSTED_EXIT = 0`` does not make an untrusted result file a result). Nothing raised in here
    leaves it: the worker's process ends with the returned code only when this returns normally.
    """
    ch = _Channel(argv)
    ch._exits = True
    try:
        try:
            data = work(ch)
        except BaseException as exc:  # noqa: BLE001 - anything the target does is data
            data = _failure(exc)
        ok = _send(ch, data)
    except BaseException:  # noqa: BLE001 - the target's code, reached through an exception's text or a value
        return _untrusted  # in the result, or a signal handler of its, raised: no exit code 0 without the write
    return 0 if ok is True else _untrusted


def _failure(exc: BaseException, _type: Any = type, _str: Any = str, _copy: Any = str.__str__,
             _isinstance: Any = isinstance, _name: Any = vars(type)["__name__"].__get__) -> dict[str, Any]:
    """The result of a worker whose body raised ``exc``. Its text is the target's code (``__str__``; a red-team
    target raised ``SystemExit(0)`` there, which left the scaffold before its write): read with everything
    caught, the class name through ``type``'s own descriptor, the text as an exact ``str``."""
    try:
        name = _name(_type(exc))
    except BaseException:  # noqa: BLE001
        name = "?"
    try:
        text = _str(exc)
        text = _copy(text)[:500] if _isinstance(text, str) else "?"
    except BaseException:  # noqa: BLE001
        text = "(its message could not be read)"
    return {"error": f"worker error: {name}: {text}", "stage": "worker"}

