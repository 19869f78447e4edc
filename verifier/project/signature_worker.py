"""Worker process: import a target module and write its top-level signatures as JSON.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker` (the target's import-time code is untrusted).
Request keys: ``paths`` (prepended to ``sys.path``), ``module``. Result: the
:meth:`evalgap.specs_lang.signatures.ModuleSig.to_json` form, or ``{"error": ...}``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import linecache
import sys
import traceback
from typing import Any

from evalgap.verifier.sandbox import channel


def _fn(name: str, obj: Any, drop_self: bool) -> dict[str, Any]:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return {"name": name, "params": [["args", "VAR_POSITIONAL", False], ["kwargs", "VAR_KEYWORD", False]]}
    params = list(sig.parameters.values())
    if drop_self and params and params[0].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                   inspect.Parameter.POSITIONAL_OR_KEYWORD):
        params = params[1:]
    return {"name": name, "params": [[p.name, p.kind.name, p.default is not inspect.Parameter.empty]
                                     for p in params]}


_FILE_CLASSES: dict[str, dict[str, list[ast.ClassDef]]] = {}


def _class_defs(klass: type) -> list[ast.ClassDef]:
    """The ``class`` statements that define ``klass`` (by qualified name) in its source file, the file parsed
    once for all its classes: :func:`inspect.getsource` parses the whole file again for every class, which
    made reading a module of n classes take time in n squared. Empty when the source is unavailable."""
    try:
        filename = inspect.getsourcefile(klass)
    except TypeError:
        return []
    if filename is None:
        return []
    if filename not in _FILE_CLASSES:
        found: dict[str, list[ast.ClassDef]] = {}
        try:
            lines = linecache.getlines(filename, vars(sys.modules[klass.__module__]))
            tree = ast.parse("".join(lines))
        except (KeyError, SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])

        def visit(body: list[ast.stmt], prefix: str) -> None:
            for node in body:
                if isinstance(node, ast.ClassDef):
                    found.setdefault(prefix + node.name, []).append(node)
                    visit(node.body, f"{prefix}{node.name}.")
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(node.body, f"{prefix}{node.name}.<locals>.")
                elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                    for part in ("body", "orelse", "finalbody"):
                        visit(getattr(node, part, []), prefix)
                    for handler in getattr(node, "handlers", []):
                        visit(handler.body, prefix)

        visit(tree.body, "")
        _FILE_CLASSES[filename] = found
    return _FILE_CLASSES[filename].get(klass.__qualname__, [])


def _instance_attributes(cls: type) -> tuple[set[str], bool]:
    """``self.X`` assignments in the class's source; True as second item when the source is unavailable
    or the class defines ``__getattr__`` (then any attribute may exist)."""
    open_attrs = "__getattr__" in vars(cls) or "__getattribute__" in vars(cls)
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is object:
            continue
        trees = _class_defs(klass)
        if not trees:
            open_attrs = True
            continue
        for node in (n for tree in trees for n in ast.walk(tree)):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                        names.add(sub.attr)
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)  # dataclass fields
        names |= set(getattr(klass, "__slots__", ()) or ())
    return names, open_attrs


def _class(name: str, cls: type) -> dict[str, Any]:
    methods, attrs = {}, set()
    # special methods count when a class of the target's hierarchy defines them (an abstract ``__eq__`` a
    # spec states a contract on), not the ones every object inherits
    own_dunders = {a for k in cls.__mro__ if k is not object and k.__module__ != "builtins" for a in vars(k)
                   if a.startswith("__") and a not in ("__init__", "__new__") and inspect.isfunction(vars(k)[a])}
    for attr in dir(cls):
        if attr.startswith("__") and attr not in own_dunders:
            continue
        value = inspect.getattr_static(cls, attr)
        if isinstance(value, (staticmethod, classmethod)):
            methods[attr] = _fn(attr, getattr(cls, attr), drop_self=False)
        elif inspect.isfunction(value):
            methods[attr] = _fn(attr, value, drop_self=True)
        else:
            attrs.add(attr)
    inst, open_attrs = _instance_attributes(cls)
    init = _fn("__init__", cls, drop_self=False)
    init["name"] = name
    return {"name": name, "init": init, "methods": methods, "attributes": sorted(attrs | inst),
            "open_attributes": open_attrs}


def main(argv: list[str]) -> int:
    """Read one module's signatures (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    try:
        mod = importlib.import_module(req["module"])
        functions, classes, names = {}, {}, []
        # a copy: reading a signature can import a submodule, which adds its name to the package (pydash)
        for name, value in list(vars(mod).items()):
            if name.startswith("__"):
                continue
            if inspect.isclass(value):
                classes[name] = _class(name, value)
            elif callable(value) and not inspect.ismodule(value):
                functions[name] = _fn(name, value, drop_self=False)
            else:
                names.append(name)
        return {"module": req["module"], "functions": functions, "classes": classes, "names": sorted(names)}
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
