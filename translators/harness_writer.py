"""Shared pieces of the icontract harness generator: the line writer, name bookkeeping, the context of a
spec (helpers, assumptions) and the emitters for precondition/postcondition condition functions.

Used by :mod:`evalgap.translators.to_icontract` (functions, scenarios, examples) and
:mod:`evalgap.translators.icontract_state` (methods, class invariants, stubs).
"""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass, field

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.stdlib import STDLIB_MODULES
from evalgap.specs_lang.lower import applicable_assumptions, domain_conditions, free_names, narrowing_text
from evalgap.translators.pyexpr import collect_old, to_python

__all__ = ["Writer", "Domain", "desc", "type_names", "safe", "domain_for", "emit_condition", "snapshots", "normal_call",
           "is_boolean", "truth_text",
           "exceptional_body", "TYPING_NAMES", "typing_import_line"]

#: The typing names a spec's or a target's annotations may use; the harness header imports every one of them
#: (one list: a name treated as a typing name but not imported made every requirement ``unknown (NameError)``).
TYPING_NAMES = frozenset({"Any", "Optional", "Union", "List", "Dict", "Set", "Tuple", "FrozenSet", "Sequence",
                          "Mapping", "Iterable", "Collection", "Callable", "Iterator", "Type", "Literal",
                          "MutableMapping", "MutableSequence", "MutableSet", "AbstractSet", "Hashable", "Deque",
                          "DefaultDict", "Counter", "OrderedDict", "NamedTuple", "TypeVar", "Generic"})
_TYPING_NAMES = TYPING_NAMES


def typing_import_line() -> str:
    """The harness header's ``from typing import ...`` line: every name of :data:`TYPING_NAMES`."""
    return f"from typing import {', '.join(sorted(TYPING_NAMES))}"


_BUILTINS = set(dir(builtins)) | {"math", "copy", "OLD"} | set(STDLIB_MODULES)
#: Names the harness itself defines before it binds the target's names (binding one would clobber it), and
#: the bound variables of lowered narrowings (``_eg_e0``, ``_eg_c1``, ``_eg_k0``; see specs_lang/lower.py).
#: Other ``_eg_`` names a spec reads (a differential spec's ``_eg_pre``/``_eg_same`` from its support module,
#: :mod:`evalgap.research.diffspec`) are the target's and are bound like any other.
_HARNESS_NAMES = {"_eg_target", "_EG_TARGET", "_EgMissing", "EvalgapMissingName", "_EgStub", "_eg_patch"}
_LOWERED_VAR = re.compile(r"_eg_[a-z]\d+")


class Writer:
    """Accumulates harness lines and the names the spec reads from the target module."""

    def __init__(self, local_names: set[str] | None = None, declared: set[str] | None = None) -> None:
        self.lines: list[str] = []
        self.target_names: set[str] = set()
        #: typing names the spec reads: bound to the target's own definition when it has one, else typing's
        self.typing_used: set[str] = set()
        self.local_names: set[str] = set(local_names or ())
        #: the spec's declared functions and classes: the target's even when a builtin has the name (a target
        #: ``def sum(a, b)`` shadows the builtin in its module, and so in the harness)
        self.declared: set[str] = set(declared or ())

    def emit(self, line: str = "", indent: int = 0) -> None:
        """Append ``line`` indented by ``indent`` levels of four spaces."""
        self.lines.append("    " * indent + line if line else "")

    def need(self, names: set[str]) -> None:
        """Record ``names`` as names of the target (unless builtin, typing, keyword, a spec helper or a name the
        harness defines itself, see :data:`_HARNESS_NAMES`; a name the spec declares as a function or class is
        always the target's)."""
        for n in names:
            if n in self.declared and n not in self.local_names:
                self.target_names.add(n)
            elif n in TYPING_NAMES and n not in self.local_names:
                self.typing_used.add(n)
            elif (n not in _BUILTINS and n not in _TYPING_NAMES and not keyword.iskeyword(n)
                    and n not in self.local_names and n not in _HARNESS_NAMES and not _LOWERED_VAR.fullmatch(n)):
                self.target_names.add(n)


