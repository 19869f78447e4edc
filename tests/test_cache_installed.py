"""The result cache on installed-module targets (issue 20): the key covers the installed modules the target
reaches and their distributions, per definition for the target module itself, and a run during which a
covered file or a distribution's metadata changed leaves nothing in the cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evalgap.specs_lang import check_structure, parse_file
from evalgap.verifier.cache import static_inputs, target_fingerprint
from evalgap.verifier.cachedeps import installed_closure, worker_path
from evalgap.verifier.engines import run as engine_run
from evalgap.verifier.findings import Budget, EngineVerdict, RequirementResult, Verdict
from evalgap.verifier.options import Settings
from evalgap.verifier.project.targets import resolve_target
from evalgap.verifier.sandbox import record

PKG = """\
import egdep

TABLE = "table.txt"


def _twice(n: int) -> int:
    return 2 * n


def f(n: int) -> int:
    return _twice(n) - n


def g(n: int) -> int:
    return egdep.inc(n)
"""

DEP = "def inc(n: int) -> int:\n    return n + 1\n"

SPEC = """\
spec inst "installed target"
  target: egpkg

function f(n: int) -> int
  requirement F-1 "Returns its argument."
    ensures result == n

function g(n: int) -> int
  requirement G-1 "Returns one more than its argument."
    ensures result == n + 1
"""


def _install(site: Path) -> None:
    """An installed-like package ``egpkg`` 1.0 (``top_level.txt``) and a module ``egdep`` 2.0 (``RECORD``
    only) in the site folder ``site``."""
    (site / "egpkg").mkdir(parents=True)
    (site / "egpkg" / "__init__.py").write_text(PKG)
    (site / "egpkg" / "table.txt").write_text("1\n")
    (site / "egdep.py").write_text(DEP)
    info = site / "egpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: egpkg\nVersion: 1.0\n")
    (info / "top_level.txt").write_text("egpkg\n")
    dep = site / "egdep-2.0.dist-info"
    dep.mkdir()
    (dep / "METADATA").write_text("Metadata-Version: 2.1\nName: egdep\nVersion: 2.0\n")
    (dep / "RECORD").write_text("egdep.py,sha256=x,1\negdep-2.0.dist-info/METADATA,,\n")


@pytest.fixture()
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary site folder on ``PYTHONPATH`` (which the workers keep) and on this process's path."""
    folder = tmp_path / "site"
    _install(folder)
    monkeypatch.setenv("PYTHONPATH", str(folder))
    monkeypatch.syspath_prepend(str(folder))
    worker_path.cache_clear()
    yield folder
    worker_path.cache_clear()


def test_the_key_covers_installed_modules_per_definition(site: Path, tmp_path: Path) -> None:
    project = (str(tmp_path / "project"),)  # where the spec lives: egpkg is not there

    def fps() -> tuple[str | None, str | None]:
        return target_fingerprint("egpkg", project, {"f"}), target_fingerprint("egpkg", project, {"g"})

    f0, g0 = fps()
    assert f0 is not None and g0 is not None and f0 != g0
    init = site / "egpkg" / "__init__.py"
    init.write_text(PKG.replace("return egdep.inc(n)", "return n + 1"))
    f1, g1 = fps()
    assert f1 == f0 and g1 != g0  # changing g leaves f's key alone
    init.write_text(PKG.replace("2 * n", "n + n"))
    assert fps()[0] != f0  # f reaches _twice
    init.write_text(PKG)
    assert fps() == (f0, g0)
    (site / "egdep.py").write_text(DEP + "# changed\n")
    assert fps()[1] != g0  # an installed module the target imports (another distribution)
    (site / "egdep.py").write_text(DEP)
    meta = site / "egpkg-1.0.dist-info" / "METADATA"
    meta.write_text(meta.read_text().replace("1.0", "1.1"))
    assert fps()[0] != f0  # the distribution's metadata (its version)
    meta.write_text(meta.read_text().replace("1.1", "1.0"))
    assert fps() == (f0, g0)
    files, roots = static_inputs("egpkg", project)
    assert str(site / "egpkg" / "__init__.py") in files and str(site / "egdep.py") in files
    assert {str(site / "egpkg"), str(site / "egpkg-1.0.dist-info"), str(site / "egdep-2.0.dist-info")} <= set(roots)
    closure = installed_closure((), project, target="egpkg")
    assert [d for d, _ in closure.dists] == ["egdep-2.0.dist-info", "egpkg-1.0.dist-info"]
    assert target_fingerprint("no_such_module_anywhere", project, {"f"}) is None


