"""Spec parameter types to Hypothesis strategies (as Python source text; hypothesis is not imported here).

The strategies are built constructively from each parameter's :class:`~evalgap.specs_lang.ast.TypeRef`,
so every generated value has the declared type; preconditions that the types do not express are applied
by the Hypothesis worker with ``assume()`` (a rejected example), and its filter rate is reported.

| spec type | strategy source |
|---|---|
| ``int`` / ``bool`` / ``float`` / ``str`` / ``bytes`` / ``None`` | ``st.integers()`` / ``st.booleans()`` / ``st.floats()`` / ``st.text()`` / ``st.binary()`` / ``st.none()`` |
| ``list[T]`` / ``set[T]`` / ``frozenset[T]`` | ``st.lists(T)`` / ``st.sets(T)`` / ``st.frozensets(T)`` |
| ``dict[K, V]`` | ``st.dictionaries(K, V)`` |
| ``tuple[A, B, ...]`` | ``st.tuples(A, B, ...)`` |
| ``Optional[T]`` / ``Union[A, B]`` | ``st.one_of(st.none(), T)`` / ``st.one_of(A, B)`` |

``List``, ``Dict``, ``Set``, ``FrozenSet``, ``Tuple`` (typing's spellings) are accepted too. Any other type
(a class of the target) is :class:`~evalgap.translators.errors.UnsupportedConstruct` for now; the engine
reports Hypothesis's verdict as ``unknown`` with that reason. The source is evaluated by the worker with
``st`` bound to ``hypothesis.strategies``.
"""

from __future__ import annotations

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct

__all__ = ["strategy_source", "requirement_strategies"]

_SCALARS = {"int": "st.integers()", "bool": "st.booleans()", "float": "st.floats()", "str": "st.text()",
            "bytes": "st.binary()", "None": "st.none()", "NoneType": "st.none()"}
_ONE_ARG = {"list": "st.lists", "List": "st.lists", "Sequence": "st.lists", "set": "st.sets", "Set": "st.sets",
            "frozenset": "st.frozensets", "FrozenSet": "st.frozensets"}


def strategy_source(t: A.TypeRef) -> str:
    """Hypothesis strategy source for a spec type (see the module's table).

    Args:
        t: the parameter's type.

    Returns:
        Python source of a strategy expression, e.g. ``st.lists(st.integers())``.

    Raises:
        UnsupportedConstruct: a type with no constructive strategy yet (a class of the target, ``Any``).
    """
    name, args = t.name, t.args
    if name in _SCALARS and not args:
        return _SCALARS[name]
    if name in _ONE_ARG and len(args) == 1:
        return f"{_ONE_ARG[name]}({strategy_source(args[0])})"
    if name in ("dict", "Dict", "Mapping") and len(args) == 2:
        return f"st.dictionaries({strategy_source(args[0])}, {strategy_source(args[1])})"
    if name in ("tuple", "Tuple") and args:
        return f"st.tuples({', '.join(strategy_source(a) for a in args)})"
    if name == "Optional" and len(args) == 1:
        return f"st.one_of(st.none(), {strategy_source(args[0])})"
    if name == "Union" and args:
        return f"st.one_of({', '.join(strategy_source(a) for a in args)})"
    raise UnsupportedConstruct(f"type {t} for Hypothesis", t.span,
                               "Hypothesis strategies are built for builtin scalars and containers only")


def requirement_strategies(req: A.Requirement, owner: object) -> tuple[str, ...]:
    """One strategy source per parameter of the requirement's check function, in order.

    Args:
        req: a formal requirement.
        owner: the declaration it belongs to (a :class:`~evalgap.specs_lang.ast.FunctionDecl` for function
            requirements; scenarios carry their own parameters).

    Returns:
        The strategy sources (empty for a parameterless scenario).

    Raises:
        UnsupportedConstruct: a parameter type with no strategy.
    """
    scenarios = [c for c in req.clauses if isinstance(c, A.Scenario)]
    if scenarios:
        params = scenarios[0].params
    elif isinstance(owner, A.FunctionDecl):
        params = owner.params
    else:
        params = ()
    return tuple(strategy_source(p.type) for p in params)
