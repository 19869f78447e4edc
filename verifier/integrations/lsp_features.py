"""The language server's features as plain functions of a document's text (no editor protocol here, only
the ``lsprotocol`` data types), so each is tested directly and :mod:`evalgap.verifier.integrations.lsp_server`
only wires them to LSP requests.

* :func:`diagnostics`: as you type, the spec language alone (parse, structure, names and types without the
  target's signatures); nothing is imported or run.
* :func:`lint_diagnostics`: on save, :func:`evalgap.lint`, which also reads the target's real signatures in
  a sandboxed subprocess (never in the editor's process).
* :func:`formatting`: the canonical layout (:func:`evalgap.specs_lang.format.format_spec`) as one edit.
* :func:`hover`: a requirement's ID, prose and kind, or a target function's signature and docstring. No
  verdict: the result cache is keyed by the harness and the target's code closure, which the server would
  have to build (and so run evalgap's translator) to look one up; ``evalgap check`` shows verdicts.
* :func:`definition`: from a name in the spec to the target's function, class or method (the target file is
  parsed with :mod:`ast`, never imported).
* :func:`completion`: the target's functions, classes, methods and, inside ``function f(``, ``f``'s
  parameters.

Positions: LSP lines and characters are 0-based, characters in UTF-16 code units; the spec language's spans
are 1-based code points (end exclusive). :func:`to_lsp` and :func:`from_lsp` convert.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types as T

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.errors import Diagnostic, SpecError

__all__ = ["diagnostics", "lint_diagnostics", "formatting", "hover", "definition", "completion",
           "TargetIndex", "index_target", "target_file", "to_lsp", "from_lsp", "SOURCE"]

#: The ``source`` of every diagnostic the server publishes.
SOURCE = "evalgap"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def to_lsp(text: str, line: int, col: int) -> T.Position:
    """1-based ``line``/``col`` (code points) in ``text`` -> an LSP position (0-based, UTF-16 units)."""
    lines = text.splitlines()
    here = lines[line - 1] if 1 <= line <= len(lines) else ""
    return T.Position(line=max(line - 1, 0), character=len(here[:max(col - 1, 0)].encode("utf-16-le")) // 2)


def from_lsp(text: str, pos: T.Position) -> tuple[str, int]:
    """An LSP position -> (its line's text, 0-based code-point index in that line)."""
    lines = text.splitlines()
    here = lines[pos.line] if 0 <= pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(here):
        if units >= pos.character:
            return here, i
        units += len(ch.encode("utf-16-le")) // 2
    return here, len(here)


def _diagnostic(text: str, d: Diagnostic,
                severity: T.DiagnosticSeverity = T.DiagnosticSeverity.Error) -> T.Diagnostic:
    sp = d.span
    start = to_lsp(text, sp.line, sp.col)
    if (sp.end_line, sp.end_col) > (sp.line, sp.col):
        end = to_lsp(text, sp.end_line, sp.end_col)
    else:
        end = T.Position(line=start.line, character=start.character + 1)
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return T.Diagnostic(range=T.Range(start=start, end=end), message=message, code=d.code, source=SOURCE,
                        severity=severity)


def _parse(text: str, path: str) -> A.Spec:
    from evalgap.specs_lang import parse

    return parse(text, path)


def diagnostics(text: str, path: str) -> list[T.Diagnostic]:
    """The problems of the unsaved ``text`` of spec ``path``: syntax (EG1xx), structure, names and types
    (EG2xx) checked without the target (a spec with imports: structure only, its imported names being
    unknown here). Nothing is imported or run.

    Returns:
        LSP diagnostics (code ``EGxxx``, source ``evalgap``) of this file, in source order.
    """
    from evalgap.specs_lang import check_structure
    from evalgap.specs_lang.check import check_spec

    try:
        spec = _parse(text, path)
        if spec.imports:
            check_structure(spec, text)
        else:
            check_spec(spec, text, None)
    except SpecError as exc:
        return [_diagnostic(text, d) for d in exc.diagnostics if d.span.file == path]
    return []


def lint_diagnostics(path: str) -> list[T.Diagnostic]:
    """:func:`evalgap.lint` of the saved file ``path``, with the target's real signatures (read in a
    sandboxed subprocess): the EG2xx problems only the target can show (EG211, EG212, ...), as errors, and
    the lint warnings (EG230: an ``ensures`` forbids an exception the target raises), as warnings. A
    problem that is not about the spec text (an unimportable target) is one diagnostic on the ``target:``
    line."""
    import evalgap

    text = Path(path).read_text(encoding="utf-8")
    result = evalgap.lint(path)
    out = [_diagnostic(text, d) for d in result.diagnostics if Path(d.span.file) == Path(path)]
    out += [_diagnostic(text, d, T.DiagnosticSeverity.Warning) for d in result.warnings
            if Path(d.span.file) == Path(path)]  # lint warnings (EG230 ...): they do not fail the lint
    if result.error is not None:
        line = next((i for i, t in enumerate(text.splitlines()) if t.strip().startswith("target:")), 0)
        rng = T.Range(start=T.Position(line=line, character=0), end=T.Position(line=line + 1, character=0))
        out.append(T.Diagnostic(range=rng, message=result.error, source=SOURCE,
                                severity=T.DiagnosticSeverity.Warning))
    return out


def formatting(text: str, path: str) -> list[T.TextEdit] | None:
    """The edit that puts ``text`` in the canonical layout: ``[]`` when it already is, None when it does
    not parse (the diagnostics say why)."""
    from evalgap.specs_lang.format import format_spec

    try:
        new = format_spec(_parse(text, path), text)
    except SpecError:
        return None
    if new == text:
        return []
    end = T.Position(line=len(text.splitlines()) + 1, character=0)  # past the end: clients clamp it
    return [T.TextEdit(range=T.Range(start=T.Position(line=0, character=0), end=end), new_text=new)]


# ------------------------------------------------------------------ the target, read with ast
@dataclass(frozen=True)
class Def:
    """A function, class or method of the target: ``line``/``col`` 1-based/0-based as :mod:`ast` gives."""

    name: str
    kind: str
    line: int
    col: int
    signature: str
    doc: str | None
    params: tuple[tuple[str, str], ...] = ()
    owner: str | None = None


@dataclass(frozen=True)
class TargetIndex:
    """The definitions of one target file: ``file`` (absolute), ``defs`` (top level, then methods)."""

    file: Path
    defs: tuple[Def, ...] = field(default=())

    def named(self, name: str) -> list[Def]:
        """Every definition called ``name`` (a method name may exist in several classes)."""
        return [d for d in self.defs if d.name == name]


def _def(node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str | None) -> Def:
    args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
    params = tuple((a.arg, ast.unparse(a.annotation) if a.annotation else "") for a in args
                   if not (owner and a.arg in ("self", "cls")))
    ret = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    sig = f"{node.name}({ast.unparse(node.args)}){ret}"
    return Def(node.name, "method" if owner else "function", node.lineno, node.col_offset, sig,
               ast.get_docstring(node), params, owner)


def index_target(path: Path) -> TargetIndex | None:
    """Parse ``path`` with :mod:`ast` (never imported) into its definitions; None when it cannot be read
    or does not parse."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    defs: list[Def] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.append(_def(node, None))
        elif isinstance(node, ast.ClassDef):
            defs.append(Def(node.name, "class", node.lineno, node.col_offset, f"class {node.name}",
                            ast.get_docstring(node)))
            defs += [_def(m, node.name) for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return TargetIndex(path.resolve(), tuple(defs))


def target_file(text: str, path: str) -> Path | None:
    """The ``.py`` file a spec is about: its ``target:`` (a file, or a module found beside the spec), else
    the default implementation of the case folder it is in; None when there is none."""
    folder = Path(path).parent
    m = re.search(r"^\s*target:\s*(\S+)", text, re.M)
    if m:
        name = m.group(1).strip("\"'")
        for cand in (folder / name, folder / (name.replace(".", "/") + ".py")):
            if cand.suffix == ".py" and cand.is_file():
                return cand
    manifest = folder / "case.toml"
    if manifest.is_file():
        try:
            data = tomllib.loads(manifest.read_text(encoding="utf-8"))
            impl = data["implementations"][data["case"]["default"]]
            cand = folder / str(impl)
            return cand if cand.is_file() else None
        except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError):
            return None
    return None


def _word(text: str, pos: T.Position) -> str | None:
    line, i = from_lsp(text, pos)
    for m in _WORD.finditer(line):
        if m.start() <= i <= m.end():
            return m.group()
    return None


def _requirement_at(spec: A.Spec, line: int) -> A.Requirement | None:
    """The requirement whose block holds 1-based ``line`` (its span runs to the next declaration)."""
    best = None
    for req, _owner in spec.all_requirements():
        sp = req.span
        if sp.file == spec.file and sp.line <= line and (line < sp.end_line or sp.end_line <= sp.line):
            best = req if best is None or req.span.line >= best.span.line else best
    return best


def hover(text: str, path: str, pos: T.Position) -> T.Hover | None:
    """On a requirement: its ID, kind and prose; on a name the target defines: its signature and
    docstring. None elsewhere (or when the text does not parse)."""
    word = _word(text, pos)
    target = target_file(text, path)
    index = index_target(target) if target is not None else None
    if word and index is not None and index.named(word) and not re.match(r"^\s*requirement\b",
                                                                          from_lsp(text, pos)[0]):
        parts = []
        for d in index.named(word):
            where = f"{d.owner}." if d.owner else ""
            parts.append(f"```python\n{where}{d.signature}\n```" + (f"\n{d.doc}" if d.doc else ""))
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown,
                                                value="\n\n".join(parts) + f"\n\n*{index.file.name}*"))
    try:
        spec = _parse(text, path)
    except SpecError:
        return None
    req = _requirement_at(spec, pos.line + 1)
    if req is None:
        return None
    informal = req.informal
    kind = f"informal ({informal.category})" if informal is not None else "formal"
    value = (f"**{req.id}** ({kind})\n\n{req.prose}\n\n"
             "*verdict: not shown here; run `evalgap check` (the editor never runs the target)*")
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=value))


def _location(d: Def, index: TargetIndex) -> T.Location:
    start = T.Position(line=d.line - 1, character=d.col)
    return T.Location(uri=index.file.as_uri(), range=T.Range(start=start, end=start))


def definition(text: str, path: str, pos: T.Position) -> list[T.Location]:
    """Where the target defines the name under the cursor (a function, a class, or a method of any class
    with that name); empty when the target or the name is not found."""
    word = _word(text, pos)
    target = target_file(text, path)
    index = index_target(target) if target is not None else None
    if not word or index is None:
        return []
    return [_location(d, index) for d in index.named(word)]


def completion(text: str, path: str, pos: T.Position) -> list[T.CompletionItem]:
    """The target's names for completion: inside the parentheses of ``function f(`` or ``method f(``, the
    parameters of ``f`` (``n: int``); after a ``.``, the methods; else the functions and classes."""
    target = target_file(text, path)
    index = index_target(target) if target is not None else None
    if index is None:
        return []
    line, i = from_lsp(text, pos)
    before = line[:i]
    decl = re.match(r"^\s*(?:function|method)\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)$", before)
    if decl:
        out = []
        for d in index.named(decl.group(1)):
            out += [T.CompletionItem(label=f"{n}: {a}" if a else n, kind=T.CompletionItemKind.Variable,
                                     detail=f"parameter of {d.signature}") for n, a in d.params]
        return out
    kinds = {"function": T.CompletionItemKind.Function, "class": T.CompletionItemKind.Class,
             "method": T.CompletionItemKind.Method}
    methods = bool(re.search(r"\.\s*[A-Za-z0-9_]*$", before))
    return [T.CompletionItem(label=d.name, kind=kinds[d.kind], detail=(f"{d.owner}." if d.owner else "") + d.signature,
                             documentation=d.doc)
            for d in index.defs if (d.kind == "method") == methods]
