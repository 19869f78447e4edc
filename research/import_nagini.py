"""Import Nagini-style ``Requires``/``Ensures`` contracts (HumanEval-Nagini, human written) into ``.req`` property specs.

Input: a Nagini program (``Bench/NNN-name.py``): ``@Pure`` helper functions and one main function whose
``Requires(...)``/``Ensures(...)`` calls sit between ``# pre-conditions-start/end`` and
``# post-conditions-start/end``. Output (:class:`Imported`):

* the ``.req`` text: ``function ENTRY(params)`` with the HumanEval entry point and parameter names (Nagini's
  names are mapped by position), one requirement per ``Requires`` (a precondition) and per ``Ensures``;
* ``helpers``: the ``@Pure`` helpers as plain Python (``Requires``/``Ensures`` lines removed; recursion kept),
  which the spec reads beside the code under check (evalgap's pure helper definitions).

Translation (Nagini -> spec language): ``Result()`` -> ``result``; ``Implies(a, b)`` -> ``(a ==> b)``;
``Acc(...)`` permissions dropped; ``Forall(range(..)|SEQ, lambda v: P)`` -> ``forall v in ...: P``;
``Forall(int, lambda v: not G or P)`` / ``Implies(G, P)`` and ``Exists(int, lambda v: G and P)`` ->
``forall/exists v in range(LO, HI): ...`` with LO/HI read from G's bound conjuncts (``LO <= v``, ``v < HI``,
through a chain ``v < w < HI``) and G kept in the body, so the bounded quantifier means the same as the
unbounded one. Anything else (``Old``, ``ToSeq``, ``PSeq``, unbounded quantifiers) is not imported: the
reason is returned, never silently dropped.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

__all__ = ["Imported", "import_nagini", "NaginiImportError"]

from evalgap.research.errors import ResearchError


class NaginiImportError(ResearchError):
    """The program holds a construct the importer does not translate (the message names it)."""


@dataclass(frozen=True)
class Imported:
    """A translated Nagini program.

    Attributes:
        spec_text: the ``.req`` text.
        helpers: Python source of the pure helpers ('' when none).
        requires: number of preconditions imported; ``ensures``: postconditions imported.
        retyped: one line per parameter Nagini types differently from HumanEval (HumanEval-Nagini models a
            ``str`` as ``List[int]`` of character codes); the clauses may then not hold for HumanEval's types.
    """

    spec_text: str
    helpers: str
    requires: int
    ensures: int
    retyped: tuple[str, ...] = ()


_UNSUPPORTED = ("Old", "ToSeq", "PSeq", "PSet", "PMultiset", "Acc", "Unfolding", "Fold", "Unfold", "Let")


class _Tx:
    def __init__(self, rename: dict[str, str]) -> None:
        self.rename = rename

    def text(self, node: ast.expr) -> str:
        return ast.unparse(self.tx(node))

    def tx(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name == "Result":
                return ast.Name("result")
            if name == "Implies":
                return ast.Name(f"({self.text(node.args[0])} ==> {self.text(node.args[1])})")
            if name in ("Forall", "Exists"):
                return ast.Name(self._quant(name, node))
            if name in _UNSUPPORTED:
                raise NaginiImportError(f"{name}(...) is not translated")
        if isinstance(node, ast.Name):
            return ast.Name(self.rename.get(node.id, node.id))
        if isinstance(node, ast.Lambda):
            raise NaginiImportError("a lambda outside a quantifier is not translated")
        new = ast.copy_location(type(node)(**{f: getattr(node, f) for f in node._fields}), node)
        for f in node._fields:
            val = getattr(new, f)
            if isinstance(val, ast.expr):
                setattr(new, f, self.tx(val))
            elif isinstance(val, list):
                setattr(new, f, [self.tx(v) if isinstance(v, ast.expr) else v for v in val])
        return new

    def _quant(self, kind: str, node: ast.Call) -> str:
        word = "forall" if kind == "Forall" else "exists"
        dom, lam = node.args[0], node.args[1]
        if not isinstance(lam, ast.Lambda) or len(lam.args.args) != 1:
            raise NaginiImportError(f"{kind} without a one-argument lambda")
        var = lam.args.args[0].arg
        if not (isinstance(dom, ast.Name) and dom.id == "int"):
            return f"({word} {var} in {self.text(dom)}: {self.text(lam.body)})"
        guard, _ = _split(kind, lam.body)
        if guard is None and not (_nested(kind, lam.body) and _all_guards(kind, lam.body)):
            raise NaginiImportError(f"{kind}(int, ...) over {var} has no guard bounding it")
        lo, hi = _bounds(var, lam.body, kind)
        if lo is None or hi is None:
            raise NaginiImportError(f"{kind}(int, ...): no lower and upper bound of {var} in its guard")
        return f"({word} {var} in range({self.text(lo)}, {self.text(hi)}): {self.text(lam.body)})"


def _conjuncts(e: ast.expr) -> list[ast.expr]:
    if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.And):
        return [c for v in e.values for c in _conjuncts(v)]
    return [e]


def _split(kind: str, body: ast.expr) -> tuple[ast.expr | None, ast.expr | None]:
    """(guard, rest) of a quantifier body: ``not G or P`` / ``Implies(G, P)`` (Forall), ``G and P`` (Exists)."""
    if kind == "Forall":
        if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.Or) and isinstance(body.values[0], ast.UnaryOp) \
                and isinstance(body.values[0].op, ast.Not):
            rest = body.values[1] if len(body.values) == 2 else ast.BoolOp(ast.Or(), body.values[1:])
            return body.values[0].operand, rest
        if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == "Implies":
            return body.args[0], body.args[1]
        return None, None
    if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And):
        return body, body
    return None, None


def _pairs(c: ast.expr) -> list[tuple[ast.expr, ast.cmpop, ast.expr]]:
    if not isinstance(c, ast.Compare):
        return []
    items = [c.left, *c.comparators]
    return [(items[i], op, items[i + 1]) for i, op in enumerate(c.ops)]


def _nested(kind: str, body: ast.expr) -> bool:
    return isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == kind \
        and len(body.args) >= 2 and isinstance(body.args[1], ast.Lambda)


def _split_or_nested(kind: str, body: ast.expr) -> tuple[ast.expr | None, ast.expr | None]:
    """Like :func:`_split`, and a body that is itself a same-kind quantifier has no guard of its own."""
    if _nested(kind, body):
        return None, body
    return _split(kind, body)


def _all_guards(kind: str, body: ast.expr) -> list[ast.expr]:
    """Bound conjuncts of this quantifier's guard and of directly nested quantifiers of the same kind."""
    guard, rest = _split_or_nested(kind, body)
    out = _conjuncts(guard) if guard is not None else []
    if isinstance(rest, ast.Call) and isinstance(rest.func, ast.Name) and rest.func.id == kind \
            and len(rest.args) >= 2 and isinstance(rest.args[1], ast.Lambda):
        out += _all_guards(kind, rest.args[1].body)
    return out


