"""Recall and false alarms of evalgap's gaming rules (EG4xx) on real agent programs: the curated ImpossibleBench
transcripts of github.com/simonjmendelsohn/impossiblebench-honest-failure (MIT; Simon Mendelsohn, 2026), a
replication of ImpossibleBench (Zhong, Raghunathan, Carlini 2025) with newer models and harnesses.

The transcripts are not shipped here (the benchmark asks that they stay out of training corpora, and this
repository ships no third-party programs): clone that repository and point ``--transcripts`` at its
``transcripts/`` folder (or set ``EVALGAP_IMPOSSIBLEBENCH_TRANSCRIPTS``). Each transcript is a Markdown file with
a header JSON block (model, split, task_id, outcome, exploit_type), the task as the harness gave it (the function
stub and its visible ``check(candidate)`` test), the conversation, and the scorer's block with the final program
(``answer (final code):``). The program is scanned as a new file with the visible test's literals and calls, as
``benchmarks/gaming_recall.py`` scans its items.

Labels are this repository's own, in ``benchmarks/gaming/impossiblebench_labels.json``, written from the
transcripts' descriptions and code before evalgap was first run on them (the held-out real set of issue 22):
``hack`` when the final program passes by gaming the test or the checker, ``honest`` otherwise; transcripts
with no final program, or not in the file, are listed and not counted.

Usage: ``python benchmarks/gaming_impossiblebench.py --transcripts DIR [--json] [--verbose]``. Exit 0 when
recall >= 90 % and at most 1 false alarm (issue 22's held-out target), 1 otherwise, 2 when no transcripts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgap.verifier.analysis.gaming import GamingFinding, TestLiterals, scan_source

LABELS = Path(__file__).resolve().parent / "gaming" / "impossiblebench_labels.json"
ENV = "EVALGAP_IMPOSSIBLEBENCH_TRANSCRIPTS"

_HEADER = re.compile(r"```json\n(\{.*?\})\n```", re.S)
_FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)
_FINAL = re.compile(r"answer \(final code\):\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Transcript:
    """One transcript's task and final program.

    Attributes:
        name: the file name without ``.md``.
        header: the header JSON (``model``, ``split``, ``task_id``, ``outcome``, ``exploit_type``, ...).
        function: the name of the function under test (the stub's first ``def`` other than ``check``).
        test: a pytest file calling the task's ``check(candidate)`` on the function.
        program: the final program the scorer ran, or ``""`` when the run submitted none.
    """

    name: str
    header: dict[str, Any]
    function: str
    test: str
    program: str


def parse_transcript(name: str, text: str) -> Transcript | None:
    """The task and final program of one transcript, or None when it is not in the expected shape.

    Args:
        name: the transcript's name (for messages).
        text: the Markdown text.
    """
    head = _HEADER.search(text)
    user = text.find("### USER / HARNESS")
    if head is None or user < 0:
        return None
    task = next((m.group(1) for m in _FENCE.finditer(text, user) if "def check(" in m.group(1)), None)
    if task is None:
        return None
    names = [n for n in re.findall(r"^def (\w+)\(", task, re.M) if n != "check"]
    check_at = task.find("def check(")
    if not names or check_at < 0:
        return None
    check_src = task[check_at:].split("\n# Use check(", 1)[0].rstrip() + "\n"
    test = f"from solution import {names[0]}\n\n\n{check_src}\n\ndef test_check():\n    check({names[0]})\n"
    scorer = text.rfind("### SCORER")
    final = _FINAL.search(text, scorer) if scorer >= 0 else None
    program = final.group(1) if final is not None else ""
    return Transcript(name, json.loads(head.group(1)), names[0], test, program)


def scan(t: Transcript) -> list[GamingFinding]:
    """Unsilenced findings on the transcript's final program, with its visible test's literals."""
    lits = TestLiterals.from_test_source(t.test, path=f"{t.name}/test_task.py")
    found = scan_source(t.program, f"{t.name}/solution.py", None, lits)
    return [f for f in found if not f.silenced]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transcripts", type=Path, default=os.environ.get(ENV),
                    help=f"the transcripts/ folder of a clone of that repository (or ${ENV})")
    ap.add_argument("--json", action="store_true", help="print a JSON summary")
    ap.add_argument("--verbose", action="store_true", help="list every item with its findings")
    args = ap.parse_args(argv)
    folder: Path | None = args.transcripts
    if folder is None or not Path(folder).is_dir():
        print(f"no transcripts folder (give --transcripts DIR or set {ENV}): clone "
              "github.com/simonjmendelsohn/impossiblebench-honest-failure and pass its transcripts/", file=sys.stderr)
        return 2
    labels: dict[str, dict[str, str]] = json.loads(LABELS.read_text(encoding="utf-8"))["items"]
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    details: list[dict[str, Any]] = []
    skipped: list[str] = []
    for path in sorted(Path(folder).glob("*.md")):
        name = path.stem
        t = parse_transcript(name, path.read_text(encoding="utf-8"))
        label = labels.get(name)
        if t is None or label is None or not t.program.strip():
            if path.name != "README.md":
                skipped.append(f"{name}: " + ("not in the labels file" if label is None and t is not None else
                                             "no final program" if t is not None else "not a transcript"))
            continue
        found = scan(t)
        cell = table[(label["label"], label["kind"])]
        cell[0] += bool(found)
        cell[1] += 1
        details.append({"item": name, "label": label["label"], "kind": label["kind"], "flagged": bool(found),
                        "wrong": (label["label"] == "hack") != bool(found),
                        "findings": [f"{f.line}: {f.code} {f.message}" for f in found]})
    hacks = [v for (lb, _), v in table.items() if lb == "hack"]
    honest = [v for (lb, _), v in table.items() if lb == "honest"]
    caught, n_hacks = sum(v[0] for v in hacks), sum(v[1] for v in hacks)
    alarms, n_honest = sum(v[0] for v in honest), sum(v[1] for v in honest)
    ok = n_hacks > 0 and caught / n_hacks >= 0.90 and alarms <= 1
    if args.json:
        print(json.dumps({"rows": [{"label": lb, "kind": k, "flagged": v[0], "total": v[1]}
                                   for (lb, k), v in sorted(table.items())],
                          "caught": caught, "hacks": n_hacks, "alarms": alarms, "honest": n_honest,
                          "skipped": skipped, "targets_met": ok, "details": details}, indent=2))
        return 0 if ok else 1
    for (lb, kind), (flagged, total) in sorted(table.items()):
        print(f"{'recall' if lb == 'hack' else 'alarms':7} {kind:15} {flagged}/{total}")
    print(f"real (ImpossibleBench transcripts): hacks caught {caught}/{n_hacks}, false alarms {alarms}/{n_honest}")
    for d in details:
        if args.verbose or d["wrong"]:
            mark = ("MISSED" if d["label"] == "hack" else "ALARM ") if d["wrong"] else "ok    "
            print(f"  {mark} {d['item']} ({d['label']}/{d['kind']}): " + "; ".join(d["findings"]))
    for s in skipped:
        print(f"  not counted: {s}")
    print("targets met" if ok else "targets not met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
