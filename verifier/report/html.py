"""Render a :class:`~evalgap.verifier.report.gap.GapReport` as one self-contained HTML file (no network access).

Inline CSS, an inline SVG chart of verdicts and formalization coverage, a searchable table (a small inline
script filters rows as you type; ``#q=TEXT`` in the URL pre-fills the search), every counterexample, and the
prose with its requirement smells highlighted (``<mark>`` with the smell's kind and advice as a tooltip).
Template: ``verifier/report/templates/report.html.j2`` (package data), rendered with Jinja2 and autoescaping.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalgap.verifier.findings import RequirementResult, Smell
from evalgap.verifier.report.gap import FLAGS, GapReport
from evalgap.verifier.analysis.smells import SMELL_CODES

__all__ = ["render_html", "prose_segments"]

_COLOURS = {"verified": "#1a7f37", "no-counterexample": "#7cc47f", "unknown": "#d4a72c", "refuted": "#cf222e",
            "not-formalized": "#8250df", "precondition": "#6e7781"}


def prose_segments(prose: str, smells: tuple[Smell, ...]) -> list[tuple[str, list[Smell]]]:
    """Split ``prose`` into ``(text, smells covering it)`` pieces; overlapping smells are merged into one
    highlighted piece carrying all of them. Concatenating the texts gives back ``prose``."""
    spans = sorted(smells, key=lambda s: (s.start, -s.end))
    merged: list[tuple[int, int, list[Smell]]] = []
    for s in spans:
        if merged and s.start < merged[-1][1]:
            a, b, group = merged[-1]
            merged[-1] = (a, max(b, s.end), group + [s])
        else:
            merged.append((s.start, s.end, [s]))
    out: list[tuple[str, list[Smell]]] = []
    pos = 0
    for a, b, group in merged:
        if a > pos:
            out.append((prose[pos:a], []))
        out.append((prose[a:b], group))
        pos = b
    if pos < len(prose):
        out.append((prose[pos:], []))
    return out


def _chart(report: GapReport) -> dict[str, Any]:
    s = report.summary()
    words = ["verified", "no-counterexample", "unknown", "refuted", "not-formalized"]
    counts = [(w, s[w]) for w in words] + [("precondition", s["preconditions"])]
    total = max(1, sum(n for _, n in counts))
    x = 0.0
    bars = []
    for w, n in counts:
        width = 600.0 * n / total
        bars.append({"word": w, "n": n, "x": round(x, 2), "width": round(width, 2), "colour": _COLOURS[w]})
        x += width
    cov = report.coverage()
    return {"bars": bars, "coverage": cov, "coverage_width": round(600.0 * float(cov["ratio"]), 2)}


def _row(r: RequirementResult) -> dict[str, Any]:
    word = r.verdict.value if r.verdict is not None else "precondition"
    return {"r": r, "word": word, "colour": _COLOURS[word], "segments": prose_segments(r.prose, r.smells),
            "search": " ".join([r.id, r.prose, word, *r.flags, r.formal_text, *(s.code for s in r.smells),
                                *r.bounds])}


def render_html(report: GapReport) -> str:
    """The HTML document text (UTF-8, self-contained: no external script, style, font or image)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True)
    template = env.get_template("report.html.j2")
    return template.render(report=report, summary=report.summary(), chart=_chart(report),
                           rows=[_row(r) for r in report.requirements], flags=FLAGS, smell_codes=SMELL_CODES,
                           flag_counts=report.flag_counts(), smell_counts=report.smell_counts())
