"""Worker process of ``evalgap compare``: run one candidate against the benchmark's tests, the ground truth, or
a differential Hypothesis property. Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`
(``python -m evalgap.research.eval_worker REQUEST.json RESULT.json``): candidate code is untrusted.

Request keys: ``mode`` (``tests`` | ``ground-truth`` | ``hypothesis`` | ``spec-inputs`` | ``mutation``), ``candidate`` (program text),
``reference`` (program text), ``entry_point``, and per mode:

* ``tests``: ``tests`` (source defining ``check(candidate)``);
* ``ground-truth``: ``inputs`` (list of argument lists), ``atol``, ``per_input_cpu_s`` (minimum CPU seconds
  per input; the limit is ``max(per_input_cpu_s, 20 x the reference's time)``);
* ``spec-inputs``: ``paths``, ``harness`` (module compiled from a property spec), ``functions`` (``[req ID,
  check function]``), ``inputs``: every postcondition is checked concretely (icontract enforced) on each input;
* ``hypothesis``: ``param_types``, ``contract`` (assert statements over the parameters), ``atol``,
  ``float_bound`` (largest float magnitude drawn, or None: any finite float), ``seeds``, ``max_examples``, ``constants`` (``on``: Hypothesis's default mining of literal constants from
  loaded local modules, i.e. the candidate's code; ``off``: mining disabled, see :func:`_disable_constants`);
* ``mutation``: ``param_types``, ``contract``, ``atol``, ``visible`` (the visible inputs: the mutation seeds),
  ``seeds`` (random seeds, one run each), ``inputs`` (new inputs per seed), ``per_input_cpu_s`` (as for the
  ground truth), ``cpu_budget_s`` (the run stops there with ``pass``).

Result keys: ``outcome`` (``pass`` | ``fail`` | ``error``), ``reason``, ``counterexample`` (Python call text),
``cpu_s``, and mode figures (``inputs_run``, ``inputs_skipped``, ``examples``, ``hypothesis_version``).
"""

from __future__ import annotations

import copy
import os
import signal
import sys
import time
import traceback
import types
from typing import Any, Callable

from evalgap.research.oracle import same_result
from evalgap.verifier.sandbox import channel


