"""Harness parts for model-based requirements: ``model REF [up to N calls]`` on a class.

A model requirement becomes a check function over the constructor's parameters (``init_<name>``), and for
each step ``j`` of the sequence (1..N) a symbolic operation selector ``op<j>: int`` and every compared
method's arguments (``s<j>_<method>_<param>``, the names the invariant harness uses, so the engines build
the same strategies). Step ``j`` runs operation ``op<j> % (K + 1)`` of the K compared operations; the value
``K`` skips the step, so every subsequence of a sequence is itself a sequence of the harness (that is what
lets the verifier shorten a counterexample by replaying it with steps skipped). Each step calls the
implementation's method and the model's operation (a reference class's method of the same name, or the
spec's action on a fresh dict/list value bound to ``model``) and compares the outcomes: both returned equal
values, or both raised, the implementation an instance of the model's exception class. The check function
returns the 1-based index of the first step that differs (0 when all agree) under ``result == 0``. A step
whose arguments break the method's preconditions (its requirements made only of ``requires``) ends the
sequence, as for invariants.

Beside the check function the harness holds ``_eg_trace_<fn>`` (same parameters): it replays the sequence
and returns ``(test, reason, calls)``, a readable pytest test of the calls that ran (``s = KVStore()``,
``s.put('', b'\\x00')``, ``assert s.get('') == b'\\x00'``), the failing step described, and the number of
calls; the verifier runs it in the replay worker for the report's reproducer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.check_model import is_class_ref, model_methods
from evalgap.specs_lang.lower import free_names
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.harness_writer import Writer, domain_for, safe
from evalgap.translators.pyexpr import to_python

if TYPE_CHECKING:
    from evalgap.translators.to_icontract import Obligation

__all__ = ["ModelPlan", "MODEL_RUNTIME", "model_obligation", "uses_models", "dotted_text"]


@dataclass(frozen=True)
class ModelPlan:
    """What the verifier needs to shorten and print a model counterexample.

    Attributes:
        steps: the sequence bound N (calls after construction).
        operations: names of the compared operations, in selector order (``op<j> % (K + 1)``; ``K`` skips).
        trace_function: the harness function returning ``(test, reason, calls)`` for the same arguments.
    """

    steps: int
    operations: tuple[str, ...]
    trace_function: str

    @property
    def skip(self) -> int:
        """The selector value that skips a step."""
        return len(self.operations)


#: Support code of every harness whose spec has a model requirement.
MODEL_RUNTIME: list[str] = [
    "",
    "",
    "def _eg_outcome(thunk: Any) -> Any:",
    '    """(True, value) when ``thunk()`` returns, (False, exception) when it raises an Exception."""',
    "    try:",
    "        return (True, thunk())",
    "    except Exception as _eg_exc:",
    "        return (False, _eg_exc)",
    "",
    "",
    "def _eg_same(impl: Any, model: Any) -> bool:",
    '    """Both returned equal values, or both raised (the implementation an instance of the model\'s class)."""',
    "    if impl[0] and model[0]:",
    "        return bool(impl[1] == model[1])",
    "    if not impl[0] and not model[0]:",
    "        return isinstance(impl[1], type(model[1]))",
    "    return False",
    "",
    "",
    "def _eg_resolve(dotted: str) -> Any:",
    '    """A reference model class: ``module.Class`` imported (the module, never a same-named attribute of the',
    "    target: a target could hand in itself as its reference), else the target module's attribute.\"\"\"",
    "    head, _, rest = dotted.partition('.')",
    "    try:",
    "        try:",
    "            obj = importlib.import_module(head) if rest else getattr(_eg_target, head)",
    "        except ModuleNotFoundError:",
    "            obj = getattr(_eg_target, head)",
    "        for part in rest.split('.') if rest else []:",
    "            obj = getattr(obj, part)",
    "    except Exception:",
    "        return _EgMissing(dotted)",
    "    return obj",
    "",
    "",
    "def _eg_show(outcome: Any) -> str:",
    "    text = repr(outcome[1]) if outcome[0] else f'raised {type(outcome[1]).__name__}({outcome[1]!s:.60})'",
    "    return text if len(text) <= 80 else text[:77] + '...'",
    "",
    "",
    "def _eg_test_line(obj: str, call: str, impl: Any, model: Any) -> list[str]:",
    '    """The pytest lines checking one call against the model\'s outcome."""',
    "    note = '' if _eg_same(impl, model) else f'  # the implementation: {_eg_show(impl)}'",
    "    if not model[0]:",
    "        return [f'with pytest.raises({type(model[1]).__name__}):{note}', f'    {obj}.{call}']",
    "    if model[1] is None and impl[0] and impl[1] is None:",
    "        return [f'{obj}.{call}']",
    "    return [f'assert {obj}.{call} == {model[1]!r}{note}']",
]


