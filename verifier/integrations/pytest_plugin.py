"""The pytest plugin: ``pytest --evalgap`` (or ``[tool.evalgap] specs = [...]``) collects ``.req`` spec files,
one test item per requirement, with stable node IDs (``specs/kv.req::KV-1``).

Outcomes: ``refuted`` fails with the replayed counterexample and a reproducer; ``unknown`` fails, xfails or
skips with the reason (``--evalgap-unknown``, or the ini option ``evalgap_unknown``; default ``fail``);
``no-counterexample`` and ``verified`` pass, with the evidence (the budget: not a proof) in the item's
``evalgap`` report section; ``not-formalized`` skips with its category; a precondition requirement skips (it
narrows the domain of its function's other requirements and is not checked on its own). A spec finding of
level ``error`` naming the requirement (a conflict, an unrealizable contract) fails it too.

One :func:`evalgap.check` per spec file, run lazily when the first selected item of that file runs and kept
for the session (so ``-k``, ``-x`` and ``--lf`` work as usual; the result cache makes re-runs cheap). The
check runs the target only in evalgap's sandboxed workers: nothing here imports CrossHair into the pytest
process, where it would disable icontract's checks in the user's other tests (design.md section 8).

Registered as the ``evalgap`` ``pytest11`` entry point; without ``--evalgap`` or a ``specs`` key it only adds
its options (no evalgap import beyond :mod:`evalgap.verifier.options`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

__all__ = ["SpecFile", "RequirementItem", "RequirementFailed", "configured_specs"]

_SPECS = pytest.StashKey[tuple[Path, ...]]()
_UNKNOWN_MODES = ("fail", "xfail", "skip")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--evalgap`` and its options, and the ini option ``evalgap_unknown``."""
    from evalgap.verifier.options import PROFILES

    group = parser.getgroup("evalgap", "evalgap requirement checks")
    group.addoption("--evalgap", action="store_true", default=False,
                    help="collect .req spec files: one test per requirement (see docs/pytest.md)")
    group.addoption("--evalgap-unknown", choices=_UNKNOWN_MODES, default=None,
                    help="what an `unknown` verdict does: fail (default), xfail or skip, with the reason")
    group.addoption("--evalgap-budget", type=float, default=None, metavar="SECONDS",
                    help="CrossHair CPU seconds per requirement (default: [tool.evalgap], else 10)")
    group.addoption("--evalgap-profile", choices=sorted(PROFILES), default=None,
                    help="budget profile (also EVALGAP_PROFILE)")
    group.addoption("--evalgap-engines", default=None, metavar="LIST",
                    help="engines per requirement, comma-separated (crosshair,hypothesis)")
    parser.addini("evalgap_unknown", "what an `unknown` verdict does: fail, xfail or skip", default="fail")


def configured_specs(config: pytest.Config) -> tuple[Path, ...]:
    """The spec files and folders named by ``[tool.evalgap] specs`` of the project's pyproject.toml (globs
    expanded, relative to that file's folder); empty when there is none.

    Raises:
        pytest.UsageError: ``specs`` is not a list of strings, or the file cannot be read.
    """
    inipath = config.inipath
    pyproject = inipath if inipath is not None and inipath.name == "pyproject.toml" else \
        config.rootpath / "pyproject.toml"
    if not pyproject.is_file():
        return ()
    from evalgap.verifier.errors import UsageError
    from evalgap.verifier.options import project_specs

    try:
        return project_specs(pyproject)  # the one reader of [tool.evalgap] (verifier/options.py)
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_configure(config: pytest.Config) -> None:
    """Read ``[tool.evalgap] specs``; when pytest was given no paths, collect those specs as well."""
    specs = configured_specs(config)
    config.stash[_SPECS] = specs
    mode = config.getoption("evalgap_unknown") or config.getini("evalgap_unknown")
    if mode not in _UNKNOWN_MODES:
        raise pytest.UsageError(f"evalgap_unknown = {mode!r}: use one of {', '.join(_UNKNOWN_MODES)}")
    if specs and config.args_source is not pytest.Config.ArgsSource.ARGS:
        given = [Path(a.split("::")[0]).resolve() for a in config.args]
        config.args += [str(s) for s in specs if not any(s == g or g in s.parents for g in given)]


def _selected(config: pytest.Config, path: Path) -> bool:
    if config.getoption("evalgap"):
        return True
    here = path.resolve()
    return any(here == s or s in here.parents for s in config.stash.get(_SPECS, ()))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> SpecFile | None:
    """A ``.req`` file becomes a :class:`SpecFile` under ``--evalgap`` or when ``specs`` names it."""
    if file_path.suffix == ".req" and _selected(parent.config, file_path):
        node: SpecFile = SpecFile.from_parent(parent, path=file_path)
        return node
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A requirement's skip points at the requirement in the ``.req`` file, not at this plugin."""
    outcome: Any = yield
    rep = outcome.get_result()
    if isinstance(item, RequirementItem) and rep.skipped and isinstance(rep.longrepr, tuple):
        rep.longrepr = (str(item.path), item.line, rep.longrepr[2])


