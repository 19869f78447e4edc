"""The shortest failing call sequence of a model requirement's counterexample, replayed concretely.

An engine refutes a ``model`` requirement with some sequence of up to N calls (its ``op<j>`` selectors and
arguments). :func:`shorten` replays it with steps skipped (the selector value ``K`` skips a step, see
:mod:`evalgap.translators.icontract_model`), every subsequence of the sequence's calls in order of length,
each in a fresh sandboxed replay worker with contracts enforced, and keeps the first (shortest) one that still
violates the requirement. Then the harness's trace function runs once more, in the replay worker, for a
readable pytest test of the calls (``s = KVStore()``, ``s.put('', b'\\x00')``, ``assert s.get('') ==
b'\\x00'``) and the failing call. The shortest sequence is the shortest *subsequence of the engine's
counterexample*; the engine's own search (Hypothesis's shrinking, CrossHair's path order) decides which
sequence that starts from.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from itertools import combinations
from pathlib import Path

from evalgap.translators.to_icontract import Harness, Obligation
from evalgap.verifier.engines.common import replay
from evalgap.verifier.findings import EngineVerdict, Verdict
from evalgap.verifier.project.targets import Target

__all__ = ["shorten", "MAX_REPLAYS"]

#: At most this many shortened candidates are replayed (2**8 subsets of an 8-call sequence would be 256).
MAX_REPLAYS = 64


def _selectors(ob: Obligation, args: list[str]) -> dict[int, int] | None:
    """Parameter index -> selector value of every ``op<j>`` argument, or None when one is not an int."""
    out: dict[int, int] = {}
    for i, (name, _) in enumerate(ob.params):
        if re.fullmatch(r"op\d+", name):
            try:
                value = ast.literal_eval(args[i])
            except (ValueError, SyntaxError):
                return None
            if not isinstance(value, int) or isinstance(value, bool):
                return None
            out[i] = value
    return out


def _violates(hdir: Path, harness: Harness, target: Target, ob: Obligation, args: list[str]) -> bool:
    assert ob.function is not None
    rep = replay(hdir, harness, target, ob.function, args)
    return rep.outcome == "violation" and rep.data.get("kind") == "post"


def shorten(v: EngineVerdict, ob: Obligation, harness: Harness, hdir: Path, target: Target) -> EngineVerdict:
    """``v`` with the shortest failing subsequence of its call sequence as counterexample and a readable test as
    reproducer; ``v`` unchanged when it is not a refuted model requirement or its arguments cannot be read.

    Args:
        v: an engine's verdict on ``ob``.
        ob: the obligation (its ``model`` plan says how many operations there are).
        harness, hdir: the harness and the folder it is written in.
        target: the code under check.

    Returns:
        The verdict, with ``counterexample``, ``args``, ``reason`` and ``reproducer`` describing the shortest
        sequence that was replayed and still violates the requirement.
    """
    plan = ob.model
    if plan is None or v.verdict is not Verdict.REFUTED or len(v.args) != len(ob.params):
        return v
    args = [a for _, a in v.args]
    ops = _selectors(ob, args)
    if ops is None:
        return v
    active = [i for i, value in ops.items() if value % (plan.skip + 1) != plan.skip]
    best = args
    tried = 0
    for size in range(1, len(active)):
        found = None
        for keep in combinations(active, size):
            if tried >= MAX_REPLAYS:
                break
            cand = [str(plan.skip) if i in ops and i not in keep else a for i, a in enumerate(args)]
            tried += 1
            if _violates(hdir, harness, target, ob, cand):
                found = cand
                break
        if found is not None:
            best = found
            break
    rep = replay(hdir, harness, target, plan.trace_function, best, returned_limit=20000)
    try:
        test, why, calls = ast.literal_eval(str(rep.data.get("returned"))) if rep.outcome == "passed" else (
            None, None, None)
    except (ValueError, SyntaxError):
        test = why = calls = None
    if not isinstance(test, str) or not isinstance(why, str) or not isinstance(calls, int):
        return replace(v, args=tuple(zip((n for n, _ in ob.params), best)))
    body = [ln.strip() for ln in test.splitlines()[1:] if ln.strip()]
    shown = "; ".join(ln for ln in body if not ln.startswith("with "))
    reason = (f"{why} (shortest failing sequence: {calls} call{'s' if calls != 1 else ''}, "
              f"from the engine's {len(active)}; replayed concretely)")
    name = test.split("(", 1)[0].removeprefix("def ")
    head = ["import sys", f"sys.path[:0] = {list(target.paths)!r}", "", "import pytest", "",
            f"from {target.module} import {ob.target_function}", "", "", ""]
    tail = ["", "", 'if __name__ == "__main__":', f"    {name}()"]
    return replace(v, counterexample=shown, args=tuple(zip((n for n, _ in ob.params), best)), reason=reason,
                   reproducer="\n".join(head) + test + "\n".join(tail) + "\n")
