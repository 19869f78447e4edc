"""Untrusted targets run only in limited worker subprocesses: each misbehaviour yields an honest verdict
with a clear reason, the run goes on, and nothing outside the worker's temporary folder changes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from enginehelp import run_check, snapshot, write_case
from evalgap.verifier.findings import Verdict
from evalgap.verifier.sandbox.runner import Limits, run_worker

# Two requirements per spec: the misbehaving function and a well-behaved one, so "the run goes on" is shown.
SPEC_TWO = """\
spec t "sandbox test"
  target: {target}

function f(n: int) -> int
  requirement F-1 "Returns its argument."
    ensures result == n

function g(n: int) -> int
  requirement G-1 "Returns one more than its argument."
    ensures result == n + 1
"""

GOOD_G = """
def g(n: int) -> int:
    return n + 1
"""


def _check(tmp_path: Path, body: str, check_g: bool = True,
           **opts: object) -> tuple[dict[str, tuple[Verdict, str]], Path]:
    outside = tmp_path / "outside"
    outside.mkdir(parents=True)
    (outside / "keep.txt").write_text("unchanged", encoding="utf-8")
    project = tmp_path / "project"
    spec = write_case(project, textwrap.dedent(body).replace("OUTSIDE", str(outside)) + GOOD_G, SPEC_TWO)
    before_project, before_outside = snapshot(project), snapshot(outside)
    results = run_check(spec, budget_s=opts.pop("budget_s", 2.0), jobs=1, engines=("crosshair",), **opts)
    assert snapshot(project) == before_project, "the target's own folder changed"
    assert snapshot(outside) == before_outside, "a folder outside the worker's changed"
    out = {r.id: (r.verdicts[0].verdict, r.verdicts[0].reason) for r in results}
    if check_g:
        assert out["G-1"][0] is Verdict.VERIFIED, out  # the run went on
    return out, outside


def test_write_outside_folder_is_blocked(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        def f(n: int) -> int:
            with open("OUTSIDE/evil.txt", "w") as fh:
                fh.write("x")
            return n
        """)
    verdict, reason = out["F-1"]
    assert verdict is Verdict.UNKNOWN
    assert reason.startswith("blocked side effect") and "evil.txt" in reason


def test_overwrite_and_delete_outside_folder_are_blocked(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        import os
        def f(n: int) -> int:
            os.remove("OUTSIDE/keep.txt")
            return n
        """)
    assert out["F-1"][0] is Verdict.UNKNOWN and "os.remove" in out["F-1"][1]


def test_write_at_import_time_is_blocked(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        open("OUTSIDE/keep.txt", "a").write("appended at import")
        def f(n: int) -> int:
            return n
        """, check_g=False)
    # F-1 and G-1 share the module, so both are unknown; the write never happened (checked in _check).
    for rid in ("F-1", "G-1"):
        assert out[rid][0] is Verdict.UNKNOWN and out[rid][1].startswith("blocked side effect"), out


def test_fork_is_blocked(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        import os
        def f(n: int) -> int:
            pid = os.fork()
            return n if pid else n
        """)
    assert out["F-1"][0] is Verdict.UNKNOWN and "os.fork" in out["F-1"][1]


def test_subprocess_and_socket_are_blocked(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        import subprocess
        def f(n: int) -> int:
            subprocess.run(["touch", "OUTSIDE/touched"])
            return n
        """)
    assert out["F-1"][0] is Verdict.UNKNOWN and "subprocess.Popen" in out["F-1"][1]
    sock_out, _ = _check(tmp_path / "s", """
        import socket
        def f(n: int) -> int:
            socket.create_connection(("127.0.0.1", 9))
            return n
        """)
    assert sock_out["F-1"][0] is Verdict.UNKNOWN and "network access" in sock_out["F-1"][1]


def test_os_exit_is_blocked(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        import os
        def f(n: int) -> int:
            os._exit(0)
        """)
    assert out["F-1"][0] is Verdict.UNKNOWN and "os._exit(0)" in out["F-1"][1]


def test_huge_allocation_hits_the_memory_limit(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        def f(n: int) -> int:
            block = bytearray(50 * 1024 ** 3)
            return n + len(block) - len(block)
        """, memory_bytes=1024 ** 3)
    verdict, reason = out["F-1"]
    assert verdict is Verdict.UNKNOWN and reason.startswith("memory limit"), reason


