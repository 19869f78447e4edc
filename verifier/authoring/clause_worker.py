"""Worker process: evaluate formal clauses concretely on given inputs (examples, test inputs).

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. Request keys:

* ``program``: Python source defining the function (or null: each case then carries its ``result``);
* ``function``: the function's name; ``params``: its parameter names, in order;
* ``pre``: Python expressions over the parameters; a case where one is false is skipped (outside the domain);
* ``clauses``: ``{"key", "kind": "ensures"|"raises", "py", "exc", "old": [python of each old() argument]}``;
  ``ensures`` sees the parameters after the call, ``result``, and ``__eg_old[i]`` (pre-state values);
  ``raises EXC when COND`` holds on a case when COND is false, or the call raised EXC (by class name, or a
  subclass);
* ``cases``: ``{"args": "<python list literal>", "result": "<python literal>"}`` (``result`` in example mode);
* ``per_call_s``: wall seconds for one call (and one clause evaluation); ``budget_s``: for the whole run.

Result keys: ``clauses`` (per key: ``held``, ``failed``, ``vacuous``, ``error``, ``first_fail`` (case index),
``first_error``), ``skipped`` (cases outside the domain), ``call_errors``, ``timeouts``, ``evaluated``.
"""

from __future__ import annotations

import ast
import copy
import signal
import sys
import time
from typing import Any

from evalgap.verifier.sandbox import channel


class _Timeout(BaseException):
    pass


def _alarm(_sig: int, _frm: Any) -> None:
    raise _Timeout()


def _timed(fn: Any, seconds: float) -> Any:
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _raised_matches(exc: BaseException, name: str) -> bool:
    return any(k.__name__ == name.split(".")[-1] for k in type(exc).__mro__)


def main(argv: list[str]) -> int:
    """Evaluate the clauses on the cases (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    signal.signal(signal.SIGALRM, _alarm)
    per_call = float(req.get("per_call_s", 1.0))
    deadline = time.monotonic() + float(req.get("budget_s", 30.0))
    ns: dict[str, Any] = {"__name__": "evalgap_target"}
    fn = None
    if req.get("program") is not None:
        try:
            _timed(lambda: exec(compile(req["program"], "<target>", "exec"), ns), 10.0)  # noqa: S102
            fn = ns[req["function"]]
        except BaseException as exc:  # noqa: BLE001
            return {"error": f"{type(exc).__name__}: {exc}"}
    params: list[str] = req["params"]
    clauses = req["clauses"]
    compiled = {c["key"]: (compile(c["py"], "<clause>", "eval"), [compile(o, "<old>", "eval") for o in c["old"]])
                for c in clauses}
    pres = [compile(p, "<pre>", "eval") for p in req["pre"]]
    stats: dict[str, dict[str, Any]] = {c["key"]: {"held": 0, "failed": 0, "vacuous": 0, "error": 0, "first_fail": None, "first_error": None}
             for c in clauses}
    skipped = call_errors = timeouts = evaluated = 0
    for idx, case in enumerate(req["cases"]):
        if time.monotonic() > deadline:
            break
        try:
            args = ast.literal_eval(case["args"])
        except (ValueError, SyntaxError):
            continue
        pre_env = dict(ns, **dict(zip(params, copy.deepcopy(args))))
        try:
            if not all(_timed(lambda: eval(p, pre_env), per_call) for p in pres):  # noqa: S307
                skipped += 1
                continue
        except BaseException:  # noqa: BLE001
            skipped += 1
            continue
        evaluated += 1
        raised: BaseException | None = None
        result: Any = None
        call_args = copy.deepcopy(args)
        if fn is None:
            result = ast.literal_eval(case["result"])
        else:
            try:
                result = _timed(lambda: fn(*call_args), per_call)
            except _Timeout:
                timeouts += 1
                continue
            except BaseException as exc:  # noqa: BLE001
                raised = exc
        post_env = dict(ns, **dict(zip(params, call_args)), result=result)
        for c in clauses:
            st = stats[c["key"]]
            code, olds = compiled[c["key"]]
            try:
                env = dict(post_env)
                env["__eg_old"] = [_timed(lambda o=o: eval(o, pre_env), per_call) for o in olds]  # noqa: S307
                if c["kind"] == "raises":
                    cond = _timed(lambda: eval(code, pre_env), per_call)  # noqa: S307
                    if not cond:
                        st["vacuous"] += 1
                        continue
                    ok = raised is not None and _raised_matches(raised, c["exc"])
                else:
                    if raised is not None:
                        continue
                    ok = bool(_timed(lambda: eval(code, env), per_call))  # noqa: S307
            except BaseException as exc:  # noqa: BLE001
                st["error"] += 1
                st["first_error"] = st["first_error"] or f"{type(exc).__name__}: {exc}"[:300]
                continue
            if ok:
                st["held"] += 1
            else:
                st["failed"] += 1
                if st["first_fail"] is None:
                    st["first_fail"] = idx
        if raised is not None and not any(c["kind"] == "raises" for c in clauses):
            call_errors += 1
    return {"clauses": stats, "skipped": skipped, "call_errors": call_errors, "timeouts": timeouts,
            "evaluated": evaluated}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
