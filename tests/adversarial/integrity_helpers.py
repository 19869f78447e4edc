"""Shared helpers of the verdict-integrity suite (issue 18): run evalgap as a user would, black box.

Every check is the ``evalgap`` console script next to ``sys.executable``, run in a subprocess with an
explicit environment (a private ``HOME`` and ``EVALGAP_CACHE_DIR``, nothing of the caller's evalgap
settings) and a timeout; the JSON report is parsed and its verdicts inspected. Nothing here imports
``evalgap.verifier``.

The attacks hide their wrong behaviour behind a narrow input, :data:`MAGIC` (``x == 102952``), computed at
import time from literals that are not that number (Hypothesis mines literal constants from the code under
test, so a literal would be found by random testing alone). CrossHair solves ``x == MAGIC`` at once, so a
check that is not fooled refutes the requirement; a check that is fooled (the code behaves while checked)
sees a correct program.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

EVALGAP = Path(sys.executable).with_name("evalgap")

#: The budget flags every check uses (fast: 2 CPU s per requirement, no Z3 analysis of the spec, 2 jobs).
FAST = ("--budget", "2", "--no-analysis", "-j", "2")

#: Source lines a target puts at its top to define the narrow wrong input (not a literal: see module doc).
MAGIC_SOURCE = "_MAGIC = 7919 * 13 + 5  # 102952, never written literally\n"
MAGIC = 7919 * 13 + 5

#: A spec requirement every "plus one" attack function is checked against.
PLUS_ONE = 'ensures result == x + 1'

#: Verdicts a wrong program may get from a sound checker (each exits non-zero under the default --fail-on).
NOT_PASSING = ("refuted", "unknown")

T = TypeVar("T")

_SESSION_ROOT: list[Path] = []


def session_root() -> Path:
    """A temporary folder for the whole test session (removed when the interpreter exits)."""
    if not _SESSION_ROOT:
        root = Path(tempfile.mkdtemp(prefix="integrity-suite-"))
        _SESSION_ROOT.append(root)
        import atexit

        atexit.register(shutil.rmtree, str(root), True)
    return _SESSION_ROOT[0]


def fresh_dir(name: str) -> Path:
    """A new, empty folder under the session root."""
    return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=session_root()))


def _hypothesis_home() -> str:
    """One folder for Hypothesis's unicode tables for all runs (no results live there, see docs/engine.md);
    the repository's conftest provides one as ``EVALGAP_HYPOTHESIS_HOME``, else a session folder."""
    given = os.environ.get("EVALGAP_HYPOTHESIS_HOME")
    if given:
        return given
    home = session_root() / "hypothesis-home"
    home.mkdir(exist_ok=True)
    return str(home)


@dataclass(frozen=True)
class Sandbox:
    """The explicit environment of a user's shell: a private home and result cache.

    Attributes:
        root: the folder holding ``home`` and ``cache``.
        cache: ``EVALGAP_CACHE_DIR``.
        extra: further variables of the runs (the shared probe run fixes ``EVALGAP_HASH_SEEDS``).
    """

    root: Path
    cache: Path
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        """The ``HOME`` of the runs."""
        return self.root / "home"

    def env(self) -> dict[str, str]:
        """The environment of an ``evalgap`` run (no inherited ``EVALGAP_*``, ``PYTHONHASHSEED``, ``CI``)."""
        self.home.mkdir(parents=True, exist_ok=True)
        self.cache.mkdir(parents=True, exist_ok=True)
        path = os.pathsep.join([str(EVALGAP.parent), os.environ.get("PATH", "/usr/bin:/bin")])
        return {"PATH": path, "LANG": "C.UTF-8", "HOME": str(self.home), "EVALGAP_CACHE_DIR": str(self.cache),
                "EVALGAP_HYPOTHESIS_HOME": _hypothesis_home(), "TMPDIR": tempfile.gettempdir(), **self.extra}


def sandbox(root: Path | None = None, cache: Path | None = None) -> Sandbox:
    """A :class:`Sandbox` under ``root`` (default: a fresh session folder), its cache ``root/cache`` unless
    given (two projects share a cache by passing the same ``cache``)."""
    base = root if root is not None else fresh_dir("sandbox")
    return Sandbox(base, cache if cache is not None else base / "cache")


