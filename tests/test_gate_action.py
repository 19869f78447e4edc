"""The GitHub Action's script (scripts/gate_action.sh) run in a temporary git repository, one test per input.

The gate itself, ``gh`` and ``pip`` are stubs on PATH (or named by ``EVALGAP``/``PYTHON``) that record the
arguments they receive, so each test sees exactly what the script passed on: the extra arguments literally
(no glob expansion even where the glob matches files), the marker comment found and edited (never
``--edit-last``), warnings instead of failures when the token cannot comment, and the project's dependencies
installed the way the repository declares them.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gate_action.sh"
MARKER = "<!-- evalgap-gate -->"

_RECORDER = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as f:
    f.write(json.dumps([os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\\n")
"""
#: `evalgap`: records its arguments, writes the Markdown it is asked for, exits with $GATE_CODE.
_GATE = _RECORDER + """args = sys.argv[1:]
md = args[args.index("--markdown") + 1]
open(md, "w").write("## evalgap gate: failed\\n")
sys.exit(int(os.environ.get("GATE_CODE", "0")))
"""
#: `gh`: prints $GH_IDS for the comment listing; fails the calls named in $GH_FAIL (list, patch, post).
_GH = _RECORDER + """args = sys.argv[1:]
kind = "patch" if "PATCH" in args else "post" if "POST" in args else "list"
if "body=@" in " ".join(args):
    body = next(a for a in args if a.startswith("body=@"))[len("body=@"):]
    with open(os.environ["STUB_LOG"] + ".body", "w") as f:
        f.write(open(body).read())
if kind in os.environ.get("GH_FAIL", "").split(","):
    sys.stderr.write("HTTP 403: Resource not accessible by integration\\n")
    sys.exit(1)
if kind == "list":
    sys.stdout.write(os.environ.get("GH_IDS", ""))
"""
#: `python`: records `-m pip ...` calls (exit $PIP_CODE), runs everything else with the real interpreter.
_PYTHON = _RECORDER.replace("with open", "if sys.argv[1:2] == ['-m']:\n  with open").replace(
    "    f.write", "      f.write") + f"""  sys.exit(int(os.environ.get("PIP_CODE", "0")))
os.execv({sys.executable!r}, [{sys.executable!r}, *sys.argv[1:]])
"""


def _stub(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@e"})


@pytest.fixture()
def action(tmp_path: Path) -> dict[str, object]:
    """A repository with two commits and matching test files, stubs on PATH, the environment for the script."""
    repo = tmp_path / "repo"
    (repo / "tests" / "unit").mkdir(parents=True)
    (repo / "tests" / "unit" / "test_a.py").write_text("def test_a() -> None:\n    pass\n")
    (repo / "tests" / "unit" / "test_b.py").write_text("def test_b() -> None:\n    pass\n")
    (repo / "spec.req").write_text("spec s\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    (repo / "mod.py").write_text("X = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "head")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gate = _stub(bin_dir, "evalgap", _GATE)
    _stub(bin_dir, "gh", _GH)
    log = tmp_path / "calls.jsonl"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "STUB_LOG": str(log),
           "EVALGAP": str(gate), "INPUT_SPEC": "spec.req", "INPUT_BASE": "HEAD~1", "INPUT_HEAD": "HEAD",
           "INPUT_PATH": str(repo), "INPUT_OUTPUT_DIR": str(tmp_path / "out"),
           "GITHUB_OUTPUT": str(tmp_path / "github_output"), "PYTHON": str(_stub(bin_dir, "python", _PYTHON))}
    for k in ("GH_TOKEN", "INPUT_PR", "INPUT_EXTRA_ARGS", "INPUT_BUDGET", "INPUT_PROFILE", "GH_FAIL", "GH_IDS",
              "INPUT_INSTALL_DEPS", "GITHUB_STEP_SUMMARY"):
        env.pop(k, None)
    return {"env": env, "log": log, "repo": repo, "tmp": tmp_path}


