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
import operator
import os
import sys
import types
from typing import Any, Callable, Iterable, TypedDict

from evalgap.verifier.sandbox import guard, record

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
_getattr, _vars, _callable, _id, _sorted = getattr, vars, callable, id, sorted
_dict_get = dict.get
_FunctionType, _MethodType = types.FunctionType, types.MethodType
# the comparison's loops run in C (``all(map(is_, ...))``): an identity test cannot be answered by the
# compared objects (``==`` could: a replacement's ``__eq__``), and no Python frame runs per entry
_all, _map, _zip, _repeat, _is = all, map, zip, itertools.repeat, operator.is_
_FUNC = operator.attrgetter("__func__")
#: what a function runs besides its identity: its code, defaults and keyword defaults (getset descriptors of
#: the builtin function type, which no target can replace)
_FN_PARTS = (operator.attrgetter("__code__"), operator.attrgetter("__defaults__"),
             operator.attrgetter("__kwdefaults__"))


#: the modules a fork server loaded before forking (:func:`preload`), name -> module: evalgap's, its
#: engines' and the standard library's, loaded before any target ran; :meth:`Channel.watch_state` skips them
#: when the same module object is still there (resolving ~300 files' real paths costs ~30 ms a job)
_PRELOADED: dict[str, Any] = {}


def preload() -> None:
    """In a fork server, before it forks jobs: remember the loaded modules (see :data:`_PRELOADED`)."""
    _PRELOADED.update(sys.modules)


def _module_entry(name: str) -> Callable[[], Any]:
    """A reader of ``sys.modules[name]`` looked up at each call (a replaced ``sys.modules`` is seen)."""
    return lambda: _dict_get(sys.modules, name)


_MISSING = object()


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


def _is_entry(value: Any) -> bool:
    """Entries worth watching in a module or class: functions, classes, methods, descriptors (not data,
    which libraries legitimately update)."""
    return _callable(value) or _isinstance(value, (staticmethod, classmethod, property))


def _code_of(value: Any) -> tuple[Any, ...] | None:
    """What a function entry runs, besides its identity: its code, defaults and keyword defaults (a target
    can keep the function object and swap its ``__code__``); for a static or class method or a bound
    method, those of the function inside; None for other entries."""
    fn = value
    if _isinstance(value, (staticmethod, classmethod)):
        fn = value.__func__
    elif _type(value) is _MethodType:
        fn = value.__func__
    if _type(fn) is not _FunctionType:
        return None
    return (fn.__code__, fn.__defaults__, fn.__kwdefaults__)


def _parts(fns: tuple[Any, ...]) -> tuple[tuple[Any, ...], ...]:
    """The code, defaults and keyword defaults of each of ``fns`` (functions), as three tuples."""
    return _tuple(_tuple(_map(get, fns)) for get in _FN_PARTS)


def _parts_same(fns: tuple[Any, ...], parts: tuple[tuple[Any, ...], ...]) -> bool:
    code, defaults, kwdefaults = _FN_PARTS
    return (_all(_map(_is, _map(code, fns), parts[0])) and _all(_map(_is, _map(defaults, fns), parts[1]))
            and _all(_map(_is, _map(kwdefaults, fns), parts[2])))


