"""Worker process: CrossHair's behaviour diffing (``diffbehavior``) of one function, base against head.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. Base and head are imported side by side under
distinct package names: each version's folder becomes a synthetic package (``evalgap_base``,
``evalgap_head``), so ``refunds.py`` is ``evalgap_base.refunds`` and ``evalgap_head.refunds``. While a
version is imported its folder is first on ``sys.path`` (for its absolute imports); the modules it loaded
from there are then removed from ``sys.modules`` so the other version loads its own.

Request keys: ``base_root``, ``head_root``, ``module`` (dotted module of the file inside each root),
``qualname`` (``process``, ``Balancer.dispatch``), ``budget_s`` (CPU seconds for the whole search, split
between both orderings), ``per_path_timeout_s``, ``max_differences`` (default 4: CrossHair's coverage-greedy
selection, then other distinct inputs the search found).

Result keys: ``diffs`` (each: ``args`` name -> repr, ``base`` and ``head`` each with ``returns``, ``raises``,
``describe``), ``artefacts`` (differences dropped because a method of one version met an instance of the
other version's class and lacked its attributes), ``paths`` (iterations), ``exhausted`` (all paths explored),
``nondeterministic``,
``cpu_s``, ``crosshair_version``, or ``error`` with ``stage`` (``import``, ``analysis``).
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
import types
from typing import Any

from evalgap.verifier.sandbox import channel

_PACKAGES = ("evalgap_base", "evalgap_head")


def _load(package: str, root: str, module: str) -> types.ModuleType:
    pkg = types.ModuleType(package)
    pkg.__path__ = [root]
    sys.modules[package] = pkg
    before = set(sys.modules)
    sys.path.insert(0, root)
    try:
        mod = importlib.import_module(f"{package}.{module}")
    finally:
        sys.path.remove(root)
        for name in set(sys.modules) - before:
            f = getattr(sys.modules[name], "__file__", None) or ""
            if not name.startswith(package + ".") and f.startswith(root):
                del sys.modules[name]  # the other version loads its own copy
    return mod


def _version_equal(a: Any, b: Any, equal: Any, depth: int = 0) -> bool:
    """Equality across versions: an object of base's ``Result`` equals one of head's ``Result`` (a
    different class of the same name) when their fields are equal; containers compare element-wise;
    everything else goes to CrossHair's own ``flexible_equal``."""
    if depth > 20:
        return bool(equal(a, b))
    ta, tb = type(a), type(b)
    if ta is not tb and ta.__qualname__ == tb.__qualname__ and hasattr(a, "__dict__") and hasattr(b, "__dict__"):
        return _version_equal(vars(a), vars(b), equal, depth + 1)
    if type(a) in (list, tuple) and type(b) is type(a):
        return len(a) == len(b) and all(_version_equal(x, y, equal, depth + 1) for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(_version_equal(a[k], b[k], equal, depth + 1) for k in a)
    return bool(equal(a, b))


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
    setattr(cdb, "flexible_equal", lambda a, b: _version_equal(a, b, flexible))
    searched: list[list[Any]] = []
    search = getattr(cdb, "diff_behavior_with_signature")

    def capture(*args: Any, **kwargs: Any) -> list[Any]:
        found = list(search(*args, **kwargs))
        searched.append(found)
        return found

    setattr(cdb, "diff_behavior_with_signature", capture)
    ch.watch_modules(("crosshair",))  # bound (our own patches included) before either version is imported
    try:
        base = _load(_PACKAGES[0], req["base_root"], req["module"])
        head = _load(_PACKAGES[1], req["head_root"], req["module"])
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"error": f"{type(exc).__name__}: {exc}", "stage": "import",
                "traceback": traceback.format_exc()[-3000:]}

    result: dict[str, Any] = {"crosshair_version": getattr(crosshair, "__version__", "unknown"), "diffs": []}
    try:
        fn1 = walk_qualname(base, req["qualname"])
        fn2 = walk_qualname(head, req["qualname"])
        if not isinstance(fn1, FunctionInfo) or not isinstance(fn2, FunctionInfo):
            raise TypeError(f"{req['qualname']} is not a function or method")
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