class _InputTimeout(BaseException):
    """Raised by the CPU-time alarm; a BaseException so a candidate's ``except Exception`` cannot swallow it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _InputTimeout()


def _load(name: str, code: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__file__ = os.path.join(os.getcwd(), f"{name}.py")
    with open(mod.__file__, "w", encoding="utf-8") as fh:
        fh.write(code)
    sys.modules[name] = mod
    exec(compile(code, mod.__file__, "exec"), mod.__dict__)  # noqa: S102 - sandboxed worker
    return mod


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _call_text(entry: str, args: list[Any]) -> str:
    return f"{entry}({', '.join(_short(a, 200) for a in args)})"


def _tests(req: dict[str, Any]) -> dict[str, Any]:
    try:
        cand = _load("candidate", req["candidate"])
        fn = getattr(cand, req["entry_point"])
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "fail", "reason": f"the program does not load: {type(exc).__name__}: {exc}"}
    # HumanEval's own harness execs the program and its tests in one namespace, so a test may call a helper the
    # program defines (HumanEval/32's `poly`): run the tests over the program's globals, as it does
    ns: dict[str, Any] = {**vars(cand), "__name__": "benchmark_tests"}
    try:
        exec(compile(req["tests"], "benchmark_tests.py", "exec"), ns)  # noqa: S102
        ns["check"](fn)
    except AssertionError as exc:
        return {"outcome": "fail", "reason": f"a test assertion failed{': ' + str(exc) if str(exc) else ''}"}
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "fail", "reason": f"raised {type(exc).__name__}: {_short(str(exc), 200)}"}
    return {"outcome": "pass", "reason": "the benchmark's tests pass"}


def _ground_truth(req: dict[str, Any]) -> dict[str, Any]:
    entry = req["entry_point"]
    ref = getattr(_load("reference", req["reference"]), entry)
    try:
        cand = getattr(_load("candidate", req["candidate"]), entry)
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "fail", "reason": f"the program does not load: {type(exc).__name__}: {exc}",
                "inputs_run": 0}
    signal.signal(signal.SIGPROF, _on_alarm)
    atol = float(req.get("atol", 0.0))
    floor = float(req.get("per_input_cpu_s", 1.0))
    run = skipped = 0
    for args in req["inputs"]:
        t0 = time.process_time()
        try:
            expected = ref(*copy.deepcopy(args))
        except Exception:  # noqa: BLE001 - the reference raising puts this input outside the domain
            skipped += 1
            continue
        limit = max(floor, 20 * (time.process_time() - t0))
        failed = _against(cand, args, expected, limit, atol, entry)
        if failed is not None:
            return {**failed, "inputs_run": run + (not failed["reason"].startswith(("timeout", "raised"))),
                    "inputs_skipped": skipped}
        run += 1
    return {"outcome": "pass", "reason": f"agrees with the reference on {run} inputs (atol {atol:g})",
            "inputs_run": run, "inputs_skipped": skipped}


def _programs(req: dict[str, Any]) -> tuple[types.ModuleType, Callable[..., Any], Callable[..., Any]] | dict[str, Any]:
    """``(reference module, reference entry point, candidate entry point)``, or the ``fail`` result when the
    candidate does not load."""
    ref_mod = _load("reference", req["reference"])
    ref = getattr(ref_mod, req["entry_point"])
    try:
        cand = getattr(_load("candidate", req["candidate"]), req["entry_point"])
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "fail", "reason": f"the program does not load: {type(exc).__name__}: {exc}"}
    return ref_mod, ref, cand


def _against(cand: Callable[..., Any], args: list[Any], expected: Any, limit: float, atol: float,
             entry: str) -> dict[str, Any] | None:
    """Run ``cand`` on deep copies of ``args`` within ``limit`` CPU seconds: None when it returns what the
    reference did (``expected``, within ``atol``), else the ``fail`` result (timeout, exception or value)."""
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        got = cand(*copy.deepcopy(args))
    except _InputTimeout:
        return {"outcome": "fail", "reason": f"timeout: more than {limit:.2f} CPU s on an input",
                "counterexample": _call_text(entry, args)}
    except BaseException as exc:  # noqa: BLE001
        signal.setitimer(signal.ITIMER_PROF, 0)
        return {"outcome": "fail", "reason": f"raised {type(exc).__name__}: {_short(str(exc), 200)}",
                "counterexample": _call_text(entry, args)}
    signal.setitimer(signal.ITIMER_PROF, 0)
    if not same_result(got, expected, atol):
        return {"outcome": "fail", "reason": f"returned {_short(got, 200)}, the reference {_short(expected, 200)}",
                "counterexample": _call_text(entry, args)}
    return None


def _disable_constants() -> None:
    """Turn off Hypothesis's mining of literal constants from local modules (the code under test), through
    the private switch :mod:`evalgap.research.hypothesis_switch` checks at run time.

    Raises:
        RuntimeError: the switch is missing in the installed Hypothesis (the message says what to do).
    """
    from evalgap.research.hypothesis_switch import disable_constant_mining

    disable_constant_mining()


def _strategy(tp: Any, st: Any, bound: float | None = None) -> Any:
    """A strategy for annotation ``tp``: ``st.from_type``, with ``Any`` (which Hypothesis refuses) drawn from
    None, booleans, integers, floats, text, lists of integers and str->int dicts, also inside containers,
    and ``float`` (also inside containers and unions) drawn finite, as HumanEval+ draws its inputs, and at
    most ``bound`` in magnitude when given (the differential spec's assumption,
    :func:`evalgap.research.diffspec.float_bound`)."""
    import typing

    floats = st.floats(allow_nan=False, allow_infinity=False, min_value=None if bound is None else -bound,
                       max_value=bound)
    if tp is typing.Any:
        return st.one_of(st.none(), st.booleans(), st.integers(), floats, st.text(), st.lists(st.integers()),
                         st.dictionaries(st.text(), st.integers()))
    if tp is float:  # finite floats: HumanEval+ never draws inf or NaN (the differential spec assumes it too)
        return floats
    if tp is None or tp is type(None):
        return st.none()
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(_strategy(a, st, bound) for a in args))
    if origin in (list, typing.List) and args:
        return st.lists(_strategy(args[0], st, bound))
    if origin in (tuple, typing.Tuple) and args and Ellipsis not in args:
        return st.tuples(*(_strategy(a, st, bound) for a in args))
    if origin in (dict, typing.Dict) and len(args) == 2:
        return st.dictionaries(_strategy(args[0], st, bound), _strategy(args[1], st, bound))
    return st.from_type(tp)


def _contract(names: list[str], contract: str, ref_mod: types.ModuleType) -> Callable[..., bool]:
    """The benchmark's input contract (assert statements over parameters ``names``) as a function, run in the
    reference module's namespace (its helpers resolve); it raises (AssertionError, ...) outside the contract."""
    pre_src = "def _eg_pre(" + (", ".join(names) or "*_eg_args") + "):\n" + \
        "".join(f"    {ln}\n" for ln in (contract.splitlines() or ["pass"])) + "    return True\n"
    pre_ns: dict[str, Any] = dict(vars(ref_mod))
    exec(compile(pre_src, "contract.py", "exec"), pre_ns)  # noqa: S102
    fn: Callable[..., bool] = pre_ns["_eg_pre"]
    return fn