class _Watch:
    """One snapshot: ``entries`` of ``owner``, with the functions among them (``plain``) and the function
    wrappers (static and class methods, bound methods: ``wrapped``, whose ``__func__`` a target can rebind
    in place with ``staticmethod.__init__``) and the code, defaults and keyword defaults of every function."""

    __slots__ = ("label", "owner", "entries", "keys", "values", "plain", "plain_parts", "wrapped", "inner",
                 "inner_fns", "inner_parts")

    def __init__(self, label: str, owner: Any, entries: dict[str, Any]) -> None:
        self.label, self.owner, self.entries = label, owner, entries
        self.keys, self.values = _tuple(entries), _tuple(entries.values())
        self.plain = _tuple(v for v in self.values if _type(v) is _FunctionType)
        self.plain_parts = _parts(self.plain)
        self.wrapped = _tuple(v for v in self.values
                              if _isinstance(v, (staticmethod, classmethod)) or _type(v) is _MethodType)
        self.inner = _tuple(_map(_FUNC, self.wrapped))
        self.inner_fns = _tuple(f for f in self.inner if _type(f) is _FunctionType)
        self.inner_parts = _parts(self.inner_fns)

    def intact(self) -> bool:
        """Whether every entry, every wrapper's function and every function's code, defaults and keyword
        defaults are still the snapshot's objects (identity only; C loops)."""
        now = _vars(self.owner)  # a dict or a class's mappingproxy: their C get() cannot be patched
        return (_all(_map(_is, _map(now.get, self.keys, _repeat(_MISSING)), self.values))
                and _parts_same(self.plain, self.plain_parts)
                and _all(_map(_is, _map(_FUNC, self.wrapped), self.inner))
                and _parts_same(self.inner_fns, self.inner_parts))

    def changes(self) -> list[str]:
        """What differs, one line per entry (``label.name removed``/``replaced``/``rewritten ...``)."""
        now = _vars(self.owner)
        codes = {id(v): c for v in self.values if (c := _snapshot_code(self, v)) is not None}
        out = []
        for key, old in _zip(self.keys, self.values):
            cur = now.get(key, _MISSING)
            if cur is not old:
                out.append(f"{self.label}.{key} {'removed' if cur is _MISSING else 'replaced'}")
                continue
            code = codes.get(id(old))
            if code is not None and not _same(_code_of(cur), code):
                out.append(f"{self.label}.{key} rewritten (its __code__ or defaults)")
        return out


def _snapshot_code(w: _Watch, value: Any) -> tuple[Any, ...] | None:
    """The code, defaults and keyword defaults the snapshot ``w`` holds for its entry ``value`` (a function
    or a wrapper of one), or None."""
    for fns, parts, owners in ((w.plain, w.plain_parts, w.plain), (w.inner_fns, w.inner_parts, None)):
        for i, fn in enumerate(fns):
            if (owners is not None and fn is value) or (owners is None and fn is _inner_of(w, value)):
                return _tuple(p[i] for p in parts)
    return None


