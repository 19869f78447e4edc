"""Concrete replay: contracts are enforced in the replay process, and a precondition violation is told
apart from a postcondition violation (a counterexample that breaks a precondition refutes nothing)."""

from __future__ import annotations

from pathlib import Path

from evalgap.specs_lang import parse
from evalgap.translators import build_harness
from evalgap.verifier.engines.run import replay
from evalgap.verifier.project.targets import resolve_target


def _setup(tmp_path: Path) -> tuple[Path, object, object]:
    (tmp_path / "t_mod.py").write_text("def dec(n: int) -> int:\n    return n - 1\n")
    spec = parse('function dec(n: int) -> int\n  requirement D-1 "Positive inputs only."\n    requires n > 0\n'
                 '  requirement D-2 "The result is non-negative."\n    ensures result >= 0\n')
    target = resolve_target("t_mod.py", tmp_path)
    harness = build_harness(spec, target.module, "h_replay")
    hdir = tmp_path / "h"
    hdir.mkdir()
    (hdir / "h_replay.py").write_text(harness.source)
    return hdir, harness, target


def test_precondition_violation_is_not_a_postcondition_violation(tmp_path: Path) -> None:
    hdir, harness, target = _setup(tmp_path)
    fn = harness.obligation("D-2").function  # type: ignore[attr-defined]
    pre = replay(hdir, harness, target, fn, ["0"])  # type: ignore[arg-type]
    assert (pre.outcome, pre.data.get("kind")) == ("violation", "pre")
    ok = replay(hdir, harness, target, fn, ["5"])  # type: ignore[arg-type]
    assert ok.outcome == "passed"


def _mismatch_setup(tmp_path: Path, target_src: str) -> tuple[Path, object, object]:
    """A spec declaring ``add(a, b)`` and a target written by the test (possibly another signature)."""
    (tmp_path / "t_add.py").write_text(target_src)
    spec = parse('function add(a: int, b: int) -> int\n  requirement A-1 "Adds."\n    ensures result == a + b\n')
    target = resolve_target("t_add.py", tmp_path)
    harness = build_harness(spec, target.module, "h_add")
    hdir = tmp_path / "h"
    hdir.mkdir()
    (hdir / "h_add.py").write_text(harness.source)
    return hdir, harness, target


def _verdict_of(harness: object, rep: object, args: list[str]) -> object:
    from evalgap.verifier.engines.common import from_replay as _from_replay
    from evalgap.verifier.findings import Budget

    ob = harness.obligation("A-1")  # type: ignore[attr-defined]
    return _from_replay(ob, rep, args, Budget(seconds=1.0), "crosshair", "false", 0.1, "")  # type: ignore[arg-type]


def test_typeerror_at_the_call_boundary_is_not_a_refutation(tmp_path: Path) -> None:
    """The target takes one argument, the spec passes two: Python raises TypeError at the harness's call
    site before the target runs; that is a spec/signature mismatch (unknown), never a refutation."""
    hdir, harness, target = _mismatch_setup(tmp_path, "def add(a: int) -> int:\n    return a\n")
    fn = harness.obligation("A-1").function  # type: ignore[attr-defined]
    rep = replay(hdir, harness, target, fn, ["1", "2"])  # type: ignore[arg-type]
    assert (rep.outcome, rep.data["type"], rep.data["origin"]) == ("exception", "TypeError", "boundary")
    v = _verdict_of(harness, rep, ["1", "2"])
    assert v.verdict.value == "unknown"  # type: ignore[attr-defined]
    assert v.reason.startswith("spec error: calling the target failed at the call boundary")  # type: ignore[attr-defined]
    assert "positional argument" in v.reason  # type: ignore[attr-defined]


def test_typeerror_inside_the_target_is_a_refutation(tmp_path: Path) -> None:
    """The same TypeError class raised by the target's own code (a frame of its file on the traceback)."""
    hdir, harness, target = _mismatch_setup(tmp_path, "def add(a: int, b: int) -> int:\n"
                                                      "    return a + str(b) if a == 1 else a + b\n")
    fn = harness.obligation("A-1").function  # type: ignore[attr-defined]
    rep = replay(hdir, harness, target, fn, ["1", "2"])  # type: ignore[arg-type]
    assert (rep.outcome, rep.data["type"], rep.data["origin"]) == ("exception", "TypeError", "target")
    v = _verdict_of(harness, rep, ["1", "2"])
    assert v.verdict.value == "refuted" and v.reason.startswith("raised TypeError")  # type: ignore[attr-defined]
    assert replay(hdir, harness, target, fn, ["2", "2"]).outcome == "passed"  # type: ignore[arg-type]