def _hypothesis(req: dict[str, Any]) -> dict[str, Any]:
    import hypothesis
    from hypothesis import HealthCheck, assume, given, seed, settings
    from hypothesis import strategies as st

    if req.get("constants", "off") == "off":
        try:
            _disable_constants()
        except RuntimeError as exc:
            return {"outcome": "error", "reason": str(exc)}
    entry = req["entry_point"]
    loaded = _programs(req)
    if isinstance(loaded, dict):
        return loaded
    ref_mod, ref, cand = loaded
    names = [n for n, _ in req["param_types"]]
    env = dict(vars(__import__("typing")))
    strats = []
    for _, text in req["param_types"]:
        try:
            strats.append(_strategy(eval(text, env), st, req.get("float_bound")))  # noqa: S307 - a type annotation of the benchmark
        except Exception as exc:  # noqa: BLE001
            return {"outcome": "error", "reason": f"no strategy for type {text}: {exc}"}
    pre = _contract(names, req.get("contract", ""), ref_mod)
    atol = float(req.get("atol", 0.0))
    per_example = float(req.get("per_input_cpu_s", 1.0))
    signal.signal(signal.SIGPROF, _on_alarm)
    failure: dict[str, Any] = {}
    examples = [0]
    slow = [0]  # inputs skipped because the reference took more than 2 x per_input_cpu_s

    def prop(args: tuple[Any, ...]) -> None:
        signal.setitimer(signal.ITIMER_PROF, 2 * per_example)
        try:
            pre(*copy.deepcopy(list(args)))
            expected = ref(*copy.deepcopy(list(args)))
        except _InputTimeout:  # the reference itself is too slow on this input: not checkable here
            slow[0] += 1
            assume(False)
        except Exception:  # noqa: BLE001 - outside the contract or the reference's domain
            signal.setitimer(signal.ITIMER_PROF, 0)
            assume(False)
        signal.setitimer(signal.ITIMER_PROF, 0)
        examples[0] += 1
        signal.setitimer(signal.ITIMER_PROF, per_example)
        try:
            got = cand(*copy.deepcopy(list(args)))
        except _InputTimeout:
            failure["call"] = _call_text(entry, list(args))
            failure["reason"] = f"timeout: more than {per_example:g} CPU s on an input"
            raise AssertionError("timeout") from None
        except Exception as exc:
            signal.setitimer(signal.ITIMER_PROF, 0)
            failure["call"] = _call_text(entry, list(args))
            failure["reason"] = f"raised {type(exc).__name__}: {_short(str(exc), 200)}"
            raise
        signal.setitimer(signal.ITIMER_PROF, 0)
        if not same_result(got, expected, atol):
            failure["call"] = _call_text(entry, list(args))
            failure["reason"] = f"returned {_short(got, 200)}, the reference {_short(expected, 200)}"
            raise AssertionError("differs from the reference")

    for s in req["seeds"]:
        failure.clear()
        test = settings(max_examples=int(req["max_examples"]), database=None, deadline=None, derandomize=False,
                        suppress_health_check=list(HealthCheck), print_blob=False)(
            seed(int(s))(given(st.tuples(*strats))(prop)))
        try:
            test()
        except BaseException as exc:  # noqa: BLE001
            if not failure:
                return {"outcome": "error", "reason": f"Hypothesis stopped: {type(exc).__name__}: "
                        f"{_short(str(exc), 300)}", "examples": examples[0], "seed": s,
                        "hypothesis_version": hypothesis.__version__}
            # Hypothesis replays the shrunk example last, so the recorded call is the minimal one
            return {"outcome": "fail", "reason": failure["reason"], "counterexample": failure["call"],
                    "seed": s, "examples": examples[0], "hypothesis_version": hypothesis.__version__}
    return {"outcome": "pass", "reason": f"no counterexample in {examples[0]} examples over seeds {req['seeds']}"
            + (f" ({slow[0]} inputs skipped: the reference was too slow on them)" if slow[0] else ""),
            "examples": examples[0], "hypothesis_version": hypothesis.__version__}


