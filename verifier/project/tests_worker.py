"""Worker process: run a project's pytest tests and record, per test, the target functions it executed.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker` (see :mod:`evalgap.verifier.project.tests_map`).
Tracing uses :func:`sys.setprofile` (and :func:`threading.setprofile`) during each test's setup, call and
teardown: every ``call`` event whose code object lives in one of the target files is recorded by its
qualified name (``co_qualname``), so this is *function coverage* of the target per test.

Request keys: ``paths`` (prepended to ``sys.path``), ``tests`` (file or folder), ``files`` (absolute target
file paths to trace), ``rootdir``.

Result keys: ``tests``: list of ``{"nodeid", "outcome", "functions"}``; ``exit_status`` pytest's exit
code; or ``error`` when pytest is missing.
"""

from __future__ import annotations

import os
import sys
import threading
from types import FrameType
from typing import Any

from evalgap.verifier.sandbox import channel


class _Recorder:
    """A pytest plugin: function coverage of the target files per test, and each test's outcome."""

    def __init__(self, files: list[str]) -> None:
        self.files = {os.path.realpath(f) for f in files}
        self.calls: dict[str, set[str]] = {}
        self.outcomes: dict[str, str] = {}
        self._current: set[str] | None = None
        self._known: dict[str, bool] = {}

    def _profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or self._current is None:
            return
        code = frame.f_code
        hit = self._known.get(code.co_filename)
        if hit is None:
            hit = self._known[code.co_filename] = os.path.realpath(code.co_filename) in self.files
        if hit:
            self._current.add(getattr(code, "co_qualname", code.co_name))

    def _wrap(self, nodeid: str) -> Any:
        self._current = self.calls.setdefault(nodeid, set())
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
            self._current = None

    def _hooks(self) -> Any:
        import pytest

        recorder = self

        class Plugin:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_setup(self, item: Any) -> Any:
                yield from recorder._wrap(item.nodeid)

            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_call(self, item: Any) -> Any:
                yield from recorder._wrap(item.nodeid)

            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_teardown(self, item: Any) -> Any:
                yield from recorder._wrap(item.nodeid)

            def pytest_runtest_logreport(self, report: Any) -> None:
                prev = recorder.outcomes.get(report.nodeid)
                if report.when == "call":
                    recorder.outcomes[report.nodeid] = "failed" if report.failed else (
                        "skipped" if report.skipped else "passed")
                elif report.failed:  # setup or teardown failed
                    recorder.outcomes[report.nodeid] = "error"
                elif report.skipped and prev is None:
                    recorder.outcomes[report.nodeid] = "skipped"

        return Plugin()


def main(argv: list[str]) -> int:
    """Run the tests, traced (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    try:
        import pytest
    except ImportError:
        return {"error": "pytest is not installed in evalgap's environment (pip install pytest)"}
    rec = _Recorder(list(req["files"]))
    args = [req["tests"], "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--rootdir", req["rootdir"],
            "-o", "addopts=", "--no-header"]
    with open(os.devnull, "w") as devnull:
        old = sys.stdout
        sys.stdout = devnull
        try:
            status = int(pytest.main(args, plugins=[rec._hooks()]))
        finally:
            sys.stdout = old
    tests = [{"nodeid": n, "outcome": rec.outcomes.get(n, "error"),
              "functions": sorted(f for f in rec.calls.get(n, ()) if f != "<module>")}
             for n in sorted(set(rec.outcomes) | set(rec.calls))]
    return {"tests": tests, "exit_status": status}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
