"""Turning ``SystemExit``, ``KeyboardInterrupt`` and ``GeneratorExit`` raised by the code under check into an
ordinary exception inside the CrossHair worker (issue 19).

CrossHair treats an ``Exception`` the function body raises as a counterexample, but lets a
``BaseException`` end the whole analysis, so ``sys.exit(0)`` in the target read as "engine error: SystemExit".
:func:`shield_module` wraps the target module's functions and its classes' methods, before the harness binds
them, so such an exit surfaces to CrossHair as :class:`TargetExit` (an ``Exception``) with the input that
caused it; the counterexample is then replayed unshielded (:mod:`.replay_worker`), where the real
``SystemExit`` comes out of the target's frame and the requirement is ``refuted`` with the call.

Only the CrossHair worker uses this; a wrapped function calls the original, so the paths CrossHair explores
are the target's own.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable

__all__ = ["TargetExit", "shield_module", "EXITS"]

#: The exceptions a target may raise that CrossHair does not treat as the function's own exception.
EXITS = (SystemExit, KeyboardInterrupt, GeneratorExit)


class TargetExit(Exception):
    """The code under check raised ``SystemExit``/``KeyboardInterrupt``/``GeneratorExit`` (its type and
    message are this exception's message)."""


def _wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def shielded(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except EXITS as exc:
            raise TargetExit(f"the code under check raised {type(exc).__name__}: {exc}") from None
    shielded.__evalgap_shielded__ = True  # type: ignore[attr-defined]
    return shielded


def shield_module(module: types.ModuleType) -> int:
    """Wrap, in place, the functions ``module`` defines and the plain methods of the classes it defines.

    Args:
        module: the imported target module.

    Returns:
        How many callables were wrapped.
    """
    count = 0
    name = module.__name__
    for attr, obj in list(vars(module).items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ == name:
            setattr(module, attr, _wrap(obj))
            count += 1
        elif isinstance(obj, type) and obj.__module__ == name:
            for meth, fn in list(vars(obj).items()):
                if isinstance(fn, types.FunctionType) and not getattr(fn, "__evalgap_shielded__", False):
                    try:
                        setattr(obj, meth, _wrap(fn))
                        count += 1
                    except (AttributeError, TypeError):  # a class that refuses new attributes keeps its own
                        continue
    return count
