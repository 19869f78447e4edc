"""The expression half of the fast parser (:mod:`evalgap.specs_lang.fastparse`): token helpers and a
recursive-descent parser mirroring the expression rules of ``grammar/spec.lark`` level by level.

Levels, loosest first: ``<==>`` (left-folded, every ``Iff`` of a chain spans the whole chain), ``==>``
(right-associative), ``x if c else y``, ``or``, ``and``, ``not``, comparisons (one ``Compare`` per chain),
``+ -``, ``* / // %``, unary ``+ -``, ``**``, postfix calls, subscripts and attributes, atoms. ``open_``
says whether a quantifier may stand here without parentheses: at the start of an expression and after
``and``, ``or``, ``not``, ``==>``, ``<==>`` (its body then extends to the end, like Python's ``lambda``), but
not after ``if``, ``else``, a comparison or an arithmetic operator, nor in a quantifier's or a comprehension's
domain (there ``forall`` is an ordinary name, as in lark).
"""

from __future__ import annotations

import ast as pyast
from typing import Any, Final

from evalgap.specs_lang import ast as A
from evalgap.specs_lang import fastnodes as F
from evalgap.specs_lang.fastlex import Reject, Tok, chunks, is_float, relex

__all__ = ["ExprParser", "literal"]

_CONSTS: Final[dict[str, Any]] = {"True": True, "False": False, "None": None}
_QUANT: Final = frozenset(("forall", "exists"))
#: Words that are keywords at the start of an expression (so never a keyword argument's name).
FULL_KW: Final = frozenset(("True", "False", "None", "not", "forall", "exists"))
_CMP_SYM: Final = frozenset(("<", ">", "==", ">=", "<=", "!="))
_CMP_KW: Final = ("in", "not", "is")
_ADD: Final = frozenset(("+", "-"))
#: Tokens that are a whole operand by themselves (a NAME may still be a keyword: callers check).
_SIMPLE: Final = frozenset(("NAME", "NUM", "STRING", "BYTES"))
#: Tokens that end an expression (nothing after a simple operand can continue it).
_ENDS: Final = frozenset(("NL", ")", ",", "]", "}", ":", "EOF"))
#: Tokens after an operand that continue neither an arithmetic expression nor a postfix one.
_NO_ARITH: Final = _ENDS | {"<", ">", "==", ">=", "<=", "!=", "NAME", "==>", "<==>"}
_MUL: Final = frozenset(("*", "/", "//", "%"))
#: Tokens after a ``unary`` operand that continue a ``* / // %`` or ``+ -`` chain.
_BINOPS: Final = _MUL | _ADD
#: ``kw``'s words, longest first, per tuple of words.
_LONGEST_FIRST: dict[tuple[str, ...], tuple[str, ...]] = {}
_new: Final = object.__new__
_SPAN: Final = A.Span


def literal(tok: Tok) -> Any:
    """The value of a STRING or BYTES token (Python's literal syntax, as ``build.py``'s ``literal_eval``).

    Raises:
        Reject: an invalid literal (the lark path reports EG105).
    """
    s = tok[1]
    if tok[0] == "STRING" and "\\" not in s and "\r" not in s and "\x00" not in s:
        body = s[1:-1]
        if body.isascii():
            return body
        try:
            body.encode("utf-8")
            return body
        except UnicodeEncodeError:
            pass
    try:
        return pyast.literal_eval(s)
    except (ValueError, SyntaxError, UnicodeError) as exc:
        raise Reject("invalid literal") from exc


