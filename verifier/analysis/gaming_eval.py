"""A bounded evaluator of small pure functions over a visible test's literal inputs (issue 22), for the
special-casing rules (EG407, EG410, EG411) of :mod:`evalgap.verifier.analysis.gaming_cases`.

The question it answers is static: *on this visible test's inputs, does the guarded branch change what the
function returns?* An honest shortcut (``if n == 3: return 6`` in a factorial) returns what the rest of the
function would compute anyway; a special case made to pass an impossible test returns something else.

Nothing of the target is executed: this walks the function's syntax tree with an environment of plain
Python values (the test's literals), allowing only arithmetic, comparisons, comprehensions, a fixed set of
pure builtins and methods of ``str``/``list``/``tuple``/``dict``/``set``, and calls of other functions of the
same module. Every other construct (attribute access, imports, I/O, ``global``, unknown names), more than
:data:`MAX_STEPS` steps, an integer above :data:`MAX_INT_BITS` bits or a sequence above :data:`MAX_LEN`
items raises :class:`Unsupported`, and the rules then do not rely on the result.
"""

from __future__ import annotations

import ast
import operator
from collections import Counter
from typing import Any, Callable

__all__ = ["Unsupported", "Evaluator", "MAX_STEPS"]

MAX_STEPS = 20_000
MAX_INT_BITS = 4096
MAX_LEN = 10_000
MAX_DEPTH = 30


