"""``evalgap tables``: regenerate the tables of ``docs/results/`` from the data, as a manifest lists them.

The manifest (``docs/results/tables.toml``) has three kinds of entries, run in this order:

* ``[[run]]``: one ``evalgap compare`` run (keys: ``name``, ``dataset`` with ``{data}`` for the data folder,
  and the compare options ``part``, ``where``, ``sample``, ``seed``, ``mutants``, ``tasks``, ``sources``,
  ``limit``, ``evaluators``, ``specs``, ``budget``, ``seeds``, ``examples``, ``mutation_inputs``,
  ``unions`` (a list of ``"a,b"``), ``oracle_inputs``; ``publish``: the stem of the published files). It runs
  in ``RUNS/NAME`` (resumable: a rerun reuses every finished program)
  and publishes ``STEM.md`` (the summary, headed by the equivalent ``evalgap compare`` command), ``STEM.json``
  (the summary's figures: task IDs, run numbers, verdicts, counterexample inputs; never a program's code) and
  ``STEM_rates.csv`` (every rate with its 95 % Wilson interval);
* ``[[script]]``: a benchmark script (``argv``, with ``{data}``, ``{runs}``, ``{results}``, ``{python}``),
  run from the repository root;
* ``[[comparison]]``: a development-vs-evaluation table (``name``, ``title``, ``dev`` and ``eval``: two run
  names) written to ``NAME.md`` and ``NAME.csv`` from the two runs' published JSON (so it regenerates without
  the data): per evaluator, recall on the gap programs, false refutations inside the benchmark's domain (the
  outside-domain count apart), spec strength and CPU per candidate, each with its interval, and whether the
  two parts agree (:func:`agree`).

``--report-only`` runs nothing new: runs report what their folders hold (a run whose data or folder is absent
keeps its published figures), scripts are skipped, comparisons are rebuilt from the published figures. Paths in the manifest are relative to the repository root (``--root``, default: the current folder).
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import subprocess
import sys
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from evalgap.research.errors import DatasetError

__all__ = ["Manifest", "load_manifest", "regenerate", "agree", "comparison_rows", "compare_command"]

_RUN_KEYS = {"name", "dataset", "part", "where", "sample", "seed", "mutants", "tasks", "sources", "limit",
             "evaluators", "specs", "budget", "seeds", "examples", "oracle_inputs", "publish", "jobs",
             "mutation_inputs", "unions"}
_GT = "ground-truth"


@dataclass(frozen=True)
class Manifest:
    """A parsed ``tables.toml``: its ``[[run]]``, ``[[script]]`` and ``[[comparison]]`` tables, in order."""

    path: Path
    runs: tuple[dict[str, Any], ...]
    scripts: tuple[dict[str, Any], ...]
    comparisons: tuple[dict[str, Any], ...]


def load_manifest(path: Path) -> Manifest:
    """Read and check a manifest.

    Raises:
        DatasetError: the file is missing, not TOML, or an entry lacks a key / has an unknown one (the message
            names the file and the entry).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read the manifest ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise DatasetError(f"{path}: not TOML ({exc})") from None
    runs, scripts, comps = (tuple(data.get(k, [])) for k in ("run", "script", "comparison"))
    names = set()
    for i, r in enumerate(runs, 1):
        missing = {"name", "dataset", "publish"} - set(r)
        unknown = set(r) - _RUN_KEYS
        if missing or unknown:
            raise DatasetError(f"{path}: [[run]] #{i}: " + (f"missing {', '.join(sorted(missing))}" if missing else
                                                            f"unknown key(s) {', '.join(sorted(unknown))}"))
        names.add(r["name"])
    for i, s in enumerate(scripts, 1):
        if not isinstance(s.get("argv"), list) or not s["argv"]:
            raise DatasetError(f"{path}: [[script]] #{i}: needs argv, a non-empty list of strings")
    for i, c in enumerate(comps, 1):
        if {"name", "dev", "eval"} - set(c):
            raise DatasetError(f"{path}: [[comparison]] #{i}: needs name, dev and eval")
        for part in ("dev", "eval"):
            if c[part] not in names:
                raise DatasetError(f"{path}: [[comparison]] {c['name']}: {part} names no [[run]] ({c[part]!r})")
    return Manifest(path, runs, scripts, comps)


