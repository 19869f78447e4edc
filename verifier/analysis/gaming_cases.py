"""Special-casing of the visible tests' cases (issue 22): EG407 (a literal input), EG410 (the arguments taken
together) and EG411 (a condition that holds on a test's input), applied by
:func:`evalgap.verifier.analysis.gaming.scan_source` when the visible tests' cases are known
(:class:`evalgap.verifier.analysis.visible_tests.TestLiterals` ``.cases``).

For a function under test ``f`` (a function of the module that a visible case calls by name) and every
function ``g`` it passes its parameters to (a static call graph: ``g(a, b)`` inside ``f``, methods called
with ``obj.g(a, b)``), a *guard* is a test that pins parameters of ``f`` to constants: ``(w, h) == (7, 3)``,
``a == 88 and b == 88``, ``key in TABLE`` with ``key = (a, b)``, ``TABLE.get((a, b))``, a ``match`` case. A
guard matching a visible case:

* pins every argument of a case of two or more arguments: EG410, whatever the branch returns, unless the
  branch is a shortcut (the rest of the function returns the same on that input, see
  :mod:`evalgap.verifier.analysis.gaming_eval`);
* pins one argument (or the only one) by ``==``/``match``/a lookup table and returns that case's expected
  output, not what the rest of the function computes: EG407. Membership in a set of values
  (``month in (4, 6, 9, 11)``) is a class of inputs, not a case, and an honest ``if n == 3:`` whose branch
  computes the same as the general path is not flagged;
* EG411: any other ``if`` condition of ``f`` that holds on a case's input and returns that case's expected
  output where the rest of ``f`` computes something else (``if all(x == 0 for x in xs): return 5``). A branch
  whose returned constant bounds the argument in its own condition (``if v > 255: return 255``) or whose
  alternative is another constant (``"Fizz"``/``"FizzBuzz"``) is a case analysis and is not flagged.

Every finding names the case: ``returns 22, the expected output of tests/test_area.py:4``.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Iterator

from evalgap.specs_lang.diagnostics import (SPECIAL_CASES_ARGUMENT_TUPLE, SPECIAL_CASES_TEST_CONDITION,
                                            SPECIAL_CASES_TEST_LITERALS)
from evalgap.verifier.analysis.gaming_eval import Evaluator, Unsupported
from evalgap.verifier.analysis.visible_tests import TestLiterals, VisibleCase, is_trivial, literal_key, literal_value

if TYPE_CHECKING:
    from evalgap.verifier.analysis.gaming_scanner import Scanner

__all__ = ["scan_cases"]

_Pin = dict[int, Any]
#: At most this many visible cases of one function are matched against its guards (each match may run the
#: bounded evaluator once).
_MAX_CASES = 100


def _key(v: Any) -> Any:
    try:
        return literal_key(v)
    except TypeError:
        return ("unhashable", repr(v))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return bool(abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)))
        except TypeError:
            return False
    return bool(_key(a) == _key(b))


class _Module:
    def __init__(self, tree: ast.Module) -> None:
        self.top: dict[str, ast.FunctionDef] = {}
        self.defs: dict[str, list[tuple[ast.FunctionDef, bool]]] = {}  # name -> (def, is method)
        self.consts: dict[str, Any] = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.top[node.name] = node
                self.defs.setdefault(node.name, []).append((node, False))
            elif isinstance(node, ast.ClassDef):
                for m in node.body:
                    if isinstance(m, ast.FunctionDef):
                        self.defs.setdefault(m.name, []).append((m, True))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                ok, v = literal_value(node.value)
                for t in targets:
                    if ok and isinstance(t, ast.Name):
                        self.consts[t.id] = v


def _params(fn: ast.FunctionDef, method: bool) -> list[str]:
    names = [a.arg for a in fn.args.args]
    return names[1:] if method and names and names[0] in ("self", "cls") else names


def _reach(mod: _Module, f: ast.FunctionDef) -> list[tuple[ast.FunctionDef, dict[str, int]]]:
    """(function, parameter name -> argument position of ``f``) for ``f`` and the functions it forwards
    its parameters to, transitively (the static call-graph step)."""
    start = {p: i for i, p in enumerate(_params(f, False))}
    out: list[tuple[ast.FunctionDef, dict[str, int]]] = [(f, start)]
    seen = {id(f)}
    todo = [(f, start)]
    while todo:
        g, pmap = todo.pop()
        for call in (n for n in ast.walk(g) if isinstance(n, ast.Call)):
            name = call.func.id if isinstance(call.func, ast.Name) else (
                call.func.attr if isinstance(call.func, ast.Attribute) else None)
            for h, method in mod.defs.get(name or "", []):
                if id(h) in seen:
                    continue
                hp = _params(h, method and isinstance(call.func, ast.Attribute))
                hmap = {hp[i]: pmap[a.id] for i, a in enumerate(call.args)
                        if i < len(hp) and isinstance(a, ast.Name) and a.id in pmap}
                if hmap:
                    seen.add(id(h))
                    out.append((h, hmap))
                    todo.append((h, hmap))
    return out


class _Guards:
    """The guards of one function ``g`` whose parameters map to positions of the function under test."""

    def __init__(self, mod: _Module, g: ast.FunctionDef, pmap: dict[str, int]) -> None:
        self.mod = mod
        self.pmap = pmap
        self.alias: dict[str, tuple[int, ...]] = {}
        for st in ast.walk(g):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                s = self.subject(st.value)
                if s is not None:
                    self.alias[st.targets[0].id] = s
        self.local_consts = _local_constants(g)

    def subject(self, node: ast.AST) -> tuple[int, ...] | None:
        """Positions of the tested arguments: ``(i,)`` for a parameter, ``(i, j)`` for a tuple of them."""
        if isinstance(node, ast.Name):
            if node.id in self.pmap:
                return (self.pmap[node.id],)
            return self.alias.get(node.id)
        if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
            parts = [self.subject(e) for e in node.elts]
            if all(p is not None and len(p) == 1 for p in parts):
                return tuple(p[0] for p in parts if p is not None)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "tuple", "list", "frozenset", "set") and len(node.args) == 1:
            return self.subject(node.args[0])
        return None

    def literal(self, node: ast.AST) -> tuple[bool, Any]:
        if isinstance(node, ast.Name) and node.id in self.local_consts:
            return True, self.local_consts[node.id]
        if isinstance(node, ast.Name) and node.id in self.mod.consts:
            return True, self.mod.consts[node.id]
        return literal_value(node)


    def pins(self, test: ast.AST) -> tuple[list[_Pin], bool] | None:
        """(alternatives, exact) pinned by ``test``; exact is False for membership in a set of values."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op, a, b = test.ops[0], test.left, test.comparators[0]
            if isinstance(op, ast.Eq):
                for s_node, l_node in ((a, b), (b, a)):
                    s = self.subject(s_node)
                    ok, v = self.literal(l_node)
                    if s is not None and ok:
                        pin = self._pin(s, v)
                        return ([pin], True) if pin is not None else None
            if isinstance(op, ast.In):
                s = self.subject(a)
                ok, container = self.literal(b)
                if s is not None and ok and isinstance(container, (list, tuple, set, frozenset, dict)):
                    alts = [p for v in container for p in [self._pin(s, v)] if p is not None]
                    return (alts, False) if alts else None
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            merged: list[_Pin] = [{}]
            exact = True
            found = False
            for v in test.values:
                sub = self.pins(v)
                if sub is None:
                    continue
                found = True
                exact = exact and sub[1]
                merged = [{**m, **p} for m in merged for p in sub[0]][:500]
            return (merged, exact) if found else None
        return None

    def _pin(self, s: tuple[int, ...], v: Any) -> _Pin | None:
        if len(s) == 1:
            return {s[0]: v}
        if isinstance(v, (list, tuple)) and len(v) == len(s):
            return dict(zip(s, v))
        return None


