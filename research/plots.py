"""Plots of a compare :class:`~evalgap.research.summary.Summary` (matplotlib, PNG and SVG; the ``research`` extra)."""

from __future__ import annotations

from pathlib import Path

from evalgap.research.errors import ResearchError
from evalgap.research.summary import Summary

__all__ = ["write_plots"]


def write_plots(s: Summary, out: Path) -> list[Path]:
    """Write ``accept_rate``, ``gap_recall``, ``cpu`` and ``agreement`` plots as PNG and SVG into ``out``.

    Returns:
        The files written.

    Raises:
        ResearchError: matplotlib is not installed (``pip install 'evalgap[research]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ResearchError("plots need matplotlib: pip install 'evalgap[research]'") from exc
    files: list[Path] = []
    evs = s.evaluators

    def save(fig: object, name: str) -> None:
        for ext in ("png", "svg"):
            p = out / f"{name}.{ext}"
            fig.savefig(p, dpi=120, bbox_inches="tight")  # type: ignore[attr-defined]
            files.append(p)
        plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 3.2))
    rates = [100 * (s.accept[e]["rate"] or 0) for e in evs]
    ax.bar(evs, rates, color="#4c72b0")
    ax.set_ylabel("accept rate (%)")
    ax.set_title(f"Accept rate per evaluator ({s.candidates} candidates)")
    ax.set_ylim(0, 100)
    ax.tick_params(axis="x", rotation=20)
    save(fig, "accept_rate")

    fig, ax = plt.subplots(figsize=(6, 3.2))
    others = [e for e in evs if e not in ("tests", "ground-truth")]
    rej = [s.recall[e]["rejected"] for e in others]
    unk = [s.recall[e]["unknown"] for e in others]
    acc = [s.recall[e]["accepted"] for e in others]
    if s.gap["count"] == 0 or not others:
        # nothing to draw: say so instead of an empty axis
        ax.axis("off")
        ax.text(0.5, 0.5, "no gap: every program the tests accept is right by the ground truth"
                if s.gap["count"] == 0 else "no formal evaluator was run", ha="center", va="center", fontsize=10)
    else:
        ax.bar(others, rej, label="refuted", color="#55a868")
        ax.bar(others, unk, bottom=rej, label="unknown", color="#c4ad66")
        ax.bar(others, acc, bottom=[a + b for a, b in zip(rej, unk)], label="accepted (missed)", color="#c44e52")
        ax.set_ylabel("programs")
        ax.legend(fontsize=8)
    ax.set_title(f"Evaluation gap: {s.gap['count']} programs pass tests, wrong by ground truth")
    save(fig, "gap_recall")

    fig, ax = plt.subplots(figsize=(6, 3.2))
    outcomes = ["accept", "reject", "unknown"]
    width = 0.8 / len(outcomes)
    for i, o in enumerate(outcomes):
        vals = [s.cpu[e].get(o, {}).get("median_s", 0.0) for e in evs]
        ax.bar([j + i * width for j in range(len(evs))], vals, width, label=o)
    ax.set_xticks([j + width for j in range(len(evs))], evs, rotation=20)
    ax.set_ylabel("median CPU s per program")
    ax.set_title("Cost per evaluator, by outcome")
    ax.legend(fontsize=8)
    save(fig, "cpu")

    fig, ax = plt.subplots(figsize=(4.5, 4))
    mat = [[s.agreement[a][b] for b in evs] for a in evs]
    im = ax.imshow(mat, vmin=0, vmax=1, cmap="viridis")
    ax.set_xticks(range(len(evs)), evs, rotation=45, ha="right")
    ax.set_yticks(range(len(evs)), evs)
    for i in range(len(evs)):
        for j in range(len(evs)):
            ax.text(j, i, f"{mat[i][j]:.2f}", ha="center", va="center", color="w", fontsize=8)
    fig.colorbar(im, ax=ax)
    ax.set_title("Agreement")
    save(fig, "agreement")
    return files
