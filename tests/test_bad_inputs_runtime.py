"""The rows of issue 19's bad-input battery that need real processes, devices or a network: output files
(devices, FIFOs, symlinks, umask, ``-o DIR/``), the checked code exiting or killing itself, a raising
``__eq__``, a full disk on standard output, an LLM endpoint that fails, an import that hangs, and killing the
CLI (SIGINT, SIGTERM, SIGKILL) without leaving a process behind."""

from __future__ import annotations

import json
import math
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from egtest import run_cli
from evalgap.translators import llm_client
from evalgap.translators.llm_client import LLMConfig, LLMError, chat, retry_after_seconds
from evalgap.verifier.engines.common import worker_failure
from evalgap.verifier.errors import UsageError
from evalgap.verifier.fileio import write_text
from evalgap.verifier.findings import Budget
from evalgap.verifier.options import Settings
from evalgap.verifier.sandbox.runner import WorkerOutcome

SPEC = 'spec s "S"\ntarget: t.py\n\nfunction f(n: int) -> int\n  requirement R-1 "x"\n    ensures result >= 0\n'
TARGET = "def f(n: int) -> int:\n    return abs(n)\n"


@pytest.fixture()
def case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s.req").write_text(SPEC)
    (tmp_path / "t.py").write_text(TARGET)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------ output files
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can replace /dev/null")
def test_dev_null_stays_a_device_as_root(case: Path) -> None:
    res = run_cli("export", "--to", "icontract", "s.req", "-o", "/dev/null")
    assert res.exit_code == 0, res.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_is_written_through_not_replaced(case: Path) -> None:
    fifo = case / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    res = run_cli("export", "--to", "icontract", "s.req", "-o", str(fifo))
    reader.join(10)
    assert res.exit_code == 0, res.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and b"def check_R_1" in got[0]


