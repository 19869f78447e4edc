"""The import direction between packages (design.md section 2, issue 15): data flows one way,
specs_lang -> translators -> verifier -> research, and inside the verifier the sandbox stays standalone and
nothing but front ends imports the CLI. Read from the source (no imports): cheap enough for every run."""

from __future__ import annotations

import ast
from pathlib import Path

from egtest import ROOT

#: Package -> the folder its modules live in.
FOLDERS = {"specs_lang": "specs_lang", "translators": "translators", "verifier": "verifier",
           "research": "research", "api": "verifier/api"}
#: What each package may import from evalgap (besides itself).
ALLOWED = {
    "specs_lang": set(),
    "translators": {"specs_lang"},
    "verifier": {"specs_lang", "translators", "api"},
    "api": {"specs_lang", "translators", "verifier"},
    "research": {"specs_lang", "translators", "verifier", "api"},
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [(node.lineno, node.module)] + [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return [(line, name) for line, name in out if name == "evalgap" or name.startswith("evalgap.")]


def _package_of(name: str) -> str:
    parts = name.split(".")
    if len(parts) == 1 or parts[1] not in FOLDERS or parts[1] == "api":
        return "api"  # evalgap itself (and evalgap._core, ...) is the root package in verifier/api
    return parts[1]


def _modules(pkg: str) -> list[Path]:
    folder = ROOT / FOLDERS[pkg]
    files = sorted(folder.rglob("*.py"))
    if pkg == "verifier":
        files = [f for f in files if "api" not in f.relative_to(folder).parts[:1]]
    return files


def test_packages_import_only_upstream() -> None:
    bad = []
    for pkg in FOLDERS:
        for path in _modules(pkg):
            for line, name in _imports(path):
                other = _package_of(name)
                if other != pkg and other not in ALLOWED[pkg]:
                    bad.append(f"{path.relative_to(ROOT)}:{line}: {pkg} imports {name}")
    assert not bad, "\n".join(bad)


def test_sandbox_imports_nothing_heavier_than_itself() -> None:
    """Worker processes import the sandbox first: it must not pull the engines, the translators or CrossHair."""
    bad = []
    for path in sorted((ROOT / "verifier" / "sandbox").glob("*.py")):
        for line, name in _imports(path):
            if not (name.startswith("evalgap.verifier.sandbox") or name.startswith("evalgap.verifier.errors")):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        mods = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names] + \
            [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in mods if m.split(".")[0] == "crosshair"], path
    assert not bad, "\n".join(bad)


def test_only_front_ends_import_the_cli() -> None:
    bad = []
    for pkg in FOLDERS:
        for path in _modules(pkg):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("verifier", "cli") or rel.name == "__main__.py" or rel == Path("research/cli.py"):
                continue
            bad += [f"{rel}:{line}: {name}" for line, name in _imports(path) if name.startswith("evalgap.verifier.cli")]
    assert not bad, "\n".join(bad)


def test_verifier_top_level_stays_small_and_modules_short() -> None:
    top = sorted(p.name for p in (ROOT / "verifier").glob("*.py"))
    assert len(top) <= 10, top
    long = [f"{p.relative_to(ROOT)}: {n} lines" for pkg in FOLDERS for p in _modules(pkg)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500]
    assert not long, "\n".join(long)


def test_workers_are_addressed_through_the_registry() -> None:
    """No module spells a worker's module path outside the registry (and the research package's own line)."""
    bad = []
    for pkg in FOLDERS:
        for path in _modules(pkg):
            if path.name == "workers.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                        node.value.startswith("evalgap.") and node.value.endswith("_worker") and \
                        "WorkerKind" not in path.read_text(encoding="utf-8"):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not bad, "\n".join(bad)