def compare_command(run: dict[str, Any], data: str, runs_dir: str) -> str:
    """The ``evalgap compare`` command line equivalent to a ``[[run]]`` entry (printed in its report)."""
    argv = ["evalgap", "compare", str(run["dataset"]).replace("{data}", data)]
    flags = [("part", "--part"), ("where", "--where"), ("sample", "--sample"), ("seed", "--seed"),
             ("mutants", "--mutants"), ("tasks", "--tasks"), ("sources", "--sources"), ("limit", "--limit"),
             ("evaluators", "--evaluators"), ("specs", "--specs"), ("budget", "--budget"), ("seeds", "--seeds"),
             ("examples", "--examples"), ("mutation_inputs", "--mutation-inputs"), ("jobs", "-j")]
    for key, flag in flags:
        if key in run:
            argv += [flag, str(run[key])]
    for union in run.get("unions", []):
        argv += ["--union", str(union)]
    if run.get("oracle_inputs"):
        argv.append("--oracle-inputs")
    argv += ["--no-plots", "-o", f"{runs_dir}/{run['name']}"]
    return shlex.join(argv)


def _do_run(run: dict[str, Any], root: Path, data: Path, runs_dir: Path, results: Path, report_only: bool,
            progress: Callable[[str], None]) -> dict[str, Any]:
    from evalgap.research.compare import CompareOptions
    from evalgap.research.evaluators import EvalSettings
    from evalgap.research.run import parse_where, resolve_dataset, run_compare

    dataset = str(run["dataset"]).replace("{data}", str(data))
    ds = resolve_dataset(dataset, str(run["tasks"]).split(",") if run.get("tasks") else None,
                         str(run["sources"]).split(",") if run.get("sources") else None, run.get("limit"),
                         root / run["specs"] if run.get("specs") else None, run.get("sample"), int(run.get("seed", 0)),
                         run.get("part"), bool(run.get("oracle_inputs", False)), parse_where(run.get("where")),
                         run.get("mutants"))
    names = tuple(e.strip() for e in str(run.get("evaluators", "tests,hypothesis,crosshair")).split(",") if e.strip())
    settings = EvalSettings(crosshair_budget_s=float(run.get("budget", 20.0)),
                            hypothesis_seeds=tuple(int(x) for x in str(run.get("seeds", "0,1,2")).split(",")),
                            hypothesis_examples=int(run.get("examples", 200)),
                            mutation_inputs=int(run.get("mutation_inputs", 1000)))
    unions = tuple(tuple(e.strip() for e in str(u).split(",") if e.strip()) for u in run.get("unions", []))
    opts = CompareOptions(names, settings, "local", int(run.get("jobs", 1)), None, report_only, unions)
    folder = runs_dir / run["name"]
    progress(f"run {run['name']}: {len(ds.candidates)} candidates -> {folder}")
    s = run_compare(ds, folder, opts, plots=False)
    cmd = compare_command(run, str(data), str(runs_dir))
    pending = ""
    if report_only:
        done = {json.loads(ln)["candidate_id"] for ln in (folder / "candidates.jsonl").read_text(
            encoding="utf-8").splitlines() if ln.strip()}
        left = len(ds.candidates) - len(done)
        pending = f"\n**Partial run**: {left} of {len(ds.candidates)} candidates not evaluated yet.\n" if left else ""
    md = (folder / "summary.md").read_text(encoding="utf-8")
    head, _, rest = md.partition("\n")
    body = f"{head}\n\nRegenerated by `evalgap tables` ({run['name']}); the equivalent command:\n\n    {cmd}\n{pending}{rest}"
    stem = results / run["publish"]
    stem.with_suffix(".md").write_text(body, encoding="utf-8")
    fig = asdict(s) | {"command": cmd, "run": run["name"], "dataset": ds.name}
    stem.with_suffix(".json").write_text(json.dumps(fig, indent=1, sort_keys=True), encoding="utf-8")
    (results / f"{run['publish']}_rates.csv").write_text((folder / "rates.csv").read_text(encoding="utf-8"),
                                                         encoding="utf-8")
    return fig


