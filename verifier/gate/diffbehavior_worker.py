"""Worker process: CrossHair's behaviour diffing (``diffbehavior``) of one function, base against head.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. Base and head are imported side by side under
distinct package names (:mod:`evalgap.verifier.gate.versions`). Every difference found here is a candidate
only: :mod:`evalgap.verifier.gate.diffreplay_worker` replays it concretely before it is reported.

Request keys: ``base_root``, ``head_root``, ``module`` (dotted module of the file inside each root),
``qualname`` (``process``, ``Balancer.dispatch``), ``annotations`` (parameter -> type source for the
parameters a version leaves unannotated: the other version's or the spec's), ``spec_types`` (the spec's
types, for annotations that do not resolve at run time), ``budget_s`` (CPU seconds for the whole search, split
between both orderings), ``per_path_timeout_s``, ``max_differences`` (default 4: CrossHair's coverage-greedy
selection, then other distinct inputs the search found).

Result keys: ``diffs`` (each: ``args`` name -> repr, ``base`` and ``head`` each with ``returns``, ``raises``,
``describe``), ``artefacts`` (differences dropped because a method of one version met an instance of the
other version's class and lacked its attributes, or because an input or exception was a CrossHair proxy), ``paths`` (iterations), ``exhausted`` (all paths explored),
``nondeterministic``,
``cpu_s``, ``crosshair_version``, or ``error`` with ``stage`` (``import``, ``analysis``).
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any

from evalgap.verifier.gate.versions import PACKAGES, load_version, version_equal
from evalgap.verifier.sandbox import channel

#: Words that mark an input or an exception as CrossHair's own (a symbolic proxy met where a value was expected).
_ARTEFACT_MARKERS = ("crosshair", "Symbolic", "z3.")


def _annotate(fi: Any, annotations: dict[str, str], fallback: dict[str, str]) -> None:
    """Give the function the types of parameters it leaves unannotated (the other version's annotations, or
    the spec's), so CrossHair draws values of those types instead of arbitrary proxies; an annotation that
    does not resolve at run time (a name imported only under ``TYPE_CHECKING``) takes the spec's type, or is
    dropped."""
    fn = getattr(fi.descriptor, "__func__", fi.descriptor)
    own = getattr(fn, "__annotations__", None)
    if not isinstance(own, dict):
        return
    for name, src in annotations.items():
        own.setdefault(name, src)
    env = dict(getattr(fn, "__globals__", {}))
    for name, ann in list(own.items()):
        if not isinstance(ann, str):
            continue
        try:
            eval(ann, env)  # noqa: S307 - inside the sandbox: the target's own annotation
        except Exception:  # noqa: BLE001 - unresolvable: the spec's type, else none
            if name in fallback:
                own[name] = fallback[name]
            else:
                del own[name]


def _with_candidates(selected: list[Any], searched: list[list[Any]], limit: int) -> list[Any]:
    """CrossHair's selection first, then the other inputs the search found (the second search ran head
    against base, so its differences are reversed), one per distinct input, up to ``limit`` in all."""
    out: list[Any] = []
    seen: set[str] = set()
    others = [d for i, found in enumerate(searched[:2]) for d in (found if i == 0 else [x.reverse() for x in found])]
    for d in [*selected, *others]:
        key = repr(sorted(d.args.items()))
        if key not in seen and len(out) < max(limit, len(selected)):
            seen.add(key)
            out.append(d)
    return out


def main(argv: list[str]) -> int:
    """Diff one function's behaviour (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    started = time.process_time()
    import collections

    import crosshair
    import crosshair.core_and_libs  # noqa: F401 - registers CrossHair's models of the standard library
    import crosshair.diff_behavior as cdb
    from crosshair.diff_behavior import ExceptionEquivalenceType, diff_behavior
    from crosshair.fnutil import FunctionInfo, walk_qualname
    from crosshair.options import DEFAULT_OPTIONS, AnalysisOptionSet

    flexible = getattr(cdb, "flexible_equal")
    setattr(cdb, "flexible_equal", lambda a, b: version_equal(a, b, flexible))
    searched: list[list[Any]] = []
    search = getattr(cdb, "diff_behavior_with_signature")

    def capture(*args: Any, **kwargs: Any) -> list[Any]:
        found = list(search(*args, **kwargs))
        searched.append(found)
        return found

    setattr(cdb, "diff_behavior_with_signature", capture)
    ch.watch_modules(("crosshair",))  # bound (our own patches included) before either version is imported
    sys.path.extend(str(x) for x in req.get("extra_paths", []))  # the project's installed dependencies
    try:
        base = load_version(PACKAGES[0], req["base_root"], req["module"])
        head = load_version(PACKAGES[1], req["head_root"], req["module"])
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"error": f"{type(exc).__name__}: {exc}", "stage": "import",
                "traceback": traceback.format_exc()[-3000:]}

    result: dict[str, Any] = {"crosshair_version": getattr(crosshair, "__version__", "unknown"), "diffs": []}
    try:
        fn1 = walk_qualname(base, req["qualname"])
        fn2 = walk_qualname(head, req["qualname"])
        if not isinstance(fn1, FunctionInfo) or not isinstance(fn2, FunctionInfo):
            raise TypeError(f"{req['qualname']} is not a function or method")
        for fi in (fn1, fn2):
            _annotate(fi, {str(k): str(v) for k, v in dict(req.get("annotations", {})).items()},
                      {str(k): str(v) for k, v in dict(req.get("spec_types", {})).items()})
        options = DEFAULT_OPTIONS.overlay(AnalysisOptionSet(
            per_condition_timeout=float(req["budget_s"]), per_path_timeout=float(req["per_path_timeout_s"])))
        options.stats = collections.Counter()
        nondet: list[bool] = []
        # diff_behavior keeps only a coverage-greedy selection of the inputs it found (often one); keep the
        # other candidates too, since one input can mix an explained and an unexplained change
        diffs = diff_behavior(fn1, fn2, options, ExceptionEquivalenceType.TYPE_AND_MESSAGE,
                              on_nondeterminism=lambda: nondet.append(True))
        if isinstance(diffs, str):
            raise RuntimeError(diffs)
        diffs = _with_candidates(list(diffs), searched, int(req.get("max_differences", 4)))
        rows = []
        artefacts = 0
        for d in diffs:
            errors = f"{d.result1.error or ''} {d.result2.error or ''}"
            if "." in req["qualname"] and "AttributeError" in errors and "object has no attribute" in errors:
                artefacts += 1  # one version's method on the other version's instance: not a behaviour change
                continue
            shown = errors + " " + " ".join(str(v) for v in dict(d.args).values())
            if any(m in shown for m in _ARTEFACT_MARKERS):
                artefacts += 1  # a symbolic proxy where a value was expected: the engine's, not the code's
                continue
            differing = d.result1.get_differing_arg_mutations(d.result2)
            rows.append({
                "args": dict(d.args),
                "base": {"returns": d.result1.return_repr, "raises": d.result1.error,
                         "describe": d.result1.describe(differing)},
                "head": {"returns": d.result2.return_repr, "raises": d.result2.error,
                         "describe": d.result2.describe(differing)},
            })
        result["diffs"] = rows
        result["artefacts"] = artefacts
        result["paths"] = int(options.stats.get("num_paths", 0))
        result["exhausted"] = options.stats.get("exhaustion", 0) > 0
        result["nondeterministic"] = bool(nondet)
    except BaseException as exc:  # noqa: BLE001
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["stage"] = "analysis"
        result["traceback"] = traceback.format_exc()[-3000:]
    result["cpu_s"] = time.process_time() - started
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