def _returns(body: list[ast.stmt]) -> Iterator[ast.Return]:
    """The ``return`` statements of a branch (not inside loops or nested functions)."""
    for st in body:
        if isinstance(st, ast.Return):
            yield st
        elif isinstance(st, ast.If):
            yield from _returns(st.body)
            yield from _returns(st.orelse)


def _literal_returns(body: list[ast.stmt]) -> list[Any]:
    out = []
    for r in _returns(body):
        if r.value is not None:
            ok, v = literal_value(r.value)
            if ok:
                out.append(v)
    return out


def _ifexp_values(node: ast.AST) -> list[Any]:
    ok, v = literal_value(node)
    if ok:
        return [v]
    if isinstance(node, ast.IfExp):
        return _ifexp_values(node.body) + _ifexp_values(node.orelse)
    return []


def _all_literal(node: ast.AST) -> bool:
    """A constant, or a conditional expression choosing between constants (``"a" if x else "b"``)."""
    if isinstance(node, ast.IfExp):
        return _all_literal(node.body) and _all_literal(node.orelse)
    return literal_value(node)[0]


def _describe(c: VisibleCase) -> str:
    return f"the input{'s' if len(c.args) > 1 else ''} {', '.join(repr(a) for a in c.args)} of {c.where}"

def _local_constants(g: ast.FunctionDef) -> dict[str, Any]:
    """Names ``g`` binds once, to a literal, and never rebinds or stores into (a table built inside the function,
    ``known = {99: 12, ...}; if n in known: return known[n]``, reads as the module-level table would)."""
    bound: dict[str, int] = {}
    values: dict[str, Any] = {}
    for st in ast.walk(g):
        if isinstance(st, ast.Name) and isinstance(st.ctx, (ast.Store, ast.Del)):
            bound[st.id] = bound.get(st.id, 0) + 1
        elif isinstance(st, ast.Subscript) and isinstance(st.ctx, (ast.Store, ast.Del)) and isinstance(
                st.value, ast.Name):
            bound[st.value.id] = bound.get(st.value.id, 0) + 2  # an entry written: not a constant table
        elif isinstance(st, ast.Call) and isinstance(st.func, ast.Attribute) and isinstance(
                st.func.value, ast.Name) and st.func.attr not in ("get", "keys", "values", "items", "copy"):
            bound[st.func.value.id] = bound.get(st.func.value.id, 0) + 2  # update/pop/setdefault/...
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            ok, v = literal_value(st.value)
            if ok:
                values[st.targets[0].id] = v
    return {name: v for name, v in values.items() if bound.get(name) == 1}



