"""``config`` blocks in Z3 form: the schema's fields, the rules, and a concrete configuration (a parsed
JSON/YAML/TOML document) as values with one Z3 variable per scalar leaf, for checking and repair.

A concrete configuration keeps its shape (list lengths, which records exist) and lets every scalar leaf
vary: leaf ``datasets[0].retention_days`` is a variable whose original value is 90. A rule ``forall d in
datasets: ...`` over a concrete list expands into one conjunct per element, so the violated elements can
be named.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

import z3

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import TranslationError, UnsupportedConstruct
from evalgap.translators.pyexpr import to_python
from evalgap.translators.to_z3.context import SpecContext, narrowing, record_narrowing, spec_context
from evalgap.translators.to_z3.spec import antecedent_sites
from evalgap.translators.to_z3.types import BOOL, INT, REAL, Ty, constructor, sort_of, ty_from_ref
from evalgap.translators.to_z3.values import Val, seq_of

__all__ = ["ConfigModel", "ConfigRule", "Leaf", "ConfigDataError", "build_config_model"]


class ConfigDataError(TranslationError):
    """The configuration document does not match the config's schema (the message names the path)."""


@dataclass(frozen=True)
class Leaf:
    """One scalar of a concrete configuration: ``path`` (``datasets[0].retention_days``), its type, the Z3
    variable standing for it, the original value from the file, and the narrowing ``bounds`` on it."""

    path: str
    ty: Ty
    var: z3.ExprRef
    original: Any
    bounds: tuple[z3.BoolRef, ...] = ()

    def original_term(self) -> z3.ExprRef:
        """The original value as a Z3 constant."""
        return _const(self.ty, self.original)


@dataclass(frozen=True)
class ConfigRule:
    """One requirement of a config: ``formula`` (None with ``unsupported`` when not translated) and, for a
    top-level ``forall`` over a concrete list, one ``(element path, formula)`` per element; ``notes`` are
    the approximations made (floats as reals)."""

    id: str
    prose: str
    text: str
    formula: z3.BoolRef | None
    elements: tuple[tuple[str, z3.BoolRef], ...] = ()
    unsupported: str | None = None
    role: str = "rule"
    notes: tuple[str, ...] = ()
    antecedents: tuple[tuple[str, z3.BoolRef], ...] = ()


@dataclass(frozen=True)
class ConfigModel:
    """A config block with (optionally) a concrete configuration.

    Attributes:
        name, title: the config's.
        fields: ``(name, type, value)`` per schema field.
        rules: one per requirement (and per applicable ``assume``, role ``assume``).
        leaves: the scalars of the concrete configuration (empty when symbolic).
        axioms: narrowings of the schema's types (``int in 0..3650``) over the fields.
    """

    name: str
    title: str
    fields: tuple[tuple[str, Ty, Val], ...]
    rules: tuple[ConfigRule, ...]
    leaves: tuple[Leaf, ...] = ()
    axioms: tuple[z3.BoolRef, ...] = ()


def _const(ty: Ty, v: Any) -> z3.ExprRef:
    if ty == BOOL:
        return z3.BoolVal(bool(v))
    if ty == INT:
        return z3.IntVal(int(v))
    if ty == REAL:
        return z3.RealVal(Fraction(v))
    return z3.StringVal(str(v))


def _check_scalar(ty: Ty, v: Any, path: str) -> None:
    ok = {"bool": isinstance(v, bool), "int": isinstance(v, int) and not isinstance(v, bool),
          "real": isinstance(v, (int, float)) and not isinstance(v, bool), "str": isinstance(v, str)}[ty.kind]
    if not ok:
        raise ConfigDataError(f"{path}: expected {ty}, got {v!r}")


def _value(ty: Ty, ref: A.TypeRef | None, data: Any, path: str, leaves: list[Leaf], ctx: SpecContext) -> Val:
    if ty.kind in ("bool", "int", "real", "str"):
        _check_scalar(ty, data, path)
        var = z3.Const(path, sort_of(ty))
        bounds = tuple(narrowing(ref, ty, var)) if ref is not None else ()
        leaves.append(Leaf(path, ty, var, data, bounds))
        return Val(ty, var)
    if ty.kind == "seq":
        if not isinstance(data, list):
            raise ConfigDataError(f"{path}: expected a list, got {type(data).__name__}")
        inner = ref.args[0] if ref is not None and ref.args else None
        elems = tuple(_value(ty.args[0], inner, x, f"{path}[{i}]", leaves, ctx) for i, x in enumerate(data))
        return Val(ty, seq_of(ty, elems), elems)
    if ty.kind == "record":
        if not isinstance(data, dict):
            raise ConfigDataError(f"{path}: expected a {ty.name} object, got {type(data).__name__}")
        missing = [f for f in ty.fields if f not in data]
        if missing:
            raise ConfigDataError(f"{path}: missing field(s) {', '.join(missing)} of {ty.name}")
        refs = dict(ctx.records[ty.name].fields)
        vals = [_value(a, refs.get(f), data[f], f"{path}.{f}", leaves, ctx) for f, a in zip(ty.fields, ty.args)]
        return Val(ty, constructor(ty)(*[v.term for v in vals]))
    raise UnsupportedConstruct(f"config field of type {ty}", A.NOSPAN)


