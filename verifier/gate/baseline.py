"""A recorded baseline for the gate (``evalgap gate --baseline FILE``): the requirements already known to be
refuted, so that the gate blocks only on requirements the change newly breaks (as code-scanning tools report
new findings apart from the ones recorded on the main branch).

A baseline file is a JSON report recorded earlier: the gap report of ``evalgap check -f json`` (its
``requirements[].verdict``) or the gate's own JSON report (``requirements[].head_verdict``, the head of an
earlier gate). A requirement is *known* when the baseline has it refuted under the same ID, and, when the
baseline records its formal text (a gap report does), with the same formal text: a requirement whose
clauses changed since is not the one recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgap.specs_lang.textfile import MAX_TEXT_BYTES, read_text
from evalgap.verifier.errors import UsageError

__all__ = ["Baseline", "load_baseline", "baseline_from_dict"]


@dataclass(frozen=True)
class Baseline:
    """The refuted requirements of a recorded report.

    Attributes:
        file: where it was read from (for the report).
        kind: ``check`` (a gap report) or ``gate`` (a gate report).
        refuted: requirement ID -> its recorded formal text ('' when the report does not record it).
        checked: every requirement ID the baseline has a verdict for.
    """

    file: str
    kind: str
    refuted: tuple[tuple[str, str], ...]
    checked: frozenset[str]

    def known(self, rid: str, formal_text: str) -> bool:
        """Whether ``rid`` is recorded as refuted with this formal text (or with no recorded text).

        Args:
            rid: the requirement ID.
            formal_text: its formal text in the head spec ('' to match by ID only).
        """
        for r, text in self.refuted:
            if r == rid:
                return not text or not formal_text or text.strip() == formal_text.strip()
        return False


def baseline_from_dict(data: object, file: str) -> Baseline:
    """Read a baseline from a parsed JSON report.

    Args:
        data: the parsed JSON document.
        file: its name, for messages.

    Raises:
        UsageError: the document is neither a gap report nor a gate report.
    """
    if not isinstance(data, dict) or not isinstance(data.get("requirements"), list):
        raise UsageError(f"--baseline {file}: not an evalgap JSON report (no `requirements` list); record one "
                         "with `evalgap check -f json -o FILE` or `evalgap gate -f json -o FILE`")
    kind = "gate" if "gate_schema_version" in data else "check" if "schema_version" in data else ""
    if not kind:
        raise UsageError(f"--baseline {file}: neither a gap report (`schema_version`) nor a gate report "
                         "(`gate_schema_version`)")
    key = "head_verdict" if kind == "gate" else "verdict"
    refuted: list[tuple[str, str]] = []
    checked: set[str] = set()
    for i, r in enumerate(data["requirements"]):
        if not isinstance(r, dict) or not isinstance(r.get("id"), str):
            raise UsageError(f"--baseline {file}: requirements[{i}] has no string `id`")
        verdict: Any = r.get(key)
        if verdict is None:
            continue
        checked.add(r["id"])
        if verdict == "refuted":
            text = r.get("formal_text") if kind == "check" else ""
            refuted.append((r["id"], text if isinstance(text, str) else ""))
    return Baseline(file, kind, tuple(refuted), frozenset(checked))


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file (see the module docstring).

    Args:
        path: a JSON report written by ``evalgap check -f json`` or ``evalgap gate -f json``.

    Raises:
        UsageError: the file cannot be read, is not JSON (with line and column), or is not such a report.
    """
    text = read_text(path, "baseline report", MAX_TEXT_BYTES)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--baseline {path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    return baseline_from_dict(data, str(path))