def _plus1(e: ast.expr) -> ast.expr:
    return ast.BinOp(e, ast.Add(), ast.Constant(1))


def _qvars(kind: str, body: ast.expr) -> set[str]:
    _, rest = _split_or_nested(kind, body)
    if isinstance(rest, ast.Call) and isinstance(rest.func, ast.Name) and rest.func.id == kind \
            and len(rest.args) >= 2 and isinstance(rest.args[1], ast.Lambda):
        lam = rest.args[1]
        return {a.arg for a in lam.args.args} | _qvars(kind, lam.body)
    return set()


def _names(e: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


def _bounds(var: str, body: ast.expr, kind: str) -> tuple[ast.expr | None, ast.expr | None]:
    """``(LO, HI)`` with ``LO <= var < HI`` implied by the guard (None where no bound is found)."""
    inner = _qvars(kind, body)
    los: dict[str, list[ast.expr]] = {}
    his: dict[str, list[tuple[ast.expr, str | None]]] = {}  # (bound, inner variable it is when a chain link)
    for c in _all_guards(kind, body):
        for a, op, b in _pairs(c):
            for x, o, y in ((a, op, b), (b, _flip(op), a)):
                if not isinstance(x, ast.Name) or (x.id != var and x.id not in inner):
                    continue
                link = y.id if isinstance(y, ast.Name) and y.id in inner else None
                if isinstance(o, ast.Lt):
                    his.setdefault(x.id, []).append((y, link))
                elif isinstance(o, ast.LtE):
                    his.setdefault(x.id, []).append((_plus1(y), link))
                elif isinstance(o, ast.Gt):
                    los.setdefault(x.id, []).append(_plus1(y))
                elif isinstance(o, ast.GtE):
                    los.setdefault(x.id, []).append(y)

    def hi_of(v: str, seen: frozenset[str]) -> ast.expr | None:
        cands = his.get(v, [])
        for y, link in cands:
            if link is None and not (_names(y) & inner):
                return y
        for y, link in cands:
            if link is not None and link not in seen:
                found = hi_of(link, seen | {link})  # v <(=) w < HI  ==>  v < HI (+1 for <=, kept safe)
                if found is not None:
                    return _plus1(found) if isinstance(y, ast.BinOp) else found
        return None

    lo = next((y for y in los.get(var, []) if not (_names(y) & inner)), None)
    return lo, hi_of(var, frozenset({var}))


_PARAMS: set[str] = set()


def _is_param_like(name: str) -> bool:
    return name in _PARAMS


def _flip(op: ast.cmpop) -> ast.cmpop:
    return {ast.Lt: ast.Gt(), ast.LtE: ast.GtE(), ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(type(op), op)


def _clauses(fn: ast.FunctionDef, kind: str) -> list[ast.expr]:
    out = []
    for st in fn.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name) \
                and st.value.func.id == kind:
            arg = st.value.args[0]
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "Acc":
                continue
            out.append(arg)
    return out


def _helpers(tree: ast.Module, source: str) -> str:
    parts = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(isinstance(d, ast.Name) and d.id == "Pure"
                                                     for d in node.decorator_list):
            node.decorator_list = []
            node.body = [st for st in node.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
                         and isinstance(st.value.func, ast.Name)
                         and st.value.func.id in ("Requires", "Ensures", "Invariant", "Assert", "Decreases"))]
            text = ast.unparse(node)
            if re.search(r"\b(Forall|Exists|Acc|Result|ToSeq|PSeq|Old|Implies)\(", text):
                raise NaginiImportError(f"pure helper {node.name} uses Nagini constructs in its body")
            parts.append(text)
    return "\n\n\n".join(parts) + ("\n" if parts else "")


