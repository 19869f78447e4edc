"""The result cache nobody else can write (issue 18): entries authenticated with a per-user key outside the
cache, forged/corrupt/stale entries never served, no ``verified`` under ``sandbox: python-guard``, the
run-time record of the target's inputs, and ``evalgap cache info|clear``."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from enginehelp import run_check, write_case
from evalgap.verifier.cache import ResultCache, entry_key, target_fingerprint
from evalgap.verifier.cachestore import key_path, load_key
from evalgap.verifier.cli.main import cli
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.sandbox.record import RunInputs, classify

_PASS = EngineVerdict("crosshair", Verdict.VERIFIED, "all paths exhausted", Budget(seconds=2.0, paths=3))
_REFUTED = EngineVerdict("crosshair", Verdict.REFUTED, "f(1) returned 0", Budget(seconds=2.0, paths=1), "f(1)",
                         (("n", "1"),))
_KEY = entry_key("crosshair", "code", "fp", {"seconds": 2})


def _entry(cache: ResultCache, key: str = _KEY) -> Path:
    return cache.folder / key[:2] / f"{key}.json"


def test_key_file_is_private_and_outside_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALGAP_CACHE_KEY_FILE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert key_path() == tmp_path / "config" / "evalgap" / "cache.key"
    cache = ResultCache(tmp_path / "cache")
    cache.put(_KEY, _REFUTED)
    key_file = tmp_path / "config" / "evalgap" / "cache.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert not any(p.name == "cache.key" for p in (tmp_path / "cache").rglob("*"))
    assert len(bytes.fromhex(key_file.read_text().strip())) == 32
    assert ResultCache(tmp_path / "cache").get(_KEY) == _REFUTED


def test_a_key_others_can_read_is_not_used(tmp_path: Path) -> None:
    key_file = tmp_path / "k" / "cache.key"
    key, why = load_key(key_file)
    assert key is not None and why == ""
    os.chmod(key_file, 0o644)
    key, why = load_key(key_file)
    assert key is None and "accessible to other users" in why
    cache = ResultCache(tmp_path / "cache", key_file)
    cache.put(_KEY, _REFUTED)
    assert cache.get(_KEY) is None and not list((tmp_path / "cache").rglob("*.json"))


def test_forged_entry_with_recomputed_checksum_is_deleted_not_served(tmp_path: Path) -> None:
    """The attack of tests/adversarial/test_integrity_cache.py, in-process: rewrite a ``refuted`` entry to
    ``verified`` and recompute the old format's SHA-256 of the payload (and a MAC with a key of one's own)."""
    cache = ResultCache(tmp_path)
    cache.put(_KEY, _REFUTED)
    path = _entry(cache)
    entry = json.loads(path.read_text())
    entry["payload"].update(verdict="no-counterexample", counterexample=None, args=[], reproducer=None)
    body = json.dumps(entry["payload"], sort_keys=True)
    entry["sha256"] = hashlib.sha256(body.encode()).hexdigest()
    entry["mac"] = hashlib.sha256(b"guessed" + body.encode()).hexdigest()
    path.write_text(json.dumps(entry))
    fresh = ResultCache(tmp_path)
    assert fresh.get(_KEY) is None and fresh.rejected == 1 and not path.exists()
    # another user's key: the entry lives in another folder and verifies only for its owner
    other = ResultCache(tmp_path, tmp_path / "other-user" / "cache.key")
    assert other.folder != cache.folder and other.get(_KEY) is None


@pytest.mark.parametrize("damage", ["non_utf8", "truncated", "not_json_object", "deep"])
def test_unreadable_entries_are_removed_and_rebuilt(tmp_path: Path, damage: str) -> None:
    cache = ResultCache(tmp_path)
    cache.put(_KEY, _REFUTED)
    path = _entry(cache)
    data = path.read_bytes()
    path.write_bytes({"non_utf8": b"\xff\xfe\x80 not utf-8 \xc3\x28" + data[:20], "truncated": data[: len(data) // 2],
                      "not_json_object": b"[1, 2, 3]", "deep": b"[" * 100_000}[damage])
    assert cache.get(_KEY) is None and not path.exists()
    assert not cache.contains(_KEY)
    cache.put(_KEY, _REFUTED)
    assert cache.get(_KEY) == _REFUTED


def test_python_guard_neither_stores_nor_serves_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_SANDBOX", "python-guard")  # no OS isolation (as on macOS or a locked container)
    cache = ResultCache(tmp_path)
    cache.put(_KEY, _PASS)
    assert not _entry(cache).exists()
    monkeypatch.setenv("EVALGAP_SANDBOX_MODE", "os (test)")
    cache.put(_KEY, _PASS)
    assert cache.get(_KEY) == _PASS
    monkeypatch.delenv("EVALGAP_SANDBOX_MODE")
    assert cache.get(_KEY) is None  # stored under an OS sandbox, not served without one
    cache.put(_KEY, _REFUTED)  # a replayed counterexample is cached under any mode
    assert cache.get(_KEY) == _REFUTED


def test_inputs_are_part_of_the_entry(tmp_path: Path) -> None:
    data = tmp_path / "step.txt"
    data.write_text("1")
    cache = ResultCache(tmp_path / "cache")
    cache.put(_KEY, _REFUTED, RunInputs((str(data),)))
    assert cache.get(_KEY) == _REFUTED
    data.write_text("2")
    assert cache.get(_KEY) is None and cache.rejected == 1  # stale: deleted, re-checked
    cache.put(_KEY, _REFUTED, RunInputs(unenumerable="reads the clock: m.time"))
    assert not _entry(cache).exists()


def _record(**over: object) -> dict[str, object]:
    return {"opened": [], "modules": {}, "dynamic": [], "clock": [], "truncated": False, **over}


def test_classify_records(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "__pycache__").mkdir(parents=True)
    (proj / "target.py").write_text("")
    (proj / "step.txt").write_text("1")
    (proj / "helper.py").write_text("")
    covered = [str(proj / "target.py")]
    rec = _record(opened=[str(proj / "step.txt"), str(proj / "__pycache__" / "helper.cpython-311.pyc"),
                          str(proj / "target.py"), os.__file__, "/dev/null"])
    assert classify([("crosshair", rec)], [str(proj)], covered) == RunInputs(
        (str((proj / "helper.py").resolve()), str((proj / "step.txt").resolve())))
    outside = classify([("crosshair", _record(opened=["/proc/1/environ"]))], [str(proj)], covered)
    assert outside.unenumerable == "read a file outside the project: /proc/1/environ"
    assert "clock" in str(classify([("hypothesis", _record(clock=["target.datetime"]))], [str(proj)], covered)
                          .unenumerable)
    assert "at run time" in str(classify([("crosshair", _record(dynamic=["target.py loaded x"]))], [str(proj)],
                                           covered).unenumerable)
    assert classify([("crosshair", rec), ("replay", None)], [str(proj)], covered).unenumerable
    assert classify([], [str(proj)], covered).unenumerable


def test_globals_lookup_makes_the_fingerprint_cover_the_whole_module(tmp_path: Path) -> None:
    src = ("def _step(x):\n    return x + 1\n\ndef inc(x):\n    return globals()['_st' + 'ep'](x)\n\n"
           "def plain(x):\n    return x\n")
    (tmp_path / "tg.py").write_text(src)
    before = [target_fingerprint("tg", (str(tmp_path),), {n}) for n in ("inc", "plain")]
    (tmp_path / "tg.py").write_text(src.replace("x + 1", "x + 2"))
    after = [target_fingerprint("tg", (str(tmp_path),), {n}) for n in ("inc", "plain")]
    assert before[0] != after[0]  # inc reaches _step only by a computed name
    assert before[1] == after[1]  # plain still re-checks only when its own closure changes


_DATA_TARGET = """\
from pathlib import Path

