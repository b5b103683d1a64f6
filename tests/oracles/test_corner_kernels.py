"""Whole kernels at the corners of the integer types, bit operations, f64 and private
arrays (docs/semantics.md), each buffer's final values worked out by hand from the
semantics: conversions that truncate and extend by the source's signedness, shift amounts
masked to the type's width, narrow and unsigned wave operations (in a `match` case's
lanes), a u64 moved whole by a shuffle, f64 rounding and `fma`'s single rounding, and
faults of conversions that do not fit. The reference must compute exactly these, and
numba-simt must agree with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from difftest.app.cli import main
from difftest.core import f64
from difftest.core.ir.types import DTYPES, value_of
from difftest.core.kernelfile import load_case
from oracles.reference import run_full

U64_MAX = (1 << 64) - 1

CONVERSIONS = """\
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-1, 300, -129, 65535]
# difftest: arg o8 = i8[0] * 8
# difftest: arg ou16 = u16[0] * 8
# difftest: arg o64 = u64[0] * 8
# difftest: arg oi = i32[0] * 12
def conv(x: Buffer[i32], o8: Buffer[i8], ou16: Buffer[u16], o64: Buffer[u64],
         oi: Buffer[i32]):
    g = gid()
    v = x[g]
    o8[g] = i8(v)
    o8[g + 4] = i8(v) // i8(-1)
    ou16[g] = u16(v)
    ou16[g + 4] = u16(v) >> 15
    o64[g] = u64(v)
    o64[g + 4] = u64(u32(v))
    oi[g] = i32(i16(v) >> i16(20))
    oi[g + 4] = i32(popcount(i8(v)))
    oi[g + 8] = i32(clz(u16(v)))
"""

BITS = """\
# difftest: launch n=4 wave=4
# difftest: arg a = i8[-128, -1, 1, 100]
# difftest: arg b = u16[0, 1, 32768, 65535]
# difftest: arg r = i32[0] * 32
def bits(a: Buffer[i8], b: Buffer[u16], r: Buffer[i32]):
    g = gid()
    x = a[g]
    y = b[g]
    r[g] = i32(abs(x))
    r[g + 4] = i32(mul_hi(x, x))
    r[g + 8] = i32(bit_reverse(y))
    r[g + 12] = i32(rotate_left(y, i32(-1)))
    r[g + 16] = i32(ctz(y))
    r[g + 20] = i32(clz(x))
    r[g + 24] = i32(wave_max(y))
    r[g + 28] = i32(wave_sum(x))
"""

UNSIGNED_WAVES = """\
# difftest: launch n=4 wave=4
# difftest: arg w = u64[18446744073709551615, 9223372036854775808, 9007199254740993, 1]
# difftest: arg s = u8[1, 9, 255, 128]
# difftest: arg r = u64[0] * 16
# difftest: arg f = f64[0] * 4
# difftest: arg b = u8[0] * 12
def edge(w: Buffer[u64], s: Buffer[u8], r: Buffer[u64], f: Buffer[f64], b: Buffer[u8]):
    g = gid()
    x = w[g]
    y = s[g]
    r[g] = shuffle(x, (lane() + 1) % 4)
    r[g + 4] = wave_min(x)
    r[g + 8] = min(x, u64(1)) + max(x, u64(1))
    f[g] = f64(x)
    b[g] = y << u8(9)
    b[g + 4] = -y
    match y:
        case 255:
            b[g + 8] = u8(1)
        case 128 | 9:
            b[g + 8] = wave_sum(y)
        case _:
            b[g + 8] = u8(7)
    r[g + 12] = u64(f64(x))
"""

DOUBLES = """\
# difftest: launch n=4 wave=4
# difftest: arg d = f64[0.1, -0.0, 1e308, 4294967295.5]
# difftest: arg o = f64[0] * 8
# difftest: arg u = u32[0] * 4
def dbl(d: Buffer[f64], o: Buffer[f64], u: Buffer[u32]):
    g = gid()
    p: Array[f64, 4]
    p[g] = d[g] * f64(3.0)
    o[g] = p[g] + p[(g + 1) % 4]
    o[g + 4] = fma(d[g], d[g], -(d[g] * d[g]))
    u[g] = u32(d[g])