def _mutation(req: dict[str, Any]) -> dict[str, Any]:
    """Candidate vs reference on inputs grown from the visible ones by type-aware mutation
    (:mod:`evalgap.research.input_mutation`), each kept only when the contract holds and the reference returns
    within ``2 x per_input_cpu_s``; one run per seed, ``inputs`` new inputs each, at most ``cpu_budget_s``."""
    import random

    from evalgap.research.input_mutation import InputMutator

    entry = req["entry_point"]
    loaded = _programs(req)
    if isinstance(loaded, dict):
        return loaded
    ref_mod, ref, cand = loaded
    pre = _contract([n for n, _ in req["param_types"]], req.get("contract", ""), ref_mod)
    atol, floor = float(req.get("atol", 0.0)), float(req.get("per_input_cpu_s", 1.0))
    budget, start = float(req.get("cpu_budget_s", 30.0)), time.process_time()
    signal.signal(signal.SIGPROF, _on_alarm)

    def expected(args: list[Any]) -> tuple[bool, Any, float]:
        """(inside the domain, the reference's result, its CPU seconds)."""
        t0 = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, 2 * floor)
        try:
            pre(*copy.deepcopy(args))
            value = ref(*copy.deepcopy(args))
        except BaseException:  # noqa: BLE001 - outside the contract, the reference raises, or it is too slow
            return False, None, 0.0
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        return True, value, time.process_time() - t0

    tried = 0
    for s in req["seeds"]:
        seeds = [list(a) for a in req["visible"]]
        pool = [a for a in seeds if expected(a)[0]]
        if not pool:
            return {"outcome": "error", "reason": "no visible input satisfies the contract: nothing to mutate"}
        mut, seen, new = InputMutator(pool, random.Random(int(s))), {repr(a) for a in pool}, 0
        attempts = 0
        while new < int(req["inputs"]) and attempts < 20 * int(req["inputs"]):
            attempts += 1
            if time.process_time() - start > budget:
                return {"outcome": "pass", "reason": f"no counterexample in {tried} mutated inputs (CPU budget of "
                        f"{budget:g} s used) over seeds {req['seeds']}", "inputs_run": tried}
            args = mut.mutate(mut.rng.choice(pool))
            if args is None or repr(args) in seen:
                continue
            seen.add(repr(args))
            ok, want, ref_s = expected(args)
            if not ok:
                continue
            pool.append(args)
            mut.learn(args)
            new += 1
            tried += 1
            failed = _against(cand, args, want, max(floor, 20 * ref_s), atol, entry)
            if failed is not None:
                return {**failed, "inputs_run": tried, "seed": s}
    return {"outcome": "pass", "reason": f"no counterexample in {tried} mutated inputs over seeds {req['seeds']}",
            "inputs_run": tried}