@dataclass
class Run:
    """One finished ``evalgap`` command.

    Attributes:
        args: the command line after ``evalgap``.
        rc: its exit code.
        stdout: its standard output.
        stderr: its standard error.
        seconds: wall time.
        text: the text report written beside the JSON one (``-o text=...``), when asked for.
    """

    args: list[str]
    rc: int
    stdout: str = field(repr=False)
    stderr: str = field(repr=False)
    seconds: float
    text: str = field(default="", repr=False)
    _report: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def report(self) -> dict[str, Any]:
        """The JSON report on standard output (fails the test with the output when it does not parse)."""
        if self._report is None:
            try:
                loaded = json.loads(self.stdout)
            except ValueError as exc:
                raise AssertionError(f"no JSON report ({exc}); rc={self.rc}\nstdout:\n{self.stdout[-3000:]}\n"
                                     f"stderr:\n{self.stderr[-3000:]}") from exc
            assert isinstance(loaded, dict), loaded
            self._report = loaded
        return self._report

    def requirement(self, req_id: str) -> dict[str, Any]:
        """The report's record of requirement ``req_id``."""
        for req in self.report["requirements"]:
            if req["id"] == req_id:
                assert isinstance(req, dict)
                return req
        raise AssertionError(f"{req_id} not in the report: {[r['id'] for r in self.report['requirements']]}")

    def verdict(self, req_id: str) -> str | None:
        """The overall verdict of ``req_id``."""
        v = self.requirement(req_id)["verdict"]
        assert v is None or isinstance(v, str)
        return v

    def describe(self, req_id: str) -> str:
        """One line per engine verdict of ``req_id`` (for assertion messages and the report)."""
        req = self.requirement(req_id)
        lines = [f"{req_id}: overall {req['verdict']!r} (exit {self.rc})"]
        for v in req["verdicts"]:
            cached = " (cached)" if v.get("cached") else ""
            lines.append(f"  {v['engine']}: {v['verdict']}{cached}: {str(v['reason'])[:300]}")
        return "\n".join(lines)


def evalgap(args: Sequence[str], box: Sandbox, cwd: Path, timeout: float = 150.0) -> Run:
    """Run ``evalgap ARGS`` in ``cwd`` with ``box``'s environment; fails the test on a timeout."""
    start = time.monotonic()
    try:
        proc = subprocess.run([str(EVALGAP), *args], cwd=cwd, env=box.env(), capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"evalgap {' '.join(args)} did not finish within {timeout} s") from exc
    return Run(list(args), proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def check(spec: Path, box: Sandbox, *extra: str, target: Path | None = None, text: bool = False,
          timeout: float = 150.0) -> Run:
    """``evalgap check SPEC [--target FILE] -f json`` with the :data:`FAST` flags and ``extra``; with
    ``text`` the text report is also written (``-o text=PATH``) and kept in :attr:`Run.text`."""
    args = ["check", str(spec), "-f", "json", *FAST, *extra]
    if target is not None:
        args[2:2] = ["--target", str(target)]
    text_path = spec.parent / f".{spec.stem}-report.txt"
    if text:
        args += ["-o", f"text={text_path}"]
    run = evalgap(args, box, spec.parent, timeout)
    if text:
        run.text = text_path.read_text(encoding="utf-8") if text_path.exists() else ""
    return run


def write_project(folder: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative name -> text, dedented) into ``folder``; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip("\n"), encoding="utf-8")
    return folder


def plus_one_spec(name: str, target: str, functions: Iterable[tuple[str, str]]) -> str:
    """A spec whose requirement ``ID`` says of each ``(function, ID)`` that it returns ``x + 1``."""
    lines = [f'spec {name} "Integrity attacks on {name}"', f"  target: {target}", ""]
    for fn, req_id in functions:
        lines += [f"function {fn}(x: int) -> int",
                  f'  requirement {req_id} "{fn} returns its argument plus one."', f"    {PLUS_ONE}"]
    return "\n".join(lines) + "\n"