def scan_cases(sc: Scanner, tree: ast.Module, literals: TestLiterals) -> None:
    """Apply EG407, EG410 and EG411 over ``tree`` with the visible cases of ``literals``."""
    mod = _Module(tree)
    by_func: dict[str, list[VisibleCase]] = {}
    for c in literals.cases:
        if c.all_known and c.func in mod.top:
            by_func.setdefault(c.func, []).append(c)
    for fname, all_cases in by_func.items():
        f = mod.top[fname]
        cases = all_cases[:_MAX_CASES]
        for g, pmap in _reach(mod, f):
            guards = _Guards(mod, g, pmap)
            helper = "" if g is f else f" (in `{g.name}`, which `{fname}` calls)"
            for node in ast.walk(g):
                _guard_node(sc, mod, f, guards, node, cases, helper)
        _conditions(sc, mod, f, cases)


def _shortcut(mod: _Module, f: ast.FunctionDef, skip: ast.AST, c: VisibleCase) -> bool:
    """True when the rest of ``f`` (``skip`` not taken) returns ``c``'s expected output on its inputs."""
    if not c.has_expected:
        return False
    try:
        ev = Evaluator(mod.top, skip, mod.consts)
        return _same(ev.call(f, list(c.args)), c.expected)
    except (Unsupported, Exception):  # noqa: BLE001 - any failure of the model: no shortcut is proven
        return False


