"""The one private Hypothesis switch ``evalgap compare`` relies on, checked at run time.

Hypothesis >= 6.131 draws, with probability 0.05 per choice, integers, floats and strings found as literals in
"local" modules (the code under test). Its ``hypothesis`` evaluator measures random testing *without* that
help, so it replaces the private ``hypothesis.internal.conjecture.providers._get_local_constants`` by a
function returning an empty ``Constants`` set (there is no public switch); ``hypothesis-const`` keeps
Hypothesis's default. The project pins ``hypothesis>=6.100,<7`` (pyproject.toml) instead of one exact
release, so whether the switch exists is asked here, at run time: :func:`switch_problem` says why the
evaluator cannot run (the compare command refuses it, exit 2; a worker reports ``error``) instead of letting
a renamed private function silently leave the mining on.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SWITCH", "MINING_SINCE", "switch_problem", "disable_constant_mining"]

#: The private function replaced.
SWITCH = "hypothesis.internal.conjecture.providers._get_local_constants"
#: The first Hypothesis release that mines local constants (before it, there is nothing to turn off).
MINING_SINCE = (6, 131, 0)


def _providers() -> Any:
    from hypothesis.internal.conjecture import providers

    return providers


def switch_problem() -> str | None:
    """None when constant mining can be turned off (the switch exists, or this Hypothesis predates mining);
    otherwise one sentence naming the missing private names, the installed version and what to do."""
    import hypothesis

    version = tuple(hypothesis.version.__version_info__)
    try:
        providers = _providers()
    except ImportError as exc:
        if version < MINING_SINCE:
            return None
        return f"Hypothesis {hypothesis.__version__} has no hypothesis.internal.conjecture.providers ({exc})"
    missing = [n for n in ("_get_local_constants", "Constants") if not hasattr(providers, n)]
    if not missing or version < MINING_SINCE:
        return None
    return (f"the `hypothesis` evaluator turns off Hypothesis's constant mining through the private "
            f"{SWITCH}, but Hypothesis {hypothesis.__version__} has no "
            f"{' or '.join('providers.' + n for n in missing)}: use the `hypothesis-const` evaluator (mining on), "
            f"or install a Hypothesis release where the switch exists (6.131 to 6.x, pyproject.toml's range)")


def disable_constant_mining() -> None:
    """Replace :data:`SWITCH` by a function returning no constants (in this process: a worker's).

    Raises:
        RuntimeError: :func:`switch_problem`'s message, when the switch is missing.
    """
    problem = switch_problem()
    if problem is not None:
        raise RuntimeError(problem)
    try:
        providers = _providers()
    except ImportError:  # a Hypothesis before constant mining: nothing to turn off
        return
    if not hasattr(providers, "_get_local_constants"):
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