"""

INF = float("inf")

# (kernel, {buffer: (element type, values)}, {workitem: fault kind})
KERNELS: dict[str, tuple[str, dict[str, tuple[str, list[Any]]], dict[int, str]]] = {
    "conversions": (CONVERSIONS, {
        "o8": ("i8", [-1, 44, 127, -1,     # the low 8 bits, read as i8
                      1, -44, -127, 1]),   # i8 // -1
        "ou16": ("u16", [65535, 300, 65407, 65535,
                         1, 0, 1, 1]),     # >> 15 of a u16 is logical
        "o64": ("u64", [U64_MAX, 300, U64_MAX - 128, 65535,  # i32 sign-extended
                        4294967295, 300, 4294967167, 65535]),  # u32 zero-extended
        # i16 >> 20 shifts by 20 & 15 = 4, arithmetically: -129 >> 4 is -9
        "oi": ("i32", [-1, 18, -9, -1,
                       8, 3, 7, 8,         # popcount of the 8 bits: 0xFF, 44, 127, 0xFF
                       0, 7, 0, 0]),       # clz of the 16 bits: 300 is 0x012C
    }, {}),
    "bits": (BITS, {
        "r": ("i32", [-128, 1, 1, 100,     # abs(i8 MIN) is MIN
                      64, 0, 0, 39,        # high 8 bits of 16384, 1, 1, 10000 (0x2710)
                      0, 32768, 1, 65535,  # the 16 bits reversed
                      0, 32768, 16384, 65535,  # rotated left by -1 mod 16 = 15
                      16, 0, 15, 0,        # ctz of a u16: 16 for 0
                      0, 0, 7, 1,          # clz of an i8's 8 bits
                      65535, 65535, 65535, 65535,  # wave_max of a u16: unsigned
                      -28, -28, -28, -28]),  # wave_sum of the i8s
    }, {}),
    "unsigned waves": (UNSIGNED_WAVES, {
        "r": ("u64", [1 << 63, 9007199254740993, 1, U64_MAX,  # the next lane's, whole
                      1, 1, 1, 1,          # the unsigned minimum
                      0, (1 << 63) + 1, 9007199254740994, 2,  # x + 1, 2^64 - 1 wraps
                      0, 1 << 63, 9007199254740992, 1]),  # f64(2^64 - 1) is 2^64: faults
        "f": ("f64", [float(1 << 64), float(1 << 63), 9007199254740992.0, 1.0]),  # to even
        "b": ("u8", [2, 18, 254, 0,        # << 9 shifts by 9 & 7 = 1
                     255, 247, 1, 128,     # -y wraps at 8 bits
                     7, 137, 1, 137]),     # the case of 9 and 128: 9 + 128 in both
    }, {0: "invalid_conversion"}),
    "doubles": (DOUBLES, {
        # p holds zeros but p[g]: p[g] + 0.0 (-0.0 + 0.0 is +0.0)
        "o": ("f64", [0.30000000000000004, 0.0, INF, 12884901886.5,
                      # fma(d, d, -(d * d)): the square's rounding error, exactly
                      -8.326672684688674e-19, 0.0, -INF, 0.25]),
        "u": ("u32", [0, 0, 0, 4294967295]),  # truncated; 1e308 does not fit a u32
    }, {2: "invalid_conversion"}),
}


def _written(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name.replace(' ', '_')}.py"
    path.write_text(KERNELS[name][0])
    return path


@pytest.mark.parametrize("name", list(KERNELS))
def test_the_reference_computes_the_corner_kernel_as_worked_out_by_hand(
        name: str, tmp_path: Path) -> None:
    _, buffers, faults = KERNELS[name]
    run = run_full(load_case(_written(tmp_path, name)))
    assert {g: f.kind for g, f in enumerate(run.fates) if f is not None} == faults
    for buf, (ty, want) in buffers.items():
        got = [int(v) for v in run.final[buf]]
        if ty == "f64":  # bits compared: -0.0 is not 0.0
            assert got == [f64.to_bits(w) for w in want], (buf, [f64.from_bits(v) for v in got])
        else:
            assert [value_of(v, DTYPES[ty]) for v in got] == want, buf


@pytest.mark.parametrize("name", list(KERNELS))
def test_numba_simt_agrees_on_the_corner_kernel(name: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(_written(tmp_path, name)), "--target", "numba-simt"]) == 0
    assert "agree on numba-simt" in capsys.readouterr().out
