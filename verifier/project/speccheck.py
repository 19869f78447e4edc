"""Load a spec (with its imports) and run every check on it, with the target's signatures read in a
sandboxed subprocess: the shared front half of ``evalgap check`` and ``evalgap lint``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang.loader import LoadedSpec, load_spec
from evalgap.specs_lang.signatures import ModuleSig
from evalgap.verifier.errors import TargetError
from evalgap.verifier.project.signatures import ImportTimeout, target_signatures
from evalgap.verifier.project.targets import Target, resolve_target

if TYPE_CHECKING:
    from evalgap.verifier.cache import ResultCache

__all__ = ["load_checked", "spec_target", "target_line"]


def target_line(loaded: LoadedSpec) -> str:
    """``FILE:LINE:COL`` of the root spec's ``target:`` value (line 1, column 1 when it cannot be found), so a
    missing or broken target points at the line that named it."""
    file = loaded.files[0] if loaded.files else loaded.spec.file
    for no, line in enumerate(loaded.sources.get(file, "").splitlines(), 1):
        m = re.match(r"\s*target\s*:\s*", line)
        if m:
            return f"{file}:{no}:{m.end() + 1}"
    return f"{file}:1:1"


def spec_target(loaded: LoadedSpec, spec_path: Path) -> Target | None:
    """The spec's own ``target:`` resolved relative to the spec file, or None when it has none.

    Raises:
        TargetError: the named file does not exist.
    """
    if loaded.spec.target is None:
        return None
    return resolve_target(loaded.spec.target, spec_path.parent.resolve())


def load_checked(spec_path: Path, target: Target | None, strict_target: bool,
                 cache: ResultCache | None = None, text: str | None = None) -> tuple[LoadedSpec, Target | None]:
    """Parse ``spec_path`` and its imports, read the target's signatures, run all checks.

    Args:
        spec_path: the root ``.req`` file (with ``text``: its display name, ``<stdin>``).
        text: the root spec's text when it did not come from a file (standard input).
        target: the code under check, or None to use the spec's ``target:`` (if any).
        strict_target: when True, a target whose signatures cannot be read is an error; when False the checks
            run without the target's names (the verifier reports the import error as a verdict later).

    Returns:
        ``(loaded spec, target or None)``.

    Raises:
        SpecError: every diagnostic of the spec files (syntax, names, types).
        TargetError: the target cannot be located, (strict) cannot be imported, or its import hangs (always).
    """
    loaded = load_spec(spec_path, text)
    from_spec = target is None
    if target is None:
        try:
            target = spec_target(loaded, spec_path)
        except TargetError as exc:
            raise TargetError(f"{target_line(loaded)}: {exc}") from None
    sigs: ModuleSig | None = None
    if target is not None:
        try:
            sigs = target_signatures(target, cache=cache)
        except TargetError as exc:
            if strict_target or isinstance(exc, ImportTimeout):  # a hang would hang every engine as well
                raise (TargetError(f"{target_line(loaded)}: {exc}") if from_spec else exc) from None
    check_spec(loaded.spec, loaded.sources, sigs)
    return loaded, target
