"""What a sentence of prose is about: the functions, classes and methods of a target module, and the
mapping of each sentence to one of them.

A target module is read with :mod:`ast` (never imported): its public functions, its public classes (the
``__init__`` parameters, public methods, properties and the ``self.X = ...`` attributes with their types,
from annotations or the assigned literal). A sentence is mapped, in this order, by

1. the names it mentions: ``Class.method``, ``name(args)``, a backticked name, "the ``post`` function",
   "the Wallet class" (a method name alone binds when exactly one class has it); failing that, backticked
   parameter names that only one function or method has;
2. the section heading it sits under (a heading naming one target);
3. the sentence before it in the same paragraph or list item, then the paragraph's heading;
4. the only target of the module.

A sentence naming two targets (other than a class and one of its methods) or none, when the module has
several, is *ambiguous*: it becomes an ``informal`` requirement saying so (never a stop for the whole file).
Before the pattern engine sees a sentence, the mention of its own target is rewritten to the generic subject
("`truncate(text, n)` returns" → "The function returns", "the result of `f`" → "the result"), and backticks
are dropped.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from evalgap.specs_lang.typecheck_base import TYPE_NAMES
from evalgap.translators.prose_terms import Signature

__all__ = ["ModuleTargets", "read_targets", "Mention", "mentions", "resolve", "by_parameters", "engine_text", "type_text",
           "defaults_of", "literal_default", "is_generator"]

_TYPE_MAP = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset"}


def type_text(node: ast.expr | None) -> str | None:
    """A Python annotation as spec type text (``List[int]`` → ``list[int]``; unions, callables → ``Any``)."""
    if node is None:
        return None
    text = ast.unparse(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    for k, v in _TYPE_MAP.items():
        text = re.sub(rf"\b{k}\b", v, text)
    text = re.sub(r"\b(?:typing|t|tp)\.", "", text)  # ``import typing as t`` is common in libraries
    text = re.sub(r"^TypeGuard\[.*\]$", "bool", text)
    if "|" in text or "..." in text or "Callable" in text:
        return "Any"
    return text


def _value_type(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and not isinstance(node.value, type(None)):
        return type(node.value).__name__
    if isinstance(node, (ast.List, ast.ListComp)):
        return "list[Any]"
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return "dict[Any, Any]"
    if isinstance(node, (ast.Set, ast.SetComp)):
        return "set[Any]"
    return "Any"


def literal_default(node: ast.expr) -> str | None:
    """A parameter's default as spec-language literal text (``None``, ``True``, ``0``, ``-1``, ``"x"``), or
    None when it is not such a literal."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return f"-{node.operand.value!r}"
    if not isinstance(node, ast.Constant):
        return None
    v = node.value
    if v is None or type(v) in (bool, int, float):
        return repr(v)
    if isinstance(v, str) and not any(c in v for c in "\"\\\n"):
        return f'"{v}"'
    return None


