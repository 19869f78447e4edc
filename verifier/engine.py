"""Check a spec's requirements against a target: CrossHair in worker processes, concrete replay of every
counterexample, honest verdicts (see :mod:`evalgap.verifier.findings`)."""

from __future__ import annotations

import ast
import hashlib
import re
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import TranslationError
from evalgap.translators.to_hypothesis import obligation_strategies, requirement_strategies
from evalgap.translators.to_icontract import Harness, Obligation, build_harness
from evalgap.verifier.cache import ResultCache, cacheable, default_cache_dir, entry_key, names_in, target_fingerprint
from evalgap.verifier.emit_tests import reproducer_snippet
from evalgap.verifier.findings import Budget, EngineVerdict, RequirementResult, Verdict, worst
from evalgap.verifier.options import DEFAULT_BUDGET_S
from evalgap.verifier.sandbox import Limits, WorkerOutcome, prestart, run_worker, wall_limit
from evalgap.verifier.targets import Target

__all__ = ["CheckOptions", "check_spec", "replay", "ReplayResult", "formal_text", "span_text", "overall",
           "warm_up", "CPU_LIMIT_MARGIN_S"]

#: CPU seconds a CrossHair worker may use beyond its budget (start-up, Z3, cleanup) before it is killed.
CPU_LIMIT_MARGIN_S = 15.0

#: The CrossHair budget of ``evalgap check`` with no option, profile or pyproject setting (CPU seconds).
DEFAULT_BUDGET_CHECK = DEFAULT_BUDGET_S

CROSSHAIR_CAVEAT = ("all paths exhausted (CrossHair's proof: sound within its modelling of Python and of the "
                    "libraries it patches)")


@dataclass(frozen=True)
class CheckOptions:
    """Options of a check run.

    Attributes:
        budget_s: CPU seconds of CrossHair per requirement (split across its postconditions).
        jobs: requirements checked in parallel (worker processes).
        memory_bytes: address-space limit of each worker, bytes.
        engines: the engines run on each formal requirement, in order (``crosshair``, ``hypothesis``).
        hypothesis_examples: Hypothesis's ``max_examples`` per requirement.
        seed: Hypothesis seed for research runs; None means ``derandomize=True`` (``check``/``gate``).
        cache: answer unchanged requirements from the on-disk cache (:mod:`evalgap.verifier.cache`).
        cache_dir: the cache folder (None: :func:`evalgap.verifier.cache.default_cache_dir`).
    """

    budget_s: float = 10.0
    jobs: int = 1
    memory_bytes: int = 4 * 1024**3
    engines: tuple[str, ...] = ("crosshair",)
    hypothesis_examples: int = 200
    seed: int | None = None
    cache: bool = False
    cache_dir: Path | None = None


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
               "args": args, "expect_zero": expect_zero, "target_module": target.module}
    out = run_worker("evalgap.verifier.replay_worker", request, Limits(cpu_s=20, wall_s=wall_limit(20, 0)))
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
    blocked = d.get("blocked") or []
    if blocked:
        return EngineVerdict(engine, Verdict.UNKNOWN, f"blocked side effect: replaying {call} attempted "
                             f"{blocked[0]}; the sandbox blocked it, so the outcome says nothing about the "
                             "requirement", budget, call, named, elapsed)
    if rep.outcome == "exception" and d.get("type") == "MemoryError":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"memory limit: {call} exceeded the worker's "
                             "address-space limit (MemoryError)", budget, call, named, elapsed)
    if rep.outcome == "violation" and d.get("kind") == "post":
        return EngineVerdict(engine, Verdict.REFUTED, f"{_failed_check(ob, d, source)} (replayed concretely)", budget,
                             call, named, elapsed)
    if rep.outcome == "violation":
        return EngineVerdict(engine, Verdict.UNKNOWN, "precondition violated by counterexample: "
                             f"{call} does not meet the preconditions, so it refutes nothing", budget, call, named,
                             elapsed)
    origin = d.get("origin") or ("spec" if d.get("in_harness") else "target")
    if rep.outcome == "exception" and origin == "target":  # a frame of the target's code is on the traceback
        return EngineVerdict(engine, Verdict.REFUTED, f"raised {d.get('type')}: {d.get('message')} (the spec "
                             "allows no exception here; replayed concretely)", budget, call, named, elapsed)
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
    return EngineVerdict(engine, Verdict.UNKNOWN, f"crash: the replay worker ended with status {rep.status} "
                         f"(exit code {d.get('returncode')})", budget, call, named, elapsed)


