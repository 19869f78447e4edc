"""Worker process: replay behaviour differences concretely on base and head, and search for more with
Hypothesis.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. CrossHair is never imported here: every
call is an ordinary Python call on ordinary values, so what this worker reports is what the two versions
really do. Both versions are imported side by side (:mod:`evalgap.verifier.gate.versions`).

Request keys: ``base_root``, ``head_root``, ``module``, ``qualname``; ``candidates`` (each ``args``: parameter
-> Python source, ``found_by``); ``call_timeout_s``; ``hypothesis`` (``examples``, ``strategies``: parameter
-> strategy source of the spec's domain, ``annotations``: parameter -> type source used where the function
has no annotation) or null; ``storage_dir``.

Result keys: ``diffs`` (each ``args``, ``found_by``, ``base`` and ``head`` with ``returns``, ``raises``,
``describe``), ``dropped`` (candidates whose difference did not replay: same behaviour concretely, a timeout),
``unevaluable`` (candidates whose inputs are no Python values, such as CrossHair's symbolic proxies),
``hypothesis`` (``examples`` tried and ``status``: ``ran``, ``found``, or ``skipped: REASON``), or ``error``
with ``stage``.
"""

from __future__ import annotations

import copy
import signal
import sys
import traceback
import typing
from typing import Any, Callable

from evalgap.verifier.engines.hypothesis_worker import _warm_unicode_tables, py_source
from evalgap.verifier.gate.versions import PACKAGES, load_version, version_equal, walk
from evalgap.verifier.sandbox import channel

_ARTEFACT_MARKERS = ("crosshair", "Symbolic", "SymbolicObject", "z3.")


class _CallTimeout(BaseException):
    """A replayed call ran past its time."""


def _on_alarm(signum: int, frame: object) -> None:
    raise _CallTimeout()


def prepare(req: dict[str, Any]) -> None:
    """Trusted set-up before the OS isolation: Hypothesis's shared unicode tables."""
    if req.get("hypothesis"):
        _warm_unicode_tables(req.get("storage_dir"))


def _call(fn: Callable[..., Any], kwargs: dict[str, Any], timeout_s: float) -> tuple[str, Any]:
    """(``returns``, value) / (``raises``, exception) / (``timeout``, None)."""
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        return "returns", fn(**kwargs)
    except _CallTimeout:
        return "timeout", None
    except BaseException as exc:  # noqa: BLE001 - what the target raises is its behaviour
        return "raises", exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _exc_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}({str(exc)!r})"


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "raises":
        return bool(type(a[1]).__name__ == type(b[1]).__name__ and str(a[1]) == str(b[1]))
    return bool(version_equal(a[1], b[1]))


def _safe_repr(value: Any) -> str:
    try:
        return str(py_source(value))[:2000]
    except BaseException:  # noqa: BLE001 - a repr that raises is shown as such
        return f"<{type(value).__name__} with a failing repr>"


def _behavior(out: tuple[str, Any], mutated: dict[str, Any]) -> dict[str, Any]:
    d: dict[str, Any]
    if out[0] == "raises":
        d = {"returns": None, "raises": _exc_text(out[1]), "describe": f"raises {_exc_text(out[1])}"}
    else:
        d = {"returns": _safe_repr(out[1]), "raises": None, "describe": f"returns {_safe_repr(out[1])}"}
    if mutated:
        d["describe"] += "; after the call " + ", ".join(f"{k}={_safe_repr(v)}" for k, v in mutated.items())
    return d


def _run_both(fns: tuple[Any, Any], values: tuple[dict[str, Any], dict[str, Any]],
              timeout_s: float) -> dict[str, Any] | None:
    """Call both versions; the difference record, or None when they behave the same (or either timed out)."""
    after = (copy.copy(values[0]), copy.copy(values[1]))
    outs = (_call(fns[0], after[0], timeout_s), _call(fns[1], after[1], timeout_s))
    if "timeout" in (outs[0][0], outs[1][0]):
        return None
    changed = [k for k in after[0] if not version_equal(after[0][k], after[1].get(k))]
    if _same(outs[0], outs[1]) and not changed:
        return None
    for o in outs:
        if o[0] == "raises" and any(m in _exc_text(o[1]) for m in _ARTEFACT_MARKERS):
            return None  # an exception about a symbolic proxy is the engine's, not the code's
    return {"base": _behavior(outs[0], {k: after[0][k] for k in changed}),
            "head": _behavior(outs[1], {k: after[1][k] for k in changed})}


def _evaluate(sources: dict[str, str], module: Any) -> dict[str, Any] | None:
    if any(m in src for src in sources.values() for m in _ARTEFACT_MARKERS):
        return None
    env = dict(vars(module))
    try:
        return {k: eval(src, env) for k, src in sources.items()}  # noqa: S307 - inside the sandbox, on purpose
    except BaseException:  # noqa: BLE001 - not a Python value of this version
        return None


