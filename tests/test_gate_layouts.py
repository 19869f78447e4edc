"""Real project layouts in the gate (issue 28): a ``src/``-layout package with relative imports and one
third-party dependency (a tiny local wheel, installed offline with ``--install-deps``), the spec inside the
repository naming its target relative to the repository, and test files found by the project's pytest
configuration (``testpaths``, ``python_files``) and a root ``test.py``."""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import zipfile
from pathlib import Path

import pytest

from egtest import run_cli
from gate_repos import git

from evalgap.verifier.gate.layout import project_dependencies, pytest_test_globs
from evalgap.verifier.project.targets import resolve_target

PYPROJECT = """\
[project]
name = "wordy"
version = "0.1"
dependencies = ["tinydep>=0.1"]

[tool.pytest.ini_options]
testpaths = ["checks"]
python_files = ["check_*.py"]
"""
SPEC = """\
spec wordy "word counts"
  target: src/wordy/core.py

function count_words(text: str) -> int
  requirement W-1 "Counts the words separated by white space."
    ensures result == len(text.split())
"""
CORE = """\
import tinydep

from ._util import norm


def count_words(text: str) -> int:
    return tinydep.count(norm(text)){tail}
"""


def _wheel(folder: Path) -> Path:
    """A minimal pure-Python wheel of ``tinydep`` (a third-party package the project depends on)."""
    files = {"tinydep/__init__.py": "def count(s):\n    return len(s.split())\n",
             "tinydep-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 0.1\n",
             "tinydep-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: evalgap-test\nRoot-Is-Purelib: true\n"
                                            "Tag: py3-none-any\n"}
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append("tinydep-0.1.dist-info/RECORD,,")
    folder.mkdir(parents=True)
    path = folder / "tinydep-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr("tinydep-0.1.dist-info/RECORD", "\n".join(record) + "\n")
    return path


def _repo(root: Path) -> Path:
    repo = root / "repo"
    for rel, text in {"pyproject.toml": PYPROJECT, "specs/wordy.req": SPEC, "src/wordy/__init__.py": "",
                      "src/wordy/_util.py": "def norm(s):\n    return s.strip()\n",
                      "src/wordy/core.py": CORE.format(tail=""),
                      "checks/check_core.py": "def check_one():\n    pass\n", "test.py": "print('ok')\n"}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "src/wordy/core.py").write_text(CORE.format(tail=" + (1 if len(text) > 3 else 0)"), encoding="utf-8")
    (repo / "checks/check_core.py").write_text("def check_one():\n    assert True\n", encoding="utf-8")
    (repo / "test.py").write_text("print('still ok')\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "head: counts one word too many on longer texts")
    return repo


def test_a_package_module_is_its_package_s_module(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    t = resolve_target("src/wordy/core.py", repo)
    assert (t.module, t.paths) == ("wordy.core", (str((repo / "src").resolve()),))
    assert project_dependencies(repo) == ("tinydep>=0.1",)
    globs = pytest_test_globs(repo)
    assert {"test.py", "checks/**/*.py", "check_*.py", "**/check_*.py"} <= set(globs)


@pytest.mark.slow
def test_gate_on_a_src_layout_package_with_a_dependency(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path)
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline: the dependency comes from a local wheel folder
    monkeypatch.setenv("PIP_FIND_LINKS", str(_wheel(tmp_path / "wheels").parent))
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path / "cache"))
    res = run_cli("gate", str(repo), "--spec", "specs/wordy.req", "--budget", "3", "--install-deps", "-f", "json")
    report = json.loads(res.stdout)
    assert res.exit_code == 1, res.stdout
    [req] = report["requirements"]
    assert req["id"] == "W-1" and req["transition"] == "broken" and req["head_verdict"] == "refuted"
    assert req["base_verdict"] == "no-counterexample"  # base imports (relative import + tinydep) and holds
    assert report["target"] == "src/wordy/core.py"
    assert [c["file"] for c in report["changed"]] == ["src/wordy/core.py"]
    assert any("checks/check_core.py" in n and "test.py" in n for n in report["notes"])
    assert any("dependencies installed" in n and "tinydep" in n for n in report["notes"])
    [outcome] = report["behavior_diffs"]
    assert outcome["status"] == "differs", outcome
    # the behaviour change is replayed and listed under the requirement it breaks
    assert req["differences"] and req["differences"][0]["classification"] == "breaks"
    diff = req["differences"][0]
    assert len(diff["arguments"]["text"].strip("'\"")) > 3 and diff["head"] != diff["base"]
    assert (tmp_path / "cache" / "deps").is_dir()


def test_a_generated_version_module_is_written_when_missing(tmp_path: Path) -> None:
    from evalgap.verifier.gate.layout import write_version_files

    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[tool.hatch]\nbuild.hooks.vcs.version-file = "src/pkg/_version.py"\n',
                                             encoding="utf-8")
    assert write_version_files(tmp_path) == ["src/pkg/_version.py"]
    assert "__version__ = " in (tmp_path / "src/pkg/_version.py").read_text(encoding="utf-8")
    assert write_version_files(tmp_path) == []  # present now: never overwritten


def test_the_history_benchmark_skips_a_project_it_cannot_fetch(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "gate_history.py"
    spec = importlib.util.spec_from_file_location("gate_history_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    spec.loader.exec_module(bench)
    project = {"mirror": "nobody+nothing", "url": str(tmp_path / "no-such-repo")}
    assert bench.fetch("nothing", project, tmp_path / "mirrors", tmp_path / "work") is None
    assert "skipped nothing: cannot fetch it" in capsys.readouterr().err
    # a local mirror (a bare repository) is cloned
    src = tmp_path / "src"
    src.mkdir()
    git(src, "init", "-q", "-b", "main")
    (src / "a.py").write_text("x = 1\n", encoding="utf-8")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "one")
    (tmp_path / "mirrors" / "nobody+nothing").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(src), str(tmp_path / "mirrors" / "nobody+nothing" / "repo"))
    clone = bench.fetch("nothing", project, tmp_path / "mirrors", tmp_path / "work")
    assert clone is not None and (clone / "a.py").read_text(encoding="utf-8") == "x = 1\n"
