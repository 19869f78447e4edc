"""Verdict integrity (issue 18): the result cache (``EVALGAP_CACHE_DIR``).

A cached verdict is served without running anything, so the cache must never turn a wrong program into a
pass: not when another target rewrites entries, not when an entry is corrupt, not when the behaviour comes
from something the cache key does not cover. Each scenario is a chain of commands; the chains are
independent and run in parallel on first use (:func:`_scenario`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from integrity_helpers import (CACHE_POISONER, NOT_PASSING, VICTIM, Run, cache_entries, check,
                               fresh_dir, parallel, plus_one_spec, sandbox, snapshot, write_project)

pytestmark = pytest.mark.adversarial

#: scenario name -> its runs in order, and a note (what the attack managed) for assertion messages.
Outcome = tuple[list[Run], str]


def _poison() -> Outcome:
    root = fresh_dir("cache-poison")
    cache = root / "shared-cache"
    victim = write_project(root / "victim", VICTIM)
    attacker = write_project(root / "attacker", {
        "target.py": CACHE_POISONER, "attacker.req": plus_one_spec("attacker", "target.py", [("inc", "AT-1")])})
    first = check(victim / "victim.req", sandbox(root / "user-v", cache))
    before = snapshot(cache_entries(cache))
    attack = check(attacker / "attacker.req", sandbox(root / "user-a", cache))
    after = snapshot(before)
    changed = sum(1 for p, data in before.items() if after.get(p) != data)
    again = check(victim / "victim.req", sandbox(root / "user-v", cache))
    return [first, attack, again], f"the attacker rewrote {changed} of {len(before)} cache entries"


def _corrupt(how: str) -> Callable[[], Outcome]:
    def chain() -> Outcome:
        root = fresh_dir(f"cache-corrupt-{how}")
        victim = write_project(root / "victim", VICTIM)
        box = sandbox(root)
        first = check(victim / "victim.req", box)
        entries = cache_entries(box.cache)
        for path in entries:
            data = path.read_bytes()
            if how == "non_utf8":
                path.write_bytes(b"\xff\xfe\x80 not utf-8 \xc3\x28" + data[: len(data) // 3])
            else:
                path.write_bytes(data[: len(data) // 2])
        second = check(victim / "victim.req", box)
        third = check(victim / "victim.req", box)
        return [first, second, third], f"{len(entries)} entries corrupted ({how})"
    return chain


_STALE_SPEC = plus_one_spec("stale", "target.py", [("inc", "ST-1")])

#: name -> (files of the correct version, files that make it wrong); the wrong version's target.py, when
#: changed, differs only where the cache key does not look.
_STALE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "data_file": ({
        "target.py": '''
            from pathlib import Path

            _STEP = Path(__file__).with_name("step.txt")


            def inc(x: int) -> int:
                return x + int(_STEP.read_text(encoding="utf-8"))
            ''',
        "step.txt": "1\n"}, {"step.txt": "2\n"}),
    "import_module": ({
        "target.py": '''
            import importlib


            def inc(x: int) -> int:
                return importlib.import_module("stepper").step(x)
            ''',
        "stepper.py": '''
            def step(x: int) -> int:
                return x + 1
            '''}, {"stepper.py": '''
            def step(x: int) -> int:
                return x + 2
            '''}),
    "globals_lookup": ({
        "target.py": '''
            def _step(x: int) -> int:
                return x + 1


            def inc(x: int) -> int:
                return globals()["".join(("_st", "ep"))](x)
            '''}, {"target.py": '''
            def _step(x: int) -> int:
                return x + 2


            def inc(x: int) -> int:
                return globals()["".join(("_st", "ep"))](x)
            '''}),
}


def _stale(name: str) -> Callable[[], Outcome]:
    def chain() -> Outcome:
        correct, wrong = _STALE[name]
        folder = write_project(fresh_dir(f"stale-{name}"), {**correct, "stale.req": _STALE_SPEC})
        box = sandbox(folder)
        first = check(folder / "stale.req", box)
        write_project(folder, wrong)
        second = check(folder / "stale.req", box)
        return [first, second], f"changed {sorted(wrong)} between the runs"
    return chain


_OUTCOMES: dict[str, Outcome] = {}


def _scenario(name: str) -> Outcome:
    """The runs of scenario ``name``; the first call runs every scenario of this file (in parallel)."""
    if not _OUTCOMES:
        jobs: dict[str, Callable[[], Outcome]] = {"poison": _poison, "corrupt_non_utf8": _corrupt("non_utf8"),
                                                  "corrupt_truncated": _corrupt("truncated"),
                                                  **{f"stale_{n}": _stale(n) for n in _STALE}}
        _OUTCOMES.update(zip(jobs, parallel(list(jobs.values()))))
    return _OUTCOMES[name]


def _cached_pass(run: Run, req_id: str) -> bool:
    return any(v.get("cached") and v["verdict"] in ("verified", "no-counterexample")
               for v in run.requirement(req_id)["verdicts"])


@pytest.mark.adversarial
def test_poisoned_cache_does_not_verify_another_project() -> None:
    """Attack: a target that, at import time, finds the cache folder (its environment or an ancestor's
    ``/proc/PID/environ``) and rewrites another project's ``refuted`` entries to passes, checksums
    recomputed. Promise: that project, checked again, is still ``refuted`` (never ``verified (cached)``) and
    exits 1."""
    (first, _attack, again), note = _scenario("poison")
    assert first.verdict("VC-1") == "refuted", "premise: " + first.describe("VC-1")
    assert again.verdict("VC-1") == "refuted", f"{note}; then:\n{again.describe('VC-1')}"
    assert not _cached_pass(again, "VC-1"), again.describe("VC-1")
    assert again.rc == 1, again.describe("VC-1")


def _assert_rebuilt(how: str) -> None:
    (first, second, third), note = _scenario(f"corrupt_{how}")
    assert first.verdict("VC-1") == "refuted", "premise: " + first.describe("VC-1")
    for label, run in (("next run", second), ("the run after", third)):
        assert "Traceback" not in run.stderr, f"{note}; {label} crashed:\n{run.stderr[-3000:]}"
        assert run.rc == 1, f"{note}; {label}: exit {run.rc}:\n{run.stderr[-2000:]}"
        assert run.verdict("VC-1") == "refuted", f"{note}; {label}:\n{run.describe('VC-1')}"


@pytest.mark.adversarial
def test_non_utf8_cache_entries_are_rebuilt() -> None:
    """Attack/accident: every cache entry of a refuted project overwritten with bytes that are not UTF-8.
    Promise: the next run does not crash (exit 1, a JSON report, no traceback) and gives the true verdict
    ``refuted``; so does the run after it (nothing is pinned to ``unknown`` or to a crash)."""
    _assert_rebuilt("non_utf8")


@pytest.mark.adversarial
def test_truncated_cache_entries_are_rebuilt() -> None:
    """Attack/accident: every cache entry of a refuted project truncated to half its length. Promise: as
    for non-UTF-8 entries, the next two runs exit 1 with the true verdict ``refuted``."""
    _assert_rebuilt("truncated")


def _assert_not_stale(name: str) -> None:
    (first, second), note = _scenario(f"stale_{name}")
    assert first.verdict("ST-1") in ("verified", "no-counterexample"), "premise: " + first.describe("ST-1")
    assert second.verdict("ST-1") in NOT_PASSING, f"{note}; stale verdict served:\n{second.describe('ST-1')}"
    assert not _cached_pass(second, "ST-1"), second.describe("ST-1")
    assert second.rc != 0, second.describe("ST-1")


@pytest.mark.adversarial
def test_behaviour_from_data_file_is_not_served_stale() -> None:
    """Attack: ``inc`` adds the number in ``step.txt`` next to it; checked with ``1`` (correct), then the
    file says ``2``. Promise: the second check is refuted or unknown, not the stale ``verified``."""
    _assert_not_stale("data_file")


@pytest.mark.adversarial
def test_behaviour_from_import_module_is_not_served_stale() -> None:
    """Attack: ``inc`` calls ``importlib.import_module("stepper").step``; checked with a correct
    ``stepper.py``, then ``stepper.py`` is made wrong. Promise: the second check is refuted or unknown."""
    _assert_not_stale("import_module")


@pytest.mark.adversarial
def test_behaviour_from_globals_lookup_is_not_served_stale() -> None:
    """Attack: ``inc`` calls ``globals()[computed name]`` (``_step``); checked with a correct ``_step``, then
    ``_step`` is made wrong (``inc`` unchanged). Promise: the second check is refuted or unknown."""
    _assert_not_stale("globals_lookup")