def _spec_inputs(req: dict[str, Any]) -> dict[str, Any]:
    """Run a property spec's compiled ``check_...`` functions (icontract enforced) on every ground-truth input."""
    import importlib

    for p in reversed(req["paths"]):
        sys.path.insert(0, p)
    import icontract

    try:
        harness = importlib.import_module(req["harness"])
        fns = [(rid, getattr(harness, name)) for rid, name in req["functions"]]
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "fail", "reason": f"the program does not load: {type(exc).__name__}: {exc}"}
    hfile = os.path.abspath(getattr(harness, "__file__", ""))
    spec_module_file = os.path.abspath(getattr(sys.modules.get(req.get("spec_module", "")), "__file__", "") or "-")
    signal.signal(signal.SIGPROF, _on_alarm)
    limit = float(req.get("per_input_cpu_s", 1.0))
    run = outside = spec_errors = 0
    first_spec_error = ""
    for args in req["inputs"]:
        for rid, fn in fns:
            signal.setitimer(signal.ITIMER_PROF, limit)
            try:
                fn(*copy.deepcopy(args))
            except _InputTimeout:  # the candidate or the spec's helpers: cannot tell which, so no verdict
                return {"outcome": "error", "reason": f"{rid}: timeout: candidate and spec took more than "
                        f"{limit:g} CPU s on {_call_text(req['entry_point'], args)}", "inputs_run": run}
            except icontract.ViolationError as exc:
                signal.setitimer(signal.ITIMER_PROF, 0)
                if any(line.startswith("[pre] ") for line in str(exc).splitlines()[:3]):
                    outside += 1
                    continue
                return {"outcome": "fail", "reason": f"{rid}: postcondition false: {_short(str(exc), 300)}",
                        "counterexample": _call_text(req["entry_point"], args), "inputs_run": run}
            except BaseException as exc:  # noqa: BLE001
                signal.setitimer(signal.ITIMER_PROF, 0)
                tb = traceback.extract_tb(exc.__traceback__)
                # the spec's own expression or one of its pure helpers (in the spec module) raised
                if tb and os.path.abspath(tb[-1].filename) in (hfile, spec_module_file):
                    spec_errors += 1
                    first_spec_error = first_spec_error or f"{rid}: {type(exc).__name__}: {_short(str(exc), 200)}"
                    continue
                return {"outcome": "fail", "reason": f"{rid}: raised {type(exc).__name__}: {_short(str(exc), 200)}",
                        "counterexample": _call_text(req["entry_point"], args), "inputs_run": run}
            signal.setitimer(signal.ITIMER_PROF, 0)
        run += 1
    if spec_errors:
        return {"outcome": "error", "reason": f"spec error on {spec_errors} input(s): {first_spec_error}",
                "inputs_run": run}
    return {"outcome": "pass", "reason": f"every postcondition holds on {run} inputs ({outside} requirement "
            "checks outside a precondition)", "inputs_run": run, "inputs_skipped": outside}


def main(argv: list[str]) -> int:
    """Entry point: read the request, run the mode, write the result (see the module docstring), through the
    worker scaffold (:mod:`evalgap.verifier.sandbox.channel`: result channel bound before the candidate runs,
    tamper check after)."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    start = time.process_time()
    mode = req["mode"]
    try:
        if mode == "tests":
            res = _tests(req)
        elif mode == "ground-truth":
            res = _ground_truth(req)
        elif mode == "hypothesis":
            res = _hypothesis(req)
        elif mode == "spec-inputs":
            res = _spec_inputs(req)
        elif mode == "mutation":
            res = _mutation(req)
        else:
            res = {"outcome": "error", "reason": f"unknown mode {mode!r}"}
    except BaseException as exc:  # noqa: BLE001
        res = {"outcome": "error", "reason": f"worker error: {type(exc).__name__}: {_short(str(exc), 300)}"}
    res["cpu_s"] = time.process_time() - start
    return res


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
