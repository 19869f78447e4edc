"""``evalgap compare``: run evaluators over a dataset's candidates, locally or on Ray, resumably.

Identical programs (same task, same :func:`~evalgap.research.dataset.code_digest`) are evaluated once; the
others get the same verdicts with ``duplicate_of`` set. Every finished program is appended, as one JSON line,
to ``OUT/progress.jsonl`` keyed by task, digest and a hash of the evaluators and settings (a content cache):
a killed run started again with the same ``-o`` continues where it stopped, and a run with other budgets
does not reuse stale verdicts.

Outputs in ``OUT/``: ``candidates.jsonl`` (one :class:`CandidateResult` per candidate), ``summary.json`` and
``summary.md`` (:mod:`evalgap.research.summary`), and plots (:mod:`evalgap.research.plots`, when matplotlib
is installed).
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from evalgap.research.dataset import Candidate, Dataset, Task
from evalgap.research.errors import ResearchError
from evalgap.research.evaluators import EVALUATORS, EvalSettings, evaluate
from evalgap.research.verdicts import CandidateResult, EvalVerdict

__all__ = ["CompareOptions", "Job", "run_job", "compare", "settings_key"]

PROGRESS = "progress.jsonl"


@dataclass(frozen=True)
class CompareOptions:
    """Options of a compare run.

    Attributes:
        evaluators: evaluator names, in order (the ground truth is added first when absent).
        settings: budgets and seeds.
        executor: ``local`` (process pool) or ``ray``.
        jobs: parallel programs (local pool size).
        ray_address: Ray cluster address (None: start or join a local instance).
        report_only: run nothing; report the programs already finished in ``progress.jsonl`` (a partial
            run's figures; the candidates not yet evaluated are left out and counted in ``pending``).
        unions: evaluator unions reported beside the evaluators (:mod:`evalgap.research.unions`; summary only:
            they run nothing and are not part of the cache key).
    """

    evaluators: tuple[str, ...]
    settings: EvalSettings
    executor: str = "local"
    jobs: int = 1
    ray_address: str | None = None
    report_only: bool = False
    unions: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Job:
    """One distinct program to evaluate (picklable: sent to pool or Ray workers)."""

    task: Task
    candidate: Candidate
    evaluators: tuple[str, ...]
    settings: EvalSettings
    key: str


def settings_key(evaluators: Iterable[str], settings: EvalSettings) -> str:
    """A short hash of the evaluators and settings (part of every cache key)."""
    text = json.dumps([list(evaluators), asdict(settings)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _key(task: Task, cand: Candidate, skey: str) -> str:
    """Cache key: task, program digest, the task's spec (text and helpers) when it has one, and settings."""
    spec = ""
    if task.spec_text:
        spec = ":" + hashlib.sha256((task.spec_text + task.spec_helpers).encode()).hexdigest()[:12]
    return f"{task.task_id}:{cand.digest}{spec}:{skey}"


def run_job(job: Job) -> dict[str, Any]:
    """Evaluate one program with every evaluator, one after another (runs in a pool or Ray worker).

    Returns:
        ``{"key", "candidate_id", "verdicts": [EvalVerdict JSON ...]}``.
    """
    verdicts = [evaluate(name, job.task, job.candidate, job.settings).to_json() for name in job.evaluators]
    return {"key": job.key, "candidate_id": job.candidate.candidate_id, "verdicts": verdicts}


def _load_progress(path: Path) -> dict[str, dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
            done[rec["key"]] = rec
        except (ValueError, KeyError, TypeError):
            continue  # a line cut by a kill: that program runs again
    return done


def _worker_init() -> None:
    """In each pool process: stop its fork servers (and wait for them) when the process exits, so that their
    CPU time, and their jobs', reaches this process's children's and the ``compare`` process's (a server left
    to die with its parent is never waited for, and its CPU is counted nowhere)."""
    import multiprocessing.util

    from evalgap.verifier.sandbox import forkserver

    multiprocessing.util.Finalize(None, forkserver.shutdown, exitpriority=10)


def _local(jobs: list[Job], n: int, on_done: Callable[[dict[str, Any]], None]) -> None:
    with ProcessPoolExecutor(max_workers=max(1, n), initializer=_worker_init) as pool:
        pending: set[Future[dict[str, Any]]] = set()
        it = iter(jobs)
        for job in it:
            pending.add(pool.submit(run_job, job))
            if len(pending) >= 2 * max(1, n):
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                on_done(f.result())
                nxt = next(it, None)
                if nxt is not None:
                    pending.add(pool.submit(run_job, nxt))


def compare(ds: Dataset, out: Path, opts: CompareOptions,
            progress: Callable[[int, int], None] | None = None) -> list[CandidateResult]:
    """Evaluate every candidate of ``ds`` and write the per-candidate results to ``out``.

    Args:
        ds: the dataset.
        out: output folder (created; holds ``progress.jsonl`` for resuming).
        opts: evaluators, settings, executor.
        progress: called with ``(finished programs, all programs)`` after each program.

    Returns:
        One :class:`CandidateResult` per candidate, in dataset order (also written to ``candidates.jsonl``).

    Raises:
        ResearchError: an unknown evaluator or executor.
    """
    unknown = [e for e in opts.evaluators if e not in EVALUATORS]
    if unknown:
        raise ResearchError(f"unknown evaluator(s) {', '.join(unknown)}; known: {', '.join(EVALUATORS)}")
    evaluators = opts.evaluators if "ground-truth" in opts.evaluators else ("ground-truth", *opts.evaluators)
    skey = settings_key(evaluators, opts.settings)
    out.mkdir(parents=True, exist_ok=True)
    prog_path = out / PROGRESS
    done = _load_progress(prog_path)
    first: dict[str, str] = {}
    jobs: list[Job] = []
    for c in ds.candidates:
        key = _key(ds.task(c.task_id), c, skey)
        if key in first:
            continue
        first[key] = c.candidate_id
        if key not in done:
            jobs.append(Job(ds.task(c.task_id), c, evaluators, opts.settings, key))
    total, finished = len(first), len(first) - len(jobs)
    if progress:
        progress(finished, total)
    if opts.report_only:
        jobs = []
    with prog_path.open("a", encoding="utf-8") as fh:
        def on_done(rec: dict[str, Any]) -> None:
            nonlocal finished
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            done[rec["key"]] = rec
            finished += 1
            if progress:
                progress(finished, total)

        if opts.executor == "local":
            _local(jobs, opts.jobs, on_done)
        elif opts.executor == "ray":
            from evalgap.research.ray_executor import run_on_ray

            run_on_ray(jobs, opts.ray_address, on_done)
        else:
            raise ResearchError(f"unknown executor {opts.executor!r}; use local or ray")
    results = []
    for c in ds.candidates:
        key = _key(ds.task(c.task_id), c, skey)
        if key not in done:  # report_only: not evaluated yet
            continue
        rec = done[key]
        dup = first[key] if first[key] != c.candidate_id else None
        results.append(CandidateResult(c.candidate_id, c.task_id, c.source, c.run, c.digest,
                                       tuple(EvalVerdict.from_json(v) for v in rec["verdicts"]), dup))
    with (out / "candidates.jsonl").open("w", encoding="utf-8") as fh2:
        for r in results:
            fh2.write(json.dumps(r.to_json()) + "\n")
    return results
