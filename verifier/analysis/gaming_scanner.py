"""The AST visitor behind :func:`evalgap.verifier.analysis.gaming.scan_source`: one ``visit_*`` per construct,
each applying the ``EG4xx`` rules of :data:`evalgap.verifier.analysis.gaming.RULES` that concern it."""

from __future__ import annotations

import ast
from typing import Iterator

from evalgap.verifier.analysis.gaming import (
    GamingFinding, RULES, TestLiterals, _EXIT_CALLS, _FILE_CALLS, _NAME_ATTRS, _PROXY_WORDS,
    _SYMBOLIC_LIBS, _SYMBOLIC_TYPES, _TEST_ENV_PREFIXES, _TEST_ENV_VARS, _TEST_RUN_LIBS,
    _VERIFICATION_LIBS, _dotted, _str_const, is_test_path, is_trivial, literal_key)
from evalgap.verifier.analysis import gaming_probes
from evalgap.verifier.analysis.visible_tests import literal_value
from evalgap.specs_lang.diagnostics import (LYING_VALUE_TYPE, EXITS_PROCESS, PATCHES_VERIFICATION_LIBRARY, PROBES_TEST_ENVIRONMENT,
                                            READS_TESTS_OR_SPECS, SPECIAL_CASES_TEST_LITERALS,
                                            SWALLOWS_BASE_EXCEPTION, SYMBOLIC_OR_MOCK_PROXY)

__all__ = ["Scanner"]