def _worker_failure(out: WorkerOutcome, budget: Budget, elapsed: float,
                    engine: str = "crosshair") -> EngineVerdict | None:
    if out.result is not None and out.result.get("blocked"):
        return EngineVerdict(engine, Verdict.UNKNOWN, f"blocked side effect: the code under check attempted "
                             f"{out.result['blocked'][0]}; the sandbox blocked it", budget, elapsed_s=elapsed)
    if out.result is not None:
        err = out.result.get("error")
        if err is None:
            return None
        kind = "import error" if out.result.get("stage") == "import" else "engine error"
        return EngineVerdict(engine, Verdict.UNKNOWN, f"{kind}: {err}", budget, elapsed_s=elapsed)
    reasons = {
        "timeout": f"timeout: the worker exceeded its wall-clock limit ({out.wall_s:.0f} s) and was killed",
        "cpu-limit": "budget exhausted: the worker hit its CPU limit and was killed",
        "memory": "memory limit: the worker ran out of its address-space limit",
    }
    reason = reasons.get(out.status, f"crash: the analyzed code ended the worker (exit code {out.returncode}) "
                                     f"before it reported; {out.stderr.strip()[-300:]}")
    return EngineVerdict(engine, Verdict.UNKNOWN, reason, budget, elapsed_s=elapsed)


_REFUTING = ("POST_FAIL", "EXEC_ERR", "POST_ERR")


def _crosshair(ob: Obligation, harness: Harness, hdir: Path, target: Target, opts: CheckOptions,
               source: str) -> EngineVerdict:
    start = time.monotonic()
    n_conditions = max(1, len(ob.checks) if ob.kind == "function" else 1)
    per_condition = opts.budget_s / n_conditions
    request = {"paths": [str(hdir), *target.paths], "harness": harness.module, "function": ob.function,
               "budget_s": per_condition, "per_path_timeout_s": max(0.5, per_condition / 2)}
    limits = Limits(cpu_s=opts.budget_s + CPU_LIMIT_MARGIN_S, wall_s=wall_limit(opts.budget_s), memory_bytes=opts.memory_bytes)
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
    if all(c.get("status") == "CONFIRMED" and int(c.get("confirmed_paths", 0)) > 0 for c in conds):
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


def _segment(harness: Harness, req_id: str) -> str:
    """The harness code generated for ``req_id`` (without its location comment), or the whole harness."""
    lines = harness.source.splitlines()
    marker = f"# ---- requirement {req_id} ("
    starts = [i for i, ln in enumerate(lines) if ln.startswith(marker)]
    if not starts:
        return harness.source
    end = next((i for i in range(starts[0] + 1, len(lines)) if lines[i].startswith("# ---- requirement ")),
               len(lines))
    return "\n".join(lines[starts[0] + 1:end])


def _engine_budget(engine: str, opts: CheckOptions) -> dict[str, Any]:
    if engine == "crosshair":
        return {"seconds": opts.budget_s, "memory": opts.memory_bytes}
    if engine == "hypothesis":
        return {"examples": opts.hypothesis_examples, "seed": opts.seed, "memory": opts.memory_bytes}
    return {"memory": opts.memory_bytes}


def _strategies(req: A.Requirement, owner: object, ob: Obligation, spec: A.Spec | None) -> tuple[str, ...] | str:
    try:
        if spec is not None:  # every parameter of the check function (constructor, steps, stub picks)
            return obligation_strategies(spec, req, owner, ob.params)
        return requirement_strategies(req, owner)
    except TranslationError as exc:
        return str(exc)


def _run_engine(engine: str, req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path,
                target: Target, source: str, opts: CheckOptions, spec: A.Spec | None = None) -> EngineVerdict:
    if engine == "example":
        return _examples(ob, harness, hdir, target, source)
    if engine == "hypothesis":
        from evalgap.verifier.hypothesis_engine import run_hypothesis

        return run_hypothesis(ob, harness, hdir, target, opts, source, _strategies(req, owner, ob, spec))
    if engine != "crosshair":
        return EngineVerdict(engine, Verdict.UNKNOWN, f"engine error: no engine named {engine!r}")
    return _crosshair(ob, harness, hdir, target, opts, source)


def _cache_key(engine: str, ob: Obligation, harness: Harness, target: Target, opts: CheckOptions) -> str | None:
    code = _segment(harness, ob.req_id)
    fp = target_fingerprint(target.module, target.paths, names_in(code))
    if fp is None:
        return None
    obl = repr((ob.kind, ob.params, ob.target_function, ob.checks, ob.preconditions))
    return entry_key(engine, code + "\n" + obl, fp, _engine_budget(engine, opts))


def _engines_of(ob: Obligation, opts: CheckOptions) -> tuple[str, ...]:
    if ob.kind == "example":
        return ("example",)
    return opts.engines if ob.kind in ("function", "scenario") else ()


