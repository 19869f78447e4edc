"""Worker process: run CrossHair on one ``check_...`` function of a harness module.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker` (``python -m
evalgap.verifier.engines.crosshair_worker REQUEST.json RESULT.json``). Importing CrossHair disables icontract's
runtime checks in this process, which is why this runs in its own process and never replays anything.

Request keys: ``paths`` (folders prepended to ``sys.path``), ``harness`` (module name), ``function``,
``budget_s`` (CPU seconds for the condition), ``per_path_timeout_s``, ``target_module`` (optional: its
functions are shielded so a ``SystemExit`` they raise is a counterexample, :mod:`.shield`), ``shapes`` and
``params`` (optional: ``[[[name, length], ...], ...]`` and the check function's parameter names: one analysis
per shape, in this process, those list parameters concrete lists of that many symbolic elements, each
condition's budget shared over the shapes as it is left, the first counterexample ending it; :mod:`.shapes`).

Result keys: ``status`` (``CONFIRMED`` all paths exhausted, ``UNKNOWN``, ``REFUTED``), ``confirmed_paths``,
``messages`` (each: ``state``, ``message``, ``line``, ``invocation``, ``returns``, ``traceback``),
``cpu_s``, ``crosshair_version``, each condition with its ``shape``, ``shapes_run``, ``blocked`` (operations the sandbox guard blocked, see
:mod:`evalgap.verifier.sandbox.guard`), ``error`` (set when the analysis itself could not run, with ``stage``).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback
from typing import Any, Callable

from evalgap.verifier.sandbox import channel

#: The worker's CPU clock, bound when this module is imported (before any target code): a target that replaces
#: ``time.process_time`` cannot use the worker's own clock reads as a trigger.
_clock = time.process_time
#: CrossHair's registries of symbolic types and patches: a target that edits one (every ``int`` made a
#: constant) changes what CrossHair explores without replacing any function.
_REGISTRIES = ("_SIMPLE_PROXIES", "_PATCH_REGISTRATIONS", "_OPCODE_PATCHES")

#: the libraries whose modules and classes the tamper check snapshots (a fork server prebuilds them:
#: :func:`evalgap.verifier.sandbox.channel.prebuild`)
WATCHED_MODULES = ("crosshair", "icontract", "typing", "inspect", "time", "z3")

#: CrossHair's path-control exceptions a target could raise to make CrossHair drop a path (IgnoreAttempt) or
#: give up on it; raised from outside CrossHair's own code, they are tampering.
_CONTROL = ("IgnoreAttempt", "UnexploredPath", "CrosshairUnsupported")
#: CrossHair's wrappers that only pass a call on (crosshair/enforce.py), skipped when finding the caller.
_PASS_THROUGH = frozenset({"_crosshair_wrapper", "_crosshair_with_enforcement", "manually_construct"})


def _trap_control_exceptions(ch: channel.Channel) -> None:
    """Wrap the ``__init__`` of CrossHair's path-control exceptions: one constructed by code outside
    CrossHair's package (the target) is flagged on the channel."""
    import crosshair
    import crosshair.util as cu

    home = os.path.join(os.path.dirname(os.path.realpath(crosshair.__file__)), "")
    getframe, realpath = sys._getframe, os.path.realpath

    for name in _CONTROL:
        cls = getattr(cu, name, None)
        if cls is None:
            continue
        base_init = cls.__init__

        def init(self: BaseException, *args: Any, _base: Any = base_init, _name: str = name, **kwargs: Any) -> None:
            frame = getframe(1)
            while frame.f_back is not None and frame.f_code.co_name in _PASS_THROUGH:
                frame = frame.f_back  # CrossHair's call wrappers hand the call on: look at who made it
            file = frame.f_code.co_filename
            if not realpath(file).startswith(home):
                ch.flag(f"the code under check raised CrossHair's {_name} ({file}:{frame.f_lineno}), which makes "
                        "CrossHair drop the path")
            _base(self, *args, **kwargs)

        cls.__init__ = init


