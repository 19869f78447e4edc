"""The visible tests' *cases*: every call of a function under test in a test file, with its literal arguments,
the output the test expects from it, and where the call is (issue 22).

A call counts wherever it is, not only inside an ``assert``: in a ``test_*`` function or a helper it calls
(``check(88, 88, 7)`` where ``def check(a, b, want): assert solve(a, b) == want``), in a loop over a module
constant (``for n, want in CASES: run_case(n, want)``), in a ``pytest.mark.parametrize`` row, in a
``pytest.fixture`` a test takes, in a ``unittest`` method (``self.assertEqual(f(x), y)``, ``setUp`` storing
``self.result = f(x)``), and in a doctest (``>>> f(3)`` followed by the expected output). The expected output
is found from ``==``/``is`` comparisons and ``assertEqual``-style methods, also through a variable the call was
stored in (``r = solve(a, b)`` ... ``assert r == want``).

Nothing is executed: values are followed through literals, module constants and parameters bound by the
analysis itself (:func:`read_cases`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["VisibleCase", "read_cases"]

#: Calls that are never the function under test.
_NOT_TARGETS = frozenset({
    "len", "print", "range", "str", "int", "float", "bool", "list", "tuple", "dict", "set", "frozenset", "sorted",
    "sum", "min", "max", "abs", "round", "isinstance", "issubclass", "type", "repr", "iter", "next", "zip", "map",
    "filter", "enumerate", "reversed", "all", "any", "open", "hasattr", "getattr", "setattr", "super", "object",
    "id", "hash", "callable", "vars", "dir", "format", "chr", "ord", "bytes", "bytearray", "divmod", "pow",
    "approx", "raises", "warns", "fixture", "parametrize", "skip", "xfail", "main", "exec", "eval", "compile",
    "__import__", "testmod", "run_docstring_examples", "Path", "write_text", "write_bytes", "read_text", "append",
    "extend", "join", "split", "strip", "format", "items", "keys", "values", "get", "copy", "deepcopy", "isclose",
    "ModuleType", "mkdtemp", "TemporaryDirectory", "dumps", "loads", "AssertionError", "ValueError", "TypeError",
    "Exception", "KeyError", "IndexError", "StopIteration", "RuntimeError"})
_EQ_METHODS = frozenset({"assertEqual", "assertEquals", "assertDictEqual", "assertListEqual", "assertTupleEqual",
                         "assertSetEqual", "assertSequenceEqual", "assertCountEqual", "assertAlmostEqual",
                         "assertIs", "assertMultiLineEqual"})
_TRUTH_METHODS = {"assertTrue": True, "assertFalse": False}
_VIEWS: dict[str, Callable[[Any], Any]] = {"sorted": sorted, "list": list, "tuple": tuple,
                                           "reversed": lambda x: list(reversed(x))}
_MAX_DEPTH = 4
_MAX_STATEMENTS = 20_000
_MAX_CASES = 2_000
_MAX_ROWS = 200
_NO = object()  # "no value known"


@dataclass(frozen=True)
class VisibleCase:
    """One call of a function under test in a visible test.

    Attributes:
        func: the called name (``area`` for ``area(7, 3)`` and for ``mod.area(7, 3)``).
        args: the positional argument values (a value is ``None`` in ``known`` when it is not a literal).
        known: per argument, whether its value is known.
        expected: the output the test expects (meaningful when ``has_expected``).
        has_expected: whether an expected output was found.
        where: ``file:line`` of the call (or of the doctest line).
    """

    __test__ = False

    func: str
    args: tuple[Any, ...]
    known: tuple[bool, ...]
    expected: Any
    has_expected: bool
    where: str

    @property
    def all_known(self) -> bool:
        """Every argument is a known literal."""
        return bool(self.args) and all(self.known)

    def shown_args(self) -> str:
        """``f(7, 3)`` for messages."""
        return f"{self.func}({', '.join(repr(a) if k else '?' for a, k in zip(self.args, self.known))})"


def _callee(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


@dataclass(frozen=True)
class _FuncRef:
    """A helper's parameter bound to a function passed by name: HumanEval's ``check(candidate)`` called as
    ``check(area)`` makes each ``candidate(...)`` a call of ``area``."""

    name: str


class _Reader:
    def __init__(self, tree: ast.Module, path: str, targets: frozenset[str] | None) -> None:
        self.path = path
        self.targets = targets
        self.helpers: dict[str, ast.FunctionDef] = {}
        self.classes: set[str] = set()
        self.consts: dict[str, Any] = {}
        self.fixtures: dict[str, ast.FunctionDef] = {}
        self.cases: dict[int, dict[str, Any]] = {}  # id -> mutable case
        self.attr_case: dict[str, int] = {}  # "self.result" -> case id (setUp)
        self.site: list[int] = []  # lines of the helper calls being followed (a case names the outermost)
        self.budget = _MAX_STATEMENTS  # statements read in all (loops and helpers re-read theirs)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.helpers[node.name] = node
                if any("fixture" in ast.unparse(d) for d in node.decorator_list):
                    self.fixtures[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes.add(node.name)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                ok, v = _literal(node.value)
                if ok:
                    self.consts[node.targets[0].id] = v
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                pass

    # -- values
    def value(self, node: ast.AST, env: dict[str, Any]) -> Any:
        ok, v = _literal(node)
        if ok:
            return v
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            return self.consts.get(node.id, _NO)
        if isinstance(node, (ast.Tuple, ast.List)):
            vals = [self.value(e, env) for e in node.elts]
            if all(v is not _NO for v in vals):
                return tuple(vals) if isinstance(node, ast.Tuple) else list(vals)
        if isinstance(node, ast.Subscript):  # VECTORS[plain]
            obj, key = self.value(node.value, env), self.value(node.slice, env)
            try:
                if obj is not _NO and key is not _NO:
                    return obj[key]
            except (KeyError, IndexError, TypeError):
                return _NO
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            name = _callee(node)
            view = _VIEWS.get(name or "")
            inner = self.value(node.args[0], env) if view is not None else _NO
            if view is not None and inner is not _NO and isinstance(inner, (list, tuple, dict, set, frozenset, str)):
                try:
                    return view(inner)
                except TypeError:
                    return _NO
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args and (
                node.func.attr in ("items", "keys", "values")):
            obj = self.value(node.func.value, env)
            if isinstance(obj, dict):
                return list(getattr(obj, node.func.attr)())
        return _NO

    def is_target(self, name: str | None) -> bool:
        if not name or name in _NOT_TARGETS or name in self.classes or name.startswith("assert"):
            return False
        if self.targets is not None:
            return name in self.targets
        return name not in self.helpers

    # -- reading
    def resolve(self, call: ast.Call, env: dict[str, Any]) -> str | None:
        """The called function's name, through a parameter bound to a function (see :class:`_FuncRef`)."""
        name = _callee(call)
        bound = env.get(name) if isinstance(call.func, ast.Name) and name else None
        return bound.name if isinstance(bound, _FuncRef) else name

    def record(self, call: ast.Call, env: dict[str, Any]) -> int:
        args: list[Any] = []
        known: list[bool] = []
        for a in call.args:
            if isinstance(a, ast.Starred):
                v = self.value(a.value, env)
                if isinstance(v, (list, tuple)):
                    args += list(v)
                    known += [True] * len(v)
                    continue
                args.append(None)
                known.append(False)
                continue
            v = self.value(a, env)
            if isinstance(v, _FuncRef):
                v = _NO
            args.append(None if v is _NO else v)
            known.append(v is not _NO)
        cid = len(self.cases)
        self.cases[cid] = {"func": self.resolve(call, env) or "?", "args": tuple(args), "known": tuple(known),
                           "expected": None, "has": False,
                           "line": self.site[0] if self.site else getattr(call, "lineno", 0)}
        return cid

    def expect(self, cid: int, node: ast.AST, env: dict[str, Any]) -> None:
        v = self.value(node, env)
        if v is not _NO and not isinstance(v, _FuncRef) and not self.cases[cid]["has"]:
            self.cases[cid]["expected"] = v
            self.cases[cid]["has"] = True

    def run(self, body: list[ast.stmt], env: dict[str, Any], depth: int, local: dict[str, int]) -> None:
        for st in body:
            self.stmt(st, env, depth, local)

    def stmt(self, st: ast.stmt, env: dict[str, Any], depth: int, local: dict[str, int]) -> None:
        self.budget -= 1
        if self.budget < 0 or len(self.cases) >= _MAX_CASES:
            return
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(st, ast.For):
            rows = self.value(st.iter, env)
            if isinstance(rows, (list, tuple)) and rows:
                for row in list(rows)[:_MAX_ROWS]:
                    inner = dict(env)
                    _bind(st.target, row, inner)
                    self.run(st.body, inner, depth, dict(local))
                return
        calls: dict[int, int] = {}  # id(call node) -> case id
        nodes = [n for h in _headers(st) for n in ast.walk(h)]
        for sub in nodes:
            if isinstance(sub, ast.Call):
                name = self.resolve(sub, env)
                if self.is_target(name):
                    calls[id(sub)] = self.record(sub, env)
                elif name in self.helpers and depth < _MAX_DEPTH and name not in self.fixtures:
                    self.site.append(sub.lineno)
                    returned = self.call_helper(self.helpers[name], sub, env, depth)
                    self.site.pop()
                    if returned is not None:
                        calls[id(sub)] = returned
        for sub in nodes:
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.args:
                meth = sub.func.attr
                first = self._case_of(sub.args[0], calls, local)
                if meth in _EQ_METHODS and len(sub.args) >= 2:
                    if first is not None:
                        self.expect(first, sub.args[1], env)
                    second = self._case_of(sub.args[1], calls, local)
                    if second is not None:
                        self.expect(second, sub.args[0], env)
                elif meth in _TRUTH_METHODS and first is not None:
                    self.expect(first, ast.Constant(_TRUTH_METHODS[meth]), env)
            elif isinstance(sub, ast.Compare) and len(sub.ops) == 1 and isinstance(
                    sub.ops[0], (ast.Eq, ast.Is, ast.NotEq, ast.IsNot)):
                left, right = sub.left, sub.comparators[0]
                for a, b in ((left, right), (right, left)):
                    cid = self._case_of(a, calls, local)
                    if cid is not None:
                        self.expect(cid, b, env)
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.value, ast.Call):
            cid = calls.get(id(st.value))
            t = st.targets[0]
            if cid is not None and isinstance(t, ast.Name):
                local[t.id] = cid
            elif cid is not None and isinstance(t, ast.Attribute):
                self.attr_case[ast.unparse(t)] = cid
        elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            value = self.value(st.value, env)
            if value is not _NO:
                env[st.targets[0].id] = value
        for part in ("body", "orelse", "finalbody", "handlers"):
            nested = getattr(st, part, None)
            if isinstance(nested, list):
                for s in nested:
                    if isinstance(s, ast.ExceptHandler):
                        self.run(s.body, env, depth, local)
                    elif isinstance(s, ast.stmt):
                        self.stmt(s, env, depth, local)

    def _case_of(self, node: ast.AST, calls: dict[int, int], local: dict[str, int]) -> int | None:
        if isinstance(node, ast.Call) and id(node) in calls:
            return calls[id(node)]
        if isinstance(node, ast.Name) and node.id in local:
            return local[node.id]
        if isinstance(node, ast.Attribute) and ast.unparse(node) in self.attr_case:
            return self.attr_case[ast.unparse(node)]
        return None

    def _value_or_ref(self, node: ast.AST, env: dict[str, Any]) -> Any:
        v = self.value(node, env)
        if v is _NO and isinstance(node, ast.Name) and node.id not in self.helpers and node.id not in self.classes:
            return _FuncRef(node.id)  # a name with no literal value passed to a helper: maybe the target itself
        return v

    def call_helper(self, fn: ast.FunctionDef, call: ast.Call, env: dict[str, Any], depth: int) -> int | None:
        params = [a.arg for a in fn.args.args]
        inner: dict[str, Any] = {}
        args: list[Any] = []
        for a in call.args:
            if isinstance(a, ast.Starred):
                v = self.value(a.value, env)
                args += list(v) if isinstance(v, (list, tuple)) else [_NO]
            else:
                args.append(self._value_or_ref(a, env))
        for p, v in zip(params, args):
            if v is not _NO:
                inner[p] = v
        for k in call.keywords:
            v = self._value_or_ref(k.value, env)
            if k.arg and v is not _NO:
                inner[k.arg] = v
        local: dict[str, int] = {}
        self.run(fn.body, inner, depth + 1, local)
        for st in ast.walk(fn):  # `return outcome` where outcome holds a case: the helper's call is that case
            if isinstance(st, ast.Return) and isinstance(st.value, ast.Name) and st.value.id in local:
                return local[st.value.id]
        return None

    def test_function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, self_cases: dict[str, int]) -> None:
        rows = self._parametrize(fn)
        local: dict[str, int] = {}
        for p in fn.args.args:  # pytest fixtures: the parameter holds the fixture's call
            fx = self.fixtures.get(p.arg)
            if fx is not None:
                for st in fx.body:
                    if isinstance(st, ast.Return) and isinstance(st.value, ast.Call) and self.is_target(
                            _callee(st.value)):
                        local[p.arg] = self.record(st.value, {})
        for env in rows:
            self.run(fn.body, dict(env), 0, dict(local))

    def _parametrize(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict[str, Any]]:
        envs: list[dict[str, Any]] = [{}]
        for d in fn.decorator_list:
            if not (isinstance(d, ast.Call) and _callee(d) == "parametrize" and len(d.args) >= 2):
                continue
            names_v = self.value(d.args[0], {})
            names = ([n.strip() for n in names_v.split(",")] if isinstance(names_v, str)
                     else list(names_v) if isinstance(names_v, (list, tuple)) else [])
            rows = self.value(d.args[1], {})
            if not names or not isinstance(rows, (list, tuple)):
                continue
            new: list[dict[str, Any]] = []
            for base in envs:
                for row in list(rows)[:_MAX_ROWS]:
                    vals = row if len(names) > 1 and isinstance(row, (list, tuple)) else (row,)
                    new.append({**base, **{n: v for n, v in zip(names, vals) if isinstance(n, str)}})
            envs = (new or envs)[:_MAX_ROWS]
        return envs

    def read(self, tree: ast.Module) -> None:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                self.test_function(node, {})
            elif isinstance(node, ast.ClassDef):
                methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
                for m in sorted(methods, key=lambda m: m.name not in ("setUp", "setup_method", "setUpClass")):
                    if m.name.startswith(("test", "setUp", "setup")):
                        self.test_function(m, {})
            elif isinstance(node, (ast.Expr, ast.Assert, ast.If, ast.For, ast.With)) and not (
                    isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                self.stmt(node, {}, 0, {})
        for sub in ast.walk(tree):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and ">>>" in sub.value:
                self.doctest(sub.value, getattr(sub, "lineno", 1))

    def doctest(self, text: str, first_line: int) -> None:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"\s*>>>\s?(.*)$", line)
            if not m or i + 1 >= len(lines) or lines[i + 1].strip().startswith(">>>"):
                continue
            try:
                expr = ast.parse(m.group(1), mode="eval").body
            except SyntaxError:
                continue
            if isinstance(expr, ast.Call) and self.is_target(_callee(expr)):
                cid = self.record(expr, {})
                self.cases[cid]["line"] = first_line + i
                ok, v = _literal_text(lines[i + 1].strip())
                if ok:
                    self.cases[cid]["expected"], self.cases[cid]["has"] = v, True