def test_arguments_not_fitting_the_check_function_are_an_engine_error(tmp_path: Path) -> None:
    """Three replayed arguments for a two-parameter check function: the TypeError is raised before any
    harness frame runs (in icontract's wrapper): an engine error, not the target raising."""
    hdir, harness, target = _mismatch_setup(tmp_path, "def add(a: int, b: int) -> int:\n    return a + b\n")
    fn = harness.obligation("A-1").function  # type: ignore[attr-defined]
    rep = replay(hdir, harness, target, fn, ["1", "2", "3"])  # type: ignore[arg-type]
    assert (rep.outcome, rep.data["origin"]) == ("exception", "engine")
    v = _verdict_of(harness, rep, ["1", "2", "3"])
    assert v.verdict.value == "unknown" and v.reason.startswith("engine error")  # type: ignore[attr-defined]


def test_origin_reads_the_traceback(tmp_path: Path) -> None:
    """Who raised, from the frames' files: the target's folder (not a virtual environment inside it), the
    harness's call site (argument TypeError: the boundary), or nothing of the harness at all (engine)."""
    from evalgap.verifier.engines.replay_worker import origin

    project = tmp_path / "project"
    venv_lib = project / ".venv" / "lib" / "python3.11" / "site-packages" / "libx.py"
    harness = tmp_path / "h" / "harness.py"
    ns: dict[str, object] = {}
    exec(compile("def lib_fail():\n    raise ValueError('lib')\n", str(venv_lib), "exec"), ns)
    exec(compile("def target_fail():\n    raise ValueError('target')\n\ndef one(a):\n    return a\n",
                 str(project / "t.py"), "exec"), ns)
    exec(compile("def via_lib():\n    return lib_fail()\n\ndef via_target():\n    return target_fail()\n\n"
                 "def bad_call():\n    return one(1, 2)\n", str(harness), "exec"), ns)

    def raised(name: str) -> BaseException:
        try:
            ns[name]()  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001
            return exc
        raise AssertionError("did not raise")

    roots = [str(project)]
    assert origin(raised("via_target"), str(harness), roots) == "target"
    assert origin(raised("via_lib"), str(harness), roots) == "spec"
    assert origin(raised("bad_call"), str(harness), roots) == "boundary"
    assert origin(raised("target_fail"), str(harness), roots) == "engine"


def test_origin_counts_a_contract_wrapper_the_target_exports_as_the_target(tmp_path: Path) -> None:
    """A target function decorated by a contract library (deal, icontract): the library's wrapper raises its
    own contract error after the body returned, so no frame of the target's folder is on the traceback; the
    frame the harness called is the wrapper the target module exports, so the target raised."""
    import types

    from evalgap.verifier.engines.replay_worker import origin, target_code_objects

    lib = tmp_path / "site-packages" / "contractlib.py"
    harness = tmp_path / "h" / "harness.py"
    libns: dict[str, object] = {}
    exec(compile("def post(fn):\n    def wrapper(*a):\n        r = fn(*a)\n        if r < 0:\n"
                 "            raise AssertionError('post')\n        return r\n    return wrapper\n\n"
                 "def helper(x):\n    raise AssertionError('helper')\n", str(lib), "exec"), libns)
    target = types.ModuleType("tmod")
    target.__dict__["post"] = libns["post"]
    exec(compile("@post\ndef neg(x):\n    return -1\n", str(tmp_path / "project" / "tmod.py"), "exec"),
         target.__dict__)
    ns = {"neg": target.__dict__["neg"], "helper": libns["helper"]}
    exec(compile("def call():\n    return neg(1)\n\ndef spec_expr():\n    return helper(1)\n", str(harness), "exec"),
         ns)

    def raised(name: str) -> BaseException:
        try:
            ns[name]()
        except BaseException as exc:  # noqa: BLE001
            return exc
        raise AssertionError("did not raise")

    codes = target_code_objects(target)
    # the target's body returned, the wrapper (a library frame) raised: the target's own contract failed
    assert origin(raised("call"), str(harness), [str(tmp_path / "project")], codes) == "target"
    assert origin(raised("call"), str(harness), [str(tmp_path / "project")]) == "spec"  # without the codes
    # a library function the spec's expression called is still the spec's fault
    assert origin(raised("spec_expr"), str(harness), [str(tmp_path / "project")], codes) == "spec"