def _run(action: dict[str, object], mode: str, **env: str) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    base = action["env"]
    assert isinstance(base, dict)
    proc = subprocess.run(["bash", str(SCRIPT), mode], env={**base, **env}, capture_output=True, text=True,
                          timeout=60, cwd=str(action["tmp"]))
    log = action["log"]
    assert isinstance(log, Path)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return proc, calls


def _outputs(action: dict[str, object]) -> dict[str, str]:
    tmp = action["tmp"]
    assert isinstance(tmp, Path)
    return dict(line.split("=", 1) for line in (tmp / "github_output").read_text().splitlines())


# ------------------------------------------------------------------ run: arguments
def test_extra_args_reach_the_gate_literally_without_glob_expansion(action: dict[str, object]) -> None:
    proc, calls = _run(action, "run", INPUT_EXTRA_ARGS="--tests tests/**/*.py --tests 'tests/unit/test_*.py' "
                                                       "--target \"my target.py\" -j 2 --x=$HOME")
    assert proc.returncode == 0, proc.stderr
    [gate] = [c for c in calls if c[0] == "evalgap"]
    tail = gate[gate.index("--json") + 2:]
    assert tail == ["--tests", "tests/**/*.py", "--tests", "tests/unit/test_*.py", "--target", "my target.py",
                    "-j", "2", "--x=$HOME"]
    assert _outputs(action)["exit-code"] == "0"


def test_inputs_become_gate_options_and_the_gate_code_is_an_output(action: dict[str, object]) -> None:
    proc, calls = _run(action, "run", INPUT_BUDGET="2", INPUT_PROFILE="quick", INPUT_FAIL_ON_UNEXPLAINED="true",
                       GATE_CODE="1")
    assert proc.returncode == 0, proc.stderr  # the action's last step exits with the gate's code
    [gate] = [c for c in calls if c[0] == "evalgap"]
    tmp = action["tmp"]
    assert isinstance(tmp, Path)
    assert gate[1:] == ["gate", str(action["repo"]), "--spec", "spec.req", "--base", "HEAD~1", "--head", "HEAD",
                        "--sarif", f"{tmp}/out/gate.sarif", "--markdown", f"{tmp}/out/gate.md", "--json",
                        f"{tmp}/out/gate.json", "--budget", "2", "--profile", "quick", "--fail-on-unexplained"]
    outputs = _outputs(action)
    assert outputs["exit-code"] == "1" and outputs["markdown"] == f"{tmp}/out/gate.md"


def test_unsplittable_extra_args_are_a_usage_error_not_a_shell_error(action: dict[str, object]) -> None:
    proc, calls = _run(action, "run", INPUT_EXTRA_ARGS="--tests 'unclosed")
    assert proc.returncode == 0 and "cannot be split" in proc.stderr
    assert not [c for c in calls if c[0] == "evalgap"]
    assert _outputs(action)["exit-code"] == "2"
    tmp = action["tmp"]
    assert isinstance(tmp, Path)
    assert "The gate did not run (exit code 2)" in (tmp / "out" / "gate.md").read_text()


# ------------------------------------------------------------------ comment: the marker
def _comment(action: dict[str, object], **env: str) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    tmp = action["tmp"]
    assert isinstance(tmp, Path)
    (tmp / "out").mkdir(exist_ok=True)
    (tmp / "out" / "gate.md").write_text("## evalgap gate: passed\n")
    return _run(action, "comment", INPUT_PR="7", GH_TOKEN="t", GH_REPO="o/r", **env)


def _body(action: dict[str, object]) -> str:
    log = action["log"]
    assert isinstance(log, Path)
    return Path(str(log) + ".body").read_text()


def test_comment_edits_the_marked_comment_found_through_the_api(action: dict[str, object]) -> None:
    proc, calls = _comment(action, GH_IDS="4242\n5151\n")
    assert proc.returncode == 0, proc.stderr
    gh = [c[1:] for c in calls if c[0] == "gh"]
    assert len(gh) == 2
    listing, edit = gh
    assert listing[:3] == ["api", "--paginate", "repos/o/r/issues/7/comments"]
    assert MARKER in listing[listing.index("--jq") + 1]
    assert edit[:4] == ["api", "--method", "PATCH", "repos/o/r/issues/comments/4242"]
    assert not any("--edit-last" in a for c in gh for a in c)
    assert _body(action) == f"{MARKER}\n## evalgap gate: passed\n"