def _cached_run(engine: str, req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path,
                target: Target, source: str, opts: CheckOptions, cache: ResultCache | None,
                spec: A.Spec | None = None) -> EngineVerdict:
    key = None
    if cache is not None:
        key = _cache_key(engine, ob, harness, target, opts)
        hit = cache.get(key) if key is not None else None
        if hit is not None:
            return replace(hit, cached=True)
    v = _run_engine(engine, req, owner, ob, harness, hdir, target, source, opts, spec)
    if v.verdict is Verdict.REFUTED and v.reproducer is None:
        v = replace(v, reproducer=reproducer_snippet(ob, harness, target, v))
    if cache is not None and key is not None and cacheable(v):
        cache.put(key, v)
    return v


def overall(verdicts: list[Verdict]) -> Verdict | None:
    """The overall verdict over engines: ``refuted`` if any engine refuted (each refutation was replayed
    concretely); else ``verified`` if CrossHair exhausted every path (a proof is not weakened by a random
    tester that did not finish); else the worst of the rest (unknown > no-counterexample)."""
    if Verdict.REFUTED in verdicts:
        return Verdict.REFUTED
    if Verdict.VERIFIED in verdicts:
        return Verdict.VERIFIED
    return worst(verdicts)


def _check_one(req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path, target: Target,
               source: str, opts: CheckOptions, cache: ResultCache | None = None,
               spec: A.Spec | None = None) -> RequirementResult:
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
        verdicts = [EngineVerdict("none", Verdict.UNKNOWN, f"unsupported: {ob.reason}")]
    elif ob.kind == "example":
        verdicts = [_cached_run("example", req, owner, ob, harness, hdir, target, source, opts, cache)]
    else:
        verdicts = [_cached_run(e, req, owner, ob, harness, hdir, target, source, opts, cache, spec)
                    for e in opts.engines]
    verdict = overall([v.verdict for v in verdicts])
    return RequirementResult(**base, verdicts=tuple(verdicts), verdict=verdict,  # type: ignore[arg-type]
                             elapsed_s=time.monotonic() - start)


def _estimated_cost(ob: Obligation) -> int:
    """A rough rank of how long ``ob`` takes to check (higher: longer): symbolic inputs multiply paths,
    each checked clause is a separate CrossHair condition; examples are concrete calls (cheap)."""
    if ob.kind not in ("function", "scenario"):
        return 1
    return 10 + 10 * len(ob.params) + len(ob.checks)


def warm_up(opts: CheckOptions, requirements: int | None = None) -> None:
    """Start the fork servers ``opts`` will need in the background (call early, e.g. before parsing, so
    their start-up overlaps other work); ``requirements`` caps how many of each kind are started."""
    kinds = [f"evalgap.verifier.{e}_worker" for e in opts.engines] + ["evalgap.verifier.replay_worker"]
    prestart(kinds, min(max(1, opts.jobs), requirements or opts.jobs))


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
    cache = ResultCache(opts.cache_dir or default_cache_dir()) if opts.cache else None
    todo = [(e, ob) for ob in harness.obligations for e in _engines_of(ob, opts)]
    if cache is not None:  # start workers only for what the cache cannot answer
        todo = [(e, ob) for e, ob in todo if not cache.contains(_cache_key(e, ob, harness, target, opts))]
    if todo:
        warm_up(replace(opts, engines=tuple(dict.fromkeys(e for e, _ in todo if e != "example"))),
                len({ob.req_id for _, ob in todo}))
    cost = {ob.req_id: _estimated_cost(ob) for _, ob in todo}
    with tempfile.TemporaryDirectory(prefix="evalgap-harness-") as tmp:
        hdir = Path(tmp)
        (hdir / f"{harness.module}.py").write_text(harness.source, encoding="utf-8")

        def run(pair: tuple[A.Requirement, object]) -> RequirementResult:
            req, owner = pair
            text = (sources or {}).get(req.span.file, source)  # requirements of imported files
            try:
                res = _check_one(req, owner, harness.obligation(req.id), harness, hdir, target, text, opts,
                                 cache, spec)
            except Exception as exc:  # noqa: BLE001 - an engine bug must not lose the other verdicts
                v = EngineVerdict("none", Verdict.UNKNOWN, f"engine error: {type(exc).__name__}: {exc}")
                res = RequirementResult(req.id, req.prose, str(req.span), _formalization(req),
                                        verdicts=(v,), verdict=Verdict.UNKNOWN)
            if progress is not None:
                progress(res)
            return res

        # longest first (LPT): the slow requirements start at once and the quick ones fill the gaps, so
        # with N workers the last one to finish is rarely a slow one started late; results in source order
        order = sorted(range(len(pairs)), key=lambda i: -cost.get(pairs[i][0].id, 0))
        with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            futures = {i: pool.submit(run, pairs[i]) for i in order}
            return [futures[i].result() for i in range(len(pairs))]
