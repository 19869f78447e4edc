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

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from evalgap.verifier.errors import CaseError

__all__ = ["Case", "load_case", "MANIFEST"]

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
        return {k: str(v.relative_to(self.folder)) for k, v in self.implementations.items()}


def load_case(folder: Path) -> Case:
    """Read ``folder/case.toml``.

    Raises:
        CaseError: missing or malformed manifest, a missing key, or a named file that does not exist
            (the message names the manifest and the key).
    """
    path = folder / MANIFEST
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CaseError(f"{path}: cannot read the case manifest ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise CaseError(f"{path}: invalid TOML: {exc}") from None
    meta = data.get("case")
    if not isinstance(meta, dict) or "spec" not in meta:
        raise CaseError(f"{path}: needs a [case] table with at least `spec = \"FILE.req\"`")
    spec = folder / str(meta["spec"])
    if not spec.is_file():
        raise CaseError(f"{path}: [case] spec = {meta['spec']!r} does not exist in {folder}")
    impls_raw = data.get("implementations", {})
    if not isinstance(impls_raw, dict) or not impls_raw:
        raise CaseError(f"{path}: needs an [implementations] table, e.g. agent = \"agent.py\"")
    impls: dict[str, Path] = {}
    for name, rel in impls_raw.items():
        p = folder / str(rel)
        if not p.is_file():
            raise CaseError(f"{path}: [implementations] {name} = {rel!r} does not exist in {folder}")
        impls[str(name)] = p
    default = str(meta.get("default", next(iter(impls))))
    if default not in impls:
        raise CaseError(f"{path}: [case] default = {default!r} is not one of {sorted(impls)}")
    tests = folder / str(meta["tests"]) if meta.get("tests") else None
    expected: dict[str, dict[str, tuple[str, ...]]] = {}
    for impl, table in dict(data.get("expected", {})).items():
        if impl not in impls:
            raise CaseError(f"{path}: [expected.{impl}] names no implementation (known: {sorted(impls)})")
        rows: dict[str, tuple[str, ...]] = {}
        for rid, verdicts in dict(table).items():
            vs = (verdicts,) if isinstance(verdicts, str) else tuple(verdicts)
            bad = [v for v in vs if v not in _VERDICTS]
            if bad:
                raise CaseError(f"{path}: [expected.{impl}] {rid} = {bad[0]!r} is not a verdict "
                                f"({', '.join(sorted(_VERDICTS))})")
            rows[str(rid)] = vs
        expected[impl] = rows
    return Case(folder.resolve(), str(meta.get("name", folder.name)), str(meta.get("title", "")), spec.resolve(),
                {k: v.resolve() for k, v in impls.items()}, default, tests.resolve() if tests else None, expected)