def desc(req_id: str, prose: str, prefix: str = "") -> str:
    """The icontract description (a Python string literal) holding the requirement ID and prose."""
    return repr(f"{prefix}{req_id}: {prose}")


def safe(text: str) -> str:
    """``text`` with every non-identifier character replaced by ``_``."""
    return re.sub(r"\W", "_", text)


def type_names(t: A.TypeRef) -> set[str]:
    """The first component of every type name in ``t`` (for binding target classes in the harness)."""
    out = {t.name.split(".")[0]} if t.name != "[]" else set()  # `[]`: the parameter list of a Callable
    for a in t.args:
        out |= type_names(a)
    return out


@dataclass
class Domain:
    """Preconditions that narrow a check function's domain.

    Attributes:
        conditions: ``(source id, prose, condition expr)``: narrowings (id ``narrowing``), assumptions
            (their ``assume`` ID) and precondition requirements (their requirement ID).
        assumption_texts: what the report lists as assumptions of the verdict (assumption IDs, narrowed
            parameter texts, precondition requirement IDs).
    """

    conditions: list[tuple[str, str, A.Expr]] = field(default_factory=list)
    assumption_texts: list[str] = field(default_factory=list)


def domain_for(spec: A.Spec, params: tuple[A.Param, ...]) -> Domain:
    """Narrowings of ``params`` and the applicable ``assume`` declarations, as preconditions."""
    d = Domain()
    for p in params:
        text = narrowing_text(p)
        for cond in domain_conditions(p):
            d.conditions.append(("narrowing", f"parameter {text}", cond))
        if text:
            d.assumption_texts.append(text)
    for a in applicable_assumptions(spec, [p.name for p in params]):
        d.conditions.append((a.id, a.prose, a.expr))
        d.assumption_texts.append(a.id)
    return d


#: Calls that always return a real ``bool`` (or CrossHair's symbolic one) when they name the builtin.
_BOOL_CALLS = frozenset({"isinstance", "issubclass", "callable", "hasattr", "all", "any", "bool"})


def is_boolean(expr: A.Expr, w: Writer | None = None) -> bool:
    """Whether ``expr`` always evaluates to a ``bool`` (so a clause may return it as it is).

    Comparisons, ``not``, ``all``/``any`` (``forall``/``exists``), ``<==>`` and ``and``/``or``/``==>``/``if``
    of such expressions are; a bare name, an arithmetic value or a call of anything but a builtin predicate
    (not shadowed by the spec or the target, ``w``; without ``w`` no call counts) is not. A comparison counts as boolean: every builtin type's
    comparison returns a ``bool``.

    Args:
        expr: a spec expression.
        w: the harness writer, whose spec-declared and helper names shadow the builtin predicates.

    Returns:
        True when the value is known to be a ``bool``.
    """
    if isinstance(expr, (A.Compare, A.Not, A.Quantifier, A.Iff)):
        return True
    if isinstance(expr, A.Const):
        return isinstance(expr.value, bool)
    if isinstance(expr, A.BoolOp):
        return all(is_boolean(v, w) for v in expr.values)
    if isinstance(expr, A.Implies):  # ``(not (a) or (b))``: True or b's value
        return is_boolean(expr.right, w)
    if isinstance(expr, A.IfExp):
        return is_boolean(expr.body, w) and is_boolean(expr.orelse, w)
    if isinstance(expr, A.Call) and isinstance(expr.func, A.Name) and expr.func.id in _BOOL_CALLS:
        return w is not None and expr.func.id not in w.declared and expr.func.id not in w.local_names
    return False


def truth_text(expr: A.Expr, w: Writer | None = None, old: dict[A.Old, str] | None = None) -> str:
    """Python text of ``expr``'s truth value: the expression itself when :func:`is_boolean`, else ``bool(...)``.

    A bare comparison costs CrossHair no extra branch: it decides a returned precondition with
    ``prefer_true`` (no path where the precondition fails) and a postcondition with one ``bool()`` of its own,
    while a ``bool()`` inside the condition forces an ordinary two-way branch first. A value that is not known
    to be a ``bool`` (a list, a str: CrossHair's ``prefer_true`` calls ``__bool__``, which they lack) keeps
    ``bool()``, so every clause is judged by Python's truth value as before.
    """
    text = to_python(expr, old)
    return text if is_boolean(expr, w) else f"bool({text})"


