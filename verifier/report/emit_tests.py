"""Counterexamples become tests: reproducer snippets and ``evalgap check --emit-tests DIR``.

:func:`reproducer_snippet` turns a replayed counterexample into standalone Python: it imports the names
the requirement reads from the target, binds the counterexample's arguments, runs the call or scenario
and ``assert``s the requirement's property (each ``ensures`` clause for a function; each ``expect`` of a
scenario, in order). It raises ``AssertionError`` (or the target's own exception) while the target
violates the requirement, and runs silently once it meets it for that input.

:func:`emit_tests` writes one small pytest file per refutation, with the requirement's ID, prose, formal
text and counterexample in the docstring; it imports the target relative to its own file (``__file__``), so
the reproducers can be committed and the project folder moved. Files are written atomically (temporary name, then rename).
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from evalgap.specs_lang.stdlib import STDLIB_MODULES
from evalgap.verifier.fileio import write_text
from evalgap.translators.to_icontract import Harness, Obligation
from evalgap.verifier.findings import EngineVerdict, RequirementResult, Verdict
from evalgap.verifier.project.targets import Target, relative_path_lines

__all__ = ["reproducer_snippet", "emit_tests", "test_file_text"]

_HEAD_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) = getattr\(_eg_target, ")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Asserts(ast.NodeTransformer):
    """``if not X: return N`` -> ``assert X, text``; ``return N`` (N > 0) -> ``raise AssertionError``."""

    def __init__(self, checks: tuple[str, ...], req_id: str) -> None:
        self.checks, self.req_id = checks, req_id

    def _text(self, n: int) -> str:
        check = self.checks[n - 1] if 1 <= n <= len(self.checks) else f"check {n}"
        return f"{self.req_id}: {check}"

    def visit_If(self, node: ast.If) -> ast.AST:
        body = node.body
        if (isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) and not node.orelse
                and len(body) == 1 and isinstance(body[0], ast.Return)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, int)):
            return ast.Assert(node.test.operand, ast.Constant(self._text(body[0].value.value)))
        self.generic_visit(node)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST | None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
            if node.value.value == 0:  # the path passes: nothing to assert (a `pass` keeps a block non-empty)
                return ast.Pass()
            return ast.Raise(ast.Call(ast.Name("AssertionError"), [ast.Constant(self._text(node.value.value))],
                                      []))
        return node


def _scenario_body(harness: Harness, ob: Obligation) -> list[str] | None:
    try:
        tree = ast.parse(harness.source)
    except SyntaxError:
        return None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == ob.function), None)
    if fn is None:
        return None
    body = [st for st in fn.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    mod = ast.Module(body=body, type_ignores=[])
    new = _Asserts(ob.checks, ob.req_id).visit(mod)
    ast.fix_missing_locations(new)
    return ast.unparse(new).splitlines()


def reproducer_snippet(ob: Obligation, harness: Harness, target: Target, v: EngineVerdict) -> str | None:
    """Standalone Python reproducing ``v``'s counterexample against ``target`` (see module doc).

    Args:
        ob: the requirement's obligation (``function``, ``scenario`` or ``example``).
        harness: the harness it was checked with (its scenario code is reused).
        target: the code under check (its folders go on ``sys.path``).
        v: a ``refuted`` verdict (its ``args`` are the counterexample's argument sources).

    Returns:
        The snippet, or None when the obligation kind has no reproducer.
    """
    args = [a for _, a in v.args]
    if ob.kind == "function" and ob.target_function:
        body = [f"result = {ob.target_function}({', '.join(n for n, _ in ob.params)})"]
        body += [f"assert {c}, {f'{ob.req_id}: {c}'!r}" for c in ob.checks]
    elif ob.kind == "scenario":
        lines = _scenario_body(harness, ob)
        if lines is None:
            return None
        body = lines
    elif ob.kind == "example":
        body = [f"assert {c}, {f'{ob.req_id}: example {c}'!r}" for c in ob.checks]
    else:
        return None
    if ob.params and len(args) == len(ob.params):
        names = ", ".join(n for n, _ in ob.params)
        # evaluated as one list so CrossHair's aliases (`(v1:=b'')`, `v1`) resolve to the same object
        body.insert(0, f"{names}, = [{', '.join(args)}]")
    heads = [m.group(1) for ln in harness.source.splitlines() if (m := _HEAD_NAME.match(ln))]
    used = set(_WORD.findall("\n".join(body)))
    wanted = sorted(n for n in heads if n in used)
    lines = ["import sys", f"sys.path[:0] = {list(target.paths)!r}"]
    lines += [f"import {m}" for m in ("copy", "math", *sorted(STDLIB_MODULES)) if m in used]  # old() deep-copies
    if wanted:
        lines.append(f"from {target.module} import {', '.join(wanted)}")
    return "\n".join(lines + _drawn_functions(harness, used) + body)


def _drawn_functions(harness: Harness, used: set[str]) -> list[str]:
    """The harness's ``_EgFn`` classes (drawn functions of ``Callable`` parameters) the snippet uses."""
    if not any(w.startswith("_EgFn") for w in used):
        return []
    from evalgap.translators.callables import CALLABLE_RUNTIME

    out = ["from typing import Any", *CALLABLE_RUNTIME, ""]
    try:
        tree = ast.parse(harness.source)
    except SyntaxError:
        return out
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in used and node.name.startswith("_EgFn_"):
            out += ["", ast.unparse(node), ""]
            used.discard(node.name)
    return out


def _test_name(req_id: str, engine: str) -> str:
    return "test_" + re.sub(r"\W", "_", req_id) + "_" + re.sub(r"\W", "_", engine)


def _relative_imports(reproducer: str, folder: Path) -> str:
    """The reproducer with its absolute ``sys.path[:0] = [...]`` line replaced by paths relative to the
    emitted file (computed from ``__file__`` at run time), so the file can be committed and the folder moved."""
    out = []
    for line in reproducer.splitlines():
        if line.startswith("sys.path[:0] = "):
            paths = ast.literal_eval(line[len("sys.path[:0] = "):])
            out += ["import os", *relative_path_lines(list(paths), folder)]
        else:
            out.append(line)
    return "\n".join(out)


def _relative_name(text: str, folder: Path) -> str:
    """``text`` (a path, or ``path:line:col``) with an absolute path made relative to ``folder``."""
    path, sep, rest = text.partition(":") if text.startswith("/") else (text, "", "")
    if not path.startswith("/"):
        return text
    import os

    return os.path.relpath(path, folder.resolve()) + sep + rest


def test_file_text(r: RequirementResult, v: EngineVerdict, spec_name: str, target: str,
                   folder: Path | None = None) -> str:
    """The text of one emitted pytest file for refutation ``v`` of requirement ``r``; with ``folder`` (where
    the file is written) the target is imported relative to the file, else by the reproducer's absolute path."""
    assert v.reproducer is not None
    location = r.location
    if folder is not None:  # a committed file names the spec and the target relative to itself
        target, location = _relative_name(target, folder), _relative_name(r.location, folder)
    formal = textwrap.indent(r.formal_text or "(see the spec)", "    ")
    doc = "\n".join([
        f"Reproducer for requirement {r.id} of spec {spec_name!r}, refuted by {v.engine} on {target}.",
        "",
        f"Requirement {r.id} ({location}): {r.prose}",
        "Formal text:",
        formal,
        f"Counterexample: {v.counterexample}",
        f"Finding: {v.reason}",
        "",
        f"This test fails while the target violates {r.id} on this input and passes once it meets it.",
        "Generated by `evalgap check --emit-tests`.",
    ]).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    body = textwrap.indent(v.reproducer if folder is None else _relative_imports(v.reproducer, folder), "    ")
    return f'"""{doc}\n"""\n\n\ndef {_test_name(r.id, v.engine)}() -> None:\n{body}\n'


def emit_tests(results: list[RequirementResult] | tuple[RequirementResult, ...], folder: Path, spec_name: str,
               target: str) -> list[Path]:
    """Write one pytest file per refutation that has a reproducer.

    Args:
        results: the check's requirement results.
        folder: where to write (created if missing).
        spec_name: the spec's name (file names and docstrings).
        target: how the target is named in docstrings.

    Returns:
        The written files, in requirement order (``test_<spec>_<ID>_<engine>.py``).

    Raises:
        OSError: the folder cannot be created or written.
    """
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{folder} is not a folder (--emit-tests takes a folder)")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for r in results:
        for v in r.verdicts:
            if v.verdict is not Verdict.REFUTED or not v.reproducer:
                continue
            spec_part = re.sub(r"\W", "_", spec_name)
            path = folder / f"test_{spec_part}_{_test_name(r.id, v.engine)[len('test_'):]}.py"
            write_text(path, test_file_text(r, v, spec_name, target, folder))
            written.append(path)
    return written
