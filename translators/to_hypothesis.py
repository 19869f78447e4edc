"""Spec types to Hypothesis strategy source, and a pytest module of Hypothesis properties (``evalgap export
--to pytest``).

Narrowings are *constructive*: ``n: int in 0..1000`` becomes ``st.integers(min_value=0, max_value=1000)``,
``xs: list[int] len 1..50`` becomes ``st.lists(st.integers(), min_size=1, max_size=50)``, ``s: str digits``
becomes ``st.text(alphabet='0123456789')``; nothing is filtered away that the spec allows. Types the
strategies do not know (classes of the target) raise :class:`UnsupportedConstruct` for the engine (its
verdict is then ``unknown`` with that reason) and use ``st.from_type`` in exported pytest modules. This module emits source text only;
Hypothesis is imported by the generated module.
"""

from __future__ import annotations

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_icontract import Harness

__all__ = ["strategy_source", "requirement_strategies", "obligation_strategies", "pytest_module"]

_SIMPLE = {"int": "st.integers({})", "bool": "st.booleans()", "None": "st.none()", "bytes": "st.binary({})",
           "float": "st.floats({}allow_nan=False, allow_infinity=False)"}


def _bounds(t: A.TypeRef, lo_key: str, hi_key: str, which: A.Range | None) -> str:
    if which is None:
        return ""
    return f"{lo_key}={which.lo!r}, {hi_key}={which.hi!r}"


def strategy_source(t: A.TypeRef, from_type: bool = False) -> str:
    """Python source of a Hypothesis strategy (``st.``) for values of ``t``, narrowings built in.

    Args:
        t: the parameter's type.
        from_type: for a type with no constructive strategy (a class of the target), emit
            ``st.from_type(Name)`` instead of raising (exported modules import the target's names).

    Raises:
        UnsupportedConstruct: such a type when ``from_type`` is False.
    """
    base = t.name.split(".")[-1]
    size = _bounds(t, "min_size", "max_size", t.length)
    if base == "int":
        return f"st.integers({_bounds(t, 'min_value', 'max_value', t.range)})"
    if base == "float":
        rng = _bounds(t, "min_value", "max_value", t.range)
        return f"st.floats({rng})"
    if base == "bool":
        return "st.booleans()"
    if base == "None":
        return "st.none()"
    if base == "bytes":
        return f"st.binary({size})"
    if base == "str":
        alpha = f"alphabet={t.alphabet.chars!r}" if t.alphabet is not None else ""
        return f"st.text({', '.join(x for x in (alpha, size) if x)})"
    if base == "Callable":
        from evalgap.translators.callables import callable_strategy

        return callable_strategy(t, lambda a: strategy_source(a, from_type))
    args = [strategy_source(a, from_type) for a in t.args]
    if base in ("list", "List", "Sequence"):
        return f"st.lists({args[0] if args else 'st.integers()'}{', ' + size if size else ''})"
    if base in ("set", "Set", "frozenset", "FrozenSet"):
        fn = "st.frozensets" if base.lower() == "frozenset" else "st.sets"
        return f"{fn}({args[0] if args else 'st.integers()'}{', ' + size if size else ''})"
    if base in ("dict", "Dict", "Mapping"):
        k, v = (args + ["st.integers()", "st.integers()"])[:2]
        return f"st.dictionaries({k}, {v}{', ' + size if size else ''})"
    if base in ("tuple", "Tuple"):
        return f"st.tuples({', '.join(args)})"
    if base == "Optional":
        return f"st.one_of(st.none(), {args[0] if args else 'st.integers()'})"
    if base == "Union" and args:
        return f"st.one_of({', '.join(args)})"
    if from_type:
        return f"st.from_type({t.name})"
    raise UnsupportedConstruct(f"type {t} for Hypothesis", t.span,
                               "Hypothesis strategies are built for builtin scalars and containers only")