def _only_the_harness_has_contracts(allowed: list[Any]) -> None:
    """Make CrossHair see contracts on the harness function under analysis (the object put in ``allowed``
    once the harness is imported) and nowhere else.

    The target's own contracts (icontract, deal or PEP 316 conditions an agent wrote) must never stand in for
    running its code. CrossHair enforces the conditions of every contracted function the analysis calls and
    *discards* a path on which a callee's postcondition fails ("it will be surfaced in the callee"), and it may
    short-circuit a contracted callee by assuming its postconditions. A target that states the spec's
    postcondition as its own would so prune exactly the violating paths and read as proven. With this, a
    contracted target is executed like any other code. Identity, not names, decides (a target can forge
    ``__module__`` or ``__qualname__``). Installed before the tamper check's snapshot, so a target that
    undoes it is caught.
    """
    from crosshair import core as ch_core
    from crosshair.condition_parser import ClassConditions, CompositeConditionParser

    original = CompositeConditionParser.get_fn_conditions

    def get_fn_conditions(self: Any, fn: Any) -> Any:
        descriptor = getattr(fn, "descriptor", None)
        return original(self, fn) if any(descriptor is a for a in allowed) else None

    def get_class_conditions(self: Any, cls: type) -> Any:
        return ClassConditions([], {})

    CompositeConditionParser.get_fn_conditions = get_fn_conditions  # type: ignore[method-assign]
    CompositeConditionParser.get_class_conditions = get_class_conditions  # type: ignore[method-assign]
    ch_core.ShortCircuitingContext.make_interceptor = (  # type: ignore[method-assign]
        lambda self, original: original)


def _tables() -> list[tuple[str, Any]]:
    """CrossHair's registries (:data:`_REGISTRIES`) and every constant table of its modules (a dict or list
    bound to an upper-case module global, e.g. ``crosshair.libimpl.builtinslib._BIN_OPS``, the symbolic
    operators: an entry replaced changes what CrossHair computes without replacing any function)."""
    from crosshair import core as ch_core

    out = [(f"crosshair.core.{name}", getattr(ch_core, name, None)) for name in _REGISTRIES]
    for mod_name, mod in sorted(sys.modules.items(), key=lambda kv: kv[0]):
        if mod is None or not (mod_name == "crosshair" or mod_name.startswith("crosshair.")):
            continue
        for key, value in list(vars(mod).items()):
            if isinstance(value, (dict, list)) and key.lstrip("_").isupper() and key not in _REGISTRIES:
                out.append((f"{mod_name}.{key}", value))
    return out


def _watch_registries(ch: channel.Channel) -> None:
    """Snapshot CrossHair's registries and constant tables (:func:`_tables`): every entry present now must
    still be there, the same object, after the run (CrossHair adds entries lazily while it analyses: additions
    are not tampering; a replaced or removed entry is)."""
    for label, reg in _tables():
        if isinstance(reg, dict):
            keys = tuple(reg)

            def read(reg: dict[Any, Any] = reg, keys: tuple[Any, ...] = keys) -> tuple[Any, ...]:
                return tuple(reg.get(k, _GONE) for k in keys)
        elif isinstance(reg, list):
            n = len(reg)

            def read(reg: list[Any] = reg, n: int = n) -> tuple[Any, ...]:  # type: ignore[misc]
                return tuple(reg[:n]) + (_GONE,) * (n - len(reg))
        else:
            continue
        ch.watch_object(f"{label} (its entries)", read, read())


_GONE = object()  # what a removed registry entry reads as


def _watch_operator_cache(ch: channel.Channel) -> None:
    """CrossHair's cache of symbolic operators (``builtinslib._BIN_OPS``) fills while it analyses, from its
    search order (``_BIN_OPS_SEARCH_ORDER``, watched as a table): every value in it must be one of the search
    order's functions (or its ``_MISSING``), else the code under check planted an operator (``n == K`` made
    False)."""
    bl = sys.modules.get("crosshair.libimpl.builtinslib")
    cache, order = getattr(bl, "_BIN_OPS", None), getattr(bl, "_BIN_OPS_SEARCH_ORDER", None)
    if not isinstance(cache, dict) or not isinstance(order, list):
        return
    keep = tuple(entry[-1] for entry in order) + (getattr(bl, "_MISSING", _GONE),)  # alive: their ids stay
    allowed = frozenset(map(id, keep))

    def read(cache: dict[Any, Any] = cache, allowed: frozenset[int] = allowed, keep: Any = keep) -> bool:
        return all(id(v) in allowed for v in list(cache.values()))

    ch.watch_object("crosshair.libimpl.builtinslib._BIN_OPS (an operator not from its search order)", read, True)