class Unsupported(Exception):
    """The evaluator cannot decide (a construct it does not model, or a bound was reached)."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len, "abs": abs, "min": min, "max": max, "sum": sum, "sorted": sorted, "reversed": lambda x: list(reversed(x)),
    "range": lambda *a: _bounded_range(*a),
    "all": all, "any": any, "int": int, "float": float, "str": str, "bool": bool, "list": list, "tuple": tuple,
    "set": set, "frozenset": frozenset, "dict": dict, "zip": lambda *a: list(zip(*a)),
    "enumerate": lambda *a: list(enumerate(*a)), "round": round, "divmod": divmod, "chr": chr, "ord": ord,
    "isinstance": isinstance, "Counter": Counter,
}
_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "tuple": tuple, "dict": dict,
          "set": set, "frozenset": frozenset}
_METHODS = {
    str: {"lower", "upper", "strip", "lstrip", "rstrip", "split", "join", "startswith", "endswith", "count", "find",
          "replace", "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "title", "capitalize",
          "swapcase", "index", "rfind", "splitlines"},
    list: {"append", "extend", "pop", "insert", "index", "count", "copy", "sort", "reverse"},
    tuple: {"index", "count"},
    dict: {"get", "items", "keys", "values", "copy", "setdefault"},
    set: {"add", "union", "intersection", "difference", "copy"},
    Counter: {"most_common", "get", "items", "keys", "values", "total"},
}
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_CMPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: _identical(a, b), ast.IsNot: lambda a, b: not _identical(a, b)}


def _bounded_range(*args: Any) -> list[int]:
    r = range(*args)
    if len(r) > MAX_LEN:
        raise Unsupported("range too long")
    return list(r)


def _identical(a: Any, b: Any) -> bool:
    """``a is b`` where Python guarantees identity (None, True, False); other values are not modelled."""
    if any(x is None or isinstance(x, bool) for x in (a, b)):
        return a is b
    raise Unsupported("identity of values")


class Evaluator:
    """Evaluates functions of one module over literal values.

    Args:
        functions: the module's functions by simple name (calls between them are followed).
        skip: a statement or expression node treated as not taken (an ``if`` whose branch is skipped, the
            "rest of the function" question); None: none.
    """

    def __init__(self, functions: dict[str, ast.FunctionDef], skip: ast.AST | None = None,
                 constants: dict[str, Any] | None = None) -> None:
        self.functions = functions
        self.skip = skip
        self.constants = constants or {}
        self.steps = 0
        self.depth = 0
        #: the ``return`` statement that produced the last top-level result of :meth:`call`
        self.returned_by: ast.Return | None = None

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Unsupported("step limit")

    def call(self, fn: ast.FunctionDef, args: list[Any]) -> Any:
        """The value ``fn`` returns on ``args`` (copied). Raises Unsupported."""
        import copy

        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported("depth")
        params = fn.args.args
        if len(args) > len(params) or fn.args.vararg or fn.args.kwonlyargs:
            raise Unsupported("signature")
        env: dict[str, Any] = {}
        defaults = fn.args.defaults
        for i, p in enumerate(params):
            if i < len(args):
                env[p.arg] = copy.deepcopy(args[i])
            else:
                j = i - (len(params) - len(defaults))
                if j < 0:
                    raise Unsupported("missing argument")
                env[p.arg] = self.expr(defaults[j], {})
        try:
            self.block(fn.body, env)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
        return None

    def test_holds(self, test: ast.expr, fn: ast.FunctionDef, args: list[Any]) -> bool:
        """Whether ``test`` (an ``if`` condition at the top of ``fn``'s body path) holds on ``args``, with
        the statements before it run first. Raises Unsupported."""
        env: dict[str, Any] = {p.arg: a for p, a in zip(fn.args.args, args)}
        for st in fn.body:
            if isinstance(st, ast.If) and st.test is test:
                return bool(self.expr(test, env))
            if any(n is test for n in ast.walk(st)):
                raise Unsupported("nested condition")
            self.stmt(st, env)
        raise Unsupported("condition not found")

    # -- statements
    def block(self, body: list[ast.stmt], env: dict[str, Any]) -> None:
        for st in body:
            self.stmt(st, env)

    def stmt(self, st: ast.stmt, env: dict[str, Any]) -> None:
        self.tick()
        if isinstance(st, ast.Return):
            value = self.expr(st.value, env) if st.value is not None else None
            if self.depth == 1:
                self.returned_by = st
            raise _Return(value)
        if isinstance(st, ast.If):
            if st is self.skip:
                self.block(st.orelse, env)
            elif self.expr(st.test, env):
                self.block(st.body, env)
            else:
                self.block(st.orelse, env)
        elif isinstance(st, ast.Assign):
            value = self.expr(st.value, env)
            for t in st.targets:
                self.assign(t, value, env)
        elif isinstance(st, ast.AugAssign):
            if not isinstance(st.target, ast.Name) or st.target.id not in env:
                raise Unsupported("augmented target")
            env[st.target.id] = self.binop(type(st.op), env[st.target.id], self.expr(st.value, env))
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self.assign(st.target, self.expr(st.value, env), env)
        elif isinstance(st, ast.For):
            for item in self.iterate(self.expr(st.iter, env)):
                self.assign(st.target, item, env)
                try:
                    self.block(st.body, env)
                except _Break:
                    break
                except _Continue:
                    continue
            else:
                self.block(st.orelse, env)
        elif isinstance(st, ast.While):
            while self.expr(st.test, env):
                self.tick()
                try:
                    self.block(st.body, env)
                except _Break:
                    break
                except _Continue:
                    continue
        elif isinstance(st, ast.Expr):
            if not isinstance(st.value, ast.Constant):
                self.expr(st.value, env)
        elif isinstance(st, ast.Pass):
            pass
        elif isinstance(st, ast.Break):
            raise _Break()
        elif isinstance(st, ast.Continue):
            raise _Continue()
        else:
            raise Unsupported(type(st).__name__)

    def assign(self, target: ast.AST, value: Any, env: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(self.iterate(value))
            if len(items) != len(target.elts):
                raise Unsupported("unpack")
            for t, v in zip(target.elts, items):
                self.assign(t, v, env)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in env:
            obj = env[target.value.id]
            if not isinstance(obj, (list, dict)):
                raise Unsupported("item assignment")
            obj[self.expr(target.slice, env)] = value
        else:
            raise Unsupported("target")

    def iterate(self, value: Any) -> list[Any]:
        if isinstance(value, (list, tuple, str, set, frozenset, dict)):
            if len(value) > MAX_LEN:
                raise Unsupported("length")
            return list(value)
        raise Unsupported("iteration")

    # -- expressions
    def expr(self, node: ast.AST, env: dict[str, Any]) -> Any:
        self.tick()
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.constants:
                return self.constants[node.id]
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            raise Unsupported(f"name {node.id}")
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = [self.expr(e, env) for e in node.elts]
            return tuple(items) if isinstance(node, ast.Tuple) else items if isinstance(node, ast.List) else set(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise Unsupported("dict unpack")
            return {self.expr(k, env): self.expr(v, env) for k, v in zip(node.keys, node.values) if k is not None}
        if isinstance(node, ast.BinOp):
            return self.binop(type(node.op), self.expr(node.left, env), self.expr(node.right, env))
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, env)
            if isinstance(node.op, ast.Not):
                return not v
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return +v
            return ~v
        if isinstance(node, ast.BoolOp):
            result: Any = None
            for v in node.values:
                result = self.expr(v, env)
                if isinstance(node.op, ast.And) and not result or isinstance(node.op, ast.Or) and result:
                    return result
            return result
        if isinstance(node, ast.Compare):
            left = self.expr(node.left, env)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.expr(right_node, env)
                if not _CMPS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self.expr(node.body if self.expr(node.test, env) else node.orelse, env)
        if isinstance(node, ast.Subscript):
            obj = self.expr(node.value, env)
            if isinstance(node.slice, ast.Slice):
                s = node.slice
                parts = [self.expr(p, env) if p is not None else None for p in (s.lower, s.upper, s.step)]
                return obj[slice(*parts)]
            return obj[self.expr(node.slice, env)]
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            out = self.comprehension(node.generators, [node.elt], env)
            return set(out) if isinstance(node, ast.SetComp) else out
        if isinstance(node, ast.DictComp):
            pairs = self.comprehension(node.generators, [node.key, node.value], env)
            return dict(pairs)
        if isinstance(node, ast.JoinedStr):
            return "".join(str(self.expr(v.value, env)) if isinstance(v, ast.FormattedValue) and v.format_spec is None
                           and v.conversion == -1 else self._const_str(v) for v in node.values)
        if isinstance(node, ast.Call):
            return self.call_expr(node, env)
        raise Unsupported(type(node).__name__)

    def _const_str(self, v: ast.AST) -> str:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return v.value
        raise Unsupported("format")

    def comprehension(self, gens: list[ast.comprehension], elts: list[ast.expr], env: dict[str, Any]) -> list[Any]:
        out: list[Any] = []

        def go(i: int, scope: dict[str, Any]) -> None:
            if i == len(gens):
                vals = [self.expr(e, scope) for e in elts]
                out.append(vals[0] if len(vals) == 1 else tuple(vals))
                if len(out) > MAX_LEN:
                    raise Unsupported("length")
                return
            g = gens[i]
            for item in self.iterate(self.expr(g.iter, scope)):
                inner = dict(scope)
                self.assign(g.target, item, inner)
                if all(self.expr(c, inner) for c in g.ifs):
                    go(i + 1, inner)
        go(0, dict(env))
        return out

    def binop(self, op: type, a: Any, b: Any) -> Any:
        if op is ast.Pow and isinstance(b, int) and isinstance(a, int) and abs(b) * max(abs(a), 2).bit_length() > MAX_INT_BITS:
            raise Unsupported("power")
        if op is ast.LShift and isinstance(b, int) and b > MAX_INT_BITS:
            raise Unsupported("shift")
        if op is ast.Mult and (isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple))):
            n = b if isinstance(a, (str, list, tuple)) else a
            seq = a if isinstance(a, (str, list, tuple)) else b
            if isinstance(n, int) and n * len(seq) > MAX_LEN:
                raise Unsupported("repeat")
        try:
            value = _BINOPS[op](a, b)
        except KeyError:
            raise Unsupported("operator") from None
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            raise Unsupported("big integer")
        return value

    def call_expr(self, node: ast.Call, env: dict[str, Any]) -> Any:
        if node.keywords and not (isinstance(node.func, ast.Name) and node.func.id in ("sorted", "max", "min")):
            raise Unsupported("keywords")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise Unsupported("starred")
        if isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2:
            types = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            if not all(isinstance(t, ast.Name) and t.id in _TYPES for t in types):
                raise Unsupported("isinstance")
            return isinstance(self.expr(node.args[0], env), tuple(_TYPES[t.id] for t in types if isinstance(t, ast.Name)))
        args = [self.expr(a, env) for a in node.args]
        if isinstance(node.func, ast.Name):
            name = node.func.id
            if name in self.functions and name not in env:
                return self.call(self.functions[name], args)
            fn = _BUILTINS.get(name)
            if fn is None:
                raise Unsupported(f"call {name}")
            kwargs = {k.arg: self.expr(k.value, env) for k in node.keywords if k.arg == "reverse"}
            if len(kwargs) != len(node.keywords):
                raise Unsupported("keywords")
            return fn(*args, **kwargs)
        if isinstance(node.func, ast.Attribute):
            obj = self.expr(node.func.value, env)
            kind = next((t for t in _METHODS if type(obj) is t), None)
            if kind is None or node.func.attr not in _METHODS[kind]:
                raise Unsupported(f"method {node.func.attr}")
            if node.func.attr == "replace" and isinstance(obj, str) and len(obj) * max(
                    (len(a) for a in args if isinstance(a, str)), default=1) > MAX_LEN:
                raise Unsupported("replace too large")
            result = getattr(obj, node.func.attr)(*args)
            if isinstance(result, (str, list)) and len(result) > MAX_LEN:
                raise Unsupported("length")
            return list(result) if type(result).__name__ in ("dict_items", "dict_keys", "dict_values") else result
        raise Unsupported("call")
