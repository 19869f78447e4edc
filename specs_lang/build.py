"""Build the typed AST (:mod:`evalgap.specs_lang.ast`) while lark's LALR parser reduces, with spans.

:class:`Builder` is the transformer passed to ``Lark(..., transformer=...)`` by
:func:`evalgap.specs_lang.parser.grammar`: lark calls one method per reduction, so no parse tree is built and
no second walk is made. The parser runs with ``keep_all_tokens=True`` and without placeholders, so each
method sees every symbol of its rule (keywords, punctuation, newline and indentation tokens included) and
computes its node's span from the first and last of them, as lark's ``propagate_positions`` did: a node
spans its rule's text from the first character of its first token to the end of its last token (the
newline token that ends a clause included).

A value whose span is not its rule's text travels in a :class:`Carry`: a parenthesized expression (the
node keeps its own span, the rule's text includes the brackets), a chain of binary operators (each
:class:`BinOp` spans its operands), and the values that are not nodes (a type's ``in 0..9`` narrowing, a
dotted name, a header item). The methods of the rules that use such a value unwrap it.
"""

from __future__ import annotations

from typing import Any

from lark import Token

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.build_expr import _C, Carry, ExprBuilder, _Span, _v, _vals
from evalgap.specs_lang.errors import Diagnostic, SpecSyntaxError
from evalgap.specs_lang.diagnostics import MALFORMED_ID

__all__ = ["Builder", "Carry"]



