"""The tamper check's snapshots: the entries of a module or class (and the code, defaults and keyword
defaults of the functions among them), compared by identity in C loops after the run; and the parts of a
checked function (its code, closure, what it wraps and its icontract contracts).

Used by :class:`evalgap.verifier.sandbox.channel.Channel`, which watches this module too. Every helper the
comparison runs is bound as a default argument when this module is imported, before any target code: rebinding
a global of this module does not change what a comparison does (a replaced entry is itself reported).
"""

from __future__ import annotations

import itertools
import operator
import sys
import types
from typing import Any

__all__ = ["Watch", "MISSING", "is_entry", "function_parts", "same", "cell_value", "closure_state",
           "closure_changes", "prebuild", "take_prebuilt", "module_owners", "entries_of"]

_isinstance, _len, _list, _tuple, _type = isinstance, len, list, tuple, type
_getattr, _vars, _callable, _sorted = getattr, vars, callable, sorted
_FunctionType, _MethodType = types.FunctionType, types.MethodType
# the comparison's loops run in C (``all(map(is_, ...))``): an identity test cannot be answered by the
# compared objects (``==`` could: a replacement's ``__eq__``), and no Python frame runs per entry
_all, _map, _zip, _repeat, _is = all, map, zip, itertools.repeat, operator.is_
_FUNC = operator.attrgetter("__func__")
#: what a function runs besides its identity: its code, defaults and keyword defaults (getset descriptors of
#: the builtin function type, which no target can replace)
_FN_PARTS = (operator.attrgetter("__code__"), operator.attrgetter("__defaults__"),
             operator.attrgetter("__kwdefaults__"))
#: what a missing entry reads as
MISSING = object()
_MISSING = MISSING


def is_entry(value: Any) -> bool:
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


def _parts_same(fns: tuple[Any, ...], parts: tuple[tuple[Any, ...], ...], _all: Any = all, _map: Any = map,
                _is: Any = operator.is_, _FN_PARTS: Any = _FN_PARTS) -> bool:
    code, defaults, kwdefaults = _FN_PARTS
    ok: bool = (_all(_map(_is, _map(code, fns), parts[0])) and _all(_map(_is, _map(defaults, fns), parts[1]))
                and _all(_map(_is, _map(kwdefaults, fns), parts[2])))
    return ok


def same(a: Any, b: Any, _isinstance: Any = isinstance, _len: Any = len, _all: Any = all, _map: Any = map,
          _is: Any = operator.is_) -> bool:
    if _isinstance(a, tuple) and _isinstance(b, tuple):
        ok: bool = _len(a) == _len(b) and _all(_map(_is, a, b))
        return ok
    return a is b


