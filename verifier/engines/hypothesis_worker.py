"""Worker process: run one ``check_...`` function of a harness as a Hypothesis property.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker` (``python -m
evalgap.verifier.engines.hypothesis_worker REQUEST.json RESULT.json``). CrossHair is never imported here, and the
worker first proves that icontract's checks are enforced. Settings: ``database=None`` (nothing is
written), ``deadline=None``, health checks off (the filter rate is measured and judged by the engine
instead), ``derandomize=True`` unless a ``seed`` is given (research runs; the seed is recorded).

Request keys: ``paths``, ``harness``, ``function``, ``strategies`` (strategy source per parameter, see
:mod:`evalgap.translators.to_hypothesis`), ``max_examples``, ``seed`` (int or null), ``guard``, ``storage_dir`` (a shared folder where Hypothesis
keeps its unicode tables between workers; read and written before the guard is installed).

Result keys: ``outcome`` one of ``passed``, ``failed`` (``args``: the shrunk counterexample as Python
source per parameter, ``exception``: what the property raised), ``unsatisfiable`` (no example met the
preconditions), ``flaky`` (a failure that did not reproduce), ``error`` (``stage``: enforcement, import,
strategy, engine; ``message``); plus ``valid`` (calls that met the preconditions), ``rejected`` (calls
rejected by a precondition, i.e. ``assume()``), ``hypothesis_version`` and ``blocked`` (operations the
sandbox guard blocked).
"""

from __future__ import annotations

import math
import os
import sys
import traceback
from typing import Any

import icontract

from evalgap.verifier.sandbox import channel, enforcement


def py_source(value: Any) -> str:
    """Python source that evaluates to ``value`` (builtin scalars and containers; floats incl. nan/inf)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(py_source(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(py_source(v) + ", " for v in value) + ")"
    if isinstance(value, (set, frozenset)):
        inner = ", ".join(py_source(v) for v in value)
        if not value:
            return "set()" if isinstance(value, set) else "frozenset()"
        return "{" + inner + "}" if isinstance(value, set) else "frozenset({" + inner + "})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_source(k)}: {py_source(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _warm_unicode_tables(storage: str | None) -> None:
    """Load (or build once, ~2 CPU s) Hypothesis's unicode tables from a shared folder before the guard is
    installed, then point Hypothesis back at the worker's own folder for anything it writes later."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.configuration import set_hypothesis_home_dir

    if storage:
        set_hypothesis_home_dir(storage)

    @settings(max_examples=3, database=None, derandomize=True)
    @given(st.text(), st.characters())
    def _warm(text: str, char: str) -> None:
        pass

    try:
        _warm()
    except BaseException:  # noqa: BLE001 - a read-only or broken shared folder only costs time
        pass
    set_hypothesis_home_dir(os.path.join(os.getcwd(), ".hypothesis"))


def prepare(req: dict[str, Any]) -> None:
    """Trusted set-up, run by the sandbox before the OS isolation (which makes the shared folder read-only):
    build or load the unicode tables in ``req["storage_dir"]``."""
    _warm_unicode_tables(req.get("storage_dir"))


def main(argv: list[str]) -> int:
    """Run one Hypothesis property (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    import hypothesis
    from hypothesis import HealthCheck, Phase, given, reject, settings
    from hypothesis import strategies as st
    from hypothesis.errors import Flaky, Unsatisfiable

    base: dict[str, Any] = {"hypothesis_version": hypothesis.__version__}
    failed = enforcement.enforcement_error("Hypothesis")
    if failed is not None:
        return {**base, **failed}
    _warm_unicode_tables(req.get("storage_dir"))
    ch.watch_modules(("icontract", "hypothesis"))
    control = _control_exceptions()  # before any target code runs
    ch.install_guard()
    ch.start_record()
    try:
        harness = ch.import_harness(req["harness"])
        fn = getattr(harness, req["function"])
        ch.watch_function(f"{req['harness']}.{req['function']}", fn)
        ch.watch(req["harness"], harness)
        ch.watch_state(req["paths"][1:])
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {**base, "outcome": "error", "stage": "import", "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-3000:]}
    try:
        namespace = dict(vars(harness))
        namespace["st"] = st
        strategies = [eval(src, namespace) for src in req["strategies"]]  # noqa: S307 - our own translation
    except BaseException as exc:  # noqa: BLE001
        return {**base, "outcome": "error", "stage": "strategy", "message": f"{type(exc).__name__}: {exc}"}
    counts = {"valid": 0, "rejected": 0}
    last: dict[str, Any] = {}
    failures = [0]  # examples on which the requirement failed (Hypothesis must report one of them)

    def prop(args: tuple[Any, ...]) -> None:
        shown = [py_source(a) for a in args]  # before the call: the target may mutate its arguments
        try:
            fn(*args)
        except icontract.ViolationError as exc:
            if "\n[pre] " in "\n" + str(exc):  # icontract prefixes its message with the location
                counts["rejected"] += 1
                reject()
            failures[0] += 1
            last.update(args=shown, exception=f"ViolationError: {str(exc)[:1500]}")
            raise
        except control as exc:  # Hypothesis's own control flow, raised by the code under check
            ch.flag(f"the code under check raised Hypothesis's own {type(exc).__name__} (Hypothesis would "
                    "drop the example)")
            last.update(args=shown, exception=f"{type(exc).__name__}: {str(exc)[:1500]}")
            raise AssertionError("the code under check raised Hypothesis's own exception") from None
        except BaseException as exc:
            failures[0] += 1
            last.update(args=shown, exception=f"{type(exc).__name__}: {str(exc)[:1500]}")
            raise
        counts["valid"] += 1

    seed = req.get("seed")
    test = given(st.tuples(*strategies))(prop)
    test = settings(max_examples=int(req["max_examples"]), derandomize=seed is None, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False,
                    phases=[Phase.explicit, Phase.generate, Phase.shrink])(test)
    if seed is not None:
        test = hypothesis.seed(int(seed))(test)
    try:
        test()
    except Unsatisfiable as exc:
        return {**base, **counts, "outcome": "unsatisfiable", "message": str(exc)[:1000]}
    except Flaky as exc:
        return {**base, **counts, "outcome": "flaky", "message": str(exc)[:1000]}
    except BaseException as exc:  # noqa: BLE001 - the property failed (last holds the shrunk example)
        if "args" not in last:
            return {**base, **counts, "outcome": "error", "stage": "engine",
                         "message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}
        return {**base, **counts, "outcome": "failed", "args": last["args"], "exception": last["exception"]}
    if failures[0]:  # a failing example Hypothesis did not report: its test data was frozen or discarded
        ch.flag(f"Hypothesis passed although the requirement failed on {failures[0]} example(s) (the code under "
                "check made it discard them)")
    return _after(ch, {**base, **counts, "outcome": "passed"})


def _control_exceptions() -> tuple[type[BaseException], ...]:
    """Hypothesis's exception classes (``UnsatisfiedAssumption``, ``StopTest``, ...): raised by the function
    under check, they make Hypothesis discard or stop an example instead of reporting it. Read before the
    target runs (the worker calls this once the harness is loaded, from classes it imported itself)."""
    import hypothesis.errors as he

    return tuple(v for v in vars(he).values() if isinstance(v, type) and issubclass(v, BaseException))


def _after(ch: channel.Channel, result: dict[str, Any]) -> dict[str, Any]:
    """A passing run must still have icontract's checks on (a target may have switched them off)."""
    problem = enforcement.contracts_enforced("Hypothesis")
    if problem:
        ch.flag(f"icontract's checks were switched off during the run ({problem})")
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
