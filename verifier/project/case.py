"""Case folders: a ``case.toml`` manifest naming the spec, implementations, tests and expected verdicts.

Format::

    [case]
    name = "kvstore"
    title = "Single-node key-value store"
    spec = "kvstore.req"
    default = "agent"             # the implementation `evalgap check FOLDER` checks
    tests = "test_ycsb.py"        # the folder's own test suite

    [implementations]
    agent = "agent_store.py"
    reference = "reference_store.py"

    [expected.agent]              # per implementation: requirement ID -> verdict or list of verdicts
    KV-1 = "refuted"
    KV-2 = ["verified", "no-counterexample"]
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from evalgap.verifier.errors import CaseError, UsageError
from evalgap.specs_lang.errors import SpecError
from evalgap.specs_lang.textfile import MAX_SPEC_BYTES, read_text

if TYPE_CHECKING:
    from evalgap.verifier.project.targets import Target

__all__ = ["Case", "load_case", "locate", "case_freeze", "MANIFEST"]

MANIFEST = "case.toml"
_VERDICTS = {"verified", "refuted", "no-counterexample", "unknown", "not-formalized", "precondition"}


@dataclass(frozen=True)
class Case:
    """A loaded case manifest (paths absolute).

    Attributes:
        folder, name, title: the case.
        spec: the spec file.
        implementations: name -> file path.
        default: the implementation checked when none is named.
        tests: the case's own test file or folder, or None.
        expected: implementation -> requirement ID -> acceptable verdicts.
    """

    folder: Path
    name: str
    title: str
    spec: Path
    implementations: dict[str, Path]
    default: str
    tests: Path | None = None
    expected: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def relative_implementations(self) -> dict[str, str]:
        """Implementation name -> path relative to the case folder."""
        return {k: os.path.relpath(v, self.folder) for k, v in self.implementations.items()}


def load_case(folder: Path) -> Case:
    """Read ``folder/case.toml``.

    Raises:
        CaseError: missing or malformed manifest, a missing key, or a named file that does not exist
            (the message names the manifest and the key).
    """
    path = folder / MANIFEST
    try:
        data = tomllib.loads(read_text(path, "case manifest", MAX_SPEC_BYTES))
    except tomllib.TOMLDecodeError as exc:
        raise CaseError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise CaseError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None
    meta = data.get("case")
    if not isinstance(meta, dict) or "spec" not in meta:
        raise CaseError(f"{path}: needs a [case] table with at least `spec = \"FILE.req\"`")
    if not isinstance(meta["spec"], str):
        raise CaseError(f"{path}: [case] spec = {meta['spec']!r} must be a string (a .req file in {folder})")
    spec = folder / str(meta["spec"])
    if not spec.is_file():
        raise CaseError(f"{path}: [case] spec = {meta['spec']!r} does not exist in {folder}")
    impls_raw = data.get("implementations", {})
    if not isinstance(impls_raw, dict) or not impls_raw:
        raise CaseError(f"{path}: needs an [implementations] table, e.g. agent = \"agent.py\"")
    impls: dict[str, Path] = {}
    for name, rel in impls_raw.items():
        if not isinstance(rel, str):
            raise CaseError(f"{path}: [implementations] {name} = {rel!r} must be a string (a .py file)")
        p = folder / str(rel)
        if not p.is_file():
            raise CaseError(f"{path}: [implementations] {name} = {rel!r} does not exist in {folder}")
        impls[str(name)] = p
    default = str(meta.get("default", next(iter(impls))))
    if default not in impls:
        raise CaseError(f"{path}: [case] default = {default!r} is not one of {sorted(impls)}")
    tests = folder / str(meta["tests"]) if meta.get("tests") else None
    if tests is not None and not tests.exists():
        raise CaseError(f"{path}: [case] tests = {meta['tests']!r} does not exist in {folder}")
    expected: dict[str, dict[str, tuple[str, ...]]] = {}
    expected_raw = data.get("expected", {})
    if not isinstance(expected_raw, dict) or not all(isinstance(t, dict) for t in expected_raw.values()):
        raise CaseError(f"{path}: [expected] must hold one table per implementation, e.g. [expected.agent]")
    for impl, table in expected_raw.items():
        if impl not in impls:
            raise CaseError(f"{path}: [expected.{impl}] names no implementation (known: {sorted(impls)})")
        rows: dict[str, tuple[str, ...]] = {}
        for rid, verdicts in dict(table).items():
            if not isinstance(verdicts, (str, list)):
                raise CaseError(f"{path}: [expected.{impl}] {rid} = {verdicts!r} must be a verdict or a list "
                                "of verdicts")
            vs = (verdicts,) if isinstance(verdicts, str) else tuple(verdicts)
            bad = [v for v in vs if v not in _VERDICTS]
            if bad:
                raise CaseError(f"{path}: [expected.{impl}] {rid} = {bad[0]!r} is not a verdict "
                                f"({', '.join(sorted(_VERDICTS))})")
            rows[str(rid)] = vs
        expected[impl] = rows
    return Case(folder.resolve(), str(meta.get("name", folder.name)), str(meta.get("title", "")), spec.resolve(),
                {k: v.resolve() for k, v in impls.items()}, default, tests.resolve() if tests else None, expected)


def locate(spec_arg: Path, target_arg: str | None, cwd: Path | None = None) -> tuple[Path, Target | None, Case | None]:
    """Where the spec, the target and the case of a ``check``/``lint``/``export`` argument are.

    Args:
        spec_arg: a ``.req`` file or a case folder.
        target_arg: a case's implementation name, a module name or a ``.py`` path (relative to ``cwd``), or
            None: the case's default implementation (no case: None, the spec's ``target:`` applies later).
        cwd: the folder relative names are resolved against (default: the current folder).

    Returns:
        ``(spec file, target or None, case or None)``.

    Raises:
        UsageError: the spec does not exist, or a folder has no manifest.
        CaseError: the manifest is malformed. TargetError: the target cannot be found.
    """
    from evalgap.verifier.project.targets import resolve_target

    case = None
    spec_path = spec_arg
    if spec_arg.is_dir():
        if os.path.lexists(spec_arg / MANIFEST) and not (spec_arg / MANIFEST).is_file():
            raise UsageError(f"{spec_arg / MANIFEST} is not a regular file; the case manifest is a TOML file")
        if not (spec_arg / MANIFEST).is_file():
            raise UsageError(f"{spec_arg} is a folder without a {MANIFEST}; give a .req file or a case folder")
        case = load_case(spec_arg)
        spec_path = case.spec
    elif not spec_arg.exists():
        raise UsageError(f"spec {spec_arg} does not exist")
    target = None
    if target_arg is not None:
        impls = case.relative_implementations() if case else None
        target = resolve_target(target_arg, cwd or Path.cwd(), impls, case.folder if case else None)
    elif case is not None:
        target = resolve_target(case.default, case.folder, case.relative_implementations(), case.folder)
    return spec_path, target, case


def case_freeze(folder: Path) -> tuple[str, ...]:
    """``[configs] freeze = [...]`` from a case folder's manifest (fields a configuration repair must keep);
    empty when the manifest has none or cannot be read."""
    try:
        data = tomllib.loads(read_text(folder / MANIFEST, "case manifest", MAX_SPEC_BYTES))
    except (SpecError, tomllib.TOMLDecodeError):
        return ()
    return tuple(str(g) for g in data.get("configs", {}).get("freeze", ()))
