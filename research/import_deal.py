"""``evalgap import deal``: deal decorators of a Python module, read statically, into a ``.req``.

Read (deal 4.x, https://deal.readthedocs.io): ``@deal.pre``, ``@deal.post``, ``@deal.ensure``,
``@deal.raises``, ``@deal.reason`` on functions and methods, ``@deal.inv`` on classes, and any other
``deal.X`` decorator (``safe``, ``pure``, ``has``, ...), written ``deal.X``, through an alias or imported by
name; ``deal.chain(...)`` of contracts, also through a module-level variable (``contract = deal.chain(...)``,
``@contract``), stands for its contracts. The module is parsed with :mod:`ast`, never imported.

Mapping (deal calls validators with the function's arguments, positionally as the call gave them, so a
validator's parameters map to the function's **by position**):

* ``pre(lambda a, b: C)`` -> ``requires C``; with ``exception=EXC`` deal raises ``EXC`` when ``C`` is false,
  stated as ``raises EXC when not (C)``;
* ``post(lambda r: C)`` -> ``ensures C`` with the validator's one parameter -> ``result``;
* ``ensure(lambda a, b, result: C)`` -> ``ensures C`` (arguments by position, ``result`` by name);
* the namespace form ``pre(lambda _: C)``/``ensure(lambda _: C)``: ``_.x`` and ``_["x"]`` are parameter ``x``,
  ``_.result`` is ``result``;
* ``inv(lambda obj: C)`` -> class ``invariant C`` with the parameter -> ``self``;
* ``raises(E1, ...)`` (an allow-list: the function may raise only these) -> ``may raise E1, ...`` on every
  ``ensures`` requirement of the function, and a requirement of its own, ``ensures True`` with that
  ``may raise`` (no other exception escapes);
* ``reason(E, lambda ...: C)`` (when ``E`` is raised, ``C`` held: a *necessary* condition, while the spec
  language's ``raises E when C`` states a *sufficient* one), ``safe``, ``pure``, ``has`` and the rest ->
  ``informal omission`` with that reason.
  ``raises E when ...`` is written only where the condition of raising is stated (``pre(..., exception=E)``).

The ``message`` becomes the prose; without one the prose names the decorator and its source line.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

from evalgap.research.import_pycommon import (ImportedReq, ModuleContracts, Untranslatable, allow_exceptions, collect,
                                              const_str, dotted,
                                              invariant_req, lambda_of, lambda_params, parse_module, signature_of,
                                              translate_condition)

__all__ = ["read_deal"]

_INFORMAL = {
    "reason": "deal.reason states a condition that holds whenever the exception is raised (a necessary "
              "condition); `raises EXC when CONDITION` would state a sufficient one, a different requirement",
    "safe": "deal.safe (the function raises no exception) has no counterpart in the spec language",
    "pure": "deal.pure (no side effects and no exceptions) has no counterpart in the spec language",
    "has": "deal.has (the side effects the function may have) has no counterpart in the spec language",
}


def _names(tree: ast.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "deal":
                    out[a.asname or "deal"] = "*"
        elif isinstance(node, ast.ImportFrom) and node.module == "deal":
            for a in node.names:
                out[a.asname or a.name] = a.name
    return out


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


class _Namespace(ast.NodeTransformer):
    """deal's one-parameter validator ``lambda _: ...``: ``_.x`` and ``_["x"]`` -> parameter ``x``
    (``_.result`` -> ``result`` in ``deal.ensure``); any other use of ``_`` is :class:`Untranslatable`."""

    def __init__(self, params: list[str], with_result: bool) -> None:
        self.names = set(params) | ({"result"} if with_result else set())

    def _field(self, name: str | None) -> ast.Name:
        if name is None or name not in self.names:
            raise Untranslatable(f"`_` (deal's namespace of the arguments) has no field {name!r}")
        return ast.Name(name, ast.Load())

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "_":
            return self._field(node.attr)
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "_":
            return self._field(const_str(node.slice))
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == "_":
            raise Untranslatable("uses `_` (deal's namespace of the arguments) other than as `_.NAME` or "
                                 "`_[\"NAME\"]`")
        return node


class _Reader:
    def __init__(self, tree: ast.Module, file: str) -> None:
        self.names, self.file = _names(tree), file
        #: module-level ``NAME = deal.chain(...)`` (or another deal contract) assignments, by name
        self.bound: dict[str, ast.expr] = {
            t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}

    def _expand(self, dec: ast.expr, depth: int = 0) -> list[ast.expr]:
        """The contract decorators ``dec`` stands for: ``deal.chain(a, b)`` is ``a`` and ``b``, and a name
        bound at module level to a contract is that contract (deal's "move contracts into a variable")."""
        if isinstance(dec, ast.Name) and dec.id in self.bound and dec.id not in self.names and depth < 5:
            return self._expand(self.bound[dec.id], depth + 1)
        k = self._kind(dec)
        if k and k[0] == "chain" and isinstance(dec, ast.Call) and depth < 5:
            return [d for a in dec.args for d in self._expand(a, depth + 1)]
        return [dec]

    def _kind(self, dec: ast.expr) -> tuple[str, ast.expr] | None:
        fn = dec.func if isinstance(dec, ast.Call) else dec
        name = dotted(fn)
        head, _, attr = name.rpartition(".")
        if head and self.names.get(head) == "*":
            return attr, dec
        if not head and name in self.names:
            return self.names[name], dec
        return None

    def _prose(self, kind: str, dec: ast.expr, owner: str, msg: ast.expr | None) -> str:
        return const_str(msg) or f"deal.{kind} of {owner} at {self.file}:{dec.lineno}: {ast.unparse(dec)}"

    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[ImportedReq]:
        params = [p for p, _ in signature_of(fn, method)[0]]
        if method:
            params = ["self", *params]  # deal passes self to a method's validators
        out = []
        allowed: tuple[str, ...] = ()
        for dec in (d for top in fn.decorator_list for d in self._expand(top)):
            k = self._kind(dec)
            if k and k[0] == "raises":
                req = self._raises(k[1], fn.name)
                allowed += req.may_raise
                out.append(req)
            elif k:
                out.append(self._one(k[0], k[1], fn.name, params))
        return allow_exceptions(out, allowed)

    def _raises(self, dec: ast.expr, owner: str) -> ImportedReq:
        """``deal.raises(E1, ...)``: the allow-list on its own (``ensures True`` with ``may raise E1, ...``: no
        other exception escapes); the caller adds the same ``may raise`` to the function's other ``ensures``."""
        prose = self._prose("raises", dec, owner, None)
        src = ast.unparse(dec)
        args = dec.args if isinstance(dec, ast.Call) and not dec.keywords else None
        names = tuple(dotted(a) for a in args or ())
        if not names or not all(names):
            return ImportedReq("ensures", "", prose, dec.lineno, "deal.raises lists exception classes by name; this "
                               "one names none, or something other than a class name", source=src)
        return ImportedReq("ensures", "True", prose, dec.lineno, source=src, may_raise=names)

    def _one(self, kind: str, dec: ast.expr, owner: str, params: list[str]) -> ImportedReq:
        call = dec if isinstance(dec, ast.Call) else None
        msg = _kw(call, "message") if call else None
        if call and msg is None and len(call.args) > 1 and kind in ("pre", "post", "ensure"):
            msg = call.args[1]
        prose = self._prose(kind, dec, owner, msg)
        src = ast.unparse(dec)
        spec_kind = {"pre": "requires", "post": "ensures", "ensure": "ensures"}.get(kind, "requires")
        if kind not in ("pre", "post", "ensure"):
            why = _INFORMAL.get(kind, f"deal.{kind} has no counterpart in the spec language")
            return ImportedReq(spec_kind, "", prose, dec.lineno, why, source=src)
        try:
            assert call is not None
            lam = lambda_of(call.args[0] if call.args else _kw(call, "validator"), f"deal.{kind}")
            ps = lambda_params(lam)
            if kind in ("pre", "ensure") and ps == ["_"]:
                # deal's namespace form: one parameter `_` holding every argument (and the result)
                body = _Namespace(params, kind == "ensure").visit(ast.Expression(copy.deepcopy(lam.body))).body
                return self._done(kind, call, spec_kind, prose, dec.lineno, translate_condition(body, {}), src)
            if kind == "post":
                if len(ps) != 1:
                    raise Untranslatable("a deal.post validator takes exactly one parameter (the result)")
                rename = {ps[0]: "result"}
            else:
                args = [p for p in ps if not (kind == "ensure" and p == "result")]
                if len(args) > len(params):
                    raise Untranslatable(f"the validator takes {len(args)} argument(s), {owner} has {len(params)}")
                rename = dict(zip(args, params))
                if kind == "ensure":
                    rename["result"] = "result"
            expr = translate_condition(lam.body, rename)
        except Untranslatable as exc:
            return ImportedReq(spec_kind, "", prose, dec.lineno, str(exc), source=src)
        return self._done(kind, call, spec_kind, prose, dec.lineno, expr, src)

    def _done(self, kind: str, call: ast.Call, spec_kind: str, prose: str, lineno: int, expr: str,
              src: str) -> ImportedReq:
        """The requirement of a translated condition (``raises`` when deal.pre names an exception)."""
        exc_node = _kw(call, "exception") if kind == "pre" else None
        if exc_node is not None:
            exc_name = dotted(exc_node.func if isinstance(exc_node, ast.Call) else exc_node)
            if not exc_name:
                return ImportedReq(spec_kind, "", prose, lineno,
                                   f"the exception `{ast.unparse(exc_node)}` is not a class name", source=src)
            return ImportedReq("raises", f"not ({expr})", prose, lineno, exc=exc_name, source=src)
        return ImportedReq(spec_kind, expr, prose, lineno, source=src)

    def klass(self, cls: ast.ClassDef) -> list[ImportedReq]:
        out = []
        for dec in cls.decorator_list:
            k = self._kind(dec)
            if not k:
                continue
            kind, node = k
            call = node if isinstance(node, ast.Call) else None
            prose = self._prose(kind, node, cls.name, _kw(call, "message") if call else None)
            if kind != "inv" or call is None:
                out.append(ImportedReq("invariant", "", prose, node.lineno,
                                       f"deal.{kind} on a class has no counterpart in the spec language",
                                       source=ast.unparse(node)))
                continue
            out.append(invariant_req(call.args[0] if call.args else _kw(call, "validator"), "deal.inv", prose,
                                     node.lineno, ast.unparse(node)))
        return out


def read_deal(src: Path) -> ModuleContracts:
    """The deal contracts of the module at ``src`` (parsed, never imported).

    Raises:
        ResearchError: the file is missing or not valid Python.
    """
    tree = parse_module(src)
    r = _Reader(tree, src.name)
    return collect(tree, r.function, r.klass)
