"""Verdict integrity (issue 18): a class invariant that breaks only on the 4th method call.

``Meter.tick`` sets ``level = -1`` on its 4th call; the spec says ``invariant self.level >= 0``. evalgap
checks invariants over a bounded number of calls (docs/language.md: up to 3), so a ``verified`` here is a
bounded result: it is only honest when the report shows the bound.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from integrity_helpers import NOT_PASSING, shared_probe_run

pytestmark = pytest.mark.adversarial


def _bounds(report: dict[str, Any], req: dict[str, Any]) -> str:
    """Every ``bounds`` entry the JSON report carries for the requirement (its own, its engines', or the
    report's), as text."""
    found: list[Any] = [req.get("bounds")] + [v.get("bounds") for v in req["verdicts"]] + [report.get("bounds")]
    return json.dumps([b for b in found if b])


def _text_block(text: str, req_id: str) -> str:
    """The text report's rows of ``req_id`` (from its row to the next row separator), box drawing removed."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.search(rf"\b{re.escape(req_id)}\b", line)), None)
    assert start is not None, f"{req_id} not in the text report:\n{text[:3000]}"
    block: list[str] = []
    for line in lines[start:]:
        if block and line.lstrip().startswith(("├", "└", "+", "-")):
            break
        block.append(line)
    return " ".join(re.sub(r"[│┃|]", " ", line) for line in block)


@pytest.mark.adversarial
def test_invariant_broken_on_fourth_call() -> None:
    """Attack: the invariant holds for 3 calls and breaks on the 4th. Promise: refuted or unknown; a
    ``verified`` is allowed only as a bounded claim, with the call-sequence bound in the JSON report (a
    ``bounds`` entry naming the calls) and shown in the text report."""
    run = shared_probe_run()
    req = run.requirement("MT-1")
    if req["verdict"] in NOT_PASSING:
        return
    assert req["verdict"] == "verified", run.describe("MT-1")
    bounds = _bounds(run.report, req)
    assert re.search(r"call", bounds, re.I), f"verified with no call-sequence bound in the JSON: {bounds}\n" + \
        run.describe("MT-1")
    assert re.search(r"call", _text_block(run.text, "MT-1"), re.I), \
        f"verified, and the text report does not show the bound:\n{_text_block(run.text, 'MT-1')}"
