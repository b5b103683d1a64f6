"""difftest.core.f64: the one f64 operation Python does not give exactly, `fma`. Expected
values are exact fractions rounded by Python's own int/Fraction -> float conversion (correctly
rounded), or worked out by hand."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from difftest.core import f64

FINITE = st.floats(allow_nan=False, allow_infinity=False)
ANY = st.floats()


@given(FINITE, FINITE, FINITE)
@settings(max_examples=400, deadline=None)
def test_fma_rounds_the_exact_value_once(a: float, b: float, c: float) -> None:
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    got = f64.fma(a, b, c)
    if exact == 0:
        assert got == 0
    elif abs(exact) >= Fraction(2) ** 1024 - Fraction(2) ** 970:  # rounds past the largest
        assert got == (math.inf if exact > 0 else -math.inf)
    else:
        assert got == float(exact)


@given(FINITE, FINITE, st.sampled_from([math.inf, -math.inf]))
def test_a_finite_product_plus_an_infinity_is_that_infinity(a: float, b: float,
                                                            c: float) -> None:
    # the exact product is finite even where a * b overflows: never inf - inf
    assert f64.fma(a, b, c) == c


@given(ANY, ANY, ANY)
def test_a_nan_operand_gives_nan(a: float, b: float, c: float) -> None:
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        assert math.isnan(f64.fma(a, b, c))


@given(st.lists(st.tuples(ANY, ANY, ANY), max_size=20))
@settings(max_examples=100, deadline=None)
def test_fma_lanes_is_fma_of_each_lane(lanes: list[tuple[float, float, float]]) -> None:
    a, b, c = (np.array(v, dtype=np.float64) for v in (zip(*lanes) if lanes else ((),) * 3))
    got = f64.fma_lanes(a, b, c)
    assert got.dtype == np.float64 and len(got) == len(lanes)
    for g, (x, y, z) in zip(got.tolist(), lanes):
        assert f64.to_bits(g) == f64.to_bits(f64.fma(x, y, z))


def test_fma_by_hand() -> None:
    # the product overflows binary64 but the sum does not: 2 * 1e308 - 1e308 = 1e308
    assert f64.fma(1e308, 2.0, -1e308) == 1e308
    # a product past the largest plus the opposite infinity: the infinity (not NaN)
    assert f64.fma(2.5279018207487658e262, -1.4050312695621937e185, math.inf) == math.inf
    assert math.isnan(f64.fma(math.inf, 0.0, 1.0))  # inf * 0
    assert math.isnan(f64.fma(math.inf, 1.0, -math.inf))  # an infinite product, -inf
    assert f64.fma(math.inf, 2.0, 1.0) == math.inf
    one_up = 1.0 + 2.0 ** -52
    # (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104 exactly, where a * b + c rounds to 0
    assert f64.fma(one_up, 1.0 - 2.0 ** -52, -1.0) == -(2.0 ** -104)
    assert math.copysign(1, f64.fma(-0.0, 1.0, -0.0)) < 0
    assert math.copysign(1, f64.fma(1.0, 1.0, -1.0)) > 0  # an exact zero sum is +0.0
