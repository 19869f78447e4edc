"""Start-up sized to the work (issue 20): a one-requirement spec at ``-j 2`` starts one fork server per
worker kind it needs, not ``jobs`` of each before the requirements are known; Hypothesis's unicode tables
live in one folder per user, not per result-cache folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import evalgap
from enginehelp import write_case
from evalgap.verifier.engines import hypothesis as H
from evalgap.verifier.options import Settings
from evalgap.verifier.sandbox import forkserver


def test_one_requirement_at_two_jobs_starts_one_server_per_kind(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from evalgap.verifier.sandbox import runner

    forkserver.pool().close()  # servers of earlier tests (every hash seed's pool) would answer without starting
    for other in list(runner._SEED_POOLS.values()):
        other.close()
    started: list[str] = []
    original = forkserver.ForkServer.__init__

    def counting(self: forkserver.ForkServer, kind: str, env: dict[str, str]) -> None:
        started.append(kind)
        original(self, kind, env)

    monkeypatch.setattr(forkserver.ForkServer, "__init__", counting)
    spec = write_case(tmp_path, "def f(n: int) -> int:\n    return n if n != 12345 else 0\n")
    report: Any = evalgap.check(spec, settings=Settings(jobs=2, cache=False, analysis=False, budget_s=3.0,
                                                        engines=("crosshair", "hypothesis")))
    assert report.requirements[0].verdict.value == "refuted"
    # one CrossHair server per hash seed (the confirming run's starts with the first run, idle here since the
    # first run refutes), one Hypothesis and one replay server (before: two of each at -j 2; the replay
    # server starts when a counterexample needs replaying), and the signature probe's small one
    assert sorted(started) == ["crosshair", "crosshair", "hypothesis", "replay", "signature-served"], started


def test_hypothesis_tables_are_per_user_not_per_cache_folder(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALGAP_HYPOTHESIS_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    a = H._storage_dir(Settings(cache_dir=tmp_path / "one"))
    b = H._storage_dir(Settings(cache_dir=tmp_path / "two", cache=False))
    assert a == b == str(tmp_path / "xdg" / "evalgap" / "hypothesis-home")
    monkeypatch.setenv("EVALGAP_HYPOTHESIS_HOME", str(tmp_path / "given"))
    assert H._storage_dir(Settings()) == str(tmp_path / "given")


def test_help_lists_the_commands_without_importing_them() -> None:
    """``evalgap --help`` shows each built-in command's own short help from a table, importing neither the
    commands nor the spec language (0.30 CPU s before, 0.11 after on the shared machine)."""
    import importlib
    import subprocess
    import sys

    import click

    from evalgap.research.cli import EXIT_OK
    from evalgap.verifier.cli.main import BUILTIN_COMMANDS, SHORT_HELP
    from evalgap.verifier.report.gap import EXIT_OK as REPORT_EXIT_OK

    assert EXIT_OK == REPORT_EXIT_OK
    assert set(SHORT_HELP) == set(BUILTIN_COMMANDS)
    limit = 78 - 6 - max(len(n) for n in ["check-config", "compare", "import", *BUILTIN_COMMANDS])
    for name, where in BUILTIN_COMMANDS.items():
        module, _, attr = where.partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        assert command.get_short_help_str(limit) == SHORT_HELP[name], name
    code = ("import sys; sys.argv = ['evalgap', '--help']\nfrom evalgap.verifier.cli.main import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('LOADED', sorted(m for m in sys.modules if m.startswith(('evalgap.specs_lang', "
            "'evalgap.verifier.report', 'evalgap.translators'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "check-config" in out.stdout and "Z3 analysis of SPEC" in out.stdout
    assert "LOADED []" in out.stdout, out.stdout[-500:]
