"""The audit-hook guard's second-layer paths (issue 17; verifier/sandbox/guard.py): descriptor-relative
names, ``opener``, ``fchmod`` of a read-only descriptor, ``sqlite3`` (``connect`` and ``ATTACH``),
``mkfifo``/``mknod``. Each runs in a forked child (the guard cannot be removed once installed), with no OS
isolation, so only the guard stands between the call and the folder outside."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from evalgap.verifier.sandbox import guard

_exit = os._exit  # the guard replaces os._exit in the child


def _in_guarded_child(inside: Path, action: Callable[[], object]) -> dict[str, object]:
    """Run ``action`` in a forked child whose guard confines writes to ``inside``: what it raised and what
    the guard recorded."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        out: dict[str, object] = {}
        try:
            os.chdir(inside)
            guard.install(str(inside))
            action()
            out["raised"] = None
        except BaseException as exc:  # noqa: BLE001
            out["raised"] = type(exc).__name__
        out["blocked"] = list(guard.BLOCKED)
        os.write(w, json.dumps(out).encode())
        os.close(w)
        _exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    result: dict[str, object] = json.loads(data)
    return result


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """(inside, outside): the guard's folder and a folder beside it holding ``victim.txt``."""
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("keep", encoding="utf-8")
    return inside, outside


def _dir_fd(outside: Path) -> int:
    return os.open(outside, os.O_RDONLY | os.O_DIRECTORY)


ATTACKS: dict[str, Callable[[Path], Callable[[], object]]] = {
    "dir_fd open": lambda o: lambda: os.open("new.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=_dir_fd(o)),
    "dir_fd unlink": lambda o: lambda: os.unlink("victim.txt", dir_fd=_dir_fd(o)),
    "dir_fd rename": lambda o: lambda: os.rename("victim.txt", "moved.txt", src_dir_fd=_dir_fd(o),
                                                 dst_dir_fd=_dir_fd(o)),
    "opener": lambda o: lambda: open("new.txt", "w", opener=lambda p, f: os.open(p, f, 0o644, dir_fd=_dir_fd(o))),
    "fchmod": lambda o: lambda: os.fchmod(os.open(o / "victim.txt", os.O_RDONLY), 0o777),
    "fchmod folder": lambda o: lambda: os.fchmod(_dir_fd(o), 0),
    "sqlite connect": lambda o: lambda: sqlite3.connect(str(o / "new.db")).execute("create table t (x)"),
    "sqlite uri": lambda o: lambda: sqlite3.connect(f"file:{o / 'new.db'}?mode=rwc", uri=True),
    "sqlite attach": lambda o: lambda: sqlite3.connect(":memory:").execute(f"attach database '{o / 'new.db'}' as x"),
    "mkfifo": lambda o: lambda: os.mkfifo(o / "new.fifo"),
    "mkfifo dir_fd": lambda o: lambda: os.mkfifo("new.fifo", dir_fd=_dir_fd(o)),
    "mknod": lambda o: lambda: os.mknod(o / "new.node", 0o600 | stat.S_IFIFO),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_guard_blocks(world: tuple[Path, Path], name: str) -> None:
    inside, outside = world
    mode = outside.stat().st_mode
    victim_mode = (outside / "victim.txt").stat().st_mode
    got = _in_guarded_child(inside, ATTACKS[name](outside))
    assert got["raised"] in ("SandboxBlocked", "DatabaseError"), got
    assert got["blocked"], got
    assert sorted(os.listdir(outside)) == ["victim.txt"]
    assert outside.stat().st_mode == mode and (outside / "victim.txt").stat().st_mode == victim_mode


def test_guard_allows_the_same_inside(world: tuple[Path, Path]) -> None:
    inside, _ = world

    def inside_only() -> None:
        d = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        os.close(os.open("a.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=d))
        os.unlink("a.txt", dir_fd=d)
        with open("b.txt", "w", opener=lambda p, f: os.open(p, f, 0o644, dir_fd=d)) as fh:
            fh.write("x")
        os.fchmod(os.open("b.txt", os.O_RDONLY), 0o600)
        con = sqlite3.connect("in.db")
        con.execute("create table t (x)")
        con.commit()
        os.mkfifo("f.fifo")

    got = _in_guarded_child(inside, inside_only)
    assert got == {"raised": None, "blocked": []}
    assert sorted(os.listdir(inside)) == ["b.txt", "f.fifo", "in.db"]
