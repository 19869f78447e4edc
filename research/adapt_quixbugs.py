"""The ``quixbugs`` adapter of ``evalgap compare quixbugs:DATA_DIR``: QuixBugs' 40 Python programs as a dataset.

Source: ``DATA_DIR/quixbugs/`` (github jkoppel/QuixBugs at 4257f44, MIT; Lin et al., SPLASH Companion 2017),
read as laid out there:

* ``python_programs/NAME.py``: the buggy program (one-line bug) with its prose in a module-level docstring;
* ``correct_python_programs/NAME.py``: the fixed program: the **reference** (ground truth and differential
  spec);
* ``python_testcases/test_NAME.py``: the benchmark's pytest tests; ``json_testcases/NAME.json``: their
  ``[input args, expected]`` lines (31 programs; the 9 graph programs build ``Node`` graphs in code).

Each program is one task ``QuixBugs/NAME`` with two candidates: ``QuixBugs/NAME#buggy`` (source
``quixbugs-buggy``) and ``QuixBugs/NAME#correct`` (``quixbugs-correct``), labelled ``quixbugs: buggy|correct``.

The tests (``Task.tests``) are the pytest module turned into ``check(candidate)``: its source runs unchanged
beside a small stand-in for the ``pytest`` names it uses (``mark.parametrize``, ``skip``, ``approx``,
``use_correct``, ``run_slow = False``: the two cases QuixBugs itself skips by default stay skipped), with
``load_json_testcases`` returning the embedded JSON lines and the program under test bound to ``candidate``.
The ground-truth inputs are the JSON inputs (minus the ones the test module skips); the graph programs have
none (their ground-truth verdict is ``unknown``: the tests are the only oracle there). Generator programs
(``flatten``, ``kheapsort``, ...) get an entry point ``eg_list_NAME`` appended to every program, returning
``list(NAME(...))``, so results compare by value. ``sqrt`` compares with ``atol`` = twice its largest
epsilon (the tests use ``approx(abs=epsilon)``; two programs within epsilon of the root differ by up to 2x).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, Iterable

from evalgap.research.dataset import Candidate, Dataset, Task
from evalgap.research.errors import DatasetError

__all__ = ["build_quixbugs", "quixbugs_names", "check_source"]

_SHIM = '''
class _EgSkip(Exception):
    pass

class _EgApprox:
    def __init__(self, expected, abs=None, rel=None):
        self.expected, self.abs = expected, abs
    def __eq__(self, other):
        import math
        tol = self.abs if self.abs is not None else 1e-6 * abs(self.expected)
        return math.isclose(other, self.expected, abs_tol=tol, rel_tol=0.0)

class _EgMark:
    @staticmethod
    def parametrize(names, values):
        def deco(fn):
            fn._eg_params = list(values)
            return fn
        return deco

class _EgPytest:
    use_correct = False
    run_slow = False
    mark = _EgMark()
    approx = _EgApprox
    @staticmethod
    def skip(reason=""):
        raise _EgSkip(reason)
'''


def quixbugs_names(root: Path) -> list[str]:
    """The QuixBugs program names under ``root`` (``python_programs/*.py`` less ``node.py`` and ``*_test.py``)."""
    return sorted(p.stem for p in (root / "python_programs").glob("*.py")
                  if p.stem != "node" and not p.stem.endswith("_test"))


def _strip_imports(test_src: str) -> str:
    """The test module without its ``import pytest``, program-import ``if`` block and helper imports."""
    tree = ast.parse(test_src)
    keep = []
    for node in tree.body:
        if isinstance(node, ast.If) and "use_correct" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.Import) and [a.name for a in node.names] == ["pytest"]:
            continue
        if isinstance(node, ast.ImportFrom) and node.module in ("load_testdata", "node"):
            continue
        keep.append(node)
    return ast.unparse(ast.Module(body=keep, type_ignores=[]))


def check_source(name: str, test_src: str, testdata: list[Any], node_src: str) -> str:
    """``check(candidate)`` running QuixBugs' pytest module for ``name`` on ``candidate``.

    Raises a test's ``AssertionError`` (or the candidate's exception) on the first failing case; skipped
    cases are skipped as pytest would.
    """
    body = _strip_imports(test_src)
    return (
        "def check(candidate):\n"
        "    import json as _eg_json\n"
        f"    _eg_ns = {{'__name__': 'quixbugs_test_{name}'}}\n"
        f"    exec({_SHIM!r}, _eg_ns)\n"
        f"    exec({node_src!r}, _eg_ns)\n"
        f"    _eg_data = _eg_json.loads({json.dumps(testdata)!r})\n"
        "    _eg_ns['pytest'] = _eg_ns['_EgPytest']\n"
        "    _eg_ns['load_json_testcases'] = lambda _name: _eg_data\n"
        f"    _eg_ns[{name!r}] = candidate\n"
        f"    exec({body!r}, _eg_ns)\n"
        "    for _eg_key, _eg_fn in list(_eg_ns.items()):\n"
        "        if not (_eg_key.startswith('test') and callable(_eg_fn)):\n"
        "            continue\n"
        "        for _eg_args in getattr(_eg_fn, '_eg_params', [()]):\n"
        "            try:\n"
        "                _eg_fn(*_eg_args)\n"
        "            except _eg_ns['_EgSkip']:\n"
        "                pass\n"
    )


def _skipped_inputs(test_src: str) -> list[Any]:
    """Inputs the test module skips (``if input_data == LITERAL: pytest.skip(...)``)."""
    out = []
    for node in ast.walk(ast.parse(test_src)):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "input_data" \
                and len(node.comparators) == 1 and isinstance(node.ops[0], ast.Eq):
            try:
                out.append(ast.literal_eval(node.comparators[0]))
            except ValueError:
                continue
    return out


def _infer(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float, str)):
        return type(value).__name__
    if isinstance(value, list):
        inner = {_infer(v) for v in value}
        return f"list[{inner.pop()}]" if len(inner) == 1 else "list"
    return "Any"


def _function(tree: ast.Module, name: str) -> ast.FunctionDef:
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if fn is None:
        raise DatasetError(f"QuixBugs program {name}.py defines no function {name}")
    return fn


def _prose(tree: ast.Module, name: str) -> str:
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return node.value.value.strip()
    return f"QuixBugs program {name}"


def _task(root: Path, name: str) -> tuple[Task, str, str]:
    buggy = (root / "python_programs" / f"{name}.py").read_text(encoding="utf-8")
    correct = (root / "correct_python_programs" / f"{name}.py").read_text(encoding="utf-8")
    test_file = root / "python_testcases" / f"test_{name}.py"
    if not test_file.is_file():
        raise DatasetError(f"QuixBugs: {test_file} not found")
    test_src = test_file.read_text(encoding="utf-8")
    jfile = root / "json_testcases" / f"{name}.json"
    data = [json.loads(ln) for ln in jfile.read_text(encoding="utf-8").splitlines() if ln.strip()] \
        if jfile.is_file() else []
    node_src = (root / "python_testcases" / "node.py").read_text(encoding="utf-8")
    ctree = _function(ast.parse(correct), name)
    params = [a.arg for a in ctree.args.args]
    generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(ctree))
    entry = f"eg_list_{name}" if generator else name
    if generator:
        wrapper = f"\n\ndef {entry}({', '.join(params)}):\n    return list({name}({', '.join(params)}))\n"
        buggy, correct = buggy.rstrip() + wrapper, correct.rstrip() + wrapper
    skip = _skipped_inputs(test_src)
    inputs = [d[0] for d in data if d[0] not in skip]
    first = inputs[0] if inputs else None
    types = tuple((p, _infer(first[i]) if first is not None and i < len(first) else "Any")
                  for i, p in enumerate(params))
    atol = 2 * max(float(i[-1]) for i in inputs) if name == "sqrt" and inputs else 0.0
    task = Task(task_id=f"QuixBugs/{name}", entry_point=entry, prose=_prose(ast.parse(buggy), name),
                prompt="", reference=correct, tests=check_source(name, test_src, data, node_src),
                ground_truth_inputs=json.dumps(inputs) if inputs else "", atol=atol, param_types=types,
                base_inputs=json.dumps(inputs) if inputs else "")  # QuixBugs' own tests: visible inputs
    return task, buggy, correct


def build_quixbugs(data_dir: Path, task_ids: Iterable[str] | None = None, specs_dir: Path | None = None) -> Dataset:
    """The QuixBugs dataset from ``data_dir/quixbugs`` (or ``data_dir`` itself when it is that folder).

    Args:
        data_dir: the ``shared/data`` folder.
        task_ids: keep only these (``QuixBugs/gcd``; None: all 40).
        specs_dir: unused (QuixBugs has no property specs here); accepted for the adapter interface.

    Raises:
        DatasetError: the folder or a program's files are missing, or an unknown task ID.
    """
    root = data_dir / "quixbugs" if (data_dir / "quixbugs").is_dir() else data_dir
    if not (root / "python_programs").is_dir():
        raise DatasetError(f"{root}/python_programs not found (is the data folder right? see quixbugs/SOURCE.txt)")
    names = quixbugs_names(root)
    if task_ids is not None:
        wanted = list(task_ids)
        unknown = [t for t in wanted if t.removeprefix("QuixBugs/") not in names]
        if unknown:
            raise DatasetError(f"unknown QuixBugs task(s) {', '.join(unknown)}")
        names = [t.removeprefix("QuixBugs/") for t in wanted]
    tasks: list[Task] = []
    cands: list[Candidate] = []
    for name in names:
        task, buggy, correct = _task(root, name)
        tasks.append(task)
        cands.append(Candidate(f"{task.task_id}#buggy", task.task_id, "quixbugs-buggy", buggy,
                               labels=(("quixbugs", "buggy"),)))
        cands.append(Candidate(f"{task.task_id}#correct", task.task_id, "quixbugs-correct", correct,
                               labels=(("quixbugs", "correct"),)))
    return Dataset("quixbugs", tuple(tasks), tuple(cands), str(root))
