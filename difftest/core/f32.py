"""binary32 arithmetic as the semantics defines it (docs/semantics.md, "32-bit floats"),
in plain Python: the oracle's, the case files' and the checker's one source of truth.

A value is a Python float that binary32 represents exactly (NaN, the infinities and -0.0
included). `+ - *` are computed in binary64 and rounded once to binary32, which is the
correctly rounded binary32 result (binary64 holds every exact product and, for a sum, a
result whose second rounding cannot differ: 53 >= 2 * 24 + 2). `fma` rounds the exact
`a * b + c` (an integer over a power of two) to binary32 directly; `fma_lanes`, the
oracle's, does it for a wave at once in binary64 rounded to odd, which binary32's
rounding then makes correct (Boldo and Melquiond: 53 >= 24 + 2). In memory, registers
and outcomes a value is its 32 bits as a signed integer, every NaN as the one quiet NaN
`NAN_BITS`: any NaN equals any NaN, and nothing else about a NaN is compared.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import numpy.typing as npt

#: the bits every NaN is stored as (the quiet NaN with no payload)
NAN_BITS = 0x7FC00000
#: the binary32 bounds `i32(x)` / `i64(x)` accept: -2^(w-1) <= x < 2^(w-1) (then truncated)
_INT_LIMIT = {32: 2.0 ** 31, 64: 2.0 ** 63}
_MAX = float.fromhex("0x1.fffffep127")  # the largest finite binary32
_PACK = struct.Struct("<f")
_BITS = struct.Struct("<i")


def rounded(x: float) -> float:
    """`x` rounded to the nearest binary32 (ties to even); past the largest, infinity."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return _PACK.unpack(_PACK.pack(x))[0]
    except OverflowError:  # struct refuses values that round past the largest finite
        return math.copysign(math.inf, x)


def is_f32(x: float) -> bool:
    """Whether binary32 holds `x` exactly (NaN and the infinities do)."""
    return math.isnan(x) or rounded(x) == x


def to_bits(x: float) -> int:
    """The value's 32 bits as a signed integer; every NaN is `NAN_BITS`."""
    if math.isnan(x):
        return NAN_BITS
    return _BITS.unpack(_PACK.pack(x))[0]


def from_bits(b: int) -> float:
    """The value of 32 bits (given signed or unsigned)."""
    return _PACK.unpack(_BITS.pack(((b + 2 ** 31) % 2 ** 32) - 2 ** 31))[0]


def canonical(b: int) -> int:
    """32 bits with any NaN made `NAN_BITS`: what outcomes compare."""
    return NAN_BITS if math.isnan(from_bits(b)) else ((b + 2 ** 31) % 2 ** 32) - 2 ** 31


def add(a: float, b: float) -> float:
    return rounded(a + b)


def sub(a: float, b: float) -> float:
    return rounded(a - b)


def mul(a: float, b: float) -> float:
    return rounded(a * b)


def fma(a: float, b: float, c: float) -> float:
    """`a * b + c` rounded once."""
    if not all(math.isfinite(v) for v in (a, b, c)):
        return rounded(a * b + c)  # binary64 gives IEEE's inf/NaN rules here
    num, exp = exact_fma(a, b, c)
    if num == 0:  # the sign of an exact zero: binary64 computes it exactly
        return a * b + c
    return _round_scaled(num, exp)


def exact_fma(a: float, b: float, c: float) -> tuple[int, int]:
    """The exact `a * b + c` of finite floats as `num * 2**exp` (every float is an
    integer over a power of two: no fractions, no common divisors to find)."""
    (na, da), (nb, db), (nc, dc) = (v.as_integer_ratio() for v in (a, b, c))
    den = da * db
    if den >= dc:
        num = na * nb + nc * (den // dc)
    else:
        num, den = na * nb * (dc // den) + nc, dc
    return num, 1 - den.bit_length()


def fma_lanes(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32],
              c: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """`fma` of each lane: the product is exact in binary64, the sum is rounded to odd
    (TwoSum's error says which way the exact value lies), and binary32's rounding of
    that is the correct rounding of the exact value (inf/NaN and exact zeros as
    binary64's `a * b + c`, as `fma` has them)."""
    with np.errstate(all="ignore"):
        p = a.astype(np.float64) * b.astype(np.float64)
        z = c.astype(np.float64)
        s = p + z
        back = s - p
        err = (p - (s - back)) + (z - back)
        even = (s.view(np.int64) & 1) == 0
        odd = np.isfinite(s) & (err != 0) & even  # s finite: p and z are, so err is
        s = np.where(odd, np.nextafter(s, np.copysign(np.inf, err)), s)
        return s.astype(np.float32)


def _round_scaled(num: int, exp: int) -> float:
    """The nonzero `num * 2**exp` rounded to binary32, ties to even (subnormals,
    overflow)."""
    sign = -1.0 if num < 0 else 1.0
    m = abs(num)
    e = m.bit_length() - 1 + exp  # 2^e <= |value| < 2^(e+1)
    # 24 significant bits, or fewer below the normal range
    quantum_exp = max(e, -126) - 23
    drop = quantum_exp - exp
    if drop <= 0:
        n = m << -drop
    else:
        n, rest = m >> drop, m & ((1 << drop) - 1)
        half = 1 << (drop - 1)
        if rest > half or (rest == half and n & 1):
            n += 1
    value = math.ldexp(n, quantum_exp)
    return sign * (math.inf if value > _MAX else value)


def minimum(a: float, b: float) -> float:
    """`min`: a NaN operand loses to a number; -0.0 is below +0.0."""
    return _pick(a, b, smaller=True)


def maximum(a: float, b: float) -> float:
    """`max`: a NaN operand loses to a number; +0.0 is above -0.0."""
    return _pick(a, b, smaller=False)


def _pick(a: float, b: float, smaller: bool) -> float:
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b:  # only zeros can differ: the one with the sign bit is the smaller
        return a if (math.copysign(1.0, a) < 0) == smaller else b
    return a if (a < b) == smaller else b


def from_int(i: int) -> float:
    """`f32(i)`: the integer rounded to the nearest binary32, ties to even."""
    if abs(i) < 2 ** 53:  # exact in binary64: one rounding
        return rounded(float(i))
    return _round_scaled(i, 0)


def to_int(x: float, bits: int) -> int | None:
    """`i32(x)` / `i64(x)`: truncated toward zero; None (a fault) for NaN and for values
    whose truncation the type does not hold."""
    limit = _INT_LIMIT[bits]
    if math.isnan(x) or not -limit <= x < limit:
        return None
    return int(x)


def shortest(x: float) -> str:
    """The shortest decimal that rounds to the binary32 `x` ("0.1", "1e-45"; "nan",
    "inf", "-inf"): what the kernel printer and case files write."""
    import numpy as np

    return str(np.float32(x))


def written(x: float) -> bool:
    """Whether the number `x` (as read from a kernel's or a case's text) names an f32
    exactly: it is one, or it is the shortest decimal of the one it rounds to."""
    if math.isnan(x) or math.isinf(x):
        return True
    r = rounded(x)
    return r == x or (not math.isinf(r) and float(shortest(r)) == x)
