"""`arguments(kernel, n)`: the arguments of a generated kernel for a launch of n workitems.

Driven by the kernel's `BufferSpec`s and `ScalarSpec`s (so it stays valid whatever the
kernel generator adds):
- "in" buffers: length n mostly, else 1, 8, n // 2 or n + 5 (and, only when a fault
  feature is on, sometimes 0); contents in one of five styles (the index itself, zeros,
  small values, edge values, full-range random) from a drawn seed, plus up to two
  planted edge values at drawn positions. Edge values are 0, +-1, MIN/MAX of the dtype
  and values near n, which make computed indices run off the end and divisors zero;
- "out" buffers: n * K long (one short, K short or half as long when out-of-bounds faults
  are on, so the last workitems' stores fault), filled with 0, -1, 7 or random values
  (read-modify-writes read them);
- "acc" buffers: 1..8 long (the kernel may loop over `len(acc)`), zeros or small values;
- scalars: within their spec's range, small values first.
Costs about a dozen choices per call. Shrinks toward length-n inputs holding their
index (`inp[i] == i`: readable, and a divisor read from it is zero for one workitem
only), nothing planted, zero-filled outputs and scalars 0 / False.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from difftest.core import f32, f64

from difftest.core.ir.types import DTYPES, int_range, storage

from .kernels import BufferSpec, GeneratedKernel, ScalarSpec, integers

#: the array type of each dtype's buffer (an f32 buffer holds bits; every integer type but
#: i32 is held in int64 in its storage form: difftest.core.case)
_NP = {name: (np.int32 if name in ("i32", "f32") else np.int64) for name in DTYPES}
_LIMITS = {name: int_range(t) for name, t in DTYPES.items() if t.is_int}
STYLES = ("iota", "zeros", "small", "edges", "random")

_SEED = st.integers(0, 2**32 - 1)


def edge_values(dtype: str, n: int) -> tuple[int, ...]:
    """Values that stress a kernel: zero divisors, sign edges, width edges, indices one
    past the end; for an unsigned type, the values either side of its sign bit's place
    (where a zero extension done as a sign extension shows), each in the type's range
    (values, not storage forms)."""
    lo, hi = _LIMITS[dtype]
    values: tuple[int, ...] = (0, 1, -1, 2, lo, hi, n, n - 1, n + 1, -n, 255, 256, lo + 1,
                               hi - 1, 3, -2)
    if dtype in ("i32", "i64"):
        return values
    ty = DTYPES[dtype]
    if not ty.signed:
        half = 1 << (ty.bits - 1)
        values += (half, half - 1, half + 1, 1 << (ty.bits - 2))
    return tuple(dict.fromkeys(v for v in values if lo <= v <= hi))


def _stored(values: Any, dtype: str) -> np.ndarray:
    """Values of integer type `dtype` as its buffer holds them."""
    ty = DTYPES[dtype]
    return np.array([storage(int(v), ty) for v in values], dtype=_NP[dtype])


def _random(rng: Any, dtype: str, length: int) -> np.ndarray:
    """Uniformly drawn values of `dtype`, in storage form."""
    lo, hi = _LIMITS[dtype]
    if dtype == "u64":
        return rng.integers(0, hi, length, dtype=np.uint64, endpoint=True).view(np.int64)
    return rng.integers(lo, hi, length, dtype=np.int64, endpoint=True).astype(_NP[dtype])


#: f32 values that stress float code: signed zeros, subnormals (the smallest, the
#: largest), the smallest normal, the largest finite, infinities, NaN, ties, and the
#: edges of the integer conversions (the largest f32 below 2^31, 2^31 itself, -2^31 and
#: the next below it, 2^63)
F32_EDGES = (0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e-45, -1e-45, 1.1754942e-38,
             1.1754944e-38, 3.4028235e38, -3.4028235e38, float("inf"), float("-inf"),
             float("nan"), 2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0,
             16777216.0, 9.223372e18, 0.1, 1e30)


#: f64 values that stress double code: as F32_EDGES, at binary64's own limits (subnormals,
#: the smallest normal, the largest finite, 2^53 and past it, the largest double below
#: 2^31 and 2^63, -2^31 - 0.5 which truncates into i32), and binary32's (its largest
#: finite, the first double that rounds past it, a double that f32 rounds to a tie)
F64_EDGES = (0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 5e-324, -5e-324, 2.2250738585072014e-308,
             2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308,
             float("inf"), float("-inf"), float("nan"), 2147483647.9999998, 2147483648.0,
             -2147483648.0, -2147483648.5, -2147483649.0, 9007199254740992.0,
             9007199254740994.0, 9.223372036854775e18, 9.223372036854776e18, 0.1, 1e300,
             3.4028234663852886e38, 3.4028235677973366e38, 16777217.0, 1e-40, 1e-320)


def _float_bits(values: Any, wide: bool = False) -> np.ndarray:
    """Float values as a buffer holds them (their bits; every NaN the one quiet NaN):
    f32s, or f64s where `wide`."""
    if wide:
        return np.array([f64.to_bits(float(v)) for v in values], dtype=np.int64)
    return np.array([f32.to_bits(f32.rounded(float(v))) for v in values], dtype=np.int32)


def _float_input(draw: st.DrawFn, pick: Any, length: int, style: str, wide: bool = False
               ) -> np.ndarray:
    edges = F64_EDGES if wide else F32_EDGES
    if style == "zeros" or length == 0:
        return np.zeros(length, dtype=np.int64 if wide else np.int32)
    if style == "iota":
        return _float_bits(range(length), wide)
    rng = np.random.default_rng(draw(_SEED))
    if style == "small":  # quarters: exact, with ties to round
        data = _float_bits(rng.integers(-16, 33, length) / 4, wide)
    elif style == "edges":  # mostly small, one in four an edge value
        data = _float_bits(rng.integers(-16, 33, length) / 4, wide)
        mask = rng.random(length) < 0.25
        data[mask] = _float_bits(rng.choice(np.array(edges), int(mask.sum())), wide)
    elif wide:  # any bits: every exponent, NaNs made the one NaN
        data = _float_bits(rng.integers(-(2**63), 2**63 - 1, length, dtype=np.int64,
                                      endpoint=True).view(np.float64), wide)
    else:
        data = _float_bits(rng.integers(-(2**31), 2**31, length).astype(np.int32)
                         .view(np.float32))
    for _ in range(pick((0, 1, 2))):
        data[draw(integers(0, length - 1))] = _float_bits([pick(edges)], wide)[0]
    return data


def arguments(kernel: GeneratedKernel, n: int) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for `kernel` at launch size `n` (see the module docstring): a dict from
    parameter name to a numpy array (int32/int64, per the buffer's spec) or an int/bool,
    as `difftest.core.case.Case.args` holds them."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"Invalid n={n!r} < 1")
    return _arguments(kernel, n)


@st.composite
def _arguments(draw: st.DrawFn, kernel: GeneratedKernel, n: int) -> dict[str, Any]:
    def pick(seq: tuple[Any, ...]) -> Any:
        return seq[0] if len(seq) == 1 else seq[draw(integers(0, len(seq) - 1))]

    faults = kernel.faults
    args: dict[str, Any] = {}
    for b in kernel.buffers:
        if b.role == "in":
            args[b.name] = _input(draw, pick, b, n, bool(faults & {"fault_oob", "fault_div"}))
        elif b.role == "out":
            args[b.name] = _output(draw, pick, b, n, "fault_oob" in faults)
        elif b.role == "list":  # slots handed out by a counter: some runs fill it
            args[b.name] = np.full(pick((16, n, 4, 64)), pick((0, -1)), dtype=_NP[b.dtype])
        else:
            length = pick((1, 2, 4, 8, 3))
            fill = pick(("zeros", "small"))
            if fill == "zeros":
                args[b.name] = np.zeros(length, dtype=_NP[b.dtype])
            else:
                rng = np.random.default_rng(draw(_SEED))
                low = 0 if b.dtype.startswith("u") else -5  # an unsigned one: no negatives
                args[b.name] = rng.integers(low, 6, length).astype(_NP[b.dtype])
    for s in kernel.scalars:
        args[s.name] = _scalar(pick, s, n)
    return args


def _input(draw: st.DrawFn, pick: Any, b: BufferSpec, n: int, may_fault: bool
           ) -> np.ndarray:
    lengths: tuple[int, ...] = (n, 1, 8, max(1, n // 2), n + 5)
    if may_fault:
        lengths += (0,)
    length = pick(lengths)
    style = pick(STYLES)
    if b.dtype in ("f32", "f64"):
        return _float_input(draw, pick, length, style, wide=b.dtype == "f64")
    dtype = _NP[b.dtype]
    lo, hi = _LIMITS[b.dtype]
    small = (-4, 9) if lo < 0 else (0, 13)  # an unsigned type has no negatives
    if style == "zeros" or length == 0:
        data = np.zeros(length, dtype=dtype)
    elif style == "iota":
        data = (np.arange(length, dtype=dtype) if b.dtype in ("i32", "i64")
                else _stored([i & min(hi, 2**62) for i in range(length)], b.dtype))
    else:
        rng = np.random.default_rng(draw(_SEED))
        if style == "small":
            data = rng.integers(*small, length).astype(dtype)
        elif style == "edges":
            # Mostly small values, one in four an edge value.
            edges = _stored(edge_values(b.dtype, n), b.dtype)
            data = rng.integers(*small, length).astype(dtype)
            mask = rng.random(length) < 0.25
            data[mask] = rng.choice(edges, int(mask.sum()))
        elif b.dtype in ("i32", "i64"):
            data = rng.integers(lo, hi, length, dtype=dtype, endpoint=True)
        else:
            data = _random(rng, b.dtype, length)
    if length:
        # Planted values: how a shrunk case says "all zeros except inp[5] = -1".
        for _ in range(pick((0, 1, 2))):
            value = pick(edge_values(b.dtype, n))
            data[draw(integers(0, length - 1))] = storage(value, DTYPES[b.dtype])
    return data


def _output(draw: st.DrawFn, pick: Any, b: BufferSpec, n: int, may_fault: bool
            ) -> np.ndarray:
    full = n * b.slots
    length = full
    if may_fault:
        length = pick((full, full - 1, full - b.slots, full // 2, full))
    dtype = _NP[b.dtype]
    fill = pick(("zeros", "minus_one", "seven", "random"))
    if fill == "random":
        rng = np.random.default_rng(draw(_SEED))
        data = rng.integers(-100, 101, length)
        if b.dtype in ("f32", "f64"):
            return _float_bits(data / 8, wide=b.dtype == "f64")
        if b.dtype not in ("i32", "i64"):  # into the type's range, as storage forms
            lo, hi = _LIMITS[b.dtype]
            return _stored([lo + (int(v) - lo) % (hi - lo + 1) for v in data], b.dtype)
        return data.astype(dtype)
    value = {"zeros": 0, "minus_one": -1, "seven": 7}[fill]
    if b.dtype in ("f32", "f64"):
        return _float_bits([float(value)] * length, wide=b.dtype == "f64")
    if value < 0 and not DTYPES[b.dtype].signed:  # all ones, in an unsigned type
        return np.full(length, storage(_LIMITS[b.dtype][1], DTYPES[b.dtype]), dtype=dtype)
    return np.full(length, value, dtype=dtype)


def _scalar(pick: Any, s: ScalarSpec, n: int) -> int | bool:
    if s.type == "bool":
        return bool(pick((False, True)))
    lo, hi = s.lo, s.hi
    if hi - lo <= 64:
        # Small ranges (loop bounds): 0 first, then outward.
        values = tuple(sorted(range(lo, hi + 1), key=lambda v: (abs(v), v < 0)))
        return int(pick(values))
    if s.type in ("i32", "i64"):
        candidates = tuple(v for v in (0, 1, -1, 2, n, -n, 7, lo, hi, 2**31, -(2**31) - 1)
                           if lo <= v <= hi)
        return int(pick(candidates))
    return storage(int(pick(edge_values(s.type, n))), DTYPES[s.type])