def defaults_of(fn: ast.FunctionDef, skip_self: bool) -> tuple[tuple[str, str | None], ...]:
    """``(name, literal default or None)`` of ``fn``'s positional and keyword-only parameters that have one."""
    args = fn.args.args[1:] if skip_self else fn.args.args
    pos = list(zip([a.arg for a in args][len(args) - len(fn.args.defaults):], fn.args.defaults))
    kw = [(a.arg, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
    return tuple((n, literal_default(d)) for n, d in pos + kw)


def is_generator(fn: ast.FunctionDef) -> bool:
    """True when ``fn``'s own body (not a nested function's) contains ``yield``."""
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _params(fn: ast.FunctionDef, skip_self: bool) -> tuple[tuple[str, str], ...]:
    args = fn.args.args[1:] if skip_self else fn.args.args
    return tuple((a.arg, type_text(a.annotation) or "Any") for a in args)


def _attrs(cls: ast.ClassDef) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for st in cls.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and not st.target.id.startswith("_"):
            found[st.target.id] = type_text(st.annotation) or "Any"
        if isinstance(st, ast.FunctionDef) and any(isinstance(d, ast.Name) and d.id == "property"
                                                   for d in st.decorator_list):
            found.setdefault(st.name, type_text(st.returns) or "Any")
    for node in ast.walk(cls):
        targets: list[tuple[ast.expr, str]] = []
        if isinstance(node, ast.AnnAssign):
            targets = [(node.target, type_text(node.annotation) or "Any")]
        elif isinstance(node, ast.Assign):
            targets = [(t, _value_type(node.value)) for t in node.targets]
        for t, typ in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" \
                    and not t.attr.startswith("_"):
                if found.get(t.attr, "Any") == "Any":
                    found[t.attr] = typ
    return tuple(found.items())


@dataclass(frozen=True)
class ModuleTargets:
    """The targets of a module, in source order: functions, then for each class the class itself and its
    public methods (``__init__`` is the class's own parameters, not a separate target)."""

    targets: tuple[Signature, ...]

    def by_name(self) -> dict[str, Signature]:
        """Lookup by ``name`` (functions, classes) and ``Class.method`` (built once: every sentence asks)."""
        return self._tables[0]

    def method_named(self, name: str) -> Signature | None:
        """The method ``name`` when exactly one class defines it."""
        found = self._tables[1].get(name, [])
        return found[0] if len(found) == 1 else None

    def having_parameter(self, name: str) -> list[Signature]:
        """The functions and methods (not classes) with a parameter ``name``, in source order."""
        return self._tables[2].get(name, [])

    def named_by_words(self, words: frozenset[str]) -> list[Signature]:
        """The functions and classes whose name's stemmed words (:func:`_stem_words`) are ``words``."""
        return self._tables[3].get(words, [])

    @functools.cached_property
    def _tables(self) -> tuple[dict[str, Signature], dict[str, list[Signature]], dict[str, list[Signature]],
                               dict[frozenset[str], list[Signature]]]:
        by_name: dict[str, Signature] = {}
        methods: dict[str, list[Signature]] = {}
        params: dict[str, list[Signature]] = {}
        words: dict[frozenset[str], list[Signature]] = {}
        for s in self.targets:
            by_name[s.qualname] = s
            if s.kind == "method":
                methods.setdefault(s.name, []).append(s)
            if s.kind != "class":
                for n in dict.fromkeys(n for n, _ in s.params):
                    params.setdefault(n, []).append(s)
            if s.kind in ("function", "class"):
                words.setdefault(_stem_words(s.name), []).append(s)
        return by_name, methods, params, words


#: How deep re-exports are followed (a package's ``__init__`` importing from a module that imports from
#: another), and the most files read for them.
REEXPORT_DEPTH = 3
REEXPORT_FILES = 200


def with_reexports(tree: ast.Module, path: Path, max_bytes: int = 10 * 1024 * 1024) -> ast.Module:
    """``tree`` (the module at ``path``) with the functions and classes it re-exports from its own package
    added to its body: ``from .arrays import chunk``, ``from ._impl import *`` and ``from pkg.sub import f``
    where ``pkg`` is this module's own package, as a package's ``__init__`` does (pydash, toolz), followed
    :data:`REEXPORT_DEPTH` modules deep. The modules are parsed, never imported; an ``as`` alias renames the
    copy; a file that cannot be read or parsed adds nothing.

    Args:
        tree: the parsed target.
        path: its file.
        max_bytes: the largest module file read (bytes).
    """
    read: dict[Path, dict[str, ast.FunctionDef | ast.ClassDef]] = {}

    def source_of(folder: Path, node: ast.ImportFrom) -> Path | None:
        parts = node.module.split(".") if node.module else []
        package = folder.name if (folder / "__init__.py").is_file() else None
        if node.level >= 1:
            base = folder
            for _ in range(node.level - 1):
                base = base.parent
        elif package and parts and parts[0] == package:
            base, parts = folder, parts[1:]
        else:
            return None
        stem = base.joinpath(*parts) if parts else base
        for f in ((stem.with_suffix(".py"),) if parts else ()) + (stem / "__init__.py",):
            if f.is_file():
                return f.resolve()
        return None

    def exports(module: ast.Module, where: Path, depth: int) -> dict[str, ast.FunctionDef | ast.ClassDef]:
        out = {n.name: n for n in module.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        if depth > REEXPORT_DEPTH:
            return out
        for node in module.body:
            if not isinstance(node, ast.ImportFrom):
                continue
            file = source_of(where.parent, node)
            if file is None or file == where.resolve():
                continue
            if file not in read:
                read[file] = {}  # a cycle reads as empty
                if len(read) > REEXPORT_FILES:
                    continue
                try:
                    if file.stat().st_size > max_bytes:
                        continue
                    sub = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
                except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
                    continue
                read[file] = exports(sub, file, depth + 1)
            found = read[file]
            if any(a.name == "*" for a in node.names):
                pairs = [(n, n) for n in found if not n.startswith("_")]
            else:
                pairs = [(a.name, a.asname or a.name) for a in node.names]
            for name, shown in pairs:
                if name in found and shown not in out:
                    copy = found[name]
                    if shown != name:
                        parsed = ast.parse(ast.unparse(copy)).body[0]
                        assert isinstance(parsed, (ast.FunctionDef, ast.ClassDef))
                        parsed.name, copy = shown, parsed
                    out[shown] = copy
        return out

    own = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    extra = [_foreign_types_dropped(n, top_level_names(tree))
             for name, n in exports(tree, path, 1).items() if name not in own]
    if not extra:
        return tree
    return ast.Module(body=[*tree.body, *extra], type_ignores=list(tree.type_ignores))


def top_level_names(tree: ast.Module) -> set[str]:
    """The names a module binds at top level (definitions, imports, assignments and other stores)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            out |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return out


class _ForeignTypes(ast.NodeTransformer):
    """Replace each type name outside ``known`` by ``Any`` (``Sequence[T]`` → ``Sequence[Any]``)."""

    def __init__(self, known: set[str] | frozenset[str]) -> None:
        self.known = known

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id in ("typing", "t", "tp") and node.attr in self.known:
            return node
        return ast.Name("Any", ast.Load())

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return node if node.id in self.known else ast.Name("Any", ast.Load())


def _foreign_types_dropped(node: ast.FunctionDef | ast.ClassDef,
                           visible: set[str]) -> ast.FunctionDef | ast.ClassDef:
    """A copy of the re-exported ``node`` whose annotations name no type the target module does not bind and
    the spec language does not know: such a name (a TypeVar of the defining module, ``NumT``) reads as
    ``Any`` (``Sequence[T]`` → ``Sequence[Any]``), since a draft naming it would not pass its own lint."""
    copy = ast.parse(ast.unparse(node)).body[0]
    assert isinstance(copy, (ast.FunctionDef, ast.ClassDef))
    fix = _ForeignTypes(visible | TYPE_NAMES)

    def clean(ann: ast.expr | None) -> ast.expr | None:
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return None
        return None if ann is None else fix.visit(ann)

    for fn in [copy] if isinstance(copy, ast.FunctionDef) else [f for f in copy.body if isinstance(f, ast.FunctionDef)]:
        a = fn.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
                    *([a.kwarg] if a.kwarg else [])]:
            arg.annotation = clean(arg.annotation)
        fn.returns = clean(fn.returns)
    return copy


def read_targets(tree: ast.Module, only: str | None = None) -> ModuleTargets:
    """The public functions, classes and methods of a parsed module (``only``: keep that function, class or
    ``Class.method`` and, for a class, its methods)."""
    out: list[Signature] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            out.append(Signature(node.name, _params(node, False), type_text(node.returns)))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            attrs = _attrs(node)
            init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            out.append(Signature(node.name, _params(init, True) if init else (), None, None, "class", attrs))
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and not f.name.startswith("_") and not any(
                        isinstance(d, ast.Name) and d.id in ("property", "staticmethod", "classmethod")
                        for d in f.decorator_list):
                    out.append(Signature(f.name, _params(f, True), type_text(f.returns), node.name, "method", attrs,
                                 defaults_of(f, True), is_generator(f)))
    if only:
        out = [s for s in out if only in (s.qualname, s.name, s.owner)]
    return ModuleTargets(tuple(out))


@dataclass(frozen=True)
class Mention:
    """A target named in a sentence: the signature and the span of the mention in the text."""

    sig: Signature
    start: int
    end: int


_NAME_FORMS = (r"`(?P<q>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)(?:\([^`]*\))?`",
               r"(?<![\w.`])(?P<c>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\((?:[^()]*)\)",
               r"(?<![\w`])(?P<d>[A-Z]\w*\.[a-z_]\w*)\b",
               r"\bthe (?P<w>[A-Za-z_]\w*) (?:function|method|class)\b")
_NAMES = re.compile("|".join(_NAME_FORMS))


def mentions(text: str, targets: ModuleTargets) -> list[Mention]:
    """The targets named in ``text``, in order (a name that is no target is ignored)."""
    table = targets.by_name()
    out: list[Mention] = []
    for m in _NAMES.finditer(text):
        name = m.group("q") or m.group("c") or m.group("d") or m.group("w")
        sig = table.get(name) or (targets.method_named(name) if "." not in name else None)
        if sig is None and "." in name:
            owner, meth = name.split(".", 1)
            sig = table.get(f"{owner}.{meth}")
        if sig is not None:
            out.append(Mention(sig, m.start(), m.end()))
    return out


_HEADING_STOP = frozenset({"the", "a", "an", "of", "for", "function", "functions", "class", "method", "methods",
                           "module", "api", "requirements", "requirement", "reference"})


def _stem_words(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).replace("_", " ").lower())
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                     for w in words if w not in _HEADING_STOP)


def by_heading_words(heading: str, targets: ModuleTargets) -> Signature | None:
    """The one function or class whose name is the heading's words ("Password strength" ->
    ``password_strength``, "Letter grades" -> ``letter_grade``, "Login throttle" -> ``LoginThrottle``;
    plurals and words such as "the", "function", "class" ignored), or None when none or several are."""
    words = _stem_words(heading)
    if not words:
        return None
    found = targets.named_by_words(words)
    return found[0] if len(found) == 1 else None


def by_parameters(text: str, targets: ModuleTargets) -> Signature | None:
    """The one function or method having every backticked name of ``text`` that is one of its parameters
    (step 1 of the mapping, for a sentence that names parameters but no target)."""
    names = set(re.findall(r"`([A-Za-z_]\w*)`", text))
    if not names:
        return None
    owners = {id(t): t for n in sorted(names) for t in targets.having_parameter(n)}
    return next(iter(owners.values())) if len(owners) == 1 else None


def resolve(found: Sequence[Mention], text: str = "") -> tuple[Signature | None, bool]:
    """``(target, ambiguous)`` from a sentence's mentions: the method when a class and one of its methods
    are named, the one target when one is named; when several unrelated ones are, the one the sentence is
    about if its wording says so (``text`` given: "When X returns, ...", "Every call to X ...",
    "When ..., X shall ..." with X the only target in the main clause), else ambiguous."""
    sigs = list(dict.fromkeys(m.sig for m in found))
    if not sigs:
        return None, False
    if len(sigs) == 1:
        return sigs[0], False
    subject = _subject(found, text) if text else None
    if subject is not None:
        return subject, False
    methods = [s for s in sigs if s.kind == "method"]
    classes = {s.name for s in sigs if s.kind == "class"}
    if len(methods) == 1 and all(s.kind == "class" and s.name == methods[0].owner for s in sigs if s is not methods[0]):
        return methods[0], False
    if not methods and len(classes) == 0:
        return None, True
    return None, True


def _subject(found: Sequence[Mention], text: str) -> Signature | None:
    """The target a sentence naming several is about, by its wording (see :func:`resolve`), or None."""
    def after(pattern: str) -> list[Mention]:
        return [m for m in found if re.search(pattern + r"\s*$", text[:m.start], re.I)]

    for pattern, then in ((r"^(?:when|after|once|whenever)\s+(?:the\s+)?", r"\s*(?:returns?|is called|completes?|finishes)\b"),
                          (r"\b(?:every|each|a|any)\s+call\s+(?:to|of)\s+", r"(?!\s*(?:and|or|,)\s)")):
        hits = after(pattern)
        if len(hits) == 1 and re.match(then, text[hits[0].end:], re.I):
            return hits[0].sig
    m = re.match(r"^(?:when|if|while|whenever)\b[^,]*,\s*", text, re.I)
    if m:
        main = [x for x in found if x.start >= m.end()]
        sigs = list(dict.fromkeys(x.sig for x in main))
        if len(sigs) == 1 and re.match(r"\s*(?:shall|must|will|should|returns?)\b", text[main[0].end:], re.I):
            return sigs[0]
    return None


def engine_text(text: str, sig: Signature, found: Sequence[Mention]) -> str:
    """``text`` as the pattern engine reads it: the mentions of ``sig`` become the generic subject, other
    backticks are dropped, Markdown emphasis removed."""
    own = [m for m in found if m.sig == sig or (sig.owner and m.sig.kind == "class" and m.sig.name == sig.owner)]
    out = text
    for m in sorted(own, key=lambda m: -m.start):
        out = out[:m.start] + "\x00" + out[m.end:]
    out = re.sub(r"\bthe result of\s+\x00", "the result", out, flags=re.I)
    subject = "The method" if sig.kind == "method" else ("The object" if sig.kind == "class" else "The function")
    out = re.sub(r"^(?:the|a|an)\s+\x00(?:\s+(?:function|method|class))?", subject, out, flags=re.I)
    out = re.sub(r"^\x00(?:\s+(?:function|method|class))?", subject, out)
    out = re.sub(r"\b(?:the|a|an)\s+\x00(?:\s+(?:function|method|class))?", subject.lower(), out, flags=re.I)
    out = out.replace("\x00", subject.lower())
    out = re.sub(r"`([^`]*)`", r"\1", out)
    out = re.sub(r"\*\*([^*]+)\*\*|\*([^*]+)\*", lambda k: k.group(1) or k.group(2), out)
    return " ".join(out.split())
