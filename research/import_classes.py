"""The class part of the Python-contract importers: constructors, inheritance and abstract classes.

:func:`collect_classes` reads a module's top-level classes with a format's readers and returns what
:func:`evalgap.research.import_pycommon.render_module_spec` writes as ``class`` blocks:

* the constructor: an explicit ``__init__``; else a dataclass's fields (``@dataclass``, not ``init=False``,
  the fields of dataclass bases first); else the nearest base class's (within the module);
* inheritance (bases defined in the same module): a class's invariants hold for its subclasses, as icontract,
  deal and CrossHair check them, so each subclass gets its ancestors' invariants; with ``inherit_methods``
  (CrossHair's PEP 316 reading) a method's contracts also apply to the overrides and inherited copies in
  subclasses;
* abstract classes (an ``@abstractmethod`` left without a concrete definition) cannot be instantiated: their
  contracts are checked through every concrete subclass in the module, and an abstract class with none
  keeps its contracts as ``informal omission`` requirements with that reason.
"""

from __future__ import annotations

import ast
from typing import Callable

from evalgap.research.import_pycommon import ClassContracts, ImportedReq, Routine, dotted, signature_of

__all__ = ["collect_classes"]

_FnReader = Callable[[ast.FunctionDef | ast.AsyncFunctionDef, bool], list[ImportedReq]]
_ClsReader = Callable[[ast.ClassDef], list[ImportedReq]]
_Def = ast.FunctionDef | ast.AsyncFunctionDef


def _is_abstract(fn: _Def) -> bool:
    return any(dotted(d).rpartition(".")[2] == "abstractmethod" for d in fn.decorator_list)


def _dataclass_init(node: ast.ClassDef) -> bool | None:
    """True: a dataclass generating ``__init__``; False: a dataclass with ``init=False``; None: no dataclass."""
    for d in node.decorator_list:
        fn = d.func if isinstance(d, ast.Call) else d
        if dotted(fn).rpartition(".")[2] == "dataclass":
            if isinstance(d, ast.Call):
                for k in d.keywords:
                    if k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False:
                        return False
            return True
    return None


def _fields(node: ast.ClassDef) -> list[tuple[str, str]]:
    out = []
    for st in node.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and "ClassVar" not in \
                ast.unparse(st.annotation):
            out.append((st.target.id, ast.unparse(st.annotation).replace(" ", "")))
    return out


def _rename(r: ImportedReq, owner: str, base: str) -> ImportedReq:
    """``r`` as a contract of ``owner`` inherited from ``base`` (the prose says so)."""
    return ImportedReq(r.kind, r.expr, f"{r.prose} (inherited by {owner} from {base})", r.line, r.reason, r.exc,
                       r.source)


def collect_classes(tree: ast.Module, read_fn: _FnReader, read_cls: _ClsReader,
                    inherit_methods: bool = False) -> list[ClassContracts]:
    """The classes of ``tree`` with contracts, their own or inherited (see the module docstring).

    Args:
        tree: the parsed module.
        read_fn: ``(function node, is_method) -> contracts`` of one method.
        read_cls: ``class node -> invariants`` of one class.
        inherit_methods: method contracts apply to subclasses too (CrossHair's PEP 316 reading).

    Returns:
        One :class:`ClassContracts` per class that has (or inherits) method contracts or invariants, in
        source order; abstract classes only when no concrete subclass checks their contracts.
    """
    nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    bases = {name: [b for b in (dotted(x) for x in n.bases) if b in nodes] for name, n in nodes.items()}
    own_invs = {name: read_cls(n) for name, n in nodes.items()}
    defs = {name: {m.name: m for m in n.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
            for name, n in nodes.items()}
    own_reqs = {name: {m: read_fn(fn, True) for m, fn in ds.items()} for name, ds in defs.items()}

    def mro(name: str, seen: tuple[str, ...] = ()) -> list[str]:
        out = [name]
        for b in bases[name]:
            if b not in seen and b != name:
                out += [c for c in mro(b, seen + (name,)) if c not in out]
        return out

    def abstract(name: str) -> bool:
        resolved: dict[str, bool] = {}
        for c in mro(name):
            for m, fn in defs[c].items():
                resolved.setdefault(m, _is_abstract(fn))
        return any(resolved.values())

    def init_of(name: str) -> Routine | None:
        for c in mro(name):
            fn = defs[c].get("__init__")
            if fn is not None:
                params, _ = signature_of(fn, True)
                return Routine("__init__", params, "", ())
            if _dataclass_init(nodes[c]):
                fields = [f for k in reversed(mro(c)) if _dataclass_init(nodes[k]) is not None
                          for f in _fields(nodes[k])]
                return Routine("__init__", tuple(dict(fields).items()), "", ())
        return None

    out: list[ClassContracts] = []
    for name, node in nodes.items():
        line = mro(name)
        invs = [r if c == name else _rename(r, name, c) for c in line for r in own_invs[c]]
        method_names = list(dict.fromkeys(m for c in line for m in defs[c]))
        methods: list[Routine] = []
        for m in method_names:
            where = next(c for c in line if m in defs[c])
            params, ret = signature_of(defs[where][m], True)
            reqs = list(own_reqs[where][m]) if where == name else [_rename(r, name, where) for r in own_reqs[where][m]]
            if inherit_methods:
                reqs += [_rename(r, name, c) for c in line if c != where and m in defs[c] for r in own_reqs[c][m]]
            elif where != name:
                reqs = []
            if reqs or (invs and not m.startswith("_")) or (m == "__init__" and reqs):
                methods.append(Routine(m, params, ret, tuple(reqs)))
        if not invs and not any(r.reqs for r in methods):
            continue
        if abstract(name):
            concrete = [c for c in nodes if c != name and name in mro(c) and not abstract(c)]
            if concrete:
                continue  # checked through each concrete subclass, which holds these contracts
            why = (f"{name} is an abstract class with no concrete subclass in the module: it cannot be "
                   "instantiated to check the contract")
            invs = [ImportedReq(r.kind, "", r.prose, r.line, r.reason or why, r.exc, r.source) for r in invs]
            methods = [Routine(m.name, m.params, m.returns, tuple(
                ImportedReq(r.kind, "", r.prose, r.line, r.reason or why, r.exc, r.source) for r in m.reqs))
                for m in methods]
        out.append(ClassContracts(name, init_of(name), tuple(methods), tuple(invs)))
    return out
