"""Helpers for engine tests: write a spec and a target into a folder and check it in-process."""

from __future__ import annotations

import textwrap
from pathlib import Path

from evalgap.specs_lang import check_structure, parse_file
from evalgap.verifier.engines.run import check_spec
from evalgap.verifier.options import Settings
from evalgap.verifier.findings import RequirementResult
from evalgap.verifier.project.targets import resolve_target

SPEC_F = """\
spec t "engine test"
  target: {target}

function f(n: int) -> int
  requirement F-1 "Returns its argument."
    ensures result == n
"""


def write_case(folder: Path, target_src: str, spec_src: str = SPEC_F, name: str = "target_mod") -> Path:
    """Write ``name.py`` (dedented ``target_src``) and ``spec.req`` into ``folder``; return the spec path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(target_src), encoding="utf-8")
    spec = folder / "spec.req"
    spec.write_text(spec_src.format(target=f"{name}.py"), encoding="utf-8")
    return spec


def run_check(spec: Path, **opts: object) -> list[RequirementResult]:
    """Parse and check ``spec`` against its own target with ``Settings(**opts)`` (test defaults: CrossHair
    only, one job, no cache, unless ``opts`` say otherwise)."""
    parsed = parse_file(spec)
    source = spec.read_text(encoding="utf-8")
    check_structure(parsed, source)
    assert parsed.target is not None
    target = resolve_target(parsed.target, spec.parent.resolve())
    return check_spec(parsed, source, target, Settings(**{"engines": ("crosshair",), "jobs": 1, "cache": False, **opts}))  # type: ignore[arg-type]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> content), to show nothing changed."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
            and "__pycache__" not in p.parts}
