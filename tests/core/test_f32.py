"""f32 (docs/semantics.md, "32-bit floats"): the arithmetic of difftest/core/f32.py
against numpy's float32 and exact fractions, the language's rules (parse, check, print),
and case files' f32 values."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from difftest.core import f32
from difftest.core.case import case_from_json
from difftest.core.errors import CaseError, KernelError
from difftest.core.ir import parse, to_source

#: any binary32, NaN and the infinities included, from its bits
BITS = st.integers(-(2**31), 2**31 - 1)
VALUES = BITS.map(f32.from_bits)


def exact_f32(q: Fraction) -> float:
    """The binary32 nearest q (ties to even), by a brute search over the neighbours of
    numpy's float32 cast: independent of f32.py's own rounding."""
    with np.errstate(over="ignore"):
        guess = np.float32(float(q))
    candidates = [guess, np.nextafter(guess, np.float32(np.inf)),
                  np.nextafter(guess, np.float32(-np.inf))]
    finite = [c for c in candidates if np.isfinite(c)]

    def key(c: np.float32) -> tuple[Fraction, int]:
        return abs(Fraction(float(c)) - q), int(np.array(c).view(np.int32)) & 1

    best = min(finite, key=key)
    # past the largest finite by half an ulp or more (the tie goes to even: infinity)
    return float(best) if abs(q) < Fraction(2**128 - 2**103) else math.copysign(math.inf, q)


@given(VALUES, VALUES)
@settings(max_examples=400, deadline=None)
def test_add_sub_mul_are_numpys_float32(a: float, b: float) -> None:
    with np.errstate(all="ignore"):
        x, y = np.float32(a), np.float32(b)
        for got, want in ((f32.add(a, b), x + y), (f32.sub(a, b), x - y),
                          (f32.mul(a, b), x * y)):
            assert f32.to_bits(got) == f32.to_bits(float(want))


@given(VALUES, VALUES, VALUES)
@example(0.0, 0.0, -3.4028234663852886e38)  # exactly -MAX: finite, not an overflow
@settings(max_examples=400, deadline=None)
def test_fma_rounds_the_exact_value_once(a: float, b: float, c: float) -> None:
    got = f32.fma(a, b, c)
    if not all(math.isfinite(v) for v in (a, b, c)):
        return  # IEEE's inf/NaN rules: binary64 gives them (checked below by hand)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        assert got == 0
        return
    assert f32.to_bits(got) == f32.to_bits(exact_f32(exact))


def exact_fma(a: float, b: float, c: float) -> float:
    """fma by the definition: the exact value's nearest binary32; binary64's IEEE rules
    where an operand is not finite, and its sign where the exact value is zero."""
    exact = Fraction(a) * Fraction(b) + Fraction(c) if all(
        math.isfinite(v) for v in (a, b, c)) else None
    if exact is None or exact == 0:
        with np.errstate(all="ignore"):
            return float(np.float32(a * b + c))
    return exact_f32(exact)


F32_MAX = float.fromhex("0x1.fffffep127")
# the double rounding binary64 alone makes (a * a a binary32 tie, c below binary64's
# reach), its mirror, a product that rounds to 0 in binary64, a sum that overflows
# binary32 only when rounded once, and subnormal results
HARD = [(1.0 + 2.0 ** -12, 1.0 + 2.0 ** -12, 2.0 ** -80),
        (-(1.0 + 2.0 ** -12), 1.0 + 2.0 ** -12, -(2.0 ** -80)),
        (1.0 + 2.0 ** -12, 1.0 + 2.0 ** -12, -(2.0 ** -80)),
        (1.0 + 2.0 ** -23, 1.0 - 2.0 ** -23, -1.0),
        (F32_MAX, 1.0, 2.0 ** 103), (F32_MAX, 1.0, 2.0 ** 103 - 2.0 ** 79),
        (2.0 ** -75, 2.0 ** -75, 2.0 ** -149), (2.0 ** -75, 3.0 * 2.0 ** -75, -(2.0 ** -149)),
        (2.0 ** -149, 0.5, 0.0), (2.0 ** -149, 1.5, -0.0), (-0.0, 1.0, -0.0),
        (math.inf, 0.0, 1.0), (F32_MAX, 2.0, -math.inf)]


@given(st.lists(st.tuples(VALUES, VALUES, VALUES), max_size=40))
@example(HARD)
@settings(max_examples=300, deadline=None)
def test_fma_lanes_rounds_each_lane_once(lanes: list[tuple[float, float, float]]) -> None:
    # the oracle's fma of a whole wave, against the definition lane by lane
    assert all(f32.is_f32(v) for lane in lanes for v in lane)
    a, b, c = (np.array(v, dtype=np.float32) for v in (zip(*lanes) if lanes else ((),) * 3))
    got = f32.fma_lanes(a, b, c)
    assert got.dtype == np.float32 and len(got) == len(lanes)
    for g, (x, y, z) in zip(got.tolist(), lanes):
        assert f32.to_bits(g) == f32.to_bits(exact_fma(x, y, z)), (x, y, z)


def test_fma_by_hand() -> None:
    one_up = 1.0 + 2.0 ** -23
    # (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46: exact, where a * b + c rounds to 0
    assert f32.fma(one_up, 1.0 - 2.0 ** -23, -1.0) == -(2.0 ** -46)
    assert f32.add(f32.mul(one_up, 1.0 - 2.0 ** -23), -1.0) == 0.0
    # double rounding: a * a is a binary32 tie, 1 + 2^-11 + 2^-24; c is too small for
    # binary64 to keep, so rounding binary64's sum gives the even side, the exact value
    # is past the tie
    a, c = 1.0 + 2.0 ** -12, 2.0 ** -80
    assert f32.rounded(a * a + c) == 1.0 + 2.0 ** -11
    assert f32.fma(a, a, c) == 1.0 + 2.0 ** -11 + 2.0 ** -23
    assert math.isnan(f32.fma(math.inf, 0.0, 1.0))
    assert f32.fma(-0.0, 1.0, -0.0) == 0.0 and math.copysign(1, f32.fma(-0.0, 1.0, -0.0)) < 0
    assert math.copysign(1, f32.fma(1.0, 1.0, -1.0)) > 0  # an exact zero sum is +0.0
    assert f32.fma(3.4028235e38, 2.0, -3.4028235e38) == 3.4028234663852886e38


def test_min_max_let_a_number_win_and_order_the_zeros() -> None:
    nan = math.nan
    assert f32.minimum(nan, 1.0) == 1.0 and f32.minimum(1.0, nan) == 1.0
    assert math.isnan(f32.minimum(nan, nan)) and math.isnan(f32.maximum(nan, nan))
    assert math.copysign(1, f32.minimum(0.0, -0.0)) < 0
    assert math.copysign(1, f32.minimum(-0.0, 0.0)) < 0
    assert math.copysign(1, f32.maximum(-0.0, 0.0)) > 0
    assert math.copysign(1, f32.maximum(0.0, -0.0)) > 0
    assert f32.maximum(-math.inf, nan) == -math.inf


def test_conversions() -> None:
    assert f32.to_int(2147483520.0, 32) == 2147483520  # the largest f32 below 2^31
    assert f32.to_int(2147483648.0, 32) is None
    assert f32.to_int(-2147483648.0, 32) == -(2**31)
    assert f32.to_int(-2147483904.0, 32) is None  # the next f32 below -2^31
    assert f32.to_int(math.nan, 64) is None and f32.to_int(math.inf, 64) is None
    assert f32.to_int(-0.9, 32) == 0 and f32.to_int(2.0 ** 62, 64) == 2 ** 62
    assert f32.to_int(2.0 ** 63, 64) is None
    assert f32.from_int(16777217) == 16777216.0  # a tie: to the even one
    assert f32.from_int(16777219) == 16777220.0
    assert f32.from_int(2**63 - 1) == 2.0 ** 63
    # past 2^53 binary64 alone would round twice: 2^60 + 2^36 + 1 is above the tie
    assert f32.from_int(2**60 + 2**36 + 1) == 2.0 ** 60 + 2.0 ** 37


@given(st.integers(-(2**63), 2**63 - 1))
def test_from_int_is_the_nearest(i: int) -> None:
    assert f32.to_bits(f32.from_int(i)) == f32.to_bits(exact_f32(Fraction(i))) if i else True


def test_bits_and_spelling() -> None:
    assert f32.to_bits(-0.0) == -(2**31) and f32.to_bits(math.nan) == f32.NAN_BITS
    assert f32.canonical(-4194304) == f32.NAN_BITS  # 0xFFC00000, a negative NaN
    assert f32.canonical(0x7F800001) == f32.NAN_BITS
    assert f32.canonical(-(2**31)) == -(2**31)  # -0.0 stays -0.0
    assert f32.shortest(f32.rounded(0.1)) == "0.1"
    assert f32.shortest(2.0 ** -149) == "1e-45"
    assert f32.written(0.1) and f32.written(1e-45) and f32.written(0.10000001)
    assert not f32.written(0.100000001)  # rounds to 0.1, whose shortest is "0.1"


# ------------------------------------------------------------------ the language

def test_f32_programs_parse_check_and_print_back() -> None:
    src = ("def kernel(x: Buffer[f32], o: Buffer[i32], s: f32):\n"
           "    t: Local[f32, 8]\n"
           "    a = x[0] * 0.1 + -0.0\n"
           "    b = fma(a, s, -1e-45)\n"
           "    t[0] = min(a, max(b, abs(-a)))\n"
           "    if a < b or a != a:\n"
           "        o[0] = i32(b) + i32(f32(o[1]))\n"
           "    x[1] = wave_min(a) + shuffle(b, 1) - readfirstlane(-b)\n")
    prog = parse(src)
    printed = to_source(prog)
    assert "-0.0" in printed and "0.1" in printed and "-1e-45" in printed
    assert parse(printed) == prog


@pytest.mark.parametrize("body, message", [
    ("    y = x + 1", "mixes f32 and i32"),
    ("    y = x // 2.0", "does not take f32"),
    ("    y = x & x", "does not take f32"),
    ("    y = x << 1", "'<<' does not take f32"),  # no conversion of 1 would help
    ("    y = 1 >> x", "'>>' does not take f32"),
    ("    y = ~x", "must be an integer"),
    ("    y = wave_sum(x)", "depends on the order"),
    ("    y = prefix_sum(x)", "depends on the order"),
    ("    atomic_add(b, 0, x)", "atomic_add"),
    ("    b[0] = 1", "convert it with f32"),
    ("    c[0] = x", "convert it with i32"),
    ("    y = fma(x, x)", "takes 3 argument"),
    ("    y = min(x, 1)", "must be f32"),
    # an integer first: the mix named, not "must be an integer or a float, got f32"
    ("    y = max(u8(1), x)", r"max\(\) of u8 and f32: an integer and a float do not mix"),
    ("    y = min(1, x)", r"min\(\) of i32 and f32: an integer and a float do not mix"),
    ("    y = 1e39", "out of the f32 range"),
    ("    y = x < 1", "mixes f32 and i32"),
])
def test_f32_mistakes_are_named(body: str, message: str) -> None:
    src = f"def kernel(b: Buffer[f32], c: Buffer[i32], x: f32):\n{body}\n"
    with pytest.raises(KernelError, match=message):
        parse(src)


# ------------------------------------------------------------------- case files

def _case(args: dict) -> dict:
    return {"kernel": "def kernel(x: Buffer[f32], s: f32):\n    x[0] = x[0] * s\n",
            "entry": "kernel", "launch": {"n": 1, "wave": 1}, "args": args}


def test_case_files_hold_f32_as_numbers_and_names() -> None:
    case = case_from_json(_case({"x": {"dtype": "f32", "data": [0.1, "nan", "-inf", -0.0, 3]},
                                 "s": 1e-45}))
    bits = case.args["x"].tolist()
    assert bits == [f32.to_bits(f32.rounded(0.1)), f32.NAN_BITS, f32.to_bits(-math.inf),
                    -(2**31), f32.to_bits(3.0)]
    assert case.args["s"] == 2.0 ** -149
    back = json.loads(json.dumps(case.to_json()))
    assert back["args"]["x"]["data"] == [0.1, "nan", "-inf", -0.0, 3.0]
    again = case_from_json(back)
    assert again.args["x"].tolist() == bits and again.args["s"] == case.args["s"]


@pytest.mark.parametrize("value, message", [
    (0.100000001, "is not an f32"), ("NaN", "expected an f32"), (True, "expected an f32"),
    (1e39, "is not an f32"), (16777217, "is not an f32"),
])
def test_case_files_refuse_what_is_no_f32(value: object, message: str) -> None:
    with pytest.raises(CaseError, match=message):
        case_from_json(_case({"x": {"dtype": "f32", "data": [value]}, "s": 1.0}))


def test_a_host_program_is_refused_for_a_kernel_that_takes_f32() -> None:
    obj = _case({"x": {"dtype": "f32", "data": [1.0]}, "s": 1.0})
    obj["host"] = [{"op": "launch", "bind": {}}]
    with pytest.raises(CaseError, match="a host program moves integer buffers only"):
        case_from_json(obj)


def test_kernel_file_headers_take_float_buffers_and_scalars(tmp_path) -> None:
    from difftest.core.kernelfile import load_case

    path = tmp_path / "k.py"
    path.write_text("# difftest: launch n=1 wave=1\n"
                    "# difftest: arg x = f32[0.1, nan, -0.0, -inf, 2] * 2\n"
                    "# difftest: arg s = 1e-45\n"
                    "def k(x: Buffer[f32], s: f32):\n    x[0] = x[0] * s\n")
    case = load_case(path)
    assert case.args["x"].tolist() == [f32.to_bits(f32.rounded(0.1)), f32.NAN_BITS,
                                       -(2**31), f32.to_bits(-math.inf),
                                       f32.to_bits(2.0)] * 2
    assert case.args["s"] == 2.0 ** -149
    path.write_text(path.read_text().replace("f32[0.1,", "f32[0.1x,"))
    with pytest.raises(CaseError, match="'0.1x' is not a number"):
        load_case(path)
    # a decimal past binary64's range is no infinity, nor one too small for it a zero
    for written, meant in (("1e999", "inf"), ("-1e400", "-inf"), ("1e-999", "0.0"),
                           ("-2.5e-400", "-0.0")):
        path.write_text(path.read_text().replace("f32[0.1x,", f"f32[{written},"))
        with pytest.raises(CaseError, match=f"{written} is past the float range .*"
                                            f"write {meant} for that"):
            load_case(path)
        path.write_text(path.read_text().replace(f"f32[{written},", "f32[0.1x,"))


# -------------------------------------------------- the oracle's record of subnormals

@pytest.mark.parametrize("x, s, seen", [
    (1.0, 0.5, None),                    # no subnormal anywhere
    (2.0 ** -149, 1.0, "line 2"),        # read from the buffer
    (1.0, 2.0 ** -140, "line 2"),        # a scalar argument, where it is used
    (2.0 ** -120, 2.0 ** -10, "line 2"),  # the product of two normal numbers
])
def test_the_oracle_names_the_first_subnormal_a_run_meets(x: float, s: float,
                                                          seen: str | None) -> None:
    """A device that may flush subnormals cannot be checked on a run that meets one
    (docs/semantics.md, "Real targets"): the oracle says where the first one arose."""
    from oracles.reference import run_full

    case = case_from_json(_case({"x": {"dtype": "f32", "data": [x]}, "s": s}))
    got = run_full(case).subnormal
    if seen is None:
        assert got is None
    else:
        assert got is not None and seen in got and "subnormal" in got, got


@pytest.mark.parametrize("buffer, refused", [
    ("f64[9007199254740993]", "9007199254740993 is not an f64: the nearest is "
                              "9007199254740992.0"),
    ("f64[18446744073709551615]", "is not an f64"),
    ("f32[16777217]", "16777217 is not an f32"),
    ("f64[9007199254740992, -3, 0.1, nan]", None),
])
def test_kernel_file_headers_refuse_integers_a_float_buffer_cannot_hold(
        tmp_path, buffer: str, refused: str | None) -> None:
    # as a case file does: an integer is written exactly or not at all (a decimal with a
    # point or an exponent is read as the nearest float)
    from difftest.core.kernelfile import load_case

    path = tmp_path / "k.py"
    ty = buffer[:3]
    path.write_text(f"# difftest: launch n=1 wave=1\n# difftest: arg x = {buffer}\n"
                    f"def k(x: Buffer[{ty}]):\n    x[0] = x[0]\n")
    if refused is None:
        bits = load_case(path).args["x"][:2]  # an f64 buffer holds its values' bits
        assert bits.view(np.float64).tolist() == [2.0 ** 53, -3.0]
    else:
        with pytest.raises(CaseError, match=refused):
            load_case(path)
