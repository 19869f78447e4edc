"""Argument-count and keyword checks of a call against a target's real signature (EG212's call form), for
:mod:`evalgap.specs_lang.typecheck`."""

from __future__ import annotations

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.signatures import FunctionSig

__all__ = ["arity_problems"]


def arity_problems(e: A.Call, sig: FunctionSig, what: str) -> list[tuple[A.Span, str, str | None]]:
    """The problems of calling ``sig`` as ``e``: ``(span, message, unknown keyword or None)`` for each keyword the
    function does not accept, then too many positional arguments or the missing required ones.

    Args:
        e: the call in the spec.
        sig: the target function's signature.
        what: how the message names the function (``"function"``, ``"method"``).
    """
    out: list[tuple[A.Span, str, str | None]] = []
    lo, hi = sig.arity()
    n = len(e.args)
    named = {k.name for k in e.keywords}
    filled = {p.name for p in sig.positional()[:n]}
    missing = [p.name for p in sig.positional() if not p.has_default and p.name not in filled | named]
    for k in e.keywords:
        if not sig.accepts_keyword(k.name):
            out.append((k.span, f"{what} {sig.describe()} has no parameter `{k.name}`", k.name))
    if hi is not None and n > hi:
        out.append((e.span, f"{what} {sig.describe()} takes at most {hi} positional argument"
                    f"{'s' if hi != 1 else ''}, {n} given", None))
    elif n < lo and missing:
        out.append((e.span, f"{what} {sig.describe()} is missing argument"
                    f"{'s' if len(missing) > 1 else ''} {', '.join(f'`{m}`' for m in missing)}", None))
    return out
