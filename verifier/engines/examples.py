"""The ``example`` engine: a requirement made only of concrete examples, run once in the replay worker."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from evalgap.translators.to_icontract import Harness, Obligation
from evalgap.verifier.engines.common import check_text, from_replay, replay
from evalgap.verifier.engines.registry import EngineJob
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.options import Settings
from evalgap.verifier.project.targets import Target

__all__ = ["run_examples", "ExampleEngine"]


def run_examples(ob: Obligation, harness: Harness, hdir: Path, target: Target, source: str) -> EngineVerdict:
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
        text = check_text(ob, idx - 1, source) if ok else "an example"  # type: ignore[operator]
        return EngineVerdict("example", Verdict.REFUTED, f"example {text} fails (run concretely)", budget,
                             text.strip("`"), (), elapsed)
    return from_replay(ob, rep, [], budget, "example", "", elapsed, source)




class ExampleEngine:
    """The ``example`` engine of the registry: not chosen with ``--engines``; runs every ``example`` requirement."""

    name = "example"
    selectable = False
    worker = "replay"

    def budget(self, opts: Settings) -> dict[str, Any]:
        """What of ``opts`` changes this engine's verdict (part of the cache key)."""
        return {"memory": opts.memory_bytes}

    def run(self, job: EngineJob) -> EngineVerdict:
        """The examples' verdict (never raises for what the target does)."""
        return run_examples(job.ob, job.harness, job.hdir, job.target, job.source)
