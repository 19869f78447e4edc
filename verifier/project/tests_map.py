"""Map a project's own tests to requirements by tracing which target functions each test executes.

``--tests PATH`` runs the tests once (pytest, in a sandboxed worker: :mod:`evalgap.verifier.project.tests_worker`)
with function coverage of the target file, then a test *exercises* a requirement when it executed every
target function the requirement exercises (:func:`evalgap.verifier.report.traceability.requirement_functions`),
ignoring constructors when the requirement also calls methods (every test builds objects). This is
coverage-based traceability (cf. test-to-code traceability via dynamic analysis), never name matching.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalgap.verifier.errors import UsageError, VerifierError
from evalgap.verifier.findings import TestEvidence
from evalgap.verifier.sandbox.runner import Limits, run_worker
from evalgap.verifier.project.targets import Target

__all__ = ["TestRun", "TestSuiteResult", "run_tests", "tests_for", "TestsError"]


class TestsError(VerifierError):
    """The project's tests could not be run at all (pytest missing, worker killed); the CLI exits 2."""


@dataclass(frozen=True)
class TestRun:
    """One test of the project: its pytest node id, outcome and the target functions it executed."""

    nodeid: str
    outcome: str
    functions: tuple[str, ...]


@dataclass(frozen=True)
class TestSuiteResult:
    """The project's test run (``--tests PATH``).

    Attributes:
        path: the tests path as given.
        tests: every test collected, in node-id order.
        exit_status: pytest's exit code (0 all passed, 1 some failed, 5 none collected, ...).
        elapsed_s: wall-clock seconds of the run.
    """

    path: str
    tests: tuple[TestRun, ...]
    exit_status: int
    elapsed_s: float

    def counts(self) -> dict[str, int]:
        """Outcome -> number of tests (``passed``, ``failed``, ``error``, ``skipped``)."""
        out = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
        for t in self.tests:
            out[t.outcome] = out.get(t.outcome, 0) + 1
        return out


def run_tests(path: Path, target: Target, timeout_s: float = 300.0) -> TestSuiteResult:
    """Run the pytest tests at ``path`` once against ``target`` with per-test function coverage.

    Args:
        path: a test file or folder.
        target: the code under check (its file is traced; its folders go on ``sys.path``).
        timeout_s: wall-clock limit of the whole run, seconds (CPU limit the same).

    Raises:
        UsageError: ``path`` does not exist or the target has no file to trace.
        TestsError: pytest is missing or the worker ended without a result.
    """
    if not path.exists():
        raise UsageError(f"--tests {path}: no such file or folder")
    if target.file is None:
        raise UsageError(f"--tests needs a target given as a file (got module {target.module!r})")
    root = path.resolve() if path.is_dir() else path.resolve().parent
    request = {"paths": [str(root), *target.paths], "tests": str(path.resolve()), "files": [target.file],
               "rootdir": str(root)}
    out = run_worker("tests", request, Limits(cpu_s=timeout_s, wall_s=timeout_s))
    if out.result is None:
        raise TestsError(f"--tests {path}: the test run ended without a result ({out.status}); "
                         f"{out.stderr.strip()[-400:]}")
    if "error" in out.result:
        raise TestsError(f"--tests {path}: {out.result['error']}")
    runs = tuple(TestRun(str(t["nodeid"]), str(t["outcome"]), tuple(t["functions"]))
                 for t in out.result.get("tests", []))
    return TestSuiteResult(str(path), runs, int(out.result.get("exit_status", -1)), out.wall_s)


def tests_for(functions: tuple[str, ...], suite: TestSuiteResult) -> tuple[TestEvidence, ...]:
    """The tests of ``suite`` that exercise a requirement whose target functions are ``functions``.

    A test counts when it executed every one of ``functions``, constructors (``__init__``) excepted when
    the requirement names any other function. An empty ``functions`` matches no test.
    """
    need = [f for f in functions if not f.endswith(".__init__")] or list(functions)
    if not need:
        return ()
    out = []
    for t in suite.tests:
        ran = set(t.functions)
        if all(f in ran for f in need):
            out.append(TestEvidence(t.nodeid, t.outcome, tuple(f for f in functions if f in ran)))
    return tuple(out)
