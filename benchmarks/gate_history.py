"""The gate on real repositories' history (issue 28): bug-fix commits gated forward and as reverts, and
refactoring commits, of real pure-Python projects.

The cases (``benchmarks/gate_history/cases.toml``: commit hashes, which requirements state each fix) and the
small specs written from each project's docs and tests (``benchmarks/gate_history/*.req``) are all that is
stored here. The projects themselves are fetched: ``git clone`` of each project's URL when the network
allows, or a local clone of a mirror (``--mirror DIR``: ``DIR/<owner+name>/repo`` bare repositories, or
``DIR/<owner+name>`` clones). A project that can be fetched neither way is skipped with a message.

For every ``fix`` case the gate runs twice: forward (base = the fix's parent, head = the fix; expected exit 0
with a stated requirement ``fixed``) and as a revert (base = the fix, head = its parent; expected exit 1 with a
stated requirement ``broken`` and a replayed counterexample). A ``refactor`` case runs forward only (expected
exit 0 with no unexplained behaviour difference). The ``dev`` part is what the gate was tuned on; the
``frozen`` part was committed before any gate run on it and is reported apart.

Usage: ``python benchmarks/gate_history.py [--mirror DIR] [--work DIR] [--part dev|frozen|all]
[--project NAME] [--budget S] [--json OUT]``. Prints, per project, per part and in all: reverts caught, fixes
recognised, refactorings passed, unexplained differences per refactoring, time per gate. Exit 0 when every
expectation held, 1 otherwise, 2 when no project could be fetched.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import evalgap
from evalgap.verifier.gate.model import GateOptions, GateReport, gate_exit_code

HERE = Path(__file__).resolve().parent / "gate_history"


@dataclass
class Run:
    """One gate run of a case and what it was expected to show."""

    project: str
    part: str
    case: str
    direction: str  # forward | revert
    kind: str
    ok: bool = False
    exit_code: int = -1
    detail: str = ""
    unexplained: int = 0
    seconds: float = 0.0
    transitions: dict[str, str] = field(default_factory=dict)


def _git(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def fetch(name: str, project: dict[str, Any], mirror: Path | None, work: Path) -> Path | None:
    """A local clone of ``project`` under ``work`` (from the mirror, else its URL), or None with a message."""
    dest = work / name
    if (dest / ".git").is_dir():
        return dest
    sources = []
    if mirror is not None:
        for cand in (mirror / project["mirror"] / "repo", mirror / project["mirror"]):
            if cand.is_dir():
                sources.append(str(cand))
                break
    sources.append(project["url"])
    reasons = []
    for src in sources:
        proc = _git("clone", "-q", src, str(dest))
        if proc.returncode == 0:
            return dest
        shutil.rmtree(dest, ignore_errors=True)
        reasons.append(f"{src}: {(proc.stderr.strip().splitlines() or ['failed'])[-1]}")
    print(f"skipped {name}: cannot fetch it ({'; '.join(reasons)}); pass --mirror DIR with a local mirror",
          file=sys.stderr)
    return None


def _gate(repo: Path, spec: Path, base: str, head: str, budget: float) -> tuple[GateReport | None, str, float]:
    started = time.monotonic()
    opts = GateOptions(budget_s=budget, diff_budget_s=budget, jobs=1)
    try:
        report = evalgap.gate(repo, spec, base=base, head=head, options=opts)
    except Exception as exc:  # noqa: BLE001 - a failing gate is a result of the benchmark
        return None, f"{type(exc).__name__}: {exc}", time.monotonic() - started
    return report, "", time.monotonic() - started


def run_case(repo: Path, project: str, part: str, case: dict[str, Any], budget: float) -> list[Run]:
    """Gate one case (forward, and as a revert for a fix) and judge each run against its expectation."""
    commit = case["commit"]
    parent = _git("rev-parse", f"{commit}^", cwd=repo).stdout.strip()
    spec = HERE / case["spec"]
    stated = set(case.get("requirements", []))
    runs = []
    directions = [("forward", parent, commit)] + ([("revert", commit, parent)] if case["kind"] == "fix" else [])
    for direction, base, head in directions:
        run = Run(project, part, commit[:12], direction, case["kind"])
        report, error, run.seconds = _gate(repo, spec, base, head, budget)
        if report is None:
            run.detail = error
            runs.append(run)
            continue
        run.exit_code = gate_exit_code(report)
        run.transitions = {r.id: r.transition for r in report.requirements}
        run.unexplained = len(report.unexplained())
        if case["kind"] == "refactor":
            run.ok = run.exit_code == 0 and run.unexplained == 0
            run.detail = f"{run.unexplained} unexplained; diffs " + ", ".join(
                f"{o.qualname}={o.status}" for o in report.diffs)
        elif direction == "forward":
            fixed = [r.id for r in report.requirements if r.id in stated and r.transition == "fixed"]
            run.ok = run.exit_code == 0 and bool(fixed)
            run.detail = f"fixed {fixed}" if fixed else "no stated requirement fixed"
        else:
            broken = [r for r in report.requirements if r.id in stated and r.transition == "broken"
                      and r.head.counterexample]
            run.ok = run.exit_code == 1 and bool(broken)
            run.detail = (f"broken {broken[0].id} at {broken[0].head.counterexample}" if broken
                          else "no stated requirement broken")
        runs.append(run)
    return runs


def summarize(runs: list[Run]) -> dict[str, Any]:
    """The figures of a set of runs: reverts caught, fixes recognised, refactorings passed, unexplained
    differences per refactoring, time per gate."""
    rev = [r for r in runs if r.direction == "revert"]
    fix = [r for r in runs if r.kind == "fix" and r.direction == "forward"]
    ref = [r for r in runs if r.kind == "refactor"]
    times = [r.seconds for r in runs]
    return {"reverts_caught": [sum(r.ok for r in rev), len(rev)], "fixes_recognised": [sum(r.ok for r in fix), len(fix)],
            "refactorings_passed": [sum(r.ok for r in ref), len(ref)],
            "unexplained_per_refactoring": round(sum(r.unexplained for r in ref) / len(ref), 2) if ref else None,
            "gates": len(runs), "mean_s_per_gate": round(sum(times) / len(times), 1) if times else None,
            "max_s_per_gate": round(max(times), 1) if times else None}


def _line(label: str, s: dict[str, Any]) -> str:
    def frac(p: list[int]) -> str:
        return f"{p[0]}/{p[1]}"
    return (f"{label:<22} reverts caught {frac(s['reverts_caught']):>5}  fixes recognised {frac(s['fixes_recognised']):>5}  "
            f"refactorings passed {frac(s['refactorings_passed']):>5}  unexplained/refactoring "
            f"{s['unexplained_per_refactoring']}  s/gate {s['mean_s_per_gate']} (max {s['max_s_per_gate']})")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring); the exit code says whether every expectation held."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, help="folder of local mirrors (<owner+name>/repo bare repositories)")
    ap.add_argument("--work", type=Path, help="where the clones go (default: a temporary folder)")
    ap.add_argument("--part", choices=("dev", "frozen", "all"), default="all")
    ap.add_argument("--project", action="append", help="only this project (repeatable)")
    ap.add_argument("--budget", type=float, default=4.0, help="CPU seconds per requirement and per diff")
    ap.add_argument("--json", type=Path, help="write every run and the summaries here")
    args = ap.parse_args(argv)
    table = tomllib.loads((HERE / "cases.toml").read_text(encoding="utf-8"))
    projects = {n: p for n, p in table["projects"].items()
                if (args.part in ("all", p["part"])) and (not args.project or n in args.project)}
    work = args.work or Path(tempfile.mkdtemp(prefix="evalgap-gate-history-"))
    work.mkdir(parents=True, exist_ok=True)
    runs: list[Run] = []
    fetched = 0
    for name, project in projects.items():
        repo = fetch(name, project, args.mirror, work)
        if repo is None:
            continue
        fetched += 1
        for case in (c for c in table["cases"] if c["project"] == name):
            for run in run_case(repo, name, project["part"], case, args.budget):
                runs.append(run)
                mark = "ok  " if run.ok else "MISS"
                print(f"{mark} {name:<15} {run.case} {run.kind:<8} {run.direction:<7} exit {run.exit_code} "
                      f"{run.seconds:6.1f} s  {run.detail}", flush=True)
    if not fetched:
        print("no project could be fetched: nothing measured", file=sys.stderr)
        return 2
    print()
    summaries: dict[str, Any] = {}
    for name in projects:
        mine = [r for r in runs if r.project == name]
        if mine:
            summaries[name] = summarize(mine)
            print(_line(name, summaries[name]))
    for part in ("dev", "frozen"):
        mine = [r for r in runs if r.part == part]
        if mine:
            summaries[f"part:{part}"] = summarize(mine)
            print(_line(f"part {part}", summaries[f"part:{part}"]))
    summaries["all"] = summarize(runs)
    print(_line("all", summaries["all"]))
    if args.json:
        args.json.write_text(json.dumps({"budget_s": args.budget, "summaries": summaries,
                                         "runs": [r.__dict__ for r in runs]}, indent=2) + "\n", encoding="utf-8")
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
