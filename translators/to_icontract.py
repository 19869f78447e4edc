"""Compile a spec's formal requirements into an icontract *harness module* (real source on disk).

For each formal requirement the harness holds one ``check_<ID>`` function whose contracts are named
condition functions carrying the requirement ID and prose in their description, so icontract's
violation messages and CrossHair's reports show both:

* a requirement on ``function f`` with ``ensures`` clauses becomes
  ``@icontract.require(<the function's preconditions>) @icontract.ensure(<each ensures>) def check_ID(params):
  return f(params)``; requirements made only of ``requires`` clauses are *preconditions*: they narrow the
  domain of the function's other requirements and are not checked against the code themselves;
* a ``scenario`` becomes a function over the scenario's parameters that runs its statements and returns
  the 1-based index of the first ``expect`` that does not hold (0 when all hold), under the postcondition
  ``result == 0``; an ``expect raises E: call`` holds when the call raises ``E`` (or a subclass);
* a requirement with ``raises EXC when EXPR`` clauses (alone or with ``ensures``) becomes a function
  returning the 1-based index of the violated clause (0: as specified) under ``result == 0``: where some
  ``when`` holds the call must raise one of the exceptions whose ``when`` holds, elsewhere it must return
  normally with every ``ensures`` true (see :func:`~evalgap.translators.harness_writer.exceptional_body`);
* a requirement with ``may raise EXC, ...`` (beside its ``ensures``) has the same shape: only the call is
  guarded, an allowed exception ends the check as passing, the ``ensures`` are read outside the ``try``;
* ``example`` clauses become a parameterless function returning the index of the first failing example.

Names the spec reads from the target are bound at import time by ``getattr`` on the target module; a name
the target lacks yields an object that raises ``EvalgapMissingName`` when used, so only the requirements
that use it fail (as a spec error), not the whole harness.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import free_names, inline_lets
from evalgap.translators.callables import annotation
from evalgap.translators.errors import TranslationError, UnsupportedConstruct
from evalgap.translators.harness_writer import (Domain, Writer, desc, domain_for, emit_condition,
                                                safe, snapshots, type_names, typing_import_line)
from evalgap.translators.icontract_raises import may_raise_names, raises_obligation
from evalgap.translators.pyexpr import to_python

if TYPE_CHECKING:
    from evalgap.translators.icontract_model import ModelPlan

__all__ = ["Obligation", "Harness", "build_harness", "HARNESS_ROLE_KINDS", "scenario_statements",
           "emit_domain"]

#: Obligation kinds: how the verifier treats each requirement.
HARNESS_ROLE_KINDS = ("function", "scenario", "example", "precondition", "informal", "config", "database",
                      "unsupported")


@dataclass(frozen=True)
class Obligation:
    """What the harness holds for one requirement.

    Attributes:
        req_id: the requirement ID.
        kind: one of :data:`HARNESS_ROLE_KINDS`.
        function: name of the generated ``check_...`` function (None for informal/precondition/unsupported).
        params: ``(name, type text)`` of the check function, in order.
        target_function: for ``function`` obligations, the target function called.
        checks: the Python text of each checked clause (ensures, expect, example, raises), in order; for
            scenarios and examples the failing index returned by the check function points into it.
        check_spans: the spec span of each entry of ``checks`` (to quote the spec's own text).
        preconditions: what narrows this requirement's domain, listed in the report as assumptions of the
            verdict: precondition requirement IDs, ``assume`` IDs and narrowed parameters
            (``n: int in 0..1000``).
        reason: for ``unsupported``, why (the construct), for ``informal``, the category and reason; for
            ``database``, the absolute path of the schema file.
        bounds: limits of the harness itself that a passing verdict holds only within (a class
            invariant's or a model requirement's call-sequence length); the report lists them as the
            verdict's ``bounds``.
        explore, explore_bounds: the requirement's ``explore KIND`` (the engine that explores its scenario,
            e.g. ``schedules``) and the bounds written there, or None.
        model: for a ``model`` requirement, how to shorten and print its counterexamples.
    """

    req_id: str
    kind: str
    function: str | None
    params: tuple[tuple[str, str], ...] = ()
    target_function: str | None = None
    checks: tuple[str, ...] = ()
    preconditions: tuple[str, ...] = ()
    reason: str = ""
    check_spans: tuple[A.Span, ...] = ()
    bounds: tuple[str, ...] = ()
    explore: str | None = None
    explore_bounds: tuple[tuple[str, int], ...] = ()
    model: "ModelPlan | None" = None


@dataclass(frozen=True)
class Harness:
    """A generated harness module.

    Attributes:
        module: the module name to import it under (a valid identifier).
        source: its Python source.
        target_module: the importable name of the code under check.
        obligations: one per requirement of the spec, in source order.
    """

    module: str
    source: str
    target_module: str
    obligations: tuple[Obligation, ...] = field(default_factory=tuple)

    def obligation(self, req_id: str) -> Obligation:
        """The obligation of ``req_id``; raises KeyError when the spec has no such requirement."""
        for ob in self.obligations:
            if ob.req_id == req_id:
                return ob
        raise KeyError(req_id)


def _ident(req_id: str, used: set[str]) -> str:
    base = safe(req_id)
    name, i = f"check_{base}", 2
    while name in used:
        name, i = f"check_{base}_{i}", i + 1
    used.add(name)
    return name


def emit_domain(w: Writer, fn: str, dom: Domain, params: tuple[str, ...]) -> list[str]:
    """Emit a condition function per domain condition; return the ``@icontract.require`` lines."""
    out = []
    for i, (src, prose, cond) in enumerate(dom.conditions):
        cname = f"_eg_dom_{fn}_{i}"
        emit_condition(w, cname, cond, params, allow_result=False)
        out.append(f"@icontract.require({cname}, {desc(src, prose, '[pre] ')})")
    return out


def scenario_statements(w: Writer, stmts: tuple[A.Stmt, ...], bound: set[str], checks: list[str],
                        spans: list[A.Span]) -> list[str]:
    """Python lines for scenario statements; each ``expect`` returns its 1-based index in ``checks``
    when it does not hold. ``bound`` grows with assigned names."""
    body: list[str] = []
    for st in stmts:
        if isinstance(st, A.Assign):
            w.need(free_names(st.value, frozenset(bound)))
            body.append(f"{', '.join(st.targets)} = {to_python(st.value)}")
            bound |= set(st.targets)
        elif isinstance(st, A.ExprStmt):
            w.need(free_names(st.value, frozenset(bound)))
            body.append(to_python(st.value))
        elif isinstance(st, A.Expect):
            w.need(free_names(st.value, frozenset(bound)))
            checks.append(f"expect {to_python(st.value)}")
            spans.append(A.Span(st.span.file, st.span.line, st.span.col, st.value.span.end_line,
                                st.value.span.end_col))
            body.append(f"if not {to_python(st.value)}:")
            body.append(f"    return {len(checks)}")
        elif isinstance(st, A.ExpectRaises):
            w.need(free_names(st.call, frozenset(bound)) | {st.exception.split(".")[0]})
            checks.append(f"expect raises {st.exception}: {to_python(st.call)}")
            spans.append(A.Span(st.span.file, st.span.line, st.span.col, st.call.span.end_line,
                                st.call.span.end_col))
            body += ["try:", f"    {to_python(st.call)}", f"except {st.exception}:", "    pass", "else:",
                     f"    return {len(checks)}"]
        elif isinstance(st, (A.For, A.If)):
            from evalgap.translators.icontract_state import control_flow_lines

            body += control_flow_lines(w, st, bound, checks, spans)
    return body


def _scenario(w: Writer, spec: A.Spec, req: A.Requirement, sc: A.Scenario, fn: str) -> Obligation:
    from evalgap.translators.icontract_state import stub_params, wrap_with_stubs

    params = tuple((p.name, annotation(w, p.type)) for p in sc.params)
    names = tuple(p.name for p in sc.params)
    bound = set(names) | {"result"}
    for p in sc.params:
        w.need(type_names(p.type))
    dom = domain_for(spec, sc.params)
    extra, extra_dom = stub_params(w, spec)
    params += tuple((n, t) for n, t in extra)
    decorators = emit_domain(w, fn, dom, names)
    decorators += emit_domain(w, fn + "_stub", extra_dom, tuple(n for n, _ in extra))
    checks: list[str] = []
    spans: list[A.Span] = []
    body = scenario_statements(w, sc.body, bound, checks, spans)
    body = wrap_with_stubs(spec, body)
    w.emit(f"def _eg_post_{fn}(result: int) -> bool:")
    w.emit(f'"""{req.id}: every expect of the scenario holds (result is the failing expect\'s index)."""', 1)
    w.emit("return result == 0", 1)
    w.emit()
    w.emit()
    for d in decorators:
        w.emit(d)
    w.emit(f"@icontract.ensure(_eg_post_{fn}, {desc(req.id, req.prose)})")
    sig = ", ".join(f"{n}: {t}" for n, t in params)
    w.emit(f"def {fn}({sig}) -> int:")
    w.emit(f'"""Scenario of requirement {req.id}."""', 1)
    for line in body:
        w.emit(line, 1)
    w.emit("return 0", 1)
    return Obligation(req.id, "scenario", fn, params, None, tuple(checks), tuple(dom.assumption_texts),
                      check_spans=tuple(spans))


