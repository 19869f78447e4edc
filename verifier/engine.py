"""Check a spec's requirements against a target: CrossHair in worker processes, concrete replay of every
counterexample, honest verdicts (see :mod:`evalgap.verifier.findings`)."""

from __future__ import annotations

import ast
import hashlib
import re
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from evalgap.specs_lang import ast as A
from evalgap.translators.to_icontract import Harness, Obligation, build_harness
from evalgap.verifier.findings import Budget, EngineVerdict, RequirementResult, Verdict, worst
from evalgap.verifier.sandbox import Limits, WorkerOutcome, run_worker
from evalgap.verifier.targets import Target

__all__ = ["CheckOptions", "check_spec", "replay", "ReplayResult", "formal_text", "span_text"]

CROSSHAIR_CAVEAT = ("all paths exhausted (CrossHair's proof: sound within its modelling of Python and of the "
                    "libraries it patches)")


@dataclass(frozen=True)
class CheckOptions:
    """Options of a check run.

    Attributes:
        budget_s: CPU seconds of CrossHair per requirement (split across its postconditions).
        jobs: requirements checked in parallel (worker processes).
        memory_bytes: address-space limit of each worker, bytes.
    """

    budget_s: float = 10.0
    jobs: int = 1
    memory_bytes: int = 4 * 1024**3


@dataclass(frozen=True)
class ReplayResult:
    """The outcome of replaying a counterexample (see :mod:`evalgap.verifier.replay_worker`)."""

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


def _split_call(invocation: str) -> list[str] | None:
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
           expect_zero: bool = False) -> ReplayResult:
    """Replay ``function(*args)`` of a written harness in a fresh, limited process with contracts enforced.

    Args:
        harness_dir: folder holding ``<harness.module>.py``.
        harness: the harness.
        target: the code under check.
        function: the ``check_...`` function.
        args: Python source of each positional argument.
        expect_zero: a return value other than 0 counts as a violation (examples).

    Returns:
        A :class:`ReplayResult` with ``outcome`` (``violation``, ``exception``, ``passed``, ``bad-args``,
        ``error``, or the worker status ``timeout``/``crashed``/... when it produced no result).
    """
    request = {"paths": [str(harness_dir), *target.paths], "harness": harness.module, "function": function,
               "args": args, "expect_zero": expect_zero}
    out = run_worker("evalgap.verifier.replay_worker", request, Limits(cpu_s=20, wall_s=40))
    if out.result is None:
        return ReplayResult(out.status, {"stderr": out.stderr, "returncode": out.returncode}, out.status)
    return ReplayResult(str(out.result.get("outcome")), out.result, out.status)


def _display_call(ob: Obligation, args: list[str]) -> str:
    if ob.kind == "function" and ob.target_function:
        return f"{ob.target_function}({', '.join(args)})"
    named = ", ".join(f"{n}={a}" for (n, _), a in zip(ob.params, args))
    return f"scenario of {ob.req_id} with {named}" if named else f"scenario of {ob.req_id}"


def span_text(span: A.Span, source: str) -> str:
    """The spec text under ``span`` (whitespace folded), or '' when the span is empty."""
    lines = source.splitlines()
    if not span.line or span.line > len(lines) or span.end_line > len(lines):
        return ""
    if span.end_line == span.line:
        text = lines[span.line - 1][span.col - 1:span.end_col - 1]
    else:
        text = " ".join([lines[span.line - 1][span.col - 1:], *lines[span.line:span.end_line - 1],
                         lines[span.end_line - 1][:span.end_col - 1]])
    return " ".join(text.split())


def _check_text(ob: Obligation, i: int, source: str) -> str:
    if i < len(ob.check_spans):
        text = span_text(ob.check_spans[i], source)
        if text:
            return f"`{text}`"
    return f"`{ob.checks[i]}`"