def _strategies(fn: Any, module: Any, spec_strategies: dict[str, str],
                spec_types: dict[str, str]) -> tuple[dict[str, Any] | None, str]:
    """Hypothesis strategies per parameter: the spec's domain (its types with their narrowings, as strategy
    source) where the spec declares the function, else the function's annotations, else the spec's types."""
    import inspect

    from hypothesis import strategies as st

    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable annotations: fall back to the spec's
        hints = {}
    env = {**vars(module), "st": st}
    out: dict[str, Any] = {}
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name in spec_strategies:
            try:
                out[name] = eval(spec_strategies[name], env)  # noqa: S307 - inside the sandbox
                continue
            except BaseException:  # noqa: BLE001 - e.g. a class the module does not name: use the annotation
                pass
        if p.default is not p.empty and name not in hints:
            continue
        tp = hints.get(name)
        if tp is None and name in spec_types:
            try:
                tp = eval(spec_types[name], env)  # noqa: S307 - inside the sandbox
            except BaseException:  # noqa: BLE001
                tp = None
        if tp is None:
            return None, f"parameter {name!r} has no annotation and the spec gives it no type"
        try:
            out[name] = st.from_type(tp)
        except BaseException as exc:  # noqa: BLE001
            return None, f"no strategy for {name}: {type(exc).__name__}: {exc}"
    return out, ""


def _hypothesis(fns: tuple[Any, Any], mods: tuple[Any, Any], req: dict[str, Any], timeout_s: float,
                found: list[dict[str, Any]]) -> dict[str, Any]:
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    h = req["hypothesis"]
    if "." in req["qualname"]:
        return {"examples": 0, "status": "skipped: a method needs an instance of both versions"}
    strategies, why = _strategies(fns[1], mods[1], dict(h.get("strategies", {})), dict(h.get("annotations", {})))
    if strategies is None:
        return {"examples": 0, "status": f"skipped: {why}"}
    tried = [0]

    def values_for(drawn: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]] | None:
        sources = {k: _safe_repr(v) for k, v in drawn.items()}
        b, hd = _evaluate(sources, mods[0]), _evaluate(sources, mods[1])
        if b is None or hd is None:
            return None
        return b, hd, sources

    def differs(drawn: dict[str, Any]) -> bool:
        tried[0] += 1
        vals = values_for(drawn)
        return vals is not None and _run_both(fns, (vals[0], vals[1]), timeout_s) is not None

    try:
        example = find(st.fixed_dictionaries(strategies), differs,
                       settings=settings(max_examples=int(h.get("examples", 200)), database=None, deadline=None,
                                         derandomize=True, suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return {"examples": tried[0], "status": "ran"}
    vals = values_for(example)
    row = _run_both(fns, (vals[0], vals[1]), timeout_s) if vals is not None else None
    if vals is not None and row is not None:  # the shrunk example, replayed once more from its source
        found.append({"args": vals[2], "found_by": "hypothesis", **row})
    return {"examples": tried[0], "status": "found"}


def main(argv: list[str]) -> int:
    """Replay and search (see the module docstring); always 0, the outcome is in the result."""
    return int(channel.run(argv, _work))


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    signal.signal(signal.SIGALRM, _on_alarm)
    timeout_s = float(req.get("call_timeout_s", 2.0))
    sys.path.extend(str(x) for x in req.get("extra_paths", []))  # the project's installed dependencies
    try:
        mods = (load_version(PACKAGES[0], req["base_root"], req["module"]),
                load_version(PACKAGES[1], req["head_root"], req["module"]))
        fns = (walk(mods[0], req["qualname"]), walk(mods[1], req["qualname"]))
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"error": f"{type(exc).__name__}: {exc}", "stage": "import", "traceback": traceback.format_exc()[-3000:]}
    diffs: list[dict[str, Any]] = []
    dropped = unevaluable = 0
    seen: set[str] = set()
    for cand in req.get("candidates", []):
        sources = {str(k): str(v) for k, v in dict(cand["args"]).items()}
        key = repr(sorted(sources.items()))
        if key in seen:
            continue
        seen.add(key)
        b, h = _evaluate(sources, mods[0]), _evaluate(sources, mods[1])
        if b is None or h is None:
            unevaluable += 1
            continue
        row = _run_both(fns, (b, h), timeout_s)
        if row is None:
            dropped += 1
            continue
        diffs.append({"args": sources, "found_by": cand.get("found_by", "crosshair"), **row})
    hyp: dict[str, Any] = {"examples": 0, "status": "skipped: not asked"}
    if req.get("hypothesis"):
        try:
            extra: list[dict[str, Any]] = []
            hyp = _hypothesis(fns, mods, req, timeout_s, extra)
            for row in extra:
                if repr(sorted(row["args"].items())) not in seen:
                    diffs.append(row)
        except BaseException as exc:  # noqa: BLE001
            hyp = {"examples": 0, "status": f"skipped: {type(exc).__name__}: {str(exc)[:300]}"}
    return {"diffs": diffs, "dropped": dropped, "unevaluable": unevaluable, "hypothesis": hyp}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
