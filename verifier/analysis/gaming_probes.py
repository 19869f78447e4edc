"""Gaming rules about the *checking environment* (issue 18), applied by the scanner
(:class:`evalgap.verifier.analysis.gaming_scanner.Scanner`) beside its own rules.

Code that behaves only while it is checked looks at something that differs between a check and a normal run;
these rules flag the looks (a finding names the construct and why it games the evaluator):

* EG401: whether a tracer is installed (``sys.gettrace``/``getprofile``, ``threading.gettrace``), a tracer
  installed or removed (``sys.settrace``), the caller's frames (``sys._getframe``, ``inspect.stack``), a
  verification library's name looked for in text (``name.startswith("icontract")``), whether one is
  installed (``importlib.util.find_spec("crosshair")``);
* EG405: the process's resource limits (``resource.getrlimit``), an ``EVALGAP_``/``PYTEST_``-style variable
  looked for by prefix, the working or home folder's name compared with a constant (``"worker" in
  os.getcwd()``, ``home.startswith("/tmp")``), a computed name looked up in ``sys.modules``;
* EG408: a clock reading (``date.today().year``, ``time.time()``) compared with a constant (elapsed time,
  ``time.time() - start > 5``, is not flagged);
* EG409: a module-level counter a function increments (``global n; n += 1``) compared with a constant;
* EG401 also: a value's ``__class__`` compared with a builtin type (``x.__class__ is int``: a symbolic int's
  class is not ``int``; ``isinstance`` and ``type(x)`` are what honest code uses, and CrossHair models those),
  and a builtin's dunder method applied to a value and compared with ``NotImplemented``
  (``(0).__add__(x) is not NotImplemented``: true for a real int only), ``hasattr``/``getattr`` of an
  attribute CrossHair's symbolic values carry (``var``, ``statespace``, ``inner``, ``snapshot``,
  ``__ch_realize__``, ``__ch_pytype__``), and a value's memory size (``sys.getsizeof``, ``__sizeof__``),
  which differs between a symbolic and a real value;
* EG402 also: a function's ``__code__``, ``__defaults__``, ``__kwdefaults__`` or ``__globals__`` rewritten
  (assigned, or ``setattr`` with that name, also spelt ``"__co" + "de__"``): the function keeps its identity
  and does something else, which is how a checker's functions are altered without being replaced.

Names are followed through simple assignments in the module (``here = os.getcwd()`` then ``"x" in here``).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING
from evalgap.specs_lang.diagnostics import (CLOCK_DEPENDENT, HIDDEN_CALL_COUNTER, PATCHES_VERIFICATION_LIBRARY,
                                            PROBES_TEST_ENVIRONMENT, SYMBOLIC_OR_MOCK_PROXY)

if TYPE_CHECKING:
    from evalgap.verifier.analysis.gaming_scanner import Scanner

__all__ = ["prepare", "on_call", "on_compare", "code_attribute", "CODE_ATTRS"]

#: Function attributes that hold what the function runs: rewriting one changes the function in place.
CODE_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__"})
_SYMBOLIC_ATTRS = frozenset({"var", "statespace", "inner", "snapshot", "__ch_realize__", "__ch_pytype__",
                             "__ch_forget_contents__", "_realize"})
_BUILTIN_TYPES = frozenset({"int", "float", "complex", "str", "bytes", "bool", "list", "tuple", "dict", "set",
                            "frozenset", "bytearray"})

_TRACER_READS = {"sys.gettrace", "sys.getprofile", "threading.gettrace", "threading.getprofile",
                 "sys.monitoring.get_tool", "sys.monitoring.get_events"}
_TRACER_WRITES = {"sys.settrace", "sys.setprofile", "threading.settrace", "threading.setprofile",
                  "threading.settrace_all_threads", "sys.monitoring.set_events", "sys.monitoring.free_tool_id"}
_FRAME_CALLS = {"sys._getframe", "inspect.currentframe", "inspect.stack", "inspect.getouterframes",
                "traceback.extract_stack", "traceback.walk_stack", "sys._current_frames"}
_LIMIT_CALLS = {"resource.getrlimit", "resource.prlimit"}
_FIND_SPEC = {"importlib.util.find_spec", "importlib.find_loader", "pkgutil.find_loader", "importlib.import_module"}
_PLACE_CALLS = {"os.getcwd", "os.getcwdb", "pathlib.Path.cwd", "Path.cwd", "pathlib.Path.home", "Path.home",
                "os.path.expanduser", "tempfile.gettempdir", "tempfile.gettempdirb", "os.getlogin",
                "getpass.getuser", "socket.gethostname", "platform.node"}
_PLACE_VARS = {"HOME", "PWD", "OLDPWD", "TMPDIR", "TEMP", "TMP", "USER", "LOGNAME", "USERNAME", "HOSTNAME"}
_CLOCK_CALLS = {"datetime.datetime.now", "datetime.datetime.today", "datetime.datetime.utcnow",
                "datetime.date.today", "time.time", "time.time_ns", "time.localtime", "time.gmtime",
                "time.ctime", "time.strftime", "time.asctime"}
_TEXT_METHODS = ("startswith", "endswith", "find", "rfind", "index", "count", "__contains__")


def _lib_names() -> tuple[str, ...]:
    from evalgap.verifier.analysis.gaming import _SYMBOLIC_LIBS, _VERIFICATION_LIBS

    return tuple(dict.fromkeys(_VERIFICATION_LIBS + _SYMBOLIC_LIBS))


def _consts(node: ast.AST) -> list[str]:
    """String constants of ``node`` itself or of a tuple/list/set display of them."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def _folded(node: ast.AST) -> str | None:
    """The string ``node`` spells from constants alone (``"__co" + "de__"``, ``"".join(("__co", "de__"))``,
    ``"__%s__" % "code"`` is not followed), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _folded(node.left), _folded(node.right)
        return None if a is None or b is None else a + b
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
            and len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List))):
        sep = _folded(node.func.value)
        parts = [_folded(e) for e in node.args[0].elts]
        return None if sep is None or any(p is None for p in parts) else sep.join(p for p in parts if p is not None)
    return None


def code_attribute(target: ast.AST) -> str | None:
    """The attribute of :data:`CODE_ATTRS` an assignment target rewrites (``f.__code__``), or None."""
    return target.attr if isinstance(target, ast.Attribute) and target.attr in CODE_ATTRS else None


def _probe_compare(sc: Scanner, node: ast.Compare, a: ast.AST, b: ast.AST) -> None:
    """EG401's class and ``NotImplemented`` comparisons (see the module docstring)."""
    if isinstance(a, ast.Attribute) and a.attr == "__class__" and sc.resolve(b) in _BUILTIN_TYPES:
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"compares a value's `__class__` with `{sc.resolve(b)}` "
               f"(`{ast.unparse(node)[:70]}`): a symbolic or mock value's class differs, `isinstance` does not")
    elif (isinstance(b, ast.Constant) and b.value is NotImplemented) or (
            isinstance(b, ast.Name) and b.id == "NotImplemented"):
        if (isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr.startswith("__")
                and (isinstance(a.func.value, ast.Constant) or sc.resolve(a.func.value) in _BUILTIN_TYPES)):
            sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"applies a builtin's `{a.func.attr}` to a value and compares the "
                   f"result with NotImplemented (`{ast.unparse(node)[:70]}`): true for real values only")