def _failed_check(ob: Obligation, data: dict[str, Any], source: str) -> str:
    idx = data.get("returned")
    if ob.kind in ("scenario", "example") and isinstance(idx, int) and 1 <= idx <= len(ob.checks):
        text = _check_text(ob, idx - 1, source)
        return f"{text} does not hold" if ob.kind == "scenario" else f"{text} fails"
    m = re.search(r"_eg_post_\w+?_(\d+)\b", str(data.get("message", "")))
    if ob.kind == "function" and m and int(m.group(1)) < len(ob.checks):
        return f"postcondition {_check_text(ob, int(m.group(1)), source)} is false"
    return "a postcondition is false"


def _from_replay(ob: Obligation, rep: ReplayResult, args: list[str], budget: Budget, engine: str,
                 cross_msg: str, elapsed: float, source: str) -> EngineVerdict:
    call = _display_call(ob, args)
    named = tuple((n, a) for (n, _), a in zip(ob.params, args))
    d = rep.data
    if rep.outcome == "violation" and d.get("kind") == "post":
        return EngineVerdict(engine, Verdict.REFUTED, f"{_failed_check(ob, d, source)} (replayed concretely)", budget,
                             call, named, elapsed)
    if rep.outcome == "violation":
        return EngineVerdict(engine, Verdict.UNKNOWN, "precondition violated by counterexample: "
                             f"{call} does not meet the preconditions, so it refutes nothing", budget, call, named,
                             elapsed)
    if rep.outcome == "exception" and not d.get("in_harness"):
        return EngineVerdict(engine, Verdict.REFUTED, f"raised {d.get('type')}: {d.get('message')} (the spec "
                             "allows no exception here; replayed concretely)", budget, call, named, elapsed)
    if rep.outcome == "exception":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"spec error: the spec's own expression raised "
                             f"{d.get('type')}: {d.get('message')} on {call}", budget, call, named, elapsed)
    if rep.outcome == "passed":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"not reproduced: CrossHair reported {cross_msg!r} but "
                             f"the concrete replay of {call} passed", budget, None, (), elapsed)
    if rep.outcome == "bad-args":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"not reproduced: the counterexample's values cannot be "
                             f"rebuilt concretely ({d.get('message')})", budget, None, (), elapsed)
    if rep.outcome == "error":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"import error: {d.get('message')}", budget, None, (),
                             elapsed)
    return EngineVerdict(engine, Verdict.UNKNOWN, f"crash: the replay worker ended with status {rep.status} "
                         f"(exit code {d.get('returncode')})", budget, call, named, elapsed)


def _worker_failure(out: WorkerOutcome, budget: Budget, elapsed: float) -> EngineVerdict | None:
    if out.result is not None:
        err = out.result.get("error")
        if err is None:
            return None
        kind = "import error" if out.result.get("stage") == "import" else "engine error"
        return EngineVerdict("crosshair", Verdict.UNKNOWN, f"{kind}: {err}", budget, elapsed_s=elapsed)
    reasons = {
        "timeout": "timeout: the worker exceeded its wall-clock limit and was killed",
        "cpu-limit": "budget exhausted: the worker hit its CPU limit and was killed",
        "memory": "memory limit: the worker ran out of its address-space limit",
    }
    reason = reasons.get(out.status, f"crash: the analyzed code ended the worker (exit code {out.returncode}) "
                                     f"before it reported; {out.stderr.strip()[-300:]}")
    return EngineVerdict("crosshair", Verdict.UNKNOWN, reason, budget, elapsed_s=elapsed)


_REFUTING = ("POST_FAIL", "EXEC_ERR", "POST_ERR")