class RequirementFailed(Exception):
    """A requirement's item failed: ``text`` is what pytest shows (no traceback)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class SpecFile(pytest.File):
    """One ``.req`` file: its requirements are the items; its gap report is built once, on first use."""

    _outcome: Any = None

    def collect(self) -> Iterator[RequirementItem]:
        """Parse the file (the spec language only: nothing is run) and yield one item per requirement.

        Raises:
            SpecError: the file does not parse (shown as the diagnostics with their carets).
        """
        from evalgap.specs_lang import check_structure, parse

        text = self.path.read_text(encoding="utf-8")
        spec = parse(text, str(self.path))
        check_structure(spec, text)
        for req, owner in spec.all_requirements():
            if req.span.file != spec.file:
                continue
            item: RequirementItem = RequirementItem.from_parent(self, name=req.id, prose=req.prose,
                                                                line=req.span.line)
            yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        """A spec error shows its diagnostics (file, line, column, caret), not a traceback."""
        from evalgap.specs_lang.errors import SpecError

        if isinstance(excinfo.value, SpecError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)

    def gap_report(self) -> Any:
        """The file's :class:`~evalgap.verifier.report.gap.GapReport`, checked on the first call.

        Raises:
            RequirementFailed: the check could not run (a spec or target error, a bad setting); every item
                of the file then fails with that message.
        """
        if self._outcome is None:
            self._outcome = self._check()
        if isinstance(self._outcome, str):
            raise RequirementFailed(self._outcome)
        return self._outcome

    def _check(self) -> Any:
        import evalgap
        from evalgap.specs_lang.errors import SpecError
        from evalgap.verifier.errors import VerifierError

        opt = self.config.getoption
        had_crosshair = "crosshair" in sys.modules
        try:
            settings = evalgap.settings(self.path.parent, budget=opt("evalgap_budget"),
                                        profile=opt("evalgap_profile"), engines=opt("evalgap_engines"))
            report = evalgap.check(self.path, settings=settings)
        except SpecError as exc:
            return exc.render()
        except VerifierError as exc:
            return f"{self.path}: error: {exc}"
        if not had_crosshair and "crosshair" in sys.modules:  # pragma: no cover - a regression guard
            self.warn(pytest.PytestWarning("evalgap imported CrossHair into the pytest process: icontract "
                                           "checks may be disabled in the other tests of this session"))
        return report


def _evidence(result: Any) -> str:
    lines = [f"{result.id}: {result.verdict.value if result.verdict else result.role}", f"  {result.prose}"]
    for v in result.verdicts:
        lines.append(f"  [{v.engine}] {v.verdict.value}: {v.reason}")
        budget = v.budget.describe()
        if budget:
            lines.append(f"      budget: {budget}")
        if v.counterexample:
            lines.append(f"      counterexample: {v.counterexample}")
        if v.args:
            lines.append("      arguments: " + ", ".join(f"{k}={a}" for k, a in v.args))
        if v.assumptions:
            lines.append(f"      assuming: {', '.join(v.assumptions)}")
    if result.disagreement:
        lines.append(f"  {result.disagreement}")
    return "\n".join(lines)


class RequirementItem(pytest.Item):
    """One requirement of a spec file, named by its ID (node ID ``path/to/spec.req::ID``)."""

    def __init__(self, *, prose: str, line: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prose = prose
        self.line = line

    def runtest(self) -> None:
        """Look the requirement up in its file's gap report and turn the verdict into the test's outcome.

        Raises:
            RequirementFailed: refuted, unknown (with ``--evalgap-unknown=fail``), a spec finding of level
                error, or the check could not run.
        """
        parent = self.parent
        assert isinstance(parent, SpecFile)
        report = parent.gap_report()
        result = next((r for r in report.requirements if r.id == self.name), None)
        if result is None:
            raise RequirementFailed(f"{self.name}: not in the gap report of {report.spec_file}")
        evidence = _evidence(result)
        verdict = result.verdict.value if result.verdict is not None else result.role
        self.user_properties.append(("evalgap_verdict", verdict))
        errors = [f for f in report.findings_for(self.name) if f.level == "error"]
        if verdict != "refuted":  # a refutation's failure text holds the evidence already
            self.add_report_section("call", "evalgap", evidence)
        if verdict == "refuted":
            raise RequirementFailed(self._refuted(result, evidence))
        if errors:
            raise RequirementFailed("\n".join(f"{f.code} {f.kind}: {f.message}" for f in errors))
        if verdict == "unknown":
            reason = "; ".join(f"{v.engine}: {v.reason}" for v in result.verdicts) or "no verdict"
            mode = self.config.getoption("evalgap_unknown") or self.config.getini("evalgap_unknown")
            if mode == "xfail":
                pytest.xfail(f"unknown: {reason}")
            if mode == "skip":
                pytest.skip(f"unknown: {reason}")
            raise RequirementFailed(f"{self.name} unknown: {reason}\n\n{evidence}")
        if verdict == "not-formalized":
            pytest.skip(f"not-formalized: {result.category}: {result.informal_reason}")
        if verdict == "precondition":
            pytest.skip(f"precondition of {result.function or 'its function'}: narrows the domain of its "
                        "other requirements, not checked on its own")

    @staticmethod
    def _refuted(result: Any, evidence: str) -> str:
        out = [f"{result.id} refuted: {result.prose}", evidence]
        for v in result.verdicts:
            if v.verdict.value == "refuted" and v.reproducer:
                out += [f"reproducer ({v.engine}):", *("    " + line for line in v.reproducer.splitlines())]
                break
        return "\n".join(out)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        """Our failures print their text; anything else (a bug) the usual way."""
        if isinstance(excinfo.value, RequirementFailed):
            return excinfo.value.text
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the requirement is (0-based line for pytest) and its headline."""
        return self.path, self.line - 1, f"{self.name}: {self.prose}"