def _examples(w: Writer, req: A.Requirement, exs: list[A.Example], fn: str) -> Obligation:
    checks = []
    spans: list[A.Span] = []
    w.emit(f"def {fn}() -> int:")
    w.emit(f'"""Examples of requirement {req.id}: the index of the first failing one, 0 when all hold."""', 1)
    for i, ex in enumerate(exs, 1):
        w.need(free_names(ex.expr))
        checks.append(to_python(ex.expr))
        spans.append(ex.expr.span)
        w.emit(f"if not {to_python(ex.expr)}:", 1)
        w.emit(f"return {i}", 1 + 1)
    w.emit("return 0", 1)
    return Obligation(req.id, "example", fn, (), None, tuple(checks), check_spans=tuple(spans))


def _function_domain(spec: A.Spec, decl: A.FunctionDecl, req: A.Requirement, pre_reqs: list[A.Requirement],
                     exclude_raises: bool) -> Domain:
    dom = domain_for(spec, decl.params)
    for pr in pre_reqs:
        if pr is req:
            continue
        for cl in inline_lets(pr.clauses):
            if isinstance(cl, A.Requires):
                dom.conditions.append((pr.id, pr.prose, cl.expr))
        dom.assumption_texts.append(pr.id)
    for cl in inline_lets(req.clauses):
        if isinstance(cl, A.Requires):
            dom.conditions.append((req.id, req.prose, cl.expr))
    if exclude_raises:
        for other in decl.requirements:
            for cl in inline_lets(other.clauses):
                if isinstance(cl, A.Raises):
                    dom.conditions.append((other.id, f"exceptional case excluded: {other.prose}",
                                           A.Not(cl.when)))
                    if other.id not in dom.assumption_texts:
                        dom.assumption_texts.append(other.id)
    return dom


