"""The kernel language's value types.

Integer types of every width and signedness a GPU language has (i8, i16, i32, i64, u8,
u16, u32, u64), f32, f64 and bool as scalars; a buffer reference type and a workgroup-array
type for each number type. An integer's *value* is a Python int in its type's range
(0..2^64-1 for u64); everywhere a value is stored -- the oracle's arrays, case files'
buffers once loaded, targets' 64-bit registers, status rows -- it is held in its
*storage form* (`storage`): its 64 bits read as a signed int64, which is the value itself
for every type but a u64 of 2^63 or more (widening a value to a wider type of the same
signedness never changes it; the value of a stored word is `value_of`). An `f32` is IEEE
binary32 (docs/semantics.md, "32-bit floats"): the oracle holds it as a Python float that
binary32 represents exactly, memory and registers as its 32 bits (a signed 32-bit
integer); an `f64` is IEEE binary64 ("64-bit floats"), held as its 64 bits (an int64).
Floats never mix with integers or with each other implicitly, and integers of different signedness
never mix implicitly either (docs/semantics.md, "Integer types"). A workgroup array
(`Local[i32, 64]`) is no value: it is read and written like a buffer, but never
assigned, passed or returned.

Each member carries plain attributes (`bits`, `is_int`, `signed`, ...), read millions of
times in a fuzz campaign: an attribute, not a property, and no Enum lookup.
"""

from __future__ import annotations

import enum


class Type(enum.Enum):
    I8 = "i8"
    I16 = "i16"
    I32 = "i32"
    I64 = "i64"
    U8 = "u8"
    U16 = "u16"
    U32 = "u32"
    U64 = "u64"
    F32 = "f32"
    F64 = "f64"
    BOOL = "bool"
    BUF_I8 = "Buffer[i8]"
    BUF_I16 = "Buffer[i16]"
    BUF_I32 = "Buffer[i32]"
    BUF_I64 = "Buffer[i64]"
    BUF_U8 = "Buffer[u8]"
    BUF_U16 = "Buffer[u16]"
    BUF_U32 = "Buffer[u32]"
    BUF_U64 = "Buffer[u64]"
    BUF_F32 = "Buffer[f32]"
    BUF_F64 = "Buffer[f64]"
    LOCAL_I8 = "Local[i8]"
    LOCAL_I16 = "Local[i16]"
    LOCAL_I32 = "Local[i32]"
    LOCAL_I64 = "Local[i64]"
    LOCAL_U8 = "Local[u8]"
    LOCAL_U16 = "Local[u16]"
    LOCAL_U32 = "Local[u32]"
    LOCAL_U64 = "Local[u64]"
    LOCAL_F32 = "Local[f32]"
    LOCAL_F64 = "Local[f64]"
    ARRAY_I8 = "Array[i8]"
    ARRAY_I16 = "Array[i16]"
    ARRAY_I32 = "Array[i32]"
    ARRAY_I64 = "Array[i64]"
    ARRAY_U8 = "Array[u8]"
    ARRAY_U16 = "Array[u16]"
    ARRAY_U32 = "Array[u32]"
    ARRAY_U64 = "Array[u64]"
    ARRAY_F32 = "Array[f32]"
    ARRAY_F64 = "Array[f64]"

    # attributes of every member, set below the class
    is_int: bool      # an integer type
    is_float: bool    # f32 or f64
    signed: bool      # a signed integer type (floats count as signed; bool and refs not)
    bits: int         # the width of a value in memory and registers (0: no number)
    is_number: bool   # an integer or a float: what arithmetic, comparisons and select take
    is_buffer: bool
    is_local: bool
    is_private: bool  # a private array (`a: Array[i32, 8]`): one per workitem
    element: Type     # a buffer's or array's element type (itself otherwise)

    def __str__(self) -> str:
        return self.value


