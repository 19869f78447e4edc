"""Loading a generated harness in a worker so that the code under check cannot rewrite it on the way in.

A harness (``evalgap_harness_*.py``, written by the parent process) imports the target module near its top and
then defines its check functions, whose annotations and contracts are evaluated as they are defined. Imported
with :func:`importlib.import_module`, two things of the target's could change it before the tamper check's
snapshot of the harness is taken:

* a finder or loader the target put in ``sys.meta_path`` / ``sys.path_hooks`` (it could run its own code before
  the harness's, e.g. bind ``int = bool`` in the harness's globals so that ``def check(n: int)`` gives
  CrossHair a ``bool`` to explore, or load another file altogether);
* the target's own code running while the harness executes (its import, a module ``__getattr__``, a finalizer),
  writing names into the harness's globals or rebinding the ones imported before it (``icontract``).

:func:`load_harness` therefore imports the target first (its import-time code runs then, before the harness),
loads what the harness imports before that, executes the harness's source itself (read from its file in the harness folder: no finder or loader is
consulted), with the garbage collector paused, and then checks that the harness's globals hold only the names
its own source binds, with every imported name the module it names. Anything else is reported through ``flag``
(the run becomes ``unknown (tampered)``). :class:`evalgap.verifier.sandbox.channel.Channel` binds this module's
functions when it is imported, before any target code, and watches it.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import importlib
import importlib.util
import marshal
import os
import sys
import types
from typing import Any, Callable

__all__ = ["load_harness", "harness_names", "write_prepared"]

_DUNDERS = frozenset({"__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__", "__cached__",
                      "__builtins__", "__annotations__"})
_MISSING = object()


def _stores(node: ast.AST, out: set[str]) -> None:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.add(sub.id)
        elif isinstance(sub, ast.Global):
            out.update(sub.names)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(sub.name)
        elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "exec" and sub.args
              and isinstance(sub.args[0], ast.Call) and sub.args[0].args
              and isinstance(sub.args[0].args[0], ast.Constant) and isinstance(sub.args[0].args[0].value, str)):
            # exec(compile('<source>', ...)) at the top: the stand-ins the harness defines from a string
            try:
                _stores(ast.parse(sub.args[0].args[0].value), out)
            except SyntaxError:  # never for a harness evalgap wrote; its names then count as unexpected
                pass


def harness_names(source: str) -> tuple[frozenset[str], tuple[tuple[str, str, str | None], ...]]:
    """The names a harness's top level binds, and its imports.

    Args:
        source: the harness's Python source.

    Returns:
        ``(names, imports)``: every name the source can bind at module level (assignments, definitions,
        imports, ``global`` statements, the top-level ``exec(compile('...'))`` of stand-ins), and one
        ``(bound name, module, attribute or None)`` per imported name (``import a.b`` binds ``a`` to module
        ``a``; ``from m import x as y`` binds ``y`` to ``m.x``).

    Raises:
        SyntaxError: the source does not parse.
    """
    tree = ast.parse(source)
    names: set[str] = set()
    imports: list[tuple[str, str, str | None]] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                bound = a.asname or a.name.split(".")[0]
                imports.append((bound, a.name if a.asname else a.name.split(".")[0], None))
                names.add(bound)
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            for a in stmt.names:
                if a.name != "*":
                    imports.append((a.asname or a.name, stmt.module, a.name))
                    names.add(a.asname or a.name)
        else:
            _stores(stmt, names)
    return frozenset(names), tuple(imports)


def _target_bindings(source: str) -> tuple[tuple[str, str, bool], ...]:
    """``(bound name, attribute, declared)`` of every top-level ``NAME = getattr(_eg_target, 'ATTR', ...)`` of
    a harness: the target's functions and classes as the harness binds them; ``declared`` when the default is
    ``_EgMissing(...)`` (a function or class the spec declares), not a fallback such as typing's ``List``, and
    the name is in no annotation of the harness."""
    out = []
    tree = ast.parse(source)
    # a name in a type position of the harness (a check function's `x: Optional[int]`) is read by CrossHair to
    # make its inputs: a declared class may not replace it there (the other engines read the spec's type)
    typed = {n.id for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for a in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs, f.args.vararg, f.args.kwarg)
             if a is not None and a.annotation is not None
             for n in ast.walk(a.annotation) if isinstance(n, ast.Name)}
    typed |= {n.id for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              and f.returns is not None for n in ast.walk(f.returns) if isinstance(n, ast.Name)}
    typed |= {n.id for st in ast.walk(tree) if isinstance(st, ast.AnnAssign)
              for n in ast.walk(st.annotation) if isinstance(n, ast.Name)}
    for stmt in tree.body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
                and stmt.value.func.id == "getattr" and len(stmt.value.args) >= 2
                and isinstance(stmt.value.args[0], ast.Name) and stmt.value.args[0].id == "_eg_target"
                and isinstance(stmt.value.args[1], ast.Constant) and isinstance(stmt.value.args[1].value, str)):
            default = stmt.value.args[2] if len(stmt.value.args) > 2 else None
            declared = (isinstance(default, ast.Call) and isinstance(default.func, ast.Name)
                        and default.func.id == "_EgMissing" and stmt.targets[0].id not in typed)
            out.append((stmt.targets[0].id, stmt.value.args[1].value, declared))
    return tuple(out)


def _model_refs(source: str) -> tuple[tuple[str, str], ...]:
    """``(bound name, dotted reference)`` of every top-level ``NAME = _eg_resolve('module.Class')`` of a
    harness: the reference models of ``model`` requirements."""
    out = []
    for stmt in ast.parse(source).body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
                and stmt.value.func.id == "_eg_resolve" and len(stmt.value.args) == 1
                and isinstance(stmt.value.args[0], ast.Constant) and isinstance(stmt.value.args[0].value, str)):
            out.append((stmt.targets[0].id, stmt.value.args[0].value))
    return tuple(out)


def _target_of(tree_source: str) -> str | None:
    """The module the harness checks: its ``_EG_TARGET = '...'`` (None when it has none)."""
    for stmt in ast.parse(tree_source).body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id == "_EG_TARGET" and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)):
            return stmt.value.value
    return None


_PREPARED = ".prepared"  # beside NAME.py: what load_harness computes from the source, computed by the parent


def _facts(source: str, path: str) -> tuple[Any, ...]:
    """What :func:`load_harness` reads from a harness's source: its names and imports, its target, the
    target's bindings, and its compiled code."""
    names, imports = harness_names(source)
    return (names, imports, _target_of(source), _target_bindings(source), compile(source, path, "exec"),
            _model_refs(source))


