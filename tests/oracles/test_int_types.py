"""Every integer type's arithmetic, comparisons and conversions (docs/semantics.md,
"Integer types"), against values worked out by hand: each row is one expression of
typed scalar arguments, stored into a one-element buffer of the result's type. The
same table runs on every target that declares the types it uses
(tests/real_targets/test_int_types_targets.py), so it is written as kernel files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from difftest.core.kernelfile import load_case
from difftest.core.ir.types import DTYPES, F32, INTS, storage, value_of
from oracles.reference import _wrap, run_full

U64_MAX = (1 << 64) - 1

# (expression, the result's type, {argument: (type, value)}, expected value or a fault)
ROWS: list[tuple[str, str, dict[str, tuple[str, Any]], Any]] = [
    # u8: wraps at 8 bits, zero-extended; a literal is u8 where it meets one
    ("x + 10", "u8", {"x": ("u8", 250)}, 4),
    ("x - 1", "u8", {"x": ("u8", 0)}, 255),
    ("x * x", "u8", {"x": ("u8", 16)}, 0),
    ("x // 7", "u8", {"x": ("u8", 200)}, 28),
    ("x % 7", "u8", {"x": ("u8", 200)}, 4),
    ("~x", "u8", {"x": ("u8", 0)}, 255),
    ("-x", "u8", {"x": ("u8", 1)}, 255),
    ("x << 9", "u8", {"x": ("u8", 1)}, 2),      # the amount masked to 8 bits: 1
    ("x >> 7", "u8", {"x": ("u8", 128)}, 1),    # logical
    # i8: wraps at 8 bits, sign-extended
    ("x + 1", "i8", {"x": ("i8", 127)}, -128),
    ("x // y", "i8", {"x": ("i8", -128), "y": ("i8", -1)}, -128),
    ("x % y", "i8", {"x": ("i8", -128), "y": ("i8", -1)}, 0),
    ("x // 2", "i8", {"x": ("i8", -7)}, -3),    # truncating
    ("x % 2", "i8", {"x": ("i8", -7)}, -1),
    ("x >> 7", "i8", {"x": ("i8", -128)}, -1),  # arithmetic
    ("x << 7", "i8", {"x": ("i8", 1)}, -128),
    # 16 bits
    ("x + 1", "u16", {"x": ("u16", 65535)}, 0),
    ("x + 1", "i16", {"x": ("i16", 32767)}, -32768),
    ("x * y", "i16", {"x": ("i16", 300), "y": ("i16", 300)}, 90000 - 65536),
    ("x * y", "i16", {"x": ("i16", 200), "y": ("i16", 200)}, 40000 - 65536),
    # u32
    ("x - 1", "u32", {"x": ("u32", 0)}, 4294967295),
    ("x // 2", "u32", {"x": ("u32", 4294967295)}, 2147483647),
    ("x >> 31", "u32", {"x": ("u32", 2147483648)}, 1),
    ("x * x", "u32", {"x": ("u32", 65536)}, 0),
    ("x % y", "u32", {"x": ("u32", 4294967295), "y": ("u32", 10)}, 5),
    # u64
    ("x - 1", "u64", {"x": ("u64", 0)}, U64_MAX),
    ("x // 3", "u64", {"x": ("u64", U64_MAX)}, U64_MAX // 3),
    ("x % 10", "u64", {"x": ("u64", U64_MAX)}, 5),
    ("x >> 63", "u64", {"x": ("u64", 1 << 63)}, 1),
    ("x // y", "u64", {"x": ("u64", 1 << 63), "y": ("u64", U64_MAX)}, 0),
    ("x // y", "u64", {"x": ("u64", U64_MAX), "y": ("u64", U64_MAX)}, 1),
    ("x * x", "u64", {"x": ("u64", 1 << 32)}, 0),
    ("x + 18446744073709551615", "u64", {"x": ("u64", 5)}, 4),  # a literal past i64
    # a literal past i64 is a u64 value: a literal it meets takes u64 where it fits
    ("18446744073709551615 >> 63", "u64", {}, 1),
    ("18446744073709551615 % 10", "u64", {}, 5),
    ("9223372036854775808 - 1", "u64", {}, 2**63 - 1),
    ("u64(18446744073709551615) // x", "u64", {"x": ("u64", 2)}, U64_MAX // 2),
    ("u32(1) if x == 9223372036854775808 else u32(0)", "u32", {"x": ("u64", 1 << 63)}, 1),
    # unsigned comparisons (1 true, 0 false)
    ("u32(1) if x > 0 else u32(0)", "u32", {"x": ("u32", 4294967295)}, 1),
    ("u32(1) if x > y else u32(0)", "u32", {"x": ("u64", U64_MAX), "y": ("u64", 1)}, 1),
    ("u32(1) if x < y else u32(0)", "u32", {"x": ("u64", 1 << 63), "y": ("u64", (1 << 63) + 1)}, 1),
    ("u32(1) if x >= y else u32(0)", "u32", {"x": ("u64", 1), "y": ("u64", 1 << 63)}, 0),
    ("u32(1) if x < 200 else u32(0)", "u32", {"x": ("u8", 255)}, 0),
    # mixed widths of one signedness widen
    ("x + y", "u32", {"x": ("u8", 255), "y": ("u32", 1)}, 256),
    ("x + y", "i32", {"x": ("i8", -1), "y": ("i32", 1)}, 0),
    # conversions: truncate, then extend by the source's signedness
    ("i64(x)", "i64", {"x": ("u32", 4294967295)}, 4294967295),
    ("i64(x)", "i64", {"x": ("i32", -1)}, -1),
    ("u64(x)", "u64", {"x": ("i32", -1)}, U64_MAX),
    ("i32(x)", "i32", {"x": ("u64", U64_MAX)}, -1),
    ("u8(x)", "u8", {"x": ("i32", 300)}, 44),
    ("i8(x)", "i8", {"x": ("u8", 200)}, -56),
    ("u32(x)", "u32", {"x": ("i8", -1)}, 4294967295),
    ("u16(x)", "u16", {"x": ("i64", -1)}, 65535),
    ("i16(x)", "i16", {"x": ("u64", 1 << 63)}, 0),
    # to and from f32
    ("f32(x)", "f32", {"x": ("u64", U64_MAX)}, 2.0 ** 64),
    ("f32(x)", "f32", {"x": ("u32", 4294967295)}, 2.0 ** 32),
    ("f32(x)", "f32", {"x": ("i8", -128)}, -128.0),
    ("u8(x)", "u8", {"x": ("f32", 255.75)}, 255),
    ("u8(x)", "u8", {"x": ("f32", -0.5)}, 0),
    ("u8(x)", "u8", {"x": ("f32", 256.0)}, "invalid_conversion"),
    ("u8(x)", "u8", {"x": ("f32", -1.0)}, "invalid_conversion"),
    ("i8(x)", "i8", {"x": ("f32", -128.5)}, -128),
    ("i8(x)", "i8", {"x": ("f32", 127.5)}, 127),
    ("i8(x)", "i8", {"x": ("f32", 128.0)}, "invalid_conversion"),
    ("u64(x)", "u64", {"x": ("f32", 2.0 ** 63)}, 1 << 63),
    ("u64(x)", "u64", {"x": ("f32", 2.0 ** 64)}, "invalid_conversion"),
    ("u32(x)", "u32", {"x": ("f32", float("nan"))}, "invalid_conversion"),
    # division by zero faults for every type
    ("x // y", "u8", {"x": ("u8", 1), "y": ("u8", 0)}, "division_by_zero"),
    ("x % y", "u64", {"x": ("u64", 1), "y": ("u64", 0)}, "division_by_zero"),
]


def _spell(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return str(value)


def kernel_file(folder: Path, k: int, expr: str, result: str,
                args: dict[str, tuple[str, Any]], length: int = 1) -> Path:
    """The row as a kernel file: out[0] = expr, the arguments as scalars."""
    params = "".join(f", {name}: {ty}" for name, (ty, _) in args.items())
    lines = ["# difftest: launch n=1 wave=1",
             f"# difftest: arg out = {result}[0]" + (f" * {length}" if length > 1 else "")]
    lines += [f"# difftest: arg {name} = {_spell(v)}" for name, (_, v) in args.items()]
    lines += [f"def kernel(out: Buffer[{result}]{params}):", f"    out[0] = {expr}", ""]
    path = folder / f"row{k}.py"
    path.write_text("\n".join(lines))
    return path


def expected_out(result: str, want: Any) -> Any:
    return want


@pytest.mark.parametrize("k", range(len(ROWS)), ids=[r[0] + " " + r[1] for r in ROWS])
def test_the_reference_computes_each_integer_type_as_the_semantics_says(
        k: int, tmp_path: Path) -> None:
    expr, result, args, want = ROWS[k]
    case = load_case(kernel_file(tmp_path, k, expr, result, args))
    run = run_full(case)
    fates = run.fates
    if isinstance(want, str):
        assert fates[0] is not None and fates[0].kind == want, fates[0]
        return
    assert fates[0] is None, fates[0]
    out = int(run.final["out"][0])
    if result == "f32":
        from difftest.core import f32

        assert f32.from_bits(out) == want
    else:
        assert value_of(out, DTYPES[result]) == want


@given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1), min_size=1, max_size=70))
def test_wrapping_keeps_each_types_low_bits(values: list[int]) -> None:
    # the oracle's canonical form of an int64 result in each integer type: its low
    # `bits` bits read as the type's value (two's complement for a signed type), held in
    # storage form (a u64 of 2^63 or more as the negative int64 of the same bits); an
    # f32's bits (a host program's write to an f32 buffer) as an i32's
    for ty in (*INTS, F32):
        got = _wrap(np.array(values, dtype=np.int64), ty)
        want = []
        for v in values:
            low = v % (1 << ty.bits)
            if ty.signed and low >= 1 << (ty.bits - 1):
                low -= 1 << ty.bits
            want.append(low if ty is F32 else storage(low, ty))
        assert got.dtype == np.int64 and got.tolist() == want, ty


@pytest.mark.parametrize("k", range(len(ROWS)), ids=[r[0] + " " + r[1] for r in ROWS])
def test_numba_simt_agrees_on_each_integer_type(k: int, tmp_path: Path) -> None:
    """The same rows on numba-simt, through its compiler, machine and (for the rows that
    fault) the host's replay: the checker's verdict, against the oracle."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    expr, result, args, want = ROWS[k]
    case = load_case(kernel_file(tmp_path, k, expr, result, args))
    target = load_target("numba-simt")
    for options in ({}, {"registers": 4}, {"uniform_writes": "active"}):
        verdict = check_case(case, target, {}, options).verdict
        assert verdict.agree and not verdict.unchecked, (options, str(verdict))


