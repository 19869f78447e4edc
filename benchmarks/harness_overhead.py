"""What evalgap's generated harness costs CrossHair, per clause form, against the same contract written by hand.

For each clause form (``requires``, ``ensures``, two ``ensures``, ``scenario``, ``invariant``, ``raises``,
``forall``/``exists``, ``old``) the script writes a target function, a spec and a hand-written icontract module
with the same contract (the way a user of ``crosshair check`` would write it), then measures, in paired runs
that alternate between the sides:

* ``raw``: ``crosshair check --analysis_kind icontract --report_all`` of the hand-written module (for the
  invariant, a hand-written check of the invariant after construction and three calls, the sequence evalgap's
  harness explores: CrossHair's own analysis of an ``@icontract.invariant`` class checks each method from an
  arbitrary state, other work, about 70 CPU s on this workload);
* ``start-up``: the same command on a module without contracts (CrossHair's import); ``analysis`` is the
  ratio of both sides with it subtracted;
* ``harness``: the same command on the check function of evalgap's generated harness module (the clause code
  alone: no evalgap start-up, no sandbox, no replay, no second-seed run);
* ``evalgap`` (unless ``--no-cli``): the real command ``evalgap check SPEC --engines crosshair --no-analysis
  --no-cache -j 1`` (interpreter and fork-server start-up, sandbox, replay and, for a ``verified``, the second
  run under another hash seed included).

CPU seconds are user + system of the command and everything it waited for (``RUSAGE_CHILDREN``); the figures
printed per form are the medians of the per-pair ratios ``harness/raw`` and ``evalgap/raw`` and the median CPU
of each side. Each workload is a refutation CrossHair has to search for (a wrong result on one input behind a
precondition, a loop or a collection), or a small exhaustion, so the clause code runs on many paths.

Usage: ``python benchmarks/harness_overhead.py [--repeat 5] [--budget 20] [--no-cli] [--only FORM,...]``.
The machine's 1-minute load average is printed before the runs: CPU ratios are comparable under load, wall
times are not.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from evalgap.specs_lang import check_structure, parse_file
from evalgap.translators.to_icontract import build_harness


@dataclass(frozen=True)
class Form:
    """One clause form's workload: target source, spec body (after the header) and hand-written contracts."""

    name: str
    target: str
    spec: str
    hand: str
    req: str  # the requirement whose check function the harness side runs