def _rule(req: A.Requirement, env: dict[str, Val], ctx: SpecContext, lets: tuple[A.Let, ...]) -> ConfigRule:
    if req.informal is not None:
        return ConfigRule(req.id, req.prose, "", None, role="informal")
    exprs = [c.expr for c in req.clauses if isinstance(c, (A.Rule, A.Requires, A.Ensures, A.Invariant))]
    text = " and ".join(to_python(e) for e in exprs)
    t = ctx.translator(dict(env))
    try:
        for let in lets:
            t.let(let.name, let.value)
        formula_parts = []
        elements: list[tuple[str, z3.BoolRef]] = []
        sites: list[tuple[str, z3.BoolRef]] = []
        for c in req.clauses:
            if isinstance(c, A.Let):
                t.let(c.name, c.value)
                continue
            if not isinstance(c, (A.Rule, A.Requires, A.Ensures, A.Invariant)):
                raise UnsupportedConstruct(f"{type(c).__name__.lower()} clause in a config", c.span)
            formula_parts.append(t.formula(c.expr))
            elements += _elements(t, c.expr, z3.BoolVal(True))
            sites += [(to_python(x), t.formula(x)) for x in antecedent_sites(c.expr)]
        return ConfigRule(req.id, req.prose, text, z3.And(*formula_parts), tuple(elements), notes=tuple(t.notes),
                          antecedents=tuple(sites))
    except UnsupportedConstruct as exc:
        return ConfigRule(req.id, req.prose, text, None, unsupported=f"not in the Z3 fragment: {exc.construct}")


def _elements(t: Any, e: A.Expr, guard: z3.BoolRef) -> list[tuple[str, z3.BoolRef]]:
    """Per-element conditions of ``forall x in FIELD: body`` over a concrete list, also under ``and`` and on
    the right of ``==>`` (so the offending elements of a violated rule can be named)."""
    if isinstance(e, A.BoolOp) and e.op == "and":
        return [x for v in e.values for x in _elements(t, v, guard)]
    if isinstance(e, A.Implies):
        return _elements(t, e.right, z3.And(guard, t.formula(e.left)))
    if isinstance(e, A.Quantifier) and e.kind == "forall" and isinstance(e.domain, A.Name) and len(e.targets) == 1:
        dom = t.env.get(e.domain.id)
        if dom is not None and dom.elems is not None:
            return [(f"{e.domain.id}[{i}]", z3.Implies(guard, t.closed_body({**t.env, e.targets[0]: el}, e.body)))
                    for i, el in enumerate(dom.elems)]
    return []


def build_config_model(spec: A.Spec, config: A.ConfigDecl, data: Mapping[str, Any] | None = None,
                       ctx: SpecContext | None = None) -> ConfigModel:
    """The Z3 model of ``config``, symbolic (``data`` None) or over a concrete configuration.

    Args:
        spec: the spec holding the config (records, helpers, lets, assumptions).
        config: the ``config`` block.
        data: the parsed configuration document (a mapping with one entry per schema field).
        ctx: shared declarations (built when None).

    Raises:
        ConfigDataError: ``data`` misses a field or has a value of the wrong type (the path is named).
        UnsupportedConstruct: a schema field type outside the fragment (dicts, bytes ...).
    """
    ctx = ctx or spec_context(spec)
    fields: list[tuple[str, Ty, Val]] = []
    leaves: list[Leaf] = []
    axioms: list[z3.BoolRef] = []
    for p in config.schema:
        ty = ty_from_ref(p.type, ctx.records)
        if data is None:
            c = z3.Const(p.name, sort_of(ty))
            fields.append((p.name, ty, Val(ty, c)))
            axioms += narrowing(p.type, ty, c) + record_narrowing(ctx, ty, c)
            if ty.kind == "seq" and ty.args[0].kind == "record":
                i = z3.FreshInt("i")
                inner = record_narrowing(ctx, ty.args[0], c[i])
                if inner:
                    axioms.append(z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < z3.Length(c)), z3.And(*inner))))
        else:
            if p.name not in data:
                raise ConfigDataError(f"{p.name}: missing (the schema of config {config.name} requires it)")
            fields.append((p.name, ty, _value(ty, p.type, data[p.name], p.name, leaves, ctx)))
    axioms += [b for leaf in leaves for b in leaf.bounds]
    env = {n: v for n, _, v in fields}
    rules = [ConfigRule(a.id, a.prose, to_python(a.expr), r.formula, unsupported=r.unsupported, role="assume")
             for a in ctx.assumes_for(set(env))
             for r in [_rule(A.Requirement(a.id, a.prose, (A.Rule(a.expr, a.span),), a.span), env, ctx, ())]]
    rules += [_rule(r, env, ctx, config.lets) for r in config.requirements]
    return ConfigModel(config.name, config.title, tuple(fields), tuple(rules), tuple(leaves), tuple(axioms))