def test_symlink_is_followed_and_stays_a_link(case: Path) -> None:
    (case / "real.py").write_text("old")
    (case / "link.py").symlink_to("real.py")
    assert run_cli("export", "--to", "icontract", "s.req", "-o", "link.py").exit_code == 0
    assert os.readlink(case / "link.py") == "real.py" and "def check_R_1" in (case / "real.py").read_text()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_file_mode_comes_from_the_umask(case: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        write_text(case / "new.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(case / "new.txt").st_mode) == mode


def test_replaced_file_keeps_its_mode_and_a_failed_write_keeps_the_old_file(case: Path) -> None:
    target = case / "keep.txt"
    target.write_text("old")
    target.chmod(0o640)
    write_text(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    with pytest.raises(UsageError, match="does not exist"):
        write_text(case / "nodir" / "x.txt", "y")
    assert not (case / "nodir").exists()


def test_dash_is_standard_output(case: Path) -> None:
    res = run_cli("export", "--to", "icontract", "s.req", "-o", "-")
    assert res.exit_code == 0 and "def check_R_1" in res.stdout and not (case / "-").exists()


# ------------------------------------------------------------------ failure words (one check run)
HOSTILE = '''import os, signal, sys

def f_exit(n: int) -> int:
    if n > 5:
        sys.exit(0)
    return n

def f_kbd(n: int) -> int:
    if n > 5:
        raise KeyboardInterrupt
    return n

def f_kill(n: int) -> int:
    if n > 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return n

class Bad:
    def __eq__(self, other):
        raise RuntimeError("eq boom")

def f_eq(n: int) -> int:
    return Bad()
'''


def test_exits_kills_and_raising_eq_get_honest_words(case: Path) -> None:
    (case / "t.py").write_text(HOSTILE)
    (case / "s.req").write_text('spec s "S"\ntarget: t.py\n' + "".join(
        f'\nfunction {fn}(n: int) -> int\n  requirement {rid} "x"\n    ensures result == n\n'
        for fn, rid in (("f_exit", "E-1"), ("f_kbd", "K-1"), ("f_kill", "S-1"), ("f_eq", "Q-1"))))
    res = run_cli("check", "s.req", "--engines", "crosshair", "--budget", "3", "--no-analysis", "--no-cache",
                  "-f", "json", "-f", "sarif", "-o", "rep/")
    assert res.exit_code == 1, res.stderr
    assert sorted(os.listdir(case / "rep")) == ["s.gap.json", "s.gap.sarif"]  # -o DIR/ created the folder
    reqs = {r["id"]: r for r in json.loads((case / "rep" / "s.gap.json").read_text())["requirements"]}
    for rid, exc in (("E-1", "SystemExit: 0"), ("K-1", "KeyboardInterrupt"), ("Q-1", "RuntimeError: eq boom")):
        assert reqs[rid]["verdict"] == "refuted", reqs[rid]["verdicts"]
        assert exc in reqs[rid]["verdicts"][0]["reason"] and reqs[rid]["counterexample"], reqs[rid]
    assert reqs["S-1"]["verdict"] == "unknown"
    assert "killed by SIGKILL" in reqs["S-1"]["verdicts"][0]["reason"]
    assert "budget exhausted" not in reqs["S-1"]["verdicts"][0]["reason"]


def _outcome(rc: int, wall: float, status: str = "cpu-limit") -> WorkerOutcome:
    return WorkerOutcome(None, status, rc, "", wall)


def _reason(out: WorkerOutcome, budget: Budget, elapsed: float) -> str:
    verdict = worker_failure(out, budget, elapsed)
    assert verdict is not None
    return verdict.reason


def test_a_signal_is_named_and_told_apart_from_the_cpu_limit() -> None:
    budget = Budget(seconds=3.0)
    assert "crash: killed by SIGKILL after 0.5 s" in _reason(_outcome(-9, 0.5), budget, 1)
    assert "budget exhausted" in _reason(_outcome(-9, 40.0), budget, 40)
    assert "killed by SIGXCPU" in _reason(_outcome(-int(signal.SIGXCPU), 5.0), budget, 5)
    assert "killed by SIGSEGV" in _reason(_outcome(-11, 1.0, "crashed"), budget, 1)
    assert "exit code 3" in _reason(_outcome(3, 1.0, "crashed"), budget, 1)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0.0, -2.0, 1e12])
def test_settings_refuse_budgets_no_engine_can_honour(value: float) -> None:
    with pytest.raises(UsageError, match="finite, positive"):
        Settings(budget_s=value)


# ------------------------------------------------------------------ full disk, hanging import
def test_full_disk_on_standard_output_is_a_message_and_exit_2(case: Path) -> None:
    for args in (["schema"], ["lint", "s.req"]):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-m", "evalgap", *args], stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert "cannot write the output: No space left on device" in proc.stderr
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_an_import_that_hangs_stops_at_the_probe_limit(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evalgap.verifier.project import signatures

    monkeypatch.setattr(signatures, "PROBE_WALL_S", 1.0)
    (case / "t.py").write_text("import time\ntime.sleep(100000)\n" + TARGET)
    start = time.monotonic()
    res = run_cli("check", "s.req", "--no-cache")
    assert res.exit_code == 2 and time.monotonic() - start < 30
    assert "s.req:2:9: importing target t.py did not finish within the import-time probe's limits" in res.stderr


def test_an_import_that_kills_itself_is_not_called_a_hang(case: Path) -> None:
    (case / "t.py").write_text("import os\nos.kill(os.getpid(), 9)\n" + TARGET)
    res = run_cli("lint", "s.req")
    assert res.exit_code == 2, res.stderr
    assert "s.req:2:9: importing target t.py ended the import-time probe: killed by SIGKILL" in res.stderr
    assert "did not finish" not in res.stderr and "Traceback" not in res.stderr


# ------------------------------------------------------------------ the LLM endpoint
class _Endpoint:
    """Answers POSTs from a script: (status, headers, body) per request; the last one repeats."""

    def __init__(self, script: list[tuple[int, dict[str, str], str]]) -> None:
        self.script, self.hits = script, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                self.rfile.read(int(self.headers["Content-Length"]))
                code, headers, body = outer.script[min(outer.hits, len(outer.script) - 1)]
                outer.hits += 1
                self.send_response(code)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture()
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waited: list[float] = []
    monkeypatch.setattr(llm_client, "_sleep", waited.append)
    return waited


def _completion(content: str) -> str:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})


