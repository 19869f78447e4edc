"""Locate the code under check: a file path, an importable module, or a case's named implementation."""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

from evalgap.verifier.errors import TargetError

__all__ = ["Target", "resolve_target", "relative_path_lines"]

_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class Target:
    """Code to check.

    Attributes:
        module: the importable module name.
        paths: folders the worker puts on ``sys.path`` first (absolute).
        display: how reports name it (the path as given, a module name, or ``name (file)``).
        file: the module's file when known (absolute), for hashing and reporting.
    """

    module: str
    paths: tuple[str, ...]
    display: str
    file: str | None = None


def _from_file(path: Path, display: str) -> Target:
    """A target file; inside a package (folders with ``__init__.py``) it is imported as the package's module
    (``src/pkg/core.py`` is ``pkg.core`` with ``src`` on the path), so its relative imports resolve."""
    if path.exists() and not path.is_file():
        raise TargetError(f"target {display} is not a regular file (give a .py file)")
    if not path.is_file():
        raise TargetError(f"target file {display} does not exist (looked at {path})")
    if path.suffix != ".py":
        raise TargetError(f"target {display} is not a Python file (.py)")
    module = path.stem
    if not _MODULE_RE.match(module):
        raise TargetError(f"target file name {path.name!r} is not an importable module name; rename it "
                          "to letters, digits and '_'")
    root = path.parent.resolve()
    parts = [] if module == "__init__" else [module]
    while (root / "__init__.py").is_file() and _MODULE_RE.match(root.name) and root.parent != root:
        parts.insert(0, root.name)  # a module of a package: imported as the package's module
        root = root.parent
    if not parts:
        raise TargetError(f"target {display} is a package's __init__.py outside any package folder")
    return Target(".".join(parts), (str(root),), display, str(path.resolve()))


def resolve_target(text: str, base_dir: Path, implementations: dict[str, str] | None = None,
                   case_dir: Path | None = None) -> Target:
    """Resolve a target reference.

    Args:
        text: a named implementation of the case (``agent``), a ``.py`` path, or a module name.
        base_dir: folder a relative path or a module is resolved against (the spec's folder for a spec's
            own ``target:``, the current directory for ``--target``).
        implementations: the case's ``name -> relative path`` table, when checking a case folder.
        case_dir: the case folder those paths are relative to.

    Returns:
        The :class:`Target`.

    Raises:
        TargetError: the file does not exist, or the text is neither a known name, a path nor a module.
    """
    if implementations and text in implementations and case_dir is not None:
        target = _from_file((case_dir / implementations[text]).resolve(), f"{text} ({implementations[text]})")
        return target
    if text.endswith(".py") or os.sep in text or "/" in text:
        return _from_file((base_dir / text).resolve(), text)
    if _MODULE_RE.match(text):
        top = text.split(".")[0]
        local = base_dir / top
        if not (local.with_suffix(".py").is_file() or (local / "__init__.py").is_file() or local.is_dir()
                or importlib.util.find_spec(top) is not None):  # top-level lookup: runs no target code
            known = f"; named implementations: {', '.join(sorted(implementations))}" if implementations else ""
            raise TargetError(f"no module named {top!r} in {base_dir} or among the installed packages{known}")
        return Target(text, (str(base_dir.resolve()),), text)
    known = f"; named implementations: {', '.join(sorted(implementations))}" if implementations else ""
    raise TargetError(f"--target {text!r} is neither a .py file, a module name nor a named implementation{known}")


def relative_path_lines(paths: tuple[str, ...] | list[str], folder: Path, sys_name: str = "sys",
                        os_name: str = "os") -> list[str]:
    """Python lines putting ``paths`` first on ``sys.path`` *relative to the generated file's own folder*
    (computed from ``__file__`` when the file runs), so a generated test file (``export --to pytest``,
    ``check --emit-tests``) still finds its target after the project folder is moved or committed.

    Args:
        paths: absolute folders (a :attr:`Target.paths`).
        folder: the folder the generated file is written to (relative paths are resolved from the cwd).
        sys_name, os_name: the names the generated file imports ``sys`` and ``os`` under.

    Returns:
        Source lines, the first ones importing nothing: the caller imports ``sys`` and ``os`` under those names.
    """
    here = folder.resolve()
    lines = [f"_eg_here = {os_name}.path.dirname({os_name}.path.abspath(__file__))"]
    for p in reversed(list(paths)):
        rel = os.path.relpath(p, here)
        lines.append(f"_eg_p = {os_name}.path.normpath({os_name}.path.join(_eg_here, {rel!r}))")
        lines.append(f"{sys_name}.path.insert(0, _eg_p) if _eg_p not in {sys_name}.path else None")
    return lines