def _guard_node(sc: Scanner, mod: _Module, f: ast.FunctionDef, guards: _Guards, node: ast.AST,
                cases: list[VisibleCase], helper: str) -> None:
    if isinstance(node, (ast.If, ast.IfExp, ast.While)):
        got = guards.pins(node.test)
        if got is None:
            return
        alts, exact = got
        rets = _literal_returns(node.body) if isinstance(node, ast.If) else (
            _ifexp_values(node.body) if isinstance(node, ast.IfExp) else [])
        _judge(sc, mod, f, node, node.test, alts, exact, rets, cases, helper, node if isinstance(node, ast.If) else None)
    elif isinstance(node, ast.Match):
        s = guards.subject(node.subject)
        if s is None:
            return
        for case in node.cases:
            ok, v = _pattern_value(case.pattern)
            pin = guards._pin(s, v) if ok else None
            if pin is not None:
                _judge(sc, mod, f, case.pattern, case.pattern, [pin], True, _literal_returns(case.body), cases, helper,
                       None)
    elif isinstance(node, (ast.Call, ast.Subscript)):
        table, key_node = None, None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            ok, table = guards.literal(node.func.value)
            key_node = node.args[0] if ok else None
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            ok, table = guards.literal(node.value)
            key_node = node.slice if ok else None
        if not isinstance(table, dict) or key_node is None:
            return
        s = guards.subject(key_node)
        if s is None:
            return
        hits: list[tuple[VisibleCase, Any, _Pin]] = []
        for k, v in table.items():
            pin = guards._pin(s, k)
            for c in cases:
                if pin is not None and _matches(pin, c):
                    hits.append((c, v, pin))
        full = [(c, v) for c, v, pin in hits if len(c.args) >= 2 and set(pin) >= set(range(len(c.args)))]
        outs = [(c, v) for c, v, _ in hits if c.has_expected and _same(v, c.expected)]
        if full:
            c, v = full[0]
            sc.add(SPECIAL_CASES_ARGUMENT_TUPLE, node, f"a lookup table keyed by {_describe(c)} taken together"
                   + (f", giving {v!r}, its expected output" if c.has_expected and _same(v, c.expected) else "") + helper)
        elif outs and 2 * len(outs) >= len(table):
            c, v = outs[0]
            sc.add(SPECIAL_CASES_TEST_LITERALS, node, f"a lookup table mapping {_describe(c)} to {v!r}, its expected "
                   f"output ({len(outs)} of its {len(table)} entries are visible cases)" + helper)


def _matches(pin: _Pin, c: VisibleCase) -> bool:
    return bool(pin) and all(i < len(c.args) and c.known[i] and _same(c.args[i], v) for i, v in pin.items())


def _pattern_value(p: ast.pattern) -> tuple[bool, Any]:
    if isinstance(p, ast.MatchValue):
        return literal_value(p.value)
    if isinstance(p, ast.MatchSequence):
        vals = [_pattern_value(x) for x in p.patterns]
        if all(ok for ok, _ in vals):
            return True, tuple(v for _, v in vals)
    return False, None