def write_prepared(folder: str | os.PathLike[str], name: str, source: str) -> None:
    """In the parent, after writing ``folder/name.py`` with ``source``: write what every job would otherwise
    compute from it again (three parses and a compilation: ~10 ms a job for a 20-requirement harness), keyed by
    the source's hash, as ``name.prepared`` (``marshal``; the same interpreter reads it). A job uses it only
    when the hash matches the ``.py`` it reads; the harness folder is the parent's and no job can write it.

    Nothing is written when ``source`` does not compile (each job then reports that, as before) or the file
    cannot be written (each job computes the facts itself).
    """
    path = os.path.join(os.fspath(folder), f"{name}.py")
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    try:
        blob = marshal.dumps((digest, *_facts(source, path)))
        with open(os.path.join(os.fspath(folder), f"{name}{_PREPARED}"), "wb") as fh:
            fh.write(blob)
    except (SyntaxError, ValueError, OSError):
        return


def _prepared(folder: str, name: str, source: str, path: str, _open: Any = open, _loads: Any = marshal.loads,
              _sha: Any = hashlib.sha256) -> tuple[Any, ...]:
    try:
        with _open(os.path.join(folder, f"{name}{_PREPARED}"), "rb") as fh:
            held = _loads(fh.read())
        if held[0] == _sha(source.encode("utf-8")).hexdigest():
            return tuple(held[1:])
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        pass
    return _facts(source, path)


