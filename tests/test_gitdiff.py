"""Materializing base/head of a change and finding changed units by parsing both versions."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evalgap.verifier.gate.gitdiff import GateError, added_lines, changed_units, materialize, module_name_for
from gate_repos import build_repo, git

BASE = '''"""Doc."""
LIMIT = 3


def f(x: int) -> int:
    """Add one."""
    return x + 1


class C:
    size = 1

    def m(self, y: int) -> int:
        return y * 2

    def n(self) -> None:
        pass
'''


def test_changed_units_come_from_the_ast_not_from_line_numbers() -> None:
    moved = BASE.replace('"""Doc."""\n', '"""Doc."""\n\n\n# a comment\n')  # lines move, nothing changes
    assert changed_units("m.py", BASE, moved) == ()
    docs = BASE.replace('"""Add one."""', '"""Add one to x."""')
    assert changed_units("m.py", BASE, docs) == ()
    head = BASE.replace("return y * 2", "return y * 3").replace("LIMIT = 3", "LIMIT = 4").replace(
        "def f(x: int) -> int:", "def f(x: int, y: int = 0) -> int:") + "\n\ndef g() -> None:\n    pass\n"
    units = {u.qualname: u for u in changed_units("m.py", BASE, head)}
    assert set(units) == {"<module>", "f", "C.m", "g"}
    assert units["C.m"].kind == "method" and units["C.m"].same_signature
    assert units["f"].change == "modified" and not units["f"].same_signature
    assert units["f"].base_signature == "(x: int) -> int" and units["f"].head_signature == "(x: int, y: int=0) -> int"
    assert units["g"].change == "added" and units["g"].head_line > 0
    cls = BASE.replace("size = 1", "size = 2")
    assert [(u.qualname, u.kind) for u in changed_units("m.py", BASE, cls)] == [("C", "class")]


def test_added_lines_and_module_names() -> None:
    assert added_lines("a\nb\nc\n", "a\nB\nc\nd\n") == frozenset({2, 4})
    assert added_lines(None, "x\ny\n") == frozenset({1, 2})
    assert module_name_for("pkg/mod.py") == "pkg.mod" and module_name_for("pkg/__init__.py") == "pkg"


def test_materialize_revisions_and_patches(tmp_path: Path) -> None:
    repo = build_repo("refunds", tmp_path / "repo")
    snap = materialize(repo, "main", "v2", None, tmp_path / "snap")
    assert snap.changed_files == ("refunds.py",)
    assert "seen" not in (snap.base_dir / "refunds.py").read_text()
    assert "seen" in (snap.head_dir / "refunds.py").read_text()
    patch = tmp_path / "change.diff"
    patch.write_text(git(repo, "diff", "main", "v2"))
    psnap = materialize(repo, "main", None, patch, tmp_path / "psnap")
    assert psnap.changed_files == ("refunds.py",)
    assert (psnap.head_dir / "refunds.py").read_text() == (snap.head_dir / "refunds.py").read_text()
    assert psnap.head_rev == f"patch:{patch}"
    # the user's working tree is untouched
    assert "seen" not in (repo / "refunds.py").read_text()


def test_materialize_errors_are_gate_errors(tmp_path: Path) -> None:
    repo = build_repo("refunds", tmp_path / "repo")
    with pytest.raises(GateError, match="nosuchrev"):
        materialize(repo, "nosuchrev", None, None, tmp_path / "a")
    bad = tmp_path / "bad.diff"
    bad.write_text("--- a/refunds.py\n+++ b/refunds.py\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n")
    with pytest.raises(GateError, match="does not apply"):
        materialize(repo, "main", None, bad, tmp_path / "b")
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GateError):
        materialize(plain, "HEAD", None, None, tmp_path / "c")
    assert subprocess.run(["git", "--version"], capture_output=True).returncode == 0
