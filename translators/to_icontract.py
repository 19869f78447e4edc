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
* ``example`` clauses become a parameterless function returning the index of the first failing example.

Names the spec reads from the target are bound at import time by ``getattr`` on the target module; a name
the target lacks yields an object that raises ``EvalgapMissingName`` when used, so only the requirements
that use it fail (as a spec error), not the whole harness.
"""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass, field

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import TranslationError, UnsupportedConstruct
from evalgap.translators.pyexpr import free_names, to_python

__all__ = ["Obligation", "Harness", "build_harness", "HARNESS_ROLE_KINDS"]

#: Obligation kinds: how the verifier treats each requirement.
HARNESS_ROLE_KINDS = ("function", "scenario", "example", "precondition", "informal", "unsupported")

_TYPING_NAMES = {"Any", "Optional", "Union", "List", "Dict", "Set", "Tuple", "FrozenSet", "Sequence", "Mapping"}
_BUILTINS = set(dir(builtins)) | {"math"}


@dataclass(frozen=True)
class Obligation:
    """What the harness holds for one requirement.

    Attributes:
        req_id: the requirement ID.
        kind: one of :data:`HARNESS_ROLE_KINDS`.
        function: name of the generated ``check_...`` function (None for informal/precondition/unsupported).
        params: ``(name, type text)`` of the check function, in order.
        target_function: for ``function`` obligations, the target function called.
        checks: the Python text of each checked clause (ensures, expect, example), in order; for
            scenarios and examples the failing index returned by the check function points into it.
        check_spans: the spec span of each entry of ``checks`` (to quote the spec's own text).
        preconditions: IDs of the precondition requirements applied to this one (domain narrowing).
        reason: for ``unsupported``, why (the construct), for ``informal``, the category and reason.
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
    base = re.sub(r"\W", "_", req_id)
    name, i = f"check_{base}", 2
    while name in used:
        name, i = f"check_{base}_{i}", i + 1
    used.add(name)
    return name


def _type_names(t: A.TypeRef) -> set[str]:
    out = {t.name.split(".")[0]}
    for a in t.args:
        out |= _type_names(a)
    return out


def _type_text(t: A.TypeRef) -> str:
    return str(t)


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.target_names: set[str] = set()

    def emit(self, line: str = "", indent: int = 0) -> None:
        self.lines.append("    " * indent + line)

    def need(self, names: set[str]) -> None:
        for n in names:
            if n not in _BUILTINS and n not in _TYPING_NAMES and not keyword.iskeyword(n):
                self.target_names.add(n)


def _desc(req: A.Requirement, prefix: str = "") -> str:
    return repr(f"{prefix}{req.id}: {req.prose}")


def _scenario(w: _Writer, req: A.Requirement, sc: A.Scenario, fn: str) -> Obligation:
    params = tuple((p.name, _type_text(p.type)) for p in sc.params)
    bound = {p.name for p in sc.params} | {"result"}
    for p in sc.params:
        w.need(_type_names(p.type))
    checks: list[str] = []
    spans: list[A.Span] = []
    body: list[str] = []
    for st in sc.body:
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
    w.emit(f"def _eg_post_{fn}(result: int) -> bool:")
    w.emit(f'"""{req.id}: every expect of the scenario holds (result is the failing expect\'s index)."""', 1)
    w.emit("return result == 0", 1)
    w.emit()
    w.emit()
    w.emit(f"@icontract.ensure(_eg_post_{fn}, {_desc(req)})")
    sig = ", ".join(f"{n}: {t}" for n, t in params)
    w.emit(f"def {fn}({sig}) -> int:")
    w.emit(f'"""Scenario of requirement {req.id}."""', 1)
    for line in body:
        w.emit(line, 1)
    w.emit("return 0", 1)
    return Obligation(req.id, "scenario", fn, params, None, tuple(checks), check_spans=tuple(spans))


def _examples(w: _Writer, req: A.Requirement, exs: list[A.Example], fn: str) -> Obligation:
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


def _condition(w: _Writer, name: str, expr: A.Expr, params: tuple[A.Param, ...], allow_result: bool) -> None:
    names = free_names(expr)
    args = [p.name for p in params if p.name in names]
    if allow_result and "result" in names:
        args.append("result")
    w.need(names - {p.name for p in params} - {"result"})
    w.emit(f"def {name}({', '.join(args)}) -> bool:")
    w.emit(f"return bool({to_python(expr)})", 1)
    w.emit()


def _function(w: _Writer, req: A.Requirement, decl: A.FunctionDecl, fn: str,
              pre_reqs: list[A.Requirement]) -> Obligation:
    params = tuple((p.name, _type_text(p.type)) for p in decl.params)
    for p in decl.params:
        w.need(_type_names(p.type))
    if decl.returns is not None:
        w.need(_type_names(decl.returns))
    w.need({decl.name})
    decorators: list[str] = []
    pre_ids: list[str] = []
    own_pre = [c for c in req.clauses if isinstance(c, A.Requires)]
    for pr in pre_reqs + ([req] if own_pre else []):
        for i, cl in enumerate(c for c in pr.clauses if isinstance(c, A.Requires)):
            cname = f"_eg_pre_{fn}_{re.sub(r'[^0-9A-Za-z_]', '_', pr.id)}_{i}"
            _condition(w, cname, cl.expr, decl.params, allow_result=False)
            decorators.append(f"@icontract.require({cname}, {_desc(pr, '[pre] ')})")
        if pr is not req:
            pre_ids.append(pr.id)
    checks = []
    spans: list[A.Span] = []
    for i, ens in enumerate(c for c in req.clauses if isinstance(c, A.Ensures)):
        spans.append(ens.expr.span)
        cname = f"_eg_post_{fn}_{i}"
        _condition(w, cname, ens.expr, decl.params, allow_result=True)
        checks.append(to_python(ens.expr))
        decorators.append(f"@icontract.ensure({cname}, {_desc(req)})")
    w.emit()
    for d in decorators:
        w.emit(d)
    ret = f" -> {_type_text(decl.returns)}" if decl.returns is not None else ""
    w.emit(f"def {fn}({', '.join(f'{n}: {t}' for n, t in params)}){ret}:")
    w.emit(f'"""Requirement {req.id} on {decl.name}."""', 1)
    w.emit(f"return {decl.name}({', '.join(n for n, _ in params)})", 1)
    return Obligation(req.id, "function", fn, params, decl.name, tuple(checks), tuple(pre_ids),
                      check_spans=tuple(spans))


def _requirement(w: _Writer, req: A.Requirement, owner: object, fn: str,
                 pre_reqs: list[A.Requirement]) -> Obligation:
    inf = req.informal
    if inf is not None:
        return Obligation(req.id, "informal", None, reason=f"{inf.category}: {inf.reason}")
    scenarios = [c for c in req.clauses if isinstance(c, A.Scenario)]
    examples = [c for c in req.clauses if isinstance(c, A.Example)]
    ensures = [c for c in req.clauses if isinstance(c, A.Ensures)]
    requires = [c for c in req.clauses if isinstance(c, A.Requires)]
    invariants = [c for c in req.clauses if isinstance(c, A.Invariant)]
    if invariants or isinstance(owner, (A.ClassDecl, A.MethodDecl)):
        span = invariants[0].span if invariants else req.span
        raise UnsupportedConstruct("class invariants and methods", span,
                                   "state them as a scenario over the class for now")
    if len(scenarios) > 1 or (scenarios and (examples or ensures or requires)):
        raise UnsupportedConstruct("a scenario mixed with other clauses", req.span,
                                   "give each scenario its own requirement")
    if scenarios:
        return _scenario(w, req, scenarios[0], fn)
    if examples and not (ensures or requires):
        return _examples(w, req, examples, fn)
    if examples:
        raise UnsupportedConstruct("examples mixed with requires/ensures", req.span,
                                   "give the examples their own requirement")
    if isinstance(owner, A.FunctionDecl):
        if requires and not ensures:
            return Obligation(req.id, "precondition", None)
        return _function(w, req, owner, fn, pre_reqs)
    raise TranslationError(f"requirement {req.id} has no clause to check")  # caught by check_structure


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
    body = _Writer()
    obligations: list[Obligation] = []
    used: set[str] = set()
    pre_by_fn: dict[str, list[A.Requirement]] = {}
    for f in spec.functions:
        pre_by_fn[f.name] = [r for r in f.requirements if r.informal is None and r.clauses and all(
            isinstance(c, A.Requires) for c in r.clauses)]
    for req, owner in spec.all_requirements():
        fn = _ident(req.id, used)
        mark = len(body.lines)
        needed = set(body.target_names)
        body.emit()
        body.emit()
        body.emit(f"# ---- requirement {req.id} ({req.span})")
        try:
            pre = pre_by_fn.get(owner.name, []) if isinstance(owner, A.FunctionDecl) else []
            ob = _requirement(body, req, owner, fn, pre)
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
        "import importlib",
        "import math",
        "from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple, Union",
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
    source = "\n".join(head + body.lines) + "\n"
    return Harness(harness_module, source, target_module, tuple(obligations))
