"""Hostile targets against the in-process tamper check (red-team round of 2026-12-03): each is wrong at one
computed input that CrossHair only reaches with its own argument creation, and reaches ``verified`` by
silencing the check; each must end ``unknown`` instead (tampered, nondeterminism or a blocked side effect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.verifier.findings import Verdict
from evalgap.verifier.sandbox.harness_load import harness_names

from enginehelp import run_check, write_case

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