class Watch:
    """One snapshot: ``entries`` of ``owner``, with the functions among them (``plain``) and the function
    wrappers (static and class methods, bound methods: ``wrapped``, whose ``__func__`` a target can rebind
    in place with ``staticmethod.__init__``) and the code, defaults and keyword defaults of every function."""

    __slots__ = ("label", "owner", "kind", "entries", "keys", "values", "plain", "plain_parts", "wrapped", "inner",
                 "inner_fns", "inner_parts", "guarded")

    def __init__(self, label: str, owner: Any, entries: dict[str, Any]) -> None:
        self.label, self.owner, self.entries = label, owner, entries
        # the owner's class too: a module whose __class__ is swapped for a ModuleType subclass with its own
        # __getattribute__ answers attribute reads (z3.sat) while its namespace stays the same (red team)
        self.kind = _type(owner)
        self.keys, self.values = _tuple(entries), _tuple(entries.values())
        self.plain = _tuple(v for v in self.values if _type(v) is _FunctionType)
        self.plain_parts = _parts(self.plain)
        self.wrapped = _tuple(v for v in self.values
                              if _isinstance(v, (staticmethod, classmethod)) or _type(v) is _MethodType)
        self.inner = _tuple(_map(_FUNC, self.wrapped))
        self.inner_fns = _tuple(f for f in self.inner if _type(f) is _FunctionType)
        self.inner_parts = _parts(self.inner_fns)
        #: set by :meth:`Channel.install_guard <evalgap.verifier.sandbox.channel.Channel.install_guard>` when the
        #: guard's audit hook stops and flags every assignment to these functions' code, defaults and keyword
        #: defaults: the check then need not read them again (each read is an audited event: ~1 us through
        #: the hook, ~15 ms over CrossHair's and Z3's 15,000 functions)
        self.guarded = False

    def functions(self) -> tuple[Any, ...]:
        """The functions whose code, defaults and keyword defaults this snapshot holds (entries and the
        functions inside wrappers)."""
        return self.plain + self.inner_fns

    def label_of(self, fn: Any) -> str:
        """``label.name`` of the entry that is ``fn`` or wraps it (``label.?`` when none does)."""
        if fn is self.owner:
            return self.label
        for key, value in _zip(self.keys, self.values):
            if value is fn or _inner_of(self, value) is fn:
                return f"{self.label}.{key if _type(key) is str else '?'}"
        return f"{self.label}.?"

    def intact(self, _all: Any = all, _map: Any = map, _is: Any = operator.is_, _repeat: Any = itertools.repeat,
               _vars: Any = vars, _FUNC: Any = _FUNC, _parts_same: Any = _parts_same,
               _MISSING: Any = _MISSING) -> bool:
        """Whether every entry, every wrapper's function and every function's code, defaults and keyword
        defaults are still the snapshot's objects (identity only; C loops; the code and defaults only when
        the guard does not watch their assignment, see :attr:`guarded`). Its helpers are bound as
        defaults when this module is imported, before any target: rebinding a module global of this module
        (``_all = lambda it: True``) does not change what the check runs; replacing the defaults or the code
        of a function of evalgap's is blocked by the guard (:mod:`.guard`)."""
        ok: bool = self.same_entries()
        if ok and self.guarded is not True:
            ok = _parts_same(self.plain, self.plain_parts) and _parts_same(self.inner_fns, self.inner_parts)
        return ok

    def same_entries(self, _all: Any = all, _map: Any = map, _is: Any = operator.is_,
                     _repeat: Any = itertools.repeat, _vars: Any = vars, _FUNC: Any = _FUNC,
                     _MISSING: Any = _MISSING) -> bool:
        """Whether every entry and every wrapper's function are still the snapshot's objects (identity; what
        :meth:`intact` checks besides the code and defaults)."""
        now = _vars(self.owner)  # a dict or a class's mappingproxy: their C get() cannot be patched
        ok: bool = (_type(self.owner) is self.kind
                    and _all(_map(_is, _map(now.get, self.keys, _repeat(_MISSING)), self.values))
                    and _all(_map(_is, _map(_FUNC, self.wrapped), self.inner)))
        return ok

    def changes(self) -> list[str]:
        """What differs, one line per entry (``label.name removed``/``replaced``/``rewritten ...``)."""
        now = _vars(self.owner)
        codes = {id(v): c for v in self.values if (c := _snapshot_code(self, v)) is not None}
        out = [] if _type(self.owner) is self.kind else [f"{self.label} re-classed (its __class__ assigned)"]
        for key, old in _zip(self.keys, self.values):
            cur = now.get(key, _MISSING)
            if cur is not old:
                out.append(f"{self.label}.{key} {'removed' if cur is _MISSING else 'replaced'}")
                continue
            code = codes.get(id(old))
            if code is not None and not same(_code_of(cur), code):
                out.append(f"{self.label}.{key} rewritten (its __code__ or defaults)")
        for wrapper, inner in _zip(self.wrapped, self.inner):
            if _FUNC(wrapper) is not inner:
                name = next((k for k, v in _zip(self.keys, self.values) if v is wrapper), "?")
                if not any(line.startswith(f"{self.label}.{name} ") for line in out):
                    out.append(f"{self.label}.{name} re-pointed (the function inside the wrapper)")
        return out or [f"{self.label} changed in place"]


#: snapshots built in a fork server before it forks (:func:`prebuild`): module name -> (the module, its
#: :class:`Watch` and those of the classes it defines). A job's channel takes them when it opens
#: (:func:`take_prebuilt`, before any target code runs), which empties this dict: no module global leads a
#: target to them.
_PREBUILT: dict[str, tuple[Any, list[Watch]]] = {}


def module_owners(prefixes: tuple[str, ...]) -> list[tuple[str, Any, list[tuple[str, Any]]]]:
    """``(name, module, [(label, module or class), ...])`` of every loaded module named one of ``prefixes``
    or below one, with the classes the module defines (what ``Channel.watch_modules`` snapshots)."""
    below = _tuple(p + "." for p in prefixes)
    out = []
    for name, mod in _sorted(sys.modules.items(), key=lambda kv: kv[0]):
        if mod is not None and (name in prefixes or name.startswith(below)):
            owners: list[tuple[str, Any]] = [(name, mod)]
            for key, value in _list(_vars(mod).items()):
                if _isinstance(value, type) and _getattr(value, "__module__", None) == name:
                    owners.append((f"{name}.{key}", value))
            out.append((name, mod, owners))
    return out


def entries_of(owner: Any, everything: bool = False) -> dict[str, Any]:
    """The entries of ``owner`` (a module or class) a :class:`Watch` snapshots: :func:`is_entry` ones, or all."""
    return {k: v for k, v in _vars(owner).items() if everything or is_entry(v)}