FORMS = (
    Form("requires", """
def isqrt(n: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int:
    k = 0
    for j, p in enumerate((p0, p1, p2, p3, p4)):
        if p > j:
            k += 1
    if n == 1023 * 1023 and k == 5:
        return 1024
    x = 0
    while (x + 1) * (x + 1) <= n and x < 3:
        x += 1
    return x
""", """
function isqrt(n: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int
  requirement Q-1 "Inputs are bounded."
    requires 0 <= n <= 2000000
  requirement Q-2 "The square of the result is at most the input."
    ensures 0 <= result and result * result <= n
""", """
@icontract.require(lambda n: 0 <= n <= 2000000)
@icontract.ensure(lambda n, result: 0 <= result and result * result <= n)
def isqrt(n: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int:
    return T.isqrt(n, p0, p1, p2, p3, p4)
""", "Q-2"),
    Form("ensures", """
def f(a: int, b: int, c: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int:
    k = 0
    for j, p in enumerate((p0, p1, p2, p3, p4)):
        if p > j:
            k += 1
    if a == 1001 and b == 2002 and c == 3003 and k == 5:
        return 0
    return a + b + c + k
""", """
function f(a: int, b: int, c: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int
  requirement E-1 "Positive for positive inputs."
    ensures a <= 0 or b <= 0 or c <= 0 or result > 0
""", """
@icontract.ensure(lambda a, b, c, result: a <= 0 or b <= 0 or c <= 0 or result > 0)
def f(a: int, b: int, c: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int:
    return T.f(a, b, c, p0, p1, p2, p3, p4)
""", "E-1"),
    Form("two-ensures", """
def f(a: int, b: int, c: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int:
    k = 0
    for j, p in enumerate((p0, p1, p2, p3, p4)):
        if p > j:
            k += 1
    if a == 1001 and b == 2002 and c == 3003 and k == 5:
        return -5
    return abs(a) + abs(b) + abs(c) + k % 2
""", """
function f(a: int, b: int, c: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int
  requirement E-2 "Non-negative, at most the sum of magnitudes."
    ensures result >= -10
    ensures result >= 0 and result <= abs(a) + abs(b) + abs(c) + 2
""", """
@icontract.ensure(lambda result: result >= -10)
@icontract.ensure(lambda a, b, c, result: result >= 0 and result <= abs(a) + abs(b) + abs(c) + 2)
def f(a: int, b: int, c: int, p0: int, p1: int, p2: int, p3: int, p4: int) -> int:
    return T.f(a, b, c, p0, p1, p2, p3, p4)
""", "E-2"),
    Form("scenario", """
class Box:
    def __init__(self) -> None:
        self.items: list[int] = []

    def put(self, x: int) -> None:
        if x == 4321 and len(self.items) == 1:
            return
        self.items.append(x)

    def size(self) -> int:
        return len(self.items)
""", """
requirement S-1 "Each put adds one item."
  scenario (x: int, y: int):
    b = Box()
    b.put(x)
    b.put(y)
    expect b.size() == 2
""", """
@icontract.ensure(lambda result: result == 0)
def scenario(x: int, y: int) -> int:
    b = T.Box()
    b.put(x)
    b.put(y)
    if not b.size() == 2:
        return 1
    return 0
""", "S-1"),
    Form("invariant", """
class Counter:
    def __init__(self, start: int) -> None:
        self.n = max(start, 0)

    def add(self, k: int) -> None:
        if k > 0 or self.n + k >= 0:
            self.n += k
        if self.n == 777:
            self.n = -1
""", """
class Counter
  method __init__(start: int) -> None
  method add(k: int) -> None
  requirement I-1 "The count is never negative."
    invariant self.n >= 0
""", """
@icontract.ensure(lambda result: result == 0)
def sequence(start: int, k1: int, k2: int, k3: int) -> int:
    c = T.Counter(start)
    if not c.n >= 0:
        return 1
    for k in (k1, k2, k3):
        c.add(k)
        if not c.n >= 0:
            return 1
    return 0
""", "I-1"),
    Form("raises", """
def sqrt_floor(a: int, b: int) -> int:
    if a < 0 and not (a == -1234 and b > 5):
        raise ValueError("negative")
    if b < 0:
        raise ZeroDivisionError("negative b")
    x = 0
    while x < 3 and x * x < a:
        x += 1
    return x
""", """
function sqrt_floor(a: int, b: int) -> int
  requirement R-1 "Negative inputs raise."
    raises ValueError when a < 0
    raises ZeroDivisionError when b < 0 and a >= 0
""", """
@icontract.ensure(lambda result: result == 0)
def sqrt_floor(a: int, b: int) -> int:
    w0, w1 = a < 0, b < 0 and a >= 0
    if w0 or w1:
        try:
            T.sqrt_floor(a, b)
        except Exception as e:
            if not ((w0 and isinstance(e, ValueError)) or (w1 and isinstance(e, ZeroDivisionError))):
                return 1
        else:
            return 1
    return 0
""", "R-1"),
    Form("forall", """
def clip(xs: list[int]) -> list[int]:
    out = []
    for x in xs:
        if x == 99 and len(xs) == 3:
            out.append(-1)
        else:
            out.append(x if x >= 0 else 0)
    return out
""", """
function clip(xs: list[int]) -> list[int]
  requirement F-1 "Every element is non-negative, and some element is kept when the input is non-empty."
    ensures forall y in result: y >= 0
    ensures len(xs) == 0 or exists y in result: y >= 0
""", """
@icontract.ensure(lambda result: all(y >= 0 for y in result))
@icontract.ensure(lambda xs, result: len(xs) == 0 or any(y >= 0 for y in result))
def clip(xs: list[int]) -> list[int]:
    return T.clip(xs)
""", "F-1"),
    Form("old", """
def push(xs: list[int], x: int) -> None:
    if x == 31337 and len(xs) == 2:
        return
    xs.append(x)
""", """
function push(xs: list[int], x: int)
  requirement O-1 "The list grows by one."
    ensures len(xs) == len(old(xs)) + 1
""", """
@icontract.snapshot(lambda xs: xs[:], name="xs")
@icontract.ensure(lambda OLD, xs: len(xs) == len(OLD.xs) + 1)
def push(xs: list[int], x: int) -> None:
    T.push(xs, x)
""", "O-1"),
)


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """CPU seconds, wall seconds and stdout of ``cmd``."""
    c0, w0 = _cpu(), time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    return _cpu() - c0, time.monotonic() - w0, out.stdout


