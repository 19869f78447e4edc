"""Run ``mypy --strict`` over the evalgap package and the tests, on a layout mypy can see.

The package is installed with a package-dir mapping (pyproject.toml ``[tool.setuptools.package-dir]``:
``evalgap`` = verifier/api, ``evalgap.specs_lang`` = specs_lang, ...), which mypy does not read. This script
builds a folder of symbolic links (``.mypy_cache/evalgap-layout``, removed afterwards) that mirrors the installed ``evalgap`` tree, read from that
table, and runs mypy on that ``evalgap`` folder plus every test module (``tests/*.py`` and test sub-folders;
the tests import their helpers as top-level modules, ``from egtest import ...``, so each test folder is on
mypy's search path too). Settings: pyproject.toml ``[tool.mypy]``.

Usage: ``python scripts/typecheck.py [extra mypy arguments]``; exit status is mypy's (0: clean, 1: type
errors, 2: mypy could not run). Run by ``.ci/run`` after the tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_dirs(pyproject: Path) -> dict[str, Path]:
    """The ``[tool.setuptools.package-dir]`` table: dotted package name -> its folder in the repository.

    Args:
        pyproject: path of pyproject.toml.

    Returns:
        E.g. ``{"evalgap": ROOT/"verifier/api", "evalgap.specs_lang": ROOT/"specs_lang", ...}``.
    """
    table = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    return {name: pyproject.parent / folder for name, folder in table.items()}


def build_layout(dest: Path, mapping: dict[str, Path]) -> Path:
    """Create ``dest/evalgap/...`` as symbolic links mirroring the installed package.

    The root package's folder gets one link per entry of its source folder; every other mapped package
    is one link to its folder (``dest/evalgap/specs_lang -> ROOT/specs_lang``).

    Args:
        dest: an empty folder.
        mapping: from :func:`package_dirs`; exactly one top-level name is expected.

    Returns:
        ``dest`` (to put on ``MYPYPATH``).

    Raises:
        ValueError: the mapping has no top-level package, or a nested one whose parent is not mapped.
    """
    tops = [n for n in mapping if "." not in n]
    if len(tops) != 1:
        raise ValueError(f"expected one top-level package in package-dir, got {tops}")
    top = dest / tops[0]
    top.mkdir()
    for entry in mapping[tops[0]].iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for name, folder in sorted(mapping.items()):
        if name == tops[0]:
            continue
        parent, _, leaf = name.rpartition(".")
        if parent != tops[0]:
            raise ValueError(f"nested package-dir entry {name!r} is not supported")
        (top / leaf).symlink_to(folder, target_is_directory=True)
    return dest


#: Folders under tests/ that hold data (programs under check, gate repositories), not test code.
DATA_DIRS = {"fixtures", "specs", "golden", "__pycache__"}


def test_folders(tests: Path) -> list[Path]:
    """``tests`` and each sub-folder holding test code (not :data:`DATA_DIRS`), deepest first.

    Each is a base on mypy's search path: a test module imports its folder's helpers as top-level modules,
    as pytest (rootdir-relative ``prepend`` imports, no ``__init__.py``) does.
    """
    out = [tests]
    for d in sorted(tests.rglob("*")):
        rel = d.relative_to(tests).parts
        if d.is_dir() and not DATA_DIRS & set(rel) and any(d.glob("*.py")):
            out.append(d)
    return sorted(out, key=lambda p: -len(p.parts))


def main(argv: list[str]) -> int:
    """Build the layout in ``.mypy_cache/evalgap-layout`` and run mypy; returns mypy's exit status.

    mypy's messages name the package's files by their repository paths (``specs_lang/check.py``), not by
    the temporary links.
    """
    folders = test_folders(ROOT / "tests")
    tests = sorted(str(p.relative_to(ROOT)) for d in folders for p in d.glob("*.py"))
    mapping = package_dirs(ROOT / "pyproject.toml")
    # A fixed place (not a fresh temporary folder): mypy's cache records file paths, and reports an
    # unchanged file's cached errors under the path it had when they were found.
    tmp = ROOT / ".mypy_cache" / "evalgap-layout"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        base = build_layout(tmp, mapping)
        env = dict(os.environ, MYPYPATH=os.pathsep.join([str(base), *map(str, folders)]))
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--explicit-package-bases", *argv, str(base / "evalgap"), *tests]
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        links = sorted(((str(where / name.replace(".", os.sep)) + os.sep, str(folder.relative_to(ROOT)) + os.sep)
                        for name, folder in mapping.items() for where in (base, base.relative_to(ROOT))),
                       key=lambda kv: -len(kv[0]))
        for stream, text in ((sys.stdout, proc.stdout), (sys.stderr, proc.stderr)):
            for link, real in links:
                text = text.replace(link, real)
            stream.write(text)
        return proc.returncode
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
