"""The integer functions (docs/semantics.md, "Bit operations"): popcount, clz, ctz,
bit_reverse, rotate_left/right, mul_hi, and integer min, max, abs on every integer type,
against values worked out by hand, as test_int_types.py does for arithmetic: on the
reference, on numba-simt (its machine, and with every lane forced to deopt, its host
loop: two implementations of each function), and -- through the same rows -- on the real
targets (tests/real_targets/test_int_types_targets.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from difftest.core.ir.types import DTYPES, value_of
from difftest.core.kernelfile import load_case
from oracles.reference import run_full

from .test_int_types import kernel_file

U64_MAX = (1 << 64) - 1
I64_MIN = -(1 << 63)

# (expression, the result's type, {argument: (type, value)}, expected value)
ROWS: list[tuple[str, str, dict[str, tuple[str, Any]], Any]] = [
    # popcount: of the type's bits (a negative value's sign-extension is not counted)
    ("popcount(x)", "i8", {"x": ("i8", -1)}, 8),
    ("popcount(x)", "u16", {"x": ("u16", 0x8001)}, 2),
    ("popcount(x)", "i32", {"x": ("i32", -2)}, 31),
    ("popcount(x)", "u32", {"x": ("u32", 0xF0F0F0F0)}, 16),
    ("popcount(x)", "i64", {"x": ("i64", I64_MIN)}, 1),
    ("popcount(x)", "u64", {"x": ("u64", U64_MAX)}, 64),
    ("popcount(x)", "u64", {"x": ("u64", 1 << 40)}, 1),       # a bit of the high word
    # clz / ctz: within the width; of 0, the width
    ("clz(x)", "u8", {"x": ("u8", 1)}, 7),
    ("clz(x)", "i8", {"x": ("i8", -1)}, 0),
    ("clz(x)", "i16", {"x": ("i16", 0)}, 16),
    ("clz(x)", "u32", {"x": ("u32", 0)}, 32),
    ("clz(x)", "i32", {"x": ("i32", 1)}, 31),
    ("clz(x)", "u64", {"x": ("u64", 1)}, 63),
    ("clz(x)", "i64", {"x": ("i64", 0)}, 64),
    ("clz(x)", "u64", {"x": ("u64", 1 << 40)}, 23),
    ("ctz(x)", "u8", {"x": ("u8", 0)}, 8),
    ("ctz(x)", "i16", {"x": ("i16", -32768)}, 15),
    ("ctz(x)", "i32", {"x": ("i32", 0)}, 32),
    ("ctz(x)", "u32", {"x": ("u32", 0x80000000)}, 31),
    ("ctz(x)", "i64", {"x": ("i64", 0)}, 64),
    ("ctz(x)", "u64", {"x": ("u64", 1 << 63)}, 63),
    # bit_reverse: the type's bits reversed (a signed result sign-extended again)
    ("bit_reverse(x)", "u8", {"x": ("u8", 1)}, 128),
    ("bit_reverse(x)", "i8", {"x": ("i8", 1)}, -128),
    ("bit_reverse(x)", "u16", {"x": ("u16", 0x00F1)}, 0x8F00),
    ("bit_reverse(x)", "i32", {"x": ("i32", 6)}, 0x60000000),
    ("bit_reverse(x)", "u32", {"x": ("u32", 1)}, 0x80000000),
    ("bit_reverse(x)", "i64", {"x": ("i64", 1)}, I64_MIN),
    ("bit_reverse(x)", "u64", {"x": ("u64", 0xF)}, 0xF << 60),
    # rotations: the amount of any integer type, masked to the width
    ("rotate_left(x, n)", "u8", {"x": ("u8", 0x81), "n": ("i32", 1)}, 0x03),
    ("rotate_left(x, n)", "i8", {"x": ("i8", 64), "n": ("i32", 1)}, -128),
    ("rotate_right(x, n)", "u16", {"x": ("u16", 1), "n": ("i32", 1)}, 0x8000),
    ("rotate_left(x, n)", "u32", {"x": ("u32", 0x80000001), "n": ("i32", 33)}, 3),
    ("rotate_right(x, n)", "i32", {"x": ("i32", 1), "n": ("i32", -1)}, 2),
    ("rotate_left(x, n)", "u64", {"x": ("u64", 1 << 63), "n": ("u8", 1)}, 1),
    ("rotate_right(x, n)", "i64", {"x": ("i64", 1), "n": ("i64", 64)}, 1),
    ("rotate_right(x, n)", "u64", {"x": ("u64", 1), "n": ("i32", 4)}, 1 << 60),
    # mul_hi: the high half of the full product, signed or unsigned
    ("mul_hi(x, y)", "u8", {"x": ("u8", 255), "y": ("u8", 255)}, 254),
    ("mul_hi(x, y)", "i8", {"x": ("i8", -128), "y": ("i8", 127)}, -64),
    ("mul_hi(x, y)", "i16", {"x": ("i16", -1), "y": ("i16", 1)}, -1),
    ("mul_hi(x, y)", "u32", {"x": ("u32", 0xFFFFFFFF), "y": ("u32", 0xFFFFFFFF)}, 0xFFFFFFFE),
    ("mul_hi(x, y)", "i32", {"x": ("i32", -(1 << 31)), "y": ("i32", -(1 << 31))}, 1 << 30),
    ("mul_hi(x, y)", "i32", {"x": ("i32", -5), "y": ("i32", 3)}, -1),
    ("mul_hi(x, y)", "u64", {"x": ("u64", U64_MAX), "y": ("u64", U64_MAX)}, U64_MAX - 1),
    ("mul_hi(x, y)", "u64", {"x": ("u64", 1 << 63), "y": ("u64", 4)}, 2),
    ("mul_hi(x, y)", "i64", {"x": ("i64", -1), "y": ("i64", -1)}, 0),
    ("mul_hi(x, y)", "i64", {"x": ("i64", I64_MIN), "y": ("i64", I64_MIN)}, 1 << 62),
    ("mul_hi(x, y)", "i64", {"x": ("i64", -3), "y": ("i64", 5)}, -1),
    # min, max, abs: unsigned by value; abs(MIN) == MIN
    ("min(x, y)", "u32", {"x": ("u32", 0xFFFFFFFF), "y": ("u32", 1)}, 1),
    ("max(x, y)", "u64", {"x": ("u64", 1 << 63), "y": ("u64", 1)}, 1 << 63),
    ("min(x, y)", "u64", {"x": ("u64", U64_MAX), "y": ("u64", 5)}, 5),
    ("max(x, y)", "i8", {"x": ("i8", -128), "y": ("i8", -1)}, -1),
    ("min(x, 3)", "i64", {"x": ("i64", I64_MIN)}, I64_MIN),
    ("abs(x)", "i8", {"x": ("i8", -128)}, -128),
    ("abs(x)", "i16", {"x": ("i16", -300)}, 300),
    ("abs(x)", "i32", {"x": ("i32", -(1 << 31))}, -(1 << 31)),
    ("abs(x)", "i64", {"x": ("i64", I64_MIN)}, I64_MIN),
    ("abs(x)", "u8", {"x": ("u8", 200)}, 200),
]


@pytest.mark.parametrize("k", range(len(ROWS)), ids=[f"{r[0]} {r[1]}" for r in ROWS])
def test_the_reference_computes_each_integer_function_as_the_semantics_says(
        k: int, tmp_path: Path) -> None:
    expr, result, args, want = ROWS[k]
    run = run_full(load_case(kernel_file(tmp_path, k, expr, result, args)))
    assert run.fates[0] is None, run.fates[0]
    assert value_of(int(run.final["out"][0]), DTYPES[result]) == want


def test_numba_simt_agrees_on_every_integer_function_on_its_machine_and_its_host(
        tmp_path: Path) -> None:
    """Every row, in one kernel of one workitem per row: on the machine, and with every
    lane forced to deopt at its first store, on the host loop (the rest of the row runs
    there)."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    target = load_target("numba-simt")
    wrong = []
    for k, (expr, result, args, _) in enumerate(ROWS):
        case = load_case(kernel_file(tmp_path, k, f"{expr}\n    out[1] = {expr}", result,
                                     args, length=2))
        for options, schedule in (({}, {}), ({"registers": 4}, {}),
                                  ({}, {"deopt_percent": 100})):
            verdict = check_case(case, target, schedule, options).verdict
            if not verdict.agree or verdict.unchecked:
                wrong.append(f"{expr} {result} {args} {options} {schedule}: {verdict}")
    assert not wrong, "\n".join(wrong)