def test_comment_is_created_with_the_marker_when_none_exists(action: dict[str, object]) -> None:
    proc, calls = _comment(action, GH_IDS="")
    assert proc.returncode == 0, proc.stderr
    gh = [c[1:] for c in calls if c[0] == "gh"]
    assert gh[1][:4] == ["api", "--method", "POST", "repos/o/r/issues/7/comments"]
    assert _body(action).startswith(MARKER + "\n")


@pytest.mark.parametrize("failing", ["list", "post", "patch"])
def test_a_token_that_cannot_comment_warns_and_does_not_fail(action: dict[str, object], failing: str) -> None:
    proc, calls = _comment(action, GH_IDS="99\n" if failing == "patch" else "", GH_FAIL=failing)
    assert proc.returncode == 0
    assert "::warning" in proc.stderr and "read-only token" in proc.stderr
    assert len([c for c in calls if c[0] == "gh"]) == (1 if failing == "list" else 2)


def test_comment_outside_a_pull_request_does_nothing(action: dict[str, object]) -> None:
    proc, calls = _run(action, "comment", INPUT_PR="", GH_TOKEN="t")
    assert proc.returncode == 0 and "not a pull request" in proc.stderr and calls == []


# ------------------------------------------------------------------ install-deps
@pytest.mark.parametrize("layout, expected", [
    ("pyproject.toml", ["-m", "pip", "install", "--quiet", "-e", "{repo}"]),
    ("setup.py", ["-m", "pip", "install", "--quiet", "-e", "{repo}"]),
    ("requirements.txt", ["-m", "pip", "install", "--quiet", "-r", "{repo}/requirements.txt"]),
])
def test_install_deps_installs_what_the_repository_declares(action: dict[str, object], layout: str,
                                                             expected: list[str]) -> None:
    repo = action["repo"]
    assert isinstance(repo, Path)
    (repo / layout).write_text("")
    proc, calls = _run(action, "install", INPUT_INSTALL_DEPS="true")
    assert proc.returncode == 0, proc.stderr
    assert [c[1:] for c in calls if c[0] == "python"] == [[a.format(repo=repo) for a in expected]]


def test_install_deps_off_or_nothing_declared_installs_nothing(action: dict[str, object]) -> None:
    repo = action["repo"]
    assert isinstance(repo, Path)
    proc, calls = _run(action, "install", INPUT_INSTALL_DEPS="true")
    assert proc.returncode == 0 and "nothing installed" in proc.stderr and calls == []
    (repo / "requirements.txt").write_text("")
    proc, calls = _run(action, "install", INPUT_INSTALL_DEPS="false")
    assert proc.returncode == 0 and calls == []


def test_a_failed_install_fails_the_step(action: dict[str, object]) -> None:
    repo = action["repo"]
    assert isinstance(repo, Path)
    (repo / "requirements.txt").write_text("")
    proc, _ = _run(action, "install", INPUT_INSTALL_DEPS="true", PIP_CODE="1")
    assert proc.returncode == 2 and "failed" in proc.stderr


# ------------------------------------------------------------------ the manifest
def test_action_manifest_is_fork_safe_caches_pip_and_offers_install_deps() -> None:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = {s.get("name"): s for s in action["runs"]["steps"]}
    assert steps["Upload SARIF"]["continue-on-error"] is True
    assert steps["Comment on the pull request"]["continue-on-error"] is True
    assert steps["Cache pip downloads"]["uses"].startswith("actions/cache@")
    assert "~/.cache/pip" in steps["Cache pip downloads"]["with"]["path"]
    assert action["inputs"]["install-deps"]["default"] == "false"
    install = steps["Install the project's dependencies"]
    assert "gate_action.sh\" install" in install["run"] and install["env"]["PYTHON"] == "python"
    assert "--edit-last" not in SCRIPT.read_text()