_STEP = Path(__file__).with_name("step.txt")


def inc(x: int) -> int:
    return x + int(_STEP.read_text(encoding="utf-8"))
"""

_DATA_SPEC = """\
spec t "data file"
  target: {target}

function inc(x: int) -> int
  requirement ST-1 "Adds one."
    ensures result == x + 1
"""


def test_a_data_file_the_target_reads_invalidates_its_entry(tmp_path: Path) -> None:
    spec = write_case(tmp_path, _DATA_TARGET, _DATA_SPEC)
    (tmp_path / "step.txt").write_text("1\n")
    opts = dict(budget_s=2.0, jobs=1, engines=("hypothesis",), cache=True, cache_dir=tmp_path / "cache",
                hypothesis_examples=20)
    first = run_check(spec, **opts)
    assert first[0].verdict is Verdict.NO_COUNTEREXAMPLE, first[0].verdicts
    assert run_check(spec, **opts)[0].verdicts[0].cached
    (tmp_path / "step.txt").write_text("2\n")
    third = run_check(spec, **opts)
    assert third[0].verdict is Verdict.REFUTED and not third[0].verdicts[0].cached


def test_cache_info_and_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_SANDBOX", "python-guard")
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path / "c"))
    cache = ResultCache(tmp_path / "c")
    cache.put(_KEY, _REFUTED)
    size = _entry(cache).stat().st_size
    res = CliRunner().invoke(cli, ["cache", "info"])
    assert res.exit_code == 0, res.output
    assert f"folder: {tmp_path / 'c'}" in res.output and "entries: 1" in res.output
    assert f"size: {size} bytes" in res.output and f"key: {key_path()}" in res.output
    assert "sandbox: python-guard" in res.output
    res = CliRunner().invoke(cli, ["cache", "clear"])
    assert res.exit_code == 0 and "removed 1 entry" in res.output
    assert cache.get(_KEY) is None and key_path().exists()
    assert "entries: 0" in CliRunner().invoke(cli, ["cache", "info"]).output


def test_no_worker_module_touches_the_cache() -> None:
    """Only the parent writes entries: no worker module (nor the sandbox they import) names the cache."""
    import evalgap.verifier as pkg
    from evalgap.verifier.sandbox.workers import WORKERS

    root = Path(pkg.__file__).parent
    sources = [*(root / "sandbox").glob("*.py")]
    import importlib.util

    for w in WORKERS.values():
        spec = importlib.util.find_spec(w.module)  # found, not imported
        assert spec is not None and spec.origin, w.module
        sources.append(Path(spec.origin))
    assert len(sources) > 8
    import ast

    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
        assert not [n for n in names if "verifier.cache" in n or n.endswith(".cache")], (path, names)


_UNENUMERABLE = {
    "clock": "import datetime\n\n\ndef inc(x: int) -> int:\n    return x + 1 if datetime.date.today().year > 1 else x\n",
    "listing": ("from pathlib import Path\n\n\ndef inc(x: int) -> int:\n"
                "    return x + 1 + 0 * len(list(Path(__file__).parent.iterdir()))\n"),
    "import_module": ("import importlib\n\n\ndef inc(x: int) -> int:\n"
                      "    return importlib.import_module('step' + 'per').step(x)\n"),
}


@pytest.mark.parametrize("what", sorted(_UNENUMERABLE))
def test_a_run_whose_inputs_cannot_be_enumerated_is_not_cached(tmp_path: Path, what: str) -> None:
    spec = write_case(tmp_path, _UNENUMERABLE[what], _DATA_SPEC)
    (tmp_path / "stepper.py").write_text("def step(x: int) -> int:\n    return x + 1\n")
    opts = dict(budget_s=2.0, jobs=1, engines=("hypothesis",), cache=True, cache_dir=tmp_path / "cache",
                hypothesis_examples=10)
    assert run_check(spec, **opts)[0].verdict is Verdict.NO_COUNTEREXAMPLE
    again = run_check(spec, **opts)[0]
    assert again.verdict is Verdict.NO_COUNTEREXAMPLE and not again.verdicts[0].cached


def test_a_data_file_of_the_environment_is_an_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A data file under an environment folder (another distribution's table, read by path at run time) is
    an input of the verdict, so a changed table is not answered from the cache; the environment's code files
    (modules, bytecode, metadata) are keyed by the installed-module closure and are not repeated."""
    from evalgap.verifier.sandbox import record as rec_mod

    env = tmp_path / "site-packages"
    (env / "otherdist" / "__pycache__").mkdir(parents=True)
    table = env / "otherdist" / "table.txt"
    table.write_text("7")
    (env / "otherdist" / "mod.py").write_text("")
    (env / "otherdist" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"")
    monkeypatch.setattr(rec_mod, "_environment_roots", lambda: [str(env)])
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "target.py").write_text("")
    rec = _record(opened=[str(table), str(env / "otherdist" / "mod.py"),
                          str(env / "otherdist" / "__pycache__" / "mod.cpython-311.pyc"), str(env / "otherdist")])
    assert classify([("crosshair", rec)], [str(proj)], [str(proj / "target.py")]) == RunInputs(
        (str(table.resolve()),))
