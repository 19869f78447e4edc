"""The harness function of a requirement with ``raises EXC when COND`` clauses or a ``may raise EXC, ...``
clause (and maybe ``ensures``): one of the requirement kinds of :mod:`evalgap.translators.to_icontract`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import free_names, inline_lets
from evalgap.translators.callables import annotation
from evalgap.translators.harness_writer import Domain, Writer, desc, exceptional_body
from evalgap.translators.pyexpr import collect_old, to_python

if TYPE_CHECKING:
    from evalgap.translators.to_icontract import Obligation

__all__ = ["raises_obligation", "may_raise_names", "may_raise_note"]


def may_raise_names(w: Writer, clauses: tuple[A.Clause, ...]) -> tuple[str, ...]:
    """The exception classes the ``may raise`` clauses among ``clauses`` allow (dotted names, in order, each
    once); their first names are bound in the harness through ``w``."""
    names = tuple(dict.fromkeys(e for c in clauses if isinstance(c, A.MayRaise) for e in c.exceptions))
    w.need({e.split(".")[0] for e in names})
    return names


def may_raise_note(names: tuple[str, ...]) -> list[str]:
    """What a ``may raise`` adds to a verdict's assumptions (``may raise OverflowError``), or nothing."""
    return [f"may raise {', '.join(names)}"] if names else []


def raises_obligation(w: Writer, req: A.Requirement, decl: A.FunctionDecl, fn: str, raises: list[A.Raises],
            ensures: list[A.Ensures], decorators: list[str], dom: Domain,
            may_raise: tuple[str, ...] = ()) -> Obligation:
    """A requirement with ``raises`` clauses or ``may raise`` (and maybe ``ensures``): see
    :func:`evalgap.translators.harness_writer.exceptional_body` for the meaning. Where no own ``when``
    holds but another requirement's ``raises ... when`` does, the normal-return part is not checked (with no
    ``raises`` of its own, those inputs are already outside the domain, ``dom``).

    Returns:
        A ``scenario`` :class:`~evalgap.translators.to_icontract.Obligation` (the function written into ``w``
        returns the index of the violated clause, 0 when as specified).
    """
    from evalgap.translators.to_icontract import Obligation

    names = tuple(p.name for p in decl.params)
    params = tuple((p.name, annotation(w, p.type)) for p in decl.params)
    checks, spans = [], []
    for r in raises:
        w.need(free_names(r.when) - set(names) | {r.exception.split(".")[0]})
        checks.append(f"raises {r.exception} when {to_python(r.when)}")
        spans.append(r.span)
    others: list[str] = []
    assumptions = list(dom.assumption_texts)
    if ensures and raises:
        for other in decl.requirements:
            if other is req:
                continue
            for cl in inline_lets(other.clauses):
                if isinstance(cl, A.Raises):
                    w.need(free_names(cl.when) - set(names))
                    others.append(to_python(cl.when))
                    if other.id not in assumptions:
                        assumptions.append(other.id)
    olds = collect_old(tuple(c.expr for c in ensures))
    old_map = {o: f"_eg_old_{k}" for k, o in enumerate(olds)}
    before = []
    for k, o in enumerate(olds):
        w.need(free_names(o.expr) - set(names))
        before.append(f"_eg_old_{k} = copy.deepcopy({to_python(o.expr)})")
    ens_py = []
    for cl in ensures:
        w.need(free_names(cl.expr) - set(names) - {"result"})
        ens_py.append(to_python(cl.expr, old_map or None))
        checks.append(ens_py[-1])
        spans.append(cl.expr.span)
    w.emit(f"def _eg_post_{fn}(result: int) -> bool:")
    w.emit("return result == 0", 1)
    w.emit()
    w.emit()
    for d in decorators:
        w.emit(d)
    w.emit(f"@icontract.ensure(_eg_post_{fn}, {desc(req.id, req.prose)})")
    w.emit(f"def {fn}({', '.join(f'{n}: {t}' for n, t in params)}) -> int:")
    what = "exceptional and normal behaviour" if ensures and raises else "exceptional behaviour" if raises else \
        f"normal behaviour (may raise {', '.join(may_raise)})"
    w.emit(f'"""Requirement {req.id}: {what} of {decl.name} (0: as specified)."""', 1)
    call = f"{decl.name}({', '.join(names)})"
    for line in exceptional_body(call, raises, ens_py, others=tuple(others), before_call=tuple(before),
                                 call_normally=bool(ensures), may_raise=may_raise):
        w.emit(line, 1)
    return Obligation(req.id, "scenario", fn, params, decl.name, tuple(checks),
                      tuple(assumptions + may_raise_note(may_raise)),
                      check_spans=tuple(spans))
