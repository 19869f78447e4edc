"""What the engines share: the concrete replay of a counterexample in a fresh process (contracts enforced),
turning a replay or a failed worker into an :class:`~evalgap.verifier.findings.EngineVerdict`, and quoting the
spec's text in evidence. Every engine's refutation goes through :func:`from_replay`: a counterexample that does
not reproduce concretely is never ``refuted``."""

from __future__ import annotations

import ast
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.translators.to_icontract import Harness, Obligation
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.project.targets import Target
from evalgap.verifier.sandbox.channel import UNTRUSTED_EXIT
from evalgap.verifier.sandbox.runner import Limits, WorkerOutcome, run_worker, wall_limit

__all__ = ["ReplayResult", "replay", "from_replay", "worker_failure", "signal_name", "split_call", "display_call",
           "span_text", "check_text", "failed_check", "formal_text", "hidden_state", "CPU_LIMIT_MARGIN_S",
           "cpu_limit_s",
           "CROSSHAIR_CAVEAT", "INTEGRITY_REASONS"]

#: Reason categories of an ``unknown`` that no other engine's verdict may outweigh (only a replayed
#: refutation does): the code behaved differently from run to run, or touched the checking machinery.
INTEGRITY_REASONS = ("nondeterminism", "tampered", "gaming suspected", "depends on the hash seed")

#: The least CPU seconds an engine worker may use beyond its budget (the harness and target imports, Z3's last
#: query, writing the result) before it is killed; the margin is a quarter of the budget when that is more. The
#: fork server has imported CrossHair and Z3 already (a spawned worker gets their import on top, see
#: :data:`evalgap.verifier.sandbox.runner.SPAWN_CPU_S`).
CPU_LIMIT_MARGIN_S = 1.0


def cpu_limit_s(budget_s: float) -> float:
    """The CPU limit (seconds) of an engine worker with a budget of ``budget_s`` CPU seconds: the budget plus
    ``max(CPU_LIMIT_MARGIN_S, budget_s / 4)``. CrossHair checks its own deadline only when it meets a new
    branch, so code that loops without one (``while True: pass``) runs until this limit stops it: within
    1.25x the budget (3 s: 4 s), not the budget plus 15 s as before."""
    return budget_s + max(CPU_LIMIT_MARGIN_S, budget_s / 4)

CROSSHAIR_CAVEAT = ("all paths exhausted (CrossHair's proof: sound within its modelling of Python and of the "
                    "libraries it patches)")


@dataclass(frozen=True)
class ReplayResult:
    """The outcome of replaying a counterexample (see :mod:`evalgap.verifier.engines.replay_worker`)."""

    outcome: str
    data: dict[str, Any]
    status: str


def _clause_end(c: A.Clause) -> int:
    """Last line of a clause (lark's block spans run into the next line; expression spans do not)."""
    if isinstance(c, A.Scenario):
        ends = [getattr(st, "value", getattr(st, "call", None)) for st in c.body]
        return max([int(e.span.end_line) for e in ends if e is not None] + [c.span.line])
    expr = getattr(c, "expr", None)
    return int(expr.span.end_line) if expr is not None and expr.span.line else c.span.line


def formal_text(req: A.Requirement, source: str) -> str:
    """The requirement's clauses exactly as written in the spec (dedented), or '' for informal ones."""
    if req.informal is not None or not req.clauses:
        return ""
    lines = source.splitlines()
    first = min(c.span.line for c in req.clauses)
    last = max(_clause_end(c) for c in req.clauses)
    chunk = [ln for ln in lines[first - 1:last] if ln.strip()]
    indent = min((len(ln) - len(ln.lstrip()) for ln in chunk), default=0)
    return "\n".join(ln[indent:].rstrip() for ln in chunk)