def _crosshair(ob: Obligation, harness: Harness, hdir: Path, target: Target, opts: CheckOptions,
               source: str) -> EngineVerdict:
    start = time.monotonic()
    n_conditions = max(1, len(ob.checks) if ob.kind == "function" else 1)
    per_condition = opts.budget_s / n_conditions
    request = {"paths": [str(hdir), *target.paths], "harness": harness.module, "function": ob.function,
               "budget_s": per_condition, "per_path_timeout_s": max(0.5, per_condition / 2)}
    limits = Limits(cpu_s=opts.budget_s + 15, wall_s=2 * opts.budget_s + 30, memory_bytes=opts.memory_bytes)
    out = run_worker("evalgap.verifier.crosshair_worker", request, limits)
    used = out.result.get("cpu_s") if out.result else None
    conds: list[dict[str, Any]] = list(out.result.get("conditions", [])) if out.result else []
    paths = sum(int(c.get("confirmed_paths", 0)) for c in conds) if conds else None
    budget = Budget(seconds=opts.budget_s, used_s=used, paths=paths)
    failed = _worker_failure(out, budget, time.monotonic() - start)
    if failed is not None:
        return failed
    if not conds:
        return EngineVerdict("crosshair", Verdict.UNKNOWN, "engine error: CrossHair found no condition to check",
                             budget, elapsed_s=time.monotonic() - start)
    messages = [m for c in conds for m in c.get("messages", [])]
    refuting = [m for m in messages if m.get("state") in _REFUTING]
    if refuting:
        m = refuting[0]
        text = str(m.get("message", ""))
        if "NotDeterministic" in text:
            return EngineVerdict("crosshair", Verdict.UNKNOWN, "nondeterminism: the code took different paths "
                                 "for the same inputs", budget, elapsed_s=time.monotonic() - start)
        if "SideEffectDetected" in text:
            return EngineVerdict("crosshair", Verdict.UNKNOWN, f"blocked side effect: {text}", budget,
                                 elapsed_s=time.monotonic() - start)
        if m.get("state") == "POST_ERR":
            return EngineVerdict("crosshair", Verdict.UNKNOWN, f"spec error: a condition raised: {text}", budget,
                                 elapsed_s=time.monotonic() - start)
        args = _split_call(str(m.get("invocation") or ""))
        if args is None:
            return EngineVerdict("crosshair", Verdict.UNKNOWN, f"not reproduced: CrossHair's counterexample "
                                 f"cannot be rebuilt as Python values ({text})", budget,
                                 elapsed_s=time.monotonic() - start)
        assert ob.function is not None
        rep = replay(hdir, harness, target, ob.function, args)
        return _from_replay(ob, rep, args, budget, "crosshair", text, time.monotonic() - start, source)
    if any(m.get("state") == "PRE_UNSAT" for m in messages):
        return EngineVerdict("crosshair", Verdict.UNKNOWN, "vacuous precondition: CrossHair found no input "
                             "meeting the preconditions", budget, elapsed_s=time.monotonic() - start)
    elapsed = time.monotonic() - start
    if all(c.get("status") == "CONFIRMED" for c in conds):
        return EngineVerdict("crosshair", Verdict.VERIFIED, CROSSHAIR_CAVEAT, budget, elapsed_s=elapsed)
    if all(int(c.get("confirmed_paths", 0)) > 0 for c in conds):
        return EngineVerdict("crosshair", Verdict.NO_COUNTEREXAMPLE, f"no counterexample within "
                             f"{budget.describe()}; not all paths were explored, so this is not a proof",
                             budget, elapsed_s=elapsed)
    return EngineVerdict("crosshair", Verdict.UNKNOWN, f"budget exhausted: no execution path completed within "
                         f"{opts.budget_s:g} s", budget, elapsed_s=elapsed)


def _examples(ob: Obligation, harness: Harness, hdir: Path, target: Target, source: str) -> EngineVerdict:
    start = time.monotonic()
    assert ob.function is not None
    rep = replay(hdir, harness, target, ob.function, [], expect_zero=True)
    budget = Budget(examples=len(ob.checks))
    elapsed = time.monotonic() - start
    if rep.outcome == "passed":
        return EngineVerdict("example", Verdict.NO_COUNTEREXAMPLE, f"all {len(ob.checks)} concrete example(s) "
                             "hold (a test, not a property)", budget, elapsed_s=elapsed)
    if rep.outcome == "violation":
        idx = rep.data.get("returned")
        ok = isinstance(idx, int) and 1 <= idx <= len(ob.checks)
        text = _check_text(ob, idx - 1, source) if ok else "an example"  # type: ignore[operator]
        return EngineVerdict("example", Verdict.REFUTED, f"example {text} fails (run concretely)", budget,
                             text.strip("`"), (), elapsed)
    return _from_replay(ob, rep, [], budget, "example", "", elapsed, source)


