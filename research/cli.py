"""The research commands ``evalgap compare`` and ``evalgap import``, registered with the CLI through the
``evalgap.commands`` entry-point group (the verifier never imports ``research``)."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import click

from evalgap.verifier.errors import VerifierError

#: the exit code of a run without findings (``evalgap.verifier.report.gap.EXIT_OK``; not imported here, so that
#: ``evalgap --help``, which imports this module to list the commands, does not load the reports and the spec
#: language; tests/test_startup.py checks the two are equal)
EXIT_OK = 0

__all__ = ["compare", "import_cmd", "tables"]


def finite_seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """``evalgap.verifier.cli.common.finite_seconds``, imported when called (``evalgap --help`` lists this
    module's commands without loading the CLI's shared module)."""
    from evalgap.verifier.cli import common

    return common.finite_seconds(ctx, param, value)


@click.command()
@click.argument("dataset")
@click.option("--evaluators", default="tests,hypothesis,crosshair", show_default=True,
              help="Comma-separated: tests, ground-truth, crosshair, crosshair-prop, hypothesis, hypothesis-const, "
                   "mutation (the ground truth is always run).")
@click.option("--union", "unions", multiple=True, help="Also report the union of these comma-separated "
              "evaluators (rejected when any of them rejects inside the domain), e.g. crosshair,mutation; "
              "repeatable; summary only.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--ray-address", help="Ray cluster address (default: start a local instance).")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), default=Path("compare-out"),
              show_default=True, help="Output folder (rerun with the same folder to resume).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Programs evaluated in parallel (local executor; default: [tool.evalgap] jobs, else 1).")
@click.option("--budget", type=float, default=None, callback=finite_seconds, help="CrossHair CPU seconds per function (default: "
              "[tool.evalgap] budget or the profile's, else 20).")
@click.option("--seeds", default="0,1,2", show_default=True, help="Hypothesis and mutation seeds (one run each).")
@click.option("--mutation-inputs", type=click.IntRange(min=1), default=1000, show_default=True,
              help="New inputs per seed of the mutation evaluator (type-aware mutation of the visible inputs).")
@click.option("--examples", type=int, default=None, help="Hypothesis max_examples per seed (default: "
              "[tool.evalgap] hypothesis_examples or the profile's, else 200).")
@click.option("--tasks", help="Comma-separated task IDs to keep.")
@click.option("--sources", help="Comma-separated candidate sources to keep (e.g. gpt-3.5-turbo).")
@click.option("--limit", type=int, help="At most this many candidates.")
@click.option("--sample", type=click.IntRange(min=1), help="A seeded sample of N candidates per source and recorded "
              "label (after --tasks/--sources, before --limit).")
@click.option("--where", help="Keep only candidates whose recorded labels match every KEY=VALUE (comma-separated; "
              "e.g. recheck_passed_humaneval_tests=True); applied before --sample.")
@click.option("--mutants", type=click.IntRange(min=1), help="Also run every evaluator on up to N mutants of "
              "each used task's reference: the spec-strength figure beside recall (killed / non-equivalent mutants).")
@click.option("--seed", "sample_seed", type=int, default=0, show_default=True, help="The --sample seed.")
@click.option("--oracle-inputs", is_flag=True, help="Type parameters from HumanEval+'s plus inputs too (oracle "
              "leakage: the run is labelled and must be reported apart; default: visible base inputs only).")
@click.option("--part", type=click.Choice(["dev", "eval"]), help="Only the tasks of this part of the committed "
              "development / frozen-evaluation split (research/splits/; docs/research.md).")
@click.option("--no-plots", is_flag=True, help="Do not write plots.")
@click.option("--specs", type=click.Path(path_type=Path), help="Folder of property specs (HumanEval_N.req) "
              "for the crosshair-prop evaluator (adapters only).")
def compare(dataset: str, evaluators: str, unions: tuple[str, ...], executor: str, ray_address: str | None, out: Path, jobs: int | None,
            budget: float | None, seeds: str, mutation_inputs: int, examples: int | None, tasks: str | None, sources: str | None,
            limit: int | None, sample: int | None, where: str | None, mutants: int | None, sample_seed: int, oracle_inputs: bool, part: str | None,
            no_plots: bool, specs: Path | None) -> None:
    """Measure test-based vs spec-based evaluation on DATASET (ADAPTER:DATA_DIR, a .jsonl or a folder).

    Exit code: 0 no evaluation gap, 1 some program passes the tests but is wrong by the ground truth,
    2 usage or dataset error.
    """
    from rich.progress import Progress

    from evalgap.research.compare import CompareOptions
    from evalgap.research.evaluators import EvalSettings
    from evalgap.research.run import parse_where, resolve_dataset, run_compare
    from evalgap.verifier.cli.common import fail

    try:
        budget, examples, jobs = _layered(budget, examples, jobs)
        names = tuple(e.strip() for e in evaluators.split(",") if e.strip())
        if "hypothesis" in names:
            from evalgap.research.hypothesis_switch import switch_problem

            problem = switch_problem()
            if problem is not None:
                fail(problem, prefix="evalgap compare: ")
        ds = resolve_dataset(dataset, tasks.split(",") if tasks else None,
                             sources.split(",") if sources else None, limit, specs, sample, sample_seed, part,
                             oracle_inputs, parse_where(where), mutants)
        settings = EvalSettings(crosshair_budget_s=budget, hypothesis_seeds=tuple(int(x) for x in seeds.split(",")),
                                hypothesis_examples=examples, mutation_inputs=mutation_inputs)
        groups = tuple(tuple(e.strip() for e in u.split(",") if e.strip()) for u in unions)
        missing = [e for g in groups for e in g if e not in names and e != "ground-truth"]
        if missing:
            fail(f"--union names evaluators not in --evaluators: {', '.join(missing)}", prefix="evalgap compare: ")
        if any(len(g) < 2 for g in groups):
            fail("--union needs at least two comma-separated evaluators", prefix="evalgap compare: ")
        opts = CompareOptions(names, settings, executor, jobs, ray_address, unions=groups)
        counts: list[int] = []  # programs finished, as progress reports them (the first: resumed ones)
        start, cpu = time.monotonic(), _all_cpu()

        def progress(done: int, total: int) -> None:
            counts.append(done)
            bar.update(tid, completed=done, total=total)

        with Progress(transient=True) as bar:
            tid = bar.add_task("programs", total=None)
            summary = run_compare(ds, out, opts, not no_plots, progress)
    except (VerifierError, ValueError) as exc:
        fail(str(exc), prefix="evalgap compare: ")
    click.echo(f"{summary.candidates} candidates ({summary.programs} distinct programs); evaluation gap: "
               f"{summary.gap['count']} programs; results in {out}/summary.md")
    click.echo(throughput_line(counts[-1] - counts[0] if counts else 0, time.monotonic() - start,
                               _all_cpu() - cpu if executor == "local" else None, jobs))
    raise SystemExit(1 if summary.gap["count"] else EXIT_OK)


def _all_cpu() -> float:
    """CPU seconds of this process and of every process it has waited for (the pool's processes, which wait
    for their fork servers, which wait for their jobs)."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def throughput_line(programs: int, wall_s: float, cpu_s: float | None, jobs: int) -> str:
    """``compare``'s last line: programs evaluated by this run per minute and their CPU.

    Args:
        programs: programs evaluated by this run (not those resumed from the progress file).
        wall_s: the run's wall-clock seconds.
        cpu_s: CPU seconds of every process of the run (None: not measured, the Ray executor).
        jobs: parallel programs (local executor).

    Returns:
        e.g. ``40 programs evaluated in 120 s: 20.0 per minute (-j 2); CPU 230 s, 5.8 s a program, 96 % of
        2 cores``.
    """
    def secs(x: float) -> str:
        return f"{x:.0f}" if x >= 100 else f"{x:.1f}"

    if programs <= 0:
        return "no program evaluated by this run (all resumed from the progress file)"
    rate = f"{programs} programs evaluated in {secs(wall_s)} s: {60 * programs / max(wall_s, 1e-9):.1f} per minute"
    if cpu_s is None:
        return f"{rate} (CPU not measured: Ray workers)"
    use = 100 * cpu_s / max(wall_s * max(1, jobs), 1e-9)
    return (f"{rate} (-j {jobs}); CPU {secs(cpu_s)} s, {cpu_s / programs:.1f} s a program, {use:.0f} % of "
            f"{jobs} core{'s' if jobs != 1 else ''}")


