"""Real project layouts for the gate: the test files a project's pytest configuration names, and the project's
own third-party dependencies installed into a folder the sandboxed workers import from (``--install-deps``).
"""

from __future__ import annotations

import configparser
import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from evalgap.verifier.errors import TargetError

__all__ = ["pytest_test_globs", "project_dependencies", "install_dependencies", "write_version_files",
           "ROOT_TEST_FILES"]

#: Root files that are test scripts by name (``python test.py``), whatever the pytest configuration says.
ROOT_TEST_FILES = ("test.py", "tests.py")


def _pytest_options(root: Path) -> dict[str, list[str]]:
    """``testpaths`` and ``python_files`` from the first pytest configuration found, in pytest's order
    (pytest.ini, pyproject.toml ``[tool.pytest.ini_options]``, tox.ini ``[pytest]``, setup.cfg ``[tool:pytest]``)."""
    def split(v: object) -> list[str]:
        if isinstance(v, list):
            return [str(x) for x in v]
        return str(v).split() if v else []

    for name, section in (("pytest.ini", "pytest"), ("pyproject.toml", ""), ("tox.ini", "pytest"),
                          ("setup.cfg", "tool:pytest")):
        f = root / name
        if not f.is_file():
            continue
        try:
            if name == "pyproject.toml":
                table = tomllib.loads(f.read_text(encoding="utf-8")).get("tool", {}).get("pytest", {})
                opts = table.get("ini_options") if isinstance(table, dict) else None
                if not isinstance(opts, dict):
                    continue
                return {k: split(opts.get(k)) for k in ("testpaths", "python_files")}
            cp = configparser.ConfigParser(interpolation=None)
            cp.read_string(f.read_text(encoding="utf-8"))
            if cp.has_section(section):
                return {k: split(cp.get(section, k, fallback="")) for k in ("testpaths", "python_files")}
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error):
            continue
    return {"testpaths": [], "python_files": []}


def pytest_test_globs(root: Path) -> tuple[str, ...]:
    """Repository-relative globs of the test files the project's pytest configuration names: every ``.py``
    file under its ``testpaths``, files matching its ``python_files`` anywhere, and a root ``test.py``.

    Args:
        root: the repository root of one version.
    """
    opts = _pytest_options(root)
    out: list[str] = list(ROOT_TEST_FILES)
    for tp in opts["testpaths"]:
        tp = tp.strip("/")
        if tp and tp != ".":
            out += [f"{tp}/*.py", f"{tp}/**/*.py"] if not tp.endswith(".py") else [tp]
    for pat in opts["python_files"]:
        out += [pat, f"**/{pat}"]
    return tuple(dict.fromkeys(out))


def _requirements_lines(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith(("#", "-")):
            out.append(line)
    return out


def project_dependencies(root: Path) -> tuple[str, ...]:
    """The project's declared runtime dependencies: ``[project].dependencies`` of ``pyproject.toml``, else
    the lines of ``requirements.txt`` (options, ``-r`` includes and comments are skipped).

    Raises:
        TargetError: ``pyproject.toml`` does not parse (with the file and the parser's message).
    """
    py = root / "pyproject.toml"
    if py.is_file():
        try:
            data = tomllib.loads(py.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise TargetError(f"{py}: not TOML: {exc}") from None
        deps = data.get("project", {}).get("dependencies")
        if isinstance(deps, list) and deps:
            return tuple(str(d) for d in deps)
    req = root / "requirements.txt"
    if req.is_file():
        return tuple(_requirements_lines(req.read_text(encoding="utf-8", errors="replace")))
    return ()


def install_dependencies(deps: tuple[str, ...], cache_dir: Path) -> Path | None:
    """Install ``deps`` into a folder of their own (``pip install --target``), cached by the requirement list
    and the Python version; the workers put it on ``sys.path`` after the project's own folders.

    pip runs in the parent process, so only wheels are accepted (``--only-binary :all:``): no build script of
    a dependency runs outside the sandbox. pip's own environment variables apply (``PIP_INDEX_URL``,
    ``PIP_FIND_LINKS``, ``PIP_NO_INDEX`` for an offline wheel folder).

    Args:
        deps: requirement specifiers (``attrs>=22``).
        cache_dir: evalgap's cache folder (the installs live in ``deps/`` under it).

    Returns:
        The folder, or None when there is nothing to install.

    Raises:
        TargetError: pip failed (its last lines of output are in the message).
    """
    if not deps:
        return None
    key = hashlib.sha256("\n".join([sys.version, *sorted(deps)]).encode()).hexdigest()[:20]
    dest = cache_dir / "deps" / key
    if (dest / ".evalgap-complete").is_file():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input",
           "--only-binary", ":all:", "--target", str(dest), *deps]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False,
                              env={**os.environ, "PIP_REQUIRE_VIRTUALENV": "0"})
    except subprocess.TimeoutExpired:
        raise TargetError(f"installing the project's dependencies ({', '.join(deps)}) took more than 600 s") from None
    if proc.returncode != 0:
        tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise TargetError(f"could not install the project's dependencies ({', '.join(deps)}) with pip: {tail}")
    (dest / ".evalgap-complete").write_text(" ".join(deps) + "\n", encoding="utf-8")
    return dest


_VERSION_STUB = ('# written by evalgap gate: the build step that generates this file did not run\n'
                 '__version__ = version = "0.0.0+evalgap"\n__version_tuple__ = version_tuple = (0, 0, 0, "evalgap")\n')


def write_version_files(root: Path) -> list[str]:
    """Write the version module a build step would generate from git (hatch-vcs ``version-file``,
    setuptools-scm ``version_file``/``write_to``) when the version lacks it, so that the package imports
    (``from ._version import __version__``) from a plain checkout.

    Args:
        root: one materialized version of the repository.

    Returns:
        The repository-relative paths written (empty when the project declares none or has them).
    """
    py = root / "pyproject.toml"
    if not py.is_file():
        return []
    try:
        tool = tomllib.loads(py.read_text(encoding="utf-8")).get("tool", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    hatch = tool.get("hatch", {}) if isinstance(tool, dict) else {}
    scm = tool.get("setuptools_scm", {}) if isinstance(tool, dict) else {}
    vcs = hatch.get("build", {}).get("hooks", {}).get("vcs", {}) if isinstance(hatch, dict) else {}
    names = [vcs.get("version-file") if isinstance(vcs, dict) else None,
             scm.get("version_file") if isinstance(scm, dict) else None,
             scm.get("write_to") if isinstance(scm, dict) else None]
    out = []
    for name in names:
        if not isinstance(name, str) or not name.endswith(".py"):
            continue
        f = (root / name).resolve()
        if not f.is_relative_to(root.resolve()) or f.exists() or not f.parent.is_dir():
            continue
        f.write_text(_VERSION_STUB, encoding="utf-8")
        out.append(name)
    return out