def uses_models(spec: A.Spec) -> bool:
    """Whether any class requirement of ``spec`` has a ``model`` clause."""
    return any(isinstance(c, A.Model) for cls in spec.classes for r in cls.requirements for c in r.clauses)


def dotted_text(e: A.Expr) -> str:
    """``a.b.C`` for a dotted name expression."""
    if isinstance(e, A.Attribute):
        return f"{dotted_text(e.value)}.{e.attr}"
    assert isinstance(e, A.Name)
    return e.id


def _action_lines(op: A.ModelOp, class_model: bool) -> list[str]:
    if op.kind == "call":
        if not class_model:
            raise UnsupportedConstruct(f"operation `{op.name}` without an action on a value model", op.span)
        return [f"return model.{op.name}({', '.join(op.params)})"]
    if op.kind == "assign" and op.target is not None and op.value is not None:
        return [f"{to_python(op.target)} = {to_python(op.value)}", "return None"]
    if op.kind == "delete" and op.target is not None:
        return [f"del {to_python(op.target)}", "return None"]
    assert op.value is not None
    return [f"return {to_python(op.value)}"]


def model_obligation(w: Writer, spec: A.Spec, req: A.Requirement, cls: A.ClassDecl, model: A.Model,
                     fn: str) -> "Obligation":
    """Compile a ``model`` requirement on ``cls`` (see the module docstring).

    Raises:
        UnsupportedConstruct: a model with nothing to compare (the checker reports EG226/EG228 first).
    """
    from evalgap.translators.icontract_state import _ctor, _emit_function, _guard, _init_decl, _precondition_reqs
    from evalgap.translators.to_icontract import Obligation

    pairs = model_methods(cls, model)
    if not pairs:
        raise UnsupportedConstruct("a model with no declared method to compare", model.span)
    steps = model.max_calls or A.DEFAULT_MODEL_CALLS
    class_model = is_class_ref(model.ref)
    ctor = tuple(A.Param("init_" + p.name, p.type, p.span) for p in _ctor(cls))
    params: list[A.Param] = list(ctor)
    for j in range(1, steps + 1):
        params.append(A.Param(f"op{j}", A.TypeRef("int")))
        for m, _ in pairs:
            params.extend(A.Param(f"s{j}_{m.name}_{p.name}", p.type, p.span) for p in m.params)
    dom = domain_for(spec, tuple(params))
    w.need({cls.name})
    init_args = ", ".join(p.name for p in ctor)
    if class_model:
        ref = f"_eg_model_cls_{fn}"
        w.emit(f"{ref} = _eg_resolve({dotted_text(model.ref)!r})")
        new_model = f"{ref}({init_args})"
    else:
        w.need(free_names(model.ref))
        new_model = to_python(model.ref)
    for m, op in pairs:
        used = (free_names(op.value) if op.value is not None else set()) | (
            free_names(op.target) if op.target is not None else set())
        w.need(used - {"model", *op.params})
        w.emit()
        w.emit()
        w.emit(f"def _eg_model_{fn}_{safe(m.name)}({', '.join(['model: Any', *op.params])}) -> Any:")
        for line in _action_lines(op, class_model):
            w.emit(line, 1)
    sig = ", ".join(p.name for p in params)
    init = _init_decl(cls)
    k = len(pairs)
    stop = "return (_eg_lines, _eg_calls, 0, '')"
    body = ["_eg_calls = 0", "_eg_lines: list[str] = []"]
    body += [ln.replace("return 0", stop) for ln in _guard(w, init, "init_", False)]
    body += [f"self = {cls.name}({init_args})", f"model = {new_model}", "if _eg_tr:",
             f"    _eg_lines.append('s = {cls.name}(' + ', '.join(map(repr, [{init_args}])) + ')')"]
    for j in range(1, steps + 1):
        body += [f"_eg_op = op{j} % {k + 1}"]
        for i, (m, op) in enumerate(pairs):
            a = ", ".join(f"s{j}_{m.name}_{p.name}" for p in m.params)
            guard = ["    " + ln.replace("return 0", stop) for ln in _guard(w, m, f"s{j}_{m.name}_", True)]
            body += [f"if _eg_op == {i}:", *guard,
                     f"    _eg_a = _eg_outcome(lambda: self.{m.name}({a}))",
                     f"    _eg_b = _eg_outcome(lambda: _eg_model_{fn}_{safe(m.name)}(model{', ' if a else ''}{a}))",
                     "    _eg_calls += 1",
                     "    if _eg_tr:",
                     f"        _eg_call = '{m.name}(' + ', '.join(map(repr, [{a}])) + ')'",
                     "        _eg_lines += _eg_test_line('s', _eg_call, _eg_a, _eg_b)",
                     "    if not _eg_same(_eg_a, _eg_b):",
                     f"        return (_eg_lines, _eg_calls, {j}, '' if not _eg_tr else f'call {{_eg_calls}}, "
                     "s.{_eg_call}: the implementation gives {_eg_show(_eg_a)}, the model {_eg_show(_eg_b)}')"]
    body.append(stop)
    runner = f"_eg_run_{fn}"
    w.emit()
    w.emit()
    w.emit(f"def {runner}(_eg_tr: bool, {sig}) -> Any:")
    w.emit(f'"""Run the sequence of {req.id} on the implementation and the model (``_eg_tr``: record the test)."""', 1)
    for line in body:
        w.emit(line, 1)
    w.emit()
    w.emit()
    trace = f"_eg_trace_{fn}"
    w.emit(f"def {trace}({sig}) -> Any:")
    w.emit('"""(test, reason, calls) of the sequence: a readable pytest test of the calls that ran."""', 1)
    w.emit(f"_eg_lines, _eg_calls, _eg_step, _eg_why = {runner}(True, {sig})", 1)
    w.emit(f"_eg_test = 'def test_{safe(req.id).lower()}_model() -> None:\\n' + "
           "''.join('    ' + ln + '\\n' for ln in _eg_lines)", 1)
    w.emit("return (_eg_test, _eg_why, _eg_calls)", 1)
    _emit_function(w, fn, req, tuple(params), dom, [f"return int({runner}(False, {sig})[2])"],
                   f"Model requirement {req.id} of {cls.name}: up to {steps} calls against the model.")
    checks = tuple(f"call {j} gives the model's result or exception" for j in range(1, steps + 1))
    what = "a reference class" if class_model else "a dict/list model"
    bounds = (f"call sequence: at most {steps} calls of {', '.join(m.name for m, _ in pairs)} after construction, "
              f"compared with {what} (longer sequences are not explored)",)
    pre_ids = [r.id for mm in [init, *(m for m, _ in pairs)] for r in _precondition_reqs(mm)]
    plan = ModelPlan(steps, tuple(m.name for m, _ in pairs), trace)
    return Obligation(req.id, "scenario", fn, tuple((p.name, str(p.type)) for p in params), cls.name, checks,
                      tuple(dom.assumption_texts + pre_ids), check_spans=(model.span,) * steps, bounds=bounds,
                      model=plan)
