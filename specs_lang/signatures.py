"""The target's signatures as plain data, handed to the checker by its caller.

The checker never imports the target: the verifier reads these in a sandboxed subprocess
(:mod:`evalgap.verifier.project.signature_worker`) and passes a :class:`ModuleSig` in. The JSON form
(:meth:`ModuleSig.to_json` / :meth:`ModuleSig.from_json`) is what the worker writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ParamSig", "FunctionSig", "ClassSig", "ModuleSig"]

#: Parameter kinds, as :class:`inspect.Parameter` names them.
PARAM_KINDS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")


@dataclass(frozen=True)
class ParamSig:
    """One parameter: ``name``, ``kind`` (one of :data:`PARAM_KINDS`), whether it has a default."""

    name: str
    kind: str = "POSITIONAL_OR_KEYWORD"
    has_default: bool = False


@dataclass(frozen=True)
class FunctionSig:
    """A callable's signature (for methods, without ``self``)."""

    name: str
    params: tuple[ParamSig, ...] = ()

    def positional(self) -> list[ParamSig]:
        """Parameters that can be passed by position."""
        return [p for p in self.params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]

    def arity(self) -> tuple[int, int | None]:
        """``(minimum, maximum)`` number of positional arguments (maximum None: ``*args``)."""
        pos = self.positional()
        required = sum(1 for p in pos if not p.has_default)
        required += 0
        var = any(p.kind == "VAR_POSITIONAL" for p in self.params)
        return required, None if var else len(pos)

    def accepts_keyword(self, name: str) -> bool:
        """Whether ``name=`` is accepted."""
        if any(p.kind == "VAR_KEYWORD" for p in self.params):
            return True
        return any(p.name == name and p.kind in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY") for p in self.params)

    def describe(self) -> str:
        """``name(a, b=..., *args)`` for messages."""
        parts = []
        for p in self.params:
            text = {"VAR_POSITIONAL": f"*{p.name}", "VAR_KEYWORD": f"**{p.name}"}.get(p.kind, p.name)
            parts.append(text + ("=..." if p.has_default else ""))
        return f"{self.name}({', '.join(parts)})"


@dataclass(frozen=True)
class ClassSig:
    """A class: its constructor (``__init__`` without ``self``), public methods and known attributes
    (class attributes, properties, and ``self.X = ...`` assignments found in its methods' source)."""

    name: str
    init: FunctionSig = FunctionSig("__init__")
    methods: dict[str, FunctionSig] = field(default_factory=dict)
    attributes: frozenset[str] = frozenset()
    open_attributes: bool = False

    def members(self) -> set[str]:
        """Every name readable on an instance (methods and attributes)."""
        return set(self.methods) | set(self.attributes)


@dataclass(frozen=True)
class ModuleSig:
    """What a target module defines at top level.

    Attributes:
        module: its name.
        functions: name -> signature of each top-level function.
        classes: name -> class.
        names: every other top-level name (constants, imported modules, ...).
    """

    module: str
    functions: dict[str, FunctionSig] = field(default_factory=dict)
    classes: dict[str, ClassSig] = field(default_factory=dict)
    names: frozenset[str] = frozenset()

    def all_names(self) -> set[str]:
        """Every top-level name of the module."""
        return set(self.functions) | set(self.classes) | set(self.names)

    # ------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable dict (the worker's result format)."""
        def fn(f: FunctionSig) -> dict[str, Any]:
            return {"name": f.name, "params": [[p.name, p.kind, p.has_default] for p in f.params]}
        return {
            "module": self.module,
            "functions": {k: fn(v) for k, v in self.functions.items()},
            "classes": {k: {"name": c.name, "init": fn(c.init), "methods": {m: fn(s) for m, s in c.methods.items()},
                            "attributes": sorted(c.attributes), "open_attributes": c.open_attributes}
                        for k, c in self.classes.items()},
            "names": sorted(self.names),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> ModuleSig:
        """Inverse of :meth:`to_json`.

        Raises:
            KeyError, TypeError, ValueError: malformed data.
        """
        def fn(d: dict[str, Any]) -> FunctionSig:
            return FunctionSig(str(d["name"]), tuple(ParamSig(str(n), str(k), bool(h)) for n, k, h in d["params"]))
        classes = {k: ClassSig(str(c["name"]), fn(c["init"]), {m: fn(s) for m, s in c["methods"].items()},
                               frozenset(c["attributes"]), bool(c.get("open_attributes", False)))
                   for k, c in data.get("classes", {}).items()}
        return ModuleSig(str(data["module"]), {k: fn(v) for k, v in data.get("functions", {}).items()}, classes,
                         frozenset(data.get("names", ())))