def _kind(annotation: str) -> str | None:
    """The outer type constructor of a type annotation (``List[int]`` -> ``list``), None for any other."""
    head = annotation.replace(" ", "").split("[", 1)[0].rsplit(".", 1)[-1].lower()
    return head if head in {"int", "float", "bool", "str", "bytes", "list", "tuple", "dict", "set"} else None


def _quote(text: str) -> str:
    return " ".join(text.split()).replace("\\", "/").replace('"', "'")[:160]


def import_nagini(source: str, task_id: str, entry_point: str, param_types: tuple[tuple[str, str], ...]) -> Imported:
    """Translate one HumanEval-Nagini program into a property spec of ``entry_point``.

    Args:
        source: the Nagini program.
        task_id: the HumanEval task (``HumanEval/57``), for the spec's name and requirement IDs.
        entry_point: HumanEval's function name (Nagini may spell it differently).
        param_types: HumanEval's ``(name, type)`` parameters; Nagini's parameters are renamed to these by position.

    Returns:
        The :class:`Imported` spec.

    Raises:
        NaginiImportError: no main function, a parameter-count mismatch, or an untranslated construct.
    """
    tree = ast.parse(source)
    mains = [n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.decorator_list
             and (_clauses(n, "Ensures") or _clauses(n, "Requires"))]
    if not mains:
        raise NaginiImportError("no function with Requires/Ensures")
    fn = next((n for n in mains if n.name.replace("_", "").lower() == entry_point.replace("_", "").lower()), None)
    if fn is None:
        # no name matches: the main function is the one no other function calls (HumanEval/105's file has
        # four contracted functions; the last one, NumberToName, is a helper of SortReverseAndName)
        def callers(name: str) -> bool:
            return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
                       for f in tree.body if isinstance(f, ast.FunctionDef) and f.name != name for c in ast.walk(f))
        roots = [n for n in mains if not callers(n.name)]
        if len(roots) != 1:
            raise NaginiImportError(f"no function named like {entry_point} and {len(roots)} uncalled candidates "
                                    f"({', '.join(n.name for n in roots)})")
        fn = roots[0]
    nag = [a.arg for a in fn.args.args]
    if len(nag) != len(param_types):
        raise NaginiImportError(f"Nagini's {fn.name} has {len(nag)} parameters, HumanEval's {entry_point} "
                                f"{len(param_types)}")
    retyped: list[str] = []
    for arg, (p, t) in zip(fn.args.args, param_types):
        annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        theirs, ours = _kind(annotation), _kind(t)
        if theirs and ours and theirs != ours and {theirs, ours} != {"int", "float"}:
            retyped.append(f"Nagini's {fn.name} types parameter {arg.arg} as {annotation} where HumanEval's "
                           f"{entry_point} takes {p}: {t}")
    rename = {n: p for n, (p, _) in zip(nag, param_types)}
    _PARAMS.clear()
    _PARAMS.update(rename)
    tx = _Tx(rename)
    helpers = _helpers(tree, source)
    num = task_id.split("/")[-1]
    params = ", ".join(f"{p}: {t.replace(' ', '')}" for p, t in param_types)
    lines = [f'spec nagini_he{num} "HumanEval/{num} ({entry_point}): Requires/Ensures imported from '
             f'HumanEval-Nagini (human written)"', "", f"function {entry_point}({params})"]
    pre = _clauses(fn, "Requires")
    post = _clauses(fn, "Ensures")
    for i, e in enumerate(pre, 1):
        lines += [f'  requirement NAG{num}-PRE-{i} "Nagini precondition: {_quote(ast.unparse(e))}"',
                  f"    requires {tx.text(e)}"]
    for i, e in enumerate(post, 1):
        lines += [f'  requirement NAG{num}-{i} "Nagini postcondition: {_quote(ast.unparse(e))}"',
                  f"    ensures {tx.text(e)}"]
    if not post:
        raise NaginiImportError("no postcondition other than permissions")
    return Imported("\n".join(lines) + "\n", helpers, len(pre), len(post), tuple(retyped))
