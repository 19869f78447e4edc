"""The expression half of the AST builder (:mod:`evalgap.specs_lang.build`): :class:`ExprBuilder` holds the
helpers every rule callback shares (spans, literals) and the callbacks of the expression rules. See
:mod:`evalgap.specs_lang.build` for how the builder runs inside lark's LALR parser and what :class:`Carry` is.
"""

from __future__ import annotations

import ast as pyast
from typing import Any

from lark import Token, Transformer

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.errors import Diagnostic, SpecSyntaxError
from evalgap.specs_lang.diagnostics import INTEGER_TOO_LONG, UNTERMINATED_STRING

__all__ = ["ExprBuilder", "Carry"]

_Span = A.Span
_C = list[Any]  # a rule's symbols: Tokens, nodes, Carry values and the plain values of helper rules


class Carry:
    """A value with the span of the text its rule matched (when that is not the value's own span).

    Args:
        value: the node or plain value.
        span: the text of the rule that produced it.
    """

    __slots__ = ("value", "span")

    def __init__(self, value: Any, span: A.Span) -> None:
        self.value = value
        self.span = span


def _v(x: Any) -> Any:
    return x.value if type(x) is Carry else x


def _vals(c: _C) -> list[Any]:
    """The rule's values (tokens left out, carried values unwrapped)."""
    return [x.value if type(x) is Carry else x for x in c if type(x) is not Token]


