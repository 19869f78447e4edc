"""Worker process: explore the event-loop schedules of one ``check_...`` function of a harness.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. For each input Hypothesis draws (the
scenario's parameters; none: one input), the check function runs under
:func:`evalgap.verifier.engines.schedloop.explore`: every event loop the target starts is controlled, and the
schedules are searched depth-first within the delay and depth bounds, then by PCT when that search was cut
short. A failing schedule stops the search; Hypothesis then shrinks the input (each candidate explored
again, deterministically).

Request keys: ``paths``, ``harness``, ``function``, ``strategies`` (Hypothesis strategy source per
parameter), ``max_examples``, ``bounds`` (``schedules``, ``delays``, ``depth``, ``pct_runs``, ``pct_depth``,
``max_steps``), ``storage_dir`` (Hypothesis's shared unicode tables, as for the hypothesis worker).

Result keys: ``outcome`` one of ``passed``, ``failed`` (``args``: the input as Python source per parameter,
``schedule``: the failing choices, ``exception``), ``step-limit`` (a run did not end within ``max_steps``
steps), ``unsatisfiable``, ``error`` (``stage``, ``message``); plus ``examples`` (inputs explored),
``schedules`` (runs in all), ``exhaustive`` (inputs whose depth-first search ran out of schedules within its
bounds), ``complete`` (inputs for which no bound cut a branch: every schedule ran), ``pct`` (inputs that also
had PCT runs), ``max_width`` (most callbacks ready at once) and ``blocked``.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import icontract

from evalgap.verifier.engines import schedloop
from evalgap.verifier.engines.hypothesis_worker import _warm_unicode_tables, prepare, py_source
from evalgap.verifier.sandbox import channel, enforcement

__all__ = ["main", "prepare"]


def main(argv: list[str]) -> int:
    """Explore one requirement's schedules (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    from hypothesis import HealthCheck, Phase, given, reject, settings
    from hypothesis import strategies as st
    from hypothesis.errors import Unsatisfiable

    failed = enforcement.enforcement_error("schedules")
    if failed is not None:
        return failed
    _warm_unicode_tables(req.get("storage_dir"))
    ch.watch_modules(("icontract", "hypothesis"))
    ch.install_guard()
    ch.start_record()
    try:
        harness = ch.import_harness(req["harness"])
        fn = getattr(harness, req["function"])
        ch.watch_function(f"{req['harness']}.{req['function']}", fn)
        ch.watch(req["harness"], harness)
        namespace = dict(vars(harness))
        namespace["st"] = st
        strategies = [eval(src, namespace) for src in req["strategies"]]  # noqa: S307 - our own translation
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"outcome": "error", "stage": "import", "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-3000:]}
    b = req["bounds"]
    stats: dict[str, Any] = {"examples": 0, "schedules": 0, "exhaustive": 0, "complete": 0, "pct": 0,
                             "max_width": 1}
    found: dict[str, Any] = {}

    def explore(args: tuple[Any, ...]) -> None:
        shown = [py_source(a) for a in args]
        ex = schedloop.explore(lambda: fn(*args), int(b["schedules"]), int(b["delays"]), int(b["depth"]),
                               int(b["pct_runs"]), int(b["pct_depth"]), max_steps=int(b["max_steps"]))
        exc = ex.failure
        if isinstance(exc, icontract.ViolationError) and "\n[pre] " in "\n" + str(exc):
            reject()
        stats["examples"] += 1
        stats["schedules"] += ex.schedules
        stats["exhaustive"] += ex.exhaustive
        stats["complete"] += ex.complete
        stats["pct"] += ex.schedules > ex.dfs
        stats["max_width"] = max(stats["max_width"], ex.max_width)
        if ex.step_limit:
            found.update(step_limit=shown)
            raise AssertionError("step limit")
        if exc is not None:
            found.update(args=shown, schedule=ex.schedule, exception=f"{type(exc).__name__}: {str(exc)[:1500]}")
            raise AssertionError("a schedule failed")

    test = given(st.tuples(*strategies))(explore)
    test = settings(max_examples=int(req["max_examples"]), derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False,
                    phases=[Phase.explicit, Phase.generate, Phase.shrink])(test)
    try:
        test()
    except Unsatisfiable as exc:
        return {**stats, "outcome": "unsatisfiable", "message": str(exc)[:1000]}
    except BaseException as exc:  # noqa: BLE001 - the property failed (found holds the shrunk input)
        if "step_limit" in found:
            return {**stats, "outcome": "step-limit", "args": found["step_limit"]}
        if "args" not in found:
            return {**stats, "outcome": "error", "stage": "engine", "message": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc()[-3000:]}
        return {**stats, "outcome": "failed", "args": found["args"], "schedule": found["schedule"],
                "exception": found["exception"]}
    return {**stats, "outcome": "passed"}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
