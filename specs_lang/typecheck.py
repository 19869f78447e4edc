"""Name resolution and type checks of a spec, against the target's real signatures (codes EG2xx).

The target's signatures arrive as data (:class:`~evalgap.specs_lang.signatures.ModuleSig`) from the caller;
nothing here imports the target. Without signatures, names of the target are not resolved (only the
spec's own names, builtins and types are checked).

Types are inferred just far enough to catch the common mistakes: comparing a list to an int, ``len`` of an
int, adding a str to an int, a non-boolean clause. An unknown type never produces a diagnostic.
"""

from __future__ import annotations

import builtins
from typing import cast

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.check_model import check_model_types
from evalgap.specs_lang.typecheck_calls import arity_problems
from evalgap.specs_lang.typecheck_stdlib import STDLIB_MODULES, control_flow, stdlib_attribute
from evalgap.specs_lang.errors import Diagnostic
from evalgap.specs_lang.signatures import ClassSig, FunctionSig, ModuleSig
from evalgap.specs_lang.diagnostics import (BAD_CALL_ARGUMENTS, IMPURE_CALL, NOT_A_TRUTH_VALUE,
                                            NO_SUCH_TARGET_MEMBER, OLD_OUTSIDE_POST, RESULT_OUTSIDE_POST,
                                            SIGNATURE_MISMATCH, STUB_UNKNOWN_NAME, TYPE_MISMATCH, UNDEFINED_NAME,
                                            UNKNOWN_ATTRIBUTE, UNKNOWN_TYPE)

__all__ = ["check_names", "PURE_BUILTINS", "IMPURE_BUILTINS"]

from evalgap.specs_lang.typecheck_base import (_BUILTIN_RETURNS, _EXCEPTIONS, _SEQ, _SIMPLE, _TYPING, ANY, BOOL,
                                               IMPURE_BUILTINS, INT, PURE_BUILTINS, Ty, _a, _children, _Ctx,
                                               _family, _head, _psig, _show, binop_result, suggest)