def _function(w: Writer, spec: A.Spec, req: A.Requirement, decl: A.FunctionDecl, fn: str,
              pre_reqs: list[A.Requirement]) -> Obligation:
    params = tuple((p.name, annotation(w, p.type)) for p in decl.params)
    names = tuple(p.name for p in decl.params)
    for p in decl.params:
        w.need(type_names(p.type))
    if decl.returns is not None:
        w.need(type_names(decl.returns))
    w.need({decl.name})
    clauses = inline_lets(req.clauses)
    raises = [c for c in clauses if isinstance(c, A.Raises)]
    ensures = [c for c in clauses if isinstance(c, A.Ensures)]
    may = may_raise_names(w, clauses)
    dom = _function_domain(spec, decl, req, pre_reqs, exclude_raises=not raises)
    decorators = emit_domain(w, fn, dom, names)
    checks: list[str] = []
    spans: list[A.Span] = []
    if raises or may:
        return raises_obligation(w, req, decl, fn, raises, ensures, decorators, dom, may)
    old_map, snaps = snapshots(w, fn, [c.expr for c in ensures], names)
    posts = []
    for i, cl in enumerate(ensures):
        spans.append(cl.expr.span)
        cname = f"_eg_post_{fn}_{i}"
        # `ensures A` then `ensures B` means `A and B` (Python's short-circuit): where B raises and an earlier
        # clause is false, B's condition holds, so a false A is reported as A's violation (CrossHair otherwise
        # reports B's exception, which reads as a spec error, not a counterexample); the earlier clauses are
        # read only when B raises (emit_condition's guard), so they add no branch to B's other paths
        earlier = [c.expr for c in ensures[:i]]
        guard: A.Expr | None = None if not earlier else (
            earlier[0] if len(earlier) == 1 else A.BoolOp("and", tuple(earlier), cl.expr.span))
        emit_condition(w, cname, cl.expr, names, allow_result=True, old=old_map, guard=guard)
        checks.append(to_python(cl.expr, old_map or None))
        posts.append(f"@icontract.ensure({cname}, {desc(req.id, req.prose)})")
    w.emit()
    for d in decorators + snaps + posts:
        w.emit(d)
    ret = f" -> {decl.returns}" if decl.returns is not None else ""
    w.emit(f"def {fn}({', '.join(f'{n}: {t}' for n, t in params)}){ret}:")
    w.emit(f'"""Requirement {req.id} on {decl.name}."""', 1)
    w.emit(f"return {decl.name}({', '.join(names)})", 1)
    return Obligation(req.id, "function", fn, params, decl.name, tuple(checks), tuple(dom.assumption_texts),
                      check_spans=tuple(spans))