def _read_models(models: tuple[tuple[str, str], ...], target: str | None, _import: Any = importlib.import_module,
                 _getattr: Any = getattr) -> dict[str, tuple[str, Any, Any, Any]]:
    """Each reference model class (``model reference_store.KVStore``) as its module defines it, read before the
    target runs: a target that rebinds the reference class to itself at import time is seen afterwards."""
    wants = {}
    for bound, dotted in models:
        head, _, rest = dotted.partition(".")
        if not rest or head == target:
            continue
        try:
            module = obj = _import(head)
            for part in rest.split("."):
                obj = _getattr(obj, part)
        except Exception:  # noqa: BLE001 - not importable now: the harness reports the model missing
            continue
        wants[bound] = (dotted, obj, _contents(module), _contents(obj))
    return wants


def _contents(obj: Any) -> tuple[tuple[str, Any, Any], ...]:
    """``(name, value, code)`` of every entry of ``obj``'s namespace (a module's or a class's, and its bases'
    defined in the same module): what a target could patch in place without replacing the class object (a
    method, a helper function, a function's ``__code__``)."""
    spaces = [obj] + [b for b in getattr(obj, "__mro__", ())[1:]
                      if getattr(b, "__module__", None) == getattr(obj, "__module__", "")]
    out = []
    for space in spaces:
        try:
            items = list(vars(space).items())
        except TypeError:
            continue
        for k, v in items:
            fn = getattr(v, "__func__", v)
            out.append((k, v, getattr(fn, "__code__", None)))
    return tuple(out)


def _changed(before: tuple[tuple[str, Any, Any], ...], obj: Any) -> str | None:
    """The first entry of ``before`` (:func:`_contents`) that ``obj`` no longer holds as it was."""
    now = {k: (v, c) for k, v, c in _contents(obj)}
    for k, v, c in before:
        held = now.get(k)
        if held is None or held[0] is not v or held[1] is not c:
            return k
    return None


#: ``(dotted reference, class, module)`` of each reference model the last :func:`load_harness` checked: the
#: channel watches them for the rest of the job (a target that patches the reference while it runs)
MODELS: list[tuple[str, Any, Any]] = []

#: (folder, harness name) -> what :func:`read_models_early` read, for a worker that imports the target itself
#: before the harness (the CrossHair worker's shield)
_MODEL_WANTS: dict[tuple[str, str], dict[str, tuple[str, Any, Any, Any]]] = {}


def read_models_early(folder: str, name: str) -> None:
    """For a worker that imports the target before :func:`load_harness`: read the harness ``folder/name.py``'s
    reference models now, before the target runs (nothing happens when there is no such file or it does not
    parse: :func:`load_harness` reports that)."""
    path = os.path.join(folder, f"{name}.py")
    try:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        facts = _prepared(folder, name, source, path)
    except (OSError, SyntaxError, ValueError):
        return
    _MODEL_WANTS[(folder, name)] = _read_models(facts[5], facts[2])


