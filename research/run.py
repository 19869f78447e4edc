"""The logic of the ``evalgap compare`` command (cli.py only parses options): resolve the dataset, run,
write ``candidates.jsonl``, ``summary.json``, ``results.csv``, ``rates.csv``, ``summary.md`` and plots."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, replace
from pathlib import Path
from typing import Callable

from evalgap.research.compare import CompareOptions, compare
from evalgap.research.dataset import Candidate, Dataset, load_dataset
from evalgap.research.domains import infer_domain
from evalgap.research.unions import with_unions
from evalgap.research.errors import DatasetError
from evalgap.research.humaneval import ADAPTERS, build_dataset
from evalgap.research.adapters_more import MORE_ADAPTERS, build_more
from evalgap.research.summary import Summary, render_markdown, summarize
from evalgap.research.splits import tasks_in_part
from evalgap.research.strength import mutant_candidates, split_mutants, strength_table
from evalgap.research.tables import rates_csv, results_csv

__all__ = ["resolve_dataset", "run_compare", "sample_candidates", "parse_where"]


#: a label key with more distinct values than this is an identifier, not a label (see sample_candidates)
MAX_LABEL_VALUES = 10


def sample_candidates(cands: list[Candidate], per_group: int, seed: int) -> list[Candidate]:
    """A seeded sample of at most ``per_group`` candidates from each group of equal source and labels.

    A label key with more than :data:`MAX_LABEL_VALUES` distinct values over ``cands`` (a response number, a
    run ID) identifies candidates rather than labelling them, and is left out of the grouping.

    Args:
        cands: the candidates, in dataset order.
        per_group: how many to keep per (source, recorded labels) group (all of a smaller group).
        seed: the random seed; the same seed and candidates give the same sample on every machine.

    Returns:
        The sampled candidates, in their dataset order.

    Raises:
        DatasetError: ``per_group`` below 1.
    """
    if per_group < 1:
        raise DatasetError(f"--sample must be at least 1, got {per_group}")
    values: dict[str, set[str]] = {}
    for c in cands:
        for k, v in c.labels:
            values.setdefault(k, set()).add(v)
    keys = {k for k, vs in values.items() if len(vs) <= MAX_LABEL_VALUES}  # others identify, not label
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
    for c in cands:
        key = (c.source, tuple((k, v) for k, v in c.labels if k in keys))
        groups.setdefault(key, []).append(c.candidate_id)
    rng = random.Random(seed)
    keep: set[str] = set()
    for key in sorted(groups):
        ids = sorted(groups[key])
        keep.update(ids if len(ids) <= per_group else rng.sample(ids, per_group))
    return [c for c in cands if c.candidate_id in keep]


def parse_where(text: str | None) -> list[tuple[str, str]] | None:
    """``--where`` as ``(key, value)`` pairs: ``"k=v,k2=v2"`` -> ``[("k", "v"), ("k2", "v2")]`` (None: no filter).

    Raises:
        DatasetError: an item without ``=`` or with an empty key.
    """
    if not text:
        return None
    out = []
    for item in (x.strip() for x in text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise DatasetError(f"--where: expected KEY=VALUE, got {item!r}")
        out.append((key.strip(), value.strip()))
    return out


def resolve_dataset(arg: str, tasks: list[str] | None = None, sources: list[str] | None = None,
                    limit: int | None = None, specs: Path | None = None, sample: int | None = None,
                    seed: int = 0, part: str | None = None, oracle_inputs: bool = False,
                    where: list[tuple[str, str]] | None = None, mutants: int | None = None) -> Dataset:
    """A dataset from ``ADAPTER:DATA_DIR`` (e.g. ``llm-runs:../shared/data``) or a JSONL file / folder.

    Args:
        arg: the DATASET argument.
        tasks: keep only these task IDs (None: all).
        sources: keep only candidates from these sources (None: all).
        limit: keep at most this many candidates (after the filters; None: all).
        specs: a folder of property specs attached to an adapter's tasks (see ``load_tasks``).
        sample: keep a seeded sample of this many candidates per (source, labels) group (None: all);
            applied after the filters and before ``limit``.
        seed: the sample's random seed.
        oracle_inputs: type the parameters from the oracle's inputs too (HumanEval+ ``plus_input``; the
            HumanEval adapters only): the run is then named "(oracle inputs)" and must be reported apart.
        where: keep only candidates whose recorded labels have every ``(key, value)`` given (e.g.
            ``("recheck_passed_humaneval_tests", "True")``); applied before ``sample``.
        mutants: add up to this many mutants of the reference of every task that keeps a candidate, as
            candidates of source ``reference-mutant`` (the spec-strength figure, :mod:`evalgap.research.strength`;
            None: none); added after ``sample`` and ``limit``.
        part: keep only the tasks of this part of the committed development / evaluation split (``dev`` or
            ``eval``, see :mod:`evalgap.research.splits`; None: all).

    Raises:
        DatasetError: unknown adapter, missing path, malformed file.
    """
    name, sep, rest = arg.partition(":")
    if oracle_inputs and not (sep and name in ADAPTERS):
        raise DatasetError(f"--oracle-inputs applies to the HumanEval adapters only ({', '.join(ADAPTERS)})")
    if sep and name in ADAPTERS:
        ds = build_dataset(name, Path(rest), tasks, specs, oracle_inputs)
        if oracle_inputs:
            ds = Dataset(f"{ds.name} (oracle inputs: parameter types from HumanEval+'s plus inputs)", ds.tasks,
                         ds.candidates, ds.origin)
    elif sep and name in MORE_ADAPTERS:
        ds = build_more(name, Path(rest), tasks, specs)
    elif sep and not Path(arg).exists() and len(name) > 1:
        raise DatasetError(f"unknown adapter {name!r}; known: {', '.join(ADAPTERS + MORE_ADAPTERS)} "
                           "(ADAPTER:DATA_DIR)")
    else:
        ds = load_dataset(Path(arg))
        if tasks is not None:
            keep = set(tasks)
            ds = Dataset(ds.name, tuple(t for t in ds.tasks if t.task_id in keep),
                         tuple(c for c in ds.candidates if c.task_id in keep), ds.origin)
    if part is not None:
        keep_tasks = set(tasks_in_part([t.task_id for t in ds.tasks], part))
        ds = Dataset(ds.name, tuple(t for t in ds.tasks if t.task_id in keep_tasks),
                     tuple(c for c in ds.candidates if c.task_id in keep_tasks), ds.origin)
    cands = [c for c in ds.candidates if sources is None or c.source in sources]
    if where:
        cands = [c for c in cands if all((k, v) in c.labels for k, v in where)]
    if sample is not None:
        cands = sample_candidates(cands, sample, seed)
    if limit is not None:
        cands = cands[:limit]
    if mutants is not None:
        used = {c.task_id for c in cands}
        try:
            cands += mutant_candidates([t for t in ds.tasks if t.task_id in used], mutants)
        except ValueError as exc:
            raise DatasetError(str(exc)) from None
    return Dataset(ds.name, ds.tasks, tuple(cands), ds.origin)


def run_compare(ds: Dataset, out: Path, opts: CompareOptions, plots: bool = True,
                progress: Callable[[int, int], None] | None = None) -> Summary:
    """Run :func:`~evalgap.research.compare.compare` and write the summary files into ``out``.

    Returns:
        The :class:`Summary` (plots are skipped, with a note in ``summary.md``, when matplotlib is absent).
    """
    results, mutant_results = split_mutants(compare(ds, out, opts, progress))
    domains = {t.task_id: infer_domain(t.visible_inputs()) for t in ds.tasks if t.base_inputs}
    if opts.unions:
        results = with_unions(results, opts.unions, domains)
        mutant_results = with_unions(mutant_results, opts.unions, domains)
    s = summarize(results, domains)
    s = replace(s, strength=strength_table(mutant_results))
    (out / "summary.json").write_text(json.dumps(asdict(s), indent=1), encoding="utf-8")
    (out / "results.csv").write_text(results_csv(results + mutant_results), encoding="utf-8")
    (out / "rates.csv").write_text(rates_csv(s), encoding="utf-8")
    md = render_markdown(s, f"evalgap compare: {ds.name}")
    if plots:
        try:
            from evalgap.research.plots import write_plots

            write_plots(s, out)
            md += "\nPlots: accept_rate, gap_recall, cpu, agreement (.png and .svg).\n"
        except Exception as exc:  # noqa: BLE001 - plots are optional
            md += f"\nPlots not written: {exc}\n"
    (out / "summary.md").write_text(md, encoding="utf-8")
    return s