def _requirement(w: Writer, spec: A.Spec, req: A.Requirement, owner: object, fn: str,
                 pre_reqs: list[A.Requirement]) -> Obligation:
    from evalgap.translators.icontract_state import invariant_obligation, method_obligation

    inf = req.informal
    if inf is not None:
        return Obligation(req.id, "informal", None, reason=f"{inf.category}: {inf.reason}")
    if isinstance(owner, A.DatabaseDecl):
        from evalgap.translators.to_database import database_obligation
        return database_obligation(w, req, owner, fn)
    if isinstance(owner, A.ConfigDecl):
        return Obligation(req.id, "config", None, reason="a rule over a configuration file: checked by "
                          "`evalgap check-config` and the Z3 analysis, not against code")
    clauses = inline_lets(req.clauses)
    scenarios = [c for c in clauses if isinstance(c, A.Scenario)]
    examples = [c for c in clauses if isinstance(c, A.Example)]
    ensures = [c for c in clauses if isinstance(c, A.Ensures)]
    requires = [c for c in clauses if isinstance(c, A.Requires)]
    raises = [c for c in clauses if isinstance(c, A.Raises)]
    invariants = [c for c in clauses if isinstance(c, A.Invariant)]
    rules = [c for c in clauses if isinstance(c, A.Rule)]
    models = [c for c in clauses if isinstance(c, A.Model)]
    if models:
        from evalgap.translators.icontract_model import model_obligation

        if not isinstance(owner, A.ClassDecl) or len(models) > 1 or len(clauses) > 1:
            raise UnsupportedConstruct("`model` is a class requirement's only clause", models[0].span)
        return model_obligation(w, spec, req, owner, models[0], fn)
    if rules:
        raise UnsupportedConstruct("a bare rule outside a config", rules[0].span)
    if invariants:
        if not isinstance(owner, A.ClassDecl):
            raise UnsupportedConstruct("`invariant` outside a class", invariants[0].span)
        return invariant_obligation(w, spec, req, owner, invariants, fn)
    if len(scenarios) > 1 or (scenarios and (examples or ensures or requires or raises)):
        raise UnsupportedConstruct("a scenario mixed with other clauses", req.span,
                                   "give each scenario its own requirement")
    if scenarios:
        ob = _scenario(w, spec, req, scenarios[0], fn)
        explores = [c for c in clauses if isinstance(c, A.Explore)]
        if explores:
            ob = replace(ob, explore=explores[0].kind, explore_bounds=explores[0].bounds)
        return ob
    if examples and not (ensures or requires or raises):
        return _examples(w, req, examples, fn)
    if examples:
        raise UnsupportedConstruct("examples mixed with requires/ensures", req.span,
                                   "give the examples their own requirement")
    if isinstance(owner, A.MethodDecl):
        cls = next(c for c in spec.classes if owner in c.methods)
        if requires and not (ensures or raises):
            return Obligation(req.id, "precondition", None)
        return method_obligation(w, spec, req, cls, owner, fn)
    if isinstance(owner, A.FunctionDecl):
        if requires and not (ensures or raises):
            return Obligation(req.id, "precondition", None)
        return _function(w, spec, req, owner, fn, pre_reqs)
    raise TranslationError(f"requirement {req.id} has no clause to check")  # caught by check_structure


def _helpers(spec: A.Spec, w: Writer) -> list[str]:
    """Module-level definitions of the spec's records (frozen dataclasses), ``def`` and ``let`` helpers
    (placed after the target names)."""
    out: list[str] = []
    for r in spec.records:
        for f in r.fields:
            w.need(type_names(f.type))
        out += ["", "", "@dataclasses.dataclass(frozen=True)", f"class {r.name}:",
                f'    """Spec record `{r.name}`."""', ""]
        out += [f"    {f.name}: {f.type}" for f in r.fields] or ["    pass"]
    for d in spec.defs:
        w.need(free_names(d.body, frozenset(p.name for p in d.params)))
        sig = ", ".join(f"{p.name}: {p.type}" for p in d.params)
        out += ["", "", f"def {d.name}({sig}) -> {d.returns}:",
                f'    """Spec helper `{d.name}` (pure; recursion allowed)."""', f"    return {to_python(d.body)}"]
    if spec.lets:
        out += ["", ""]
    for lt in spec.lets:
        w.need(free_names(lt.value))
        out.append(f"{lt.name} = {to_python(lt.value)}")
    return out


