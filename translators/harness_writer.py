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

__all__ = ["Writer", "Domain", "desc", "type_names", "safe", "domain_for", "emit_condition", "snapshots",
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


def emit_condition(w: Writer, name: str, expr: A.Expr, params: tuple[str, ...], allow_result: bool,
                   old: dict[A.Old, str] | None = None) -> None:
    """Emit ``def name(<the params expr reads>[, result][, OLD]) -> bool: return bool(<expr>)``."""
    names = free_names(expr)
    args = [p for p in params if p in names]
    if allow_result and "result" in names:
        args.append("result")
    if old and any(old.get(o, "").startswith("OLD.") for o in collect_old(expr)):
        args.append("OLD")
    w.need(names - set(params) - {"result"})
    w.emit(f"def {name}({', '.join(args)}) -> bool:")
    w.emit(f"return bool({to_python(expr, old)})", 1)
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
                     before_call: tuple[str, ...] = (), call_normally: bool = True) -> list[str]:
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

    Returns:
        Lines of a function body (no indentation) ending in ``return 0``; every failing ``return`` is a
        constant, so :mod:`evalgap.verifier.report.emit_tests` can turn the body into assertions.
    """
    n = len(raises)
    body = [f"_eg_when = [{', '.join(f'bool({to_python(r.when)})' for r in raises)}]"]
    if others:
        body.append(f"_eg_other = [{', '.join(f'bool({o})' for o in others)}]")
    fail = [ln for i in range(1, n) for ln in (f"if _eg_when[{i - 1}]:", f"    return {i}")] + [f"return {n}"]
    accepted = " or ".join(f"(_eg_when[{i}] and isinstance(_eg_exc, {r.exception}))" for i, r in enumerate(raises))
    # Exception plus the named classes: CrossHair's path-control exceptions derive from BaseException only
    caught = ", ".join(dict.fromkeys(["Exception", *(r.exception for r in raises)]))
    body += ["if any(_eg_when):", "    try:", f"        {call}", f"    except ({caught}) as _eg_exc:",
             f"        if not ({accepted}):"]
    body += [f"            {ln}" for ln in fail]
    body += ["    else:"] + [f"        {ln}" for ln in fail]
    if ensures or call_normally:
        body.append("elif not any(_eg_other):" if others else "else:")
        body += [f"    {ln}" for ln in before_call]
        body.append(f"    result = {call}")
        for j, e in enumerate(ensures, n + 1):
            body += [f"    if not ({e}):", f"        return {j}"]
    body.append("return 0")
    return body
