"""Spec types and their Z3 sorts.

Type descriptors (:class:`Ty`) are small frozen records; :func:`sort_of` maps them to Z3 sorts, creating
one algebraic datatype per record or tuple shape (cached per process).

| spec type          | Z3 sort                      | exactness                                        |
|--------------------|------------------------------|--------------------------------------------------|
| ``int``            | Int (unbounded)              | exact                                            |
| ``bool``           | Bool                         | exact (promoted to Int 0/1 in arithmetic)        |
| ``float``          | Real                         | approximated: no rounding, NaN or infinities     |
| ``str``            | String                       | exact (code points)                              |
| ``list[T]``        | Seq(T)                       | exact                                            |
| ``set[T]``         | Array(T, Bool)               | exact; ``len`` of a set is not in the fragment   |
| ``tuple[A, B]``    | datatype ``tuple_A_B``       | exact                                            |
| a ``record`` name  | datatype with its fields     | exact                                            |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import z3

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct

__all__ = ["Ty", "INT", "BOOL", "REAL", "STR", "ty_from_ref", "sort_of", "RecordSchema", "is_numeric"]


@dataclass(frozen=True)
class Ty:
    """A spec type: ``kind`` is ``int``, ``bool``, ``real``, ``str``, ``seq``, ``set``, ``tuple`` or
    ``record``; ``args`` are element types (seq/set: one; tuple: one per component; record: the field
    types, named by ``fields``); ``name`` names a record."""

    kind: str
    args: tuple[Ty, ...] = ()
    name: str = ""
    fields: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.kind == "seq":
            return f"list[{self.args[0]}]"
        if self.kind == "set":
            return f"set[{self.args[0]}]"
        if self.kind == "tuple":
            return "tuple[" + ", ".join(str(a) for a in self.args) + "]"
        if self.kind == "record":
            return self.name
        return {"real": "float"}.get(self.kind, self.kind)

    def field_type(self, name: str) -> Ty | None:
        """The type of record field ``name`` (None when absent or not a record)."""
        if self.kind == "record" and name in self.fields:
            return self.args[self.fields.index(name)]
        return None


INT, BOOL, REAL, STR = Ty("int"), Ty("bool"), Ty("real"), Ty("str")
_PRIMS = {"int": INT, "bool": BOOL, "float": REAL, "str": STR}


@dataclass(frozen=True)
class RecordSchema:
    """A record (or config schema) as data: ``name`` and ordered ``(field, TypeRef)`` pairs."""

    name: str
    fields: tuple[tuple[str, A.TypeRef], ...]


def is_numeric(ty: Ty | None) -> bool:
    """True for int, bool and float (Python's numeric tower as far as the fragment goes)."""
    return ty is not None and ty.kind in ("int", "bool", "real")


def ty_from_ref(ref: A.TypeRef, records: Mapping[str, RecordSchema] | None = None,
                _seen: frozenset[str] = frozenset()) -> Ty:
    """The :class:`Ty` of a spec type annotation.

    Args:
        ref: the annotation (``int``, ``list[int]``, ``Dataset``).
        records: record schemas by name (records may nest but not recurse).

    Raises:
        UnsupportedConstruct: types outside the fragment (``bytes``, ``dict``, ``None``, classes of the
            target, recursive records).
    """
    records = records or {}
    name = ref.name
    if name in _PRIMS and not ref.args:
        return _PRIMS[name]
    if name in ("list", "List", "Sequence") and len(ref.args) == 1:
        return Ty("seq", (ty_from_ref(ref.args[0], records, _seen),))
    if name in ("set", "Set", "frozenset", "FrozenSet") and len(ref.args) == 1:
        return Ty("set", (ty_from_ref(ref.args[0], records, _seen),))
    if name in ("tuple", "Tuple") and ref.args and str(ref.args[-1]) != "...":
        return Ty("tuple", tuple(ty_from_ref(a, records, _seen) for a in ref.args))
    if name in records and not ref.args:
        if name in _seen:
            raise UnsupportedConstruct(f"recursive record {name}", ref.span)
        rec = records[name]
        tys = tuple(ty_from_ref(t, records, _seen | {name}) for _, t in rec.fields)
        return Ty("record", tys, name, tuple(f for f, _ in rec.fields))
    raise UnsupportedConstruct(f"type {ref}", ref.span)


_SORTS: dict[Ty, z3.SortRef] = {}


def _dt_name(ty: Ty) -> str:
    if ty.kind == "record":
        return ty.name
    return "tuple_" + "_".join(str(a).replace("[", "_").replace("]", "").replace(", ", "_") for a in ty.args)


def sort_of(ty: Ty) -> z3.SortRef:
    """The Z3 sort of ``ty`` (datatypes for records and tuples, built once per process)."""
    if ty in _SORTS:
        return _SORTS[ty]
    if ty.kind == "int":
        s: z3.SortRef = z3.IntSort()
    elif ty.kind == "bool":
        s = z3.BoolSort()
    elif ty.kind == "real":
        s = z3.RealSort()
    elif ty.kind == "str":
        s = z3.StringSort()
    elif ty.kind == "seq":
        s = z3.SeqSort(sort_of(ty.args[0]))
    elif ty.kind == "set":
        s = z3.SetSort(sort_of(ty.args[0]))
    else:
        names = ty.fields if ty.kind == "record" else tuple(f"_{i}" for i in range(len(ty.args)))
        dt = z3.Datatype(_dt_name(ty) + f"_{len(_SORTS)}")
        dt.declare("mk", *[(n, sort_of(a)) for n, a in zip(names, ty.args)])
        s = dt.create()
    _SORTS[ty] = s
    return s


def field_accessor(ty: Ty, index: int) -> z3.FuncDeclRef:
    """The accessor of component ``index`` of a record or tuple type."""
    s = sort_of(ty)
    assert isinstance(s, z3.DatatypeSortRef)
    return s.accessor(0, index)


def constructor(ty: Ty) -> z3.FuncDeclRef:
    """The constructor of a record or tuple type."""
    s = sort_of(ty)
    assert isinstance(s, z3.DatatypeSortRef)
    return s.constructor(0)
