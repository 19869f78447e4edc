"""Materialize the base and head of a change side by side, and find what it changed, by parsing both.

A change is given as two revisions of a git repository (``base``, ``head``) or as a base revision plus a
patch file. Both versions are written into fresh folders (``git archive``; the patch with ``git apply``),
so nothing in the user's working tree is touched. The changed *units* (module-level functions, classes,
methods, nested functions, module-level statements) are found by comparing the ASTs of both versions of each
changed ``.py`` file, not by line numbers: a unit whose AST (without positions and docstrings) is equal in
both versions is unchanged even if it moved.
"""

from __future__ import annotations

import ast
import difflib
import shutil
import subprocess
import tarfile
import io
from dataclasses import dataclass
from pathlib import Path

from evalgap.verifier.errors import VerifierError

__all__ = ["GateError", "Snapshot", "ChangedUnit", "FileChange", "materialize", "changed_units", "added_lines",
           "file_changes", "write_staged_patch",
           "unit_table", "module_name_for"]


class GateError(VerifierError, ValueError):
    """The change cannot be materialized (not a git repository, unknown revision, a patch that does not
    apply); the CLI prints the message and exits 2."""


@dataclass(frozen=True)
class Snapshot:
    """Base and head of a change, materialized.

    Attributes:
        base_dir, head_dir: folders holding the two versions' files.
        base_rev, head_rev: the revisions (``head_rev`` is ``patch:FILE`` for a patch).
        changed_files: repository-relative paths that differ (any file type), sorted.
    """

    base_dir: Path
    head_dir: Path
    base_rev: str
    head_rev: str
    changed_files: tuple[str, ...]


@dataclass(frozen=True)
class ChangedUnit:
    """A function, method, class or module body that differs between base and head.

    Attributes:
        file: repository-relative path of the ``.py`` file.
        qualname: ``process``, ``Balancer.dispatch``, ``Balancer`` (the class's own statements), or
            ``<module>`` (module-level statements outside any definition).
        kind: ``function``, ``method``, ``class`` or ``module``.
        change: ``added``, ``removed`` or ``modified``.
        base_line, head_line: 1-based first line in each version (0 when absent).
        base_signature, head_signature: the ``def`` line's parameters and annotations as text ('' when absent).
        same_parameters: both versions have the same parameters and defaults (annotations aside).
        annotations_only: only annotations differ (the body, decorators, parameters and defaults are the same).
        decorated: the head version has decorators (which may read the annotations).
    """

    file: str
    qualname: str
    kind: str
    change: str
    base_line: int = 0
    head_line: int = 0
    base_signature: str = ""
    head_signature: str = ""
    same_parameters: bool = False
    annotations_only: bool = False
    decorated: bool = False

    @property
    def same_signature(self) -> bool:
        """Both versions exist and have the same parameters, annotations and return annotation."""
        return self.change == "modified" and self.base_signature == self.head_signature != ""

    @property
    def name(self) -> str:
        """The last part of the qualified name (``dispatch`` for ``Balancer.dispatch``)."""
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class FileChange:
    """One changed ``.py`` file: its units and the head lines the change added."""

    path: str
    base_source: str | None
    head_source: str | None
    units: tuple[ChangedUnit, ...]
    added: frozenset[int]


def _git(repo: Path, *args: str, input_bytes: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], input=input_bytes, capture_output=True,
                              check=False, timeout=120)
    except FileNotFoundError:
        raise GateError("git is not installed (needed to read the change)") from None
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GateError(f"git {' '.join(args[:2])} failed in {repo}: {msg[-1] if msg else 'exit ' + str(proc.returncode)}")
    return proc.stdout


def _rev(repo: Path, rev: str, option: str) -> str:
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except GateError:
        raise GateError(f"{option} {rev!r} is not a commit of the repository at {repo}") from None


def _extract(repo: Path, rev: str, dest: Path) -> None:
    data = _git(repo, "archive", "--format=tar", rev)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")


