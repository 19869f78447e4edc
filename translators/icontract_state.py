"""Harness parts for stateful code: ``method`` requirements, class ``invariant`` s and ``stub`` s.

* A **method** requirement becomes a scenario-shaped check function over the constructor's parameters
  (``method __init__(...)`` in the class block, else none) and the method's parameters: it builds the
  object, assumes the method's ``requires`` clauses (a path violating them passes), records every
  ``old(EXPR)`` in a deep copy, calls the method and returns the 1-based index of the first ``ensures`` or
  ``raises`` clause that does not hold (0 when all hold), under the postcondition ``result == 0``; a
  constructor that raises builds no object and the path passes (:data:`CONSTRUCTION_BOUND`, stated); with
  ``raises`` clauses the meaning is :func:`~evalgap.translators.harness_writer.exceptional_body`'s.
* An **invariant** requirement becomes a check function that builds the object and then applies up to
  :data:`INVARIANT_STEPS` calls of the class's declared methods, each chosen by a symbolic ``op_i``
  (``op_i % (methods + 1)``; the extra value ends the sequence); the invariant must hold after construction
  and after every call that returns normally (as icontract checks invariants; the state after an exception
  is not constrained). A call (and the construction) whose arguments break the method's preconditions (its
  requirements made only of ``requires``) ends the sequence: an invariant need only hold after calls whose
  caller met the preconditions (Meyer's design by contract; icontract checks preconditions first).
* A **stub** replaces a dependency of the target (resolved as a dotted name in the target module) for the
  duration of each scenario by a :class:`_EgStub` whose calls return, one after another, the outcome
  picked by a symbolic list ``stub_<name>_picks: list[int]`` (``pick % len(outcomes)``; calls past the end
  of the list take the first outcome), and for ``any`` outcomes the value from a symbolic list
  ``stub_<name>_values: list[T]`` (cycled). CrossHair explores both lists like any other input, so
  scenarios see timeouts, duplicate acknowledgements and arbitrary returns that fixed mocks never produce.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import free_names, inline_lets
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.harness_writer import (Domain, Writer, desc, domain_for, exceptional_body, safe,
                                                type_names)
from evalgap.translators.pyexpr import collect_old, to_python

if TYPE_CHECKING:
    from evalgap.translators.to_icontract import Obligation

__all__ = ["STUB_RUNTIME", "INVARIANT_STEPS", "CONSTRUCTION_BOUND", "stub_params", "wrap_with_stubs",
           "method_obligation", "control_flow_lines",
           "invariant_obligation"]

#: Method calls applied after construction when checking a class invariant (``invariant EXPR up to N calls``
#: overrides it per requirement).
INVARIANT_STEPS = A.DEFAULT_INVARIANT_CALLS

#: Support code every harness holds (the stub object and the patching helper).
_STUB_SOURCE = """
class _EgStub:
    \"\"\"A symbolic stand-in for a dependency: each call returns the outcome its pick selects.\"\"\"

    def __init__(self, name, outcomes, picks, values):
        self.name, self.outcomes, self.picks, self.values, self.calls = name, outcomes, picks, values, 0

    def __call__(self, *args, **kwargs):
        i = self.calls
        self.calls += 1
        k = self.picks[i] % len(self.outcomes) if i < len(self.picks) else 0
        kind, payload = self.outcomes[k]
        if kind == 'raises':
            raise payload(f'evalgap stub {self.name}: call {i + 1} raises')
        if kind == 'value':
            return payload
        return self.values[i % len(self.values)] if self.values else None