def split_call(invocation: str) -> list[str] | None:
    """Positional and keyword argument sources of CrossHair's ``fn(a, b)`` text; None if not Python."""
    try:
        tree = ast.parse(invocation, mode="eval")
    except SyntaxError:
        return None
    call = tree.body
    if not isinstance(call, ast.Call) or call.keywords:
        return None
    out = []
    for arg in call.args:
        seg = ast.get_source_segment(invocation, arg)
        if seg is None:
            return None
        # CrossHair shows aliasing as `v1:=b''` ... `v1`; a walrus needs parentheses inside a list display
        out.append(f"({seg})" if isinstance(arg, ast.NamedExpr) else seg)
    return out


def replay(harness_dir: Path, harness: Harness, target: Target, function: str, args: list[str],
           expect_zero: bool = False, hash_seed: int | None = None,
           schedule: list[int] | tuple[int, ...] | None = None, returned_limit: int | None = None) -> ReplayResult:
    """Replay ``function(*args)`` of a written harness in a fresh, limited process with contracts enforced.

    Args:
        harness_dir: folder holding ``<harness.module>.py``.
        harness: the harness.
        target: the code under check.
        function: the ``check_...`` function.
        args: Python source of each positional argument.
        expect_zero: a return value other than 0 counts as a violation (examples).
        hash_seed: the replay's ``PYTHONHASHSEED`` (the one the counterexample was found under; default the
            first of :data:`evalgap.verifier.sandbox.runner.HASH_SEEDS`).
        schedule: event-loop choices to follow (a ``schedules`` counterexample); the result's data then
            holds ``steps``, the replayed run's task steps.
        returned_limit: characters of the returned value's ``repr`` kept in the result (default 500).

    Returns:
        A :class:`ReplayResult` with ``outcome`` (``violation``, ``exception``, ``passed``, ``bad-args``,
        ``error``, or the worker status ``timeout``/``crashed``/... when it produced no result).
    """
    request = {"paths": [str(harness_dir), *target.paths], "harness": harness.module, "function": function,
               "args": args, "expect_zero": expect_zero, "target_module": target.module}
    if schedule is not None:
        request["schedule"] = [int(c) for c in schedule]
    if returned_limit is not None:
        request["returned_limit"] = returned_limit
    out = run_worker("replay", request, Limits(cpu_s=20, wall_s=wall_limit(20, 0)), hash_seed=hash_seed)
    if out.result is None:
        return ReplayResult(out.status, {"stderr": out.stderr, "returncode": out.returncode}, out.status)
    return ReplayResult(str(out.result.get("outcome")), out.result, out.status)


def display_call(ob: Obligation, args: list[str]) -> str:
    if ob.kind == "function" and ob.target_function:
        return f"{ob.target_function}({', '.join(args)})"
    named = ", ".join(f"{n}={a}" for (n, _), a in zip(ob.params, args))
    return f"scenario of {ob.req_id} with {named}" if named else f"scenario of {ob.req_id}"


def span_text(span: A.Span, source: str) -> str:
    """The spec text under ``span`` (whitespace folded), or '' when the span is empty."""
    lines = source.splitlines()
    if not span.line or span.line > len(lines):
        return ""
    end_line = min(span.end_line, len(lines))
    if end_line == span.line:
        parts = [lines[span.line - 1][span.col - 1:span.end_col - 1]]
    else:  # a clause span may run over the newline, blank lines and comments that follow it
        parts = [lines[span.line - 1][span.col - 1:], *lines[span.line:end_line - 1],
                 lines[end_line - 1][:span.end_col - 1] if span.end_line <= len(lines) else ""]
        parts = parts[:1] + [p for p in parts[1:] if p.strip() and not p.strip().startswith("#")]
    return " ".join(" ".join(parts).split())


def check_text(ob: Obligation, i: int, source: str) -> str:
    if i < len(ob.check_spans):
        text = span_text(ob.check_spans[i], source)
        if text:
            return f"`{text}`"
    return f"`{ob.checks[i]}`"


