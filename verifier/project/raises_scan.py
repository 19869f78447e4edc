"""The exceptions a target's functions raise explicitly, read statically from its source (no import: nothing
of the target runs), for the EG230 lint warning (:func:`evalgap.specs_lang.check_raises.exception_warnings`).

Only ``raise NAME`` and ``raise NAME(...)`` statements directly in a module-level function or a method of a
module-level class count (not in nested functions, not a bare ``raise``, not exceptions of called code).
"""

from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["raised_exceptions"]


def _raised(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    out: dict[str, int] = {}
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = exc.attr if isinstance(exc, ast.Attribute) else exc.id if isinstance(exc, ast.Name) else None
            if name is not None and (name not in out or node.lineno < out[name]):
                out[name] = node.lineno
        stack.extend(ast.iter_child_nodes(node))
    return out


def raised_exceptions(path: str | Path | None) -> dict[str, dict[str, int]]:
    """``"f"`` / ``"Class.method"`` -> exception name -> first line raising it, for the module at ``path``.

    Args:
        path: the target module's file (None, a missing file or one that does not parse: nothing found).

    Returns:
        The mapping (empty when nothing is raised explicitly or the file cannot be read).
    """
    if path is None:
        return {}
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return {}
    out: dict[str, dict[str, int]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if found := _raised(node):
                out[node.name] = found
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (found := _raised(item)):
                    out[f"{node.name}.{item.name}"] = found
    return out