def _layered(budget: float | None, examples: int | None, jobs: int | None) -> tuple[float, int, int]:
    """``compare``'s budget, examples and jobs: the command line, else what ``[tool.evalgap]`` (of the
    pyproject.toml in the current folder or its parents) or the profile sets, else compare's own defaults
    (20 s, 200 examples, 1 job: a research run, not a check). Raises UsageError for a bad table."""
    from evalgap.verifier.options import resolve_settings

    s = resolve_settings({"budget": budget, "hypothesis_examples": examples, "jobs": jobs}, Path.cwd())
    chosen = {k for k, v in s.sources.items() if v != "default"}
    return (s.budget_s if "budget" in chosen else 20.0,
            s.hypothesis_examples if "hypothesis_examples" in chosen else 200,
            s.jobs if "jobs" in chosen else 1)


@click.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(["nagini", "nl2postcond", "icontract", "deal", "pep316"]))
@click.argument("src", type=click.Path(path_type=Path))
@click.option("--data", type=click.Path(path_type=Path), default=None,
              help="The benchmark data folder (HumanEval signatures; nagini and nl2postcond only).")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), required=True, help="Output folder of .req files.")
def import_cmd(fmt: str, src: Path, data: Path | None, out: Path) -> None:
    """Import contracts in FORMAT from the folder SRC into .req property specs (report in OUT/IMPORT_REPORT.md).

    Exit code: 0 every file imported, 1 some could not be (reasons in the report), 2 usage error.
    """
    from evalgap.research.importing import import_folder
    from evalgap.verifier.cli.common import fail

    if out.exists() and not out.is_dir():
        fail(f"-o {out}: it exists and is not a folder (give a folder for the .req files)",
             prefix="evalgap import: ")

    try:
        rep = import_folder(fmt, src, data, out)
    except VerifierError as exc:
        from evalgap.verifier.cli.common import fail

        fail(str(exc), prefix="evalgap import: ")
    click.echo(f"{len(rep.imported)} imported, {len(rep.skipped)} not imported; see {out}/IMPORT_REPORT.md")
    raise SystemExit(1 if rep.skipped else EXIT_OK)