class ExprParser:
    """Token helpers and expressions. ``toks`` is the token list of :func:`~evalgap.specs_lang.fastlex.tokenize`
    (edited in place by ``relex``), ``i`` the current position, ``file`` the name put in spans."""

    def __init__(self, src: str, file: str) -> None:
        self.src = src
        self.file = file
        self.chunks = chunks(src)
        self.tokens = next(self.chunks)
        self.toks, self.lines, self.befores = self.tokens
        self.i = 0

    def next_chunk(self) -> bool:
        """Move to the next chunk of tokens (:func:`~evalgap.specs_lang.fastlex.chunks`), at its first token;
        False at the end of the text. The current chunk must be parsed up to its ``EOF``."""
        tokens = next(self.chunks, None)
        if tokens is None:
            return False
        self.tokens = tokens
        self.toks, self.lines, self.befores = tokens
        self.i = 0
        return True

    # ------------------------------------------------------------------ token helpers
    def span(self, s: int, e: int) -> A.Span:
        """From the start of token ``s`` to the end of token ``e`` (lark's meta of a rule); ``s`` is no ``NL``.

        The Span is made here as :func:`evalgap.specs_lang.fastnodes.maker` makes it (one call less)."""
        toks, befores = self.toks, self.befores
        b = toks[e]
        o = _new(_SPAN)
        d = o.__dict__
        d["file"] = self.file
        d["line"] = self.lines[s]
        a = toks[s]
        d["col"] = a[2] - len(a[1]) - befores[s]
        d["end_line"] = self.lines[e]
        d["end_col"] = b[2] - befores[e]
        return o

    def tspan(self, k: int) -> A.Span:
        """The span of token ``k`` (not an ``NL``)."""
        t = self.toks[k]
        line = self.lines[k]
        end = t[2] - self.befores[k]
        o = _new(_SPAN)
        d = o.__dict__
        d["file"] = self.file
        d["line"] = line
        d["col"] = end - len(t[1])
        d["end_line"] = line
        d["end_col"] = end
        return o

    def expect(self, kind: str) -> Tok:
        """Consume a token of ``kind`` (``NL``, ``STRING``, ``(`` ...)."""
        t = self.toks[self.i]
        if t[0] != kind:
            raise Reject(f"expected {kind}")
        self.i += 1
        return t

    def name(self) -> Tok:
        """Consume a name where lark accepts only a name: every word is one; ``b"x"`` is ``b`` then ``"x"``."""
        t = self.toks[self.i]
        if t[0] != "NAME":
            if t[0] != "BYTES":
                raise Reject("expected a name")
            relex(self.src, self.tokens, self.i, 1, "NAME")
            t = self.toks[self.i]
        self.i += 1
        return t

    def kw(self, words: tuple[str, ...]) -> str | None:
        """The keyword among ``words`` at the current token, where lark accepts no name: the word itself, or
        the longest keyword the word starts with (the token is then split: ``andy`` -> ``and`` ``y``).
        Does not consume it; None when the current token is no such word."""
        t = self.toks[self.i]
        if t[0] != "NAME":
            return None
        w = t[1]
        if w in words:
            return w
        longest_first = _LONGEST_FIRST.get(words)
        if longest_first is None:
            longest_first = _LONGEST_FIRST[words] = tuple(sorted(words, key=len, reverse=True))
        for k in longest_first:
            if w.startswith(k):
                relex(self.src, self.tokens, self.i, len(k), "NAME")
                return k
        return None

    def expect_kw(self, word: str) -> Tok:
        """Consume the keyword ``word`` (where lark accepts no name)."""
        if self.kw((word,)) is None:
            raise Reject(f"expected {word}")
        self.i += 1
        return self.toks[self.i - 1]

    def string(self) -> Any:
        """Consume a STRING token and return its value."""
        return literal(self.expect("STRING"))

    # ------------------------------------------------------------------ expressions
    def expr(self) -> A.Expr:
        """``expr``: an ``<==>`` chain of ``==>`` expressions; a quantifier may stand here.

        Every level from ``<==>`` down to ``not`` starts at the same token, so the first ``not_test`` is parsed
        first and the looser levels continue from it (:meth:`implies_rest`) instead of being entered one call
        each."""
        toks = self.toks
        s = self.i
        t = toks[s]
        if toks[s + 1][0] in _ENDS and t[0] in _SIMPLE and t[1] not in _QUANT and t[1] != "not":
            self.i = s + 1  # fast path: one name or literal, then `)`, `,`, end of line ...
            return self.simple(s)
        left = self.not_test(True)
        if toks[self.i][0] in _ENDS:
            return left
        left = self.implies_rest(s, left)
        if toks[self.i][0] != "<==>":
            return left
        parts = [left]
        while toks[self.i][0] == "<==>":
            self.i += 1
            parts.append(self.implies())
        sp = self.span(s, self.i - 1)
        for p in parts[1:]:
            left = F.Iff(left, p, sp)
        return left

    def implies(self) -> A.Expr:
        """``test ["==>" implies]`` (right-associative), a quantifier allowed at its start."""
        s = self.i
        return self.implies_rest(s, self.not_test(True))

    def implies_rest(self, s: int, left: A.Expr) -> A.Expr:
        """The ``and``, ``or``, ``if``-``else`` and ``==>`` levels after ``left``, the first ``not_test`` of an
        ``implies`` starting at token ``s`` (their nodes span from ``s``)."""
        toks = self.toks
        if toks[self.i][0] == "NAME":
            left = self.or_rest(s, self.and_rest(s, left, True), True)
            if toks[self.i][0] == "NAME" and self.kw(("if",)) is not None:
                left = self.if_rest(s, left)
        if toks[self.i][0] != "==>":
            return left
        self.i += 1
        right = self.implies()
        return F.Implies(left, right, self.span(s, self.i - 1))

    def test(self, open_: bool) -> A.Expr:
        s = self.i
        body = self.or_test(open_)
        if self.toks[self.i][0] != "NAME" or self.kw(("if",)) is None:
            return body
        return self.if_rest(s, body)

    def if_rest(self, s: int, body: A.Expr) -> A.Expr:
        """``body if or_test else test`` from token ``s``; the current token is the ``if``."""
        self.i += 1
        cond = self.or_test(False)
        self.expect_kw("else")
        orelse = self.test(False)
        return F.IfExp(body, cond, orelse, self.span(s, self.i - 1))

    def or_test(self, open_: bool) -> A.Expr:
        s = self.i
        return self.or_rest(s, self.and_test(open_), open_)

    def or_rest(self, s: int, first: A.Expr, open_: bool) -> A.Expr:
        """``first ("or" and_test)*`` from token ``s``: ``first`` itself, or one BoolOp."""
        if self.toks[self.i][0] != "NAME" or self.kw(("or",)) is None:
            return first
        values = [first]
        while self.toks[self.i][0] == "NAME" and self.kw(("or",)) is not None:
            self.i += 1
            values.append(self.and_test(open_))
        return F.BoolOp("or", tuple(values), self.span(s, self.i - 1))

    def and_test(self, open_: bool) -> A.Expr:
        s = self.i
        return self.and_rest(s, self.not_test(open_), open_)

    def and_rest(self, s: int, first: A.Expr, open_: bool) -> A.Expr:
        """``first ("and" not_test)*`` from token ``s``: ``first`` itself, or one BoolOp."""
        if self.toks[self.i][0] != "NAME" or self.kw(("and",)) is None:
            return first
        values = [first]
        while self.toks[self.i][0] == "NAME" and self.kw(("and",)) is not None:
            self.i += 1
            values.append(self.not_test(open_))
        return F.BoolOp("and", tuple(values), self.span(s, self.i - 1))

    def not_test(self, open_: bool) -> A.Expr:
        """``"not" not_test | quantifier | comparison``; a comparison's first operand is parsed here directly
        (a name or literal alone, or ``unary`` then the ``* / // %`` and ``+ -`` chains of :meth:`binops`)."""
        toks = self.toks
        s = self.i
        t = toks[s]
        k = t[0]
        if k == "NAME":
            if t[1] == "not":
                self.i += 1
                operand = self.not_test(open_)
                return F.Not(operand, self.span(s, self.i - 1))
            if open_ and t[1] in _QUANT:
                return self.quantifier()
        if k in _SIMPLE and toks[s + 1][0] in _NO_ARITH:
            self.i = s + 1  # fast path: one name or literal, then no operator of arith level or tighter
            left = self.simple(s)
        else:
            left = self.unary()
            if toks[self.i][0] in _BINOPS:
                left = self.binops(left)
        k = toks[self.i][0]
        if k in _CMP_SYM or (k == "NAME" and self.kw(_CMP_KW) is not None):
            return self.compare_rest(s, left)
        return left

    def quantifier(self) -> A.Quantifier:
        toks = self.toks
        s = self.i
        kind = toks[s][1]
        self.i += 1
        names = [self.name()[1]]
        while toks[self.i][0] == ",":
            self.i += 1
            names.append(self.name()[1])
        self.expect_kw("in")
        domain = self.or_test(False)
        self.expect(":")
        body = self.expr()
        return F.Quantifier(kind, tuple(names), domain, body, self.span(s, self.i - 1))

    def compare_rest(self, s: int, left: A.Expr) -> A.Compare:
        """The comparison chain after its first operand ``left`` (from token ``s``): one Compare node; the
        current token is a comparison operator."""
        toks = self.toks
        ops: list[str] = []
        comps: list[A.Expr] = []
        while True:
            k = toks[self.i][0]
            if k in _CMP_SYM:
                op = k
                self.i += 1
            elif k == "NAME":
                w = self.kw(_CMP_KW)
                if w is None:
                    break
                self.i += 1
                op = w
                if w == "not":
                    self.expect_kw("in")
                    op = "not in"
                elif w == "is" and toks[self.i][0] == "NAME" and toks[self.i][1] == "not":
                    self.i += 1
                    op = "is not"
            else:
                break
            ops.append(op)
            comps.append(self.arith())
        return F.Compare(left, tuple(ops), tuple(comps), self.span(s, self.i - 1))

    def arith(self) -> A.Expr:
        """``term (("+"|"-") term)*``. Each BinOp of a ``+ - * / // %`` chain spans its left operand's start to
        its right operand's end (``build.py`` takes the operands' own spans, so ``(a) + b`` starts at ``a``)."""
        toks = self.toks
        s = self.i
        t = toks[s]
        if toks[s + 1][0] in _NO_ARITH and t[0] in _SIMPLE:
            self.i = s + 1  # fast path: one name or literal, then no operator of this level or tighter
            return self.simple(s)
        left = self.unary()
        if toks[self.i][0] in _BINOPS:
            return self.binops(left)
        return left

    def binops(self, left: A.Expr) -> A.Expr:
        """The ``* / // %`` chain after the ``unary`` operand ``left``, then the ``+ -`` chain of terms."""
        toks = self.toks
        file = self.file
        while toks[self.i][0] in _MUL:
            op = toks[self.i][0]
            self.i += 1
            right = self.unary()
            a, b = left.span, right.span
            left = F.BinOp(op, left, right, F.Span(file, a.line, a.col, b.end_line, b.end_col))
        while toks[self.i][0] in _ADD:
            op = toks[self.i][0]
            self.i += 1
            right = self.term()
            a, b = left.span, right.span
            left = F.BinOp(op, left, right, F.Span(file, a.line, a.col, b.end_line, b.end_col))
        return left

    def term(self) -> A.Expr:
        """``factor (("*"|"/"|"//"|"%") factor)*``, spans as in :meth:`arith`."""
        toks = self.toks
        left = self.unary()
        while toks[self.i][0] in _MUL:
            op = toks[self.i][0]
            self.i += 1
            right = self.unary()
            a, b = left.span, right.span
            left = F.BinOp(op, left, right, F.Span(self.file, a.line, a.col, b.end_line, b.end_col))
        return left

    def simple(self, i: int) -> A.Expr:
        """The Name or Const of token ``i``, a NAME, NUM, STRING or BYTES (a word here is a name, except the
        constants ``True``, ``False``, ``None``). The token's span is made inline (as :meth:`tspan`)."""
        t = self.toks[i]
        k = t[0]
        w = t[1]
        line = self.lines[i]
        end = t[2] - self.befores[i]
        sp = _new(_SPAN)
        d = sp.__dict__
        d["file"] = self.file
        d["line"] = line
        d["col"] = end - len(w)
        d["end_line"] = line
        d["end_col"] = end
        if k == "NAME":
            if w in _CONSTS:
                return F.Const(_CONSTS[w], sp)
            return F.Name(w, sp)
        if k == "NUM":
            return F.Const(float(w) if is_float(w) else int(w.replace("_", "")), sp)
        return F.Const(literal(t), sp)

    def unary(self) -> A.Expr:
        t = self.toks[self.i]
        if t[0] in _ADD:
            s = self.i
            self.i += 1
            operand = self.unary()
            return F.UnaryOp(t[0], operand, self.span(s, self.i - 1))
        s = self.i
        base = self.postfix()
        if self.toks[self.i][0] != "**":
            return base
        self.i += 1
        exp = self.unary()
        return F.BinOp("**", base, exp, self.span(s, self.i - 1))

    def postfix(self) -> A.Expr:
        toks = self.toks
        s = self.i
        if toks[s][0] in _SIMPLE:
            self.i = s + 1
            node = self.simple(s)
        else:
            node = self.atom()
        while True:
            k = toks[self.i][0]
            if k == "(":
                node = self.call(s, node)
            elif k == "[":
                self.i += 1
                index = self.subscript()
                self.expect("]")
                node = F.Subscript(node, index, self.span(s, self.i - 1))
            elif k == ".":
                self.i += 1
                node = F.Attribute(node, self.name()[1], self.span(s, self.i - 1))
            else:
                return node

    def call(self, s: int, func: A.Expr) -> A.Expr:
        toks = self.toks
        self.i += 1
        args: list[Any] = []
        if toks[self.i][0] != ")":
            first = self.argument()
            args.append(first)
            if toks[self.i][0] == "NAME" and not isinstance(first, A.Keyword) and self.kw(("for",)):
                names, it, conds = self.comp_for()
                self.expect(")")
                sp = self.span(s, self.i - 1)
                args[0] = F.Comprehension("gen", first, names, it, conds, sp)
                return self.make_call(func, args, sp)
            while toks[self.i][0] == ",":
                self.i += 1
                if toks[self.i][0] == ")":
                    break
                args.append(self.argument())
        self.expect(")")
        return self.make_call(func, args, self.span(s, self.i - 1))

    @staticmethod
    def make_call(func: A.Expr, args: list[Any], sp: A.Span) -> A.Expr:
        if A.Keyword in map(type, args):
            pos = tuple(a for a in args if not isinstance(a, A.Keyword))
            kws = tuple(a for a in args if isinstance(a, A.Keyword))
        else:  # the usual call: positional arguments only
            pos, kws = tuple(args), ()
        if isinstance(func, A.Name) and func.id == "old" and len(pos) == 1 and not kws:
            return F.Old(pos[0], sp)
        return F.Call(func, pos, kws, sp)

    def argument(self) -> Any:
        toks = self.toks
        t = toks[self.i]
        if t[0] == "NAME" and toks[self.i + 1][0] == "=" and t[1] not in FULL_KW:
            s = self.i
            self.i += 2
            value = self.expr()
            return F.Keyword(t[1], value, self.span(s, self.i - 1))
        return self.expr()

    def subscript(self) -> A.Expr | A.Slice:
        toks = self.toks
        s = self.i
        lower = upper = step = None
        if toks[self.i][0] != ":":
            lower = self.expr()
            if toks[self.i][0] != ":":
                return lower
        self.i += 1
        if toks[self.i][0] not in (":", "]"):
            upper = self.expr()
        if toks[self.i][0] == ":":
            self.i += 1
            if toks[self.i][0] != "]":
                step = self.expr()
        return F.Slice(lower, upper, step, self.span(s, self.i - 1))

    def comp_for(self) -> tuple[tuple[str, ...], A.Expr, tuple[A.Expr, ...]]:
        """``for NAME, ... in or_test (if or_test)*``; the current token is the ``for``."""
        toks = self.toks
        self.expect_kw("for")
        names = [self.name()[1]]
        while toks[self.i][0] == ",":
            self.i += 1
            names.append(self.name()[1])
        self.expect_kw("in")
        it = self.or_test(False)
        conds: list[A.Expr] = []
        while toks[self.i][0] == "NAME" and self.kw(("if",)) is not None:
            self.i += 1
            conds.append(self.or_test(False))
        return tuple(names), it, tuple(conds)

    def atom(self) -> A.Expr:
        toks = self.toks
        s = self.i
        t = toks[s]
        k = t[0]
        if k in _SIMPLE:
            self.i += 1
            return self.simple(s)
        if k == "(":
            return self.paren(s)
        if k == "[":
            return self.bracket(s)
        if k == "{":
            return self.brace(s)
        raise Reject("expected an expression")

    def paren(self, s: int) -> A.Expr:
        toks = self.toks
        self.i += 1
        if toks[self.i][0] == ")":
            self.i += 1
            return F.TupleExpr((), self.span(s, self.i - 1))
        first = self.expr()
        k = toks[self.i][0]
        if k == ")":
            self.i += 1
            return first
        if k == ",":
            elts = self.rest(first, ")")
            return F.TupleExpr(elts, self.span(s, self.i - 1))
        names, it, conds = self.comp_for()
        self.expect(")")
        return F.Comprehension("gen", first, names, it, conds, self.span(s, self.i - 1))

    def rest(self, first: A.Expr, close: str) -> tuple[A.Expr, ...]:
        """``("," expr)* ","? close`` after ``first``; consumes ``close``."""
        toks = self.toks
        elts = [first]
        while toks[self.i][0] == ",":
            self.i += 1
            if toks[self.i][0] == close:
                break
            elts.append(self.expr())
        self.expect(close)
        return tuple(elts)

    def bracket(self, s: int) -> A.Expr:
        toks = self.toks
        self.i += 1
        if toks[self.i][0] == "]":
            self.i += 1
            return F.ListExpr((), self.span(s, self.i - 1))
        first = self.expr()
        if toks[self.i][0] in (",", "]"):
            elts = self.rest(first, "]")
            return F.ListExpr(elts, self.span(s, self.i - 1))
        names, it, conds = self.comp_for()
        self.expect("]")
        return F.Comprehension("list", first, names, it, conds, self.span(s, self.i - 1))

    def brace(self, s: int) -> A.Expr:
        toks = self.toks
        self.i += 1
        if toks[self.i][0] == "}":
            self.i += 1
            return F.DictExpr((), (), self.span(s, self.i - 1))
        first = self.expr()
        k = toks[self.i][0]
        if k == ":":
            keys, values = [first], []
            self.i += 1
            values.append(self.expr())
            while toks[self.i][0] == ",":
                self.i += 1
                if toks[self.i][0] == "}":
                    break
                keys.append(self.expr())
                self.expect(":")
                values.append(self.expr())
            self.expect("}")
            return F.DictExpr(tuple(keys), tuple(values), self.span(s, self.i - 1))
        if k in (",", "}"):
            elts = self.rest(first, "}")
            return F.SetExpr(elts, self.span(s, self.i - 1))
        names, it, conds = self.comp_for()
        self.expect("}")
        return F.Comprehension("set", first, names, it, conds, self.span(s, self.i - 1))
