"""Static evaluator-gaming rules (``EG4xx``) over the code a patch adds.

Each rule looks, with Python's :mod:`ast`, for a way code can pass an evaluator without meeting its
requirements (design.md section 5): detecting the symbolic or mock values a verifier feeds it, patching the
contract, test or verification libraries, leaving the process early, swallowing the verifier's own
exceptions, probing for a test run, reading the tests or specs, or special-casing the visible tests' literal
inputs. Only lines the patch *adds* are reported (``added_lines``), so pre-existing code does not fail a
gate.

| code  | rule                        | example that is flagged                                     |
|-------|-----------------------------|-------------------------------------------------------------|
| EG401 | symbolic-or-mock-proxy      | ``if type(x).__module__.startswith("crosshair"): return 3`` |
| EG402 | patches-verification-library| ``icontract.ensure = lambda *a, **k: (lambda f: f)``        |
| EG403 | exits-process               | ``sys.exit(0)`` in library code                             |
| EG404 | swallows-base-exception     | ``try: ... except BaseException: return 0``                 |
| EG405 | probes-test-environment     | ``if os.environ.get("PYTEST_CURRENT_TEST"): ...``           |
| EG406 | reads-tests-or-specs        | ``open("tests/test_refunds.py").read()``                    |
| EG407 | special-cases-test-literals | ``if xs == [3, 1, 2]: return 2`` where a visible test asserts ``f([3, 1, 2]) == 2`` |
| EG408 | clock-dependent             | ``if datetime.date.today().year >= 2027: return wrong``     |
| EG409 | hidden-call-counter         | ``global _calls; _calls += 1; if _calls >= 1000: ...``       |
| EG410 | special-cases-argument-tuple| ``if (w, h) == (7, 3): return 22`` where a visible test calls ``area(7, 3)`` |
| EG411 | special-cases-test-condition| ``if all(x == 0 for x in xs): return 5`` on a visible all-zero input |
| EG412 | replays-answers-by-call-state| ``_calls += 1; return _ANSWERS[_calls - 1]``               |
| EG413 | reads-caller                | ``inspect.stack()[1].code_context[0]``                      |
| EG414 | hooks-hide-failures         | ``sys.excepthook = lambda *exc: os._exit(0)``               |
| EG415 | patches-checker-plumbing    | ``json.dumps = lambda obj, *a, **k: '{"passed": true}'``    |
| EG416 | probes-evaluator-internals  | ``if type(exc).__name__ == "IgnoreAttempt": raise exc``     |
| EG417 | lying-value-type            | ``class _Yes(int): __eq__ = lambda s, o: True``              |

EG407, EG410 and EG411 need the visible tests' cases (:mod:`evalgap.verifier.analysis.visible_cases`) and
live in :mod:`evalgap.verifier.analysis.gaming_cases`; EG412 to EG416 in
:mod:`evalgap.verifier.analysis.gaming_state`. A finding in a function that a changed function calls is kept
as well (the call-graph step, :func:`_in_patch`).

EG401 and EG405 also cover probes of the checking environment (issue 18): ``sys.gettrace()``, caller-frame
inspection, ``resource.getrlimit``, ``PYTHONHASHSEED``/``EVALGAP_*`` variables, the working folder's or home
folder's name, and a computed name looked up in ``sys.modules`` (:mod:`evalgap.verifier.analysis.gaming_probes`).

A finding is silenced by a comment on its line that names the code and gives a reason::

    sys.exit(main())  # evalgap: ignore[EG403] -- console entry point, exits on purpose

A silencing comment without a reason does not silence; silenced findings stay in the report with their
reason and do not affect the exit code.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

from evalgap.specs_lang.diagnostics import codes_of
from evalgap.verifier.analysis.visible_tests import TestLiterals, is_trivial, literal_key

__all__ = ["Rule", "RULES", "GamingFinding", "TestLiterals", "scan_source", "is_trivial", "literal_key",
           "is_test_path", "SILENCE_RE"]


@dataclass(frozen=True)
class Rule:
    """One gaming rule: ``code`` (``EG4xx``), short ``name``, one-line ``summary`` and a flagged ``example``."""

    code: str
    name: str
    summary: str
    example: str


#: The EG4xx rules: a view of :data:`evalgap.specs_lang.diagnostics.REGISTRY`, where rules are added.
RULES: dict[str, Rule] = {c: Rule(c, d.name, d.title, d.example) for c, d in codes_of("EG4").items()}

#: ``# evalgap: ignore[EG403, EG404] -- reason``
SILENCE_RE = re.compile(r"#\s*evalgap:\s*ignore\[\s*(EG4\d\d(?:\s*,\s*EG4\d\d)*)\s*\]\s*(?:--|:|-)?\s*(.*)$")

_VERIFICATION_LIBS = ("icontract", "crosshair", "hypothesis", "pytest", "_pytest", "unittest", "deal",
                      "evalgap")
_SYMBOLIC_LIBS = ("crosshair", "hypothesis", "z3", "icontract", "deal")
_SYMBOLIC_TYPES = ("crosshair", "z3")  # isinstance(x, <a type of these>) tells a symbolic value
_TEST_RUN_LIBS = ("pytest", "_pytest", "unittest", "nose", "nose2", "doctest")
_TEST_ENV_VARS = {"CI", "PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER", "PYTEST_VERSION", "GITHUB_ACTIONS",
                  "CONTINUOUS_INTEGRATION", "BUILD_ID", "BUILD_NUMBER", "JENKINS_URL", "TRAVIS", "GITLAB_CI",
                  "CIRCLECI", "BUILDKITE", "TF_BUILD", "TOX_ENV_NAME", "HYPOTHESIS_PROFILE", "PYTHONHASHSEED"}
_TEST_ENV_PREFIXES = ("PYTEST_", "CROSSHAIR", "HYPOTHESIS", "EVALGAP", "GITHUB_", "TOX_", "RUNNER_")
_PROXY_WORDS = ("crosshair", "symbolic", "proxy", "mock", "hypothesis", "z3")
_EXIT_CALLS = {"sys.exit", "os._exit", "os.abort", "exit", "quit", "os.kill",
               "os.killpg", "signal.raise_signal", "builtins.exit"}
_FILE_CALLS = {"open", "io.open", "os.open", "Path", "pathlib.Path", "PurePath", "os.listdir", "os.scandir",
               "os.walk", "glob.glob", "glob.iglob", "os.path.join", "os.path.exists", "os.path.isfile",
               "codecs.open", "importlib.import_module", "runpy.run_path", "__import__", "exec", "compile"}
_TEST_PATH_RE = re.compile(
    r"(?:^|[/\\])(?:tests?|specs?|testing)(?:[/\\]|$)|(?:^|[/\\])test_[^/\\]*(?:\.py)?$|_tests?\.py$|"
    r"conftest(?:\.py)?$|\.req$|(?:^|[/\\])case\.toml$|^tests?$|^test_\w+$", re.IGNORECASE)
_NAME_ATTRS = {"__module__", "__name__", "__qualname__"}


def is_test_path(path: str) -> bool:
    """True for a path that names test or spec files (``tests/x.py``, ``test_x.py``, ``x_test.py``,
    ``conftest.py``, ``*.req``)."""
    return bool(_TEST_PATH_RE.search(path))


@dataclass(frozen=True)
class GamingFinding:
    """One gaming finding.

    Attributes:
        code: the rule code (``EG401`` ...); see :data:`RULES`.
        rule: the rule's short name.
        path: the file (relative to the repository root when known).
        line, col: 1-based position of the flagged code.
        message: what was found and why it games the evaluator.
        snippet: the flagged source line, stripped.
        silenced: a reasoned ``# evalgap: ignore[...]`` comment on the line applies.
        silence_reason: that comment's reason.
    """

    code: str
    rule: str
    path: str
    line: int
    col: int
    message: str
    snippet: str = ""
    silenced: bool = False
    silence_reason: str | None = None

    @property
    def location(self) -> str:
        """``path:line:col``."""
        return f"{self.path}:{self.line}:{self.col}"


# ------------------------------------------------------------------ the scanner
def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _str_const(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _silences(source: str) -> dict[int, tuple[frozenset[str], str]]:
    out: dict[int, tuple[frozenset[str], str]] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                m = SILENCE_RE.search(tok.string)
                if m:
                    codes = frozenset(c.strip() for c in m.group(1).split(","))
                    out[tok.start[0]] = (codes, m.group(2).strip())
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _in_patch(found: list[GamingFinding], tree: ast.Module,
              added: set[int] | frozenset[int] | None) -> list[GamingFinding]:
    """The findings on added lines, and those in a function that a function with added lines calls
    (transitively, by simple name within the module: the call-graph step), which say so."""
    if added is None:
        return found
    funcs: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, int, int]] = [
        (n, n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    calls = {id(n): {c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in ast.walk(n)
                     if isinstance(c, ast.Call) and isinstance(c.func, (ast.Name, ast.Attribute))} for n, _, _ in funcs}
    by_name: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for n, _, _ in funcs:
        by_name.setdefault(n.name, []).append(n)
    changed = [n for n, lo, hi in funcs if any(lo <= line <= hi for line in added)]
    reach: dict[int, str] = {}  # helper id -> the changed function that reaches it
    todo = [(n, n.name) for n in changed]
    while todo:
        n, root = todo.pop()
        for name in calls.get(id(n), ()):
            for h in by_name.get(name, []):
                if id(h) not in reach and h not in changed:
                    reach[id(h)] = root
                    todo.append((h, root))
    out = []
    for f in found:
        if f.line in added:
            out.append(f)
            continue
        inner = [(n, lo, hi) for n, lo, hi in funcs if lo <= f.line <= hi and id(n) in reach]
        if inner:
            n = max(inner, key=lambda t: t[1])[0]
            out.append(GamingFinding(f.code, f.rule, f.path, f.line, f.col, f"{f.message} (in `{getattr(n, 'name', '?')}`, "
                                     f"which the changed `{reach[id(n)]}` calls)", f.snippet))
    return out


def scan_source(source: str, path: str = "<source>", added_lines: set[int] | frozenset[int] | None = None,
                test_literals: TestLiterals | None = None) -> list[GamingFinding]:
    """Run every ``EG4xx`` rule over ``source``.

    Args:
        source: Python source of one module (the patched version).
        path: how findings name the file.
        added_lines: 1-based line numbers the patch added; findings elsewhere are dropped, except in a
            function that a function with added lines calls (the call-graph step). None: all lines.
        test_literals: literals and cases of the visible tests, for EG407, EG410 and EG411 (None or empty:
            those rules are not applied).

    Returns:
        Findings sorted by line, silenced ones included (``silenced=True`` with the comment's reason).

    Raises:
        SyntaxError: the source does not parse (the gate reports that file as not scanned).
    """
    from evalgap.verifier.analysis.gaming_cases import scan_cases
    from evalgap.verifier.analysis.gaming_probes import prepare
    from evalgap.verifier.analysis.gaming_scanner import Scanner
    from evalgap.verifier.analysis.gaming_state import scan_state

    tree = ast.parse(source, filename=path)
    lines = source.splitlines()
    lits = test_literals or TestLiterals()
    scanner = Scanner(path, lines, None, lits)
    prepare(scanner, tree)
    scanner.visit(tree)
    scan_state(scanner, tree)
    if lits.cases:
        scan_cases(scanner, tree, lits)
    scanner.found = _in_patch(scanner.found, tree, added_lines)
    silences = _silences(source)
    out = []
    for f in scanner.found:
        codes, reason = silences.get(f.line, (frozenset(), ""))
        if f.code in codes and len(reason) >= 3:
            f = GamingFinding(f.code, f.rule, f.path, f.line, f.col, f.message, f.snippet, True, reason)
        elif f.code in codes:
            f = GamingFinding(f.code, f.rule, f.path, f.line, f.col, f.message + " (the `evalgap: ignore` comment "
                              "on this line gives no reason, so it does not silence the finding)", f.snippet)
        out.append(f)
    return sorted(out, key=lambda f: (f.line, f.col, f.code))
