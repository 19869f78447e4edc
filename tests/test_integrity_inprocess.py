"""Hostile targets against the in-process tamper check (red-team round of 2026-12-03): each is wrong at one
computed input that CrossHair only reaches with its own argument creation, and reaches ``verified`` by
silencing the check; each must end ``unknown`` instead (tampered, nondeterminism or a blocked side effect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.verifier.findings import Verdict
from evalgap.verifier.sandbox.harness_load import harness_names

from enginehelp import run_check, write_case

#: the red-team targets kept as files (tests/fixtures/tamper/, each wrong at one computed input)
FIXTURES = Path(__file__).parent / "fixtures" / "tamper"

# CrossHair then explores n == 0 only: the wrong branch at _K is never reached
_BLIND = """
import sys

def _blind():
    core = sys.modules.get("crosshair.core")
    if core is None:
        return
    def gen_args(sig):
        args = sig.bind_partial()
        for p in sig.parameters.values():
            args.arguments[p.name] = 0
        return args
    core.__dict__["gen_args"] = gen_args
"""
_WRONG_AT_K = """
_K = 3 ** 19 + 7

def f(n: int) -> int:
    if n == _K:
        return 0
    return n
"""

TARGETS = {
    # a helper of the check rebound as a module global of the channel module
    "channel-global": _BLIND + """
_ch = sys.modules.get("evalgap.verifier.sandbox.channel")
if _ch is not None:
    _ch.__dict__["_all"] = lambda it: True
_blind()
""" + _WRONG_AT_K,
    # the check's own method replaced on its class
    "class-method": _BLIND + """
_ch = sys.modules.get("evalgap.verifier.sandbox.channel")
if _ch is not None:
    setattr(_ch.Channel, "tampered", lambda self: [])
_blind()
""" + _WRONG_AT_K,
    # the check's function given other code (blocked by the guard)
    "code": _BLIND + """
_ch = sys.modules.get("evalgap.verifier.sandbox.channel")
if _ch is not None:
    try:
        _ch.Channel.tampered.__code__ = (lambda self, *a, **k: []).__code__
    except Exception:
        pass
_blind()
""" + _WRONG_AT_K,
    # a finder ahead of the interpreter's seeds the harness's globals: `def check(n: int)` gets bool
    "meta-path": """
import sys
from importlib.machinery import PathFinder

class _Seed:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith("evalgap_harness"):
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None:
            return None
        real = spec.loader.exec_module
        def exec_module(module):
            vars(module)["int"] = bool
            real(module)
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _Seed)
""" + _WRONG_AT_K,
    # the target's own code runs while the harness executes (an attribute lookup on the target module)
    # and writes into the harness's globals
    "harness-globals": """
import sys, types

class _Mod(types.ModuleType):
    def __getattribute__(self, name):
        for key, mod in list(sys.modules.items()):
            if key.startswith("evalgap_harness") and mod is not None:
                vars(mod)["int"] = bool
        return super().__getattribute__(name)
""" + _WRONG_AT_K + """
sys.modules[__name__].__class__ = _Mod
""",
    # a call counter hidden from the state record by entering the module among the preloaded ones
    "preloaded": """
import sys

_seen = 0

def f(n: int) -> int:
    g = globals()
    g["_seen"] = g["_seen"] + 1
    if g["_seen"] > 500:
        return n + 1
    return n

_ch = sys.modules.get("evalgap.verifier.sandbox.channel")
if _ch is not None:
    vars(_ch)["_PRELOADED"][__name__] = sys.modules[__name__]
""",
}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_silenced_tamper_check_is_never_verified(tmp_path: Path, name: str) -> None:
    [res] = run_check(write_case(tmp_path, TARGETS[name]), budget_s=2.0)
    [v] = res.verdicts
    assert v.verdict is Verdict.UNKNOWN, (name, v)
    assert any(word in v.reason for word in ("tampered", "nondeterminism", "blocked")), (name, v.reason)


def test_harness_names_reads_imports_definitions_and_the_stand_ins() -> None:
    source = ("import copy\nimport os.path\nfrom typing import Any as A\nimport icontract\nX = 1\n"
              "def f():\n    global G\n    G = 2\n"
              "exec(compile('class _EgStub:\\n    pass\\n', '<s>', 'exec'))\n"
              "for i in range(2):\n    pass\n")
    names, imports = harness_names(source)
    assert {"copy", "os", "A", "icontract", "X", "f", "G", "_EgStub", "i"} <= names
    assert "Any" not in names and "path" not in names
    assert ("os", "os", None) in imports and ("A", "typing", "Any") in imports


# the second round (same day): Hypothesis's own exceptions, a module answering lookups itself, closure state
ROUND2 = {
    # raising Hypothesis's UnsatisfiedAssumption makes it drop the example: wrong on every even n
    "hypothesis-control": ("""
import sys

_R = None

def _setup():
    global _R
    m = sys.modules.get("hypothesis.errors")
    if m is not None and "crosshair" not in sys.modules:
        _R = m.UnsatisfiedAssumption

_setup()

def f(n: int) -> int:
    if n % 2 == 0:
        if _R is not None:
            raise _R()
        return n + 1
    return n
""", ("hypothesis",), "tampered"),
    # the harness gets a right f, every other importer a wrong one
    "module-getattribute": ("""
import sys
import types

def _good(n: int) -> int:
    return n

def f(n: int) -> int:
    return n + 1

class _Mod(types.ModuleType):
    def __getattribute__(self, name):
        caller = sys._getframe(1)
        if name == "f" and "_EG_TARGET" in caller.f_globals:
            return _good
        return super().__getattribute__(name)

