"""``Callable[[A, ...], R]`` parameters: the simple pure functions the engines pass for them.

Hypothesis draws one of: a **constant** function (any value of ``R``), a **projection** ``lambda *a: a[i]``
for each parameter whose type is ``R`` (the identity for ``Callable[[int], int]``), and a **lookup table**
(a small dict from values of the first parameter to values of ``R``, with a default; only when the first
parameter is a hashable scalar). Each is an :class:`_EgFn` of the harness, whose ``repr`` rebuilds it
(``_EgFn('table', 0, {1: 2})``), so a counterexample replays concretely and reads in the report. Only
functions of the declared type are drawn: a projection onto a parameter of another type would make the target
fail for a reason the spec excludes.

For CrossHair the check function's parameter is annotated with a subclass of ``_EgFn`` whose constructor takes
a symbolic lookup table and default (``table: dict[int, int], default: int``; a constant ``default: R`` when the
first parameter is not a hashable scalar): pure by construction. CrossHair's own stand-in for a bare
``Callable`` annotation returns a different value at each call, which would refute correct code whose spec
calls the function again (:func:`annotation`).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Callable

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct

if TYPE_CHECKING:
    from evalgap.translators.harness_writer import Writer

__all__ = ["CALLABLE_RUNTIME", "callable_strategy", "annotation"]

#: Support code every harness holds (the drawn functions).
CALLABLE_RUNTIME: list[str] = [
    "",
    "",
    "class _EgFn:",
    '    """A simple pure function for a Callable parameter: a constant, a projection or a lookup table."""',
    "",
    "    def __init__(self, kind: str, value: Any, table: Any = None) -> None:",
    "        self.kind, self.value, self.table = kind, value, table",
    "",
    "    def __call__(self, *args: Any, **kwargs: Any) -> Any:",
    "        if self.kind == 'proj':",
    "            return args[self.value]",
    "        if self.kind == 'table' and args:",
    "            return self.table.get(args[0], self.value)",
    "        return self.value",
    "",
    "    def __repr__(self) -> str:",
    "        extra = '' if self.table is None else f', {self.table!r}'",
    "        return f'_EgFn({self.kind!r}, {self.value!r}{extra})'",
]

_HASHABLE = {"int", "str", "bool", "bytes", "float"}


def callable_strategy(t: A.TypeRef, inner: Callable[[A.TypeRef], str]) -> str:
    """Strategy source for ``Callable[[A, ...], R]`` (``inner`` builds the strategy of a type); a bare
    ``Callable`` or one without a result type draws constant functions returning None."""
    if len(t.args) != 2 or t.args[0].name != "[]":
        return "st.just(_EgFn('const', None))"
    params, result = t.args[0].args, t.args[1]
    ret = inner(result)
    options = [f"{ret}.map(lambda c: _EgFn('const', c))"]
    options += [f"st.just(_EgFn('proj', {i}))" for i, p in enumerate(params) if str(p) == str(result)]
    if params and str(params[0]) in _HASHABLE:
        options.append(f"st.builds(lambda t, d: _EgFn('table', d, t), st.dictionaries({inner(params[0])}, {ret}, "
                       f"max_size=4), {ret})")
    return f"st.one_of({', '.join(options)})"


def _contains_callable(t: A.TypeRef) -> bool:
    return t.name.split(".")[-1] == "Callable" or any(_contains_callable(a) for a in t.args)


def annotation(w: "Writer", t: A.TypeRef) -> str:
    """The check function's annotation for a parameter of type ``t``: ``str(t)``, or for ``Callable[[A, ...],
    R]`` the name of a pure ``_EgFn`` subclass emitted here (see the module docstring).

    Raises:
        UnsupportedConstruct: a ``Callable`` inside another type (``list[Callable[...]]``).
    """
    if not _contains_callable(t):
        return str(t)
    if t.name.split(".")[-1] != "Callable":
        raise UnsupportedConstruct(f"a Callable inside {t.name}", t.span, "declare the function as its own parameter")
    name = "_EgFn_" + hashlib.sha256(str(t).encode()).hexdigest()[:10]
    params = t.args[0].args if t.args and t.args[0].name == "[]" else ()
    result = str(t.args[1]) if len(t.args) == 2 else "Any"
    w.emit(f"class {name}(_EgFn):")
    w.emit(f'"""{t} for CrossHair: a symbolic lookup table with a default (pure by construction)."""', 1)
    if params and str(params[0]) in _HASHABLE:
        w.emit(f"def __init__(self, table: dict[{params[0]}, {result}], default: {result}) -> None:", 1)
        w.emit("super().__init__('table', default, dict(table))", 2)
    else:
        w.emit(f"def __init__(self, default: {result}) -> None:", 1)
        w.emit("super().__init__('const', default)", 2)
    w.emit()
    w.emit()
    return name
