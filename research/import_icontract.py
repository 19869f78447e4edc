"""``evalgap import icontract``: icontract decorators of a Python module, read statically, into a ``.req``.

Read (icontract 2.x, https://icontract.readthedocs.io): ``@icontract.require(condition, description)``,
``@icontract.ensure(condition, description)``, ``@icontract.snapshot(capture, name=...)`` on functions and
methods, ``@icontract.invariant(condition, description)`` on classes, whether written ``icontract.X``, through
an alias (``import icontract as ic``) or imported by name (``from icontract import require``). The module is
parsed with :mod:`ast`, never imported.

Mapping:

* ``require`` -> ``requires COND``; with ``error=EXC`` (a class, or a call building one) icontract raises
  ``EXC`` instead of ``ViolationError`` when the condition is false, which is stated as
  ``raises EXC when not (COND)``;
* ``ensure`` -> ``ensures COND`` with lambda parameter ``result`` -> ``result`` and ``OLD.x`` -> ``old(x)``
  (``old(EXPR)`` when a ``snapshot`` named ``x`` captures ``EXPR``);
* ``invariant`` -> a class ``invariant COND`` (the lambda's parameter is ``self``).

icontract binds condition parameters by name, so a lambda parameter must be a parameter of the function (or
``result``/``OLD``); one that is not, a non-lambda condition, or a construct outside the spec language gives
an ``informal omission`` requirement with the reason. The description becomes the prose; without one the
prose names the decorator and its source line.
"""

from __future__ import annotations

import ast
from pathlib import Path

from evalgap.research.import_pycommon import (ImportedReq, ModuleContracts, Untranslatable, collect, const_str, dotted,
                                              invariant_req, lambda_of, lambda_params, parse_module, signature_of,
                                              translate_condition)

__all__ = ["read_icontract"]

_KINDS = ("require", "ensure", "invariant", "snapshot")


def _names(tree: ast.Module) -> dict[str, str]:
    """Local dotted name -> icontract decorator kind."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "icontract":
                    for k in _KINDS:
                        out[f"{a.asname or 'icontract'}.{k}"] = k
        elif isinstance(node, ast.ImportFrom) and node.module == "icontract":
            for a in node.names:
                if a.name in _KINDS:
                    out[a.asname or a.name] = a.name
    return out


def _arg(call: ast.Call, pos: int, kw: str) -> ast.expr | None:
    if len(call.args) > pos:
        return call.args[pos]
    return next((k.value for k in call.keywords if k.arg == kw), None)


def _error_name(call: ast.Call) -> str:
    node = next((k.value for k in call.keywords if k.arg == "error"), None)
    if node is None:
        return ""
    if isinstance(node, ast.Call):
        node = node.func
    return dotted(node)


class _Reader:
    def __init__(self, tree: ast.Module, file: str) -> None:
        self.names, self.file = _names(tree), file

    def _kind(self, dec: ast.expr) -> tuple[str, ast.Call] | None:
        if isinstance(dec, ast.Call):
            kind = self.names.get(dotted(dec.func))
            if kind:
                return kind, dec
        return None

    def _prose(self, kind: str, call: ast.Call, owner: str) -> str:
        desc = const_str(_arg(call, 1, "description"))
        return desc or f"icontract {kind} of {owner} at {self.file}:{call.lineno}: {ast.unparse(call.args[0]) if call.args else ''}"

    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[ImportedReq]:
        params = [p for p, _ in signature_of(fn, method)[0]]
        snaps: dict[str, ast.expr] = {}
        found = [kc for kc in (self._kind(d) for d in fn.decorator_list) if kc is not None]
        for kind, call in found:
            if kind == "snapshot":
                try:
                    lam = lambda_of(_arg(call, 0, "capture"), "snapshot")
                except Untranslatable:
                    continue  # an OLD.name that uses it is reported untranslatable below
                name = const_str(_arg(call, 1, "name")) or (lambda_params(lam) or [""])[0]
                snaps[name] = lam.body
        reqs: list[ImportedReq] = []
        # decorators apply bottom-up, but icontract checks every precondition; report in source order
        for kind, call in found:
            if kind in ("require", "ensure"):
                reqs.append(self._one(kind, call, fn.name, params, method, snaps))
        return reqs

    def _one(self, kind: str, call: ast.Call, owner: str, params: list[str], method: bool,
             snaps: dict[str, ast.expr]) -> ImportedReq:
        prose = self._prose(kind, call, owner)
        src = ast.unparse(call)
        spec_kind = "requires" if kind == "require" else "ensures"
        try:
            lam = lambda_of(_arg(call, 0, "condition"), f"{kind}")
            allowed = set(params) | ({"self"} if method else set()) | ({"result", "OLD"} if kind == "ensure" else set())
            bad = [p for p in lambda_params(lam) if p not in allowed]
            if bad:
                raise Untranslatable(f"lambda parameter(s) {', '.join(bad)} are not parameters of {owner}")
            if kind == "ensure" and "OLD" not in lambda_params(lam):
                snaps = {}
            expr = translate_condition(lam.body, {}, "OLD" if kind == "ensure" else "", snaps)
            unknown_old = [a.attr for a in ast.walk(lam.body) if isinstance(a, ast.Attribute)
                           and isinstance(a.value, ast.Name) and a.value.id == "OLD"
                           and a.attr not in snaps and a.attr not in params]
            if unknown_old:
                raise Untranslatable(f"OLD.{unknown_old[0]} names no snapshot and no parameter")
        except Untranslatable as exc:
            return ImportedReq(spec_kind, "", prose, call.lineno, str(exc), source=src)
        exc_name = _error_name(call) if kind == "require" else ""
        if exc_name:
            return ImportedReq("raises", f"not ({expr})", prose, call.lineno, exc=exc_name, source=src)
        return ImportedReq(spec_kind, expr, prose, call.lineno, source=src)

    def klass(self, cls: ast.ClassDef) -> list[ImportedReq]:
        out = []
        for dec in cls.decorator_list:
            k = self._kind(dec)
            if not k or k[0] != "invariant":
                continue
            call = k[1]
            prose = self._prose("invariant", call, cls.name)
            out.append(invariant_req(_arg(call, 0, "condition"), "invariant", prose, call.lineno, ast.unparse(call)))
        return out


def read_icontract(src: Path) -> ModuleContracts:
    """The icontract contracts of the module at ``src`` (parsed, never imported).

    Raises:
        ResearchError: the file is missing or not valid Python.
    """
    tree = parse_module(src)
    r = _Reader(tree, src.name)
    return collect(tree, r.function, r.klass)
