"""Shared core of the Python-contract importers (``evalgap import icontract|deal|pep316``).

The importers read a module **statically** (:mod:`ast`; the module is never imported or run), collect each
contract as an :class:`ImportedReq` (a condition already translated into spec-language expression text, or the
reason it could not be), and hand them to :func:`render_module_spec`, which writes one ``.req`` text per
module: ``function`` blocks for module functions, ``class`` blocks with ``method`` blocks and class
``invariant`` requirements. Every requirement is checked on its own (parse, structure, names and types
without the target, :func:`evalgap.specs_lang.check.check_spec`); one that fails becomes an
``informal omission`` requirement with the checker's message as the reason, so nothing is dropped silently.
The result is in the canonical layout of :func:`evalgap.specs_lang.format.format_spec` (``evalgap fmt
--check`` passes).

Expression translation (:func:`translate_condition`): a condition (a lambda body, or a docstring line parsed
as a Python expression) is kept when every node is in the spec language's Python subset (see
``docs/language.md``, "Expressions"): names are renamed (lambda parameter -> function parameter, the
format's result name -> ``result``), and the format's old-value access (``OLD.x``, ``__old__.x``) becomes
``old(x)`` (or ``old(EXPR)`` for an icontract snapshot capturing ``EXPR``). Anything else (a nested lambda,
an assignment expression, ``await``/``yield``, f-strings, starred arguments, a non-lambda condition) raises
:class:`Untranslatable` with the construct named.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from evalgap.research.errors import ResearchError

__all__ = ["Untranslatable", "ImportedReq", "Routine", "ClassContracts", "ModuleContracts",
           "translate_condition", "render_module_spec", "PyImportResult", "signature_of", "const_str",
           "dotted", "import_python_file", "RenderedSpec", "collect", "parse_module",
           "lambda_of", "lambda_params", "invariant_req", "exception_list", "allow_exceptions"]


class Untranslatable(ResearchError):
    """A condition uses a construct outside the spec language (the message names it)."""


_ALLOWED: tuple[type[ast.AST], ...] = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Call, ast.Name,
    ast.Attribute, ast.Subscript, ast.Slice, ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.keyword,
    ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop,
)

_WHY = {ast.Lambda: "a nested lambda", ast.NamedExpr: "an assignment expression (:=)", ast.Await: "await",
        ast.Yield: "yield", ast.YieldFrom: "yield from", ast.JoinedStr: "an f-string",
        ast.FormattedValue: "an f-string", ast.Starred: "a starred argument"}


@dataclass(frozen=True)
class ImportedReq:
    """One imported contract.

    Attributes:
        kind: ``requires`` | ``ensures`` | ``invariant`` | ``raises``.
        expr: the spec expression text ('' when ``reason`` is set).
        prose: the requirement's prose (the contract's description, or a generated one naming the line).
        line: the source line of the contract (1-based).
        reason: why the contract was not translated ('' when it was): it becomes ``informal omission``.
        exc: the exception name of a ``raises`` clause.
        source: the contract's source text (for the import report).
        may_raise: exception classes the requirement allows to escape (a ``may raise`` clause beside its
            ``ensures``): the format's allow-list (PEP 316 ``raises:``, ``@deal.raises``).
    """

    kind: str
    expr: str
    prose: str
    line: int
    reason: str = ""
    exc: str = ""
    source: str = ""
    may_raise: tuple[str, ...] = ()


@dataclass(frozen=True)
class Routine:
    """A function or method with its contracts.

    Attributes:
        name: the function name.
        params: ``(name, spec type text)``, without ``self``/``cls``.
        returns: the return type text, or '' when not annotated.
        reqs: its contracts, in source order.
    """

    name: str
    params: tuple[tuple[str, str], ...]
    returns: str
    reqs: tuple[ImportedReq, ...]


@dataclass(frozen=True)
class ClassContracts:
    """A class: its ``__init__`` parameters (when declared), methods with contracts, and invariants."""

    name: str
    init: Routine | None
    methods: tuple[Routine, ...]
    invariants: tuple[ImportedReq, ...]


@dataclass(frozen=True)
class ModuleContracts:
    """Everything one importer found in a module."""

    functions: tuple[Routine, ...] = ()
    classes: tuple[ClassContracts, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RenderedSpec:
    """A rendered ``.req`` and its counts.

    Attributes:
        text: the spec text (canonical layout).
        formal: requirement IDs with a formal clause.
        informal: ``(requirement ID, source line, reason)`` of the contracts that did not translate.
    """

    text: str
    formal: tuple[str, ...]
    informal: tuple[tuple[str, int, str], ...]


@dataclass(frozen=True)
class PyImportResult:
    """The import of one module: its spec and where it was written (``out`` is '' before writing)."""

    module: str
    spec: RenderedSpec
    out: str = ""
    notes: tuple[str, ...] = field(default=())


def const_str(node: ast.AST | None) -> str | None:
    """The value of a string literal node, else None."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def dotted(node: ast.AST) -> str:
    """``a.b.c`` of a Name/Attribute chain ('' for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


class _Rewrite(ast.NodeTransformer):
    def __init__(self, rename: dict[str, str], old_name: str, snapshots: dict[str, ast.expr],
                 implies: bool = False) -> None:
        self.rename, self.old_name, self.snapshots, self.implies = rename, old_name, snapshots, implies

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if self.implies and isinstance(node.func, ast.Name) and node.func.id == "implies":
            # CrossHair's PEP 316 ``implies(X, Y)`` is rewritten, as CrossHair does, to ``Y if X else True``
            # (Y is evaluated only when X holds)
            if len(node.args) != 2 or node.keywords:
                raise Untranslatable("implies() takes exactly two arguments")
            cond, then = (self.visit(a) for a in node.args)
            return ast.IfExp(cond, then, ast.Constant(True))
        return self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if not isinstance(node, _ALLOWED):
            what = _WHY.get(type(node), type(node).__name__)
            raise Untranslatable(f"uses {what}, outside the spec language")
        return super().generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if self.old_name and isinstance(node.value, ast.Name) and node.value.id == self.old_name:
            inner = self.snapshots.get(node.attr)
            arg: ast.expr = self.visit(inner) if inner is not None else ast.Name(self.rename.get(node.attr, node.attr))
            return ast.Call(ast.Name("old", ast.Load()), [arg], [])
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.old_name:
            raise Untranslatable(f"uses `{self.old_name}` other than as `{self.old_name}.NAME`")
        if node.id == "old":
            raise Untranslatable("uses the name `old`, which the spec language reserves")
        return ast.Name(self.rename.get(node.id, node.id), node.ctx)


def translate_condition(expr: ast.expr, rename: dict[str, str], old_name: str = "",
                        snapshots: dict[str, ast.expr] | None = None, implies: bool = False) -> str:
    """Translate a Python condition into spec-language expression text.

    Args:
        expr: the condition (a lambda's body or a parsed docstring expression); not modified.
        rename: name -> spec name (lambda parameters -> function parameters, result name -> ``result``).
        old_name: the format's old-value object (``OLD``, ``__old__``), or '' for none.
        snapshots: icontract snapshot name -> captured expression (``OLD.name`` -> ``old(EXPR)``).
        implies: read ``implies(X, Y)`` as CrossHair's PEP 316 dialect does (``Y if X else True``).

    Returns:
        The expression on one line.

    Raises:
        Untranslatable: a construct outside the spec language (named in the message).
    """
    import copy

    tree = _Rewrite(rename, old_name, snapshots or {}, implies).visit(ast.Expression(copy.deepcopy(expr)))
    assert isinstance(tree, ast.Expression)
    return " ".join(ast.unparse(tree.body).split())


def signature_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> tuple[tuple[tuple[str, str], ...], str]:
    """``(params, return type)`` of a function definition in spec syntax (unannotated: ``Any``).

    ``self``/``cls`` (the first parameter of a method) is left out; ``*args``/``**kwargs`` are left out (the
    spec language has no variadic parameters).
    """
    args = list(fn.args.posonlyargs) + list(fn.args.args) + list(fn.args.kwonlyargs)
    if method and args and args[0].arg in ("self", "cls"):
        args = args[1:]
    params = tuple((a.arg, _type_text(a.annotation)) for a in args)
    return params, (_type_text(fn.returns) if fn.returns is not None else "")


def _type_text(node: ast.expr | None) -> str:
    if node is None:
        return "Any"
    text = ast.unparse(node).replace("typing.", "").replace(" ", "")
    text = re.sub(r"\bList\[", "list[", text)
    text = re.sub(r"\bDict\[", "dict[", text)
    text = re.sub(r"\bSet\[", "set[", text)
    text = re.sub(r"\bTuple\[", "tuple[", text)
    return text


def _ident(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").upper() or "X"


def _quote(text: str) -> str:
    return '"' + " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _clause(r: ImportedReq) -> str:
    if r.kind == "raises":
        return f"raises {r.exc} when {r.expr}"
    return f"{r.kind} {r.expr}"


def _head(params: Iterable[tuple[str, str]], returns: str) -> str:
    ps = ", ".join(f"{n}: {t}" for n, t in params)
    return f"({ps})" + (f" -> {returns}" if returns else "")


def _req_lines(rid: str, r: ImportedReq, indent: str) -> list[str]:
    if r.reason:
        return [f"{indent}requirement {rid} {_quote(r.prose)}",
                f"{indent}  informal omission {_quote('not translated: ' + r.reason)}"]
    may = [f"{indent}  may raise {', '.join(r.may_raise)}"] if r.may_raise else []
    return [f"{indent}requirement {rid} {_quote(r.prose)}", f"{indent}  {_clause(r)}", *may]


_EXC_LIST = re.compile(r"\s*[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*,?\s*")


def exception_list(text: str) -> tuple[str, ...] | None:
    """The class names of an allow-list written ``E1, E2`` (PEP 316 ``raises:``), or None when it is not one."""
    if not _EXC_LIST.fullmatch(text):
        return None
    return tuple(n.strip() for n in text.split(",") if n.strip())


def allow_exceptions(reqs: list[ImportedReq], allowed: tuple[str, ...]) -> list[ImportedReq]:
    """``reqs`` with ``allowed`` added to the ``may raise`` of every ``ensures`` requirement: a function's
    allow-list of exceptions (PEP 316 ``raises:``, ``@deal.raises``) excuses those classes escaping from any
    of its calls, as CrossHair and deal read it. The allow-list's own requirements (``ensures True``) keep
    theirs."""
    if not allowed:
        return reqs
    return [dataclasses.replace(r, may_raise=tuple(dict.fromkeys(r.may_raise + allowed))) if r.kind == "ensures"
            else r for r in reqs]


def _valid(header: str, block: list[str]) -> str:
    """'' when ``header + block`` is a valid spec, else the first line of the checker's message."""
    from evalgap.specs_lang import SpecError, parse
    from evalgap.specs_lang.check import check_spec

    text = header + "\n".join(block) + "\n"
    try:
        check_spec(parse(text, "import.req"), text)
    except SpecError as exc:
        msg = str(exc).strip().splitlines()
        return next((ln.strip() for ln in msg if "error" in ln), msg[0] if msg else "invalid")[:200]
    return ""


def _type_ok(text: str) -> bool:
    """Whether ``text`` is a parameter type the spec language can state (``Callable[[int], int]`` and
    ``tuple[int, ...]`` are not)."""
    from evalgap.specs_lang import SpecError, parse

    try:
        parse(f"spec t \"t\"\n\nfunction f(x: {text})\n", "type.req")
    except SpecError:
        return False
    return True


def fit_types(r: Routine) -> Routine:
    """``r`` with the annotations the spec language cannot state widened.

    A parameter type outside the language (``Callable[[int], int]``, ``tuple[int, ...]``) becomes ``Any`` and
    every contract of the routine becomes informal with the reason (its inputs cannot be generated as
    declared); a return type outside it is dropped (the contracts are kept: ``result`` is then untyped).
    """
    bad = [(n, t) for n, t in r.params if not _type_ok(t)]
    returns = r.returns if not r.returns or _type_ok(r.returns) else ""
    if not bad:
        return Routine(r.name, r.params, returns, r.reqs)
    why = (f"parameter {', '.join(f'`{n}: {t}`' for n, t in bad)} of {r.name} has a type outside the spec "
           "language, so its inputs cannot be generated as declared")
    params = tuple((n, "Any" if (n, t) in bad else t) for n, t in r.params)
    reqs = tuple(q if q.reason else ImportedReq(q.kind, "", q.prose, q.line, why, q.exc, q.source) for q in r.reqs)
    return Routine(r.name, params, returns, reqs)


def implicit_post(r: Routine) -> Routine:
    """``r`` with CrossHair's implicit postcondition stated: CrossHair checks a function or method that has
    preconditions and no postcondition as if it had ``post: True`` (its condition parsers add that
    postcondition for PEP 316, icontract and deal alike), i.e. a call meeting the preconditions must not raise.
    The import states it as one more requirement, ``ensures True``; only where every precondition translated
    (an informal one would widen the domain) and not for ``__init__``."""
    kinds = {q.kind for q in r.reqs}
    pres = [q for q in r.reqs if q.kind == "requires"]
    if r.name == "__init__" or kinds & {"ensures", "raises", "invariant"} or not pres or any(q.reason for q in pres):
        return r
    prose = (f"CrossHair's implicit postcondition of {r.name}, which has preconditions and no postcondition: a call "
             "meeting the preconditions raises no exception (CrossHair checks it as if it had `post: True`)")
    return Routine(r.name, r.params, r.returns,
                   r.reqs + (ImportedReq("ensures", "True", prose, pres[0].line, source="post: True (implicit)"),))


def render_module_spec(mod: ModuleContracts, spec_name: str, title: str, target: str) -> RenderedSpec:
    """Render ``mod`` as one ``.req`` text (see the module docstring for the layout and the fallback).

    Requirement IDs: ``FUNC-N`` for function ``func``'s N-th contract, ``CLS-METHOD-N`` for methods,
    ``CLS-INV-N`` for class invariants (upper case, ``_`` -> ``-``).

    Raises:
        ResearchError: the assembled spec does not parse (a bug of the importer, never expected).
    """
    from evalgap.specs_lang import SpecError, parse
    from evalgap.specs_lang.format import format_spec

    header = f"spec {spec_name} {_quote(title)}\n  target: {target}\n\n"
    lines: list[str] = []
    formal: list[str] = []
    informal: list[tuple[str, int, str]] = []

    def emit(owner_head: list[str], indent: str, rid: str, r: ImportedReq) -> list[str]:
        block = _req_lines(rid, r, indent)
        if not r.reason:
            why = _valid(header, owner_head + block)
            if why:
                r = ImportedReq(r.kind, "", r.prose, r.line, f"the translated clause `{_clause(r)}` does not check: "
                                f"{why}", r.exc, r.source)
                block = _req_lines(rid, r, indent)
        (informal.append((rid, r.line, r.reason)) if r.reason else formal.append(rid))
        return block

    for fn in (implicit_post(fit_types(f)) for f in mod.functions):
        if not fn.reqs:
            continue
        head = [f"function {fn.name}{_head(fn.params, fn.returns)}"]
        lines += head
        for i, r in enumerate(fn.reqs, 1):
            lines += emit(head, "  ", f"{_ident(fn.name)}-{i}", r)
        lines.append("")
    for cls in mod.classes:
        if not cls.methods and not cls.invariants:
            continue
        chead = [f"class {cls.name}"]
        init_has_reqs = any(m.name == "__init__" and m.reqs for m in cls.methods)
        if cls.init is not None and not init_has_reqs:
            chead.append(f"  method __init__{_head(fit_types(cls.init).params, '')}")
        lines += chead
        for m in (implicit_post(fit_types(f)) for f in cls.methods):
            if not m.reqs and (not cls.invariants or m.name == "__init__"):
                continue
            mhead = [f"  method {m.name}{_head(m.params, m.returns if m.name != '__init__' else '')}"]
            lines += mhead
            for i, r in enumerate(m.reqs, 1):
                lines += emit(chead + mhead, "    ", f"{_ident(cls.name)}-{_ident(m.name)}-{i}", r)
        for i, r in enumerate(cls.invariants, 1):
            lines += emit(chead, "  ", f"{_ident(cls.name)}-INV-{i}", r)
        lines.append("")
    text = header + "\n".join(lines).rstrip() + "\n"
    try:
        spec = parse(text, f"{spec_name}.req")
    except SpecError as exc:  # pragma: no cover - every block was validated
        raise ResearchError(f"import produced an invalid spec: {exc}") from None
    return RenderedSpec(format_spec(spec, text), tuple(formal), tuple(informal))


def import_python_file(src: Path, out_dir: Path, fmt: str, mod: ModuleContracts, stem: str = "") -> PyImportResult:
    """Render ``mod`` (read from ``src`` by a format's reader) and write ``out_dir/<stem>.req``.

    ``stem`` defaults to the module's file stem (a folder import passes a longer one when two modules share it).

    The spec's ``target:`` is ``src`` relative to ``out_dir`` (absolute when that climbs more than two
    folders), so ``evalgap lint/check OUT/<stem>.req`` find the module.
    """
    stem = re.sub(r"\W", "_", stem or src.stem)
    target = os.path.relpath(src.resolve(), out_dir.resolve())
    if target.split(os.sep).count("..") > 2:  # far apart: an absolute path reads better
        target = str(src.resolve())
    spec = render_module_spec(mod, stem, f"{fmt} contracts imported from {src.name}", target)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{stem}.req"
    out.write_text(spec.text, encoding="utf-8")
    return PyImportResult(src.name, spec, str(out), mod.notes)


_FnReader = Callable[[ast.FunctionDef | ast.AsyncFunctionDef, bool], list[ImportedReq]]
_ClsReader = Callable[[ast.ClassDef], list[ImportedReq]]


def collect(tree: ast.Module, read_fn: _FnReader, read_cls: _ClsReader,
            inherit_methods: bool = False) -> ModuleContracts:
    """Walk a module's top-level functions and classes (and the classes' methods) with a format's readers.

    Args:
        tree: the parsed module.
        read_fn: ``(function node, is_method) -> contracts`` of one function.
        read_cls: ``class node -> invariants`` of one class.
        inherit_methods: method contracts apply to subclasses (CrossHair's PEP 316 reading; see
            :func:`evalgap.research.import_classes.collect_classes`, which reads the classes).

    Returns:
        The functions that have contracts, and the classes that have method contracts or invariants (with
        their public methods declared when they have invariants, so the invariant is checked after them).
    """
    from evalgap.research.import_classes import collect_classes

    fns: list[Routine] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reqs = read_fn(node, False)
            if reqs:
                params, ret = signature_of(node, False)
                fns.append(Routine(node.name, params, ret, tuple(reqs)))
    return ModuleContracts(tuple(fns), tuple(collect_classes(tree, read_fn, read_cls, inherit_methods)))


def parse_module(src: Path) -> ast.Module:
    """Parse ``src`` (never imported). Raises :class:`ResearchError` on a syntax error or a missing file."""
    try:
        return ast.parse(src.read_text(encoding="utf-8"), str(src))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise ResearchError(f"{src}: cannot read the module: {exc}") from None


def lambda_of(node: ast.expr | None, what: str) -> ast.Lambda:
    """``node`` when it is a lambda; else :class:`Untranslatable` naming what it is (the body is not read)."""
    if isinstance(node, ast.Lambda):
        if node.args.vararg or node.args.kwarg:
            raise Untranslatable(f"the {what} lambda takes *args/**kwargs, which do not map to named parameters")
        return node
    if node is None:
        raise Untranslatable(f"the {what} has no condition")
    raise Untranslatable(f"the {what} condition `{ast.unparse(node)}` is not a lambda (its body is not read "
                         "statically)")


def lambda_params(lam: ast.Lambda) -> list[str]:
    """The lambda's parameter names, in order."""
    a = lam.args
    return [p.arg for p in list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs)]


def invariant_req(node: ast.expr | None, what: str, prose: str, lineno: int, source: str) -> ImportedReq:
    """A class invariant from a one-parameter lambda (the object, renamed ``self``), as icontract's
    ``invariant`` and deal's ``inv`` state it; an :class:`ImportedReq` with the reason when it does not
    translate (not a lambda, another arity, a construct outside the spec language)."""
    try:
        lam = lambda_of(node, what)
        ps = lambda_params(lam)
        if len(ps) != 1:
            raise Untranslatable(f"the {what} lambda takes exactly one parameter (the object)")
        return ImportedReq("invariant", translate_condition(lam.body, {ps[0]: "self"}), prose, lineno, source=source)
    except Untranslatable as exc:
        return ImportedReq("invariant", "", prose, lineno, str(exc), source=source)
