"""Check a spec's requirements against a target: every obligation through each selected engine of the
registry (:mod:`evalgap.verifier.engines.registry`), answers from the result cache where nothing changed,
requirements in parallel (longest first), one overall verdict per requirement (see
:mod:`evalgap.verifier.findings`)."""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from evalgap.specs_lang import ast as A
from evalgap.translators.to_icontract import Harness, Obligation, build_harness
from evalgap.verifier.cache import (ResultCache, cacheable, default_cache_dir, entry_key, names_in, static_inputs,
                                    target_fingerprint)
from evalgap.verifier.cachestore import modified_since
from evalgap.verifier.engines import registry
from evalgap.verifier.engines.common import (CPU_LIMIT_MARGIN_S, INTEGRITY_REASONS, ReplayResult, formal_text,
                                             replay, span_text)
from evalgap.verifier.engines.registry import EngineJob
from evalgap.verifier.findings import EngineVerdict, RequirementResult, Verdict, worst
from evalgap.verifier.options import Settings
from evalgap.verifier.project.targets import Target
from evalgap.verifier.sandbox.harness_load import write_prepared
from evalgap.verifier.report.emit_tests import reproducer_snippet
from evalgap.verifier.sandbox import record
from evalgap.verifier.sandbox.runner import Cancel, cancellable, prestart, was_cancelled
from evalgap.verifier.sandbox.scratch import scratch_dir

__all__ = ["check_spec", "replay", "ReplayResult", "formal_text", "span_text", "overall", "warm_up",
           "CPU_LIMIT_MARGIN_S"]



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


def _run_engine(engine: str, req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path,
                target: Target, source: str, opts: Settings, spec: A.Spec | None = None) -> EngineVerdict:
    impl = registry.get(engine)
    if impl is None:
        return EngineVerdict(engine, Verdict.UNKNOWN, f"engine error: no engine named {engine!r}")
    return impl.run(EngineJob(req, owner, ob, harness, hdir, target, source, opts, spec))


def _engine_budget(engine: str, opts: Settings) -> dict[str, Any]:
    impl = registry.get(engine)
    return impl.budget(opts) if impl is not None else {"memory": opts.memory_bytes}


def _cache_key(engine: str, ob: Obligation, harness: Harness, target: Target, opts: Settings) -> str | None:
    code = _segment(harness, ob.req_id)
    fp = target_fingerprint(target.module, target.paths, names_in(code))
    if fp is None:
        return None
    obl = repr((ob.kind, ob.params, ob.target_function, ob.checks, ob.preconditions)
               + ((ob.explore, ob.explore_bounds) if ob.explore else ()))
    if ob.kind == "database":  # the schema's DDL is part of what the verdict depends on
        try:
            obl += "\n" + Path(ob.reason).read_text(encoding="utf-8")
        except OSError:
            return None
    return entry_key(engine, code + "\n" + obl, fp, _engine_budget(engine, opts))


def _engines_of(ob: Obligation, opts: Settings) -> tuple[str, ...]:
    if ob.kind == "example":
        return ("example",)
    if ob.explore is not None:  # `explore schedules`: the exploring engine instead of the selected ones
        return (ob.explore,)
    return opts.engines if ob.kind in ("function", "scenario") else ()


def _cached_run(engine: str, req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path,
                target: Target, source: str, opts: Settings, cache: ResultCache | None,
                spec: A.Spec | None = None) -> EngineVerdict:
    key = None
    if cache is not None:
        key = _cache_key(engine, ob, harness, target, opts)
        hit = cache.get(key) if key is not None else None
        if hit is not None:
            return replace(hit, cached=True)
    started = time.time()
    # the replay server (for a counterexample of this or a later engine run) starts beside the engine, not
    # with the engines' servers at the start of a check, where it slowed the servers a check waits for
    prestart(["replay"], 1)
    with record.collecting() as seen:  # every worker's run-time record of what the target read
        v = _run_engine(engine, req, owner, ob, harness, hdir, target, source, opts, spec)
    if was_cancelled():  # stopped by another engine's refutation: not this engine's answer, never cached
        return v
    if ob.model is not None and v.verdict is Verdict.REFUTED:
        from evalgap.verifier.engines.model_min import shorten

        v = shorten(v, ob, harness, hdir, target)  # the shortest failing call sequence, as a readable test
    if ob.bounds and v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE):
        v = replace(v, bounds=tuple(dict.fromkeys((*v.bounds, *ob.bounds))))  # the harness's own limits
    if v.verdict is Verdict.REFUTED and v.reproducer is None:
        v = replace(v, reproducer=reproducer_snippet(ob, harness, target, v))
    if cache is not None and key is not None and cacheable(v):
        # the key again, after the run: a target (or anyone) that changed a file or a distribution's metadata
        # the key covers while it ran must not leave a verdict under the key of what it changed from
        if _cache_key(engine, ob, harness, target, opts) != key:
            return v
        covered, installed = static_inputs(target.module, target.paths)
        if modified_since(covered, started):  # rewritten and restored while it ran
            return v
        inputs = record.classify(seen, target.paths, covered, [str(hdir)], installed)
        cache.put(key, v, inputs, since=started)  # not stored when the inputs cannot be enumerated
    return v