def materialize(repo: Path, base: str, head: str | None, patch: Path | None, dest: Path) -> Snapshot:
    """Write base and head of a change into ``dest/base`` and ``dest/head``.

    Args:
        repo: a folder inside a git repository.
        base: the base revision (``main``, ``HEAD~1``, a commit hash).
        head: the head revision; None with ``patch`` (applied on top of base) or without it (``HEAD``).
        patch: a unified diff (``git diff`` / ``git format-patch`` output) to apply to base.
        dest: an empty folder (a temporary directory).

    Returns:
        The :class:`Snapshot`.

    Raises:
        GateError: not a git repository, an unknown revision, or a patch that does not apply.
    """
    if head is not None and patch is not None:
        raise GateError("give either --head or --patch, not both")
    top = Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())
    base_hash = _rev(top, base, "--base")
    base_dir, head_dir = dest / "base", dest / "head"
    _extract(top, base_hash, base_dir)
    if patch is not None:
        if not patch.is_file():
            raise GateError(f"patch file {patch} does not exist")
        shutil.copytree(base_dir, head_dir)
        text = patch.read_bytes()
        proc = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=head_dir, input=text,
                              capture_output=True, check=False)
        if proc.returncode != 0:
            raise GateError(f"patch {patch} does not apply to {base}: "
                            f"{proc.stderr.decode('utf-8', 'replace').strip()[:500]}")
        names = subprocess.run(["git", "apply", "--numstat", "-z", "-"], cwd=head_dir, input=text,
                               capture_output=True, check=False).stdout.decode("utf-8", "replace")
        changed = sorted({rec.split("\t")[-1] for rec in names.split("\0") if rec.count("\t") >= 2})
        return Snapshot(base_dir, head_dir, base_hash, f"patch:{patch}", tuple(changed))
    head_rev = head or "HEAD"
    head_hash = _rev(top, head_rev, "--head")
    _extract(top, head_hash, head_dir)
    out = _git(top, "diff", "--name-only", "-z", "--no-renames", base_hash, head_hash).decode("utf-8", "replace")
    changed = sorted(n for n in out.split("\0") if n)
    return Snapshot(base_dir, head_dir, base_hash, head_hash, tuple(changed))


def write_staged_patch(repo: Path, dest: Path) -> Path:
    """Write the staged changes of ``repo`` (``git diff --cached HEAD``) to ``dest/staged.diff`` so a
    pre-commit hook can gate them as a patch on ``HEAD``.

    Raises:
        GateError: not a git repository, or no commit yet.
    """
    top = Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())
    _rev(top, "HEAD", "--base")
    out = dest / "staged.diff"
    out.write_bytes(_git(top, "diff", "--cached", "--binary", "--no-color", "HEAD"))
    return out


def added_lines(old: str | None, new: str) -> frozenset[int]:
    """1-based line numbers of ``new`` that are not in ``old`` according to a line diff (all lines when
    ``old`` is None)."""
    new_lines = new.splitlines()
    if old is None:
        return frozenset(range(1, len(new_lines) + 1))
    sm = difflib.SequenceMatcher(a=old.splitlines(), b=new_lines, autojunk=False)
    out: set[int] = set()
    for tag, _i1, _i2, j1, j2 in sm.get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
    return frozenset(out)