def test_standard_library_targets_are_keyed_and_stop_at_the_standard_library(tmp_path: Path) -> None:
    fp = target_fingerprint("json", (str(tmp_path),), {"dumps"})
    assert fp is not None and fp == target_fingerprint("json", (str(tmp_path),), {"dumps"})
    assert installed_closure((), (str(tmp_path),), target="json").modules == ()  # json imports only stdlib
    (tmp_path / "json.py").write_text("def dumps(x: object) -> str:\n    return ''\n")  # shadowed by the project
    assert target_fingerprint("json", (str(tmp_path),), {"dumps"}) != fp


def _check(spec: Path, cache_dir: Path) -> list[RequirementResult]:
    parsed = parse_file(spec)
    source = spec.read_text(encoding="utf-8")
    check_structure(parsed, source)
    assert parsed.target is not None
    target = resolve_target(parsed.target, spec.parent.resolve())
    assert target.file is None and target.paths == (str(spec.parent.resolve()),)  # an installed module
    opts = Settings(budget_s=2.0, jobs=1, engines=("crosshair",), cache=True, cache_dir=cache_dir)
    return engine_run.check_spec(parsed, source, target, opts)


@pytest.mark.adversarial
@pytest.mark.parametrize("edit", ["nothing", "own source", "own source, restored during the run", "dist metadata",
                                  "data file"])
def test_an_edit_during_the_run_leaves_no_stale_verified(site: Path, tmp_path: Path, edit: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in engine run (the edit is what a target could do where its site folder were writable; the OS
    sandbox forbids it) edits a file the key covers, the distribution's metadata, or a data file the run read;
    the run's ``verified`` must not be served afterwards. ``nothing`` shows the cache would serve it."""
    monkeypatch.setenv("EVALGAP_SANDBOX_MODE", "os (test)")
    (tmp_path / "project").mkdir()
    spec = tmp_path / "project" / "inst.req"
    spec.write_text(SPEC)
    runs: list[str] = []

    def fake(engine: str, req: object, *args: object, **kwargs: object) -> EngineVerdict:
        req_id = str(getattr(req, "id"))
        runs.append(req_id)
        table = site / "egpkg" / "table.txt"
        init = site / "egpkg" / "__init__.py"
        if len(runs) == 1:  # during the first run only
            if edit.startswith("own source"):
                init.write_text(PKG + "\nimport os  # rewritten during the run\n")
                if edit.endswith("restored during the run"):  # the key before and after agree
                    init.write_text(PKG)
            elif edit == "dist metadata":
                meta = site / "egpkg-1.0.dist-info" / "METADATA"
                meta.write_text(meta.read_text() + "Summary: rewritten during the run\n")
            elif edit == "data file":
                table.write_text("2\n")
        record.note("crosshair", {"inputs": {"opened": [str(table)], "modules": {}, "dynamic": [], "clock": [],
                                             "truncated": False}})
        return EngineVerdict("crosshair", Verdict.VERIFIED, "all paths exhausted",
                             Budget(seconds=2.0, used_s=0.1, paths=1))

    monkeypatch.setattr(engine_run, "_run_engine", fake)
    cache_dir = tmp_path / "cache"
    first = _check(spec, cache_dir)
    assert [r.verdict for r in first] == [Verdict.VERIFIED, Verdict.VERIFIED]
    if edit != "data file":  # the files as they were when the first run started (its key)
        (site / "egpkg" / "__init__.py").write_text(PKG)
        (site / "egpkg-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: egpkg\nVersion: 1.0\n")
    second = {r.id: r.verdicts[0].cached for r in _check(spec, cache_dir)}
    if edit == "nothing":
        assert second == {"F-1": True, "G-1": True}
    else:  # the requirement whose run saw the edit is checked again
        assert second[runs[0]] is False
        assert runs[0] in runs[2:]


def test_startup_hooks_are_in_every_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``.pth`` file (its ``import`` lines run in every worker) or a ``sitecustomize`` added or changed
    since a verdict was stored changes the start-up fingerprint the cache key holds."""
    from evalgap.verifier import cachedeps

    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(cachedeps, "_site_dirs", lambda: [str(site)])
    monkeypatch.setattr(cachedeps, "worker_path", lambda: (str(site),))
    empty = cachedeps.startup_fingerprint()
    assert cachedeps.startup_fingerprint() == empty  # stable
    (site / "hook.pth").write_text("import os\n", encoding="utf-8")
    with_pth = cachedeps.startup_fingerprint()
    assert with_pth != empty
    (site / "hook.pth").write_text("import sys; sys.modules.clear()\n", encoding="utf-8")
    changed = cachedeps.startup_fingerprint()
    assert changed not in (empty, with_pth)
    (site / "sitecustomize.py").write_text("x = 1\n", encoding="utf-8")
    assert cachedeps.startup_fingerprint() not in (empty, with_pth, changed)