def load_harness(folder: str, name: str, flag: Callable[[str], None], _names: Any = harness_names,
                 _target_of: Any = _target_of, _exec: Any = exec, _compile: Any = compile,
                 _gc_disable: Any = gc.disable, _gc_enable: Any = gc.enable, _gc_isenabled: Any = gc.isenabled,
                 _sys: Any = sys, _vars: Any = vars, _getattr: Any = getattr, _sorted: Any = sorted,
                 _import: Any = importlib.import_module,
                 _spec_from_file: Any = importlib.util.spec_from_file_location,
                 _module_from_spec: Any = importlib.util.module_from_spec, _open: Any = open,
                 _bindings: Any = _target_bindings, _type: Any = type, _isinstance: Any = isinstance,
                 _ModuleType: Any = types.ModuleType,
                 _module_dict: Any = vars(types.ModuleType)["__dict__"].__get__,
                 _prepared: Any = _prepared) -> types.ModuleType:
    """Import harness ``name`` from ``folder`` as described in the module docstring.

    Args:
        folder: the harness folder (the request's first path).
        name: the harness module's name (its file is ``folder/name.py``; a name with no such file, a
            library module named as the "harness" by a test, is imported as usual).
        flag: called with a description of each tamper sign found (the channel's ``flag``).

    Returns:
        The harness module (also in ``sys.modules[name]``).

    Raises:
        OSError, SyntaxError: the harness file cannot be read or parsed (the worker reports an import error);
        whatever the target's import or the harness's own code raises.
    """
    path = os.path.join(folder, f"{name}.py")
    if not os.path.isfile(path):  # not a generated harness (a module of the library, in tests): import it
        module: types.ModuleType = _import(name)
        return module
    with _open(path, encoding="utf-8") as fh:
        source = fh.read()
    names, imports, target, bindings, code, models = _prepared(folder, name, source, path)
    # what the harness imports (the standard library, icontract, typing), loaded before any target code runs:
    # a module the target planted in sys.modules, or a module attribute it rebinds, is then seen below
    for _, mod, _ in imports:
        if mod != target and mod != "__future__":
            _import(mod)
    wants = {}
    for bound, mod, attr in imports:
        origin = _sys.modules.get(mod, _MISSING)
        wants[bound] = (mod, attr, origin if attr is None else _getattr(origin, attr, _MISSING))
    model_wants = _MODEL_WANTS.pop((folder, name), None)
    if model_wants is None:
        model_wants = _read_models(models, target, _import, _getattr)
    if target:
        _import(target)  # the target's import-time code runs now, before the harness's
    if _sys.gettrace() is not None or _sys.getprofile() is not None:
        flag("a trace or profile function was set while the target was imported")
    spec = _spec_from_file(name, path)
    module = _module_from_spec(spec)
    _sys.modules[name] = module
    collecting = _gc_isenabled()
    _gc_disable()  # no finalizer of the target's runs while the harness executes
    try:
        _exec(code, _vars(module))
    finally:
        if collecting:
            _gc_enable()
    found = _vars(module)
    extra = [k for k in found if k not in names and k not in _DUNDERS]
    if extra:
        flag(f"{name}: names put into the harness while it was executed: {', '.join(_sorted(extra)[:5])}")
    # what the harness binds from the target must be what the target's own namespace holds: a module whose
    # class answers attribute lookups itself could hand the harness another function than every other importer
    checked = _sys.modules.get(target, _MISSING) if target else _MISSING
    space = _module_dict(checked) if checked is not _MISSING and _isinstance(checked, _ModuleType) else {}
    # a class or function the spec declares under a typing name (`class Counter`) is rebound from the target
    # after the header's import: there the target's own definition is what the harness must hold (checked
    # below). Only typing's names, only declared ones: a harness name such as `icontract`, or a typing name
    # the spec reads as a type (`xs: List[int]`, whose meaning a target defining `List` would change), bound
    # from the target stays a tamper sign
    rebound = {bound for bound, attr, declared in bindings if declared and attr in space}
    for bound, (mod, attr, want) in wants.items():
        if want is _MISSING or (mod == "typing" and bound in rebound):
            continue
        if found.get(bound, _MISSING) is not want:
            flag(f"{name}.{bound} is not what the harness imported ({mod}{'.' + attr if attr else ''})")
    MODELS[:] = [(dotted, want, _sys.modules.get(dotted.partition(".")[0])) for dotted, want, _, _ in
                 model_wants.values()]
    for bound, (dotted, want, module_before, class_before) in model_wants.items():
        if found.get(bound, _MISSING) is not want:
            flag(f"the reference model {dotted} is not the class its module defined before the target was "
                 "imported")
            continue
        held = _sys.modules.get(dotted.partition(".")[0], _MISSING)
        entry = _changed(class_before, want) or (_changed(module_before, held) if held is not _MISSING else "*")
        if entry is not None:
            flag(f"the reference model {dotted} was changed after it was read ({entry})")
    if checked is not _MISSING:
        kind = _type(checked)
        if kind is not _ModuleType and ("__getattribute__" in _vars(kind) or not _isinstance(checked, _ModuleType)):
            flag(f"the target module {target} answers attribute lookups itself ({kind.__name__})")
        for bound, attr, _ in bindings:
            held = space.get(attr, _MISSING)
            if held is not _MISSING and found.get(bound, _MISSING) is not held:
                flag(f"{name}.{bound} is not {target}.{attr} as the module's namespace holds it")
    return module
