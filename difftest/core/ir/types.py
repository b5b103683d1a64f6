"""The kernel language's value types.

Four scalar types, two buffer-reference types and two workgroup-array types. Integers are
stored everywhere (oracle, case files, target registers) as canonical signed Python/NumPy
integers of their width, so widening i32 -> i64 never changes a value; narrowing is
explicit (`i32(x)`). A workgroup array (`Local[i32, 64]`) is no value: it is read and
written like a buffer, but never assigned, passed or returned.
"""

from __future__ import annotations

import enum


class Type(enum.Enum):
    I32 = "i32"
    I64 = "i64"
    BOOL = "bool"
    BUF_I32 = "Buffer[i32]"
    BUF_I64 = "Buffer[i64]"
    LOCAL_I32 = "Local[i32]"
    LOCAL_I64 = "Local[i64]"

    def __str__(self) -> str:
        return self.value

    # (the members by their module names below: an Enum class attribute lookup is slow,
    # and these are asked millions of times in a fuzz campaign)
    @property
    def is_int(self) -> bool:
        return self is I32 or self is I64

    @property
    def is_buffer(self) -> bool:
        return self is BUF_I32 or self is BUF_I64

    @property
    def is_local(self) -> bool:
        return self is LOCAL_I32 or self is LOCAL_I64

    @property
    def bits(self) -> int:
        assert self.is_int, f"{self} has no integer width"
        return 32 if self is I32 else 64

    @property
    def element(self) -> Type:
        assert self.is_buffer or self.is_local, f"{self} is not a buffer type"
        return I32 if self is BUF_I32 or self is LOCAL_I32 else I64


I32, I64, BOOL, BUF_I32, BUF_I64 = Type.I32, Type.I64, Type.BOOL, Type.BUF_I32, Type.BUF_I64
LOCAL_I32, LOCAL_I64 = Type.LOCAL_I32, Type.LOCAL_I64

#: dtype names used in case files, mapped to element types.
DTYPES: dict[str, Type] = {"i32": I32, "i64": I64}


def int_range(ty: Type) -> tuple[int, int]:
    """Inclusive bounds of an integer type."""
    half = 1 << (ty.bits - 1)
    return -half, half - 1


def widest(a: Type, b: Type) -> Type:
    """The type of an arithmetic on two integer operands: mixing widens to i64."""
    return I64 if I64 in (a, b) else I32


def buffer_of(element: Type) -> Type:
    return BUF_I32 if element is I32 else BUF_I64


def local_of(element: Type) -> Type:
    return LOCAL_I32 if element is I32 else LOCAL_I64
