"""The kernel language's value types.

Four scalar types, three buffer-reference types and three workgroup-array types. Integers
are stored everywhere (oracle, case files, target registers) as canonical signed
Python/NumPy integers of their width, so widening i32 -> i64 never changes a value;
narrowing is explicit (`i32(x)`). An `f32` is IEEE binary32 (docs/semantics.md, "32-bit
floats"): the oracle holds it as a Python float that binary32 represents exactly, memory
and registers as its 32 bits (a signed 32-bit integer); it never mixes with integers
implicitly. A workgroup array (`Local[i32, 64]`) is no value: it is read and written like
a buffer, but never assigned, passed or returned.
"""

from __future__ import annotations

import enum


class Type(enum.Enum):
    I32 = "i32"
    I64 = "i64"
    F32 = "f32"
    BOOL = "bool"
    BUF_I32 = "Buffer[i32]"
    BUF_I64 = "Buffer[i64]"
    BUF_F32 = "Buffer[f32]"
    LOCAL_I32 = "Local[i32]"
    LOCAL_I64 = "Local[i64]"
    LOCAL_F32 = "Local[f32]"

    def __str__(self) -> str:
        return self.value

    # (the members by their module names below: an Enum class attribute lookup is slow,
    # and these are asked millions of times in a fuzz campaign)
    @property
    def is_int(self) -> bool:
        return self is I32 or self is I64

    @property
    def is_buffer(self) -> bool:
        return self is BUF_I32 or self is BUF_I64 or self is BUF_F32

    @property
    def is_local(self) -> bool:
        return self is LOCAL_I32 or self is LOCAL_I64 or self is LOCAL_F32

    @property
    def is_number(self) -> bool:
        """An integer or an f32: what arithmetic, comparisons and `select` take."""
        return self is I32 or self is I64 or self is F32

    @property
    def bits(self) -> int:
        """The width of a value in memory and registers (an f32's are its bit pattern)."""
        assert self.is_int or self is F32, f"{self} has no width"
        return 64 if self is I64 else 32

    @property
    def element(self) -> Type:
        assert self.is_buffer or self.is_local, f"{self} is not a buffer type"
        return _ELEMENT[self]


I32, I64, F32, BOOL = Type.I32, Type.I64, Type.F32, Type.BOOL
BUF_I32, BUF_I64, BUF_F32 = Type.BUF_I32, Type.BUF_I64, Type.BUF_F32
LOCAL_I32, LOCAL_I64, LOCAL_F32 = Type.LOCAL_I32, Type.LOCAL_I64, Type.LOCAL_F32
_ELEMENT = {BUF_I32: I32, BUF_I64: I64, BUF_F32: F32,
            LOCAL_I32: I32, LOCAL_I64: I64, LOCAL_F32: F32}

#: dtype names used in case files, mapped to element types.
DTYPES: dict[str, Type] = {"i32": I32, "i64": I64, "f32": F32}


def int_range(ty: Type) -> tuple[int, int]:
    """Inclusive bounds of an integer type."""
    half = 1 << (ty.bits - 1)
    return -half, half - 1


def widest(a: Type, b: Type) -> Type:
    """The type of an arithmetic on two integer operands: mixing widens to i64."""
    return I64 if I64 in (a, b) else I32


def buffer_of(element: Type) -> Type:
    return {I32: BUF_I32, I64: BUF_I64, F32: BUF_F32}[element]


def local_of(element: Type) -> Type:
    return {I32: LOCAL_I32, I64: LOCAL_I64, F32: LOCAL_F32}[element]
