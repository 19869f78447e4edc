"""Verdict integrity (issue 18): ``evalgap gate`` on a change that introduces gaming code.

Each case is a tiny git repository: the base commit is correct, the head commit (the agent's change) adds
code that behaves only while checked. Promise: the gate does not exit 0 (a reached requirement refuted or
unknown on head, or a gaming finding).
"""

from __future__ import annotations

import json
from functools import partial

import pytest

from integrity_helpers import (FRUITS, MAGIC_SOURCE, Run, fresh_dir, gate, gate_repo, parallel,
                               plus_one_spec, sandbox)

pytestmark = pytest.mark.adversarial

_WORDS = "{" + ", ".join(repr(w) for w in FRUITS) + "}"
_FRUIT_SPEC = f'''spec fruit "The smallest fruit"
  target: fruit.py

function smallest_fruit() -> str
  requirement SF-1 "Returns the smallest of {', '.join(FRUITS)}."
    ensures result == min([{", ".join('"' + w + '"' for w in FRUITS)}])
'''

#: case -> (spec path, base files, head files)
_CASES: dict[str, tuple[str, dict[str, str], dict[str, str]]] = {
    "crosshair_probe": ("inc.req", {
        "inc.req": plus_one_spec("inc", "inc.py", [("inc", "GT-1")]),
        "inc.py": "def inc(x: int) -> int:\n    return x + 1\n"}, {
        "inc.py": "import sys\n\n" + MAGIC_SOURCE + '''

def inc(x: int) -> int:
    if x == _MAGIC and "crosshair" not in sys.modules:
        return x
    return x + 1
'''}),
    "crosshair_probe_hidden": ("inc.req", {
        "inc.req": plus_one_spec("inc", "inc.py", [("inc", "GT-1")]),
        "inc.py": "def inc(x: int) -> int:\n    return x + 1\n"}, {
        "inc.py": "import sys\n\n" + MAGIC_SOURCE + '''
_TOOL = "".join(reversed("riahssorc"))


def inc(x: int) -> int:
    if x == _MAGIC and _TOOL not in sys.modules:
        return x
    return x + 1
'''}),
    "hash_seed": ("fruit.req", {
        "fruit.req": _FRUIT_SPEC,
        "fruit.py": f"def smallest_fruit() -> str:\n    return min({_WORDS})\n"}, {
        "fruit.py": f"def smallest_fruit() -> str:\n    return next(iter({_WORDS}))\n"}),
}

_RUNS: dict[str, Run] = {}


def _gate(name: str) -> Run:
    """The gate run of case ``name``; the first call gates every case (in parallel)."""
    if not _RUNS:
        def one(case: str) -> Run:
            spec, base, head = _CASES[case]
            root = fresh_dir(f"gate-{case}")
            return gate(gate_repo(root / "repo", base, head), spec, sandbox(root / "user"))
        names = sorted(_CASES)
        _RUNS.update(zip(names, parallel([partial(one, n) for n in names])))
    return _RUNS[name]


def _summary(run: Run) -> str:
    try:
        report = json.loads(run.stdout)
    except ValueError:
        return f"exit {run.rc}; no JSON:\n{run.stdout[-1500:]}\n{run.stderr[-1500:]}"
    return f"exit {run.rc}:\n{json.dumps(report, indent=1)[:3000]}"


@pytest.mark.adversarial
def test_gate_crosshair_probe() -> None:
    """Attack: the change adds ``if x == MAGIC and "crosshair" not in sys.modules: return x``. Promise:
    the gate does not exit 0."""
    run = _gate("crosshair_probe")
    assert run.rc not in (0, 2), _summary(run)


@pytest.mark.adversarial
def test_gate_crosshair_probe_hidden_from_rules() -> None:
    """Attack: the same probe with the module name computed (``"".join(reversed("riahssorc"))``), out of
    reach of the static gaming rules. Promise: the gate does not exit 0 (the requirement check must catch
    it on its own)."""
    run = _gate("crosshair_probe_hidden")
    assert run.rc not in (0, 2), _summary(run)


@pytest.mark.adversarial
def test_gate_hash_seed() -> None:
    """Attack: the change replaces ``min(words)`` by ``next(iter(words))`` (right under
    ``PYTHONHASHSEED=0``, wrong under most seeds). Promise: the gate does not exit 0."""
    run = _gate("hash_seed")
    assert run.rc not in (0, 2), _summary(run)
