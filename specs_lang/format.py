"""The canonical layout of a spec: ``evalgap fmt``.

:func:`format_spec` prints a :class:`~evalgap.specs_lang.ast.Spec` back as ``.req`` text:

* the ``spec`` line with ``target:``, ``import`` and ``assume`` indented under it, then every other
  declaration at column 0 in source order, one blank line between them, two spaces per block level;
* one clause per line, expressions with single spaces around binary operators and the fewest parentheses
  that keep the tree (``parse(format_spec(s)) == s`` for every spec the parser can produce);
* given the source text, every comment is kept byte for byte (a comment on its own line before the line it
  preceded, a trailing comment after the line it trailed, two spaces before ``#``), and prose, titles,
  reasons and string literals keep their original spelling (quotes and escapes).

Formatting is idempotent: formatting formatted text changes nothing.
"""

from __future__ import annotations

import ast as pyast
import re
from dataclasses import dataclass

from evalgap.specs_lang import ast as A

__all__ = ["format_spec", "format_expr", "comments_of"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_PATHLIKE = re.compile(r"^[A-Za-z0-9_./-]+\.py$")
_STRING_RE = re.compile(r'b?"(?:[^"\\\n]|\\.)*"|b?\'(?:[^\'\\\n]|\\.)*\'')
_KEYWORDS = {"spec", "target", "import", "assume", "function", "class", "method", "requirement", "requires",
             "ensures", "invariant", "example", "informal", "scenario", "expect", "raises", "may", "when", "let", "def",
             "record", "config", "schema", "stub", "forall", "exists", "and", "or", "not", "in", "is", "if",
             "else", "for", "True", "False", "None"}

# precedence levels (higher binds tighter); see the grammar's expression rules
_QUANT, _IFF, _IMPLIES, _TEST, _OR, _AND, _NOT, _CMP, _ARITH, _TERM, _FACTOR, _POWER, _POSTFIX, _ATOM = range(14)


def _quote(value: str | bytes) -> str:
    r = repr(value)
    if isinstance(value, bytes):
        if r.startswith("b'") and '"' not in value.decode("latin-1"):
            return 'b"' + r[2:-1] + '"'
        return r
    if r.startswith("'") and '"' not in value:
        return '"' + r[1:-1] + '"'
    return r


class _Printer:
    def __init__(self, source: str | None) -> None:
        self.lines = source.splitlines() if source is not None else None

    # ------------------------------------------------------------ literals
    def raw(self, span: A.Span, value: str | bytes, search: bool = False) -> str:
        """The original spelling of a string literal at ``span`` (or, with ``search``, the first literal on
        the span's line whose value is ``value``), else the canonical quoting."""
        if self.lines is not None and span.line and 1 <= span.line <= len(self.lines):
            line = self.lines[span.line - 1]
            if not search and span.end_line == span.line:
                text = line[span.col - 1:span.end_col - 1]
                if _eval(text) == value:
                    return text
            for m in _STRING_RE.finditer(line, max(0, span.col - 1)):
                if _eval(m.group(0)) == value:
                    return m.group(0)
        return _quote(value)

    # ------------------------------------------------------------ expressions
    def expr(self, e: object, need: int = _QUANT) -> str:
        text, prec = self._expr(e)
        return f"({text})" if prec < need else text

    def _expr(self, e: object) -> tuple[str, int]:  # noqa: C901 - one dispatch per node type
        if isinstance(e, A.Name):
            return e.id, _ATOM
        if isinstance(e, A.Const):
            v = e.value
            if isinstance(v, bool) or v is None:
                return str(v), _ATOM
            if isinstance(v, (str, bytes)):
                return self.raw(e.span, v), _ATOM
            if isinstance(v, float):
                return repr(v), _ATOM
            return str(v), _ATOM
        if isinstance(e, A.Old):
            return f"old({self.expr(e.expr)})", _POSTFIX
        if isinstance(e, A.Quantifier):
            return f"{e.kind} {', '.join(e.targets)} in {self.expr(e.domain, _OR)}: {self.expr(e.body)}", _QUANT
        if isinstance(e, A.Iff):
            return f"{self.expr(e.left, _IFF)} <==> {self.expr(e.right, _IMPLIES)}", _IFF
        if isinstance(e, A.Implies):
            return f"{self.expr(e.left, _TEST)} ==> {self.expr(e.right, _IMPLIES)}", _IMPLIES
        if isinstance(e, A.IfExp):
            return (f"{self.expr(e.body, _OR)} if {self.expr(e.test, _OR)} else {self.expr(e.orelse, _TEST)}",
                    _TEST)
        if isinstance(e, A.BoolOp):
            level = _OR if e.op == "or" else _AND
            return f" {e.op} ".join(self.expr(v, level + 1) for v in e.values), level
        if isinstance(e, A.Not):
            return f"not {self.expr(e.operand, _NOT)}", _NOT
        if isinstance(e, A.Compare):
            parts = [self.expr(e.left, _ARITH)]
            for op, c in zip(e.ops, e.comparators):
                parts.append(f"{op} {self.expr(c, _ARITH)}")
            return " ".join(parts), _CMP
        if isinstance(e, A.BinOp):
            if e.op == "**":
                return f"{self.expr(e.left, _POSTFIX)} ** {self.expr(e.right, _FACTOR)}", _POWER
            level = _ARITH if e.op in ("+", "-") else _TERM
            return f"{self.expr(e.left, level)} {e.op} {self.expr(e.right, level + 1)}", level
        if isinstance(e, A.UnaryOp):
            return f"{e.op}{self.expr(e.operand, _FACTOR)}", _FACTOR
        if isinstance(e, A.Call):
            return f"{self.postfix_base(e.func)}({self.args(e)})", _POSTFIX
        if isinstance(e, A.Attribute):
            return f"{self.postfix_base(e.value)}.{e.attr}", _POSTFIX
        if isinstance(e, A.Subscript):
            return f"{self.postfix_base(e.value)}[{self.index(e.index)}]", _POSTFIX
        if isinstance(e, A.ListExpr):
            return "[" + ", ".join(self.expr(x, _IFF) for x in e.elts) + "]", _ATOM
        if isinstance(e, A.TupleExpr):
            if len(e.elts) == 1:
                return f"({self.expr(e.elts[0])},)", _ATOM
            return "(" + ", ".join(self.expr(x) for x in e.elts) + ")", _ATOM
        if isinstance(e, A.SetExpr):
            return ("{" + ", ".join(self.expr(x, _IFF) for x in e.elts) + "}", _ATOM) if e.elts else ("set()", _POSTFIX)
        if isinstance(e, A.DictExpr):
            items = ", ".join(f"{self.expr(k, _IFF)}: {self.expr(v, _IFF)}" for k, v in zip(e.keys, e.values))
            return "{" + items + "}", _ATOM
        if isinstance(e, A.Comprehension):
            inner = self.comp(e)
            return {"list": f"[{inner}]", "set": f"{{{inner}}}", "gen": f"({inner})"}[e.kind], _ATOM
        raise TypeError(f"cannot format {type(e).__name__}")

    def postfix_base(self, e: object) -> str:
        text = self.expr(e, _POSTFIX)
        if isinstance(e, A.Const) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
            return f"({text})"
        return text

    def comp(self, e: A.Comprehension) -> str:
        conds = "".join(f" if {self.expr(c, _OR)}" for c in e.conds)
        return f"{self.expr(e.elt, _IFF)} for {', '.join(e.targets)} in {self.expr(e.iter, _OR)}{conds}"

    def args(self, e: A.Call) -> str:
        if (len(e.args) == 1 and not e.keywords and isinstance(e.args[0], A.Comprehension)
                and e.args[0].kind == "gen"):
            return self.comp(e.args[0])
        parts = [self.expr(a) for a in e.args] + [f"{k.name}={self.expr(k.value)}" for k in e.keywords]
        return ", ".join(parts)

    def index(self, i: object) -> str:
        if isinstance(i, A.Slice):
            def part(x: A.Expr | None) -> str:
                return "" if x is None else self.expr(x)
            s = f"{part(i.lower)}:{part(i.upper)}"
            return s + (f":{part(i.step)}" if i.step is not None else "")
        return self.expr(i)

    # ------------------------------------------------------------ types
    def type(self, t: A.TypeRef) -> str:
        if t.name == "[]":
            return "[" + ", ".join(self.type(a) for a in t.args) + "]"
        out = t.name
        if t.args:
            out += "[" + ", ".join(self.type(a) for a in t.args) + "]"
        if t.range is not None:
            out += f" in {_num(t.range.lo)}..{_num(t.range.hi)}"
        if t.length is not None:
            out += f" len {_num(t.length.lo)}..{_num(t.length.hi)}"
        if t.alphabet is not None:
            a = t.alphabet
            out += f" {a.name}" if a.name != "chars" else f" chars {self.raw(a.span, a.chars, search=True)}"
        return out

    def params(self, ps: tuple[A.Param, ...]) -> str:
        return ", ".join(f"{p.name}: {self.type(p.type)}" for p in ps)


def _num(v: int | float) -> str:
    return repr(v)


def _eval(text: str) -> object:
    try:
        return pyast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


@dataclass(frozen=True)
class _Line:
    indent: int
    text: str
    src: int  # source line of the node (0: none)


def comments_of(source: str) -> dict[int, tuple[str, bool, int]]:
    """The comments of ``source``: line number -> (comment text from ``#``, True when the line holds only
    the comment, spaces before ``#`` on the line). ``#`` inside string literals is not a comment."""
    out: dict[int, tuple[str, bool, int]] = {}
    for no, line in enumerate(source.splitlines(), 1):
        if "#" not in line:  # most lines: no character walk
            continue
        i, quote = 0, ""
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                out[no] = (line[i:].rstrip(), not line[:i].strip(), len(line[:i]) - len(line[:i].rstrip()))
                break
            i += 1
    return out


class _Layout:
    def __init__(self, p: _Printer) -> None:
        self.p = p
        self.out: list[_Line] = []

    def add(self, indent: int, text: str, node: object) -> None:
        span = getattr(node, "span", None)
        self.out.append(_Line(indent, text, span.line if isinstance(span, A.Span) and span is not A.NOSPAN else 0))

    def blank(self) -> None:
        if self.out and self.out[-1].text:
            self.out.append(_Line(0, "", 0))

    def requirement(self, r: A.Requirement, ind: int) -> None:
        self.add(ind, f"requirement {r.id} {self.p.raw(r.span, r.prose, search=True)}", r)
        for c in r.clauses:
            self.clause(c, ind + 1)

    def clause(self, c: A.Clause, ind: int) -> None:
        p = self.p
        if isinstance(c, A.Requires):
            self.add(ind, f"requires {p.expr(c.expr)}", c)
        elif isinstance(c, A.Ensures):
            self.add(ind, f"ensures {p.expr(c.expr)}", c)
        elif isinstance(c, A.Invariant):
            self.add(ind, f"invariant {p.expr(c.expr)}{_bound(c.max_calls)}", c)
        elif isinstance(c, A.Model):
            self.add(ind, f"model {p.expr(c.ref)}{_bound(c.max_calls)}", c)
            for op in c.ops:
                self.add(ind + 1, _model_op(p, op), op)
        elif isinstance(c, A.Example):
            self.add(ind, f"example {p.expr(c.expr)}", c)
        elif isinstance(c, A.Informal):
            self.add(ind, f"informal {c.category} {p.raw(c.span, c.reason, search=True)}", c)
        elif isinstance(c, A.Raises):
            self.add(ind, f"raises {c.exception} when {p.expr(c.when)}", c)
        elif isinstance(c, A.MayRaise):
            self.add(ind, f"may raise {', '.join(c.exceptions)}", c)
        elif isinstance(c, A.Let):
            self.add(ind, f"let {c.name} = {p.expr(c.value)}", c)
        elif isinstance(c, A.Rule):
            self.add(ind, p.expr(c.expr), c)
        elif isinstance(c, A.Explore):
            self.add(ind, " ".join(["explore", c.kind, *(f"{k} {v}" for k, v in c.bounds)]), c)
        elif isinstance(c, A.SameRows):
            self.add(ind, f"same rows {self._same_call(c.query)}", c)
            for step in c.steps:
                self.add(ind + 1, f"after {self._same_call(step)}", step)
        elif isinstance(c, A.Scenario):
            self.add(ind, f"scenario ({p.params(c.params)}):", c)
            for st in c.body:
                self.stmt(st, ind + 1)

    def _same_call(self, c: A.SameCall) -> str:
        args = ", ".join(self.p.expr(a) for a in c.args)
        return f"{c.name}({args}): {self.p.raw(c.span, c.sql, search=True)}"

    def stmt(self, st: A.Stmt, ind: int) -> None:
        p = self.p
        if isinstance(st, A.Assign):
            self.add(ind, f"{', '.join(st.targets)} = {p.expr(st.value)}", st)
        elif isinstance(st, A.ExprStmt):
            self.add(ind, p.expr(st.value), st)
        elif isinstance(st, A.Expect):
            self.add(ind, f"expect {p.expr(st.value)}", st)
        elif isinstance(st, A.ExpectRaises):
            self.add(ind, f"expect raises {st.exception}: {p.expr(st.call)}", st)
        elif isinstance(st, A.For):
            self.add(ind, f"for {', '.join(st.targets)} in {p.expr(st.iter)}:", st)
            for sub in st.body:
                self.stmt(sub, ind + 1)
        elif isinstance(st, A.If):
            self.add(ind, f"if {p.expr(st.test)}:", st)
            for sub in st.body:
                self.stmt(sub, ind + 1)
            if st.orelse:
                self.add(ind, "else:", None)
                for sub in st.orelse:
                    self.stmt(sub, ind + 1)

    def decl(self, d: object) -> None:  # noqa: C901 - one branch per declaration kind
        p = self.p
        if isinstance(d, A.Requirement):
            self.requirement(d, 0)
        elif isinstance(d, (A.FunctionDecl, A.MethodDecl)):
            kw = "function" if isinstance(d, A.FunctionDecl) else "method"
            ind = 0 if kw == "function" else 1
            ret = f" -> {p.type(d.returns)}" if d.returns is not None else ""
            self.add(ind, f"{kw} {d.name}({p.params(d.params)}){ret}", d)
            for r in d.requirements:
                self.requirement(r, ind + 1)
        elif isinstance(d, A.ClassDecl):
            self.add(0, f"class {d.name}", d)
            for m in _ordered(list(d.methods) + list(d.requirements)):
                if isinstance(m, A.MethodDecl):
                    self.decl(m)
                else:
                    self.requirement(m, 1)  # type: ignore[arg-type]
        elif isinstance(d, A.Let):
            self.add(0, f"let {d.name} = {p.expr(d.value)}", d)
        elif isinstance(d, A.FuncDef):
            self.add(0, f"def {d.name}({p.params(d.params)}) -> {p.type(d.returns)}: {p.expr(d.body)}", d)
        elif isinstance(d, A.RecordDecl):
            line = f"record {d.name}: {p.params(d.fields)}"
            if len(line) <= 100 or not d.fields:
                self.add(0, line, d)
            else:
                self.add(0, f"record {d.name}:", d)
                for f in d.fields:
                    self.add(1, p.params((f,)), f)
        elif isinstance(d, A.ConfigDecl):
            title = f" {p.raw(d.span, d.title, search=True)}" if d.title else ""
            if isinstance(d, A.DatabaseDecl):
                self.add(0, f"database {d.name}{title} schema: {_quote(d.schema_file)}", d)
            else:
                self.add(0, f"config {d.name}{title} schema: {p.params(d.schema)}", d)
            for m in _ordered(list(d.lets) + list(d.requirements)):
                if isinstance(m, A.Let):
                    self.add(1, f"let {m.name} = {p.expr(m.value)}", m)
                else:
                    self.requirement(m, 1)  # type: ignore[arg-type]
        elif isinstance(d, A.StubDecl):
            ret = f" -> {p.type(d.returns)}" if d.returns is not None else ""
            if len(d.outcomes) == 1 and d.outcomes[0].kind == "any":
                body = "any"
            else:
                body = "one of (" + ", ".join(_outcome(p, o) for o in d.outcomes) + ")"
            self.add(0, f"stub {d.name}({p.params(d.params)}){ret}: {body}", d)


def _bound(n: int | None) -> str:
    return "" if n is None else f" up to {n} call{'' if n == 1 else 's'}"


def _model_op(p: _Printer, op: A.ModelOp) -> str:
    head = f"{op.name}({', '.join(op.params)})"
    if op.kind == "expr" and op.value is not None:
        return f"{head}: {p.expr(op.value)}"
    if op.kind == "assign" and op.value is not None and op.target is not None:
        return f"{head}: {p.expr(op.target)} = {p.expr(op.value)}"
    if op.kind == "delete" and op.target is not None:
        return f"{head}: del {p.expr(op.target)}"
    return head


def _outcome(p: _Printer, o: A.StubOutcome) -> str:
    if o.kind == "raises":
        return f"raises {o.exception}"
    if o.kind == "value" and o.value is not None:
        return p.expr(o.value)
    return "any"


def _ordered(nodes: list[object]) -> list[object]:
    return sorted(nodes, key=lambda n: (getattr(n, "span", A.NOSPAN).line, getattr(n, "span", A.NOSPAN).col))


def format_expr(e: A.Expr) -> str:
    """A spec expression in canonical form (no source: strings use canonical quoting)."""
    return _Printer(None).expr(e)


def _target_text(t: str) -> str:
    return t if (_DOTTED.match(t) or _PATHLIKE.match(t)) and t.split(".")[0] not in _KEYWORDS else _quote(t)


def format_spec(spec: A.Spec, source: str | None = None) -> str:
    """The canonical text of ``spec``.

    Args:
        spec: a parsed (or constructed) spec.
        source: the text it was parsed from; keeps comments and the spelling of strings. Without it the
            output has no comments and canonical quoting.

    Returns:
        The formatted text, ending with one newline.
    """
    p = _Printer(source)
    lay = _Layout(p)
    has_spec_line = (re.search(r"(?m)^[ \t]*spec[ \t]", source) is not None if source is not None
                     else bool(_IDENT.match(spec.name)) and spec.name not in _KEYWORDS)
    head = 0
    if has_spec_line:
        title = f" {p.raw(A.Span(spec.file, _spec_line(source), 1, 1, 1), spec.title, search=True)}" \
            if spec.title else ""
        lay.out.append(_Line(0, f"spec {spec.name}{title}", _spec_line(source)))
        head = 1
    if spec.target is not None:
        lay.out.append(_Line(head, f"target: {_target_text(spec.target)}", _line_of(source, r"target\s*:")))
    for imp in spec.imports:
        lay.out.append(_Line(head, f"import {_quote(imp)}", _line_of(source, r"import\s+[\"']" + re.escape(imp))))
    for a in spec.assumptions:
        lay.add(head, f"assume {a.id} {p.raw(a.span, a.prose, search=True)}: {p.expr(a.expr)}", a)
    items: list[object] = [*spec.records, *spec.lets, *spec.defs, *spec.stubs, *spec.functions, *spec.classes,
                           *spec.configs, *spec.databases, *spec.requirements]
    previous: object = None
    for d in _ordered(items):
        grouped = type(d) is type(previous) and isinstance(d, (A.Let, A.FuncDef, A.StubDecl))
        if not grouped:
            lay.blank()
        lay.decl(d)
        previous = d
    return _render(lay.out, source)


def _spec_line(source: str | None) -> int:
    return _line_of(source, r"spec[ \t]")


def _line_of(source: str | None, pattern: str) -> int:
    if source is None:
        return 0
    m = re.search(r"(?m)^[ \t]*" + pattern, source)
    return source.count("\n", 0, m.start()) + 1 if m else 0


def _render(lines: list[_Line], source: str | None) -> str:
    comments = comments_of(source) if source is not None else {}
    srcs = {ln.src for ln in lines if ln.src}
    # a trailing comment on a line that produces no output line (a continuation line) goes before the next
    standalone = sorted(no for no, (_, alone, _) in comments.items() if alone or no not in srcs)
    trailing = {no: text for no, (text, alone, _) in comments.items() if not alone and no in srcs}
    used_trailing: set[int] = set()
    out: list[str] = []
    si = 0
    for ln in lines:
        if ln.src:
            pending = []
            while si < len(standalone) and standalone[si] < ln.src:
                pending.append(standalone[si])
                si += 1
            for no in pending:
                out.append("  " * ln.indent + comments[no][0])
        text = "  " * ln.indent + ln.text if ln.text else ""
        if ln.src and ln.src in trailing and ln.src not in used_trailing:
            text += " " * max(2, comments[ln.src][2]) + trailing[ln.src]  # keeps the author's alignment
            used_trailing.add(ln.src)
        out.append(text)
    for no in standalone[si:]:
        out.append(comments[no][0])
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"
