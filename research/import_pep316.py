"""``evalgap import pep316``: PEP 316 docstring contracts, as CrossHair reads them, into a ``.req``.

Read (PEP 316, https://peps.python.org/pep-0316/, in CrossHair's dialect, https://crosshair.readthedocs.io,
"The PEP 316 contract format"): in a function or method docstring, each line ``pre: EXPR`` is a
precondition and ``post: EXPR`` (or ``post[a, b]: EXPR``, listing the arguments the call may mutate) a
postcondition; in a class docstring ``inv: EXPR`` is an invariant; ``raises: E1, E2`` lists the exceptions a
function may raise. One condition per line. ``__return__`` is the return value and ``__old__.x`` the value of
``x`` before the call; in a postcondition ``_`` is the return value too, and ``implies(X, Y)`` is CrossHair's
``Y if X else True``. The module is parsed with :mod:`ast`, never imported.

Mapping: ``pre`` -> ``requires``, ``post`` -> ``ensures`` (``__return__`` and ``_`` -> ``result``,
``__old__.x`` -> ``old(x)``, ``implies(X, Y)`` -> ``Y if X else True``), ``inv`` -> class ``invariant``,
``raises: E1, E2`` (an allow-list with no condition) -> ``may raise E1, E2`` on every ``ensures`` requirement of
the function, and a requirement of its own, ``ensures True`` with that ``may raise`` (no other exception
escapes). A condition that does not parse or is outside the spec language and a ``post[...]`` mutation list (a
frame condition the spec language has no clause for; the condition itself is imported) become ``informal
omission`` requirements with the reason. Docstring contracts have no description: the prose names the line and the
condition.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from evalgap.translators.prose_targets import top_level_names
from evalgap.research.import_pycommon import (ImportedReq, ModuleContracts, Untranslatable, allow_exceptions,
                                             collect, exception_list, parse_module, translate_condition)

__all__ = ["read_pep316", "contract_lines"]

#: CrossHair's PEP 316 line form: ``pre:``, ``post:``, ``post[args]:``, ``inv:``, ``raises:``.
_LINE = re.compile(r"^\s*(pre|post|inv|raises)\s*(\[[^\]]*\])?\s*:(?!:)\s*(.*?)\s*$")


def contract_lines(doc: str) -> list[tuple[int, str, str | None, str]]:
    """``(line offset in the docstring, kind, mutation list (None: no brackets), text)`` per contract line."""
    out = []
    for i, line in enumerate(doc.splitlines()):
        m = _LINE.match(line)
        if m and m.group(3):
            out.append((i, m.group(1), m.group(2)[1:-1].strip() if m.group(2) else None, m.group(3)))
    return out


def _doc_line(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    first = node.body[0] if node.body else None
    return first.lineno if isinstance(first, ast.Expr) else node.lineno


def _raw_doc(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.value.value
    return ""


def _reqs(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, kinds: tuple[str, ...],
          file: str, module_names: set[str]) -> list[ImportedReq]:
    out = []
    known = set(module_names)
    if not isinstance(node, ast.ClassDef):
        a = node.args
        known |= {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None}
    base = _doc_line(node)
    allowed: tuple[str, ...] = ()
    for off, kind, frame, text in contract_lines(_raw_doc(node)):
        line = base + off
        if kind not in kinds:
            continue
        spec_kind = {"pre": "requires", "post": "ensures", "inv": "invariant", "raises": "requires"}[kind]
        label = f"{kind}[{frame}]" if frame is not None else kind
        prose = f"PEP 316 `{label}:` line of {node.name} ({file}:{line}): {text}"
        if kind == "raises":
            names = exception_list(text)
            if names is None:
                out.append(ImportedReq("ensures", "", prose, line, "a PEP 316 `raises:` line lists exception "
                                       "classes separated by commas; this one does not parse as such", source=text))
                continue
            # the allow-list on its own: nothing but these escapes (every other requirement of the function
            # gets the same `may raise` below)
            allowed += names
            out.append(ImportedReq("ensures", "True", prose, line, source=text, may_raise=names))
            continue
        try:
            try:
                expr_node = ast.parse(text, mode="eval").body
            except SyntaxError as exc:
                raise Untranslatable(f"the condition does not parse as Python: {exc.msg}") from None
            unbound = _unbound(expr_node, known)
            if unbound:
                raise Untranslatable(f"the condition reads {', '.join(f'`{n}`' for n in unbound)}, which is neither "
                                     f"a parameter of {node.name} nor a name of the module (the contract is "
                                     "broken: evaluating it raises NameError)")
            rename = {"__return__": "result", "_": "result"} if kind == "post" else {"__return__": "result"}
            expr = translate_condition(expr_node, rename, "__old__" if kind == "post" else "", implies=True)
            out.append(ImportedReq(spec_kind, expr, prose, line, source=text))
        except Untranslatable as exc:
            out.append(ImportedReq(spec_kind, "", prose, line, str(exc), source=text))
        if frame is not None:
            out.append(ImportedReq("ensures", "", f"PEP 316 mutation list `post[{frame}]` of {node.name} "
                                   f"({file}:{line})", line, "a frame condition (only the listed arguments may "
                                   "change) has no clause in the spec language", source=text))
    return allow_exceptions(out, allowed)


_SPECIAL = {"__return__", "__old__", "_", "implies", "self", "cls"}


_module_names = top_level_names


def _unbound(expr: ast.expr, known: set[str]) -> list[str]:
    """The names ``expr`` reads that nothing binds: not ``known`` (parameters, module names), not a builtin
    and not a comprehension variable (CrossHair evaluates the condition in the function's namespace, where such
    a name is a NameError, so the contract is broken, not merely untranslatable)."""
    import builtins

    bound = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(expr) if isinstance(n, ast.Lambda) for a in ast.walk(n.args)
              if isinstance(a, ast.arg)}
    read = [n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return sorted({n for n in read if n not in known | bound | _SPECIAL and not hasattr(builtins, n)})


def read_pep316(src: Path) -> ModuleContracts:
    """The PEP 316 docstring contracts of the module at ``src`` (parsed, never imported).

    Raises:
        ResearchError: the file is missing or not valid Python.
    """
    tree = parse_module(src)
    names = _module_names(tree)
    return collect(tree, lambda fn, method: _reqs(fn, ("pre", "post", "raises"), src.name, names),
                   lambda cls: _reqs(cls, ("inv",), src.name, names), inherit_methods=True)