def _enum_names(ch: channel.Channel) -> Callable[[Any], str]:
    """The names of CrossHair's result enums (``VerificationStatus``, ``MessageType``) as they are before the
    target runs, read by identity: a member renamed in place (``object.__setattr__(REFUTED, "_name_",
    "CONFIRMED")``) is read by its true name, and the rename itself is flagged after the run."""
    from crosshair.statespace import MessageType, VerificationStatus

    members = tuple(m for e in (VerificationStatus, MessageType) for m in e)
    names = {id(m): (m._name_, m._value_) for m in members}

    def name_of(m: Any, _names: dict[int, tuple[str, Any]] = names, _keep: Any = members) -> str:
        return _names.get(id(m), ("UNKNOWN", None))[0]

    def check(_names: dict[int, tuple[str, Any]] = names, _members: Any = members) -> bool:
        return all((m._name_, m._value_) == _names[id(m)] for m in _members)

    ch.watch_object("crosshair.statespace's result enums (a member renamed)", lambda: check(), True)
    return name_of


def _install_shapes(req: dict[str, Any]) -> list[tuple[Any, Any]] | None:
    """Make one shaped argument creation per shape of ``req["shapes"]`` (:func:`.shapes.shaped_gen_args`),
    before the target is imported and before the tamper check's snapshot of CrossHair's modules, and install
    the first as CrossHair's ``gen_args``; return ``[(shape, gen_args), ...]`` (None without shapes)."""
    if not req.get("shapes"):
        return None
    from crosshair import core as ch_core

    from evalgap.verifier.engines.shapes import shaped_gen_args

    params = tuple(str(p) for p in req["params"])
    original = ch_core.gen_args
    out = []
    for raw in req["shapes"]:
        shape = tuple((str(n), int(k)) for n, k in raw)
        out.append((shape, shaped_gen_args(original, shape, params)))
    setattr(ch_core, "gen_args", out[0][1])  # noqa: B010 - a module attribute replaced for this process
    return out