class Builder(ExprBuilder):
    """The embedded LALR transformer; :meth:`reset` names the file and text before each parse.

    Every other public method is the callback of the grammar rule (or alias) of its name: it takes the rule's
    symbols in order and returns the rule's node (or value, or :class:`Carry`). They raise
    :class:`~evalgap.specs_lang.errors.SpecSyntaxError` for a malformed literal (EG105) or a requirement ID
    with spaces (EG104). Not reentrant: :func:`evalgap.specs_lang.parser.parse` holds a lock around ``reset``
    and the parse. The expression callbacks and shared helpers are in :class:`ExprBuilder`.
    """

    # ---------------------------------------------------------- top level
    def start(self, c: _C) -> A.Spec:
        name, title, target, imports = None, "", None, []
        reqs: list[A.Requirement] = []
        funcs: list[A.FunctionDecl] = []
        classes: list[A.ClassDecl] = []
        buckets: dict[type, list[Any]] = {A.Assume: [], A.Let: [], A.FuncDef: [], A.RecordDecl: [],
                                          A.ConfigDecl: [], A.StubDecl: [], A.DatabaseDecl: []}
        flat: list[Any] = []
        for x in _vals(c):
            if isinstance(x, tuple) and x[0] == "spec":
                flat.append(x[:3])
                flat.extend(x[3])
            else:
                flat.append(x)
        for x in flat:
            kind = x[0] if isinstance(x, tuple) else None
            if kind == "spec":
                name, title = x[1], x[2]
            elif kind == "target":
                target = x[1]
            elif kind == "import":
                imports.append(x[1])
            elif isinstance(x, A.Requirement):
                reqs.append(x)
            elif isinstance(x, A.FunctionDecl):
                funcs.append(x)
            elif isinstance(x, A.ClassDecl):
                classes.append(x)
            elif type(x) in buckets:
                buckets[type(x)].append(x)
        if name is None:
            stem = self.file.rsplit("/", 1)[-1]
            name = stem[:-4] if stem.endswith(".req") else stem
        return A.Spec(name, title, target, tuple(imports), tuple(reqs), tuple(funcs), tuple(classes),
                      assumptions=tuple(buckets[A.Assume]), lets=tuple(buckets[A.Let]),
                      defs=tuple(buckets[A.FuncDef]), records=tuple(buckets[A.RecordDecl]),
                      configs=tuple(buckets[A.ConfigDecl]), stubs=tuple(buckets[A.StubDecl]),
                      databases=tuple(buckets[A.DatabaseDecl]),
                      file=self.file, span=self._sp(c[0], c[-1]) if c else A.NOSPAN)

    def spec_decl(self, c: _C) -> Carry:
        title = self._lit(c[2]) if c[2].type == "STRING" else ""
        return Carry(("spec", str(c[1]), title, tuple(_vals(c[2:]))), self._sp(c[0], c[-1]))

    def target_decl(self, c: _C) -> Carry:
        return Carry(("target", c[2]), self._sp(c[0], c[-1]))

    def target_ref(self, c: _C) -> str:
        x = c[0]
        if type(x) is Token and x.type == "STRING":
            return str(self._lit(x))
        return str(x)

    def dotted_or_path(self, c: _C) -> str:
        return "".join(c)

    def import_decl(self, c: _C) -> Carry:
        return Carry(("import", self._lit(c[1])), self._sp(c[0], c[-1]))

    def assume_decl(self, c: _C) -> A.Assume:
        return A.Assume(c[1], self._lit(c[2]), _v(c[4]), self._sp(c[0], c[-1]))

    def let_decl(self, c: _C) -> A.Let:
        return A.Let(str(c[1]), _v(c[3]), self._sp(c[0], c[-1]))

    let_clause = let_decl

    def def_decl(self, c: _C) -> A.FuncDef:
        vals = _vals(c[2:])
        params = vals.pop(0) if isinstance(vals[0], tuple) else ()
        return A.FuncDef(str(c[1]), params, vals[0], vals[1], self._sp(c[0], c[-1]))

    def record_decl(self, c: _C) -> A.RecordDecl:
        fields = tuple(p for group in _vals(c[2:]) for p in group)
        return A.RecordDecl(str(c[1]), fields, self._sp(c[0], c[-1]))

    def config_block(self, c: _C) -> A.ConfigDecl:
        title = self._lit(c[2]) if c[2].type == "STRING" else ""
        vals = _vals(c[2:])
        reqs = tuple(x for x in vals[1:] if isinstance(x, A.Requirement))
        lets = tuple(x for x in vals[1:] if isinstance(x, A.Let))
        return A.ConfigDecl(str(c[1]), title, vals[0], reqs, lets, self._sp(c[0], c[-1]))

    def database_block(self, c: _C) -> A.DatabaseDecl:
        strings = [t for t in c[2:6] if isinstance(t, Token) and t.type == "STRING"]
        title = self._lit(strings[0]) if len(strings) > 1 else ""
        members = _vals(c[2:])
        reqs = tuple(x for x in members if isinstance(x, A.Requirement))
        lets = tuple(x for x in members if isinstance(x, A.Let))
        any_t = A.TypeRef("Any")
        schema = (A.Param("before", any_t), A.Param("after", any_t))
        return A.DatabaseDecl(str(c[1]), title, schema, reqs, lets, self._sp(c[0], c[-1]),
                              schema_file=self._lit(strings[-1]))

    def stub_decl(self, c: _C) -> A.StubDecl:
        vals = _vals(c[2:])
        body = vals.pop()
        params = vals[0] if vals and isinstance(vals[0], tuple) else ()
        returns = vals[-1] if vals and isinstance(vals[-1], A.TypeRef) else None
        return A.StubDecl(_v(c[1]), params, returns, body, self._sp(c[0], c[-1]))

    def stub_any(self, c: _C) -> tuple[A.StubOutcome, ...]:
        return (A.StubOutcome("any", span=self._sp(c[0], c[-1])),)

    def stub_one_of(self, c: _C) -> tuple[A.StubOutcome, ...]:
        return tuple(_vals(c))

    def outcome_any(self, c: _C) -> A.StubOutcome:
        return A.StubOutcome("any", span=self._sp(c[0], c[-1]))

    def outcome_raises(self, c: _C) -> A.StubOutcome:
        return A.StubOutcome("raises", exception=_v(c[1]), span=self._sp(c[0], c[-1]))

    def outcome_value(self, c: _C) -> A.StubOutcome:
        return A.StubOutcome("value", value=_v(c[0]), span=self._sp(c[0], c[-1]))

    def dotted_name(self, c: _C) -> Carry:
        return Carry("".join(c), self._sp(c[0], c[-1]))

    def function_block(self, c: _C) -> A.FunctionDecl:
        params, returns, reqs = self._decl_parts(c)
        return A.FunctionDecl(str(c[1]), params, returns, reqs, self._sp(c[0], c[-1]))

    def method_block(self, c: _C) -> A.MethodDecl:
        params, returns, reqs = self._decl_parts(c)
        return A.MethodDecl(str(c[1]), params, returns, reqs, self._sp(c[0], c[-1]))

    @staticmethod
    def _decl_parts(c: _C) -> tuple[tuple[A.Param, ...], A.TypeRef | None, tuple[A.Requirement, ...]]:
        params: tuple[A.Param, ...] = ()
        returns = None
        reqs = []
        for x in _vals(c[2:]):
            if isinstance(x, tuple):
                params = x
            elif isinstance(x, A.TypeRef):
                returns = x
            elif isinstance(x, A.Requirement):
                reqs.append(x)
        return params, returns, tuple(reqs)

    def class_block(self, c: _C) -> A.ClassDecl:
        vals = _vals(c[2:])
        methods = tuple(x for x in vals if isinstance(x, A.MethodDecl))
        reqs = tuple(x for x in vals if isinstance(x, A.Requirement))
        return A.ClassDecl(str(c[1]), methods, reqs, self._sp(c[0], c[-1]))

    def requirement(self, c: _C) -> A.Requirement:
        return A.Requirement(c[1], self._lit(c[2]), tuple(_vals(c[5:-1])), self._sp(c[0], c[-1]))

    def req_id(self, c: _C) -> str:
        for a, b in zip(c, c[1:]):
            if a.end_line != b.line or a.end_column != b.column:
                span = _Span(self.file, a.line or 1, a.column or 1, b.end_line or 1, b.end_column or 1)
                raise SpecSyntaxError(
                    [Diagnostic(MALFORMED_ID, span, "a requirement ID cannot contain spaces",
                                f"write it as {''.join(c)!r}")], {self.file: self.text})
        return "".join(c)

    def req_sep(self, c: _C) -> Token:
        return c[0]  # type: ignore[no-any-return]

    # ---------------------------------------------------------- clauses
    def requires_clause(self, c: _C) -> A.Requires:
        return A.Requires(_v(c[1]), self._sp(c[0], c[-1]))

    def ensures_clause(self, c: _C) -> A.Ensures:
        return A.Ensures(_v(c[1]), self._sp(c[0], c[-1]))

    def invariant_clause(self, c: _C) -> A.Invariant:
        bound = next((x.value for x in c[2:] if isinstance(x, Carry) and isinstance(x.value, tuple) and x.value[0] == "bound"), None)
        return A.Invariant(_v(c[1]), self._sp(c[0], c[-1]), bound[1] if bound else None)

    # ---------------------------------------------------------- model-based requirements
    def call_bound(self, c: _C) -> Carry:
        return Carry(("bound", int(str(c[2]).replace("_", ""))), self._sp(c[0], c[-1]))

    def model_clause(self, c: _C) -> A.Model:
        bound = next((x.value[1] for x in c[2:] if isinstance(x, Carry) and isinstance(x.value, tuple) and x.value[0] == "bound"), None)
        ops = tuple(x for x in c[2:] if isinstance(x, A.ModelOp))
        return A.Model(_v(c[1]), ops, bound, self._sp(c[0], c[-1]))

    def model_op(self, c: _C) -> A.ModelOp:
        close = next(i for i, x in enumerate(c) if type(x) is Token and x.type == "RPAR")
        params = tuple(str(x) for x in c[2:close] if type(x) is Token and x.type == "NAME")
        action = next((x for x in c[close + 1:] if isinstance(x, Carry) and isinstance(x.value, tuple)
                       and x.value and x.value[0] == "action"), None)
        span = self._sp(c[0], c[-1])
        if action is None:
            return A.ModelOp(str(c[0]), params, span=span)
        _, kind, value, target = action.value
        return A.ModelOp(str(c[0]), params, kind, value, target, span)

    def model_expr(self, c: _C) -> Carry:
        return Carry(("action", "expr", _v(c[0]), None), self._sp(c[0], c[-1]))

    def model_assign(self, c: _C) -> Carry:
        return Carry(("action", "assign", _v(c[2]), _v(c[0])), self._sp(c[0], c[-1]))

    def model_del(self, c: _C) -> Carry:
        return Carry(("action", "delete", None, _v(c[1])), self._sp(c[0], c[-1]))

    def example_clause(self, c: _C) -> A.Example:
        return A.Example(_v(c[1]), self._sp(c[0], c[-1]))

    def category(self, c: _C) -> str:
        return "".join(c)

    def informal_clause(self, c: _C) -> A.Informal:
        return A.Informal(c[1], self._lit(c[2]), self._sp(c[0], c[-1]))

    def raises_clause(self, c: _C) -> A.Raises:
        return A.Raises(_v(c[1]), _v(c[3]), self._sp(c[0], c[-1]))

    def may_raise_clause(self, c: _C) -> A.MayRaise:
        return A.MayRaise(tuple(x.value for x in c[2:] if isinstance(x, Carry)), self._sp(c[0], c[-1]))

    def rule_clause(self, c: _C) -> A.Rule:
        return A.Rule(_v(c[0]), self._sp(c[0], c[-1]))

    def same_clause(self, c: _C) -> A.SameRows:
        calls = [x for x in c[2:] if isinstance(x, A.SameCall)]
        return A.SameRows(calls[0], tuple(calls[1:]), self._sp(c[0], c[-1]))

    def same_step(self, c: _C) -> A.SameCall:
        return next(x for x in c if isinstance(x, A.SameCall))

    def same_call(self, c: _C) -> A.SameCall:
        args = tuple(_v(x) for x in c[2:-3] if type(x) is not Token)
        return A.SameCall(str(c[0]), args, self._lit(c[-1]), self._sp(c[0], c[-1]))

    def explore_clause(self, c: _C) -> A.Explore:
        return A.Explore(str(c[1]), tuple(b for b in c[2:] if isinstance(b, tuple)), self._sp(c[0], c[-1]))

    def explore_bound(self, c: _C) -> tuple[str, int]:
        return str(c[0]), int(str(c[1]).replace("_", ""))

    def scenario_clause(self, c: _C) -> A.Scenario:
        vals = _vals(c[2:])
        params = vals.pop(0) if isinstance(vals[0], tuple) else ()
        return A.Scenario(params, tuple(vals), self._sp(c[0], c[-1]))

    def params(self, c: _C) -> tuple[A.Param, ...]:
        return tuple(_vals(c))

    def param(self, c: _C) -> A.Param:
        return A.Param(str(c[0]), c[2], self._sp(c[0], c[-1]))

    def type_expr(self, c: _C) -> A.TypeRef:
        names = [str(x) for x in c if type(x) is Token and x.type == "NAME"]
        args = []
        rng = length = alpha = None
        for x in c:
            if type(x) is Token:
                continue
            if type(x) is A.TypeRef:
                args.append(x)
            elif type(x) is A.Alphabet:
                alpha = x
            elif x.value[0] == "in":
                rng = x.value[1]
            else:
                length = x.value[1]
        return A.TypeRef(".".join(names), tuple(args), self._sp(c[0], c[-1]), rng, length, alpha)

    def type_list(self, c: _C) -> A.TypeRef:
        return A.TypeRef("[]", tuple(x for x in c if type(x) is A.TypeRef), self._sp(c[0], c[-1]))

    def in_range(self, c: _C) -> Carry:
        return Carry(("in", c[1]), self._sp(c[0], c[-1]))

    def len_range(self, c: _C) -> Carry:
        return Carry(("len", c[1]), self._sp(c[0], c[-1]))

    def range_spec(self, c: _C) -> A.Range:
        return A.Range(c[0].value, c[2].value, self._sp(c[0], c[-1]))

    def signed_number(self, c: _C) -> Carry:
        tok = c[-1]
        text = str(tok).replace("_", "")
        value: int | float = self._int(tok) if tok.type == "INT" else float(text)
        return Carry(-value if len(c) == 2 else value, self._sp(c[0], c[-1]))

    def alphabet_kw(self, c: _C) -> Token:
        return c[0]  # type: ignore[no-any-return]

    def named_alphabet(self, c: _C) -> A.Alphabet:
        name = str(c[0])
        return A.Alphabet(name, A.ALPHABETS[name], self._sp(c[0], c[-1]))

    def chars_alphabet(self, c: _C) -> A.Alphabet:
        return A.Alphabet("chars", self._lit(c[1]), self._sp(c[0], c[-1]))

    # ---------------------------------------------------------- statements
    def assign_stmt(self, c: _C) -> A.Assign:
        return A.Assign(c[0].value, _v(c[2]), self._sp(c[0], c[-1]))

    def assign_target(self, c: _C) -> Carry:
        return Carry(tuple(str(t) for t in c[::2]), self._sp(c[0], c[-1]))

    def expect_raises_stmt(self, c: _C) -> A.ExpectRaises:
        return A.ExpectRaises(_v(c[2]), _v(c[4]), self._sp(c[0], c[-1]))

    def expect_stmt(self, c: _C) -> A.Expect:
        return A.Expect(_v(c[1]), self._sp(c[0], c[-1]))

    def for_stmt(self, c: _C) -> A.For:
        at = next(i for i, x in enumerate(c) if type(x) is Token and x.type == "IN")
        names = tuple(str(x) for x in c[1:at] if type(x) is Token and x.type == "NAME")
        body = tuple(x for x in c[at + 2:] if isinstance(x, (A.Assign, A.ExprStmt, A.Expect, A.ExpectRaises, A.For,
                                                              A.If)))
        return A.For(names, _v(c[at + 1]), body, self._sp(c[0], c[-1]))

    def if_stmt(self, c: _C) -> A.If:
        stmts = (A.Assign, A.ExprStmt, A.Expect, A.ExpectRaises, A.For, A.If)
        body = tuple(x for x in c[2:] if isinstance(x, stmts))
        orelse = next((x.value for x in c if isinstance(x, Carry) and isinstance(x.value, tuple)
                       and x.value and x.value[0] == "else"), ("else", ()))[1]
        return A.If(_v(c[1]), body, orelse, self._sp(c[0], c[-1]))

    def else_block(self, c: _C) -> Carry:
        stmts = (A.Assign, A.ExprStmt, A.Expect, A.ExpectRaises, A.For, A.If)
        return Carry(("else", tuple(x for x in c if isinstance(x, stmts))), self._sp(c[0], c[-1]))

    def expr_stmt(self, c: _C) -> A.ExprStmt:
        return A.ExprStmt(_v(c[0]), self._sp(c[0], c[-1]))