def prebuild(prefixes: tuple[str, ...]) -> None:
    """In a fork server, before it forks jobs: snapshot the modules a job's ``Channel.watch_modules``
    with these ``prefixes`` will watch, so that a job only checks them against what it finds (a forked
    child reading 15,000 functions' code touches every page that holds them: ~30 ms a job for CrossHair's
    and Z3's modules; checking the prebuilt snapshot by identity costs a fraction)."""
    for name, mod, owners in module_owners(prefixes):
        _PREBUILT[name] = (mod, [Watch(label, owner, entries_of(owner)) for label, owner in owners])


def take_prebuilt() -> dict[str, tuple[Any, list[Watch]]]:
    """The snapshots :func:`prebuild` made (module name -> (module, watches)), once: the dict is emptied."""
    out = dict(_PREBUILT)
    _PREBUILT.clear()
    return out


def _snapshot_code(w: Watch, value: Any) -> tuple[Any, ...] | None:
    """The code, defaults and keyword defaults the snapshot ``w`` holds for its entry ``value`` (a function
    or a wrapper of one), or None."""
    for fns, parts, owners in ((w.plain, w.plain_parts, w.plain), (w.inner_fns, w.inner_parts, None)):
        for i, fn in enumerate(fns):
            if (owners is not None and fn is value) or (owners is None and fn is _inner_of(w, value)):
                return _tuple(p[i] for p in parts)
    return None


def _inner_of(w: Watch, value: Any) -> Any:
    for wrapper, inner in _zip(w.wrapped, w.inner):
        if wrapper is value:
            return inner
    return _MISSING


def function_parts(fn: Any) -> tuple[Any, ...]:
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


_COUNT = type(itertools.count())
_SCALARS = (int, float, bool, type(None))


def cell_value(x: Any, _type: Any = type, _len: Any = len, _tuple: Any = tuple, _all: Any = all,
               _bytes: Any = bytes, _repr: Any = repr) -> Any:
    """What a value that can count calls is compared by (a module global, a closure cell, a default
    argument): a number itself; a short list of numbers, None or booleans (``seen.append(None)``,
    ``count[0] += 1``) as a tuple; a ``bytearray``'s bytes; a set's size when it holds only such scalars; an
    ``itertools.count``'s position. Else MISSING (other data is not compared: caches are legitimate)."""
    kind = _type(x)
    if kind is int or kind is float:
        return x
    if kind is list and _len(x) <= 1000 and _all(_type(i) in _SCALARS for i in x):
        return ("list", _tuple(x))
    if kind is bytearray and _len(x) <= 100_000:
        return ("bytes", _bytes(x))
    if kind is set and _len(x) <= 10_000 and _all(_type(i) in _SCALARS for i in x):
        return ("set", _len(x))
    if kind is _COUNT:
        return ("count", _repr(x))
    return MISSING


_cell_value = cell_value


def closure_state(space: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(function.cell label, cell, value)`` of the closure cells and default arguments of the functions in
    ``space`` (a module's namespace) that can count calls (:func:`cell_value`): state a function keeps across
    calls without a module global (``f = _make()`` counting its calls in a closure list, ``_c=[0]``)."""
    out = []
    for key, fn in _list(space.items()):
        seen = 0
        while _type(fn) is _FunctionType and seen < 4:  # through wrappers (``__wrapped__``: the shield's too)
            seen += 1
            for name, cell in _zip(fn.__code__.co_freevars, fn.__closure__ or ()):
                try:
                    value = _cell_value(cell.cell_contents)
                except ValueError:  # an empty cell
                    continue
                if value is not MISSING:
                    out.append((f"{key}.<closure {name}>", cell, value))
            for i, default in enumerate(fn.__defaults__ or ()):  # ``def f(n, _calls=[0])``
                value = _cell_value(default)
                if value is not MISSING:
                    out.append((f"{key}.<default {i}>", _Held(default), value))
            fn = fn.__dict__.get("__wrapped__")
    return out


class _Held:
    """A default argument's object, read like a closure cell (``cell_contents``)."""

    __slots__ = ("cell_contents",)

    def __init__(self, value: Any) -> None:
        self.cell_contents = value


def closure_changes(state: list[tuple[str, Any, Any]]) -> list[str]:
    """The cells of :func:`closure_state` whose value changed (``label: a -> b``)."""
    out = []
    for label, cell, old in state:
        try:
            cur = _cell_value(cell.cell_contents)
        except ValueError:
            cur = MISSING
        if cur is not old and cur != old:
            out.append(f"{label}: {repr(old)[:40]} -> {repr(cur)[:40]}")
    return out