def _headers(st: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that are not nested statements."""
    if isinstance(st, (ast.If, ast.While)):
        return [st.test]
    if isinstance(st, (ast.For, ast.AsyncFor)):
        return [st.iter]
    if isinstance(st, (ast.With, ast.AsyncWith)):
        return [i.context_expr for i in st.items]
    if isinstance(st, (ast.Try, ast.Match)):
        return [st.subject] if isinstance(st, ast.Match) else []
    return [st]


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _literal_text(text: str) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _bind(target: ast.AST, value: Any, env: dict[str, Any]) -> None:
    if isinstance(target, ast.Name):
        env[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (list, tuple)) and len(
            target.elts) == len(value):
        for t, v in zip(target.elts, value):
            _bind(t, v, env)


def read_cases(source: str, path: str = "<test>", targets: frozenset[str] | None = None) -> tuple[VisibleCase, ...]:
    """The cases of one test file.

    Args:
        source: the test file's Python source.
        path: how a case names its file (``tests/test_area.py``).
        targets: the names of the functions under test; None: every called name that is not a builtin,
            an assertion, a class or a function of the test file itself.

    Returns:
        The cases in reading order (a call analysed under several parameter rows gives one case per row);
        unparsable source gives none.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    reader = _Reader(tree, path, targets)
    try:
        reader.read(tree)
    except RecursionError:
        pass
    out = []
    for c in reader.cases.values():
        out.append(VisibleCase(c["func"], c["args"], c["known"], c["expected"], c["has"], f"{path}:{c['line']}"))
    return tuple(out)
