"""Worker process: call one ``check_...`` function of a harness on every input of a finite domain.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. CrossHair is never imported here; the
worker first proves that icontract's checks are enforced, installs the guard, imports the harness, then runs
``function(*args)`` once for every combination of the parameters' values (:mod:`.domains`), in an order drawn
from fresh randomness (a bijection ``i -> (a*i + b) mod N`` with ``gcd(a, N) = 1``: every index once), each
argument a fresh deep copy. It stops at the first failure (a contract violation other than a precondition,
or any exception) or when its CPU time reaches ``budget_s``.

Request keys: ``paths``, ``harness``, ``function``, ``domains`` (one per parameter), ``budget_s``, ``roots``
(folders and package folders whose modules' state is fingerprinted before and after).

Result keys: ``outcome`` (``passed``: every input ran; ``failed``: ``args`` and ``exception``; ``incomplete``:
the budget ran out; ``error``: ``stage``, ``message``), ``ran`` (inputs called), ``rejected`` (inputs a
precondition rejected), ``total``, ``state`` (what of the target's module state differed after the run, if
anything: a result may then depend on how often the code ran).
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
import traceback
from typing import Any

import icontract

from evalgap.verifier.engines import domains
from evalgap.verifier.engines.hypothesis_worker import py_source
from evalgap.verifier.sandbox import channel, enforcement
from evalgap.verifier.sandbox.statefp import changes, fingerprint

def _order(n: int) -> tuple[int, int]:
    """A random bijection of ``range(n)``: ``(a, b)`` with ``gcd(a, n) == 1``."""
    rng = random.Random(os.urandom(16))
    if n <= 1:
        return 1, 0
    while True:
        a = rng.randrange(1, n)
        if math.gcd(a, n) == 1:
            return a, rng.randrange(n)


class _Frozen(tuple):  # type: ignore[type-arg]
    """A list value of the domain, kept as a tuple until a call gets its own list (:func:`_thaw`)."""


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return _Frozen(_freeze(x) for x in v)
    if isinstance(v, tuple):
        return tuple(_freeze(x) for x in v)
    return v


def _thaw(v: Any) -> Any:
    if type(v) is _Frozen:
        return [_thaw(x) for x in v]
    if type(v) is tuple:
        return tuple(_thaw(x) for x in v)
    return v


def main(argv: list[str]) -> int:
    """Run one enumeration (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    failed = enforcement.enforcement_error("enumeration")
    if failed is not None:
        return failed
    # immutable (tuples, lists frozen as _Frozen) so that a target cannot rewrite the values still to come
    # (found through gc.get_objects()); each call gets fresh lists built by _thaw, not copy.deepcopy, which
    # the target could replace
    spaces = tuple(tuple(_freeze(v) for v in domains.values(d)) for d in req["domains"])
    total = 1
    for s in spaces:
        total *= len(s)
    ch.watch_modules(("icontract",))
    ch.install_guard()
    ch.start_record()
    try:
        harness = ch.import_harness(req["harness"])
        fn = getattr(harness, req["function"])
        ch.watch_function(f"{req['harness']}.{req['function']}", fn)
        ch.watch(req["harness"], harness)
        ch.watch_state(req["paths"][1:])
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"outcome": "error", "stage": "import", "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-3000:]}
    roots = list(req.get("roots", []))
    before = fingerprint(roots)
    budget = float(req["budget_s"])
    a, b = _order(total)
    ran = rejected = 0
    clock = time.process_time
    for i in range(total):
        j = (a * i + b) % total
        args = []
        for s in reversed(spaces):
            j, r = divmod(j, len(s))
            args.append(s[r])
        args.reverse()
        ran += 1
        try:
            fn(*[_thaw(x) for x in args])
        except icontract.ViolationError as exc:
            if "\n[pre] " in "\n" + str(exc):
                rejected += 1
            else:
                return {"outcome": "failed", "args": [py_source(_thaw(x)) for x in args], "ran": ran, "total": total,
                        "rejected": rejected, "exception": f"ViolationError: {str(exc)[:1500]}"}
        except BaseException as exc:  # noqa: BLE001 - what the target raises is a failure of the requirement
            return {"outcome": "failed", "args": [py_source(_thaw(x)) for x in args], "ran": ran, "total": total,
                    "rejected": rejected, "exception": f"{type(exc).__name__}: {str(exc)[:1500]}"}
        if ran % 64 == 0 and clock() > budget:
            return {"outcome": "incomplete", "ran": ran, "total": total, "rejected": rejected}
    changed = changes(before, fingerprint(roots))
    if enforcement.contracts_enforced("enumeration"):
        ch.flag("icontract's checks were switched off during the run")
    return {"outcome": "passed", "ran": ran, "total": total, "rejected": rejected, "state": changed[:5]}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