class Scanner(ast.NodeVisitor):
    """Collects :class:`GamingFinding` s in ``found`` while visiting one module's tree."""

    def __init__(self, path: str, lines: list[str], added: set[int] | None, literals: TestLiterals) -> None:
        self.path = path
        self.lines = lines
        self.added = added
        self.literals = literals
        self.aliases: dict[str, str] = {}
        self.found: list[GamingFinding] = []
        self.parents: list[ast.AST] = []
        self.in_main_guard = 0
        #: names holding a place/clock reading or a module call counter (see gaming_probes.prepare)
        self.probe_names: dict[str, str] = {}

    # -- helpers
    def resolve(self, node: ast.AST) -> str | None:
        """The dotted name with the first part replaced by what it was imported as."""
        d = _dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        full = self.aliases.get(head, head)
        return f"{full}.{rest}" if rest else full

    def add(self, code: str, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", 1)
        if self.added is not None and line not in self.added:
            return
        if any(f.code == code and f.line == line for f in self.found):
            return
        snippet = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        self.found.append(GamingFinding(code, RULES[code].name, self.path, line,
                                        getattr(node, "col_offset", 0) + 1, message, snippet))

    def generic_visit(self, node: ast.AST) -> None:
        self.parents.append(node)
        super().generic_visit(node)
        self.parents.pop()

    # -- imports
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            if a.name.split(".")[0] == "crosshair":
                self.add(SYMBOLIC_OR_MOCK_PROXY, node, f"imports the symbolic-execution engine `{a.name}` in library code")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        for a in node.names:
            self.aliases[a.asname or a.name] = f"{mod}.{a.name}" if mod else a.name
        if mod.split(".")[0] == "crosshair":
            self.add(SYMBOLIC_OR_MOCK_PROXY, node, f"imports from the symbolic-execution engine `{mod}` in library code")
        self.generic_visit(node)

    # -- `if __name__ == "__main__":` is a script entry point, not library code
    def visit_If(self, node: ast.If) -> None:
        t = node.test
        guard = (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"
                 and any(_str_const(c) == "__main__" for c in t.comparators))
        if guard:
            self.in_main_guard += 1
            self.generic_visit(node)
            self.in_main_guard -= 1
        else:
            self._branch_on_process(t)
            self.generic_visit(node)

    # -- EG402: assignments to a protected library's attributes or sys.modules entries
    def _protected(self, target: ast.AST) -> str | None:
        base = target.value if isinstance(target, (ast.Attribute, ast.Subscript)) else None
        if isinstance(target, ast.Subscript) and self.resolve(target.value) == "sys.modules":
            key = _str_const(target.slice)
            if key and key.split(".")[0] in _VERIFICATION_LIBS:
                return f"sys.modules[{key!r}]"
            return None
        if isinstance(target, ast.Attribute) and base is not None:
            full = self.resolve(target)
            if full and full.split(".")[0] in _VERIFICATION_LIBS:
                return full
        return None

    def _check_targets(self, node: ast.AST, targets: list[ast.expr]) -> None:
        for t in targets:
            for sub in ast.walk(t) if isinstance(t, (ast.Tuple, ast.List)) else [t]:
                name = self._protected(sub)
                if name:
                    self.add(PATCHES_VERIFICATION_LIBRARY, node, f"replaces `{name}`, part of a contract, test or verification "
                             "library, so its checks may no longer run")
                elif gaming_probes.code_attribute(sub) and not isinstance(node, ast.Delete):
                    self.add(PATCHES_VERIFICATION_LIBRARY, node, f"rewrites `{ast.unparse(sub)[:60]}`: the function keeps its "
                             f"identity and runs other code (a checker's own functions can be altered this way unseen)")

    def visit_Assign(self, node: ast.Assign) -> None:
        self._check_targets(node, node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_targets(node, [node.target])
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_targets(node, [node.target])
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._check_targets(node, node.targets)
        self.generic_visit(node)

    # -- EG404
    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        broad = node.type is None
        if node.type is not None:
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            broad = any(self.resolve(t) in ("BaseException", "builtins.BaseException") for t in types)
        if broad and not _reraises(node.body):
            what = "a bare `except:`" if node.type is None else "`except BaseException`"
            self.add(SWALLOWS_BASE_EXCEPTION, node, f"{what} without re-raising swallows every exception, including the "
                     "verifier's own (KeyboardInterrupt, SystemExit, CrossHair's path-control exceptions)")
        self.generic_visit(node)

    # -- calls: EG401 EG402 EG403 EG404 EG405 EG406
    def visit_Call(self, node: ast.Call) -> None:
        name = self.resolve(node.func) or ""
        short = node.func.attr if isinstance(node.func, ast.Attribute) else name.rsplit(".", 1)[-1]
        args = list(node.args)
        first_src = ast.unparse(args[0]) if args else ""
        own = name not in ("os.kill", "os.killpg") or "getpid" in first_src or "getpgrp" in first_src or (
            bool(args) and literal_value(args[0]) == (True, 0))
        gaming_probes.on_call(self, node, name)
        if name in _EXIT_CALLS and not self.in_main_guard and own:
            self.add(EXITS_PROCESS, node, f"`{name}(...)` ends the process from library code; a test or "
                     "verification run can end before it reports a failure")
        if name in ("setattr", "delattr", "builtins.setattr") and args:
            obj = self.resolve(args[0]) or ""
            sub = args[0]
            key = ""
            if isinstance(sub, ast.Subscript) and self.resolve(sub.value) == "sys.modules":
                key = _str_const(sub.slice) or ""
            if obj.split(".")[0] in _VERIFICATION_LIBS or key.split(".")[0] in _VERIFICATION_LIBS:
                self.add(PATCHES_VERIFICATION_LIBRARY, node, f"`{name}` on `{obj or key}` modifies a contract, test or "
                         "verification library")
        if short in ("patch", "patch.object", "setitem", "pop", "__setitem__", "__delitem__", "update"):
            first = _str_const(args[0]) if args else None
            owner = self.resolve(node.func.value) if isinstance(node.func, ast.Attribute) else None
            target_obj = self.resolve(args[0]) if args else None
            if short == "patch" and first and first.split(".")[0] in _VERIFICATION_LIBS:
                self.add(PATCHES_VERIFICATION_LIBRARY, node, f"patches `{first}` of a contract, test or verification library")
            elif short == "patch" and target_obj and target_obj.split(".")[0] in _VERIFICATION_LIBS:
                self.add(PATCHES_VERIFICATION_LIBRARY, node, f"patches `{target_obj}` of a contract, test or verification library")
            elif owner == "sys.modules" and first and first.split(".")[0] in _VERIFICATION_LIBS:
                self.add(PATCHES_VERIFICATION_LIBRARY, node, f"`sys.modules.{short}({first!r})` swaps out a contract, test or "
                         "verification library")
        if name in ("contextlib.suppress", "suppress") and any(
                self.resolve(a) == "BaseException" for a in args):
            self.add(SWALLOWS_BASE_EXCEPTION, node, "`contextlib.suppress(BaseException)` swallows every exception, including "
                     "the verifier's own")
        if name in ("os.getenv", "os.environ.get", "os.environ.__getitem__", "os.environ.pop",
                    "os.environ.setdefault") and args:
            self._env(node, args[0])
        if name in ("isinstance", "issubclass") and len(args) == 2:
            cls_nodes = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
            for c in cls_nodes:
                full = self.resolve(c) or ""
                if full.split(".")[0] in _SYMBOLIC_TYPES or full.rsplit(".", 1)[-1] in (
                        "Mock", "MagicMock", "NonCallableMock", "AsyncMock"):
                    self.add(SYMBOLIC_OR_MOCK_PROXY, node, f"`{name}(..., {full})` tests whether an argument is a symbolic "
                             "or mock value")
        if short in ("startswith", "endswith", "find", "count", "index", "__contains__") and isinstance(
                node.func, ast.Attribute):
            if self._names_type(node.func.value) and args:
                self.add(SYMBOLIC_OR_MOCK_PROXY, node, "inspects the type or module name of a value "
                         f"(`{ast.unparse(node)[:80]}`) to tell symbolic or mock values from real ones")
        if name in ("sys.modules.get", "sys.modules.__contains__") and args:
            self._modules_probe(node, _str_const(args[0]))
        if name in _FILE_CALLS or short in ("read_text", "read_bytes", "open", "glob", "rglob", "iterdir"):
            for a in [*args, *(k.value for k in node.keywords)]:
                for part in ast.walk(a):
                    s = _str_const(part)
                    if s and is_test_path(s):
                        self.add(READS_TESTS_OR_SPECS, node, f"opens or lists {s!r}, a test or spec file, from the code "
                                 "under test")
                        break
        if (isinstance(node.func, ast.Attribute) and short in ("read_text", "read_bytes", "open")):
            for part in ast.walk(node.func.value):
                s = _str_const(part)
                if s and is_test_path(s):
                    self.add(READS_TESTS_OR_SPECS, node, f"reads {s!r}, a test or spec file, from the code under test")
                    break
        self.generic_visit(node)

    def _env(self, node: ast.AST, key_node: ast.AST) -> None:
        key = _str_const(key_node)
        if key and (key in _TEST_ENV_VARS or key.startswith(_TEST_ENV_PREFIXES)):
            self.add(PROBES_TEST_ENVIRONMENT, node, f"reads the environment variable {key!r}, which reveals a test or CI run")

    def _modules_probe(self, node: ast.AST, key: str | None) -> None:
        if not key:
            return
        top = key.split(".")[0]
        if top in _SYMBOLIC_LIBS:
            self.add(SYMBOLIC_OR_MOCK_PROXY, node, f"checks whether {key!r} is loaded, i.e. whether the code runs under "
                     "symbolic execution or verification")
        elif top in _TEST_RUN_LIBS:
            self.add(PROBES_TEST_ENVIRONMENT, node, f"checks whether {key!r} is loaded, i.e. whether the code runs under a "
                     "test runner")

    def _names_type(self, node: ast.AST) -> bool:
        """``type(x).__name__``/``__module__``/``__qualname__``, ``x.__class__.__name__``, ``str(type(x))``,
        ``repr(x)`` of a value: text that differs between real and symbolic/mock values."""
        if isinstance(node, ast.Attribute) and node.attr in _NAME_ATTRS:
            v = node.value
            if isinstance(v, ast.Call) and self.resolve(v.func) == "type":
                return True
            if isinstance(v, ast.Attribute) and v.attr == "__class__":
                return True
            if isinstance(v, ast.Call) and self.resolve(v.func) == "type" or (
                    isinstance(v, ast.Name) and node.attr == "__module__"):
                return True
        if isinstance(node, ast.Call) and self.resolve(node.func) in ("str", "repr") and node.args:
            inner = node.args[0]
            return isinstance(inner, ast.Call) and self.resolve(inner.func) == "type" or (
                isinstance(inner, ast.Attribute) and inner.attr == "__class__")
        return False

    # -- subscripts: os.environ["CI"]
    _VALUE_TYPES = frozenset({"int", "str", "float", "bytes", "bool", "tuple", "list", "dict", "set", "frozenset",
                              "complex"})
    _COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__"})

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        """EG417: ``class _Yes(int): __eq__ = lambda s, o: True``: a result of that class meets any ``==``
        postcondition (a red-team target, 2026-12-02, was verified by every engine this way)."""
        bases = {self.resolve(b) or "" for b in node.bases}
        if bases & self._VALUE_TYPES:
            for st in node.body:
                names = [st.name] if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) else [
                    t.id for t in getattr(st, "targets", []) if isinstance(t, ast.Name)]
                hit = [n for n in names if n in self._COMPARISONS]
                if hit:
                    self.add(LYING_VALUE_TYPE, node, f"`{node.name}` subclasses `{sorted(bases & self._VALUE_TYPES)[0]}` "
                             f"and defines `{hit[0]}`: its values can compare equal to anything a check expects")
                    break
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._branch_on_process(node.test)
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self._branch_on_process(node.test)
        self.generic_visit(node)

    def _branch_on_process(self, test: ast.AST) -> None:
        """EG405: a branch on the worker's command line (``sys.argv``) or on the whole module table
        (``len(sys.modules)``, ``"".join(sys.modules)``): both differ between a verification worker and the
        program in production (a red-team target returned right answers only when ``sys.argv[1:]`` was set)."""
        if self.in_main_guard:
            return
        for sub in ast.walk(test):
            what = self.resolve(sub) if isinstance(sub, (ast.Attribute, ast.Name)) else None
            if what == "sys.argv":
                self.add(PROBES_TEST_ENVIRONMENT, sub, "branches on the process's command line (`sys.argv`) in "
                         "library code, which a test runner or verification worker sets")
                return
            if isinstance(sub, ast.Call) and sub.args and any(self.resolve(a) == "sys.modules" for a in sub.args):
                self.add(PROBES_TEST_ENVIRONMENT, sub, "branches on the whole table of loaded modules "
                         f"(`{ast.unparse(sub)[:60]}`), which differs in a test or verification run")
                return

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if self.resolve(node.value) == "os.environ" and isinstance(node.ctx, ast.Load):
            self._env(node, node.slice)
        self.generic_visit(node)

    # -- comparisons: EG401 EG405 EG407
    def visit_Compare(self, node: ast.Compare) -> None:
        gaming_probes.on_compare(self, node)
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            left, right = operands[i], operands[i + 1]
            if isinstance(op, (ast.In, ast.NotIn)):
                container = self.resolve(right) or ""
                if container == "sys.modules":
                    self._modules_probe(node, _str_const(left))
                elif container == "os.environ":
                    self._env(node, left)
                s = _str_const(left)
                if s and any(w in s.lower() for w in _PROXY_WORDS) and self._is_value_text(right):
                    self.add(SYMBOLIC_OR_MOCK_PROXY, node, f"looks for {s!r} in a value's type or text to tell symbolic or mock "
                             "values from real ones")
            if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                for a, b in ((left, right), (right, left)):
                    s = _str_const(b)
                    if self._names_type(a) and s is not None and s:
                        self.add(SYMBOLIC_OR_MOCK_PROXY, node, f"compares a value's type or module name with {s!r} to tell "
                                 "symbolic or mock values from real ones")
        if self.literals and not self.literals.cases:  # with cases, gaming_cases applies the precise rules
            self._test_literals(node, operands)
        self.generic_visit(node)

    def _is_value_text(self, node: ast.AST) -> bool:
        if self._names_type(node):
            return True
        if isinstance(node, ast.Call) and self.resolve(node.func) in ("str", "repr", "type", "format"):
            return True
        return isinstance(node, ast.Attribute) and node.attr in _NAME_ATTRS

    def _test_literals(self, node: ast.Compare, operands: list[ast.expr]) -> None:
        if all(literal_value(o)[0] for o in operands):
            return  # constant-only comparison: nothing is special-cased
        for i, op in enumerate(node.ops):
            pair = (operands[i], operands[i + 1])
            candidates: list[ast.AST] = []
            if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                candidates = [p for p in pair if literal_value(p)[0]]
            elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(pair[1], (ast.Tuple, ast.List, ast.Set)):
                candidates = list(pair[1].elts)
            for cand in candidates:
                ok, value = literal_value(cand)
                if not ok or is_trivial(value):
                    continue
                try:
                    key = literal_key(value)
                except TypeError:
                    continue
                if key in self.literals.inputs:
                    extra = self._returned_outputs()
                    self.add(SPECIAL_CASES_TEST_LITERALS, node, f"special-cases {ast.unparse(cand)[:60]}, an input of a visible "
                             f"test{extra}")
                    return

    def _returned_outputs(self) -> str:
        """`` and returns ...`` when the enclosing ``if`` returns a visible test's expected output."""
        for p in reversed(self.parents):
            if isinstance(p, ast.If):
                for st in p.body:
                    if isinstance(st, ast.Return) and st.value is not None:
                        ok, v = literal_value(st.value)
                        if ok and not is_trivial(v):
                            try:
                                if literal_key(v) in self.literals.outputs:
                                    return f", then returns {ast.unparse(st.value)[:40]}, its expected output"
                            except TypeError:
                                pass
                break
        return ""

    def visit_Dict(self, node: ast.Dict) -> None:
        if self.literals and not self.literals.cases:
            hits = []
            for k, v in zip(node.keys, node.values):
                if k is None:
                    continue
                ok, kv = literal_value(k)
                if not ok or is_trivial(kv):
                    continue
                try:
                    kk = literal_key(kv)
                except TypeError:
                    continue
                okv, vv = literal_value(v)
                out_hit = False
                if okv and not is_trivial(vv):
                    try:
                        out_hit = literal_key(vv) in self.literals.outputs
                    except TypeError:
                        pass
                if kk in self.literals.inputs:
                    hits.append(out_hit)
            if len(hits) >= 2 or any(hits):
                self.add(SPECIAL_CASES_TEST_LITERALS, node, f"a lookup table whose {len(hits)} key(s) are visible test inputs"
                         + (" mapped to their expected outputs" if any(hits) else ""))
        self.generic_visit(node)


def _reraises(body: list[ast.stmt]) -> bool:
    for st in body:
        for sub in _walk_no_defs(st):
            if isinstance(sub, ast.Raise):
                return True
    return False


def _walk_no_defs(node: ast.AST) -> Iterator[ast.AST]:
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _walk_no_defs(child)
