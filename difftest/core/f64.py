"""binary64 arithmetic as the semantics defines it (docs/semantics.md, "64-bit floats"),
in plain Python, with f32.py's interface: Python's float is binary64, so `+ - *` are
Python's own, correctly rounded; `fma` rounds the exact `a * b + c` (an integer over a
power of two) once (int / int true division rounds correctly, subnormals included). In
memory, registers and outcomes a value is its 64 bits as a signed integer, every NaN as
the one quiet NaN `NAN_BITS`.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import numpy.typing as npt

from .f32 import exact_fma, maximum, minimum  # noqa: F401 - the same rules at every width

#: the bits every NaN is stored as (the quiet NaN with no payload)
NAN_BITS = 0x7FF8000000000000
_PACK = struct.Struct("<d")
_BITS = struct.Struct("<q")


def rounded(x: float) -> float:
    """`x` as binary64: itself (a Python float is one)."""
    return x


def is_f64(x: float) -> bool:
    return True


def to_bits(x: float) -> int:
    """The value's 64 bits as a signed integer; every NaN is `NAN_BITS`."""
    if math.isnan(x):
        return NAN_BITS
    return _BITS.unpack(_PACK.pack(x))[0]


def from_bits(b: int) -> float:
    """The value of 64 bits (given signed or unsigned)."""
    return _PACK.unpack(_BITS.pack(((b + 2 ** 63) % 2 ** 64) - 2 ** 63))[0]


def canonical(b: int) -> int:
    """64 bits with any NaN made `NAN_BITS`: what outcomes compare."""
    return NAN_BITS if math.isnan(from_bits(b)) else ((b + 2 ** 63) % 2 ** 64) - 2 ** 63


def add(a: float, b: float) -> float:
    return a + b


def sub(a: float, b: float) -> float:
    return a - b


def mul(a: float, b: float) -> float:
    return a * b


def fma(a: float, b: float, c: float) -> float:
    """`a * b + c` rounded once."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c  # the product is an infinity or NaN exactly: IEEE's rules
    if not math.isfinite(c):
        # the exact product is finite, however far past the largest f64 (where a * b
        # would round to an infinity, and one of the other sign would make a NaN)
        return c
    num, exp = exact_fma(a, b, c)
    if num == 0:  # an exact zero: a * b is exact then, and IEEE's sign rules apply
        return a * b + c
    try:
        return num / (1 << -exp) if exp < 0 else float(num << exp)
    except OverflowError:
        return math.inf if num > 0 else -math.inf


def fma_lanes(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64],
              c: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """`fma` of each lane (binary64 has no wider format to round to odd in)."""
    out = [fma(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())]
    return np.array(out, dtype=np.float64)


def from_int(i: int) -> float:
    """`f64(i)`: the integer rounded to the nearest binary64, ties to even."""
    return float(i)


def shortest(x: float) -> str:
    """The shortest decimal that reads back as `x` ("0.1"; "nan", "inf", "-inf")."""
    return repr(x)


def written(x: float) -> bool:
    """Whether the number `x` read from a case's text names an f64 exactly: always."""
    return True