"""

#: Support code every harness holds: the stub object (compiled under the file name ``<evalgap stub>``, so
#: an exception a stub raises counts as the environment's, not as an error of the spec's own expressions)
#: and the patching helper.
STUB_RUNTIME: list[str] = [
    "",
    "",
    f"exec(compile({_STUB_SOURCE!r}, '<evalgap stub>', 'exec'))",
    "",
    "",
    "def _eg_patch(dotted: str, replacement: Any) -> Any:",
    '    """Replace the attribute `dotted` of the target module; return a function undoing it."""',
    "    parts = dotted.split('.')",
    "    parent = _eg_target",
    "    for part in parts[:-1]:",
    "        parent = getattr(parent, part)",
    "    original = getattr(parent, parts[-1])",
    "    setattr(parent, parts[-1], replacement)",
    "    return lambda: setattr(parent, parts[-1], original)",
]


def _stub_ident(stub: A.StubDecl) -> str:
    return safe(stub.name).lower()


def stub_params(w: Writer, spec: A.Spec) -> tuple[list[tuple[str, str]], Domain]:
    """The extra scenario parameters the spec's stubs need, and their domain (a non-empty value list
    for stubs with an ``any`` outcome and a return type)."""
    params: list[tuple[str, str]] = []
    dom = Domain()
    for st in spec.stubs:
        ident = _stub_ident(st)
        if len(st.outcomes) > 1:
            params.append((f"stub_{ident}_picks", "list[int]"))
        if any(o.kind == "any" for o in st.outcomes) and st.returns is not None and st.returns.name != "None":
            w.need(type_names(st.returns))
            name = f"stub_{ident}_values"
            params.append((name, f"list[{st.returns}]"))
            cond = A.Compare(A.Call(A.Name("len"), (A.Name(name),)), (">=",), (A.Const(1),))
            dom.conditions.append(("stub", f"stub {st.name} has at least one value to return", cond))
        for o in st.outcomes:
            if o.kind == "raises" and o.exception:
                w.need({o.exception.split(".")[0]})
            if o.kind == "value" and o.value is not None:
                w.need(free_names(o.value))
    return params, dom


def wrap_with_stubs(spec: A.Spec, body: list[str]) -> list[str]:
    """Wrap scenario body lines so every stub is installed before and removed after them."""
    if not spec.stubs:
        return body
    pre: list[str] = ["_eg_undo = []", "try:"]
    for st in spec.stubs:
        ident = _stub_ident(st)
        outs = []
        for o in st.outcomes:
            if o.kind == "raises":
                outs.append(f"('raises', {o.exception})")
            elif o.kind == "value" and o.value is not None:
                outs.append(f"('value', {to_python(o.value)})")
            else:
                outs.append("('any', None)")
        picks = f"stub_{ident}_picks" if len(st.outcomes) > 1 else "[]"
        has_values = any(o.kind == "any" for o in st.outcomes) and st.returns is not None and \
            st.returns.name != "None"
        values = f"stub_{ident}_values" if has_values else "[]"
        pre.append(f"    _eg_undo.append(_eg_patch({st.name!r}, _EgStub({st.name!r}, [{', '.join(outs)}], "
                   f"{picks}, {values})))")
    return pre + ["    " + line for line in body] + ["finally:", "    for _eg_u in reversed(_eg_undo):",
                                                       "        _eg_u()"]


def _ctor(cls: A.ClassDecl) -> tuple[A.Param, ...]:
    for m in cls.methods:
        if m.name == "__init__":
            return m.params
    return ()


def _prefixed(params: tuple[A.Param, ...], prefix: str) -> tuple[A.Param, ...]:
    return tuple(A.Param(prefix + p.name, p.type, p.span) for p in params)


def _precondition_reqs(m: A.MethodDecl | None) -> list[A.Requirement]:
    """The requirements of ``m`` made only of ``requires`` (its preconditions, for every call)."""
    if m is None:
        return []
    return [r for r in m.requirements if r.informal is None and r.clauses
            and all(isinstance(c, (A.Requires, A.Let)) for c in r.clauses)]


def _guard(w: Writer, m: A.MethodDecl | None, prefix: str, with_self: bool) -> list[str]:
    """Lines ending the check (``return 0``: the path passes) when a call of ``m`` would break its
    preconditions; the method's parameters are bound from their ``prefix``-ed harness names by a lambda, so
    the conditions read the names the spec uses (icontract's rule: a caller must meet the preconditions, and
    an invariant need only hold after calls that did)."""
    lines: list[str] = []
    if m is None:
        return lines
    formal = (["self"] if with_self else []) + [p.name for p in m.params]
    actual = (["self"] if with_self else []) + [prefix + p.name for p in m.params]
    for r in _precondition_reqs(m):
        for c in inline_lets(r.clauses):
            if isinstance(c, A.Requires):
                w.need(free_names(c.expr) - set(formal))
                lines += [f"if not (lambda {', '.join(formal)}: ({to_python(c.expr)}))({', '.join(actual)}):",
                          "    return 0"]
    return lines


#: The bound an invariant's call sequence states: the constructor's own refusals are not counterexamples (a
#: method scenario skips them too, like a precondition of the constructor: its verdict is about objects).
CONSTRUCTION_BOUND = ("construction: arguments the constructor rejects by raising build no object and are "
                      "skipped (as CrossHair and icontract do); state the rejection as a `raises` requirement "
                      "on `__init__` to check it")


def _construct(cls: A.ClassDecl, ctor: tuple[A.Param, ...]) -> list[str]:
    """Lines building ``self``; a constructor that raises builds no object, so the path passes (there is no
    object for the method contract or the invariant to be about; see :data:`CONSTRUCTION_BOUND`). Not a
    refusal, and re-raised (the verdict cannot be vacuous): an abstract class, which can never be built (check
    its concrete subclasses), and an exception raised by the call itself before the constructor's code ran
    (wrong arguments)."""
    return ["try:", f"    self = {cls.name}({', '.join(p.name for p in ctor)})", "except Exception as _eg_exc:",
            # not a refusal: an abstract class, or a call the constructor never ran (wrong arguments)
            f"    if getattr({cls.name}, '__abstractmethods__', None) or _eg_exc.__traceback__ is None "
            "or _eg_exc.__traceback__.tb_next is None:",
            "        raise", "    return 0"]


def _init_decl(cls: A.ClassDecl) -> A.MethodDecl | None:
    return next((m for m in cls.methods if m.name == "__init__"), None)


def _emit_function(w: Writer, fn: str, req: A.Requirement, params: tuple[A.Param, ...], dom: Domain,
                   body: list[str], doc: str) -> None:
    from evalgap.translators.callables import annotation
    from evalgap.translators.to_icontract import emit_domain

    for p in params:
        w.need(type_names(p.type))
    notes = [annotation(w, p.type) for p in params]  # before the decorators: may emit a class
    decorators = emit_domain(w, fn, dom, tuple(p.name for p in params))
    w.emit(f"def _eg_post_{fn}(result: int) -> bool:")
    w.emit("return result == 0", 1)
    w.emit()
    w.emit()
    for d in decorators:
        w.emit(d)
    w.emit(f"@icontract.ensure(_eg_post_{fn}, {desc(req.id, req.prose)})")
    w.emit(f"def {fn}({', '.join(f'{p.name}: {t}' for p, t in zip(params, notes))}) -> int:")
    w.emit(f'"""{doc}"""', 1)
    for line in body:
        w.emit(line, 1)
    w.emit("return 0", 1)


def method_obligation(w: Writer, spec: A.Spec, req: A.Requirement, cls: A.ClassDecl, method: A.MethodDecl,
                      fn: str) -> "Obligation":
    """Compile a requirement on ``cls.method`` (see the module docstring)."""
    from evalgap.translators.to_icontract import Obligation

    ctor = _prefixed(_ctor(cls), "init_")
    params = ctor + method.params
    names = {p.name for p in params} | {"self", "result"}
    dom = domain_for(spec, params)
    w.need({cls.name})
    clauses = inline_lets(req.clauses)
    pre_clauses = [c for r in method.requirements if r is not req and r.informal is None
                   and all(isinstance(c, (A.Requires, A.Let)) for c in r.clauses)
                   for c in inline_lets(r.clauses) if isinstance(c, A.Requires)]
    pre_ids = [r.id for r in method.requirements if r is not req and r.informal is None and r.clauses
               and all(isinstance(c, (A.Requires, A.Let)) for c in r.clauses)]
    pre_clauses += [c for c in clauses if isinstance(c, A.Requires)]
    ensures = [c for c in clauses if isinstance(c, A.Ensures)]
    raises = [c for c in clauses if isinstance(c, A.Raises)]
    init = _init_decl(cls)
    body = _guard(w, init, "init_", False) + _construct(cls, ctor)
    pre_ids += [r.id for r in _precondition_reqs(init)]
    for c in pre_clauses:
        w.need(free_names(c.expr) - names)
        body += [f"if not ({to_python(c.expr)}):", "    return 0"]
    olds = collect_old(tuple(c.expr for c in ensures))
    old_map = {}
    for k, o in enumerate(olds):
        w.need(free_names(o.expr) - names)
        body.append(f"_eg_old_{k} = copy.deepcopy({to_python(o.expr)})")
        old_map[o] = f"_eg_old_{k}"
    call = f"self.{method.name}({', '.join(p.name for p in method.params)})"
    checks: list[str] = []
    spans: list[A.Span] = []
    from evalgap.translators.icontract_raises import may_raise_names, may_raise_note

    may = may_raise_names(w, clauses)
    if raises or may:
        for r in raises:
            w.need(free_names(r.when) - names | {r.exception.split(".")[0]})
            checks.append(f"raises {r.exception} when {to_python(r.when)}")
            spans.append(r.span)
        ens_py = []
        for ens in ensures:
            w.need(free_names(ens.expr) - names)
            ens_py.append(to_python(ens.expr, old_map))
            checks.append(ens_py[-1])
            spans.append(ens.expr.span)
        # the old() snapshots are taken before the when conditions: both read the pre-state
        body += exceptional_body(call, raises, ens_py, may_raise=may)[:-1]  # _emit_function ends with `return 0`
    else:
        body.append(f"result = {call}")
        for i, ens in enumerate(ensures, 1):
            w.need(free_names(ens.expr) - names)
            checks.append(to_python(ens.expr, old_map))
            spans.append(ens.expr.span)
            body += [f"if not ({to_python(ens.expr, old_map)}):", f"    return {i}"]
    if not ensures and not raises:
        raise UnsupportedConstruct("a method requirement without ensures or raises", req.span)
    _emit_function(w, fn, req, params, dom, body, f"Requirement {req.id} on {cls.name}.{method.name}.")
    return Obligation(req.id, "scenario", fn, tuple((p.name, str(p.type)) for p in params),
                      f"{cls.name}.{method.name}", tuple(checks),
                      tuple(dom.assumption_texts + pre_ids + may_raise_note(may)), check_spans=tuple(spans))


def invariant_obligation(w: Writer, spec: A.Spec, req: A.Requirement, cls: A.ClassDecl,
                         invariants: list[A.Invariant], fn: str) -> "Obligation":
    """Compile a class invariant (see the module docstring)."""
    from evalgap.translators.to_icontract import Obligation

    ctor = _prefixed(_ctor(cls), "init_")
    methods = [m for m in cls.methods if m.name != "__init__"]
    params: list[A.Param] = list(ctor)
    steps = max((c.max_calls or INVARIANT_STEPS for c in invariants), default=INVARIANT_STEPS)
    for step in range(1, steps + 1 if methods else 1):
        params.append(A.Param(f"op{step}", A.TypeRef("int")))
        for m in methods:
            params.extend(_prefixed(m.params, f"s{step}_{m.name}_"))
    names = {p.name for p in params} | {"self"}
    dom = domain_for(spec, tuple(params))
    w.need({cls.name})
    checks = [to_python(c.expr) for c in invariants]
    spans = [c.span for c in invariants]
    for c in invariants:
        w.need(free_names(c.expr) - names)
    inv = " and ".join(f"({t})" for t in checks)
    init = _init_decl(cls)
    body = _guard(w, init, "init_", False)
    body += [*_construct(cls, ctor), f"if not ({inv}):", "    return 1"]
    pre_ids = [r.id for m in [init, *methods] for r in _precondition_reqs(m)]
    for step in range(1, steps + 1 if methods else 1):
        body.append(f"_eg_op = op{step} % {len(methods) + 1}")
        body += [f"if _eg_op == {len(methods)}:", "    return 0"]
        for k, m in enumerate(methods):
            args = ", ".join(f"s{step}_{m.name}_{p.name}" for p in m.params)
            guard = ["    " + ln for ln in _guard(w, m, f"s{step}_{m.name}_", True)]
            body += [f"if _eg_op == {k}:", *guard, "    try:", f"        self.{m.name}({args})",
                     "    except Exception:", "        return 0"]
        body += [f"if not ({inv}):", "    return 1"]
    _emit_function(w, fn, req, tuple(params), dom, body,
                   f"Invariant {req.id} of {cls.name}: after construction and up to {steps} calls.")
    bounds: tuple[str, ...] = (f"call sequence: at most {steps} method calls after construction (the invariant is "
              f"checked after each; longer sequences are not explored)",) if methods else ()
    bounds += (CONSTRUCTION_BOUND,) if methods else ()
    return Obligation(req.id, "scenario", fn, tuple((p.name, str(p.type)) for p in params), cls.name,
                      (f"invariant {inv}",), tuple(dom.assumption_texts + pre_ids), check_spans=(spans[0],),
                      bounds=bounds)


def control_flow_lines(w: Writer, st: A.For | A.If, bound: set[str], checks: list[str],
                       spans: list[A.Span]) -> list[str]:
    """Python lines for a scenario's ``for`` or ``if`` statement (bodies through
    :func:`~evalgap.translators.to_icontract.scenario_statements`); names a block assigns stay bound after it,
    as in Python."""
    from evalgap.translators.to_icontract import scenario_statements

    if isinstance(st, A.For):
        w.need(free_names(st.iter, frozenset(bound)))
        bound |= set(st.targets)
        inner = scenario_statements(w, st.body, bound, checks, spans) or ["pass"]
        return [f"for {', '.join(st.targets)} in {to_python(st.iter)}:", *("    " + ln for ln in inner)]
    w.need(free_names(st.test, frozenset(bound)))
    out = [f"if {to_python(st.test)}:", *("    " + ln for ln in scenario_statements(w, st.body, bound, checks, spans)
                                           or ["pass"])]
    if st.orelse:
        other = scenario_statements(w, st.orelse, bound, checks, spans) or ["pass"]
        out += ["else:", *("    " + ln for ln in other)]
    return out