def emit_condition(w: Writer, name: str, expr: A.Expr, params: tuple[str, ...], allow_result: bool,
                   old: dict[A.Old, str] | None = None, guard: A.Expr | None = None) -> None:
    """Emit ``def name(<the params expr reads>[, result][, OLD]) -> bool: return <expr>`` (see
    :func:`truth_text`).

    Args:
        w: the writer.
        name: the condition function's name.
        expr: the clause.
        params: the check function's parameter names (the condition takes those ``expr`` reads).
        allow_result: whether ``result`` is a parameter (postconditions).
        old: the ``old()`` mapping of :func:`snapshots`.
        guard: for the second and later ``ensures`` of a requirement, the conjunction of the earlier ones:
            where ``expr`` raises and ``guard`` is false, the condition holds (the earlier clause's own
            condition reports the violation). Evaluated only when ``expr`` raises, so it adds no branch to
            the paths where ``expr`` has a value (``not guard or expr`` would split every path on ``guard``).
    """
    names = free_names(expr) | (free_names(guard) if guard is not None else set())
    args = [p for p in params if p in names]
    if allow_result and "result" in names:
        args.append("result")
    olds = collect_old(expr) + (collect_old(guard) if guard is not None else [])
    if old and any(old.get(o, "").startswith("OLD.") for o in olds):
        args.append("OLD")
    w.need(names - set(params) - {"result"})
    w.emit(f"def {name}({', '.join(args)}) -> bool:")
    if guard is None:
        w.emit(f"return {truth_text(expr, w, old)}", 1)
    else:
        w.emit("try:", 1)
        w.emit(f"return {truth_text(expr, w, old)}", 2)
        w.emit("except Exception:", 1)
        w.emit(f"if not {to_python(guard, old)}:", 2)
        w.emit("return True", 3)
        w.emit("raise", 2)
    w.emit()


def snapshots(w: Writer, fn: str, exprs: list[A.Expr], params: tuple[str, ...]) -> tuple[dict[A.Old, str],
                                                                                        list[str]]:
    """Emit one capture function per distinct ``old(EXPR)`` in ``exprs`` and return the ``old`` mapping for
    :func:`to_python` with the ``@icontract.snapshot`` decorator lines.

    A captured value is deep-copied, so later mutation of an argument does not change it. An ``old()``
    over no parameter is a constant and is inlined.
    """
    mapping: dict[A.Old, str] = {}
    decorators: list[str] = []
    for k, o in enumerate(collect_old(tuple(exprs))):
        names = free_names(o.expr)
        args = [p for p in params if p in names]
        w.need(names - set(params))
        if not args:
            mapping[o] = f"({to_python(o.expr)})"
            continue
        cname = f"_eg_snap_{fn}_{k}"
        w.emit(f"def {cname}({', '.join(args)}) -> Any:")
        w.emit(f"return copy.deepcopy({to_python(o.expr)})", 1)
        w.emit()
        mapping[o] = f"OLD.eg_old_{k}"
        decorators.append(f"@icontract.snapshot({cname}, name='eg_old_{k}')")
    return mapping, decorators