# range() of each integer type near its limits: b - a trips where a < b (the values
# compared as what they are), none otherwise; the loop variable holds the last.
LOOPS = """\
# difftest: launch n=1 wave=1
# difftest: arg lo = u64[9223372036854775807]
# difftest: arg o = i32[0] * 7
# difftest: arg last = u64[0] * 2
def k(lo: Buffer[u64], o: Buffer[i32], last: Buffer[u64]):
    a = lo[0]
    n = 0
    j: u64 = 0
    for j in range(a, a + 2):
        n = n + 1
    o[0] = n
    last[0] = j
    m = 0
    for q in range(a + 4, a - 9223372036854775805):
        m = m + 1
        if m > 5:
            break
    o[1] = m
    s: u32 = 0
    w: u32 = 0
    for w in range(u32(4294967293), u32(4294967295)):
        s = s + (w - 4294967290)
    o[2] = i32(s)
    last[1] = u64(w)
    t = 0
    for p in range(u32(4294967295), u32(0)):
        t = t + 1
    o[3] = t
    x = 0
    for r in range(i8(-128), i8(-125)):
        x = x + r
    o[4] = x
    y: u32 = 0
    for z in range(u8(250), u8(255)):
        y = y + z
    o[5] = i32(y)
    c = 0
    for v in range(-9223372036854775808, -9223372036854775806):
        c = c + 1
    o[6] = c
"""