class _Checker:
    def __init__(self, spec: A.Spec, sigs: ModuleSig | None) -> None:
        self.spec, self.sigs, self.out = spec, sigs, list[Diagnostic]()
        self.records = {r.name: r for r in spec.records}
        self.defs = {d.name: d for d in spec.defs}
        self.lets: dict[str, Ty] = {}
        self.declared = {f.name: f for f in spec.functions}

    # ------------------------------------------------------------------ helpers
    def diag(self, code: str, span: A.Span, msg: str, hint: str | None = None) -> None:
        self.out.append(Diagnostic(code, span, msg, hint))

    suggest = staticmethod(suggest)

    def type_of(self, t: A.TypeRef | None, report: bool = True) -> Ty:
        if t is None:
            return ANY
        base = t.name.split(".")[-1] if "." in t.name else t.name
        if base in _SIMPLE:
            return _SIMPLE[base]
        if base in _SEQ:
            kind = _SEQ[base]
            args = [self.type_of(a, report) for a in t.args]
            if kind == "dict":
                return ("dict", args[0] if args else ANY, args[1] if len(args) > 1 else ANY)
            if kind == "tuple":
                return ("tuple",)
            return (kind, args[0] if args else ANY)
        for a in t.args:
            self.type_of(a, report)
        if base in _TYPING:
            return ANY
        if t.name in self.records:
            return ("rec", t.name)
        if self.sigs is not None:
            if t.name in self.sigs.classes:
                return ("obj", t.name)
            if "." not in t.name and t.name not in self.sigs.all_names() and report:
                known = list(_SIMPLE) + list(_SEQ) + list(self.records) + list(self.sigs.classes)
                self.diag(UNKNOWN_TYPE, t.span, f"unknown type `{t.name}`", self.suggest(t.name, known))
        return ANY

    def visible(self, ctx: _Ctx) -> set[str]:
        names = {"math"} | set(ctx.scope) | set(self.lets) | set(self.defs) | set(self.records) | PURE_BUILTINS | STDLIB_MODULES
        if self.sigs is not None:
            names |= self.sigs.all_names()
        return names

    # ------------------------------------------------------------------ expressions
    def expr(self, e: A.Expr, ctx: _Ctx) -> Ty:  # noqa: C901 - one dispatch over the expression nodes
        if isinstance(e, A.Name):
            return self.name(e, ctx)
        if isinstance(e, A.Const):
            return _SIMPLE.get(type(e.value).__name__, ("None",) if e.value is None else ANY)
        if isinstance(e, A.Old):
            if not ctx.allow_old:
                self.diag(OLD_OUTSIDE_POST, e.span, f"`old()` in {ctx.where}",
                          "`old(EXPR)` is the value before the call: use it only in `ensures`")
            return self.expr(e.expr, _Ctx(ctx.scope, False, False, ctx.where))
        if isinstance(e, A.BinOp):
            return self.binop(e, self.expr(e.left, ctx), self.expr(e.right, ctx))
        if isinstance(e, A.UnaryOp):
            t = self.expr(e.operand, ctx)
            if _family(t) not in (None, "number"):
                self.diag(TYPE_MISMATCH, e.span, f"unary `{e.op}` of a {_show(t)}")
            return t if t[0] in ("int", "float") else (INT if t == BOOL else ANY)
        if isinstance(e, (A.BoolOp, A.Not, A.Implies, A.Iff)):
            for sub in _children(e):
                self.expr(sub, ctx)
            if isinstance(e, A.BoolOp):
                return BOOL if all(self.quiet(v, ctx) == BOOL for v in e.values) else ANY
            return BOOL
        if isinstance(e, A.Compare):
            return self.compare(e, ctx)
        if isinstance(e, A.IfExp):
            self.expr(e.test, ctx)
            a, b = self.expr(e.body, ctx), self.expr(e.orelse, ctx)
            return a if a == b else ANY
        if isinstance(e, A.Call):
            return self.call(e, ctx)
        if isinstance(e, A.Attribute):
            return self.attribute(e, self.expr(e.value, ctx))
        if isinstance(e, A.Subscript):
            return self.subscript(e, ctx)
        if isinstance(e, (A.ListExpr, A.SetExpr)):
            elts = [self.expr(x, ctx) for x in e.elts]
            elem = elts[0] if elts and all(t == elts[0] for t in elts) else ANY
            return ("list" if isinstance(e, A.ListExpr) else "set", elem)
        if isinstance(e, A.TupleExpr):
            for x in e.elts:
                self.expr(x, ctx)
            return ("tuple",)
        if isinstance(e, A.DictExpr):
            ks = [self.expr(k, ctx) for k in e.keys]
            vs = [self.expr(v, ctx) for v in e.values]
            return ("dict", ks[0] if ks else ANY, vs[0] if vs else ANY)
        if isinstance(e, (A.Comprehension, A.Quantifier)):
            return self.binder(e, ctx)
        return ANY

    def quiet(self, e: A.Expr, ctx: _Ctx) -> Ty:
        saved = len(self.out)
        t = self.expr(e, ctx)
        del self.out[saved:]
        return t

    def name(self, e: A.Name, ctx: _Ctx) -> Ty:
        n = e.id
        if n in ctx.scope:
            return ctx.scope[n]
        if n == "result":
            self.diag(RESULT_OUTSIDE_POST, e.span, f"`result` in {ctx.where}",
                      "the result exists only after the call: use it in `ensures`")
            return ANY
        if n in self.lets:
            return self.lets[n]
        if n in self.defs:
            return ("def", n)
        if n in self.records:
            return ("record_type", n)
        if n in PURE_BUILTINS:
            return ("builtin", n)
        if n in STDLIB_MODULES:
            return ("module", n)
        if n in _EXCEPTIONS or n in ("math", "True", "False", "None"):
            return ANY
        if n in IMPURE_BUILTINS:
            self.diag(IMPURE_CALL, e.span, f"`{n}` is not a pure builtin", "spec expressions must not have effects")
            return ANY
        if hasattr(builtins, n):  # any other builtin (issubclass, Ellipsis, ...) is allowed
            return ANY
        if self.sigs is not None:
            if n in self.sigs.functions:
                return ("tfn", n)
            if n in self.sigs.classes:
                return ("tcls", n)
            if n in self.sigs.names:
                return ANY
            self.diag(UNDEFINED_NAME, e.span, f"name `{n}` is not defined in the spec or the target",
                      self.suggest(n, self.visible(ctx)))
            return ANY
        if n in self.declared:
            return ANY
        known = set(ctx.scope) | set(self.lets) | set(self.defs)
        if n == "self":
            self.diag(UNDEFINED_NAME, e.span, "`self` outside a class", "use `self` in a method or class invariant")
        elif n[:1].islower() and self.suggest(n, known) and n not in dir(builtins):
            # without the target's names only a near-miss of a spec name is reported
            self.diag(UNDEFINED_NAME, e.span, f"name `{n}` is not defined in the spec", self.suggest(n, known))
        return ANY

    def binop(self, e: A.BinOp, a: Ty, b: Ty) -> Ty:
        out = binop_result(e.op, a, b)
        if out is None:
            self.diag(TYPE_MISMATCH, e.span, f"`{e.op}` between {_show(a)} and {_show(b)} raises TypeError")
            return ANY
        return out

    def compare(self, e: A.Compare, ctx: _Ctx) -> Ty:
        left = self.expr(e.left, ctx)
        for op, comp in zip(e.ops, e.comparators):
            right = self.expr(comp, ctx)
            fa, fb = _family(left), _family(right)
            if op in ("in", "not in"):
                if fb in ("number", "None"):
                    self.diag(TYPE_MISMATCH, e.span, f"`{op}` over a {_show(right)}, which is not a container")
            elif fa is not None and fb is not None and fa != fb and "None" not in (fa, fb):
                if op in ("==", "!="):
                    always = "False" if op == "==" else "True"
                    self.diag(TYPE_MISMATCH, e.span, f"comparing {_show(left)} to {_show(right)} is always {always}")
                elif op in ("<", ">", "<=", ">="):
                    self.diag(TYPE_MISMATCH, e.span, f"`{op}` between {_show(left)} and {_show(right)} raises TypeError")
            left = right
        return BOOL

    def subscript(self, e: A.Subscript, ctx: _Ctx) -> Ty:
        base = self.expr(e.value, ctx)
        if isinstance(e.index, A.Slice):
            for part in (e.index.lower, e.index.upper, e.index.step):
                if part is not None:
                    self.expr(part, ctx)
            return base
        idx = self.expr(e.index, ctx)
        if _family(base) in ("number", "None", "set"):
            self.diag(TYPE_MISMATCH, e.span, f"a {_show(base)} cannot be indexed")
            return ANY
        if base[0] == "list":
            if _family(idx) not in (None, "number"):
                self.diag(TYPE_MISMATCH, e.index.span, f"list index is a {_show(idx)}, not an int")
            return base[1] if len(base) > 1 else ANY
        if base[0] == "dict":
            return cast(Ty, base[2])
        if base[0] in ("str", "bytes"):
            return base if base[0] == "str" else INT
        return ANY

    def binder(self, e: A.Comprehension | A.Quantifier, ctx: _Ctx) -> Ty:
        dom = e.iter if isinstance(e, A.Comprehension) else e.domain
        dt = self.expr(dom, ctx)
        if _family(dt) in ("number", "None"):
            self.diag(TYPE_MISMATCH, dom.span, f"iterating over a {_show(dt)}", "use range(n) to iterate over 0..n-1")
        elem = dt[1] if dt[0] in ("list", "set") and len(dt) > 1 else (dt if dt[0] == "str" else ANY)
        if len(e.targets) > 1 and (_family(elem) == "number" or elem[0] == "str"):
            names = ", ".join(e.targets)
            self.diag(TYPE_MISMATCH, dom.span, f"each element is of type {_show(elem)}: it cannot be unpacked into {names}",
                      f"several names unpack each element (as in Python); to range over pairs, nest: "
                      f"`exists {e.targets[0]} in ...: exists {e.targets[1]} in ...: ...`")
        inner = dict(ctx.scope)
        for t in e.targets:
            inner[t] = elem if len(e.targets) == 1 else ANY
        sub = _Ctx(inner, ctx.allow_result, ctx.allow_old, ctx.where)
        if isinstance(e, A.Quantifier):
            self.truth(e.body, sub, "the body of a quantifier")
            return BOOL
        for c in e.conds:
            self.expr(c, sub)
        elt = self.expr(e.elt, sub)
        return ("list", elt) if e.kind == "list" else (("set", elt) if e.kind == "set" else ANY)

    def attribute(self, e: A.Attribute, base: Ty) -> Ty:
        if (std := stdlib_attribute(self, e, base)) is not None:
            return std
        if base[0] == "rec":
            rec = self.records[str(base[1])]
            for f in rec.fields:
                if f.name == e.attr:
                    return self.type_of(f.type, report=False)
            self.diag(UNKNOWN_ATTRIBUTE, e.span, f"record `{rec.name}` has no field `{e.attr}`",
                      self.suggest(e.attr, [f.name for f in rec.fields]))
            return ANY
        if base[0] == "obj" and self.sigs is not None:
            cls = self.sigs.classes.get(str(base[1]))
            if cls is None:
                return ANY
            if e.attr in cls.methods:
                return ("method", cls.name, e.attr)
            if e.attr not in cls.attributes and not cls.open_attributes:
                self.diag(UNKNOWN_ATTRIBUTE, e.span, f"`{cls.name}` has no attribute `{e.attr}`",
                          self.suggest(e.attr, cls.members()))
            return ANY
        return ANY

    def call(self, e: A.Call, ctx: _Ctx) -> Ty:
        f = self.expr(e.func, ctx)
        args = [self.expr(a, ctx) for a in e.args]
        for k in e.keywords:
            self.expr(k.value, ctx)
        kind = f[0]
        if kind == "stdfn":
            return f[1]  # type: ignore[no-any-return]
        if kind == "builtin":
            name = str(f[1])
            if name == "len" and args and _family(args[0]) in ("number", "None"):
                self.diag(TYPE_MISMATCH, e.span, f"`len` of {_a(_show(args[0]))}", "len needs a str, bytes or collection")
            if name in ("sum", "min", "max", "sorted", "all", "any", "set", "list") and args:
                if _family(args[0]) in ("number", "None") and len(args) == 1:
                    self.diag(TYPE_MISMATCH, e.span, f"`{name}` of a {_show(args[0])}, which is not iterable")
            if name in ("sorted", "list") and args and args[0][0] in ("list", "set"):
                return ("list", args[0][1])
            if name == "set" and args and args[0][0] in ("list", "set"):
                return ("set", args[0][1])
            if name in ("min", "max") and len(args) == 1 and args[0][0] in ("list", "set"):
                return args[0][1]  # type: ignore[no-any-return]
            if name == "abs" and args:
                return args[0]
            if name == "sum" and args and args[0][0] in ("list", "set"):
                return args[0][1] if _family(args[0][1]) == "number" else ANY
            return _BUILTIN_RETURNS.get(name, ANY)
        if kind == "def":
            d = self.defs[str(f[1])]
            self.arity(e, FunctionSig(d.name, tuple(_psig(p) for p in d.params)), "helper")
            return self.type_of(d.returns, report=False)
        if kind == "record_type":
            rec = self.records[str(f[1])]
            self.arity(e, FunctionSig(rec.name, tuple(_psig(p) for p in rec.fields)), "record")
            return ("rec", rec.name)
        if kind == "tfn" and self.sigs is not None:
            self.arity(e, self.sigs.functions[str(f[1])], "function")
            decl = self.declared.get(str(f[1]))
            return self.type_of(decl.returns, report=False) if decl else ANY
        if kind == "tcls" and self.sigs is not None:
            cls = self.sigs.classes[str(f[1])]
            self.arity(e, cls.init, "class")
            return ("obj", cls.name)
        if kind == "method" and self.sigs is not None:
            cls2: ClassSig = self.sigs.classes[str(f[1])]
            self.arity(e, cls2.methods[str(f[2])], "method")
        return ANY

    def arity(self, e: A.Call, sig: FunctionSig, what: str) -> None:
        for span, msg, unknown in arity_problems(e, sig, what):
            self.diag(BAD_CALL_ARGUMENTS, span, msg,
                      self.suggest(unknown, [p.name for p in sig.params]) if unknown else None)

    def truth(self, e: A.Expr, ctx: _Ctx, what: str) -> None:
        t = self.expr(e, ctx)
        if _family(t) is not None and t != BOOL:
            shown = _show(t)
            self.diag(NOT_A_TRUTH_VALUE, e.span, f"{what} is {'an' if shown[:1] in 'aeiou' else 'a'} {shown}, not a truth value",
                      "state a condition, e.g. with a comparison")

    # ------------------------------------------------------------------ declarations
    def exception(self, name: str, span: A.Span) -> None:
        head = name.split(".")[0]
        if head in _EXCEPTIONS or head in self.records:
            return
        if self.sigs is not None and head not in self.sigs.all_names():
            self.diag(UNDEFINED_NAME, span, f"exception `{name}` is not a builtin exception nor defined in the target",
                      self.suggest(head, list(_EXCEPTIONS) + list(self.sigs.all_names())))

    def params(self, params: tuple[A.Param, ...]) -> dict[str, Ty]:
        return {p.name: self.type_of(p.type) for p in params}

    def target_function(self, decl: A.FunctionDecl | A.MethodDecl, sig: FunctionSig | None, owner: str) -> None:
        if sig is None:
            return
        target_names = [p.name for p in sig.params if p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
        has_var = any(p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD") for p in sig.params)
        for i, p in enumerate(decl.params):
            if p.name in target_names or has_var:
                continue
            expected = target_names[i] if i < len(target_names) else None
            hint = f"did you mean `{expected}`?" if expected else self.suggest(p.name, target_names)
            self.diag(SIGNATURE_MISMATCH, p.span, f"parameter `{p.name}` of {owner}: the target defines {sig.describe()}", hint)
        declared = {p.name for p in decl.params}
        missing = [p.name for p in sig.positional() if not p.has_default and p.name not in declared]
        if missing and len(decl.params) < len(sig.positional()):
            kw = "function" if isinstance(decl, A.FunctionDecl) else "method"
            self.diag(SIGNATURE_MISMATCH, _head(decl.span, kw, decl.name), f"{owner} declares {len(decl.params)} parameter"
                      f"{'s' if len(decl.params) != 1 else ''}, the target's {sig.describe()} requires "
                      f"{', '.join(f'`{m}`' for m in missing)}", "declare every parameter of the target function")

    def clauses(self, req: A.Requirement, scope: dict[str, Ty], in_function: bool, result: Ty) -> None:
        scope = dict(scope)
        for c in req.clauses:
            if isinstance(c, A.Let):
                let_scope = {**scope, "result": result} if in_function else scope
                scope[c.name] = self.expr(c.value, _Ctx(let_scope, in_function, in_function, "a let"))
            elif isinstance(c, A.Requires):
                self.truth(c.expr, _Ctx(scope, False, False, "a precondition"), "the precondition")
            elif isinstance(c, A.Ensures):
                self.truth(c.expr, _Ctx({**scope, "result": result}, True, True, "a postcondition"),
                           "the postcondition")
            elif isinstance(c, A.Raises):
                self.exception(c.exception, _head(c.span, "raises", c.exception))
                self.truth(c.when, _Ctx(scope, False, False, "a `raises ... when` condition"), "the condition")
            elif isinstance(c, A.MayRaise):
                for exc in c.exceptions:
                    self.exception(exc, c.span)
            elif isinstance(c, A.Invariant):
                self.truth(c.expr, _Ctx(scope, False, False, "an invariant"), "the invariant")
            elif isinstance(c, A.Rule):
                self.truth(c.expr, _Ctx(scope, False, False, "a config rule"), "the rule")
            elif isinstance(c, A.Example):
                self.truth(c.expr, _Ctx(dict(scope), False, False, "an example"), "the example")
            elif isinstance(c, A.Scenario):
                self.scenario(c, scope)
            elif isinstance(c, A.SameRows):  # the calls' arguments (the call names are the target's functions)
                self.stmts(tuple(A.ExprStmt(a, a.span) for s in (*c.steps, c.query) for a in s.args), dict(scope))

    def scenario(self, sc: A.Scenario, outer: dict[str, Ty]) -> None:
        self.stmts(sc.body, {**outer, **self.params(sc.params)})

    def stmts(self, body: tuple[A.Stmt, ...], scope: dict[str, Ty]) -> None:
        for st in body:
            ctx = _Ctx(scope, False, False, "a scenario")
            if isinstance(st, A.Assign):
                t = self.expr(st.value, ctx)
                for name in st.targets:
                    scope[name] = t if len(st.targets) == 1 else ANY
            elif isinstance(st, A.ExprStmt):
                self.expr(st.value, ctx)
            elif isinstance(st, A.Expect):
                self.truth(st.value, ctx, "the expectation")
            elif isinstance(st, A.ExpectRaises):
                self.exception(st.exception, _head(st.span, "expect raises", st.exception))
                self.expr(st.call, ctx)
            else:
                control_flow(self, st, ctx)

    def run(self) -> list[Diagnostic]:
        spec, sigs = self.spec, self.sigs
        for lt in spec.lets:
            self.lets[lt.name] = self.expr(lt.value, _Ctx(where="a let"))
        for d in spec.defs:
            ctx = _Ctx(self.params(d.params), where=f"helper `{d.name}`")
            self.expr(d.body, ctx)
            self.type_of(d.returns)
        for r in spec.records:
            self.params(r.fields)
        for a in spec.assumptions:
            self.quiet(a.expr, _Ctx())  # free names refer to parameters wherever the assumption applies
        for f in spec.functions:
            fsig = sigs.functions.get(f.name) if sigs else None
            if sigs is not None and fsig is None:
                where = "a class" if f.name in sigs.classes else "a function"
                self.diag(NO_SUCH_TARGET_MEMBER, _head(f.span, "function", f.name), f"the target defines no function `{f.name}`" +
                          (f" (it is {where})" if f.name in sigs.classes else ""),
                          self.suggest(f.name, sigs.functions))
            self.target_function(f, fsig, f"function {f.name}")
            scope = self.params(f.params)
            result = self.type_of(f.returns)
            for fr in f.requirements:
                self.clauses(fr, scope, True, result)
        for c in spec.classes:
            csig = sigs.classes.get(c.name) if sigs else None
            if sigs is not None and csig is None:
                self.diag(NO_SUCH_TARGET_MEMBER, _head(c.span, "class", c.name), f"the target defines no class `{c.name}`", self.suggest(c.name, sigs.classes))
            self_ty: Ty = ("obj", c.name) if csig else ANY
            for cr in c.requirements:
                self.clauses(cr, {"self": self_ty}, False, ANY)
            check_model_types(c, lambda e, sc: self.expr(e, _Ctx(sc, where="a model operation")), self.params, ANY)
            for m in c.methods:
                msig = None
                if csig is not None:
                    msig = csig.init if m.name == "__init__" else csig.methods.get(m.name)
                    if msig is None:
                        self.diag(NO_SUCH_TARGET_MEMBER, _head(m.span, "method", m.name), f"class `{c.name}` of the target has no method `{m.name}`",
                                  self.suggest(m.name, csig.methods))
                self.target_function(m, msig, f"method {c.name}.{m.name}")
                scope = {"self": self_ty, **self.params(m.params)}
                for mr in m.requirements:
                    self.clauses(mr, scope, True, self.type_of(m.returns))
        for cf in (*spec.configs, *spec.databases):
            scope = self.params(cf.schema)
            for lt in cf.lets:
                scope[lt.name] = self.expr(lt.value, _Ctx(scope, where="a let"))
            for cfr in cf.requirements:
                self.clauses(cfr, scope, False, ANY)
        for tr in spec.requirements:
            self.clauses(tr, {}, False, ANY)
        for st in spec.stubs:
            self.params(st.params)
            self.type_of(st.returns)
            for o in st.outcomes:
                if o.kind == "raises" and o.exception:
                    self.exception(o.exception, o.span)
            if sigs is not None and st.name.split(".")[0] not in sigs.all_names():
                self.diag(STUB_UNKNOWN_NAME, _head(st.span, "stub", st.name), f"stub `{st.name}`: the target defines no `{st.name.split('.')[0]}`",
                          self.suggest(st.name.split(".")[0], sigs.all_names()))
        return self.out


def check_names(spec: A.Spec, signatures: ModuleSig | None = None) -> list[Diagnostic]:
    """Resolve every name of ``spec`` and type-check its expressions.

    Args:
        spec: a parsed spec.
        signatures: the target's signatures (from the caller's provider, e.g.
            :func:`evalgap.verifier.project.signatures.target_signatures`); None checks only the spec's own names.

    Returns:
        The diagnostics (EG204, EG206, EG207, EG211-EG219, EG222), in source order; empty when all is well.
    """
    out = _Checker(spec, signatures).run()
    uniq: dict[tuple[str, int, int, str], Diagnostic] = {}
    for d in out:
        uniq.setdefault((d.code, d.span.line, d.span.col, d.message), d)
    return sorted(uniq.values(), key=lambda d: (d.span.file, d.span.line, d.span.col))
