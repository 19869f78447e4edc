"""Frozen records of ``evalgap compare``: one evaluator's verdict on one candidate, and a candidate's results.

Verdict words are evalgap's fixed ones (:class:`evalgap.verifier.findings.Verdict`): an evaluator *accepts*
with ``verified`` or ``no-counterexample`` (tests that pass are ``no-counterexample``: not a proof), *rejects*
with ``refuted``, and says ``unknown`` (with the reason) when it cannot tell.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from evalgap.verifier.findings import Verdict

__all__ = ["EvalVerdict", "CandidateResult", "ACCEPTING", "outcome"]

ACCEPTING = (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)


def outcome(v: Verdict) -> str:
    """``accept`` (verified / no-counterexample), ``reject`` (refuted) or ``unknown`` (anything else)."""
    if v in ACCEPTING:
        return "accept"
    return "reject" if v is Verdict.REFUTED else "unknown"


@dataclass(frozen=True)
class EvalVerdict:
    """One evaluator's verdict on one candidate.

    Attributes:
        evaluator: ``tests``, ``ground-truth``, ``crosshair``, ``hypothesis``, ... (with a suffix for variants).
        verdict: the verdict.
        reason: what failed (refuted), the caveat/budget (accept), or the reason (unknown).
        cpu_s: CPU seconds the evaluator's worker processes used (user+sys of the children).
        wall_s: wall-clock seconds.
        counterexample: the refuting input, as Python source (``f([1, 2], 3)``), when there is one.
        detail: evaluator-specific settings and figures (budget, seeds, inputs run, Hypothesis version).
    """

    evaluator: str
    verdict: Verdict
    reason: str
    cpu_s: float = 0.0
    wall_s: float = 0.0
    counterexample: str | None = None
    detail: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable dict (verdict as its word, detail as an object)."""
        d = asdict(self)
        d["verdict"] = self.verdict.value
        d["detail"] = dict(self.detail)
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> "EvalVerdict":
        """Inverse of :meth:`to_json`."""
        return EvalVerdict(d["evaluator"], Verdict(d["verdict"]), d["reason"], float(d.get("cpu_s", 0.0)),
                           float(d.get("wall_s", 0.0)), d.get("counterexample"),
                           tuple(sorted(dict(d.get("detail") or {}).items())))


@dataclass(frozen=True)
class CandidateResult:
    """All verdicts on one candidate.

    Attributes:
        candidate_id, task_id, source, run: from the :class:`~evalgap.research.dataset.Candidate`.
        digest: content digest of its code (identical programs share verdicts).
        verdicts: one per evaluator, in the order asked.
        duplicate_of: the candidate whose verdicts these are, when the program was evaluated before.
    """

    candidate_id: str
    task_id: str
    source: str
    run: int | None
    digest: str
    verdicts: tuple[EvalVerdict, ...] = field(default_factory=tuple)
    duplicate_of: str | None = None

    def verdict(self, evaluator: str) -> EvalVerdict | None:
        """The verdict of ``evaluator``, or None when it was not run."""
        return next((v for v in self.verdicts if v.evaluator == evaluator), None)

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable dict (one JSONL line of the per-candidate output)."""
        return {"candidate_id": self.candidate_id, "task_id": self.task_id, "source": self.source,
                "run": self.run, "digest": self.digest, "duplicate_of": self.duplicate_of,
                "verdicts": [v.to_json() for v in self.verdicts]}

    @staticmethod
    def from_json(d: dict[str, Any]) -> "CandidateResult":
        """Inverse of :meth:`to_json`."""
        return CandidateResult(d["candidate_id"], d["task_id"], d["source"], d.get("run"), d["digest"],
                               tuple(EvalVerdict.from_json(v) for v in d.get("verdicts", [])),
                               d.get("duplicate_of"))
