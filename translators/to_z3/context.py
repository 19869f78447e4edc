"""What every Z3 model of a spec shares: record schemas, ``def`` helpers, top-level ``let`` values,
``assume`` declarations, and the constraints that type narrowings (``int in 0..10``, ``len 1..5``,
``str digits``) put on a value."""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.pyexpr import free_names
from evalgap.translators.to_z3.expr import FuncSig, Helper, Translator
from evalgap.translators.to_z3.types import RecordSchema, Ty, field_accessor, ty_from_ref
from evalgap.translators.to_z3.values import Val

__all__ = ["SpecContext", "spec_context", "narrowing", "calls_name"]


def calls_name(node: object, name: str) -> bool:
    """True when ``node`` contains a call of ``name``."""
    if isinstance(node, A.Call) and isinstance(node.func, A.Name) and node.func.id == name:
        return True
    if isinstance(node, (tuple, list)):
        return any(calls_name(x, name) for x in node)
    fields: dict[str, object] = getattr(node, "__dataclass_fields__", None) or {}
    return any(calls_name(getattr(node, f), name) for f in fields if f != "span")


@dataclass
class SpecContext:
    """Shared declarations of a spec in Z3 form.

    Attributes:
        records: record schemas by name.
        helpers: ``def`` helpers by name (a helper whose types are outside the fragment is absent, and
            ``problems`` says why).
        lets: top-level ``let`` values (translated lazily: a ``let`` outside the fragment is absent).
        functions: target functions as uninterpreted functions.
        assumptions: the spec's ``assume`` declarations.
    """

    records: dict[str, RecordSchema]
    helpers: dict[str, Helper]
    lets: dict[str, Val]
    functions: dict[str, FuncSig]
    assumptions: tuple[A.Assume, ...]
    problems: dict[str, str] = field(default_factory=dict)
    recfuns: dict[str, z3.FuncDeclRef] = field(default_factory=dict)

    def translator(self, env: dict[str, Val]) -> Translator:
        """A translator over ``env`` plus the top-level lets, with the helpers and functions."""
        t = Translator({**self.lets, **env}, self.functions, self.helpers, globals=dict(self.lets))
        t._recfuns = self.recfuns  # one Z3 recursive function per helper, shared by every requirement
        return t

    def assumes_for(self, names: set[str]) -> list[A.Assume]:
        """The ``assume`` declarations whose free names are all bound by ``names`` (or lets)."""
        out = []
        for a in self.assumptions:
            free = free_names(a.expr) - set(self.lets) - set(self.helpers) - {"len", "abs", "min", "max", "sum",
                                                                                "all", "any", "range", "set"}
            if free and free <= names:
                out.append(a)
        return out


def spec_context(spec: A.Spec) -> SpecContext:
    """Collect and translate the shared declarations of ``spec`` (never raises for a construct outside
    the fragment: the declaration is left out and ``problems`` names it)."""
    from evalgap.translators.to_z3.spec import function_sigs

    records = {r.name: RecordSchema(r.name, tuple((p.name, p.type) for p in r.fields))
               for r in getattr(spec, "records", ())}
    ctx = SpecContext(records, {}, {}, function_sigs(spec, records), tuple(getattr(spec, "assumptions", ())))
    for d in getattr(spec, "defs", ()):
        try:
            params = tuple((p.name, ty_from_ref(p.type, records)) for p in d.params)
            ctx.helpers[d.name] = Helper(d.name, params, ty_from_ref(d.returns, records), d.body,
                                         recursive=calls_name(d.body, d.name))
        except UnsupportedConstruct as exc:
            ctx.problems[d.name] = f"not in the Z3 fragment: {exc.construct}"
    for let in getattr(spec, "lets", ()):
        try:
            ctx.lets[let.name] = ctx.translator({}).expr(let.value)
        except UnsupportedConstruct as exc:
            ctx.problems[let.name] = f"not in the Z3 fragment: {exc.construct}"
    return ctx


def narrowing(ref: A.TypeRef, ty: Ty, term: z3.ExprRef) -> list[z3.BoolRef]:
    """Constraints from a type's narrowings: ``range`` on the value, ``length`` on ``len()``, ``alphabet``
    on a string's characters, recursively into list elements and record fields."""
    out: list[z3.BoolRef] = []
    rng = getattr(ref, "range", None)
    if rng is not None and ty.kind in ("int", "real"):
        out += [term >= rng.lo, term <= rng.hi]
    length = getattr(ref, "length", None)
    if length is not None and ty.kind in ("seq", "str"):
        out += [z3.Length(term) >= int(length.lo), z3.Length(term) <= int(length.hi)]
    alpha = getattr(ref, "alphabet", None)
    if alpha is not None and ty.kind == "str" and alpha.chars:
        chars = z3.Union(*[z3.Re(z3.StringVal(c)) for c in sorted(set(alpha.chars))])
        out.append(z3.InRe(term, z3.Star(chars)))
    if ty.kind == "seq" and ref.args and getattr(ref.args[0], "narrowed", False):
        i = z3.FreshInt("i")
        inner = narrowing(ref.args[0], ty.args[0], term[i])
        if inner:
            out.append(z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < z3.Length(term)), z3.And(*inner))))
    return out


def record_narrowing(ctx: SpecContext, ty: Ty, term: z3.ExprRef) -> list[z3.BoolRef]:
    """Narrowings declared on the fields of a record-typed value."""
    if ty.kind != "record" or ty.name not in ctx.records:
        return []
    out: list[z3.BoolRef] = []
    for i, (fname, fref) in enumerate(ctx.records[ty.name].fields):
        out += narrowing(fref, ty.args[i], field_accessor(ty, i)(term))
    return out