def _inner_of(w: _Watch, value: Any) -> Any:
    for wrapper, inner in _zip(w.wrapped, w.inner):
        if wrapper is value:
            return inner
    return _MISSING


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
        self._out = open(argv[1], "w", encoding="utf-8")
        self._sent = False
        self._watches: list[_Watch] = []
        self._objects: list[tuple[str, Callable[[], Any], Any]] = []
        self._flags: list[str] = []
        self._state: list[tuple[str, Any, dict[str, Any]]] = []
        self._recording = False
        os.environ.pop("PYTHONHASHSEED", None)
        self.watch("builtins", builtins, everything=True)
        for mod in (json, json.encoder, json.decoder, json.scanner, sys.modules[__name__], guard, record):
            self.watch(mod.__name__, mod)
        for cls in (json.JSONEncoder, json.JSONDecoder, Channel):
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

    def start_record(self) -> None:
        """Start the run-time record of the target's inputs (:mod:`evalgap.verifier.sandbox.record`): the
        files it opens and the modules it loads, sent as ``inputs`` for the parent's cache decision. Call it
        just before the harness is imported. The request's first path is the harness folder, the rest the
        target's."""
        paths = _list(self.request.get("paths", []))
        record.start(paths[1:], [os.path.dirname(os.getcwd()), *paths[:1]])  # target; scratch, harness
        self._recording = True

    def install_guard(self) -> None:
        """Install the audit-hook guard for the working folder unless the request says ``guard: false``."""
        if self.request.get("guard", True):
            import ctypes  # noqa: F401 - loaded now (its import opens libpython), so a target may import it

            guard.install(os.getcwd())

    # -- what is watched
    def watch(self, label: str, owner: Any, everything: bool = False) -> None:
        """Snapshot the entries of ``owner`` (a module or class ``__dict__``): functions, classes and
        descriptors (every entry with ``everything``)."""
        entries = {k: v for k, v in _vars(owner).items() if everything or _is_entry(v)}
        self._watches.append(_Watch(label, owner, entries))

    def watch_modules(self, prefixes: tuple[str, ...]) -> None:
        """:meth:`watch` every loaded module whose name is one of ``prefixes`` or below one, and every class
        such a module defines (its methods and descriptors: ``SymbolicInt.__eq__`` replaced or its code
        rewritten is tampering as much as a module function is)."""
        for name, mod in _sorted(sys.modules.items(), key=lambda kv: kv[0]):
            if mod is not None and (name in prefixes or name.startswith(tuple(p + "." for p in prefixes))):
                self.watch(name, mod)
                for key, value in _list(_vars(mod).items()):
                    if _isinstance(value, type) and _getattr(value, "__module__", None) == name:
                        self.watch(f"{name}.{key}", value)

    def watch_object(self, label: str, read: Callable[[], Any], expected: Any) -> None:
        """Require ``read()`` to still return ``expected`` (by identity) after the run."""
        self._objects.append((label, read, expected))

    def watch_function(self, label: str, fn: Any) -> None:
        """Snapshot a checked function: the object, its code, defaults and closure, the functions it wraps
        (``__wrapped__``) and its icontract contracts (their conditions and the conditions' code)."""
        parts = _function_parts(fn)
        self._objects.append((label, lambda: _function_parts(fn), parts))

    def watch_state(self, roots: Iterable[str]) -> None:
        """Record the numeric module globals (int and float, not bool) of every loaded module whose file is
        under one of ``roots``: a change after the run means the code keeps state across calls."""
        real = [os.path.join(os.path.realpath(r), "") for r in roots if r]
        for name, mod in _list(sys.modules.items()):
            if _dict_get(_PRELOADED, name) is mod:
                continue
            file = _getattr(mod, "__file__", None)
            if not file or not _isinstance(file, _str):
                continue
            full = os.path.realpath(file)
            if not any(full.startswith(r) for r in real) or "site-packages" in full:
                continue
            nums = {k: v for k, v in _vars(mod).items()
                    if _type(v) in (int, float) and not k.startswith("__")}
            self._state.append((name, mod, nums))

    def flag(self, what: str) -> None:
        """Record a tamper sign the worker saw itself (the run is then reported as tampered)."""
        if _len(self._flags) < 20:
            self._flags.append(what)

    # -- the check
    def tampered(self) -> list[str]:
        """What differs from the snapshots (``label.name replaced``/``removed``) and the flagged signs."""
        out = _list(self._flags)
        for w in self._watches:
            if not w.intact():
                out += w.changes()
        for label, read, expected in self._objects:
            try:
                cur = read()
            except BaseException:  # noqa: BLE001 - an attribute deleted or made to raise
                cur = _MISSING
            if not _same(cur, expected):
                out.append(f"{label} replaced")
        return out[:20]

    def state_changes(self) -> list[str]:
        """Numeric module globals of the target that changed since :meth:`watch_state` (``mod.name: a -> b``)."""
        out = []
        for name, mod, nums in self._state:
            now = _vars(mod)
            for key, old in nums.items():
                cur = _dict_get(now, key, _MISSING)
                if cur is not _MISSING and _type(cur) in (int, float) and cur != old:
                    out.append(f"{name}.{key}: {_repr(old)[:40]} -> {_repr(cur)[:40]}")
        return out[:10]

    def send(self, data: dict[str, Any]) -> None:
        """Write the result once (later calls are ignored): the tamper check's verdict replaces ``data``
        when anything was changed; ``blocked`` and ``state_changed`` are added."""
        if self._sent:
            return
        self._sent = True
        changed = self.tampered()
        if changed:
            data = {"tampered": changed, "error": f"tampered: {changed[0]}", "stage": "integrity",
                    "outcome": "tampered", "reason": f"tampered: {'; '.join(changed[:3])}"}
        state = self.state_changes()
        if state:
            data["state_changed"] = state
        if guard.installed_root() is not None:
            data["blocked"] = _list(guard.BLOCKED)
        if self._recording:
            data["inputs"] = record.collect()
        self._out.write(encode(data))
        self._out.close()