def _write(folder: Path, form: Form) -> tuple[Path, str]:
    """Write the form's target, spec, hand-written module and harness; return the spec path and the harness
    check function's dotted name."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tgt.py").write_text(form.target.lstrip(), encoding="utf-8")
    spec = folder / "w.req"
    spec.write_text(f'spec w "{form.name}"\n  target: tgt.py\n{form.spec}', encoding="utf-8")
    (folder / "hand.py").write_text("import icontract\nimport tgt as T\n" + form.hand, encoding="utf-8")
    s = parse_file(spec)
    check_structure(s)
    h = build_harness(s, "tgt", "eg_harness")
    (folder / "eg_harness.py").write_text(h.source, encoding="utf-8")
    fn = h.obligation(form.req).function
    assert fn is not None, form.name
    return spec, f"eg_harness.{fn}"


def _verdict(stdout: str) -> str:
    if "error:" in stdout:
        return "refuted"
    if "Confirmed over all paths" in stdout:
        return "verified"
    return "no-counterexample"


def main(argv: list[str] | None = None) -> int:
    """Print, per clause form, the CPU ratios harness/raw and evalgap/raw (medians of paired runs).

    Args:
        argv: command-line arguments (``--repeat N``, ``--budget S``, ``--no-cli``, ``--only a,b``).

    Returns:
        0, or 1 when the two CrossHair sides disagree on a verdict in some pair.
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=20.0, help="CrossHair seconds per condition (both sides)")
    ap.add_argument("--no-cli", action="store_true", help="skip the evalgap command (harness vs raw only)")
    ap.add_argument("--only", default="", help="comma-separated form names")
    args = ap.parse_args(argv)
    only = {x for x in args.only.split(",") if x}
    exe = str(Path(sys.executable).parent / "evalgap")
    ch = [sys.executable, "-m", "crosshair", "check", "--analysis_kind", "icontract", "--report_all",
          "--per_condition_timeout", str(args.budget)]
    status = 0
    print(f"load average {os.getloadavg()[0]:.2f}; {args.repeat} paired runs per form; medians")
    print(f"{'form':<12} {'start-up':>8} {'raw CPU s':>9} {'harness':>8} {'h/raw':>6} {'analysis':>8} "
          f"{'evalgap':>8} {'eg/raw':>7}  verdicts")
    with tempfile.TemporaryDirectory(prefix="evalgap-harness-bench-") as tmp:
        for form in FORMS:
            if only and form.name not in only:
                continue
            folder = Path(tmp, form.name)
            spec, dotted = _write(folder, form)
            env = {**os.environ, "PYTHONPATH": str(folder), "EVALGAP_CACHE_DIR": str(Path(tmp, "cache"))}
            (folder / "empty.py").write_text("def nothing() -> None:\n    pass\n", encoding="utf-8")
            raw, har, cli, zero, verdicts = [], [], [], [], set()
            for i in range(args.repeat):
                sides = ["zero", "raw", "harness", "cli"] if i % 2 == 0 else ["cli", "harness", "raw", "zero"]
                for side in sides:
                    if side == "zero":
                        zero.append(_run(ch + ["empty.py"], folder, env)[0])
                    elif side == "raw":
                        c, _, out = _run(ch + ["hand.py"], folder, env)
                        raw.append(c)
                        verdicts.add(("raw", _verdict(out)))
                    elif side == "harness":
                        c, _, out = _run(ch + [dotted], folder, env)
                        har.append(c)
                        verdicts.add(("harness", _verdict(out)))
                    elif not args.no_cli:
                        c, _, out = _run([exe, "check", str(spec), "--engines", "crosshair", "--no-analysis",
                                          "--no-cache", "-j", "1", "--budget", str(args.budget), "-f", "json"],
                                         folder, env)
                        cli.append(c)
                        verdicts.add(("evalgap", "refuted" if '"refuted"' in out else
                                      "verified" if '"verified"' in out else "other"))
            hr = statistics.median(h / r for h, r in zip(har, raw))
            # the analysis alone: each side minus the same pair's `crosshair check` of an empty module
            ha = statistics.median((h - z) / max(r - z, 1e-3) for h, r, z in zip(har, raw, zero))
            er = f"{statistics.median(e / r for e, r in zip(cli, raw)):7.2f}" if cli else "      -"
            ec = f"{statistics.median(cli):8.2f}" if cli else "       -"
            vs = ", ".join(f"{k} {v}" for k, v in sorted(verdicts))
            if {v for k, v in verdicts if k in ("raw", "harness")} != {v for k, v in verdicts if k == "raw"}:
                status = 1
                vs += "  (DISAGREE)"
            print(f"{form.name:<12} {statistics.median(zero):8.2f} {statistics.median(raw):9.2f} "
                  f"{statistics.median(har):8.2f} {hr:6.2f} {ha:8.2f} "
                  f"{ec} {er}  {vs}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
