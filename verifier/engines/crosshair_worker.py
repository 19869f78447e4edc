"""Worker process: run CrossHair on one ``check_...`` function of a harness module.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker` (``python -m
evalgap.verifier.engines.crosshair_worker REQUEST.json RESULT.json``). Importing CrossHair disables icontract's
runtime checks in this process, which is why this runs in its own process and never replays anything.

Request keys: ``paths`` (folders prepended to ``sys.path``), ``harness`` (module name), ``function``,
``budget_s`` (CPU seconds for the condition), ``per_path_timeout_s``, ``target_module`` (optional: its
functions are shielded so a ``SystemExit`` they raise is a counterexample, :mod:`.shield`).

Result keys: ``status`` (``CONFIRMED`` all paths exhausted, ``UNKNOWN``, ``REFUTED``), ``confirmed_paths``,
``messages`` (each: ``state``, ``message``, ``line``, ``invocation``, ``returns``, ``traceback``),
``cpu_s``, ``crosshair_version``, ``blocked`` (operations the sandbox guard blocked, see
:mod:`evalgap.verifier.sandbox.guard`), ``error`` (set when the analysis itself could not run, with ``stage``).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback
from typing import IO, Any

from evalgap.verifier.sandbox import guard


def _write(fh: IO[str], data: dict[str, Any]) -> None:
    """Write the result through the file opened before the guard was installed (the guard blocks writes
    outside the worker folder; the result file lives beside it)."""
    data["blocked"] = list(guard.BLOCKED)
    json.dump(data, fh)
    fh.close()


def main(argv: list[str]) -> int:
    req = json.loads(open(argv[0], encoding="utf-8").read())
    out = open(argv[1], "w", encoding="utf-8")
    for p in reversed(req["paths"]):
        sys.path.insert(0, p)
    started = time.process_time()
    import crosshair
    from crosshair import condition_parser
    from crosshair.condition_parser import condition_parser as cparser
    from crosshair.core import ConditionCheckable, analyze_calltree
    from crosshair.core_and_libs import analyze_function
    from crosshair.options import AnalysisKind, AnalysisOptionSet

    if req.get("guard", True):
        guard.install(os.getcwd())
    try:
        if req.get("target_module"):  # before the harness binds its names: see verifier/engines/shield.py
            from evalgap.verifier.engines.shield import shield_module

            shield_module(importlib.import_module(req["target_module"]))
        harness = importlib.import_module(req["harness"])
        fn = getattr(harness, req["function"])
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        _write(out, {"error": f"{type(exc).__name__}: {exc}", "stage": "import",
                     "traceback": traceback.format_exc()[-3000:]})
        return 0

    captured: list[tuple[str, str]] = []
    original = condition_parser.Conditions.format_counterexample

    def capture(self: Any, args: Any, return_val: Any, repr_overrides: Any) -> tuple[str, str]:
        pair: tuple[str, str] = original(self, args, return_val, repr_overrides)
        captured.append(pair)
        return pair

    condition_parser.Conditions.format_counterexample = capture  # type: ignore[method-assign]
    options = AnalysisOptionSet(
        analysis_kind=[AnalysisKind.icontract],
        per_condition_timeout=float(req["budget_s"]),
        per_path_timeout=float(req["per_path_timeout_s"]),
    )
    result: dict[str, Any] = {"crosshair_version": getattr(crosshair, "__version__", "unknown"),
                              "conditions": []}
    try:
        checkables = analyze_function(fn, options)
        conds = []
        for ck in checkables:
            if not isinstance(ck, ConditionCheckable):
                msgs = [{"state": m.state.name, "message": m.message, "line": m.line, "invocation": None,
                         "returns": None, "traceback": m.traceback[-2000:]} for m in ck.analyze()]
                conds.append({"status": "REFUTED" if msgs else "UNKNOWN", "confirmed_paths": 0,
                              "messages": msgs})
                continue
            captured.clear()
            ck.options.deadline = time.process_time() + ck.options.per_condition_timeout
            with cparser(ck.options.analysis_kind):
                analysis = analyze_calltree(ck.options, ck.conditions)
            msgs = []
            for m in analysis.messages:
                inv, ret = (captured[-1] if captured else (None, None))
                msgs.append({"state": m.state.name, "message": m.message, "line": m.line,
                             "invocation": inv, "returns": ret, "traceback": m.traceback[-2000:]})
            conds.append({"status": analysis.verification_status.name,
                          "confirmed_paths": analysis.num_confirmed_paths, "messages": msgs,
                          "condition": ck.conditions.post[0].expr_source if ck.conditions.post else ""})
        result["conditions"] = conds
    except BaseException as exc:  # noqa: BLE001
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["stage"] = "analysis"
        result["traceback"] = traceback.format_exc()[-3000:]
    result["cpu_s"] = time.process_time() - started
    _write(out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