def _formalization(req: A.Requirement) -> str:
    if req.informal is not None:
        return "informal"
    if req.clauses and all(isinstance(c, A.Example) for c in req.clauses):
        return "example"
    return "formal"


def _check_one(req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path, target: Target,
               source: str, opts: CheckOptions) -> RequirementResult:
    start = time.monotonic()
    base = dict(id=req.id, prose=req.prose, location=str(req.span), formalization=_formalization(req),
                formal_text=formal_text(req, source),
                function=getattr(owner, "name", None) if isinstance(owner, A.FunctionDecl) else None,
                narrowed_by=ob.preconditions)
    if ob.kind == "informal":
        inf = req.informal
        assert inf is not None
        v = EngineVerdict("none", Verdict.NOT_FORMALIZED, f"{inf.category}: {inf.reason}")
        return RequirementResult(**base, category=inf.category, informal_reason=inf.reason,  # type: ignore[arg-type]
                                 verdicts=(v,), verdict=Verdict.NOT_FORMALIZED)
    if ob.kind == "precondition":
        return RequirementResult(**base, role="precondition")  # type: ignore[arg-type]
    if ob.kind == "config":  # a rule over a configuration file: `check-config` / the Z3 analysis
        return RequirementResult(**base, role="config")  # type: ignore[arg-type]
    if ob.kind == "unsupported":
        v = EngineVerdict("none", Verdict.UNKNOWN, f"unsupported: {ob.reason}")
    elif ob.kind == "example":
        v = _examples(ob, harness, hdir, target, source)
    else:
        v = _crosshair(ob, harness, hdir, target, opts, source)
    verdict = worst([v.verdict])
    return RequirementResult(**base, verdicts=(v,), verdict=verdict,  # type: ignore[arg-type]
                             elapsed_s=time.monotonic() - start)


def check_spec(spec: A.Spec, source: str, target: Target, opts: CheckOptions,
               progress: Callable[[RequirementResult], None] | None = None,
               sources: dict[str, str] | None = None) -> list[RequirementResult]:
    """Check every requirement of ``spec`` against ``target``.

    Args:
        spec: a parsed, structurally checked spec.
        source: the spec's text (for the formal text shown in reports).
        target: the code under check.
        opts: budget, parallelism and limits.
        progress: called with each result as it completes (from worker threads' completion order).
        sources: file name -> text of every file of the spec (imports), for requirements of other files.

    Returns:
        One :class:`RequirementResult` per requirement, in source order. Never raises for anything the
        target code does: that becomes a verdict.
    """
    digest = hashlib.sha256((source + target.module).encode()).hexdigest()[:12]
    harness = build_harness(spec, target.module, f"evalgap_harness_{digest}")
    pairs = spec.all_requirements()
    with tempfile.TemporaryDirectory(prefix="evalgap-harness-") as tmp:
        hdir = Path(tmp)
        (hdir / f"{harness.module}.py").write_text(harness.source, encoding="utf-8")

        def run(pair: tuple[A.Requirement, object]) -> RequirementResult:
            req, owner = pair
            text = (sources or {}).get(req.span.file, source)  # requirements of imported files
            try:
                res = _check_one(req, owner, harness.obligation(req.id), harness, hdir, target, text, opts)
            except Exception as exc:  # noqa: BLE001 - an engine bug must not lose the other verdicts
                v = EngineVerdict("none", Verdict.UNKNOWN, f"engine error: {type(exc).__name__}: {exc}")
                res = RequirementResult(req.id, req.prose, str(req.span), _formalization(req),
                                        verdicts=(v,), verdict=Verdict.UNKNOWN)
            if progress is not None:
                progress(res)
            return res

        with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            return list(pool.map(run, pairs))