class ExprBuilder(Transformer[Token, Any]):
    """The shared helpers and the expression callbacks of :class:`~evalgap.specs_lang.build.Builder`; :meth:`reset`
    names the file and text before each parse.

    Every other public method is the callback of the grammar rule (or alias) of its name: it takes the rule's
    symbols in order and returns the rule's node (or value, or :class:`Carry`). They raise
    :class:`~evalgap.specs_lang.errors.SpecSyntaxError` for a malformed literal (EG105) or a requirement ID
    with spaces (EG104). Not reentrant: :func:`evalgap.specs_lang.parser.parse` holds a lock around ``reset``
    and the parse.
    """

    def __init__(self) -> None:
        super().__init__(visit_tokens=False)
        self.file = "<spec>"
        self.text = ""

    def reset(self, file: str, text: str) -> None:
        """Name the file (for spans) and the source (for diagnostics) of the next parse.

        Args:
            file: the name used in spans.
            text: the whole source.
        """
        self.file, self.text = file, text

    # ---------------------------------------------------------- helpers
    def _sp(self, a: Any, b: Any) -> A.Span:
        """The span from the start of symbol ``a`` to the end of symbol ``b``."""
        if type(a) is Token:
            line, col = a.line, a.column
        else:
            s = a.span
            line, col = s.line, s.col
        if type(b) is Token:  # lark types a token's position Optional; the lexer's tokens all have one
            return _Span(self.file, line, col, b.end_line, b.end_column)  # type: ignore[arg-type]
        s = b.span
        return _Span(self.file, line, col, s.end_line, s.end_col)  # type: ignore[arg-type]

    def _int(self, tok: Token) -> int:
        """The integer a token spells; EG108 at the token when it has more digits than Python converts."""
        try:
            return int(str(tok).replace("_", ""))
        except ValueError as exc:
            span = _Span(self.file, tok.line or 1, tok.column or 1, tok.end_line or 1, tok.end_column or 1)
            raise SpecSyntaxError([Diagnostic(INTEGER_TOO_LONG, span, f"integer literal of {len(str(tok))} "
                                              f"characters: {exc}")], {self.file: self.text}) from None

    def _lit(self, tok: Token) -> Any:
        try:
            return pyast.literal_eval(tok)
        except (ValueError, SyntaxError) as exc:
            span = _Span(self.file, tok.line or 1, tok.column or 1, tok.end_line or 1, tok.end_column or 1)
            raise SpecSyntaxError([Diagnostic(UNTERMINATED_STRING, span, f"invalid literal {str(tok)!r}: {exc}")],
                                  {self.file: self.text}) from None

    # ---------------------------------------------------------- expressions
    def quant_kw(self, c: _C) -> Token:
        return c[0]  # type: ignore[no-any-return]

    def add_op(self, c: _C) -> Token:
        return c[0]  # type: ignore[no-any-return]

    mul_op = unary_op = add_op

    def quantifier(self, c: _C) -> A.Quantifier:
        names = tuple(str(t) for t in c[1:-4:2])
        return A.Quantifier(str(c[0]), names, _v(c[-3]), _v(c[-1]), self._sp(c[0], c[-1]))

    def iff(self, c: _C) -> A.Expr:
        span = self._sp(c[0], c[-1])
        out: A.Expr = _v(c[0])
        for nxt in c[2::2]:
            out = A.Iff(out, _v(nxt), span)
        return out

    def implies(self, c: _C) -> A.Implies:
        return A.Implies(_v(c[0]), _v(c[2]), self._sp(c[0], c[-1]))

    def ifexp(self, c: _C) -> A.IfExp:
        return A.IfExp(_v(c[0]), _v(c[2]), _v(c[4]), self._sp(c[0], c[-1]))

    def or_op(self, c: _C) -> A.BoolOp:
        return A.BoolOp("or", tuple(_v(x) for x in c[::2]), self._sp(c[0], c[-1]))

    def and_op(self, c: _C) -> A.BoolOp:
        return A.BoolOp("and", tuple(_v(x) for x in c[::2]), self._sp(c[0], c[-1]))

    def not_op(self, c: _C) -> A.Not:
        return A.Not(_v(c[1]), self._sp(c[0], c[-1]))

    def comp_op(self, c: _C) -> str:
        return " ".join(c)

    def compare(self, c: _C) -> A.Compare:
        return A.Compare(_v(c[0]), tuple(c[1::2]), tuple(_v(x) for x in c[2::2]), self._sp(c[0], c[-1]))

    def binop_chain(self, c: _C) -> A.Expr | Carry:
        file = self.file
        out = _v(c[0])
        for i in range(1, len(c), 2):
            right = _v(c[i + 1])
            s, e = out.span, right.span
            out = A.BinOp(str(c[i]), out, right, _Span(file, s.line, s.col, e.end_line, e.end_col))
        if type(c[0]) is Carry or type(c[-1]) is Carry:  # brackets around the first or last operand
            return Carry(out, self._sp(c[0], c[-1]))
        return out  # type: ignore[no-any-return]

    def unary(self, c: _C) -> A.UnaryOp:
        return A.UnaryOp(str(c[0]), _v(c[1]), self._sp(c[0], c[-1]))

    def power(self, c: _C) -> A.BinOp:
        return A.BinOp("**", _v(c[0]), _v(c[2]), self._sp(c[0], c[-1]))

    def call(self, c: _C) -> A.Call | A.Old:
        args = c[2] if type(c[2]) is tuple else ()
        return self._call(_v(c[0]), args, self._sp(c[0], c[-1]))

    @staticmethod
    def _call(func: A.Expr, args: tuple[Any, ...], span: A.Span) -> A.Call | A.Old:
        pos = tuple(a for a in args if type(a) is not A.Keyword)
        kws = tuple(a for a in args if type(a) is A.Keyword)
        if type(func) is A.Name and func.id == "old" and len(pos) == 1 and not kws:
            return A.Old(pos[0], span)
        return A.Call(func, pos, kws, span)

    def call_gen(self, c: _C) -> A.Call | A.Old:
        names, it, conds = c[3]
        span = self._sp(c[0], c[-1])
        gen = A.Comprehension("gen", _v(c[2]), names, it, conds, span)
        return self._call(_v(c[0]), (gen,), span)

    def arguments(self, c: _C) -> tuple[Any, ...]:
        return tuple(_vals(c))

    def kwarg(self, c: _C) -> A.Keyword:
        return A.Keyword(str(c[0]), _v(c[2]), self._sp(c[0], c[-1]))

    def subscript(self, c: _C) -> A.Subscript:
        return A.Subscript(_v(c[0]), _v(c[2]), self._sp(c[0], c[-1]))

    def slice(self, c: _C) -> A.Slice:
        parts: list[Any] = [None, None, None]
        i = 0
        for x in c:
            if type(x) is Token:  # a ':'
                i += 1
            else:
                parts[i] = _v(x)
        return A.Slice(parts[0], parts[1], parts[2], self._sp(c[0], c[-1]))

    def attribute(self, c: _C) -> A.Attribute:
        return A.Attribute(_v(c[0]), str(c[2]), self._sp(c[0], c[-1]))

    def name(self, c: _C) -> A.Name:
        t = c[0]
        return A.Name(str(t), _Span(self.file, t.line, t.column, t.end_line, t.end_column))

    def int_lit(self, c: _C) -> A.Const:
        t = c[0]
        return A.Const(self._int(t), _Span(self.file, t.line, t.column, t.end_line, t.end_column))

    def float_lit(self, c: _C) -> A.Const:
        return A.Const(float(c[0]), self._sp(c[0], c[0]))

    def str_lit(self, c: _C) -> A.Const:
        return A.Const(self._lit(c[0]), self._sp(c[0], c[0]))

    bytes_lit = str_lit

    def true_lit(self, c: _C) -> A.Const:
        return A.Const(True, self._sp(c[0], c[0]))

    def false_lit(self, c: _C) -> A.Const:
        return A.Const(False, self._sp(c[0], c[0]))

    def none_lit(self, c: _C) -> A.Const:
        return A.Const(None, self._sp(c[0], c[0]))

    def empty_tuple(self, c: _C) -> A.TupleExpr:
        return A.TupleExpr((), self._sp(c[0], c[-1]))

    def paren(self, c: _C) -> Carry:
        return Carry(_v(c[1]), self._sp(c[0], c[-1]))

    def tuple_lit(self, c: _C) -> A.TupleExpr:
        return A.TupleExpr(tuple(_vals(c)), self._sp(c[0], c[-1]))

    def list_lit(self, c: _C) -> A.ListExpr:
        return A.ListExpr(tuple(_vals(c)), self._sp(c[0], c[-1]))

    def set_lit(self, c: _C) -> A.SetExpr:
        return A.SetExpr(tuple(_vals(c)), self._sp(c[0], c[-1]))

    def empty_dict(self, c: _C) -> A.DictExpr:
        return A.DictExpr((), (), self._sp(c[0], c[-1]))

    def dict_lit(self, c: _C) -> A.DictExpr:
        items = _vals(c)
        return A.DictExpr(tuple(items[0::2]), tuple(items[1::2]), self._sp(c[0], c[-1]))

    def comp_for(self, c: _C) -> tuple[tuple[str, ...], A.Expr, tuple[A.Expr, ...]]:
        i = 1
        while c[i + 1] == ",":
            i += 2
        names = tuple(str(t) for t in c[1:i + 1:2])
        return names, _v(c[i + 2]), tuple(_v(x) for x in c[i + 4::2])

    def _comp(self, kind: str, c: _C) -> A.Comprehension:
        names, it, conds = c[2]
        return A.Comprehension(kind, _v(c[1]), names, it, conds, self._sp(c[0], c[-1]))

    def list_comp(self, c: _C) -> A.Comprehension:
        return self._comp("list", c)

    def set_comp(self, c: _C) -> A.Comprehension:
        return self._comp("set", c)

    def gen_comp(self, c: _C) -> A.Comprehension:
        return self._comp("gen", c)