@click.command()
@click.option("--manifest", type=click.Path(path_type=Path), default=Path("docs/results/tables.toml"),
              show_default=True, help="The manifest of the tables (the published files go beside it).")
@click.option("--data", type=click.Path(path_type=Path), default=Path("../shared/data"), show_default=True,
              help="The benchmark data folder ({data} in the manifest).")
@click.option("--runs", "runs_dir", type=click.Path(path_type=Path), default=Path("compare-runs"), show_default=True,
              help="Folder of the run folders (rerun with the same folder to resume).")
@click.option("--root", type=click.Path(path_type=Path), default=None,
              help="Repository root the manifest's paths start from (default: the current folder).")
@click.option("--only", help="Comma-separated entry names to regenerate (default: all).")
@click.option("--report-only", is_flag=True, help="Run nothing new: report what the run folders hold, rebuild "
              "the comparisons, skip the scripts.")
def tables(manifest: Path, data: Path, runs_dir: Path, root: Path | None, only: str | None,
           report_only: bool) -> None:
    """Regenerate every table of docs/results/ from the data, as MANIFEST lists them (docs/research.md).

    Exit code: 0 done, 2 usage, manifest or data error.
    """
    from evalgap.research.regenerate import regenerate
    from evalgap.verifier.cli.common import fail

    if not report_only and not data.is_dir():
        fail(f"--data {data}: no such folder (the benchmark data; pass --data, or --report-only to rebuild "
             "from the run folders)", prefix="evalgap tables: ")
    try:
        written = regenerate(manifest, data, runs_dir, root, set(only.split(",")) if only else None, report_only,
                             click.echo)
    except (VerifierError, ValueError) as exc:
        fail(str(exc), prefix="evalgap tables: ")
    click.echo(f"{len(written)} files written in {manifest.parent}")
    raise SystemExit(EXIT_OK)