def overall(verdicts: list[Verdict], reasons: list[str] | None = None) -> Verdict | None:
    """The overall verdict over engines: ``refuted`` if any engine refuted (each refutation was replayed
    concretely); else ``unknown`` if any engine saw nondeterminism, tampering, a hash-seed dependence or
    gaming (``reasons``, parallel to ``verdicts``: such an unknown outweighs another engine's proof); else
    ``verified`` if CrossHair exhausted every path (a proof is not weakened by a random tester that did not
    finish); else the worst of the rest (unknown > no-counterexample)."""
    if Verdict.REFUTED in verdicts:
        return Verdict.REFUTED
    if any(v is Verdict.UNKNOWN and r.startswith(INTEGRITY_REASONS) for v, r in zip(verdicts, reasons or [])):
        return Verdict.UNKNOWN
    if Verdict.VERIFIED in verdicts:
        return Verdict.VERIFIED
    return worst(verdicts)


def _check_one(req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path, target: Target,
               source: str, opts: Settings, cache: ResultCache | None = None,
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
    proof: EngineVerdict | None = None
    if ob.kind == "unsupported":
        verdicts = [EngineVerdict("none", Verdict.UNKNOWN, f"unsupported: {ob.reason}")]
    elif ob.kind == "example":
        verdicts = [_cached_run("example", req, owner, ob, harness, hdir, target, source, opts, cache)]
    elif (proof := _exhaust(req, owner, ob, harness, hdir, target, source, opts, cache, spec)) is not None \
            and proof.verdict in (Verdict.VERIFIED, Verdict.REFUTED):
        # the bounded domain was exhausted (or a replayed counterexample found in it): the other engines could
        # only search the same finite domain again, so their budgets are not spent
        verdicts = [proof]
    else:
        # the first replayed counterexample answers the requirement: the other engines' workers are stopped
        # (side by side) or not started (one after the other), and say so instead of a verdict
        cancel = Cancel()

        def one(e: str) -> EngineVerdict:
            if cancel.is_set():
                return _stopped(e, cancel, started=False)
            with cancellable(cancel) as hit:
                v = _cached_run(e, req, owner, ob, harness, hdir, target, source, opts, cache, spec)
            if v.verdict is Verdict.REFUTED:
                cancel.stop(e)
            elif hit[0]:
                v = _stopped(e, cancel, started=True, elapsed_s=v.elapsed_s)
            return v

        engines = _engines_of(ob, opts)
        known = _cached_refutation(engines, ob, harness, target, opts, cache)
        if known is not None:  # answered by a cached, replayed refutation: the others would be stopped by it
            cancel.stop(known.engine)
            verdicts = [known if e == known.engine else _stopped(e, cancel, started=False) for e in engines]
        elif opts.jobs >= 2 and len(engines) > 1:
            # the engines side by side (each drives its own worker process), so a requirement takes the longest
            # engine's time rather than their sum: a target that never returns costs one budget of wall time
            with ThreadPoolExecutor(max_workers=len(engines)) as pool:
                verdicts = list(pool.map(one, engines))
        else:
            verdicts = [one(e) for e in engines]
    if proof is not None and proof not in verdicts:
        verdicts = [proof, *verdicts]
    verdict = overall([v.verdict for v in verdicts], [v.reason for v in verdicts])
    return RequirementResult(**base, verdicts=tuple(verdicts), verdict=verdict,  # type: ignore[arg-type]
                             elapsed_s=time.monotonic() - start)


def _cached_refutation(engines: list[str] | tuple[str, ...], ob: Obligation, harness: Harness, target: Target,
                       opts: Settings, cache: ResultCache | None) -> EngineVerdict | None:
    """A cached ``refuted`` verdict of one of ``engines`` for ``ob`` (marked cached), else None: a re-run of a
    refuted requirement answers from it instead of running the engine a refutation stopped last time (a
    stopped verdict is never cached)."""
    if cache is None:
        return None
    for engine in engines:
        key = _cache_key(engine, ob, harness, target, opts)
        hit = cache.get(key) if key is not None else None
        if hit is not None and hit.verdict is Verdict.REFUTED:
            return replace(hit, cached=True)
    return None


def _stopped(engine: str, cancel: Cancel, started: bool, elapsed_s: float = 0.0) -> EngineVerdict:
    """The verdict of an engine stopped (or never started) because ``cancel.by`` refuted the requirement."""
    how = "stopped" if started else "not run"
    return EngineVerdict(engine, Verdict.UNKNOWN, f"{how}: the {cancel.by} engine refuted the requirement first "
                         "(its counterexample was replayed)", elapsed_s=elapsed_s)


def _exhaust(req: A.Requirement, owner: object, ob: Obligation, harness: Harness, hdir: Path, target: Target,
             source: str, opts: Settings, cache: ResultCache | None, spec: A.Spec | None) -> EngineVerdict | None:
    """The ``enumeration`` engine's verdict when ``ob``'s domain is finite and small (a bounded proof by
    exhaustion, :mod:`evalgap.verifier.engines.enumeration`), else None (the engine does not apply)."""
    from evalgap.verifier.engines.enumeration import plan

    # the enumeration is concrete execution, the exhaustive form of Hypothesis's search: `--engines crosshair`
    # keeps a purely symbolic check
    if ob.kind not in ("function", "scenario") or "hypothesis" not in opts.engines:
        return None
    if plan(EngineJob(req, owner, ob, harness, hdir, target, source, opts, spec)) is None:
        return None
    return _cached_run("enumeration", req, owner, ob, harness, hdir, target, source, opts, cache, spec)


def _estimated_cost(ob: Obligation) -> int:
    """A rough rank of how long ``ob`` takes to check (higher: longer): symbolic inputs multiply paths,
    each checked clause is a separate CrossHair condition; examples are concrete calls (cheap)."""
    if ob.kind not in ("function", "scenario"):
        return 1
    return 10 + 10 * len(ob.params) + len(ob.checks)


def warm_up(opts: Settings, requirements: int | None = None) -> None:
    """Start the fork servers ``opts`` will need in the background (call early, e.g. before parsing, so
    their start-up overlaps other work); ``requirements`` caps how many of each kind are started."""
    count = min(max(1, opts.jobs), requirements or opts.jobs)
    for e in (registry.get(n) for n in opts.engines):
        if e is not None:
            prestart([e.worker], count, hash_seed=getattr(e, "hash_seed", None))


def check_spec(spec: A.Spec, source: str, target: Target, opts: Settings,
               progress: Callable[[RequirementResult], None] | None = None,
               sources: dict[str, str] | None = None,
               started: Callable[[str], None] | None = None) -> list[RequirementResult]:
    """Check every requirement of ``spec`` against ``target``.

    Args:
        spec: a parsed, structurally checked spec.
        source: the spec's text (for the formal text shown in reports).
        target: the code under check.
        opts: budget, parallelism and limits.
        progress: called with each result as it completes (from worker threads' completion order).
        sources: file name -> text of every file of the spec (imports), for requirements of other files.
        started: called with a requirement's ID when an engine is about to run on it (worker threads).

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
    with scratch_dir("evalgap-harness-") as tmp:
        hdir = Path(tmp)
        (hdir / f"{harness.module}.py").write_text(harness.source, encoding="utf-8")
        write_prepared(hdir, harness.module, harness.source)

        def run(pair: tuple[A.Requirement, object]) -> RequirementResult:
            req, owner = pair
            text = (sources or {}).get(req.span.file, source)  # requirements of imported files
            if started is not None and req.id in cost:
                started(req.id)
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