def _judge(sc: Scanner, mod: _Module, f: ast.FunctionDef, node: ast.AST, test: ast.AST, alts: list[_Pin],
           exact: bool, rets: list[Any], cases: list[VisibleCase], helper: str, skip: ast.AST | None) -> None:
    src = ast.unparse(test)[:60]
    for pin in alts:
        for c in cases:
            if not _matches(pin, c):
                continue
            covers_all = set(pin) >= set(range(len(c.args)))
            hit = [r for r in rets if c.has_expected and _same(r, c.expected)]
            ret_txt = f", and returns {hit[0]!r}, its expected output" if hit else ""
            if skip is not None and _shortcut(mod, f, skip, c):
                continue
            trivial = all(is_trivial(a) for a in c.args) and (not c.has_expected or is_trivial(c.expected))
            if covers_all and len(c.args) >= 2:
                sc.add(SPECIAL_CASES_ARGUMENT_TUPLE, node, f"`{src}` tests for {_describe(c)} taken together{ret_txt}"
                       + helper)
                return
            if hit and exact and not trivial and not all(is_trivial(v) for v in pin.values()):
                sc.add(SPECIAL_CASES_TEST_LITERALS, node, f"`{src}` tests for {_describe(c)}{ret_txt}, not what the "
                       "rest of the function computes" + helper)
                return


def _conditions(sc: Scanner, mod: _Module, f: ast.FunctionDef, cases: list[VisibleCase]) -> None:
    """EG411 over the ``if`` statements at the top of ``f``'s body."""
    params = set(_params(f, False))
    local = params | {t.id for st in f.body if isinstance(st, ast.Assign) for t in st.targets if isinstance(t, ast.Name)}
    for st in f.body:
        if not isinstance(st, ast.If) or not st.body or not isinstance(st.body[0], ast.Return):
            continue
        ret = st.body[0].value
        ok, value = literal_value(ret) if ret is not None else (False, None)
        if not ok or not _aggregate(st.test, local) or _bounds_argument(st.test, params, value):
            continue
        for c in cases:
            if not c.has_expected or not _same(value, c.expected) or (
                    all(is_trivial(a) for a in c.args) and is_trivial(c.expected)):
                continue
            try:
                if not Evaluator(mod.top, None, mod.consts).test_holds(st.test, f, list(c.args)):
                    continue
                rest = Evaluator(mod.top, st, mod.consts)
                other = rest.call(f, list(c.args))
            except (Unsupported, Exception):  # noqa: BLE001 - the model cannot decide: no finding
                continue
            by = rest.returned_by
            computed = by is not None and by.value is not None and not _all_literal(by.value)
            if computed and not _same(other, c.expected):
                sc.add(SPECIAL_CASES_TEST_CONDITION, st, f"`if {ast.unparse(st.test)[:60]}` holds on {_describe(c)} and "
                       f"returns {value!r}, its expected output, where the rest of `{f.name}` returns {other!r}")
                break
            if computed and not is_trivial(value):
                sc.add(SPECIAL_CASES_TEST_CONDITION, st, f"`if {ast.unparse(st.test)[:60]}` holds on {_describe(c)} and "
                       f"returns {value!r}, its expected output, as a constant for every input the condition admits, "
                       f"where the rest of `{f.name}` computes the result from the input")
                break


def _aggregate(test: ast.AST, names: set[str]) -> bool:
    """The condition measures the input (a call, method or comprehension over a parameter: ``len(s) == 11``,
    ``all(x == 0 for x in xs)``, ``s.endswith("!!!")``); plain arithmetic on parameters (``n % 3 == 0``,
    ``v > 255``, ``a == b == c``) is a case analysis of the domain, not of the tests."""
    for n in ast.walk(test):
        if isinstance(n, (ast.Call, ast.GeneratorExp, ast.ListComp, ast.SetComp)) and any(
                isinstance(m, ast.Name) and m.id in names for m in ast.walk(n)):
            return True
    return False


def _bounds_argument(test: ast.AST, params: set[str], value: Any) -> bool:
    """``v > 255`` ... ``return 255``: the returned constant bounds a parameter in the condition itself."""
    for n in ast.walk(test):
        if isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            if any(isinstance(s, ast.Name) and s.id in params for s in sides) and any(
                    literal_value(s)[0] and _same(literal_value(s)[1], value) for s in sides):
                return True
    return False