def agree(a: dict[str, Any], b: dict[str, Any], pp: float = 0.05) -> str | None:
    """Whether two rates (``{rate, interval}``) agree: ``"within 5 pp"``, ``"inside each other's interval"``
    (each point estimate inside the other's 95 % Wilson interval), ``"no"``, or None when either is missing."""
    if a.get("rate") is None or b.get("rate") is None:
        return None
    if abs(a["rate"] - b["rate"]) <= pp + 1e-12:
        return f"within {round(100 * pp)} pp"
    ia, ib = a.get("interval"), b.get("interval")
    if ia and ib and ia[0] <= b["rate"] <= ia[1] and ib[0] <= a["rate"] <= ib[1]:
        return "inside each other's interval"
    return "no"


def _cpu_per_candidate(fig: dict[str, Any], ev: str) -> float | None:
    by = fig.get("cpu", {}).get(ev, {})
    n = sum(c["n"] for c in by.values())
    return round(sum(c["total_s"] for c in by.values()) / n, 3) if n else None


def _recall(fig: dict[str, Any], name: str) -> dict[str, Any] | None:
    r = fig["recall"].get(name)
    return None if r is None else r | {"rate": r["recall"], "gap": fig["gap"]["count"]}


def comparison_rows(dev: dict[str, Any], ev: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per evaluator (the ground truth left out) comparing the two parts' published figures."""
    out = []
    for name in [e for e in dev.get("evaluators", []) if e != _GT]:
        row: dict[str, Any] = {"evaluator": name}
        for metric, get in (("recall", lambda f: _recall(f, name)),
                            ("false_refutations", lambda f: f["false_refutation_rate"].get(name)),
                            ("strength", lambda f: f.get("strength", {}).get(name))):
            d, e = get(dev), get(ev)
            row[metric] = {"dev": d, "eval": e, "agree": agree(d or {}, e or {})}
        row["cpu_per_candidate_s"] = {"dev": _cpu_per_candidate(dev, name), "eval": _cpu_per_candidate(ev, name)}
        out.append(row)
    return out


def _cell(x: dict[str, Any] | None, k: str, n: str) -> str:
    if not x or x.get("rate") is None:
        return "n/a"
    lo, hi = x["interval"]
    return f"{x[k]}/{x[n]} = {100 * x['rate']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]"


def _comparison_md(c: dict[str, Any], dev: dict[str, Any], ev: dict[str, Any]) -> tuple[str, str]:
    rows = comparison_rows(dev, ev)
    ln = [f"# {c.get('title', c['name'])}", "", "Regenerated by `evalgap tables` from the published figures of "
          f"`{dev['run']}` (development part) and `{ev['run']}` (frozen evaluation part).", "",
          f"* development: {dev['candidates']} candidates, {dev['gap']['count']} gap programs, "
          f"{dev['right_programs']} right programs; command `{dev['command']}`",
          f"* evaluation: {ev['candidates']} candidates, {ev['gap']['count']} gap programs, "
          f"{ev['right_programs']} right programs; command `{ev['command']}`", "",
          "Every rate: k/n, percent, 95 % Wilson interval. Parts agree when the rates differ by at most 5 percentage "
          "points or each lies inside the other's interval. False refutations count only counterexamples inside the "
          "benchmark's input domain; those outside are counted apart.", "",
          "| evaluator | metric | development | evaluation | agree |", "|---|---|---|---|---|"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["evaluator", "metric", "part", "k", "n", "rate", "ci_low", "ci_high", "outside_domain", "agree"])
    keys = {"recall": ("rejected", None), "false_refutations": ("rejected", "right"), "strength": ("killed", "scored")}
    for r in rows:
        for metric, (k, n) in keys.items():
            d, e = r[metric]["dev"], r[metric]["eval"]
            nd = n or "gap"
            d2, e2 = d, e
            extra = ""
            if metric != "strength" and (d or e):
                extra = f" (outside the domain: {(d or {}).get('outside_domain', 0)} / {(e or {}).get('outside_domain', 0)})"
            ln.append(f"| {r['evaluator']} | {metric.replace('_', ' ')}{extra} | {_cell(d2, k, nd)} | "
                      f"{_cell(e2, k, nd)} | {r[metric]['agree'] or 'n/a'} |")
            for part, x in (("dev", d2), ("eval", e2)):
                if x is not None and x.get("rate") is not None:
                    w.writerow([r["evaluator"], metric, part, x[k], x[nd], x["rate"], x["interval"][0],
                                x["interval"][1], x.get("outside_domain", ""), r[metric]["agree"]])
        cpu = r["cpu_per_candidate_s"]
        ln.append(f"| {r['evaluator']} | CPU s per distinct program (mean) | {cpu['dev']} | {cpu['eval']} | - |")
    return "\n".join(ln) + "\n", buf.getvalue()


def _quiet(_msg: str) -> None:
    """The default ``progress``: say nothing."""


def regenerate(manifest: Path, data: Path, runs_dir: Path, root: Path | None = None, only: set[str] | None = None,
               report_only: bool = False, progress: Callable[[str], None] | None = None) -> list[Path]:
    """Regenerate the tables a manifest lists (module docstring).

    Args:
        manifest: the ``tables.toml``; the published files go to its folder.
        data: the benchmark data folder (``{data}``).
        runs_dir: where the run folders live (resumable caches).
        root: the repository root the manifest's relative paths start from (None: the current folder).
        only: regenerate only the entries with these names (None: all).
        report_only: run nothing new (see the module docstring).
        progress: called with one line per step (None: nothing is said).

    Returns:
        The files written, in order.

    Raises:
        DatasetError: a bad manifest, missing data, or a script that fails.
    """
    m = load_manifest(manifest)
    progress = progress or _quiet
    root = root or Path.cwd()
    results = manifest.parent
    runs_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def want(name: str) -> bool:
        return only is None or name in only

    for run in m.runs:
        if want(run["name"]):
            try:
                _do_run(run, root, data, runs_dir, results, report_only, progress)
            except DatasetError as exc:
                if not report_only:
                    raise
                progress(f"run {run['name']}: kept the published figures ({exc})")
                continue
            written += [results / f"{run['publish']}{suf}" for suf in (".md", ".json", "_rates.csv")]
    for s in m.scripts:
        if report_only or not want(str(s.get("name", ""))):
            continue
        argv = [str(a).format(data=data, runs=runs_dir, results=results, python=sys.executable) for a in s["argv"]]
        progress(f"script {s.get('name', argv[0])}: {shlex.join(argv)}")
        done = subprocess.run(argv, cwd=root, check=False)
        if done.returncode not in tuple(s.get("ok_codes", [0])):
            raise DatasetError(f"{manifest}: [[script]] {s.get('name', argv[0])} exited {done.returncode}")
    published = {r["name"]: results / f"{r['publish']}.json" for r in m.runs}
    for c in m.comparisons:
        if not want(c["name"]):
            continue
        figs = []
        for part in ("dev", "eval"):
            p = published[c[part]]
            if not p.is_file():
                raise DatasetError(f"{p}: not published yet (run `evalgap tables --only {c[part]}`)")
            figs.append(json.loads(p.read_text(encoding="utf-8")))
        md, table = _comparison_md(c, figs[0], figs[1])
        (results / f"{c['name']}.md").write_text(md, encoding="utf-8")
        (results / f"{c['name']}.csv").write_text(table, encoding="utf-8")
        written += [results / f"{c['name']}.md", results / f"{c['name']}.csv"]
        progress(f"comparison {c['name']}: {results / (c['name'] + '.md')}")
    return written


if __name__ == "__main__":  # python -m evalgap.research.regenerate (the same as `evalgap tables`)
    from evalgap.research.cli import tables

    tables()