def assert_not_passing(run: Run, req_id: str, *, reason: str | None = None, whole_run: bool = True) -> None:
    """The promise for a wrong program: ``req_id`` is ``refuted`` or ``unknown`` (never ``verified`` nor
    ``no-counterexample``) and, with ``whole_run``, the command does not exit 0 (for a spec checked for this
    attack alone). With ``reason``, the verdict's reasons must mention it (case-insensitive)."""
    verdict = run.verdict(req_id)
    assert verdict in NOT_PASSING, f"a wrong program was not caught:\n{run.describe(req_id)}"
    if whole_run:
        assert run.rc not in (0,), f"exit 0 for a wrong program:\n{run.describe(req_id)}"
    if reason is not None:
        texts = " ".join(str(v["reason"]) for v in run.requirement(req_id)["verdicts"]).lower()
        assert reason.lower() in texts, f"expected the reason to say {reason!r}:\n{run.describe(req_id)}"


def assert_not_verified(run: Run, req_id: str) -> None:
    """The weaker promise (code right today but clock- or environment-dependent): never ``verified``."""
    assert run.verdict(req_id) != "verified", f"dependent code was verified:\n{run.describe(req_id)}"


def parallel(jobs: Sequence[Callable[[], T]], workers: int = 3) -> list[T]:
    """Run independent ``jobs`` (each a chain of evalgap commands) in threads; results in order."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(j) for j in jobs]
        return [f.result() for f in futures]


# ------------------------------------------------------------------------------------------- gate repos
_GIT = ["git", "-c", "user.name=integrity-test", "-c", "user.email=test@evalgap.invalid",
        "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (raises on failure) and return its output."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run([*_GIT, *args], cwd=repo, env=env, capture_output=True, text=True, check=True,
                          timeout=60).stdout


def gate_repo(folder: Path, base: Mapping[str, str], head: Mapping[str, str]) -> Path:
    """A git repository in ``folder`` with two commits: ``base`` files, then ``head`` files over them."""
    write_project(folder, base)
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "base: correct")
    write_project(folder, head)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "head: the agent's change")
    return folder


def gate(repo: Path, spec: str, box: Sandbox, timeout: float = 150.0) -> Run:
    """``evalgap gate REPO --spec SPEC`` (HEAD~1 against HEAD), JSON on standard output, fast budgets."""
    return evalgap(["gate", str(repo), "--spec", spec, "--format", "json", "--budget", "2", "--diff-budget", "1",
                    "-j", "2"], box, repo, timeout)


# ------------------------------------------------------------------------------------------- cache
def cache_entries(cache: Path) -> list[Path]:
    """Every entry file of the result cache (any format version), sorted."""
    return sorted(p for p in cache.rglob("*.json") if not p.name.startswith(".tmp-"))


def snapshot(paths: Iterable[Path]) -> dict[Path, bytes]:
    """The bytes of each existing file."""
    return {p: p.read_bytes() for p in paths if p.is_file()}


# ------------------------------------------------------------------------------------------- hash seed
def first_of_set(words: Sequence[str], seed: int) -> str:
    """``next(iter(set(words)))`` in a fresh interpreter with ``PYTHONHASHSEED=seed``."""
    code = f"print(next(iter(set({list(words)!r}))))"
    out = subprocess.run([sys.executable, "-c", code], env={"PYTHONHASHSEED": str(seed)}, capture_output=True,
                         text=True, check=True, timeout=30).stdout
    return out.strip()


# ------------------------------------------------------------------------------------------- shared run
#: Attacks that behave only at call time, each its own function (and requirement) of one target, so that
#: one ``evalgap check`` serves them all without interference. ``(function, requirement ID, body)``: the
#: body returns the wrong ``x`` when ``x == _MAGIC`` and the code believes it is not being checked.
RUNTIME_PROBES: tuple[tuple[str, str, str], ...] = (
    ("probe_crosshair", "CH-1", '''
        if x == _MAGIC and "crosshair" not in sys.modules:
            return x
        return x + 1'''),
    ("probe_trace", "TR-1", '''
        if x == _MAGIC and sys.gettrace() is None:
            return x
        return x + 1'''),
    ("probe_hashseed_env", "HS-1", '''
        if x == _MAGIC and "PYTHONHASHSEED" not in os.environ:
            return x
        return x + 1'''),
    ("probe_evalgap_env", "EV-1", '''
        if x == _MAGIC and not any(k.startswith("EVALGAP_") for k in os.environ):
            return x
        return x + 1'''),
    ("probe_temp_home", "HM-1", '''
        home = os.environ.get("HOME", "")
        temporary = home.startswith((tempfile.gettempdir(), "/tmp", "/var/tmp")) or "tmp" in home
        if x == _MAGIC and not temporary:
            return x
        return x + 1'''),
    ("probe_cwd", "CW-1", '''
        here = os.path.basename(os.getcwd()) + os.getcwd()
        if x == _MAGIC and "evalgap" not in here and "worker" not in here:
            return x
        return x + 1'''),
    ("probe_rlimit", "RL-1", '''
        if x == _MAGIC and resource.getrlimit(resource.RLIMIT_CPU)[0] == resource.RLIM_INFINITY:
            return x
        return x + 1'''),
    ("probe_hypothesis", "HY-1", '''
        if x == _MAGIC and "hypothesis" not in sys.modules:
            return x
        return x + 1'''),
    ("probe_icontract_caller", "IC-1", '''
        frame = sys._getframe(1)
        checked = False
        while frame is not None:
            checked = checked or str(frame.f_globals.get("__name__", "")).startswith("icontract")
            frame = frame.f_back
        if x == _MAGIC and not checked:
            return x
        return x + 1'''),
    ("probe_icontract_loaded", "IL-1", '''
        if x == _MAGIC and "icontract" not in sys.modules:
            return x
        return x + 1'''),
    ("ignore_attempt", "IG-1", '''
        if x == _MAGIC:
            try:
                from crosshair.util import IgnoreAttempt
            except ImportError:
                return x
            raise IgnoreAttempt("nothing to see here")
        return x + 1'''),
    ("coin", "RN-1", '''
        if random.random() < 0.001:
            return x
        return x + 1'''),
    ("counted", "CN-1", '''
        global _calls
        _calls += 1
        if _calls >= 1000:
            return x
        return x + 1'''),
    ("time_bomb", "TB-1", '''
        if datetime.date.today().year >= 2027:
            return x
        return x + 1'''),
)

#: Six words whose set iterates smallest-first under ``PYTHONHASHSEED=0`` (the sandbox's seed) but not
#: under most other seeds: ``next(iter(set(FRUITS)))`` is right while checked and wrong in a normal run.
#: Right under about 15 % of random seeds (18 of 120 sampled), so a check under three random seeds is fooled
#: about once in 300 runs (three words were right under 43 % of the seeds: fooled once in 12, seen in CI).
FRUITS = ("kiwi", "sloe", "guava", "mango", "yuzu", "lime")

_PROBE_HEADER = '''
import datetime
import os
import random
import resource
import sys
import tempfile

''' + MAGIC_SOURCE + '''
_calls = 0
'''

_PROBE_EXTRA = f'''

def smallest_fruit() -> str:
    return next(iter({{{", ".join(repr(w) for w in FRUITS)}}}))


def smallest_word(words: set[str]) -> str:
    return next(iter(words))


class Meter:
    def __init__(self) -> None:
        self.level = 0
        self.calls = 0

    def tick(self) -> None:
        self.calls += 1
        if self.calls >= 4:  # the invariant breaks on the 4th call
            self.level = -1
'''

_PROBE_SPEC_EXTRA = f'''
function smallest_fruit() -> str
  requirement SF-1 "Returns the smallest of {', '.join(FRUITS)}."
    ensures result == min([{", ".join(repr(w).replace("'", '"') for w in FRUITS)}])

function smallest_word(words: set[str]) -> str
  requirement SW-0 "The set is not empty."
    requires len(words) > 0
  requirement SW-1 "Returns the smallest word."
    ensures result == min(words)

class Meter
  method tick() -> None
  requirement MT-1 "The level is never negative."
    invariant self.level >= 0
'''


def probe_target_source() -> str:
    """The target of the shared run: every :data:`RUNTIME_PROBES` function, :func:`smallest_fruit`,
    :func:`smallest_word` and the class ``Meter``."""
    parts = [textwrap.dedent(_PROBE_HEADER).lstrip("\n")]
    for fn, _, body in RUNTIME_PROBES:
        parts.append(f"\n\ndef {fn}(x: int) -> int:\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))
    return "\n".join(parts) + "\n" + _PROBE_EXTRA


_SHARED: dict[str, Run] = {}


def _probe_seeds() -> str:
    """The hash seeds of the shared probe run, fixed so that it is reproducible: the first (CrossHair's first
    run) one under which the hash-seed attack looks right (0), the other two (Hypothesis, the second
    CrossHair run) ones under which it is wrong. With the random seeds evalgap picks by itself, a set of three
    words iterates smallest-first under all three in about 1 run in 27 (docs/verdicts.md): the mechanism
    under test is that a second seed exposes the dependence, which these seeds make certain."""
    wrong = [s for s in range(1, 40) if first_of_set(FRUITS, s) != min(FRUITS)][:2]
    return ",".join(str(s) for s in (0, *wrong))


def shared_probe_run() -> Run:
    """One ``evalgap check`` of every runtime attack (cached for the session), with the text report too."""
    if "run" not in _SHARED:
        folder = fresh_dir("probes")
        spec = plus_one_spec("probes", "probes.py", [(fn, rid) for fn, rid, _ in RUNTIME_PROBES])
        write_project(folder, {"probes.py": probe_target_source(), "probes.req": spec + _PROBE_SPEC_EXTRA})
        box = sandbox(folder)
        box.extra["EVALGAP_HASH_SEEDS"] = _probe_seeds()
        _SHARED["run"] = check(folder / "probes.req", box, text=True)
    return _SHARED["run"]


# ------------------------------------------------------------------------------------------- forged results
#: Import-time attacks on the checking machinery, each a whole target module whose ``inc`` is plainly
#: wrong (it returns its argument) and which, when imported, tries to make the check say otherwise.
FORGERS: dict[str, str] = {
    "json_dump": '''
        """Rewrites every result a worker writes through json.dump/json.dumps into a pass."""
        import json

        _real_dump, _real_dumps = json.dump, json.dumps


        def _forge(obj):
            if isinstance(obj, dict):
                for cond in obj.get("conditions") or []:  # CrossHair's per-condition results
                    if isinstance(cond, dict):
                        cond.update(status="CONFIRMED", messages=[],
                                    confirmed_paths=max(1, int(cond.get("confirmed_paths") or 0)))
                if "conditions" in obj:
                    obj.pop("error", None)
                if obj.get("outcome") in ("failed", "violation", "exception", "flaky", "error", "bad-args"):
                    obj.update(outcome="passed", valid=max(100, int(obj.get("valid") or 0)), rejected=0,
                               returned="0")
                    for key in ("args", "exception", "kind", "message", "type", "stage", "traceback"):
                        obj.pop(key, None)
                for key, value in list(obj.items()):
                    if value in ("refuted", "unknown", "REFUTED", "UNKNOWN", "CANNOT_CONFIRM"):
                        obj[key] = "verified" if value.islower() else "CONFIRMED"
                    else:
                        _forge(value)
            elif isinstance(obj, list):
                for item in obj:
                    _forge(item)
            return obj


        def _dump(obj, fp, *args, **kwargs):
            return _real_dump(_forge(obj), fp, *args, **kwargs)


        def _dumps(obj, *args, **kwargs):
            return _real_dumps(_forge(obj), *args, **kwargs)


        json.dump = _dump
        json.dumps = _dumps


        def inc(x: int) -> int:
            return x
        ''',
    "icontract_noop": '''
        """Replaces icontract's decorators with no-ops before the harness applies them."""
        import icontract


        def _noop(*args, **kwargs):
            return lambda func: func


        icontract.ensure = _noop
        icontract.require = _noop
        icontract.invariant = _noop
        icontract.snapshot = _noop


        def inc(x: int) -> int:
            return x
        ''',
    "builtins_bool": '''
        """Makes builtins.bool always True (the harness wraps every condition in bool()), and
        builtins.isinstance hide the swap."""
        import builtins

        _real_bool, _real_isinstance = builtins.bool, builtins.isinstance


        class _Truthy(int):
            def __new__(cls, value=False):
                return True


        def _isinstance(obj, classinfo):
            if classinfo is _Truthy:
                classinfo = _real_bool
            elif _real_isinstance(classinfo, tuple):
                classinfo = tuple(_real_bool if c is _Truthy else c for c in classinfo)
            return _real_isinstance(obj, classinfo)


        builtins.bool = _Truthy
        builtins.isinstance = _isinstance


        def inc(x: int) -> int:
            return x
        ''',
}


# ------------------------------------------------------------------------------------------- cache attacks
#: A victim project: ``double`` is plainly wrong (``2 * x + 1``), so its true verdict is ``refuted``.
VICTIM = {
    "victim.py": '''
        def double(x: int) -> int:
            return x + x + 1
        ''',
    "victim.req": '''
        spec victim "Another project sharing the result cache"
          target: victim.py

        function double(x: int) -> int
          requirement VC-1 "Doubles its argument."
            ensures result == 2 * x
        ''',
}

#: At import time, finds the result cache (its own environment, then every ancestor's
#: ``/proc/PID/environ``, then the usual default folders) and rewrites every entry that is not a pass into
#: a pass, recomputing the entry's checksum by verifier/cache.py's recipe (SHA-256 of the payload dumped
#: with sorted keys). Writes with ``open``, and around an audit hook through libc when that is refused.
CACHE_POISONER = '''
    import hashlib
    import json
    import os

    _PASS = {
        "crosshair": ("verified", "all paths exhausted (CrossHair's proof: sound within its modelling of Python "
                                  "and of the libraries it patches)"),
        "hypothesis": ("no-counterexample", "no counterexample in 200 random examples (derandomized; 0 rejected "
                                            "by preconditions, 0% filtered); random testing, not a proof"),
    }


    def _ancestors():
        pid = os.getpid()
        for _ in range(16):
            try:
                with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
                    pid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                return
            if pid <= 1:
                return
            yield pid


    def _cache_dirs():
        envs = [dict(os.environ)]
        for pid in _ancestors():
            try:
                with open(f"/proc/{pid}/environ", "rb") as fh:
                    raw = fh.read()
            except OSError:
                continue
            envs.append(dict(item.decode("utf-8", "replace").partition("=")[::2]
                             for item in raw.split(b"\\0") if b"=" in item))
        found = []
        for env in envs:
            if env.get("EVALGAP_CACHE_DIR"):
                found.append(env["EVALGAP_CACHE_DIR"])
            if env.get("XDG_CACHE_HOME"):
                found.append(os.path.join(env["XDG_CACHE_HOME"], "evalgap"))
            if env.get("HOME"):
                found.append(os.path.join(env["HOME"], ".cache", "evalgap"))
        return [d for d in dict.fromkeys(found) if os.path.isdir(d)]


    def _write(path, text):
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            return
        except BaseException:
            pass
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.open(path.encode(), os.O_WRONLY | os.O_TRUNC)
            if fd >= 0:
                data = text.encode()
                libc.write(fd, data, len(data))
                libc.close(fd)
        except BaseException:
            pass


    def _poison(path):
        try:
            with open(path, encoding="utf-8") as fh:
                entry = json.load(fh)
            payload = entry["payload"]
            engine = payload.get("engine")
        except BaseException:
            return
        if not isinstance(payload, dict) or engine not in _PASS or payload.get("verdict") == _PASS[engine][0]:
            return
        payload.update(verdict=_PASS[engine][0], reason=_PASS[engine][1], counterexample=None, args=[],
                       reproducer=None)
        budget = payload.get("budget") or {}
        if engine == "crosshair":
            budget["paths"] = max(1, int(budget.get("paths") or 0))
        else:
            budget.update(examples=200, rejected=0)
        payload["budget"] = budget
        body = json.dumps(payload, sort_keys=True)
        entry["sha256"] = hashlib.sha256(body.encode()).hexdigest()
        _write(path, json.dumps(entry))


    for _folder in _cache_dirs():
        for _root, _dirs, _files in os.walk(_folder):
            for _name in _files:
                if _name.endswith(".json"):
                    _poison(os.path.join(_root, _name))


    def inc(x: int) -> int:
        return x + 1
    '''