def _strip_doc(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(
            body[0].value.value, str):
        return body[1:]
    return body


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    ret = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"({ast.unparse(node.args)}){ret}"


_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def unit_table(source: str) -> dict[str, tuple[str, int, str, str]]:
    """Every unit of a module: qualname -> (kind, first line, AST dump without positions/docstrings/nested
    definitions, signature).

    Raises:
        SyntaxError: the source does not parse.
    """
    tree = ast.parse(source)
    table: dict[str, tuple[str, int, str, str]] = {}

    def own_dump(node: ast.AST, body: list[ast.stmt]) -> str:
        kept = [s for s in _strip_doc(body) if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef))]
        head = ""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            head = ast.dump(node.args) + ast.dump(ast.Module(body=[], type_ignores=[])) + "".join(
                ast.dump(d) for d in node.decorator_list) + (ast.dump(node.returns) if node.returns else "")
        elif isinstance(node, ast.ClassDef):
            head = "".join(ast.dump(b) for b in node.bases) + "".join(ast.dump(d) for d in node.decorator_list)
        return head + "|" + "".join(ast.dump(s) for s in kept)

    def walk(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = f"{prefix}{st.name}"
                table[q] = ("method" if in_class else "function", st.lineno, own_dump(st, st.body), _signature(st))
                walk(st.body, q + ".", False)
            elif isinstance(st, ast.ClassDef):
                q = f"{prefix}{st.name}"
                table[q] = ("class", st.lineno, own_dump(st, st.body), "")
                walk(st.body, q + ".", True)
            elif not prefix:
                continue

    walk(tree.body, "", False)
    table["<module>"] = ("module", 1, own_dump(tree, tree.body), "")
    return table


class _Unannotate(ast.NodeTransformer):
    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.returns = None
        self.generic_visit(node)
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AsyncFunctionDef:
        node.returns = None
        self.generic_visit(node)
        return node


def _bare_table(source: str) -> dict[str, tuple[str, int, str, str]]:
    """:func:`unit_table` of ``source`` with every parameter and return annotation removed."""
    return unit_table(ast.unparse(_Unannotate().visit(ast.parse(source))))


def _decorated(source: str) -> set[str]:
    out: set[str] = set()

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if st.decorator_list:
                    out.add(prefix + st.name)
                walk(st.body, prefix + st.name + ".")

    walk(ast.parse(source).body, "")
    return out


def changed_units(path: str, base_source: str | None, head_source: str | None) -> tuple[ChangedUnit, ...]:
    """The units of one file that were added, removed or modified.

    Args:
        path: repository-relative path (for the records).
        base_source, head_source: the two versions (None: the file does not exist in that version).

    Raises:
        SyntaxError: a version does not parse.
    """
    old = unit_table(base_source) if base_source is not None else {}
    new = unit_table(head_source) if head_source is not None else {}
    out = []
    bare: tuple[dict[str, tuple[str, int, str, str]], dict[str, tuple[str, int, str, str]], set[str]] | None = None
    for q in sorted(set(old) | set(new), key=lambda q: (new.get(q, old.get(q, ("", 0)))[1], q)):
        o, n = old.get(q), new.get(q)
        if o is not None and n is not None and o[2] == n[2]:
            continue
        if q == "<module>" and (o is None or n is None):
            continue
        kind = (n or o)[0]  # type: ignore[index]
        change = "added" if o is None else "removed" if n is None else "modified"
        same_params = annotations_only = False
        if o is not None and n is not None and kind in ("function", "method"):
            if bare is None:
                bare = (_bare_table(base_source or ""), _bare_table(head_source or ""), _decorated(head_source or ""))
            bo, bn = bare[0].get(q), bare[1].get(q)
            same_params = bo is not None and bn is not None and bo[3] == bn[3]
            annotations_only = same_params and bo is not None and bn is not None and bo[2] == bn[2]
        out.append(ChangedUnit(path, q, kind, change, o[1] if o else 0, n[1] if n else 0, o[3] if o else "",
                               n[3] if n else "", same_params, annotations_only,
                               bare is not None and q in bare[2]))
    return tuple(out)


def module_name_for(path: str) -> str:
    """The dotted module name of a repository-relative ``.py`` path (``pkg/mod.py`` -> ``pkg.mod``)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def file_changes(snap: Snapshot) -> list[FileChange]:
    """Parse every changed ``.py`` file of ``snap`` in both versions.

    Returns:
        One :class:`FileChange` per changed ``.py`` file that parses in both versions; a file that does not
        parse raises.

    Raises:
        SyntaxError: with ``filename`` set to the repository-relative path.
    """
    out = []
    for rel in snap.changed_files:
        if not rel.endswith(".py"):
            continue
        b, h = snap.base_dir / rel, snap.head_dir / rel
        bs = b.read_text(encoding="utf-8", errors="replace") if b.is_file() else None
        hs = h.read_text(encoding="utf-8", errors="replace") if h.is_file() else None
        try:
            units = changed_units(rel, bs, hs)
        except SyntaxError as exc:
            exc.filename = rel
            raise
        out.append(FileChange(rel, bs, hs, units, added_lines(bs, hs) if hs is not None else frozenset()))
    return out
