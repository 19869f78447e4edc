"""Adversarial sandbox suite (issue 17): hostile targets run through the real commands.

Each test builds one hostile target (one attack of :mod:`attacks`, run at import time or at call time),
runs ``evalgap check``, ``evalgap lint`` or ``evalgap gate`` on it as a user would (the console script, an
explicit environment whose ``HOME`` and ``EVALGAP_CACHE_DIR`` are canaries under the test's folder), and
asserts the sandbox's promise (:meth:`hostile.Arena.leaks`):

* nothing outside the job's folder changed: the project (spec and target), the fake home and the cache's
  canary tree hash the same (contents, modes, symlinks, entries), and no file carrying the target's token
  exists anywhere under the test's folder or in the system's temporary folder;
* no connection reached the localhost listener;
* no process carrying the token is left once the command returned (after a bounded wait for the delayed
  attacks, which are then checked again for their late effects);
* the command ended by itself with a report and an exit code of evalgap's (never killed, never 137).

These tests state the promise of an OS sandbox, not today's behaviour: the audit-hook guard of today does not
see libc calls made through ``ctypes``, descriptor-relative calls, SQLite, FIFOs or signals sent by libc (and
some workers, such as lint's signature probe and the gate's behaviour diff, run without it), so most of them
fail until the namespace and Landlock sandbox lands. They are not marked xfail on purpose. The control attack
``none`` (a well-behaved target) must pass everywhere: it shows that a failure is the target's doing.

``lint`` only imports the target (its signature probe) and never calls ``f``, so it runs the import-time
attacks only. ``check`` runs with a 1 s budget and no Z3 analysis: CrossHair for import-time attacks (any
worker that imports the target runs them), CrossHair and Hypothesis (symbolic and concrete calls) for
call-time ones. ``gate`` checks a head commit that introduces the hostile target over a benign base
(requirements on both versions, then the behaviour diff).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from attacks import ATTACKS, PHASES, Attack, target_source
from hostile import BENIGN_TARGET, SPEC, Arena, Outcome, git

pytestmark = pytest.mark.adversarial

#: Exit codes of evalgap that come with a report (2, a usage or spec error, comes with a message).
_REPORT_CODES = {0, 1, 3}
_CHECK_ARGS = ["-f", "json", "--budget", "1", "--no-analysis", "-j", "2"]
#: Engines per phase: an import-time attack runs as soon as any worker imports the target (CrossHair's is
#: enough); a call-time one runs under CrossHair's symbolic and Hypothesis's concrete calls.
_ENGINES = {"import": "crosshair", "call": "crosshair,hypothesis"}
_GATE_ARGS = ["--base", "main", "--head", "head", "--budget", "1", "--diff-budget", "1", "-j", "2",
              "--format", "json"]

#: (attack, phase) pairs; the control ``none`` runs once (its two phases are the same target).
_MATRIX = [pytest.param(name, phase, id=f"{name}-{phase}") for name in ATTACKS for phase in PHASES
           if name != "none" or phase == "call"]


@pytest.fixture
def arena(tmp_path: Path, hypothesis_home: Path) -> Iterator[Arena]:
    """A fresh world for one hostile target; afterwards its leftovers (token-carrying processes, markers in
    the system's temporary folder, folder modes) are cleaned up."""
    world = Arena.create(tmp_path, hypothesis_home)
    try:
        yield world
    finally:
        world.close()


def _hostile(arena: Arena, attack: Attack, phase: str) -> str:
    """The hostile target's source, aimed at this arena's canaries, listener and spec."""
    config: dict[str, object] = {
        "TOKEN": arena.token, "CANARY_DIRS": [str(d) for d in arena.canary_dirs],
        "GLOBAL_PREFIX": arena.global_prefix, "SPEC_FILES": [str(arena.project / "spec.req")],
        "PORT": arena.listener.port, "STOP_PID": os.getpid(),
    }
    source: str = target_source(attack, phase, config)
    return source


def _write_project(arena: Arena, attack: Attack, phase: str) -> None:
    """The project: ``spec.req`` and the hostile ``tgt.py`` beside the canary ``pkg/``."""
    (arena.project / "spec.req").write_text(SPEC, encoding="utf-8")
    (arena.project / "tgt.py").write_text(_hostile(arena, attack, phase), encoding="utf-8")
    arena.snapshot()


def _write_gate_repo(arena: Arena, attack: Attack, phase: str) -> None:
    """The project as a git repository: ``main`` (spec, benign ``tgt.py``, canary ``pkg/``) and ``head``, one
    commit that makes ``tgt.py`` hostile."""
    repo = arena.project
    git(repo, "init", "-q", "-b", "main")
    (repo / "spec.req").write_text(SPEC, encoding="utf-8")
    (repo / "tgt.py").write_text(BENIGN_TARGET, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base: a benign target")
    git(repo, "checkout", "-q", "-b", "head")
    (repo / "tgt.py").write_text(_hostile(arena, attack, phase), encoding="utf-8")
    git(repo, "commit", "-q", "-am", f"head: the target carries attack {attack.name} ({phase})")
    arena.snapshot()


def _verdicts(outcome: Outcome) -> dict[str, str]:
    """Requirement id -> overall verdict of a JSON report (empty without one)."""
    report = outcome.json_report() or {}
    return {str(r.get("id")): str(r.get("verdict")) for r in report.get("requirements", [])
            if isinstance(r, dict)}


def _ended_with_report(outcome: Outcome, codes: set[int], json_report: bool) -> list[str]:
    """Problems with how a command ended: killed, timed out, an exit code without a report."""
    if outcome.returncode is None:
        return [f"evalgap {outcome.args[0]} did not end within its timeout (its process group was killed)"]
    if outcome.returncode not in codes:
        return [f"evalgap {outcome.args[0]} ended with exit code {outcome.returncode} (expected one of "
                f"{sorted(codes)}; negative = killed by that signal)"]
    if json_report and not isinstance((outcome.json_report() or {}).get("requirements"), list):
        return [f"evalgap {outcome.args[0]} printed no JSON report with requirements"]
    if not json_report and not outcome.stdout.strip():
        return [f"evalgap {outcome.args[0]} printed no report"]
    return []


def _assert_contained(arena: Arena, attack: Attack, outcomes: list[Outcome], problems: list[str]) -> None:
    """Fail with every broken promise: how the commands ended (``problems``), then the leaks."""
    problems = problems + arena.leaks(late_s=2.5 if attack.delayed else 0.0)
    if problems:
        runs = "\n\n".join(o.describe() for o in outcomes)
        pytest.fail(f"attack {attack.name}: {attack.doc}\n\nbroken promises:\n  " + "\n  ".join(problems)
                    + f"\n\n{runs}", pytrace=False)


@pytest.mark.parametrize(("name", "phase"), _MATRIX)
def test_check_contains_hostile_target(arena: Arena, name: str, phase: str) -> None:
    """``evalgap check`` on a hostile target: the promise holds (module docstring), and for the
    self-certifying target a second run reports the same verdicts as the first."""
    attack = ATTACKS[name]
    _write_project(arena, attack, phase)
    args = ["check", "spec.req", *_CHECK_ARGS, "--engines", _ENGINES[phase]]
    first = arena.run(args)
    outcomes = [first]
    problems = _ended_with_report(first, _REPORT_CODES, json_report=True)
    if attack.rerun:
        second = arena.run(args)
        outcomes.append(second)
        problems += _ended_with_report(second, _REPORT_CODES, json_report=True)
        if _verdicts(second) != _verdicts(first):
            problems.append(f"the next run changed the verdicts: {_verdicts(first)} -> {_verdicts(second)}")
    _assert_contained(arena, attack, outcomes, problems)


@pytest.mark.parametrize("name", list(ATTACKS))
def test_lint_contains_hostile_target(arena: Arena, name: str) -> None:
    """``evalgap lint`` imports the hostile target (phase import) to read its signatures: the promise holds
    and lint ends with its verdict on the spec (exit 0 or 2)."""
    attack = ATTACKS[name]
    _write_project(arena, attack, "import")
    outcome = arena.run(["lint", "spec.req"])
    _assert_contained(arena, attack, [outcome], _ended_with_report(outcome, {0, 2}, json_report=False))


@pytest.mark.parametrize(("name", "phase"), _MATRIX)
def test_gate_contains_hostile_change(arena: Arena, name: str, phase: str) -> None:
    """``evalgap gate`` on a change that introduces the hostile target: the promise holds for the working
    tree and the repository (``.git`` included) as well as the canaries, and the gate ends with a report."""
    attack = ATTACKS[name]
    _write_gate_repo(arena, attack, phase)
    outcome = arena.run(["gate", ".", "--spec", "spec.req", *_GATE_ARGS])
    _assert_contained(arena, attack, [outcome], _ended_with_report(outcome, _REPORT_CODES, json_report=True))
