"""Two versions of a project imported side by side in one worker process, and equality across them.

Used only inside sandboxed workers (the diff and replay workers of the gate). Each version's folder becomes a
synthetic package (``evalgap_base``, ``evalgap_head``), so ``refunds.py`` is ``evalgap_base.refunds`` and
``evalgap_head.refunds`` and a package's relative imports resolve inside its own version. While a version is
imported its folder is first on ``sys.path`` (for its absolute imports); the modules it loaded from there are
then removed from ``sys.modules`` so the other version loads its own.
"""

from __future__ import annotations

import importlib
import math
import sys
import types
from typing import Any, Callable

__all__ = ["PACKAGES", "load_version", "version_equal", "walk"]

PACKAGES = ("evalgap_base", "evalgap_head")


def load_version(package: str, root: str, module: str) -> types.ModuleType:
    """Import ``module`` (dotted, relative to ``root``) of one version as ``package.module``.

    Args:
        package: the synthetic package name (one of :data:`PACKAGES`).
        root: the version's import root (absolute folder).
        module: the module's dotted name inside ``root``.

    Raises:
        Whatever the target raises at import time (the caller reports it as data).
    """
    pkg = types.ModuleType(package)
    pkg.__path__ = [root]
    sys.modules[package] = pkg
    before = set(sys.modules)
    sys.path.insert(0, root)
    try:
        mod = importlib.import_module(f"{package}.{module}")
    finally:
        sys.path.remove(root)
        for name in set(sys.modules) - before:
            f = getattr(sys.modules[name], "__file__", None) or ""
            if not name.startswith(package + ".") and f.startswith(root):
                del sys.modules[name]  # the other version loads its own copy
    return mod


def walk(module: types.ModuleType, qualname: str) -> Any:
    """The object ``qualname`` (``process``, ``Balancer.dispatch``) of ``module``, as the attribute access
    gives it (a bound classmethod, a plain function for a method).

    Raises:
        AttributeError: no such object.
    """
    obj: Any = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _plain_equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an __eq__ that raises makes the values different
        return False


def version_equal(a: Any, b: Any, equal: Callable[[Any, Any], bool] = _plain_equal, depth: int = 0) -> bool:
    """Equality across versions: an object of base's ``Result`` equals one of head's ``Result`` (a different
    class of the same name) when their fields are equal; containers compare element-wise; NaN equals NaN;
    everything else goes to ``equal`` (``==`` by default, CrossHair's ``flexible_equal`` in its worker)."""
    if depth > 20:
        return bool(equal(a, b))
    ta, tb = type(a), type(b)
    if ta is not tb and ta.__qualname__ == tb.__qualname__ and hasattr(a, "__dict__") and hasattr(b, "__dict__"):
        return version_equal(vars(a), vars(b), equal, depth + 1)
    if ta is not tb and ta.__qualname__ == tb.__qualname__ and isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(version_equal(x, y, equal, depth + 1) for x, y in zip(a, b))
    if type(a) in (list, tuple) and type(b) is type(a):
        return len(a) == len(b) and all(version_equal(x, y, equal, depth + 1) for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(version_equal(a[k], b[k], equal, depth + 1) for k in a)
    if ta is not tb and ta.__qualname__ == tb.__qualname__ and hasattr(ta, "__members__"):
        return getattr(a, "name", None) == getattr(b, "name", None)  # the same member of two versions' enum
    return bool(equal(a, b))
