"""A lint warning (EG230): an ``ensures`` requirement forbids every exception on every input it covers, so a
target function that raises an exception on some input is refuted there unless a ``raises EXC when ...``
clause says when (docs/language.md, "exceptional behaviour"). The exceptions a target function raises arrive
as data (from a static scan of its source by the caller, :mod:`evalgap.verifier.project.raises_scan`)."""

from __future__ import annotations

from typing import Mapping

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.diagnostics import ENSURES_FORBIDS_RAISE
from evalgap.specs_lang.errors import Diagnostic

__all__ = ["exception_warnings"]


def _decls(spec: A.Spec) -> list[tuple[str, A.FunctionDecl | A.MethodDecl]]:
    out: list[tuple[str, A.FunctionDecl | A.MethodDecl]] = [(f.name, f) for f in spec.functions]
    out += [(f"{c.name}.{m.name}", m) for c in spec.classes for m in c.methods]
    return out


def exception_warnings(spec: A.Spec, raising: Mapping[str, Mapping[str, int]]) -> list[Diagnostic]:
    """EG230 for each ``ensures`` requirement of a function (or method) that the target's code raises an
    exception from, where no ``raises`` clause of that function and no ``may raise`` of that requirement names the
    exception (or a base of it by name).

    Args:
        spec: the parsed spec.
        raising: ``"f"`` or ``"Class.method"`` -> exception class name -> line of the target's ``raise``.

    Returns:
        The warnings, one per requirement and exception, at the requirement's first ``ensures``.
    """
    out: list[Diagnostic] = []
    for name, decl in _decls(spec):
        raised = raising.get(name)
        if not raised:
            continue
        said = {c.exception.split(".")[-1] for r in decl.requirements for c in r.clauses if isinstance(c, A.Raises)}
        if said & {"Exception", "BaseException"}:
            continue
        for req in decl.requirements:
            ens = next((c for c in req.clauses if isinstance(c, A.Ensures)), None)
            if ens is None or req.informal is not None:
                continue
            allowed = {e.split(".")[-1] for c in req.clauses if isinstance(c, A.MayRaise) for e in c.exceptions}
            if allowed & {"Exception", "BaseException"}:
                continue
            for exc, line in sorted(raised.items()):
                if exc in said or exc in allowed:
                    continue
                out.append(Diagnostic(
                    ENSURES_FORBIDS_RAISE, ens.span,
                    f"`ensures` of {req.id} allows no exception, but `{name}` raises {exc} (line {line} of the "
                    "target): every input on which it raises refutes the requirement",
                    f"say when it may: `raises {exc} when CONDITION` in {req.id} or another requirement of "
                    f"`{name}` (the `ensures` is then checked where no `when` holds), or allow it with "
                    f"`may raise {exc}` in {req.id}"))
    return out
