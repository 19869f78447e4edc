"""JSON for the library's own frozen dataclasses (the ``evalgap serve`` protocol carries them as they are).

:func:`encode` turns a dataclass (nested dataclasses, enums, tuples, lists, dicts, paths, scalars) into plain
JSON values, tagging nothing: :func:`decode` rebuilds it from the annotated field types
(:func:`typing.get_type_hints`), so a value of the wrong shape is a :class:`CodecError`, never a crash later.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import sys
import types
import typing
from pathlib import Path
from typing import Any, TypeVar, Union

__all__ = ["encode", "decode", "CodecError"]

T = TypeVar("T")


class CodecError(ValueError):
    """A JSON value does not fit the type it is decoded as (a protocol error)."""


def encode(value: Any) -> Any:
    """``value`` as JSON-ready data (dataclass -> object of its fields, enum -> its value, tuple/list -> list,
    dict -> object, Path -> string)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise CodecError(f"cannot encode a {type(value).__name__}")


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    """The resolved field types of ``cls``; a name its module imports only for type checking is looked up
    among the loaded ``evalgap`` modules."""
    extra: dict[str, Any] = {}
    for _ in range(64):
        try:
            return typing.get_type_hints(cls, localns=extra)
        except NameError as exc:
            name = getattr(exc, "name", None) or str(exc).split("'")[1]
            found = _imported_for_typing(cls, name)
            if found is None:
                raise CodecError(f"cannot resolve the type {name} of {cls.__name__}") from None
            extra[name] = found
    raise CodecError(f"cannot resolve the types of {cls.__name__}")


def _imported_for_typing(cls: type, name: str) -> Any:
    """``name`` as the module of ``cls`` imports it (``from X import name``, e.g. under ``TYPE_CHECKING``),
    imported now; None when its source says nothing."""
    import importlib
    import inspect
    import re

    try:
        source = inspect.getsource(sys.modules[cls.__module__])
    except (OSError, TypeError, KeyError):
        return None
    for m in re.finditer(r"from\s+([\w.]+)\s+import\s+([^\n]*)", source):
        if name in re.findall(r"\w+", m.group(2)):
            try:
                return getattr(importlib.import_module(m.group(1)), name, None)
            except ImportError:
                return None
    return None


def decode(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from :func:`encode`'s output.

    Raises:
        CodecError: ``data`` does not fit ``tp``.
    """
    if tp is Any or tp is object:
        return data
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        errors = []
        for arm in (a for a in args if a is not type(None)):
            try:
                return decode(arm, data)
            except CodecError as exc:
                errors.append(str(exc))
        raise CodecError(f"no type of {tp} fits: {'; '.join(errors)}")
    if origin is typing.Literal:
        if data in args:
            return data
        raise CodecError(f"{data!r} is not one of {args}")
    if origin is tuple:
        _need(data, list, tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in data)
        if len(args) != len(data):
            raise CodecError(f"{tp} needs {len(args)} items, got {len(data)}")
        return tuple(decode(a, v) for a, v in zip(args, data))
    if origin is list:
        _need(data, list, tp)
        return [decode(args[0] if args else Any, v) for v in data]
    if origin is dict:
        _need(data, dict, tp)
        kt, vt = args if args else (Any, Any)
        return {decode(kt, k): decode(vt, v) for k, v in data.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        _need(data, dict, tp)
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                kwargs[f.name] = decode(hints.get(f.name, Any), data[f.name])
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise CodecError(f"{tp.__name__} needs field {f.name!r}")
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as exc:
            raise CodecError(f"cannot build {tp.__name__}: {exc}") from None
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise CodecError(f"{data!r} is not a {tp.__name__}") from None
    if tp is Path:
        _need(data, str, tp)
        return Path(data)
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise CodecError(f"{data!r} is not a number")
        return float(data)
    if tp in (str, int, bool):
        if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
            raise CodecError(f"{data!r} is not a {tp.__name__}")
        return data
    if tp is type(None):
        if data is not None:
            raise CodecError(f"{data!r} is not null")
        return None
    raise CodecError(f"cannot decode type {tp}")


def _need(data: Any, kind: type, tp: Any) -> None:
    if not isinstance(data, kind):
        raise CodecError(f"{tp} needs a JSON {kind.__name__}, got {type(data).__name__}")
