"""A hand-written recursive-descent parser for ``.req`` text: the fast path of :func:`~evalgap.specs_lang.parse`.

It builds exactly the AST the lark path (``grammar/spec.lark`` + ``build.py``) builds, spans included:
a node's span runs from the first to the last token of its grammar rule (lark's ``propagate_positions``;
a clause's span ends after the newline and the next line's indentation), ``(e)`` is ``e`` with ``e``'s
span, a ``+ - * / // %`` chain takes its start from its left operand's span and its end from its right
operand's span (``build.py``), and ``a <==> b <==> c`` gives both ``Iff`` nodes the whole chain's span.

Keywords are soft, as in lark's contextual lexer: a word is a keyword only where the grammar accepts that
keyword (``requires``, ``if`` and ``in`` are ordinary names in an expression), and where no name is acceptable
a word starting with an acceptable keyword is split (``x andy`` is ``x and y``).

The grammar is the normative reference: whenever this parser meets anything it does not accept it raises
:class:`~evalgap.specs_lang.fastlex.Reject` and :func:`~evalgap.specs_lang.parser.parse` runs the lark
parser, which either accepts the text or reports the error with its EG1xx diagnostics. The differential
tests (``tests/test_fastparse.py``) check that both parsers agree on accepted texts and their ASTs.
"""

from __future__ import annotations

from typing import Any, Final

from evalgap.specs_lang import ast as A
from evalgap.specs_lang import fastnodes as F
from evalgap.specs_lang.fastexpr import FULL_KW, ExprParser, literal
from evalgap.specs_lang.fastlex import NO_FLOAT, PATH_FIRST, Lines, Reject, is_float, relex

__all__ = ["parse_fast", "Reject"]

_TOP: Final = ("assume", "class", "config", "def", "function", "import", "let", "record", "requirement", "stub",
               "target")
#: Words that are keywords at the start of a scenario statement (lark accepts a name there too).
_STMT_KW: Final = FULL_KW | {"expect"}
#: Clause keywords (at the start of a clause, which may also be a rule: an expression).
_CLAUSES: Final = frozenset(("requires", "ensures", "invariant", "example", "informal", "raises", "let",
                             "scenario"))
#: Type narrowings after a type (no name may follow a type there, so ``len1..5`` is ``len 1..5``).
_CONSTRAINT_KW: Final = ("in", "len", "chars") + tuple(A.ALPHABETS)
#: Tokens that may follow a complete type (no narrowing, argument or dotted part can follow them).
_TYPE_END: Final = frozenset((",", ")", "]", "NL", ":"))
#: The clauses that are a keyword and an expression.
_EXPR_CLAUSES: Final = {"requires": F.Requires, "ensures": F.Ensures, "invariant": F.Invariant, "example": F.Example}


def parse_fast(text: str, file: str = "<spec>") -> A.Spec:
    """Parse ``text`` into the :class:`~evalgap.specs_lang.ast.Spec` the lark path would build.

    Args:
        text: the whole ``.req`` source (a newline is appended when missing, as :func:`parse` does).
        file: the name used in spans.

    Returns:
        The typed spec with spans equal to the lark path's.

    Raises:
        Reject: the text is not accepted here (a syntax error, an invalid literal or requirement ID); the
            caller runs the lark parser for the normative answer and its diagnostics.
    """
    src = text if text.endswith("\n") else text + "\n"
    try:
        return _Parser(src, file).spec()
    except IndexError as exc:  # a look-ahead past EOF on a truncated construct: a syntax error
        raise Reject("unexpected end of input") from exc


