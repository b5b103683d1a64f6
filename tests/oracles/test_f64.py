"""64-bit floats (docs/semantics.md, "64-bit floats") against values worked out by hand:
each row one expression of typed scalar arguments stored into a one-element buffer, run
on the reference and on numba-simt here, and on every real target that declares f64 in
tests/real_targets/test_f64_targets.py. The expected values are IEEE 754's, read off by
hand (each row says why); results are compared by their bits, through struct, never
through difftest's own float code."""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import pytest

from difftest.core.kernelfile import load_case
from difftest.core.ir.types import DTYPES, value_of
from oracles.reference import run_full

from .test_int_types import kernel_file

INF, NAN = float("inf"), float("nan")
FLT_MAX = 3.4028234663852886e38  # binary32's largest finite, (2 - 2^-23) * 2^127
HALFWAY = 3.4028235677973366e38  # (2 - 2^-24) * 2^127: between it and 2^128

# (expression, the result's type, {argument: (type, value)}, expected value or a fault)
ROWS: list[tuple[str, str, dict[str, tuple[str, Any]], Any]] = [
    # + - * rounded once to binary64
    ("x + y", "f64", {"x": ("f64", 0.1), "y": ("f64", 0.2)}, 0.30000000000000004),
    ("x * y", "f64", {"x": ("f64", 1e300), "y": ("f64", 1e10)}, INF),  # overflow
    ("x - x", "f64", {"x": ("f64", INF)}, NAN),  # invalid
    ("x + y", "f64", {"x": ("f64", 2.0 ** -1074), "y": ("f64", 2.0 ** -1074)},
     2.0 ** -1073),  # subnormals kept
    ("x * y", "f64", {"x": ("f64", 2.0 ** -1022), "y": ("f64", 0.5)}, 2.0 ** -1023),
    ("x * y", "f64", {"x": ("f64", 2.0 ** -1074), "y": ("f64", 0.5)}, 0.0),  # a tie: even
    # fma: one rounding of the exact x * y + z; 0.1 is 0.1000000000000000055511151231257827
    ("fma(x, y, z)", "f64", {"x": ("f64", 0.1), "y": ("f64", 10.0), "z": ("f64", -1.0)},
     2.0 ** -54),
    ("x * y + z", "f64", {"x": ("f64", 0.1), "y": ("f64", 10.0), "z": ("f64", -1.0)}, 0.0),
    ("fma(x, y, z)", "f64", {"x": ("f64", 1e308), "y": ("f64", 10.0), "z": ("f64", -1e308)},
     INF),  # the exact 9e308 is past the largest finite
    # literals: f64(0.1) is the double nearest 0.1, not the f32 literal widened
    ("x + f64(0.1)", "f64", {"x": ("f64", 0.0)}, 0.1),
    ("x + f64(0.5)", "f64", {"x": ("f64", 1.0)}, 1.5),
    # the sign bit: negation, abs, and min / max with signed zeros and NaN
    ("-x", "f64", {"x": ("f64", 0.0)}, -0.0),
    ("abs(x)", "f64", {"x": ("f64", -0.0)}, 0.0),
    ("min(x, y)", "f64", {"x": ("f64", 0.0), "y": ("f64", -0.0)}, -0.0),
    ("max(x, y)", "f64", {"x": ("f64", -0.0), "y": ("f64", 0.0)}, 0.0),
    ("max(x, y)", "f64", {"x": ("f64", NAN), "y": ("f64", 1.5)}, 1.5),
    ("min(x, y)", "f64", {"x": ("f64", -2.5), "y": ("f64", NAN)}, -2.5),
    # comparisons: IEEE's
    ("i32(x < y)", "i32", {"x": ("f64", NAN), "y": ("f64", 1.0)}, 0),
    ("i32(x != y)", "i32", {"x": ("f64", NAN), "y": ("f64", NAN)}, 1),
    ("i32(x == y)", "i32", {"x": ("f64", 0.0), "y": ("f64", -0.0)}, 1),
    ("i32(x < y)", "i32", {"x": ("f64", 9007199254740992.0),
                           "y": ("f64", 9007199254740994.0)}, 1),
    # integers to f64: nearest, ties to even (2^53 + 1 lies between 2^53 and 2^53 + 2)
    ("f64(x)", "f64", {"x": ("i64", 2 ** 53 + 1)}, 9007199254740992.0),
    ("f64(x)", "f64", {"x": ("i64", 2 ** 53 + 3)}, 9007199254740996.0),
    ("f64(x)", "f64", {"x": ("u64", 2 ** 64 - 1)}, 18446744073709551616.0),
    ("f64(x)", "f64", {"x": ("i64", -2 ** 63)}, -9223372036854775808.0),
    ("f64(x)", "f64", {"x": ("u8", 255)}, 255.0),
    # f64 <-> f32: widening exact, narrowing rounded to nearest even, past f32: inf
    ("f64(x)", "f64", {"x": ("f32", 0.1)}, 0.10000000149011612),
    ("f32(x)", "f32", {"x": ("f64", 0.1)}, 0.10000000149011612),
    ("f32(x)", "f32", {"x": ("f64", HALFWAY)}, INF),  # a tie; FLT_MAX's last bit is odd
    ("f32(x)", "f32", {"x": ("f64", math.nextafter(HALFWAY, 0.0))}, FLT_MAX),
    ("f32(x)", "f32", {"x": ("f64", 1e-50)}, 0.0),  # below half of f32's smallest
    ("f32(x)", "f32", {"x": ("f64", -2147483648.5)}, -2147483648.0),  # spacing 256 there
    # f64 to integers: truncated; a fault only where the truncation does not fit
    ("i32(x)", "i32", {"x": ("f64", -2147483648.5)}, -2147483648),
    ("i32(x)", "i32", {"x": ("f64", -2147483649.0)}, "invalid_conversion"),
    ("i32(x)", "i32", {"x": ("f64", 2147483647.9999998)}, 2147483647),
    ("i32(x)", "i32", {"x": ("f64", 2147483648.0)}, "invalid_conversion"),
    ("i64(x)", "i64", {"x": ("f64", 9.223372036854775e18)}, 9223372036854774784),
    ("i64(x)", "i64", {"x": ("f64", 9.223372036854776e18)}, "invalid_conversion"),
    ("u64(x)", "u64", {"x": ("f64", 18446744073709549568.0)}, 2 ** 64 - 2048),
    ("u8(x)", "u8", {"x": ("f64", -0.9)}, 0),
    ("u8(x)", "u8", {"x": ("f64", -1.0)}, "invalid_conversion"),
    ("i64(x)", "i64", {"x": ("f64", NAN)}, "invalid_conversion"),
    ("i16(x)", "i16", {"x": ("f64", -INF)}, "invalid_conversion"),
]


