"""Turn lark's parse tree into the typed AST (:mod:`evalgap.specs_lang.ast`), with spans."""

from __future__ import annotations

import ast as pyast
from typing import Any

from lark import Token, Transformer, Tree, v_args
from lark.tree import Meta

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.errors import Diagnostic, SpecSyntaxError

__all__ = ["build_spec"]


def _literal(tok: Token, file: str, text: str) -> Any:
    try:
        return pyast.literal_eval(str(tok))
    except (ValueError, SyntaxError) as exc:
        span = A.Span(file, tok.line or 1, tok.column or 1, tok.end_line or 1, tok.end_column or 1)
        raise SpecSyntaxError([Diagnostic("EG105", span, f"invalid literal {str(tok)!r}: {exc}")],
                              {file: text}) from None


@v_args(meta=True)
class _Builder(Transformer[Token, Any]):
    def __init__(self, file: str, text: str) -> None:
        super().__init__(visit_tokens=False)
        self.file = file
        self.text = text

    # ---------------------------------------------------------- helpers
    def _span(self, meta: Meta) -> A.Span:
        if getattr(meta, "empty", True):
            return A.NOSPAN
        return A.Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, tok: Token) -> A.Span:
        return A.Span(self.file, tok.line or 1, tok.column or 1, tok.end_line or 1, tok.end_column or 1)

    @staticmethod
    def _present(children: list[Any]) -> list[Any]:
        return [c for c in children if c is not None]

    # ---------------------------------------------------------- top level
    def start(self, meta: Meta, children: list[Any]) -> A.Spec:
        name, title, target, imports = None, "", None, []
        reqs: list[A.Requirement] = []
        funcs: list[A.FunctionDecl] = []
        classes: list[A.ClassDecl] = []
        buckets: dict[type, list[Any]] = {A.Assume: [], A.Let: [], A.FuncDef: [], A.RecordDecl: [],
                                          A.ConfigDecl: [], A.StubDecl: []}
        flat: list[Any] = []
        for c in self._present(children):
            if isinstance(c, tuple) and c and c[0] == "spec":
                flat.append(c[:3])
                flat.extend(c[3])
            else:
                flat.append(c)
        for c in flat:
            kind = c[0] if isinstance(c, tuple) else None
            if kind == "spec":
                name, title = c[1], c[2]
            elif kind == "target":
                target = c[1]
            elif kind == "import":
                imports.append(c[1])
            elif isinstance(c, A.Requirement):
                reqs.append(c)
            elif isinstance(c, A.FunctionDecl):
                funcs.append(c)
            elif isinstance(c, A.ClassDecl):
                classes.append(c)
            elif type(c) in buckets:
                buckets[type(c)].append(c)
        if name is None:
            stem = self.file.rsplit("/", 1)[-1]
            name = stem[:-4] if stem.endswith(".req") else stem
        return A.Spec(name, title, target, tuple(imports), tuple(reqs), tuple(funcs), tuple(classes),
                      assumptions=tuple(buckets[A.Assume]), lets=tuple(buckets[A.Let]),
                      defs=tuple(buckets[A.FuncDef]), records=tuple(buckets[A.RecordDecl]),
                      configs=tuple(buckets[A.ConfigDecl]), stubs=tuple(buckets[A.StubDecl]),
                      file=self.file, span=self._span(meta))

    def spec_decl(self, meta: Meta, children: list[Any]) -> tuple[Any, ...]:
        name = str(children[0])
        title = _literal(children[1], self.file, self.text) if len(children) > 1 and children[1] else ""
        return ("spec", name, title, tuple(c for c in children[2:] if c is not None))

    def target_decl(self, meta: Meta, children: list[Any]) -> tuple[str, str]:
        return ("target", children[0])

    def target_ref(self, meta: Meta, children: list[Any]) -> str:
        c = children[0]
        if isinstance(c, Token) and c.type == "STRING":
            return str(_literal(c, self.file, self.text))
        return str(c)

    def dotted_or_path(self, meta: Meta, children: list[Any]) -> str:
        return ".".join(str(c) for c in children)

    def import_decl(self, meta: Meta, children: list[Any]) -> tuple[str, str]:
        return ("import", _literal(children[0], self.file, self.text))

    def assume_decl(self, meta: Meta, children: list[Any]) -> A.Assume:
        return A.Assume(children[0], _literal(children[1], self.file, self.text), children[2], self._span(meta))

    def let_decl(self, meta: Meta, children: list[Any]) -> A.Let:
        return A.Let(str(children[0]), children[1], self._span(meta))

    let_clause = let_decl

    def def_decl(self, meta: Meta, children: list[Any]) -> A.FuncDef:
        params = children[1] if isinstance(children[1], tuple) else ()
        return A.FuncDef(str(children[0]), params, children[2], children[3], self._span(meta))

    def record_decl(self, meta: Meta, children: list[Any]) -> A.RecordDecl:
        fields = tuple(p for group in children[1:] if group for p in group)
        return A.RecordDecl(str(children[0]), fields, self._span(meta))

    def config_block(self, meta: Meta, children: list[Any]) -> A.ConfigDecl:
        title = _literal(children[1], self.file, self.text) if children[1] is not None else ""
        schema = children[2] if isinstance(children[2], tuple) else ()
        reqs = tuple(c for c in children[3:] if isinstance(c, A.Requirement))
        lets = tuple(c for c in children[3:] if isinstance(c, A.Let))
        return A.ConfigDecl(str(children[0]), title, schema, reqs, lets, self._span(meta))

    def stub_decl(self, meta: Meta, children: list[Any]) -> A.StubDecl:
        params = children[1] if isinstance(children[1], tuple) else ()
        return A.StubDecl(children[0], params, children[2], children[3], self._span(meta))

    def stub_any(self, meta: Meta, children: list[Any]) -> tuple[A.StubOutcome, ...]:
        return (A.StubOutcome("any", span=self._span(meta)),)

    def stub_one_of(self, meta: Meta, children: list[Any]) -> tuple[A.StubOutcome, ...]:
        return tuple(c for c in children if c is not None)

    def outcome_any(self, meta: Meta, children: list[Any]) -> A.StubOutcome:
        return A.StubOutcome("any", span=self._span(meta))

    def outcome_raises(self, meta: Meta, children: list[Any]) -> A.StubOutcome:
        return A.StubOutcome("raises", exception=children[0], span=self._span(meta))

    def outcome_value(self, meta: Meta, children: list[Any]) -> A.StubOutcome:
        return A.StubOutcome("value", value=children[0], span=self._span(meta))

    def dotted_name(self, meta: Meta, children: list[Any]) -> str:
        return ".".join(str(c) for c in children)

    def function_block(self, meta: Meta, children: list[Any]) -> A.FunctionDecl:
        name, params, returns, reqs = self._decl_parts(children)
        return A.FunctionDecl(name, params, returns, reqs, self._span(meta))

    def method_block(self, meta: Meta, children: list[Any]) -> A.MethodDecl:
        name, params, returns, reqs = self._decl_parts(children)
        return A.MethodDecl(name, params, returns, reqs, self._span(meta))

    def _decl_parts(self, children: list[Any]) -> tuple[str, tuple[A.Param, ...], A.TypeRef | None,
                                                        tuple[A.Requirement, ...]]:
        name = str(children[0])
        params: tuple[A.Param, ...] = ()
        returns = None
        reqs = []
        for c in children[1:]:
            if isinstance(c, tuple) and c and isinstance(c[0], A.Param):
                params = c
            elif isinstance(c, A.TypeRef):
                returns = c
            elif isinstance(c, A.Requirement):
                reqs.append(c)
        return name, params, returns, tuple(reqs)

    def class_block(self, meta: Meta, children: list[Any]) -> A.ClassDecl:
        methods = tuple(c for c in children if isinstance(c, A.MethodDecl))
        reqs = tuple(c for c in children if isinstance(c, A.Requirement))
        return A.ClassDecl(str(children[0]), methods, reqs, self._span(meta))

    def requirement(self, meta: Meta, children: list[Any]) -> A.Requirement:
        rid, prose = children[0], _literal(children[1], self.file, self.text)
        clauses = tuple(c for c in children[2:] if c is not None)
        return A.Requirement(rid, prose, clauses, self._span(meta))

    def req_id(self, meta: Meta, children: list[Any]) -> str:
        toks = [c for c in children if isinstance(c, Token)]
        for a, b in zip(toks, toks[1:]):
            if a.end_line != b.line or a.end_column != b.column:
                span = A.Span(self.file, a.line or 1, a.column or 1, b.end_line or 1, b.end_column or 1)
                raise SpecSyntaxError(
                    [Diagnostic("EG104", span, "a requirement ID cannot contain spaces",
                                f"write it as {''.join(str(t) for t in toks)!r}")], {self.file: self.text})
        return "".join(str(t) for t in toks)

    # ---------------------------------------------------------- clauses
    def requires_clause(self, meta: Meta, children: list[Any]) -> A.Requires:
        return A.Requires(children[0], self._span(meta))

    def ensures_clause(self, meta: Meta, children: list[Any]) -> A.Ensures:
        return A.Ensures(children[0], self._span(meta))

    def invariant_clause(self, meta: Meta, children: list[Any]) -> A.Invariant:
        return A.Invariant(children[0], self._span(meta))

    def example_clause(self, meta: Meta, children: list[Any]) -> A.Example:
        return A.Example(children[0], self._span(meta))

    def informal_clause(self, meta: Meta, children: list[Any]) -> A.Informal:
        return A.Informal(str(children[0]), _literal(children[1], self.file, self.text), self._span(meta))

    def raises_clause(self, meta: Meta, children: list[Any]) -> A.Raises:
        return A.Raises(children[0], children[1], self._span(meta))

    def rule_clause(self, meta: Meta, children: list[Any]) -> A.Rule:
        return A.Rule(children[0], self._span(meta))

    def scenario_clause(self, meta: Meta, children: list[Any]) -> A.Scenario:
        params = children[0] if isinstance(children[0], tuple) else ()
        body = tuple(c for c in children[1:] if c is not None)
        return A.Scenario(params, body, self._span(meta))

    def params(self, meta: Meta, children: list[Any]) -> tuple[A.Param, ...]:
        return tuple(children)

    def param(self, meta: Meta, children: list[Any]) -> A.Param:
        return A.Param(str(children[0]), children[1], self._span(meta))

    def type_expr(self, meta: Meta, children: list[Any]) -> A.TypeRef:
        names = [str(c) for c in children if isinstance(c, Token)]
        args = tuple(c for c in children if isinstance(c, A.TypeRef))
        rng = length = alpha = None
        for c in children:
            if isinstance(c, tuple) and len(c) == 2 and c[0] in ("in", "len"):
                if c[0] == "in":
                    rng = c[1]
                else:
                    length = c[1]
            elif isinstance(c, A.Alphabet):
                alpha = c
        return A.TypeRef(".".join(names), args, self._span(meta), rng, length, alpha)

    def in_range(self, meta: Meta, children: list[Any]) -> tuple[str, A.Range]:
        return ("in", children[0])

    def len_range(self, meta: Meta, children: list[Any]) -> tuple[str, A.Range]:
        return ("len", children[0])

    def range_spec(self, meta: Meta, children: list[Any]) -> A.Range:
        return A.Range(children[0], children[1], self._span(meta))

    def signed_number(self, meta: Meta, children: list[Any]) -> int | float:
        tok = children[-1]
        text = str(tok).replace("_", "")
        value: int | float = int(text) if tok.type == "INT" else float(text)
        return -value if children[0] is not None else value

    def alphabet_kw(self, meta: Meta, children: list[Any]) -> str:
        return str(children[0])

    def named_alphabet(self, meta: Meta, children: list[Any]) -> A.Alphabet:
        name = str(children[0])
        return A.Alphabet(name, A.ALPHABETS[name], self._span(meta))

    def chars_alphabet(self, meta: Meta, children: list[Any]) -> A.Alphabet:
        return A.Alphabet("chars", _literal(children[0], self.file, self.text), self._span(meta))

    # ---------------------------------------------------------- statements
    def assign_stmt(self, meta: Meta, children: list[Any]) -> A.Assign:
        return A.Assign(children[0], children[1], self._span(meta))

    def assign_target(self, meta: Meta, children: list[Any]) -> tuple[str, ...]:
        return tuple(str(c) for c in children)

    def expect_raises_stmt(self, meta: Meta, children: list[Any]) -> A.ExpectRaises:
        return A.ExpectRaises(children[0], children[-1], self._span(meta))

    def expect_stmt(self, meta: Meta, children: list[Any]) -> A.Expect:
        return A.Expect(children[0], self._span(meta))

    def expr_stmt(self, meta: Meta, children: list[Any]) -> A.ExprStmt:
        return A.ExprStmt(children[0], self._span(meta))

    # ---------------------------------------------------------- expressions
    def quant_kw(self, meta: Meta, children: list[Any]) -> str:
        return str(children[0])

    def add_op(self, meta: Meta, children: list[Any]) -> str:
        return str(children[0])

    mul_op = unary_op = add_op

    def req_sep(self, meta: Meta, children: list[Any]) -> Token:
        return children[0]  # type: ignore[no-any-return]

    def quantifier(self, meta: Meta, children: list[Any]) -> A.Quantifier:
        kind = str(children[0])
        names = tuple(str(c) for c in children[1:-2])
        return A.Quantifier(kind, names, children[-2], children[-1], self._span(meta))

    def iff(self, meta: Meta, children: list[Any]) -> A.Expr:
        out: A.Expr = children[0]
        for nxt in children[1:]:
            out = A.Iff(out, nxt, self._span(meta))
        return out

    def implies(self, meta: Meta, children: list[Any]) -> A.Expr:
        if len(children) == 1 or children[1] is None:
            return children[0]  # type: ignore[no-any-return]
        return A.Implies(children[0], children[1], self._span(meta))

    def ifexp(self, meta: Meta, children: list[Any]) -> A.Expr:
        if len(children) == 1:
            return children[0]  # type: ignore[no-any-return]
        return A.IfExp(children[0], children[1], children[2], self._span(meta))

    def or_op(self, meta: Meta, children: list[Any]) -> A.Expr:
        if len(children) == 1:
            return children[0]  # type: ignore[no-any-return]
        return A.BoolOp("or", tuple(children), self._span(meta))

    def and_op(self, meta: Meta, children: list[Any]) -> A.Expr:
        if len(children) == 1:
            return children[0]  # type: ignore[no-any-return]
        return A.BoolOp("and", tuple(children), self._span(meta))

    def not_op(self, meta: Meta, children: list[Any]) -> A.Expr:
        return A.Not(children[0], self._span(meta))

    def comp_op(self, meta: Meta, children: list[Any]) -> str:
        return " ".join(str(c) for c in children)

    def compare(self, meta: Meta, children: list[Any]) -> A.Expr:
        if len(children) == 1:
            return children[0]  # type: ignore[no-any-return]
        left = children[0]
        ops = tuple(children[1::2])
        comps = tuple(children[2::2])
        return A.Compare(left, ops, comps, self._span(meta))

    def binop_chain(self, meta: Meta, children: list[Any]) -> A.Expr:
        if len(children) == 1:
            return children[0]  # type: ignore[no-any-return]
        out = children[0]
        for i in range(1, len(children), 2):
            op, right = children[i], children[i + 1]
            sp = A.Span(self.file, _line(out, meta), _col(out, meta), getattr(right.span, "end_line", 1),
                        getattr(right.span, "end_col", 1))
            out = A.BinOp(str(op), out, right, sp)
        return out  # type: ignore[no-any-return]

    def unary(self, meta: Meta, children: list[Any]) -> A.Expr:
        return A.UnaryOp(str(children[0]), children[1], self._span(meta))

    def power(self, meta: Meta, children: list[Any]) -> A.Expr:
        if len(children) == 1 or children[1] is None:
            return children[0]  # type: ignore[no-any-return]
        return A.BinOp("**", children[0], children[1], self._span(meta))

    def call(self, meta: Meta, children: list[Any]) -> A.Call | A.Old:
        args = children[1] or ()
        pos = tuple(a for a in args if not isinstance(a, A.Keyword))
        kws = tuple(a for a in args if isinstance(a, A.Keyword))
        func = children[0]
        if isinstance(func, A.Name) and func.id == "old" and len(pos) == 1 and not kws:
            return A.Old(pos[0], self._span(meta))
        return A.Call(func, pos, kws, self._span(meta))

    def call_gen(self, meta: Meta, children: list[Any]) -> A.Call | A.Old:
        names, it, conds = children[2]
        gen = A.Comprehension("gen", children[1], names, it, conds, self._span(meta))
        return self.call(meta, [children[0], (gen,)])

    def arguments(self, meta: Meta, children: list[Any]) -> tuple[Any, ...]:
        return tuple(children)

    def kwarg(self, meta: Meta, children: list[Any]) -> A.Keyword:
        return A.Keyword(str(children[0]), children[1], self._span(meta))

    def subscript(self, meta: Meta, children: list[Any]) -> A.Subscript:
        return A.Subscript(children[0], children[1], self._span(meta))

    def slice(self, meta: Meta, children: list[Any]) -> A.Slice:
        parts = list(children) + [None] * (3 - len(children))
        return A.Slice(parts[0], parts[1], parts[2], self._span(meta))

    def attribute(self, meta: Meta, children: list[Any]) -> A.Attribute:
        return A.Attribute(children[0], str(children[1]), self._span(meta))

    def name(self, meta: Meta, children: list[Any]) -> A.Name:
        return A.Name(str(children[0]), self._span(meta))

    def int_lit(self, meta: Meta, children: list[Any]) -> A.Const:
        return A.Const(int(str(children[0]).replace("_", "")), self._span(meta))

    def float_lit(self, meta: Meta, children: list[Any]) -> A.Const:
        return A.Const(float(str(children[0])), self._span(meta))

    def str_lit(self, meta: Meta, children: list[Any]) -> A.Const:
        return A.Const(_literal(children[0], self.file, self.text), self._span(meta))

    def bytes_lit(self, meta: Meta, children: list[Any]) -> A.Const:
        return A.Const(_literal(children[0], self.file, self.text), self._span(meta))

    def true_lit(self, meta: Meta, children: list[Any]) -> A.Const:
        return A.Const(True, self._span(meta))

    def false_lit(self, meta: Meta, children: list[Any]) -> A.Const:
        return A.Const(False, self._span(meta))

    def none_lit(self, meta: Meta, children: list[Any]) -> A.Const:
        return A.Const(None, self._span(meta))

    def empty_tuple(self, meta: Meta, children: list[Any]) -> A.TupleExpr:
        return A.TupleExpr((), self._span(meta))

    def paren(self, meta: Meta, children: list[Any]) -> A.Expr:
        return children[0]  # type: ignore[no-any-return]

    def tuple_lit(self, meta: Meta, children: list[Any]) -> A.TupleExpr:
        return A.TupleExpr(tuple(self._present(children)), self._span(meta))

    def list_lit(self, meta: Meta, children: list[Any]) -> A.ListExpr:
        return A.ListExpr(tuple(self._present(children)), self._span(meta))

    def set_lit(self, meta: Meta, children: list[Any]) -> A.SetExpr:
        return A.SetExpr(tuple(self._present(children)), self._span(meta))

    def empty_dict(self, meta: Meta, children: list[Any]) -> A.DictExpr:
        return A.DictExpr((), (), self._span(meta))

    def dict_lit(self, meta: Meta, children: list[Any]) -> A.DictExpr:
        items = self._present(children)
        return A.DictExpr(tuple(items[0::2]), tuple(items[1::2]), self._span(meta))

    def comp_for(self, meta: Meta, children: list[Any]) -> tuple[tuple[str, ...], A.Expr, tuple[A.Expr, ...]]:
        names = tuple(str(c) for c in children if isinstance(c, Token))
        exprs = [c for c in children if not isinstance(c, Token)]
        return names, exprs[0], tuple(exprs[1:])

    def _comp(self, kind: str, meta: Meta, children: list[Any]) -> A.Comprehension:
        names, it, conds = children[1]
        return A.Comprehension(kind, children[0], names, it, conds, self._span(meta))

    def list_comp(self, meta: Meta, children: list[Any]) -> A.Comprehension:
        return self._comp("list", meta, children)

    def set_comp(self, meta: Meta, children: list[Any]) -> A.Comprehension:
        return self._comp("set", meta, children)

    def gen_comp(self, meta: Meta, children: list[Any]) -> A.Comprehension:
        return self._comp("gen", meta, children)


def _line(node: Any, meta: Meta) -> int:
    sp = getattr(node, "span", None)
    return sp.line if isinstance(sp, A.Span) and sp.line else getattr(meta, "line", 1)


def _col(node: Any, meta: Meta) -> int:
    sp = getattr(node, "span", None)
    return sp.col if isinstance(sp, A.Span) and sp.col else getattr(meta, "column", 1)


def build_spec(tree: Tree[Token], file: str, text: str) -> A.Spec:
    """Transform a parse tree from :func:`evalgap.specs_lang.parser.grammar` into a :class:`Spec`.

    Raises:
        SpecSyntaxError: a malformed literal or requirement ID.
    """
    result = _Builder(file, text).transform(tree)
    assert isinstance(result, A.Spec)
    return result