class _Parser(ExprParser):
    """The declarations, clauses, statements and types of a spec; expressions come from :class:`ExprParser`."""

    # ------------------------------------------------------------------ top level
    def spec(self) -> A.Spec:
        toks = self.toks
        items: list[Any] = []
        name: str | None = None
        title = ""
        first = toks[0]
        start = (self.lines[0], first[2] - len(first[1]) - self.befores[0])  # the spec's span starts there
        if first[0] == "NL":
            self.i = 1
            start = Lines(self.src).pos(first[2] - len(first[1]))  # (lines[0] is the line the NL ends on)
            if toks[1][0] == "EOF" and self.next_chunk():  # a first chunk of comment lines only
                toks = self.toks
        if self.kw(("spec",) + _TOP) == "spec":
            self.i += 1
            name = self.name()[1]
            if toks[self.i][0] == "STRING":
                title = self.string()
            self.expect("NL")
            if toks[self.i][0] == "INDENT":
                self.i += 1
                items.append(self.item())
                while toks[self.i][0] != "DEDENT":
                    items.append(self.item())
                self.i += 1
        while True:
            while self.toks[self.i][0] != "EOF":
                items.append(self.item())
            if not self.next_chunk():
                break
        return self.build_spec(name, title, items, start)

    def build_spec(self, name: str | None, title: str, items: list[Any], start: tuple[int, int]) -> A.Spec:
        target: str | None = None
        imports: list[str] = []
        reqs: list[A.Requirement] = []
        funcs: list[A.FunctionDecl] = []
        classes: list[A.ClassDecl] = []
        buckets: dict[type, list[Any]] = {A.Assume: [], A.Let: [], A.FuncDef: [], A.RecordDecl: [],
                                          A.ConfigDecl: [], A.StubDecl: []}
        for c in items:
            if isinstance(c, tuple):
                if c[0] == "target":
                    target = c[1]
                else:
                    imports.append(c[1])
            elif isinstance(c, A.Requirement):
                reqs.append(c)
            elif isinstance(c, A.FunctionDecl):
                funcs.append(c)
            elif isinstance(c, A.ClassDecl):
                classes.append(c)
            else:
                buckets[type(c)].append(c)
        if name is None:
            stem = self.file.rsplit("/", 1)[-1]
            name = stem[:-4] if stem.endswith(".req") else stem
        last = len(self.toks) - 2  # the last token of the last chunk (the last chunk has one unless all is empty)
        span = (F.Span(self.file, start[0], start[1], self.lines[last], self.toks[last][2] - self.befores[last])
                if last >= 0 else A.NOSPAN)
        return A.Spec(name, title, target, tuple(imports), tuple(reqs), tuple(funcs), tuple(classes),
                      assumptions=tuple(buckets[A.Assume]), lets=tuple(buckets[A.Let]),
                      defs=tuple(buckets[A.FuncDef]), records=tuple(buckets[A.RecordDecl]),
                      configs=tuple(buckets[A.ConfigDecl]), stubs=tuple(buckets[A.StubDecl]), file=self.file,
                      span=span)

    def item(self) -> Any:
        kw = self.kw(_TOP)
        if kw is None:
            raise Reject("expected a declaration")
        s = self.i
        self.i += 1
        if kw == "requirement":
            return self.requirement(s)
        if kw == "function":
            return self.function(s, F.FunctionDecl)
        if kw == "target":
            self.expect(":")
            ref = self.target_ref()
            self.expect("NL")
            return ("target", ref)
        if kw == "import":
            path = self.string()
            self.expect("NL")
            return ("import", path)
        if kw == "assume":
            rid = self.req_id()
            prose = self.string()
            self.expect(":")
            e = self.expr()
            self.expect("NL")
            return F.Assume(rid, prose, e, self.span(s, self.i - 1))
        if kw == "let":
            return self.let(s)
        if kw == "def":
            return self.def_decl(s)
        if kw == "class":
            return self.class_block(s)
        if kw == "record":
            return self.record(s)
        if kw == "config":
            return self.config(s)
        return self.stub(s)

    def target_ref(self) -> str:
        t = self.toks[self.i]
        if t[0] == "STRING":
            self.i += 1
            return str(literal(t))
        if t[0] in ("NL", "EOF"):
            raise Reject("expected a target")
        relex(self.src, self.tokens, self.i, 0, "", PATH_FIRST)
        t = self.toks[self.i]
        if t[0] == "PATHLIKE":
            self.i += 1
            return t[1]
        return ".".join(self.dotted())

    def dotted(self) -> list[str]:
        parts = [self.name()[1]]
        while self.toks[self.i][0] == ".":
            self.i += 1
            parts.append(self.name()[1])
        return parts

    def req_id(self) -> str:
        toks = self.toks
        i = self.i
        first = toks[i]
        if first[0] == "NAME" and toks[i + 1][0] == "STRING":  # fast path: a one-word ID
            self.i = i + 1
            return first[1]
        if (first[0] == "NAME" and toks[i + 1][0] == "-" and toks[i + 2][0] == "NUM" and toks[i + 3][0] == "STRING"
                and first[2] + 1 == toks[i + 1][2] == toks[i + 2][2] - len(toks[i + 2][1])
                and not is_float(toks[i + 2][1])):  # fast path: ``R-12``
            self.i = i + 3
            return first[1] + "-" + toks[i + 2][1]
        first = self.name()
        parts = [first]
        while toks[self.i][0] in ("-", "."):
            parts.append(toks[self.i])
            self.i += 1
            t = toks[self.i]
            if t[0] == "NUM" and is_float(t[1]):
                relex(self.src, self.tokens, self.i, 0, "", NO_FLOAT)
                t = toks[self.i]
            if t[0] == "NUM":
                self.i += 1
            else:
                t = self.name()
            parts.append(t)
        for a, b in zip(parts, parts[1:]):
            if a[2] != b[2] - len(b[1]):
                raise Reject("a requirement ID with spaces (EG104)")
        return "".join(p[1] for p in parts)

    def requirement(self, s: int) -> A.Requirement:
        toks = self.toks
        rid = self.req_id()
        prose = self.string()
        self.expect("NL")
        self.expect("INDENT")
        clauses = [self.clause()]
        while toks[self.i][0] != "DEDENT":
            clauses.append(self.clause())
        self.i += 1
        return F.Requirement(rid, prose, tuple(clauses), self.span(s, self.i - 1))

    def clause(self) -> Any:
        toks = self.toks
        s = self.i
        t = toks[s]
        w = t[1] if t[0] == "NAME" else ""
        if w in _CLAUSES:
            self.i += 1
            if w == "informal":
                cat = [self.name()[1]]
                while toks[self.i][0] == "-":
                    self.i += 1
                    cat.append(self.name()[1])
                reason = self.string()
                self.expect("NL")
                return F.Informal("-".join(cat), reason, self.span(s, self.i - 1))
            if w == "raises":
                exc = ".".join(self.dotted())
                self.expect_kw("when")
                e = self.expr()
                self.expect("NL")
                return F.Raises(exc, e, self.span(s, self.i - 1))
            if w == "let":
                return self.let(s)
            if w == "scenario":
                return self.scenario(s)
            e = self.expr()
            if toks[self.i][0] != "NL":
                raise Reject("expected NL")
            self.i += 1
            return _EXPR_CLAUSES[w](e, self.span(s, self.i - 1))
        e = self.expr()
        if toks[self.i][0] != "NL":
            raise Reject("expected NL")
        self.i += 1
        return F.Rule(e, self.span(s, self.i - 1))

    def let(self, s: int) -> A.Let:
        n = self.name()[1]
        self.expect("=")
        e = self.expr()
        self.expect("NL")
        return F.Let(n, e, self.span(s, self.i - 1))

    def scenario(self, s: int) -> A.Scenario:
        toks = self.toks
        self.expect("(")
        params = self.params(")") if toks[self.i][0] != ")" else ()
        self.expect(")")
        self.expect(":")
        self.expect("NL")
        self.expect("INDENT")
        body = [self.stmt()]
        while toks[self.i][0] != "DEDENT":
            body.append(self.stmt())
        self.i += 1
        return F.Scenario(params, tuple(body), self.span(s, self.i - 1))

    def stmt(self) -> Any:
        toks = self.toks
        s = self.i
        t = toks[s]
        if t[0] == "NAME":
            w = t[1]
            if w == "expect":
                self.i += 1
                if toks[self.i][0] == "NAME" and toks[self.i][1] == "raises":
                    self.i += 1
                    exc = ".".join(self.dotted())
                    self.expect(":")
                    e = self.expr()
                    self.expect("NL")
                    return F.ExpectRaises(exc, e, self.span(s, self.i - 1))
                e = self.expr()
                if toks[self.i][0] != "NL":
                    raise Reject("expected NL")
                self.i += 1
                return F.Expect(e, self.span(s, self.i - 1))
            if w not in _STMT_KW and toks[s + 1][0] in (",", "="):
                names = [w]
                self.i += 1
                while toks[self.i][0] == ",":
                    self.i += 1
                    names.append(self.name()[1])
                self.expect("=")
                e = self.expr()
                if toks[self.i][0] != "NL":
                    raise Reject("expected NL")
                self.i += 1
                return F.Assign(tuple(names), e, self.span(s, self.i - 1))
        e = self.expr()
        if toks[self.i][0] != "NL":
            raise Reject("expected NL")
        self.i += 1
        return F.ExprStmt(e, self.span(s, self.i - 1))

    def signature(self) -> tuple[str, tuple[A.Param, ...], A.TypeRef | None]:
        """``NAME "(" [params] ")" ["->" type_expr]`` of a function or method."""
        n = self.name()[1]
        self.expect("(")
        params = self.params(")") if self.toks[self.i][0] != ")" else ()
        self.expect(")")
        returns = None
        if self.toks[self.i][0] == "->":
            self.i += 1
            returns = self.type_expr()
        return n, params, returns

    def function(self, s: int, cls: Any) -> Any:
        toks = self.toks
        n, params, returns = self.signature()
        self.expect("NL")
        reqs: list[A.Requirement] = []
        if toks[self.i][0] == "INDENT":
            self.i += 1
            while True:
                r = self.i
                self.expect_kw("requirement")
                reqs.append(self.requirement(r))
                if toks[self.i][0] == "DEDENT":
                    break
            self.i += 1
        return cls(n, params, returns, tuple(reqs), self.span(s, self.i - 1))

    def class_block(self, s: int) -> A.ClassDecl:
        toks = self.toks
        n = self.name()[1]
        self.expect("NL")
        self.expect("INDENT")
        methods: list[A.MethodDecl] = []
        reqs: list[A.Requirement] = []
        while True:
            r = self.i
            kw = self.kw(("method", "requirement"))
            if kw is None:
                raise Reject("expected a method or requirement")
            self.i += 1
            if kw == "method":
                methods.append(self.function(r, F.MethodDecl))
            else:
                reqs.append(self.requirement(r))
            if toks[self.i][0] == "DEDENT":
                break
        self.i += 1
        return F.ClassDecl(n, tuple(methods), tuple(reqs), self.span(s, self.i - 1))

    def def_decl(self, s: int) -> A.FuncDef:
        toks = self.toks
        n = self.name()[1]
        self.expect("(")
        params = self.params(")") if toks[self.i][0] != ")" else ()
        self.expect(")")
        self.expect("->")
        returns = self.type_expr()
        self.expect(":")
        if toks[self.i][0] == "NL":
            self.i += 1
            self.expect("INDENT")
            body = self.expr()
            self.expect("NL")
            self.expect("DEDENT")
        else:
            body = self.expr()
            self.expect("NL")
        return F.FuncDef(n, params, returns, body, self.span(s, self.i - 1))

    def record(self, s: int) -> A.RecordDecl:
        toks = self.toks
        n = self.name()[1]
        self.expect(":")
        fields: list[A.Param] = []
        if toks[self.i][0] == "NL":
            self.i += 1
            self.expect("INDENT")
            while True:
                fields.extend(self.params("NL"))
                self.expect("NL")
                if toks[self.i][0] == "DEDENT":
                    break
            self.i += 1
        else:
            fields.extend(self.params("NL"))
            self.expect("NL")
        return F.RecordDecl(n, tuple(fields), self.span(s, self.i - 1))

    def config(self, s: int) -> A.ConfigDecl:
        toks = self.toks
        n = self.name()[1]
        title = self.string() if toks[self.i][0] == "STRING" else ""
        self.expect_kw("schema")
        self.expect(":")
        schema = self.params("NL")
        self.expect("NL")
        reqs: list[A.Requirement] = []
        lets: list[A.Let] = []
        if toks[self.i][0] == "INDENT":
            self.i += 1
            while True:
                r = self.i
                kw = self.kw(("let", "requirement"))
                if kw is None:
                    raise Reject("expected a let or requirement")
                self.i += 1
                if kw == "let":
                    lets.append(self.let(r))
                else:
                    reqs.append(self.requirement(r))
                if toks[self.i][0] == "DEDENT":
                    break
            self.i += 1
        return F.ConfigDecl(n, title, schema, tuple(reqs), tuple(lets), self.span(s, self.i - 1))

    def stub(self, s: int) -> A.StubDecl:
        toks = self.toks
        n = ".".join(self.dotted())
        self.expect("(")
        params = self.params(")") if toks[self.i][0] != ")" else ()
        self.expect(")")
        returns = None
        if toks[self.i][0] == "->":
            self.i += 1
            returns = self.type_expr()
        self.expect(":")
        kw = self.kw(("any", "one"))
        if kw == "any":
            outcomes: tuple[A.StubOutcome, ...] = (F.StubOutcome("any", None, None, self.tspan(self.i)),)
            self.i += 1
        elif kw == "one":
            self.i += 1
            self.expect_kw("of")
            self.expect("(")
            outs = [self.outcome()]
            while toks[self.i][0] == ",":
                self.i += 1
                if toks[self.i][0] == ")":
                    break
                outs.append(self.outcome())
            self.expect(")")
            outcomes = tuple(outs)
        else:
            raise Reject("expected a stub body")
        self.expect("NL")
        return F.StubDecl(n, params, returns, outcomes, self.span(s, self.i - 1))

    def outcome(self) -> A.StubOutcome:
        toks = self.toks
        s = self.i
        t = toks[s]
        if t[0] == "NAME" and t[1] == "any":
            self.i += 1
            return F.StubOutcome("any", None, None, self.tspan(s))
        if t[0] == "NAME" and t[1] == "raises":
            self.i += 1
            exc = ".".join(self.dotted())
            return F.StubOutcome("raises", None, exc, self.span(s, self.i - 1))
        e = self.expr()
        return F.StubOutcome("value", e, None, self.span(s, self.i - 1))

    # ------------------------------------------------------------------ parameters and types
    def params(self, end: str) -> tuple[A.Param, ...]:
        """``param ("," param)* ","?`` followed by a token of kind ``end`` (not consumed)."""
        toks = self.toks
        out = [self.param()]
        while toks[self.i][0] == ",":
            self.i += 1
            if toks[self.i][0] == end:
                break
            out.append(self.param())
        return tuple(out)

    def param(self) -> A.Param:
        toks = self.toks
        s = self.i
        if toks[s][0] == "NAME" and toks[s + 1][0] == ":":  # fast path: ``name:``
            n = toks[s][1]
            self.i = s + 2
        else:
            n = self.name()[1]
            self.expect(":")
        t = self.type_expr()
        return F.Param(n, t, self.span(s, self.i - 1))

    def type_expr(self) -> A.TypeRef:
        toks = self.toks
        s = self.i
        t = toks[s]
        if t[0] == "NAME" and toks[s + 1][0] in _TYPE_END:  # fast path: a plain type name such as ``int``
            self.i = s + 1
            return F.TypeRef(t[1], (), self.tspan(s), None, None, None)
        name = ".".join(self.dotted())
        args: list[A.TypeRef] = []
        if toks[self.i][0] == "[":
            self.i += 1
            args.append(self.type_expr())
            while toks[self.i][0] == ",":
                self.i += 1
                args.append(self.type_expr())
            self.expect("]")
        rng = length = alpha = None
        while toks[self.i][0] == "NAME":
            kw = self.kw(_CONSTRAINT_KW)
            if kw is None:
                break
            c = self.i
            self.i += 1
            if kw == "in":
                rng = self.range_spec()
            elif kw == "len":
                length = self.range_spec()
            elif kw == "chars":
                alpha = F.Alphabet("chars", self.string(), self.span(c, self.i - 1))
            else:
                alpha = F.Alphabet(kw, A.ALPHABETS[kw], self.tspan(c))
        return F.TypeRef(name, tuple(args), self.span(s, self.i - 1), rng, length, alpha)

    def range_spec(self) -> A.Range:
        s = self.i
        lo = self.signed_number()
        self.expect("..")
        hi = self.signed_number()
        return F.Range(lo, hi, self.span(s, self.i - 1))

    def signed_number(self) -> int | float:
        toks = self.toks
        neg = toks[self.i][0] == "-"
        if neg:
            self.i += 1
        t = toks[self.i]
        if t[0] != "NUM":
            raise Reject("expected a number")
        value: int | float = float(t[1]) if is_float(t[1]) else int(t[1].replace("_", ""))
        self.i += 1
        return -value if neg else value