def _function_parts(fn: Any) -> tuple[Any, ...]:
    """The function objects, code, defaults, closure cells and cells' contents (and the code of the functions
    held there), and icontract contracts of
    ``fn`` and of what it wraps (``__wrapped__``), compared by identity after the run."""
    parts: list[Any] = []
    seen = 0
    while fn is not None and seen < 8:
        seen += 1
        closure = _getattr(fn, "__closure__", None)
        parts += [fn, _getattr(fn, "__code__", None), _getattr(fn, "__defaults__", None), closure]
        # a cell's contents can be rebound in place (``cell.cell_contents = x``): the cell stays the same
        for cell in closure or ():
            try:
                held = cell.cell_contents
            except ValueError:  # an empty cell
                held = None
            parts.append(held)
            parts += _code_of(held) or ()  # a function held there keeps its identity when its code is swapped
        for attr in ("__preconditions__", "__postconditions__", "__postcondition_snapshots__"):
            for group in _getattr(fn, attr, None) or ():
                for c in (group if _isinstance(group, _list) else [group]):
                    cond = _getattr(c, "condition", None)
                    parts += [c, cond, _getattr(cond, "__code__", None)]
        fn = _getattr(fn, "__wrapped__", None)
    return _tuple(parts)


def _same(a: Any, b: Any) -> bool:
    if _isinstance(a, tuple) and _isinstance(b, tuple):
        return _len(a) == _len(b) and all(x is y for x, y in zip(a, b))
    return a is b


def contracts_enforced(process: str) -> str | None:
    """None when icontract's checks run in this process, else why not (design.md section 8: importing
    CrossHair turns them into no-ops, so a worker that replays or tests must never have imported it).

    Args:
        process: the worker's name for the message (``replay``, ``Hypothesis``).
    """
    import icontract

    @icontract.ensure(lambda result: result > 0, "evalgap self-test")
    def _probe() -> int:
        return 0

    try:
        _probe()
    except icontract.ViolationError:
        return None
    return f"icontract checks are disabled in the {process} process (was CrossHair imported?)"


def enforcement_error(process: str) -> dict[str, Any] | None:
    """A worker's error result when icontract's checks do not run in this process or CrossHair is imported
    (see :func:`contracts_enforced`), else None.

    Args:
        process: the worker's name for the message (``replay``, ``Hypothesis``).
    """
    import sys

    problem = contracts_enforced(process)
    if problem or "crosshair" in sys.modules:
        return {"outcome": "error", "stage": "enforcement", "message": problem or "crosshair imported"}
    return None


def run(argv: list[str], work: Callable[[Channel], dict[str, Any]]) -> int:
    """The scaffold's main: open the channel, run ``work`` (its returned dict is the result), send it.

    Args:
        argv: ``[REQUEST.json, RESULT.json]``.
        work: the worker's body; anything it raises becomes ``{"error": "worker error: ...", "stage":
            "worker"}`` (the target's exceptions are data; a worker should catch them itself).

    Returns:
        0 (the exit code; what happened is in the result).
    """
    ch = Channel(argv)
    try:
        data = work(ch)
    except BaseException as exc:  # noqa: BLE001 - anything the target does is data
        data = {"error": f"worker error: {type(exc).__name__}: {str(exc)[:500]}", "stage": "worker"}
    ch.send(data)
    return 0