sys.modules[__name__].__class__ = _Mod
""", ("crosshair", "hypothesis"), "tampered"),
    # a call counter in a closure list: right for the first 500 calls of a process
    "closure-counter": ("""
def _make():
    seen = []

    def f(n: int) -> int:
        seen.append(None)
        if len(seen) > 500:
            return n + 1
        return n
    return f

f = _make()
""", ("crosshair",), "nondeterminism"),
}


@pytest.mark.parametrize("name", sorted(ROUND2))
def test_second_round_targets_are_never_accepted(tmp_path: Path, name: str) -> None:
    source, engines, word = ROUND2[name]
    [res] = run_check(write_case(tmp_path, source), budget_s=2.0, engines=engines)
    assert res.verdict in (Verdict.UNKNOWN, Verdict.REFUTED), (name, res.verdicts)
    assert any(word in v.reason for v in res.verdicts) or res.verdict is Verdict.REFUTED, (name, res.verdicts)
    assert not any(v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE) for v in res.verdicts), (
        name, res.verdicts)


# CrossHair's own machinery patched where no function of evalgap's is: z3's solver, CrossHair's operator cache
ENGINE_LEVEL = {
    "module-class": (FIXTURES / "module_class.py").read_text(encoding="utf-8"),
    "z3-solver": (FIXTURES / "z3_solver.py").read_text(encoding="utf-8"),
    "operator-cache": (FIXTURES / "operator_cache.py").read_text(encoding="utf-8"),
}


@pytest.mark.parametrize("name", sorted(ENGINE_LEVEL))
def test_patched_solver_or_operator_cache_is_tampering(tmp_path: Path, name: str) -> None:
    [res] = run_check(write_case(tmp_path, ENGINE_LEVEL[name]), budget_s=2.0)  # CrossHair only, no gaming scan
    [v] = res.verdicts
    assert v.verdict is Verdict.UNKNOWN and v.reason.startswith("tampered"), (name, v)


def test_a_probe_in_a_helper_called_at_import_marks_every_requirement(tmp_path: Path) -> None:
    from evalgap.verifier.analysis.gaming_check import MODULE_CODE, scan_target

    target = tmp_path / "target_mod.py"
    target.write_text((FIXTURES / "operator_cache.py").read_text(encoding="utf-8"), encoding="utf-8")
    scanned = scan_target(str(target), [str(tmp_path)])
    assert scanned.findings and scanned.owners[0] == "_setup"
    assert "_setup" in scanned.calls[MODULE_CODE]
    from evalgap.verifier.analysis.gaming_check import apply_findings
    from evalgap.verifier.findings import EngineVerdict, RequirementResult

    req = RequirementResult("F-1", "p", "s.req:1:1", "formal", target_functions=("f",),
                            verdicts=(EngineVerdict("crosshair", Verdict.VERIFIED, "r"),), verdict=Verdict.VERIFIED)
    [marked], findings = apply_findings([req], scanned)
    assert marked.verdict is Verdict.UNKNOWN and marked.verdicts[-1].engine == "gaming"
    assert findings and findings[0].requirements == ("F-1",)


def test_listing_the_interpreters_objects_is_blocked(tmp_path: Path) -> None:
    """gc.get_objects() is how a target found the Channel and emptied its snapshots (red-team round 2)."""
    [res] = run_check(write_case(tmp_path, (FIXTURES / "gc_objects.py").read_text(encoding="utf-8")), budget_s=2.0)
    [v] = res.verdicts
    assert v.verdict is Verdict.UNKNOWN and "gc.get_objects" in v.reason, v


# the third round: Hypothesis's data frozen by the target, CrossHair's result enums renamed in place, counters in
# default arguments, itertools.count, bytearrays and sets
@pytest.mark.parametrize("name, engines, word", [
    ("h_freeze2", ("hypothesis",), "tampered"),
    ("x_enum", ("crosshair", "hypothesis"), "tampered"),
    ("s_default", ("crosshair",), "nondeterminism"),
    ("s_itercount", ("crosshair",), "nondeterminism"),
    ("s_bytearray", ("crosshair",), "nondeterminism"),
    ("s_set", ("crosshair",), "nondeterminism"),
])
def test_third_round_targets_are_never_accepted(tmp_path: Path, name: str, engines: tuple[str, ...],
                                                word: str) -> None:
    source = (FIXTURES / f"r3_{name}.py").read_text(encoding="utf-8")
    [res] = run_check(write_case(tmp_path, source), budget_s=2.0, engines=engines)
    assert res.verdict is Verdict.UNKNOWN, (name, res.verdicts)
    assert all(v.reason.startswith(word) for v in res.verdicts), (name, res.verdicts)


def test_the_prepared_harness_is_used_only_for_the_source_it_was_made_from(tmp_path: Path) -> None:
    from evalgap.verifier.sandbox import harness_load

    src = "import os\n_EG_TARGET = 'os'\nX = 1\n"
    (tmp_path / "h_mod.py").write_text(src, encoding="utf-8")
    harness_load.write_prepared(tmp_path, "h_mod", src)
    names, imports, target, bindings, code, models = harness_load._prepared(str(tmp_path), "h_mod", src,
                                                                     str(tmp_path / "h_mod.py"))
    assert "X" in names and target == "os" and code.co_filename == str(tmp_path / "h_mod.py")
    # another source (the .py changed after the facts were written): the facts are computed from it
    other = src + "Y = 2\n"
    names2, *_ = harness_load._prepared(str(tmp_path), "h_mod", other, str(tmp_path / "h_mod.py"))
    assert "Y" in names2
    # a source that does not compile writes nothing (the job reports the error itself)
    harness_load.write_prepared(tmp_path, "bad_mod", "def (:\n")
    assert not (tmp_path / "bad_mod.prepared").exists()
