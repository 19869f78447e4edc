"""`evalgap check` end to end on the kvstore case: exit 1 with KV-1 refuted, both engines reported,
reproducer tests that fail on the agent's store and pass on a fixed one, cached re-runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from evalgap.verifier.cli.main import cli

KVSTORE = Path(__file__).resolve().parents[1] / "case_studies" / "kvstore"


def _pytest(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
                          capture_output=True, text=True, timeout=300, cwd=folder)


@pytest.mark.slow
def test_emitted_reproducers_fail_on_broken_and_pass_on_fixed(tmp_path: Path) -> None:
    case = tmp_path / "kvstore"
    shutil.copytree(KVSTORE, case, ignore=shutil.ignore_patterns("__pycache__"))
    emitted = tmp_path / "emitted"
    res = CliRunner().invoke(cli, ["check", str(case), "--profile", "quick", "--budget", "2",
                                   "--engines", "crosshair,hypothesis",
                                   "--format", "json", "--emit-tests", str(emitted), "--no-cache"])
    assert res.exit_code == 1, res.output
    report = json.loads(res.stdout)
    by_id = {r["id"]: r for r in report["requirements"]}
    assert by_id["KV-1"]["verdict"] == "refuted"
    assert {v["engine"] for v in by_id["KV-1"]["verdicts"]} == {"crosshair", "hypothesis"}
    for v in by_id["KV-1"]["verdicts"]:
        if v["verdict"] == "refuted":
            assert v["reproducer"] and "from agent_store import KVStore" in v["reproducer"]
    files = sorted(p.name for p in emitted.glob("test_*.py"))
    assert "test_kvstore_KV_1_crosshair.py" in files
    text = (emitted / "test_kvstore_KV_1_crosshair.py").read_text()
    assert "KV-1" in text and "A value written with put is returned unchanged by get." in text
    broken = _pytest(emitted)
    assert broken.returncode == 1 and f"{len(files)} failed" in broken.stdout, broken.stdout
    shutil.copy(case / "reference_store.py", case / "agent_store.py")  # the fix
    fixed = _pytest(emitted)
    assert fixed.returncode == 0 and f"{len(files)} passed" in fixed.stdout, fixed.stdout


@pytest.mark.slow
def test_cli_check_uses_cache_and_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_SANDBOX_MODE", "os (test)")  # verified results are cached only then
    args = ["check", str(KVSTORE), "--budget", "1", "--engines", "crosshair", "--format", "json", "-j", "2"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 1, first.output
    second = CliRunner().invoke(cli, args)
    assert second.exit_code == 1
    reqs = json.loads(second.stdout)["requirements"]
    formal = [v for r in reqs for v in r["verdicts"] if v["engine"] == "crosshair"]
    assert formal and all(v["cached"] for v in formal)
    third = CliRunner().invoke(cli, [*args, "--no-cache"])
    assert not any(v["cached"] for r in json.loads(third.stdout)["requirements"] for v in r["verdicts"])


def test_unknown_engine_is_a_usage_error() -> None:
    res = CliRunner().invoke(cli, ["check", str(KVSTORE), "--engines", "crosshair,z4"])
    assert res.exit_code == 2 and "unknown engine 'z4'" in res.output