def main(argv: list[str]) -> int:
    """Run one CrossHair check (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    started = _clock()
    import crosshair
    from crosshair import condition_parser
    from crosshair.condition_parser import condition_parser as cparser
    from crosshair.core import ConditionCheckable, analyze_calltree
    from crosshair.core_and_libs import analyze_function
    from crosshair.options import AnalysisKind, AnalysisOptionSet

    captured: list[tuple[str, str]] = []
    original = condition_parser.Conditions.format_counterexample

    def capture(self: Any, args: Any, return_val: Any, repr_overrides: Any) -> tuple[str, str]:
        pair: tuple[str, str] = original(self, args, return_val, repr_overrides)
        captured.append(pair)
        return pair

    condition_parser.Conditions.format_counterexample = capture  # type: ignore[method-assign]
    allowed: list[Any] = []
    _only_the_harness_has_contracts(allowed)
    _trap_control_exceptions(ch)
    shaped = _install_shapes(req)
    ch.watch_modules(WATCHED_MODULES)
    _watch_registries(ch)
    _watch_operator_cache(ch)
    name_of = _enum_names(ch)
    from crosshair.condition_parser import CompositeConditionParser
    from crosshair.core import ShortCircuitingContext

    for cls in (condition_parser.Conditions, AnalysisOptionSet, ConditionCheckable, CompositeConditionParser,
                ShortCircuitingContext):
        ch.watch(f"{cls.__module__}.{cls.__qualname__}", cls)
    for shape, made in shaped or ():  # before the target is imported: its import-time code is the target's too
        ch.watch_function(f"crosshair.core.gen_args for {shape}", made)
    ch.install_guard()
    ch.start_record()
    try:
        if req.get("target_module"):  # before the harness binds its names: see verifier/engines/shield.py
            from evalgap.verifier.engines.shield import shield_module
            from evalgap.verifier.sandbox.harness_load import read_models_early

            read_models_early(str((req.get("paths") or ["."])[0]), req["harness"])  # before the target runs

            shield_module(importlib.import_module(req["target_module"]))
        harness = ch.import_harness(req["harness"])
        fn = getattr(harness, req["function"])
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"error": f"{type(exc).__name__}: {exc}", "stage": "import",
                "traceback": traceback.format_exc()[-3000:]}
    allowed.append(fn)
    ch.watch_function(f"{req['harness']}.{req['function']}", fn)
    ch.watch(req["harness"], harness)
    ch.watch_state(req["paths"][1:])
    options = AnalysisOptionSet(
        analysis_kind=[AnalysisKind.icontract],
        per_condition_timeout=float(req["budget_s"]),
        per_path_timeout=float(req["per_path_timeout_s"]),
    )
    result: dict[str, Any] = {"crosshair_version": getattr(crosshair, "__version__", "unknown"),
                              "conditions": []}
    from crosshair import core as ch_core

    runs: list[tuple[Any, Any]] = shaped or [(None, None)]
    used: dict[int, float] = {}  # CPU seconds each condition has used over the shapes so far
    conds: list[dict[str, Any]] = []
    try:
        for i, (shape, made) in enumerate(runs):
            if made is not None:
                setattr(ch_core, "gen_args", made)  # noqa: B010 - this shape's argument creation
            refuted = False
            for j, ck in enumerate(analyze_function(fn, options)):
                if not isinstance(ck, ConditionCheckable):
                    msgs = [{"state": name_of(m.state), "message": m.message, "line": m.line, "invocation": None,
                             "returns": None, "traceback": m.traceback[-2000:]} for m in ck.analyze()]
                    conds.append({"status": "REFUTED" if msgs else "UNKNOWN", "confirmed_paths": 0,
                                  "messages": msgs, "shape": shape})
                    refuted = refuted or bool(msgs)
                    continue
                captured.clear()
                # the condition's budget is shared over the shapes as it is left: a short list that is
                # exhausted early leaves its time to the longer ones
                share = max(0.05, (float(req["budget_s"]) - used.get(j, 0.0)) / (len(runs) - i))
                t0 = _clock()
                ck.options.deadline = t0 + share
                if made is not None:  # CrossHair also stops on these two (the worker's CPU limit is one for all)
                    ck.options.per_condition_timeout = share
                    ck.options.per_path_timeout = min(float(req["per_path_timeout_s"]), max(0.1, share / 2))
                with cparser(ck.options.analysis_kind):
                    analysis = analyze_calltree(ck.options, ck.conditions)
                used[j] = used.get(j, 0.0) + _clock() - t0
                msgs = []
                for m in analysis.messages:
                    inv, ret = (captured[-1] if captured else (None, None))
                    msgs.append({"state": name_of(m.state), "message": m.message, "line": m.line,
                                 "invocation": inv, "returns": ret, "traceback": m.traceback[-2000:]})
                    refuted = refuted or name_of(m.state) in ("POST_FAIL", "EXEC_ERR", "POST_ERR")
                conds.append({"status": name_of(analysis.verification_status), "cpu_s": _clock() - t0,
                              "confirmed_paths": analysis.num_confirmed_paths, "messages": msgs, "shape": shape,
                              "condition": ck.conditions.post[0].expr_source if ck.conditions.post else ""})
            if made is not None:
                if ch_core.gen_args is not made:
                    ch.flag(f"crosshair.core.gen_args replaced during the run for {shape}")
                setattr(ch_core, "gen_args", runs[0][1])  # noqa: B010 - as the snapshot has it
            # the tamper check after each analysis too, not only when the result is sent: a target that
            # restores what it changed before the end is seen here
            seen_now = ch.tampered()
            if seen_now:
                ch.flag(f"{seen_now[0]} (seen right after the analysis{f' for {shape}' if shape else ''})")
                break
            if refuted:  # a counterexample ends the split: the engine replays it
                break
        result["conditions"] = conds
        result["shapes_run"] = len({str(c.get("shape")) for c in conds})
    except BaseException as exc:  # noqa: BLE001
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["stage"] = "analysis"
        result["traceback"] = traceback.format_exc()[-3000:]
    if shaped:
        setattr(ch_core, "gen_args", shaped[0][1])  # noqa: B010 - as the tamper check's snapshot has it
    result["cpu_s"] = _clock() - started
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