I8, I16, I32, I64 = Type.I8, Type.I16, Type.I32, Type.I64
U8, U16, U32, U64 = Type.U8, Type.U16, Type.U32, Type.U64
F32, F64, BOOL = Type.F32, Type.F64, Type.BOOL
BUF_I8, BUF_I16, BUF_I32, BUF_I64 = Type.BUF_I8, Type.BUF_I16, Type.BUF_I32, Type.BUF_I64
BUF_U8, BUF_U16, BUF_U32, BUF_U64 = Type.BUF_U8, Type.BUF_U16, Type.BUF_U32, Type.BUF_U64
BUF_F32, BUF_F64 = Type.BUF_F32, Type.BUF_F64
LOCAL_I8, LOCAL_I16, LOCAL_I32 = Type.LOCAL_I8, Type.LOCAL_I16, Type.LOCAL_I32
LOCAL_I64, LOCAL_U8, LOCAL_U16 = Type.LOCAL_I64, Type.LOCAL_U8, Type.LOCAL_U16
LOCAL_U32, LOCAL_U64, LOCAL_F32 = Type.LOCAL_U32, Type.LOCAL_U64, Type.LOCAL_F32
LOCAL_F64 = Type.LOCAL_F64

#: the integer types, narrowest first, signed before unsigned
INTS = (I8, I16, I32, I64, U8, U16, U32, U64)
SIGNED_INTS = (I8, I16, I32, I64)
UNSIGNED_INTS = (U8, U16, U32, U64)
#: the float types
FLOATS = (F32, F64)
#: the element types of buffers and workgroup arrays
ELEMENTS = INTS + FLOATS
_BUFFERS = {e: Type(f"Buffer[{e.value}]") for e in ELEMENTS}
_LOCALS = {e: Type(f"Local[{e.value}]") for e in ELEMENTS}
_ARRAYS = {e: Type(f"Array[{e.value}]") for e in ELEMENTS}
_BITS = {I8: 8, I16: 16, I32: 32, I64: 64, U8: 8, U16: 16, U32: 32, U64: 64, F32: 32, F64: 64}

for _t in Type:
    _t.is_int = _t in INTS
    _t.is_float = _t in FLOATS
    _t.signed = _t in SIGNED_INTS or _t in FLOATS
    _t.bits = _BITS.get(_t, 0)
    _t.is_number = _t in _BITS
    _t.is_buffer = _t in _BUFFERS.values()
    _t.is_local = _t in _LOCALS.values()
    _t.is_private = _t in _ARRAYS.values()
    _t.element = _t
for _e, _b in _BUFFERS.items():
    _b.element = _e
for _e, _b in _LOCALS.items():
    _b.element = _e
for _e, _b in _ARRAYS.items():
    _b.element = _e
del _t, _e, _b

#: dtype names used in case files and annotations, mapped to element types
DTYPES: dict[str, Type] = {t.value: t for t in ELEMENTS}
#: the integer type of each (bits, signed)
BY_WIDTH = {(t.bits, t.signed): t for t in INTS}


def int_range(ty: Type) -> tuple[int, int]:
    """Inclusive bounds of an integer type's values."""
    if ty.signed:
        half = 1 << (ty.bits - 1)
        return -half, half - 1
    return 0, (1 << ty.bits) - 1


def widest(a: Type, b: Type) -> Type:
    """The type of an arithmetic on two integer operands of one signedness: the wider
    (i32 and i64 give i64; docs/semantics.md). Mixed signedness is the checker's error."""
    assert a.signed == b.signed, f"{a} and {b} mix signedness"
    return a if a.bits >= b.bits else b


def storage(value: int, ty: Type) -> int:
    """A value of integer type `ty` as every store holds it: its 64 bits as an int64
    (the value itself but for a u64 of 2^63 or more)."""
    return value - (1 << 64) if ty is U64 and value >= 1 << 63 else value


def value_of(stored: int, ty: Type) -> int:
    """The value of type `ty` a stored int64 word holds (storage's inverse)."""
    return stored + (1 << 64) if ty is U64 and stored < 0 else stored


def buffer_of(element: Type) -> Type:
    return _BUFFERS[element]


def local_of(element: Type) -> Type:
    return _LOCALS[element]


def private_of(element: Type) -> Type:
    return _ARRAYS[element]