def build_harness(spec: A.Spec, target_module: str, harness_module: str = "evalgap_harness") -> Harness:
    """Generate the harness module for ``spec`` against ``target_module``.

    Args:
        spec: a parsed and structurally checked spec.
        target_module: importable module name of the code under check (its folder is put on
            ``sys.path`` by the worker that imports the harness).
        harness_module: the module name the harness is written under.

    Returns:
        A :class:`Harness`; requirements whose constructs are not compiled yet get an ``unsupported``
        obligation with the reason instead of failing the whole spec.
    """
    from evalgap.specs_lang.lower import helper_names
    from evalgap.specs_lang.stdlib import STDLIB_MODULES
    from evalgap.translators.callables import CALLABLE_RUNTIME
    from evalgap.translators.icontract_model import MODEL_RUNTIME, uses_models
    from evalgap.translators.icontract_state import STUB_RUNTIME
    from evalgap.translators.reserved_params import rename_reserved_params

    spec = rename_reserved_params(spec)  # a parameter named `result` or `OLD` (icontract reserves both)
    body = Writer(helper_names(spec), {f.name for f in spec.functions} | {c.name for c in spec.classes})
    try:
        helpers = _helpers(spec, body)
    except UnsupportedConstruct:
        helpers = []
    obligations: list[Obligation] = []
    used: set[str] = set()
    pre_by_fn: dict[str, list[A.Requirement]] = {}
    for f in spec.functions:
        pre_by_fn[f.name] = [r for r in f.requirements if r.informal is None and any(
            isinstance(c, A.Requires) for c in r.clauses) and all(isinstance(c, (A.Requires, A.Let))
                                                                  for c in r.clauses)]
    for req, owner in spec.all_requirements():
        fn = _ident(req.id, used)
        mark = len(body.lines)
        needed = set(body.target_names)
        body.emit()
        body.emit()
        body.emit(f"# ---- requirement {req.id} ({req.span})")
        try:
            pre = pre_by_fn.get(owner.name, []) if isinstance(owner, A.FunctionDecl) else []
            ob = _requirement(body, spec, req, owner, fn, pre)
        except UnsupportedConstruct as exc:
            del body.lines[mark:]
            body.target_names = needed
            ob = Obligation(req.id, "unsupported", None, reason=str(exc))
        obligations.append(ob)
    head = [
        f'"""evalgap harness for spec {spec.name!r} ({spec.file}) against {target_module!r}.',
        "",
        "Generated by evalgap.translators.to_icontract; do not edit.",
        '"""',
        "",
        "import copy",
        "import dataclasses",
        "import importlib",
        "import math",
        *(f"import {m}" for m in sorted(STDLIB_MODULES)),  # the allow-listed standard library of clauses
        typing_import_line(),
        "",
        "import icontract",
        "",
        "",
        "class EvalgapMissingName(NameError):",
        '    """A name the spec uses is not defined by the target module."""',
        "",
        "",
        "class _EgMissing:",
        "    def __init__(self, name: str) -> None:",
        "        self._name = name",
        "",
        "    def __getattr__(self, attr: str) -> Any:",
        "        raise EvalgapMissingName(f'{self._name!r} is not defined in ' + _EG_TARGET)",
        "",
        "    def __call__(self, *args: Any, **kwargs: Any) -> Any:",
        "        raise EvalgapMissingName(f'{self._name!r} is not defined in ' + _EG_TARGET)",
        "",
        "",
        f"_EG_TARGET = {target_module!r}",
        "_eg_target = importlib.import_module(_EG_TARGET)",
    ]
    for name in sorted(body.target_names):
        head.append(f"{name} = getattr(_eg_target, {name!r}, _EgMissing({name!r}))")
    for name in sorted(body.typing_used - body.target_names):  # the target's own `Counter` wins over typing's
        head.append(f"{name} = getattr(_eg_target, {name!r}, {name})")
    runtime = STUB_RUNTIME + CALLABLE_RUNTIME + (MODEL_RUNTIME if uses_models(spec) else [])
    source = "\n".join(head + helpers + runtime + body.lines) + "\n"
    return Harness(harness_module, source, target_module, tuple(obligations))