def test_endless_loop_is_budget_exhausted(tmp_path: Path) -> None:
    out, _ = _check(tmp_path, """
        def f(n: int) -> int:
            while True:
                n += 1
        """, budget_s=1.0)
    verdict, reason = out["F-1"]
    assert verdict is Verdict.UNKNOWN
    assert reason.startswith(("budget exhausted", "timeout")), reason


def test_wall_clock_kills_the_whole_process_group(tmp_path: Path) -> None:
    """A worker that never returns is killed at its wall-clock limit, and reported as a timeout."""
    out = run_worker("replay", {"paths": [], "harness": "time", "function": "sleep",
                                                         "args": ["30"]}, Limits(cpu_s=5, wall_s=1.5))
    assert out.status == "timeout" and out.result is None and out.wall_s < 10


def test_os_exit_without_guard_is_a_crash(tmp_path: Path) -> None:
    """With the guard off, os._exit(0) ends the worker without a result: status ``crashed``, exit code 0."""
    (tmp_path / "exiter.py").write_text("import os\ndef go():\n    os._exit(0)\n", encoding="utf-8")
    out = run_worker("replay", {"paths": [str(tmp_path)], "harness": "exiter",
                                                         "function": "go", "args": [], "guard": False},
                     Limits(cpu_s=5, wall_s=20))
    assert out.status == "crashed" and out.returncode == 0 and out.result is None


@pytest.mark.parametrize("event", ["fork", "write"])
def test_guard_blocks_in_replay_worker(tmp_path: Path, event: str) -> None:
    outside = tmp_path / "outside.txt"
    code = {"fork": "import os\ndef go():\n    os.fork()\n",
            "write": f"def go():\n    open({str(outside)!r}, 'w').write('x')\n"}[event]
    (tmp_path / "mod.py").write_text(code, encoding="utf-8")
    out = run_worker("replay", {"paths": [str(tmp_path)], "harness": "mod",
                                                         "function": "go", "args": []}, Limits(cpu_s=5, wall_s=20))
    assert out.result is not None and out.result["outcome"] == "exception"
    assert out.result["type"] == "SandboxBlocked" and out.result["blocked"]
    assert not outside.exists()


@pytest.fixture(params=["forkserver", "spawn"])
def worker_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test both through the fork servers and with one new ``python`` per job."""
    monkeypatch.setenv("EVALGAP_FORKSERVER", "1" if request.param == "forkserver" else "0")
    return str(request.param)


def test_limits_hold_in_both_modes(tmp_path: Path, worker_mode: str) -> None:
    (tmp_path / "burn.py").write_text("def spin():\n    while True:\n        pass\n"
                                      "def hog():\n    return len(bytearray(8 * 1024 ** 3))\n"
                                      "def env():\n    import os\n    return sorted(os.environ)\n", encoding="utf-8")
    base = {"paths": [str(tmp_path)], "harness": "burn", "args": [], "guard": False}
    cpu = run_worker("replay", {**base, "function": "spin"}, Limits(cpu_s=1, wall_s=30))
    assert cpu.status == "cpu-limit", (worker_mode, cpu)
    mem = run_worker("replay", {**base, "function": "hog"},
                     Limits(cpu_s=10, wall_s=30, memory_bytes=1024 ** 3))
    assert mem.result is not None and mem.result["type"] == "MemoryError", (worker_mode, mem)
    env = run_worker("replay", {**base, "function": "env"}, Limits(cpu_s=10, wall_s=30))
    assert env.result is not None and env.result["outcome"] == "passed"
    shown = env.result["returned"]
    assert "EVALGAP_CACHE_DIR" not in shown and "HOME" in shown  # scrubbed environment


def test_fork_server_is_reused(tmp_path: Path) -> None:
    from evalgap.verifier.sandbox import forkserver

    (tmp_path / "pid.py").write_text("import os\ndef ppid():\n    return os.getppid()\n", encoding="utf-8")
    req = {"paths": [str(tmp_path)], "harness": "pid", "function": "ppid", "args": []}
    results = [run_worker("replay", req, Limits(cpu_s=5, wall_s=20)).result for _ in range(3)]
    parents = {r["returned"] for r in results if r is not None}
    assert forkserver.enabled() and len(parents) == 1  # every job forked from the same server