def result_matches(bits: int, result: str, want: Any) -> bool:
    """Whether the stored element `bits` is `want`: a float bit for bit (any NaN a NaN),
    by struct's reading of the bits."""
    if result in ("f32", "f64"):
        wide = result == "f64"
        got = struct.unpack("<d" if wide else "<f",
                            struct.pack("<q" if wide else "<i", bits))[0]
        if math.isnan(want):
            return math.isnan(got)
        return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    return value_of(bits, DTYPES[result]) == want


@pytest.mark.parametrize("k", range(len(ROWS)), ids=[r[0] + " " + r[1] for r in ROWS])
def test_the_reference_computes_f64_as_the_semantics_says(k: int, tmp_path: Path) -> None:
    expr, result, args, want = ROWS[k]
    run = run_full(load_case(kernel_file(tmp_path, k, expr, result, args)))
    if isinstance(want, str):
        assert run.fates[0] is not None and run.fates[0].kind == want, run.fates[0]
        return
    assert run.fates[0] is None, run.fates[0]
    assert result_matches(int(run.final["out"][0]), result, want)


@pytest.mark.parametrize("k", range(len(ROWS)), ids=[r[0] + " " + r[1] for r in ROWS])
def test_numba_simt_agrees_on_each_f64_row(k: int, tmp_path: Path) -> None:
    """The rows through numba-simt's compiler, machine (a register budget that spills)
    and, for the rows that fault, the host's replay."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    expr, result, args, _ = ROWS[k]
    case = load_case(kernel_file(tmp_path, k, expr, result, args))
    target = load_target("numba-simt")
    for options in ({}, {"registers": 4}, {"uniform_writes": "active"}):
        verdict = check_case(case, target, {}, options).verdict
        assert verdict.agree and not verdict.unchecked, (options, str(verdict))