def exceptional_body(call: str, raises: list[A.Raises], ensures: list[str], *, others: tuple[str, ...] = (),
                     before_call: tuple[str, ...] = (), call_normally: bool = True,
                     may_raise: tuple[str, ...] = ()) -> list[str]:
    """Python lines checking a requirement with ``raises EXC when EXPR`` clauses (and maybe ``ensures``).

    The meaning (docs/language.md, "exceptional behaviour"; as JML's ``signals``/``ensures`` and Eiffel-style
    exceptional postconditions): every ``when`` is evaluated on the pre-state. If some ``when`` holds, the
    call must raise the exception of one of the clauses whose ``when`` holds (or a subclass), and the
    ``ensures`` are not checked; if none holds, the call must return normally (an escaping exception
    propagates, which the engines report as a refutation) and every ``ensures`` must hold.

    Args:
        call: the Python call expression (``f(a, b)``, ``self.m(x)``).
        raises: the ``raises`` clauses; failing index ``i`` (1-based) means clause ``i`` is violated.
        ensures: Python text of each ``ensures`` (may read ``result`` and the ``before_call`` names);
            failing index ``len(raises) + j`` means ensures ``j`` is false.
        others: Python text of ``when`` conditions of *other* requirements: where one holds and no own
            ``when`` does, the normal-return part is not checked (that input is specified elsewhere).
        before_call: lines run just before the normal-return call (``old()`` snapshots).
        call_normally: also run the call when no ``when`` holds (always when ``ensures`` is non-empty).
        may_raise: Python names of the classes a ``may raise`` clause allows: where no ``when`` holds, the call
            may raise one of them (an instance of ``Exception`` only: a class deriving from ``BaseException``
            alone always propagates) and the ``ensures`` are then not checked. Only the call is guarded: the
            ``ensures`` are read in the ``try``'s ``else`` block, so an exception a clause raises propagates.
            With no ``raises`` the lines are just the guarded call and the ``ensures``.

    Returns:
        Lines of a function body (no indentation) ending in ``return 0``; every failing ``return`` is a
        constant, so :mod:`evalgap.verifier.report.emit_tests` can turn the body into assertions.
    """
    if not raises:
        return [*before_call, *normal_call(call, ensures, 1, may_raise), "return 0"]
    n = len(raises)
    # each `when` is captured before the call as a bool (a comparison as it is: its truth value cannot change
    # with the call, and CrossHair then decides only the ones `any` and the `except` test actually read)
    body = [f"_eg_when = [{', '.join(truth_text(r.when) for r in raises)}]"]
    fail = [ln for i in range(1, n) for ln in (f"if _eg_when[{i - 1}]:", f"    return {i}")] + [f"return {n}"]
    accepted = " or ".join(f"(_eg_when[{i}] and isinstance(_eg_exc, {r.exception}))" for i, r in enumerate(raises))
    # Exception plus the named classes: CrossHair's path-control exceptions derive from BaseException only
    caught = ", ".join(dict.fromkeys(["Exception", *(r.exception for r in raises)]))
    body += ["if any(_eg_when):", "    try:", f"        {call}", f"    except ({caught}) as _eg_exc:",
             f"        if not ({accepted}):"]
    body += [f"            {ln}" for ln in fail]
    body += ["    else:"] + [f"        {ln}" for ln in fail]
    if ensures or call_normally:
        # the other requirements' `when`s are read here, still before the call, and lazily (`or`), so a path
        # decides only as many of them as it needs
        body.append(f"elif not ({' or '.join(f'({o})' for o in others)}):" if others else "else:")
        body += [f"    {ln}" for ln in before_call]
        body += [f"    {ln}" for ln in normal_call(call, ensures, n + 1, may_raise)]
    body.append("return 0")
    return body


def normal_call(call: str, ensures: list[str], first: int, may_raise: tuple[str, ...] = ()) -> list[str]:
    """Lines calling ``call`` into ``result`` and returning ``first + j`` when ensures ``j`` is false.

    With ``may_raise`` (Python names of exception classes), only the call is in the ``try``: an allowed exception
    (an instance of one of them that is also an ``Exception``; anything deriving from ``BaseException`` alone is
    re-raised) ends the check as passing, and the ``ensures`` are read in the ``else`` block, where an
    exception they raise is not caught."""
    checks = [ln for j, e in enumerate(ensures, first) for ln in (f"if not ({e}):", f"    return {j}")]
    if not may_raise:
        return [f"result = {call}", *checks]
    return ["try:", f"    result = {call}", f"except ({', '.join(may_raise)},) as _eg_exc:",
            "    if not isinstance(_eg_exc, Exception):", "        raise", "else:",
            *(f"    {ln}" for ln in checks or ["pass"])]
