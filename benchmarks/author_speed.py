"""Time of `evalgap author` against the size of the prose (issue 24: linear; 1 MB under 10 s).

The prose is the development requirements document (tests/fixtures/authoring/dev/requirements.md) repeated
with its function and class names renamed per copy (``total_3``, ``Wallet_3``, ...; the copies cycle over
:data:`COPIES` names), and the target module is the correct implementation repeated :data:`COPIES` times the
same way: a document about 100 functions and classes whose size grows while the target stays fixed. Each size is drafted in-process
(signatures read in the sandboxed worker, clauses linted, the draft validated, formatted and linted);
CPU seconds (this process and its sandboxed workers) and wall seconds are printed with the ratio to the smallest size, so growth is read from paired
figures of one run (an idle core: CPU ≈ wall).

Usage: python benchmarks/author_speed.py [--sizes 100,400,1000] (KB)
"""

from __future__ import annotations

import argparse
import resource
import re
import tempfile
import time
from pathlib import Path

from evalgap.verifier.authoring.author_run import AuthorOptions, run_author

DEV = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "authoring" / "dev"
_NAMES = ("total", "truncate", "unique_sorted", "Wallet")
#: Renamed copies of the module in the target (the prose cycles over them): a fixed-size target, so only the
#: prose grows; a clause repeated for the same target is linted once (a cache of the drafting, stated here).
COPIES = 25


def _rename(text: str, k: int) -> str:
    return re.sub(rf"\b({'|'.join(_NAMES)})\b", lambda m: f"{m.group(1)}_{k}", text)


def make(size_kb: int, folder: Path, copies: int = COPIES) -> tuple[Path, Path]:
    """Write a prose file of about ``size_kb`` KB and its target module (``copies`` renamed copies of the
    module; the prose cycles over them); return their paths."""
    doc = (DEV / "requirements.md").read_text(encoding="utf-8")
    impl = (DEV / "ledger.py").read_text(encoding="utf-8").replace("from __future__ import annotations\n", "")
    parts, code, k, total = [], ["from __future__ import annotations\n"], 0, 0
    code += [_rename(impl, j) for j in range(copies)]
    while total < size_kb * 1024:
        parts.append(_rename(doc, k % copies).replace("# Ledger module requirements", f"# Ledger module {k}"))
        total += len(parts[-1])
        k += 1
    prose, target = folder / f"prose_{size_kb}.md", folder / f"target_{size_kb}.py"
    prose.write_text("\n".join(parts), encoding="utf-8")
    target.write_text("\n".join(code), encoding="utf-8")
    return prose, target


def _children_cpu() -> float:
    """CPU seconds of finished child processes (the sandboxed signature and clause workers)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def main(argv: list[str] | None = None) -> int:
    """Print CPU and wall seconds per size and the ratios to the smallest."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,400,1000", help="prose sizes in KB, comma-separated")
    ap.add_argument("--copies", type=int, default=COPIES,
                    help="renamed copies of the module in the target (the prose cycles over them); 0: one per "
                         "copy of the document, so no clause repeats and nothing is answered from the lint cache")
    args = ap.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="author-speed-"))
    base: tuple[float, float, int] | None = None
    for size in [int(x) for x in args.sizes.split(",")]:
        copies = args.copies or -(-size * 1024 // len((DEV / "requirements.md").read_text(encoding="utf-8")))
        prose, target = make(size, folder, copies)
        t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
        res = run_author(AuthorOptions(prose, target, output=folder / "out.req"))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0 + _children_cpu() - k0
        nbytes = prose.stat().st_size
        base = base or (cpu, wall, nbytes)
        print(f"{nbytes / 1024:7.0f} KB ({copies} module copies): {res.summary.sentences} sentences, {res.summary.formalized} formalized; "
              f"CPU {cpu:6.2f} s, wall {wall:6.2f} s; size x{nbytes / base[2]:.1f} -> CPU x{cpu / base[0]:.1f}, "
              f"wall x{wall / base[1]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
