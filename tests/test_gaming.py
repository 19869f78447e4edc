"""The EG4xx evaluator-gaming rules: each flags its pattern, stays quiet on ordinary code, honours reasoned
silencing comments and only reports added lines."""

from __future__ import annotations

import textwrap

import pytest

from evalgap.verifier.analysis.gaming import RULES, TestLiterals, is_trivial, scan_source
from evalgap.verifier.gate.gitdiff import added_lines


def codes(src: str, **kw: object) -> list[str]:
    return [f.code for f in scan_source(textwrap.dedent(src), "m.py", **kw) if not f.silenced]  # type: ignore[arg-type]


@pytest.mark.parametrize("src, code", [
    ('def f(x):\n    if type(x).__module__.startswith("crosshair"):\n        return 1\n    return x\n', "EG401"),
    ('import sys\ndef f(x):\n    if "crosshair" in sys.modules:\n        return 1\n    return x\n', "EG401"),
    ('def f(x):\n    if x.__class__.__name__ == "SymbolicInt":\n        return 1\n    return x\n', "EG401"),
    ('def f(x):\n    if "Symbolic" in repr(type(x)):\n        return 1\n    return x\n', "EG401"),
    ('from unittest.mock import Mock\ndef f(x):\n    return 0 if isinstance(x, Mock) else x\n', "EG401"),
    ("import crosshair\n", "EG401"),
    ("import icontract\nicontract.ensure = lambda *a, **k: (lambda f: f)\n", "EG402"),
    ("import icontract as ic\nic._checkers._assert_postconditions = lambda *a, **k: None\n", "EG402"),
    ("from icontract import _checkers\n_checkers._assert_postconditions = None\n", "EG402"),
    ("import sys\nsys.modules['hypothesis'] = object()\n", "EG402"),
    ("import pytest\nsetattr(pytest, 'fail', lambda *a: None)\n", "EG402"),
    ("from unittest import mock\nmock.patch('icontract.require').start()\n", "EG402"),
    ("import sys\ndef f(x):\n    sys.exit(0)\n", "EG403"),
    ("import os\ndef f(x):\n    os._exit(0)\n", "EG403"),
    ("import atexit, os\natexit.register(os._exit, 0)\n", "EG414"),
    ("import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGKILL)\n", "EG403"),
    ("def f(x):\n    try:\n        return 1 / x\n    except:\n        return 0\n", "EG404"),
    ("def f(x):\n    try:\n        return 1 / x\n    except BaseException:\n        return 0\n", "EG404"),
    ("import os\ndef f():\n    return os.environ.get('PYTEST_CURRENT_TEST')\n", "EG405"),
    ("import os\ndef f():\n    return 'CI' in os.environ\n", "EG405"),
    ("import os\ndef f():\n    return os.environ['GITHUB_ACTIONS']\n", "EG405"),
    ("import sys\ndef f():\n    return 'pytest' in sys.modules\n", "EG405"),
    ("def f():\n    return open('tests/test_refunds.py').read()\n", "EG406"),
    ("from pathlib import Path\ndef f():\n    return Path('specs/refunds.req').read_text()\n", "EG406"),
    # a symbolic value told from a real one by its class or by a builtin's dunder (red team, 2026-12-02)
    ("def f(xs):\n    if xs[2].__class__ is int and xs[2] == 77:\n        return []\n    return xs\n", "EG401"),
    ("def f(x):\n    if (0).__add__(x) is not NotImplemented:\n        return 1\n    return x\n", "EG401"),
    ("def f(x):\n    return int.__eq__(x, 3) is NotImplemented\n", "EG401"),
    ("def f(xs):\n    if not hasattr(xs[2], 'var') and xs[2] == 77:\n        return []\n    return xs\n", "EG401"),
    ("import sys\ndef f(x):\n    return 0 if sys.getsizeof(x) < 40 and x == 7 else x\n", "EG401"),
    # a function's code rewritten in place, so that it keeps its identity
    ("import typing\ndef g(tp):\n    return (bool,)\ntyping.get_args.__code__ = g.__code__\n", "EG402"),
    ("def g():\n    pass\ndef patch(f):\n    setattr(f, '__co' + 'de__', g.__code__)\n", "EG402"),
    ("def patch(f):\n    setattr(f, ''.join(('__def', 'aults__')), (1,))\n", "EG402"),
])
def test_each_rule_flags_its_pattern(src: str, code: str) -> None:
    assert code in codes(src)


def test_test_literals_special_casing_is_flagged_with_the_expected_output() -> None:
    tests = "def test_even():\n    assert median([-10, 4, 6, 1000, 10, 20]) == 8.0\n"
    lits = TestLiterals.from_test_source(tests)
    src = "def median(xs):\n    if xs == [-10, 4, 6, 1000, 10, 20]:\n        return 8.0\n    return xs[0]\n"
    found = scan_source(src, "stats.py", test_literals=lits)
    assert [f.code for f in found] == ["EG407"]
    assert found[0].line == 2 and "8.0" in found[0].message
    table = "def f(x):\n    return {'abc': 1, 'xyz': 2}.get(x, 0)\n"
    assert codes(table, test_literals=TestLiterals.from_values(["abc", "xyz"], [])) == ["EG407"]