def test_loop_bounds_of_each_integer_type_compare_as_their_values(tmp_path: Path) -> None:
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    path = tmp_path / "loops.py"
    path.write_text(LOOPS)
    case = load_case(path)
    run = run_full(case)
    assert run.fates == [None]
    # 2^63 - 1 to 2^63 + 1: two trips; 2^63 + 3 to 2: none (a signed compare runs them)
    assert run.final["o"].tolist() == [2, 0, 3 + 4, 0, -128 - 127 - 126,
                                       250 + 251 + 252 + 253 + 254, 2]
    assert [value_of(int(v), DTYPES["u64"]) for v in run.final["last"]] == [
        2**63, 4294967294]
    verdict = check_case(case, load_target("numba-simt"), {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)
    mutated = check_case(case, load_target("numba-simt"), {},
                         {"mutants": ["loop-bound-signed"]}).verdict
    assert not mutated.agree and "o[0]" in str(mutated), str(mutated)


@pytest.mark.parametrize("expr, needle", [
    ("a[0] + 256", "'+' mixes u8 and i32 (256 is outside u8's 0..255): "),
    ("a[0] < -1", "'<' mixes u8 and i32 (-1 is outside u8's 0..255): "),
    ("max(a[0], 300)", "max() mixes u8 and i32 (300 is outside u8's 0..255): "),
    ("a[0] + i32(1)", "'+' mixes u8 and i32: integers of different signedness"),
])
def test_a_literal_that_does_not_fit_the_other_operand_is_named(expr: str, needle: str
                                                                ) -> None:
    """A literal takes the other operand's type where its value fits there; where it
    does not, the checker's error says so (it named only the two types, and the
    conversion it suggests, u8(256), is 0)."""
    from difftest.core.errors import KernelError
    from difftest.core.ir.check import check
    from difftest.core.ir.parse import parse

    src = f"def k(a: Buffer[u8], o: Buffer[i32]):\n    o[0] = i32({expr})\n"
    with pytest.raises(KernelError) as e:
        check(parse(src))
    assert needle in str(e.value), str(e.value)
