"""CI conventions of the command line (issue 21): a check is never silent off a terminal (one plain line per
finished requirement; ``-q`` silences it), ``COLUMNS`` is honoured and evidence is never cut, and Ctrl-C
exits 130, not 1 (which means "refuted")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from egtest import run_cli
from report_fixtures import sample_report

SPEC = """\
spec c "conventions"
  target: c.py

function double(n: int) -> int
  requirement D-1 "Returns twice its argument."
    ensures result == 2 * n

requirement X-1 "Never leaks."
  informal exclusion "nothing to leak"
"""


def _case(tmp_path: Path, body: str = "def double(n: int) -> int:\n    return 2 * n\n") -> Path:
    (tmp_path / "c.py").write_text(body, encoding="utf-8")
    spec = tmp_path / "c.req"
    spec.write_text(SPEC, encoding="utf-8")
    return spec


def test_one_plain_progress_line_per_requirement_off_a_terminal(tmp_path: Path) -> None:
    spec = _case(tmp_path)
    res = run_cli("check", str(spec), "--budget", "1", "--engines", "crosshair", "--no-analysis", "-f", "json")
    lines = sorted(res.stderr.splitlines())
    assert len(lines) == 2 and lines[0].startswith("[") and "D-1: verified" in lines[0] + lines[1]
    assert any("X-1: not-formalized" in ln for ln in lines)
    quiet = run_cli("check", str(spec), "--budget", "1", "--engines", "crosshair", "--no-analysis", "-f", "json",
                    "-q")
    assert quiet.stderr == "" and quiet.stdout == res.stdout.replace(res.stdout, quiet.stdout)


def test_text_report_honours_columns_and_never_cuts_evidence(monkeypatch: object) -> None:
    import io

    import pytest

    from evalgap.verifier.report.text import render_text

    mp = pytest.MonkeyPatch()
    try:
        for cols in ("80", "200"):
            mp.setenv("COLUMNS", cols)
            buf = io.StringIO()
            render_text(sample_report(), buf, color=False)
            text = buf.getvalue()
            assert max(len(line) for line in text.splitlines()) <= int(cols)
            assert "…" not in text.split("requirements analysis")[0].split("\n", 2)[2]
    finally:
        mp.undo()


def test_ctrl_c_exits_130(tmp_path: Path) -> None:
    spec = _case(tmp_path, "def double(n: int) -> int:\n    while n == n:  # spins until the CPU budget\n"
                           "        n = n + 0\n    return 2 * n\n")
    exe = Path(sys.executable).parent / "evalgap"
    env = {**os.environ, "EVALGAP_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([str(exe), "check", str(spec), "--budget", "20", "--engines", "crosshair",
                             "--no-analysis"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err