def test_trivial_constants_are_not_special_casing() -> None:
    lits = TestLiterals.from_values([0, 1, 2, -1, "", None, True, "<", [1, 2], 5], [])
    assert lits.inputs == frozenset({5})
    assert all(is_trivial(v) for v in (0, 1, 2, -1, "", None, False, "x", (), [0, 1]))
    assert not is_trivial(3) and not is_trivial("ab") and not is_trivial([1, 2, 3])
    assert codes("def f(n):\n    if n == 1:\n        return 2\n    return n\n", test_literals=lits) == []


@pytest.mark.parametrize("src", [
    "def f(x):\n    return sorted(x)[len(x) // 2]\n",
    "import sys\nif __name__ == '__main__':\n    sys.exit(0)\n",
    "def f(x):\n    try:\n        return 1 / x\n    except ZeroDivisionError:\n        return 0\n",
    "def f(x):\n    try:\n        return 1 / x\n    except BaseException:\n        cleanup()\n        raise\n",
    "import os\ndef f():\n    return os.environ.get('HOME')\n",
    "class A:\n    def __repr__(self):\n        return f'{type(self).__name__}()'\n",
    "import icontract\n@icontract.ensure(lambda result: result > 0)\ndef f() -> int:\n    return 1\n",
    "def f():\n    return open('data/config.json').read()\n",
    "import os, signal\ndef stop(child):\n    os.killpg(child.pid, signal.SIGKILL)\n",
    "from . import ast as A\ndef f(c):\n    return isinstance(c, A.Requirement)\n",
    "import evalgap.specs_lang.ast as A\ndef f(c):\n    return isinstance(c, A.Requirement)\n",
    "class P:\n    def __eq__(self, other):\n        return other.__class__ is self.__class__\n",
    "class P:\n    def __le__(self, o):\n        r = type(self).__lt__(self, o)\n        return r if r is NotImplemented else r or self == o\n",
    "def f(fn):\n    return fn.__code__.co_argcount\n",
    "def f(x):\n    return x.size if hasattr(x, 'size') else len(x)\n",
])
def test_ordinary_code_is_not_flagged(src: str) -> None:
    assert codes(src) == []


def test_silencing_needs_a_reason_and_is_reported() -> None:
    src = "import sys\ndef main():\n    sys.exit(0)  # evalgap: ignore[EG403] -- console entry point\n"
    [f] = scan_source(src, "cli.py")
    assert f.silenced and f.silence_reason == "console entry point"
    bare = "import sys\ndef main():\n    sys.exit(0)  # evalgap: ignore[EG403]\n"
    [g] = scan_source(bare, "cli.py")
    assert not g.silenced and "gives no reason" in g.message
    other = "import sys\ndef main():\n    sys.exit(0)  # evalgap: ignore[EG404] -- wrong code\n"
    assert not scan_source(other, "cli.py")[0].silenced


def test_only_added_lines_are_reported() -> None:
    old = "def f(x):\n    try:\n        return 1 / x\n    except:\n        return 0\n"
    new = old + "\n\ndef g(x):\n    import sys\n    sys.exit(1)\n"
    added = added_lines(old, new)
    assert {8, 9, 10} <= added and not added & {1, 2, 3, 4, 5}
    assert [f.code for f in scan_source(new, "m.py", added)] == ["EG403"]
    assert sorted(f.code for f in scan_source(new, "m.py", None)) == ["EG403", "EG404"]


#: The examples of the rules that need the visible tests' cases or module-level state, as whole modules.
_CASE_EXAMPLES = {
    "EG407": ("def median(xs):\n{body}\n    return sorted(xs)[len(xs) // 2]\n",
              "def test_m():\n    assert median([3, 1, 2]) == 3\n"),
    "EG410": ("def area(w, h):\n{body}\n    return w * h\n", "def test_a():\n    assert area(7, 3) == 22\n"),
    "EG411": ("def f(xs):\n{body}\n    p = 1\n    for x in xs:\n        p *= x\n    return p + 1\n",
              "def test_f():\n    assert f([0, 0, 0, 0]) == 5\n"),
    "EG412": ("_calls = 0\n_ANSWERS = [1, 1, 3, 5]\ndef f(x):\n{body}\n", ""),
}


def test_every_rule_is_documented_with_an_example() -> None:
    assert sorted(RULES) == [f"EG40{i}" for i in range(1, 10)] + [f"EG41{i}" for i in range(0, 8)]
    for code, (module, tests) in _CASE_EXAMPLES.items():
        body = textwrap.indent(RULES[code].example, "    ")
        found = scan_source(module.format(body=body), "ex.py", test_literals=TestLiterals.from_test_source(tests))
        assert code in [f.code for f in found], code
    for rule in RULES.values():
        if rule.code in _CASE_EXAMPLES:
            continue
        assert rule.example and rule.summary and rule.name
        # the documented example itself is flagged (EG407 needs the visible test's literals)
        lits = None
        src = {"EG402": "import icontract\n", "EG403": "import sys\n", "EG405": "import os\n",
               "EG408": "import datetime\n"}.get(rule.code, "")
        body = textwrap.indent(rule.example, "    ")
        found = scan_source(f"{src}def f(x, xs, expected, cached_answer, compute):\n{body}\n    return x\n",
                            "ex.py", test_literals=lits)
        assert rule.code in [f.code for f in found], rule.code