def _serve(script: list[tuple[int, dict[str, str], str]]) -> Iterator[_Endpoint]:
    ep = _Endpoint(script)
    yield ep
    ep.httpd.shutdown()
    ep.httpd.server_close()


def test_429_is_retried_after_retry_after(sleeps: list[float]) -> None:
    for ep in _serve([(429, {"Retry-After": "7"}, "slow down"), (200, {}, _completion("hi"))]):
        assert chat(LLMConfig(ep.url, "m", timeout_s=5), [{"role": "user", "content": "x"}]) == "hi"
        assert sleeps == [7.0] and ep.hits == 2


def test_5xx_backs_off_then_fails_with_the_count(sleeps: list[float]) -> None:
    for ep in _serve([(503, {}, "overloaded")]):
        with pytest.raises(LLMError, match=r"HTTP 503 .*after 4 tries"):
            chat(LLMConfig(ep.url, "m", timeout_s=5), [{"role": "user", "content": "x"}])
        assert sleeps == [1.0, 2.0, 4.0] and ep.hits == 4


def test_401_fails_at_once(sleeps: list[float]) -> None:
    for ep in _serve([(401, {}, "bad key")]):
        with pytest.raises(LLMError, match="HTTP 401"):
            chat(LLMConfig(ep.url, "m", timeout_s=5), [{"role": "user", "content": "x"}])
        assert sleeps == [] and ep.hits == 1


def test_retry_after_forms() -> None:
    assert retry_after_seconds("12") == 12.0 and retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0


def test_author_with_an_unreachable_endpoint_is_exit_2_and_writes_nothing(case: Path, sleeps: list[float]) -> None:
    (case / "p.md").write_text("- Returns a non-negative number.\n")
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = run_cli("author", "p.md", "--target", "t.py", "--engine", "llm", "--base-url",
                  f"http://127.0.0.1:{port}/v1", "--model", "m", "-o", "draft.req")
    assert res.exit_code == 2, res.stdout + res.stderr
    assert "cannot connect" in res.stderr and "after 4 tries" in res.stderr and len(sleeps) == 3
    assert not (case / "draft.req").exists() and "informal" not in res.stdout


# ------------------------------------------------------------------ killing the CLI
def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                parents[int(p)] = int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, par in parents.items() if par in frontier and c not in out}
        out |= frontier
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_an_interrupted_run_leaves_no_process_behind(case: Path, sig: signal.Signals,
                                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    """No process, and (SIGINT/SIGTERM) none of evalgap's temporary folders, is left behind."""
    (case / "t.py").write_text("import time\ndef f(n: int) -> int:\n    time.sleep(1000)\n    return n\n")
    scratch = tmp_path_factory.mktemp("tmpdir")
    proc = subprocess.Popen([sys.executable, "-m", "evalgap", "check", "s.req", "--budget", "30", "--no-cache",
                             "--no-analysis"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 90
    tree: set[int] = set()
    while time.monotonic() < deadline:  # wait for a worker forked by a fork server (it sleeps in the target)
        tree = _descendants(proc.pid)
        if any(_descendants(c) for c in tree):
            break
        time.sleep(0.2)
    time.sleep(1.0)  # let the worker import the target and sleep
    tree = _descendants(proc.pid) | tree
    assert any(_descendants(c) for c in tree), "no fork server ran a worker"
    proc.send_signal(sig)
    proc.wait(30)
    gone_by = time.monotonic() + 15
    while time.monotonic() < gone_by and any(_alive(p) for p in tree):
        time.sleep(0.1)
    left = [p for p in tree if _alive(p)]
    for p in left:  # do not leak them into the rest of the run
        os.kill(p, signal.SIGKILL)
    assert not left, f"left behind after {sig.name}: {left}"
    if sig != signal.SIGKILL:
        assert proc.returncode == 128 + sig
        assert sorted(p.name for p in scratch.iterdir()) == []