def failed_check(ob: Obligation, data: dict[str, Any], source: str) -> str:
    idx = data.get("returned")
    if ob.kind in ("scenario", "example") and isinstance(idx, int) and 1 <= idx <= len(ob.checks):
        text = check_text(ob, idx - 1, source)
        return f"{text} does not hold" if ob.kind == "scenario" else f"{text} fails"
    m = re.search(r"_eg_post_\w+?_(\d+)\b", str(data.get("message", "")))
    if ob.kind == "function" and m and int(m.group(1)) < len(ob.checks):
        return f"postcondition {check_text(ob, int(m.group(1)), source)} is false"
    return "a postcondition is false"


def from_replay(ob: Obligation, rep: ReplayResult, args: list[str], budget: Budget, engine: str,
                 cross_msg: str, elapsed: float, source: str) -> EngineVerdict:
    call = display_call(ob, args)
    named = tuple((n, a) for (n, _), a in zip(ob.params, args))
    d = rep.data
    if d.get("tampered"):
        return EngineVerdict(engine, Verdict.UNKNOWN, f"tampered: replaying {call}, the code under check changed "
                             f"the checking machinery ({'; '.join(d['tampered'][:3])})", budget, call, named, elapsed)
    blocked = d.get("blocked") or []
    if blocked:
        return EngineVerdict(engine, Verdict.UNKNOWN, f"blocked side effect: replaying {call} attempted "
                             f"{blocked[0]}; the sandbox blocked it, so the outcome says nothing about the "
                             "requirement", budget, call, named, elapsed)
    if rep.outcome == "exception" and d.get("type") == "MemoryError":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"memory limit: {call} exceeded the worker's "
                             "address-space limit (MemoryError)", budget, call, named, elapsed)
    if rep.outcome == "violation" and d.get("kind") == "post":
        return EngineVerdict(engine, Verdict.REFUTED, f"{failed_check(ob, d, source)} (replayed concretely)", budget,
                             call, named, elapsed)
    if rep.outcome == "violation":
        return EngineVerdict(engine, Verdict.UNKNOWN, "precondition violated by counterexample: "
                             f"{call} does not meet the preconditions, so it refutes nothing", budget, call, named,
                             elapsed)
    origin = d.get("origin") or ("spec" if d.get("in_harness") else "target")
    if rep.outcome == "exception" and origin == "target":  # a frame of the target's code is on the traceback
        allowed = next((p[len("may raise "):] for p in ob.preconditions if p.startswith("may raise ")), "")
        what = f"allows only {allowed} here" if allowed else "allows no exception here"
        return EngineVerdict(engine, Verdict.REFUTED, f"raised {d.get('type')}: {d.get('message')} (the spec "
                             f"{what}; replayed concretely)", budget, call, named, elapsed)
    if rep.outcome == "exception" and origin == "boundary":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"spec error: calling the target failed at the call "
                             f"boundary with {d.get('type')}: {d.get('message')} on {call} (the spec's signature "
                             "does not match the target's; the target did not run)", budget, call, named, elapsed)
    if rep.outcome == "exception" and origin == "engine":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"engine error: replaying {call} raised {d.get('type')}: "
                             f"{d.get('message')} before the harness ran (the counterexample does not fit the "
                             "check function)", budget, call, named, elapsed)
    if rep.outcome == "exception":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"spec error: the spec's own expression raised "
                             f"{d.get('type')}: {d.get('message')} on {call}", budget, call, named, elapsed)
    if rep.outcome == "passed":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"not reproduced: {engine} reported {cross_msg!r} but "
                             f"the concrete replay of {call} passed", budget, None, (), elapsed)
    if rep.outcome == "bad-args":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"not reproduced: the counterexample's values cannot be "
                             f"rebuilt concretely ({d.get('message')})", budget, None, (), elapsed)
    if rep.outcome == "error":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"import error: {d.get('message')}", budget, None, (),
                             elapsed)
    sig = signal_name(d.get("returncode"))
    how = f"killed by {sig}" if sig else f"exit code {d.get('returncode')}"
    return EngineVerdict(engine, Verdict.UNKNOWN, f"crash: the replay worker of {call} ended with status "
                         f"{rep.status} ({how})", budget, call, named, elapsed)