def _preconditions(source: str) -> dict[str, list[str]]:
    """``check_...`` function name -> the names of its ``@icontract.require`` condition functions."""
    import ast

    out: dict[str, list[str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
            for d in node.decorator_list:
                if (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "require"
                        and d.args and isinstance(d.args[0], ast.Name)):
                    out.setdefault(node.name, []).append(d.args[0].id)
    return out


#: Emitted once: whether the arguments satisfy a check function's preconditions, evaluated *before* the call
#: (the conditions are the harness's own functions, called by name), so a precondition violation is never
#: confused with a failure and never read off icontract's message text.
_ADMISSIBLE = '''
def _eg_admissible(conditions, **arguments) -> bool:
    """Whether ``arguments`` satisfy every precondition (each called with the parameters it names)."""
    for condition in conditions:
        wanted = inspect.signature(condition).parameters
        if not condition(**{k: v for k, v in arguments.items() if k in wanted}):
            return False
    return True
'''


def pytest_module(spec: A.Spec, harness: Harness) -> str:
    """A pytest module: the harness source followed by one test per checkable requirement.

    A property test (``@given``) fails when a postcondition (``ensures``, ``expect``, ``raises``, invariant)
    is violated; an input that violates a precondition is rejected before the call (``hypothesis.assume`` on
    the check function's own ``@icontract.require`` conditions), as the spec excludes it, and the health
    checks that such filtering trips (``filter_too_much``, ``too_slow``) are suppressed. An ``example``
    requirement is a plain test (no ``@given``, no ``@settings``) asserting every example holds.
    """
    owners = {req.id: (req, owner) for req, owner in spec.all_requirements()}
    pre = _preconditions(harness.source)
    lines = [harness.source, "", "# ---- Hypothesis properties (evalgap export --to pytest)", "",
             "import inspect", "", "import hypothesis", "import pytest",
             "from hypothesis import HealthCheck, given, settings, strategies as st", _ADMISSIBLE]
    for ob in harness.obligations:
        if ob.function is None:
            continue
        name = f"test_{ob.function[len('check_'):]}"
        args = ", ".join(n for n, _ in ob.params)
        if ob.kind == "example":
            lines += ["", "", f"def {name}() -> None:", f'    """{ob.req_id} (examples)."""',
                      f"    checks = {tuple(ob.checks)!r}", f"    failing = {ob.function}()",
                      f"    assert failing == 0, f'{ob.req_id}: example {{failing}} fails: {{checks[failing - 1]}}'"]
            continue
        # the strategies the Hypothesis engine draws from (one way through: the same sharing of model
        # arguments, the same narrowings), with the target's classes as `st.from_type`
        req_owner = owners.get(ob.req_id)
        try:
            drawn = obligation_strategies(spec, req_owner[0], req_owner[1], ob.params, from_type=True) \
                if req_owner is not None else tuple(f"st.from_type({text})" for _, text in ob.params)
        except UnsupportedConstruct:
            drawn = tuple(f"st.from_type({text})" for _, text in ob.params)
        strategies = [f"{pname}={src}" for (pname, _), src in zip(ob.params, drawn)]
        conditions = pre.get(ob.function, [])
        checks = ["HealthCheck.too_slow"] + (["HealthCheck.filter_too_much"] if conditions else [])
        guard = (f"_eg_admissible(({', '.join(conditions)},), {', '.join(f'{n}={n}' for n, _ in ob.params)})"
                 if conditions else "")
        if strategies:
            lines += ["", "", f"@settings(max_examples=200, deadline=None, suppress_health_check=[{', '.join(checks)}])",
                      f"@given({', '.join(strategies)})"]
        else:
            lines += ["", ""]
        lines += [f"def {name}({args}) -> None:", f'    """{ob.req_id} (Hypothesis property)."""']
        if guard and strategies:
            lines.append(f"    hypothesis.assume({guard})")
        elif guard:
            lines += [f"    if not {guard}:", "        pytest.skip('the preconditions exclude the only input')"]
        lines.append(f"    {ob.function}({args})")
    return "\n".join(lines) + "\n"


def _shared_params(owner: object) -> set[str]:
    """Parameter names that several methods of a class take (``key`` of ``put``, ``get`` and ``delete``)."""
    seen: dict[str, int] = {}
    for m in getattr(owner, "methods", ()):
        for p in m.params:
            seen[p.name] = seen.get(p.name, 0) + 1
    return {n for n, k in seen.items() if k > 1}


def _pooled(strategy: str, key: str) -> str:
    """A step argument of a model sequence named like a parameter several methods take: mostly one value
    shared by every such argument in an example (so a ``get`` often reads the key a ``put`` wrote), or a fresh
    value."""
    pool = f"st.shared({strategy}, key={'eg-pool-' + key!r})"
    return f"st.one_of({pool}, {pool}, {strategy})"


def _method_param(spec: A.Spec, name: str) -> A.TypeRef | None:
    from evalgap.translators.reserved_params import renaming, spec_names

    step_rest = name.split("_", 1)[1]
    for c in spec.classes:
        for m in c.methods:
            renamed = renaming((p.name for p in m.params), spec_names(spec))
            for p in m.params:
                if step_rest == f"{m.name}_{renamed.get(p.name, p.name)}":
                    return p.type
    return None


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


def _param_types(spec: A.Spec, req: A.Requirement, owner: object) -> dict[str, A.TypeRef]:
    """Declared type of every named parameter a check function of ``req`` can have: scenario and function
    parameters, a method's parameters, the class constructor's as ``init_<name>`` and, for invariants, each
    method's as ``s<step>_<method>_<name>`` (see :mod:`evalgap.translators.icontract_state`)."""
    from evalgap.translators.reserved_params import renaming, spec_names

    def declared(params: tuple[A.Param, ...]) -> dict[str, A.TypeRef]:
        # the harness's name of a parameter named `result`
        renamed = renaming((p.name for p in params), spec_names(spec))
        return {renamed.get(p.name, p.name): p.type for p in params}

    types: dict[str, A.TypeRef] = {}
    for c in req.clauses:
        if isinstance(c, A.Scenario):
            types.update({p.name: p.type for p in c.params})
    if isinstance(owner, A.FunctionDecl):
        types.update(declared(owner.params))
    cls = owner if isinstance(owner, A.ClassDecl) else next(
        (c for c in spec.classes if isinstance(owner, A.MethodDecl) and owner in c.methods), None)
    if isinstance(owner, A.MethodDecl):
        types.update(declared(owner.params))
    if cls is not None:
        for m in cls.methods:
            if m.name == "__init__":
                types.update({f"init_{k}": t for k, t in declared(m.params).items()})
    return types


def obligation_strategies(spec: A.Spec, req: A.Requirement, owner: object,
                          params: tuple[tuple[str, str], ...], from_type: bool = False) -> tuple[str, ...]:
    """One strategy source per parameter of an obligation's check function (``Obligation.params``), in order.

    Unlike :func:`requirement_strategies` this covers every parameter the harness added: a class's
    constructor arguments (``init_x``), invariant step selectors (``opN``: ``st.integers(0, 9)``) and step
    arguments (``sN_method_x``), and stub picks (``stub_..._picks``: short lists of small ints).

    Args:
        spec: the spec (for classes' constructors and methods).
        req: a formal requirement; owner: its declaration.
        params: ``(name, type text)`` of the check function.
        from_type: as for :func:`strategy_source` (exported modules: ``st.from_type`` for the target's classes).

    Returns:
        The strategy sources, exactly one per entry of ``params``.

    Raises:
        UnsupportedConstruct: a parameter with no strategy (never a call with missing arguments).
    """
    import re

    known = _param_types(spec, req, owner)
    model = any(isinstance(c, A.Model) for c in req.clauses)
    shared = _shared_params(owner) if model else set()
    out: list[str] = []
    for name, text in params:
        t = known.get(name)
        if t is None and re.match(r"s\d+_", name):
            t = _method_param(spec, "s1_" + name.split("_", 1)[1])
        if t is not None and re.match(r"s\d+_", name) and name.rsplit("_", 1)[-1] in shared:
            out.append(_pooled(strategy_source(t, from_type), f"{name.rsplit('_', 1)[-1]}: {t}"))
        elif t is not None:
            out.append(strategy_source(t, from_type))
        elif re.fullmatch(r"op\d+", name) and text == "int":
            out.append("st.integers(0, 9)")
        elif name.startswith("stub_") and name.endswith("_picks") and text == "list[int]":
            out.append("st.lists(st.integers(0, 9), max_size=4)")
        else:
            raise UnsupportedConstruct(f"parameter {name}: {text} for Hypothesis", req.span,
                                       "no strategy is known for this harness parameter")
    return tuple(out)
