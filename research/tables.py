"""CSV tables of a compare run, written beside ``summary.json`` (one renderer per format: Markdown is
:func:`evalgap.research.summary.render_markdown`, these are the CSV ones).

* ``results.csv``: one row per candidate and evaluator (``candidate_id, task_id, source, run, digest,
  duplicate_of, evaluator, verdict, outcome, cpu_s, reason``);
* ``rates.csv``: one row per reported rate (``table, group, evaluator, k, n, rate, ci_low, ci_high``) with its
  95 % Wilson interval, so that a paper's tables can be regenerated from it.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from evalgap.research.summary import Summary
from evalgap.research.verdicts import CandidateResult, outcome

__all__ = ["results_csv", "rates_csv"]


def results_csv(results: list[CandidateResult]) -> str:
    """``results.csv`` as text: one row per (candidate, evaluator) verdict, in the run's order."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["candidate_id", "task_id", "source", "run", "digest", "duplicate_of", "evaluator", "verdict",
                "outcome", "cpu_s", "reason"])
    for r in results:
        for v in r.verdicts:
            w.writerow([r.candidate_id, r.task_id, r.source, "" if r.run is None else r.run, r.digest,
                        r.duplicate_of or "", v.evaluator, v.verdict, outcome(v.verdict), f"{v.cpu_s:.3f}",
                        v.reason])
    return buf.getvalue()


def _row(w: Any, table: str, group: str, ev: str, k: int, n: int, rate: float | None,
         iv: list[float] | None) -> None:
    w.writerow([table, group, ev, k, n, "" if rate is None else rate, "" if iv is None else iv[0],
                "" if iv is None else iv[1]])


def rates_csv(s: Summary) -> str:
    """``rates.csv`` as text: accept rates, gap recall, false refutations, spec strength (when the run had
    mutants) and pass@1 per source, each with
    ``k``, ``n``, the rate and its 95 % Wilson interval (empty cells where ``n`` is 0)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["table", "group", "evaluator", "k", "n", "rate", "ci_low", "ci_high"])
    for ev, a in s.accept.items():
        n = a["accept"] + a["reject"] + a["unknown"]
        _row(w, "accept_rate", "all candidates", ev, a["accept"], n, a["rate"], a.get("interval"))
    for ev, r in s.recall.items():
        _row(w, "gap_recall", "gap programs", ev, r["rejected"], s.gap["count"], r["recall"], r.get("interval"))
    for ev, f in s.false_refutation_rate.items():
        _row(w, "false_refutations", "right programs", ev, f["rejected"], f["right"], f["rate"], f.get("interval"))
    for ev, t in s.strength.items():
        _row(w, "spec_strength", "reference mutants", ev, t["killed"], t["scored"], t["rate"], t["interval"])
    for src, row in s.pass_at_1.items():
        for ev, p in row.items():
            _row(w, "pass_at_1", src, ev, p["accept"], p["n"], p["rate"], p.get("interval"))
    return buf.getvalue()