def hidden_state(out: WorkerOutcome) -> str | None:
    """The ``nondeterminism`` reason when the target changed a numeric module global during the run (a call
    counter: the verdict then holds only for the calls the engine made), else None."""
    changed = out.result.get("state_changed") if out.result else None
    if not changed:
        return None
    return (f"nondeterminism: the code under check keeps state across calls ({'; '.join(map(str, changed[:3]))}), "
            "so its result may depend on how often it ran")


def signal_name(returncode: int | None) -> str | None:
    """``SIGKILL`` for a return code of ``-9`` (a process killed by a signal), else None."""
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


_cpu_limit = cpu_limit_s


def worker_failure(out: WorkerOutcome, budget: Budget, elapsed: float, engine: str = "crosshair",
                   cpu_limit_s: float | None = None) -> EngineVerdict | None:
    """The verdict for a worker that failed (blocked, errored, timed out, killed), or None when it reported.

    Args:
        out: the worker's outcome.
        budget: the budget to report.
        elapsed: wall seconds the engine took.
        engine: the engine's name.
        cpu_limit_s: the worker's CPU limit, seconds (default: the CrossHair budget plus its margin); a
            ``SIGKILL`` well before it was not the limit, and is reported as a kill, with the signal named.

    Returns:
        An ``unknown`` :class:`EngineVerdict` whose reason names the cause (``killed by SIGKILL``), or None.
    """
    if out.result is not None and out.result.get("tampered"):
        return EngineVerdict(engine, Verdict.UNKNOWN, "tampered: the code under check changed the checking "
                             f"machinery ({'; '.join(map(str, out.result['tampered'][:3]))}); no verdict is "
                             "given", budget, elapsed_s=elapsed)
    if out.result is not None and out.result.get("blocked"):
        return EngineVerdict(engine, Verdict.UNKNOWN, f"blocked side effect: the code under check attempted "
                             f"{out.result['blocked'][0]}; the sandbox blocked it", budget, elapsed_s=elapsed)
    if out.result is not None:
        err = out.result.get("error")
        if err is None:
            return None
        kind = "import error" if out.result.get("stage") == "import" else "engine error"
        return EngineVerdict(engine, Verdict.UNKNOWN, f"{kind}: {err}", budget, elapsed_s=elapsed)
    sig = signal_name(out.returncode)
    limit = cpu_limit_s if cpu_limit_s is not None else (
        _cpu_limit(budget.seconds) if budget.seconds is not None else None)
    of = f" of {limit:g} CPU s" if limit is not None else ""
    given = f" (the budget of {budget.seconds:g} s plus a margin)" if budget.seconds is not None and limit else ""
    reasons = {
        "timeout": f"timeout: the wall-clock limit fired: the worker exceeded its wall-clock limit "
                   f"({out.wall_s:.0f} s) and was killed",
        "cpu-limit": f"budget exhausted: the CPU limit fired: the worker used its CPU limit{of}{given} and was "
                     f"killed by {sig}",
        "memory": "memory limit: the worker ran out of its address-space limit",
    }
    status = out.status
    if status == "cpu-limit" and sig in ("SIGKILL", "SIGPROF") and limit is not None and out.wall_s < limit:
        status = "crashed"  # the CPU limit cannot have been reached in less wall time: the signal came from elsewhere
    if status == "crashed" and out.returncode == UNTRUSTED_EXIT:
        reason = ("tampered: the result file was not the worker's own at the end (the code under check wrote to "
                  "it, pointed its descriptor elsewhere or left a thread running), so no result of this run is "
                  "kept")
    elif status == "crashed" and sig is not None:
        reason = (f"crash: killed by {sig} after {out.wall_s:.1f} s, before any limit of evalgap's was reached "
                  f"(the code under check, or another process, sent the signal); {out.stderr.strip()[-300:]}")
    else:
        reason = reasons.get(status, f"crash: the analyzed code ended the worker (exit code {out.returncode}) "
                                     f"before it reported; {out.stderr.strip()[-300:]}")
    return EngineVerdict(engine, Verdict.UNKNOWN, reason.rstrip("; "), budget, elapsed_s=elapsed)
