"""The CI integration: the composite action's script run locally on a temporary git repository, the
pre-commit hook's `--staged` mode, and the hook/action manifests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gate_repos import FIXTURES, build_repo, git

ROOT = Path(__file__).resolve().parents[1]
EVALGAP = Path(sys.executable).parent / "evalgap"

pytestmark = pytest.mark.slow


def test_action_script_runs_the_gate_and_sets_outputs(tmp_path: Path) -> None:
    if not EVALGAP.exists():
        pytest.skip("the evalgap console script is not installed next to this Python")
    repo = build_repo("stats", tmp_path / "repo")
    out, summary = tmp_path / "github_output", tmp_path / "step_summary"
    env = {**os.environ, "INPUT_SPEC": "stats.req", "INPUT_BASE": "main", "INPUT_HEAD": "hardcode",
           "INPUT_PATH": str(repo), "INPUT_OUTPUT_DIR": str(tmp_path / "results"), "INPUT_BUDGET": "2",
           "INPUT_EXTRA_ARGS": "--no-behavior-diff -j 2", "GITHUB_OUTPUT": str(out),
           "GITHUB_STEP_SUMMARY": str(summary), "EVALGAP": str(EVALGAP)}
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gate_action.sh"), "run"], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr  # the action's last step exits with the gate's code
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert outputs["exit-code"] == "1"
    sarif = json.loads(Path(outputs["sarif"]).read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["EG407"]
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "stats.py"
    assert "## evalgap gate: failed" in summary.read_text()
    assert json.loads(Path(outputs["json"]).read_text())["summary"]["gaming_findings"] == 1
    # comment mode outside a pull request does nothing, and says so
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gate_action.sh"), "comment"],
                          env={**env, "INPUT_PR": ""}, capture_output=True, text=True)
    assert proc.returncode == 0 and "not a pull request" in proc.stderr


def test_staged_mode_gates_the_index_for_pre_commit(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from evalgap.verifier.cli.main import cli

    repo = build_repo("stats", tmp_path / "repo")
    shutil.copy(FIXTURES / "stats" / "icontract" / "stats.py", repo / "stats.py")
    git(repo, "add", "stats.py")
    res = CliRunner().invoke(cli, ["gate", str(repo), "--spec", "stats.req", "--staged", "--no-behavior-diff",
                                   "--budget", "1", "--format", "json"])
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert [g["code"] for g in data["gaming"]] == ["EG402"] and data["head"].startswith("patch:")


def test_manifests_name_the_real_commands() -> None:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"]: h["entry"] for h in hooks} == {"evalgap-gate": "evalgap gate --staged",
                                                    "evalgap-lint": "evalgap lint"}
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    runs = " ".join(str(s.get("run", "")) + str(s.get("uses", "")) for s in action["runs"]["steps"])
    assert "scripts/gate_action.sh\" run" in runs and "upload-sarif" in runs and "gate_action.sh\" comment" in runs
    assert action["inputs"]["spec"]["required"] is True