def _kind(sc: Scanner, node: ast.AST) -> str | None:
    """``place`` (a folder, user or host name), ``clock`` (a date or time reading), ``counter`` (a module
    counter), or None, for an expression built from such a reading (through names assigned from one)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            name = sc.resolve(sub.func) or ""
            if name in _PLACE_CALLS:
                return "place"
            if name in _CLOCK_CALLS:
                return "clock"
            if name in ("os.getenv", "os.environ.get") and sub.args and set(_consts(sub.args[0])) & _PLACE_VARS:
                return "place"
        elif isinstance(sub, ast.Subscript) and sc.resolve(sub.value) == "os.environ":
            if set(_consts(sub.slice)) & _PLACE_VARS:
                return "place"
        elif isinstance(sub, ast.Name) and sub.id in sc.probe_names:
            return sc.probe_names[sub.id]
    return None


def _constant_like(node: ast.AST) -> bool:
    """A number, a string, a date built from constants (``date(2027, 1, 1)``), or a tuple of those."""
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, bool) and node.value is not None
    if isinstance(node, ast.UnaryOp):
        return _constant_like(node.operand)
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(_constant_like(e) for e in node.elts)
    if isinstance(node, ast.Call):
        return bool(node.args) and all(isinstance(a, ast.Constant) for a in node.args)
    return False


def prepare(sc: Scanner, tree: ast.Module) -> None:
    """Before visiting: which names hold a place or clock reading (simple assignments, followed twice),
    and which module globals functions increment (``global n; n += 1``)."""
    for _ in range(2):
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
                kind = _kind(sc, node.value)
                if kind in ("place", "clock") and not _elapsed(node.value):
                    for t in node.targets:
                        assert isinstance(t, ast.Name)
                        sc.probe_names.setdefault(t.id, kind)
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        declared = {n for st in ast.walk(fn) if isinstance(st, ast.Global) for n in st.names}
        for st in ast.walk(fn):
            if (isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and st.target.id in declared
                    and isinstance(st.op, (ast.Add, ast.Sub)) and isinstance(st.value, ast.Constant)):
                sc.probe_names[st.target.id] = "counter"


def _elapsed(node: ast.AST) -> bool:
    """``time.time() - start`` and the like: a duration, not a date."""
    return any(isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Sub) for sub in ast.walk(node))


def on_call(sc: Scanner, node: ast.Call, name: str) -> None:
    """The call rules (EG401 tracer/frames/library names, EG405 limits, prefixes, places)."""
    args = list(node.args)
    if name in ("setattr", "builtins.setattr") and len(args) >= 2 and _folded(args[1]) in CODE_ATTRS:
        sc.add(PATCHES_VERIFICATION_LIBRARY, node, f"`setattr(..., {_folded(args[1])!r}, ...)` rewrites what a function "
               "runs while it keeps its identity (a checker's own functions can be altered this way unseen)")
    if name in ("hasattr", "getattr", "builtins.hasattr", "builtins.getattr") and len(args) >= 2 and (
            _folded(args[1]) in _SYMBOLIC_ATTRS):
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"`{name}(..., {_folded(args[1])!r})` looks for an attribute that "
               "CrossHair's symbolic values carry, to tell them from real ones")
    if name in ("sys.getsizeof",) or (isinstance(node.func, ast.Attribute) and node.func.attr == "__sizeof__"):
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"`{ast.unparse(node)[:60]}` reads a value's memory size, which differs "
               "between a symbolic or mock value and a real one")
    if name in _TRACER_READS:
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"`{name}()` checks whether a tracer (a debugger, coverage, a symbolic executor) "
               "is installed, i.e. whether the code is being checked")
    elif name in _TRACER_WRITES:
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"`{name}(...)` installs or removes a tracer, which can switch off the checker's "
               "own tracing")
    elif name in _FRAME_CALLS:
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"`{name}(...)` inspects the callers' frames, e.g. to tell whether a contract "
               "checker or test runner is among them")
    elif name in _LIMIT_CALLS:
        sc.add(PROBES_TEST_ENVIRONMENT, node, f"`{name}(...)` reads the process's resource limits, which a sandbox or test "
               "runner sets")
    elif name in ("sys.modules.get", "sys.modules.__contains__", "sys.modules.__getitem__") and args and not _consts(
            args[0]):
        sc.add(PROBES_TEST_ENVIRONMENT, node, "looks up a computed name in `sys.modules`, i.e. checks which modules (a verifier's, "
               "a test runner's) are loaded")
    elif name in _FIND_SPEC and args and any(c.split(".")[0] in _lib_names() for c in _consts(args[0])):
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"`{name}({_consts(args[0])[0]!r})` checks for a verification library")
    if not isinstance(node.func, ast.Attribute) or node.func.attr not in _TEXT_METHODS or not args:
        return
    from evalgap.verifier.analysis.gaming import _TEST_ENV_PREFIXES

    texts = [c for a in args for c in _consts(a)]
    libs = [t for t in texts if t.lower().split(".")[0] in _lib_names()]
    if libs:
        sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"looks for {libs[0]!r}, a verification library's name, in text (a module or "
               "frame name), to tell whether it is being checked")
    prefixes = [t for t in texts if t.upper().startswith(tuple(_TEST_ENV_PREFIXES)) and t.isupper()]
    if prefixes:
        sc.add(PROBES_TEST_ENVIRONMENT, node, f"looks for variables named {prefixes[0]!r}..., which reveal a test or "
               "verification run")
    if _kind(sc, node.func.value) == "place" and (texts or any(_kind(sc, a) == "place" for a in args)):
        sc.add(PROBES_TEST_ENVIRONMENT, node, f"compares the working, home or temporary folder's name "
               f"(`{ast.unparse(node)[:70]}`), which differs in a sandbox or test run")


def on_compare(sc: Scanner, node: ast.Compare) -> None:
    """The comparison rules (EG401 library names, EG405 places and module tables, EG408, EG409)."""
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        left, right = operands[i], operands[i + 1]
        if isinstance(op, (ast.In, ast.NotIn)):
            if sc.resolve(right) == "sys.modules" and not _consts(left):
                sc.add(PROBES_TEST_ENVIRONMENT, node, "looks up a computed name in `sys.modules`, i.e. checks which modules "
                       "(a verifier's, a test runner's) are loaded")
            libs = [t for t in _consts(left) if t.lower() in _lib_names()]
            if libs and sc.resolve(right) not in ("sys.modules",):
                sc.add(SYMBOLIC_OR_MOCK_PROXY, node, f"looks for {libs[0]!r}, a verification library's name, in text")
        for a, b in ((left, right), (right, left)):
            if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                _probe_compare(sc, node, a, b)
            kind = _kind(sc, a)
            if kind == "place" and (_consts(b) or _kind(sc, b) == "place"):
                sc.add(PROBES_TEST_ENVIRONMENT, node, f"compares the working, home or temporary folder's name "
                       f"(`{ast.unparse(node)[:70]}`), which differs in a sandbox or test run")
            elif kind == "clock" and not _elapsed(a) and _constant_like(b):
                sc.add(CLOCK_DEPENDENT, node, f"compares the clock with a constant (`{ast.unparse(node)[:70]}`): the "
                       "behaviour changes on a date no check before it sees")
            elif kind == "counter" and _constant_like(b):
                sc.add(HIDDEN_CALL_COUNTER, node, f"compares a module-level call counter with a constant "
                       f"(`{ast.unparse(node)[:70]}`): the behaviour changes after a number of calls")
