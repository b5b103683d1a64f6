"""The integer edge values the oracle notes (difftest/core/edges.py), each pair on
operands written by hand from its definition in EDGE_PAIRS' comments."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from difftest.core import edges
from difftest.core.edges import EDGE_PAIRS, Edges
from difftest.core.errors import OracleError
from difftest.core.ir.types import I8, I16, I32, I64, U8, U32, U64, Type, int_range, storage


def _a(*values: int, ty: Type = I32) -> np.ndarray:
    return np.array([storage(v, ty) for v in values], dtype=np.int64)


def _binary(op: str, a: np.ndarray, b: np.ndarray, ty: Type) -> set[str]:
    e = Edges()
    e.note_int_binary(op, a, b, ty)
    return e.seen


def test_the_integer_pairs_are_all_declared_and_all_reachable() -> None:
    e = Edges()
    e.note_int_binary("+", _a(-2**31), _a(2**31 - 1), I32)
    e.note_int_binary("//", _a(-2**31, 5), _a(-1, 0), I32)
    e.note_int_binary(">>", _a(-4, 1), _a(0, 40), I32)
    e.note_int_compare(_a(2**31, ty=U32), _a(0, ty=U32), U32)
    e.note_int_binary(">>", _a(2**31, ty=U32), _a(1, ty=U32), U32)
    e.note_int_convert(_a(-1, 300, ty=I64), I64, I8)
    e.note_int_convert(_a(-1), I32, I64)
    e.note_int_convert(_a(2**31, ty=U32), U32, I64)
    e.note_int_function("clz", [_a(0, 1, ty=I64)], I64)
    e.note_int_function("ctz", [_a(0, -2**63, ty=I64)], I64)
    e.note_int_function("popcount", [_a(-1, ty=I8)], I8)
    e.note_int_function("bit_reverse", [_a(1)], I32)
    e.note_int_function("rotate_left", [_a(1), _a(0, 40)], I32)
    e.note_int_function("mul_hi", [_a(-1), _a(3)], I32)
    e.note_int_function("mul_hi", [_a(2**31, ty=U32), _a(3, ty=U32)], U32)
    e.note_int_function("abs", [_a(-128, ty=I8)], I8)
    e.note_int_function("max", [_a(255, ty=U8), _a(3, ty=U8)], U8)
    assert e.names() <= set(EDGE_PAIRS)
    assert len(e.names()) == 27


def test_arithmetic_meets_min_and_max_in_either_operand() -> None:
    assert _binary("+", _a(1, 2), _a(3, -2**31), I32) == {"arith:min"}
    assert _binary("*", _a(2**31 - 1), _a(0), I32) == {"arith:max"}
    assert _binary("-", _a(-2**31 + 1), _a(2**31 - 2), I32) == set()
    # a u64's MAX is all ones: its storage is -1
    assert _binary("+", _a(2**64 - 1, ty=U64), _a(1, ty=U64), U64) == {"arith:max"}
    assert _binary("&", _a(-2**31), _a(2**31 - 1), I32) == set()


def test_division_by_zero_and_minus_one_and_min_by_minus_one_lane_by_lane() -> None:
    assert _binary("//", _a(5, 6), _a(0, 2), I32) == {"div:zero"}
    assert _binary("%", _a(5), _a(-1), I32) == {"div:minus_one"}
    # MIN and -1 in different lanes is not MIN // -1
    assert _binary("//", _a(-2**31, 3), _a(2, -1), I32) == {"div:minus_one"}
    assert _binary("//", _a(3, -128, ty=I8), _a(2, -1, ty=I8), I8) == {
        "div:minus_one", "div:min_by_minus_one"}
    # unsigned: 255 is u8's all ones, not -1
    assert _binary("//", _a(255, ty=U8), _a(255, ty=U8), U8) == set()


def test_shifts_by_zero_by_the_width_or_below_zero_and_what_is_shifted_right() -> None:
    assert _binary("<<", _a(1), _a(0), I32) == {"shift:zero"}
    assert _binary("<<", _a(1), _a(32), I32) == {"shift:masked"}
    assert _binary("<<", _a(1), _a(31), I32) == set()
    assert _binary("<<", _a(1, ty=I64), _a(-1, ty=I64), I64) == {"shift:masked"}
    assert _binary(">>", _a(-8), _a(1), I32) == {"shift:negative"}
    assert _binary("<<", _a(-8), _a(1), I32) == set()
    assert _binary(">>", _a(2**31, ty=U32), _a(1, ty=U32), U32) == {"shift:top_bit_unsigned"}
    assert _binary(">>", _a(2**63, ty=U64), _a(3, ty=U64), U64) == {"shift:top_bit_unsigned"}
    assert _binary(">>", _a(2**31 - 1, ty=U32), _a(1, ty=U32), U32) == set()


def test_a_seen_pair_is_kept_and_the_others_still_noted() -> None:
    e = Edges()
    e.note_int_binary("//", _a(1), _a(0), I32)
    e.note_int_binary("//", _a(-2**31), _a(-1), I32)
    assert e.seen == {"div:zero", "div:minus_one", "div:min_by_minus_one"}
    e.note_int_binary(">>", _a(4), _a(0), I32)
    e.note_int_binary(">>", _a(-4), _a(33), I32)
    assert {"shift:zero", "shift:masked", "shift:negative"} <= e.seen


def test_comparisons_at_a_limit_and_unsigned_with_the_top_bit() -> None:
    e = Edges()
    e.note_int_compare(_a(0), _a(1), I32)
    assert e.seen == set()
    e.note_int_compare(_a(1, ty=U8), _a(128, ty=U8), U8)  # 0 would be u8's MIN
    assert e.seen == {"compare:top_bit_unsigned"}
    e.note_int_compare(_a(1, ty=U8), _a(255, ty=U8), U8)
    assert e.seen == {"compare:top_bit_unsigned", "compare:limit"}


@pytest.mark.parametrize(("values", "source", "to", "pairs"), [
    ((1, 2), I64, I32, set()),
    ((2**31,), I64, I32, {"convert:truncates"}),
    ((-1,), I32, I64, {"convert:negative"}),
    ((-1,), I32, U8, {"convert:truncates"}),  # narrowing a negative is a truncation
    ((2**31,), U32, I64, {"convert:top_bit_unsigned"}),
    ((2**63,), U64, I64, {"convert:top_bit_unsigned", "convert:truncates"}),
    ((5,), U64, U8, set()),
])
def test_conversions(values: tuple[int, ...], source: Type, to: Type, pairs: set[str]
                     ) -> None:
    e = Edges()
    e.note_int_convert(_a(*values, ty=source), source, to)
    assert e.seen == pairs


@pytest.mark.parametrize("op, args, ty, pairs", [
    ("clz", [(3, 0)], I32, {"clz:zero"}),
    ("ctz", [(0,)], U8, {"ctz:zero"}),
    # a 64-bit count's halves: the high word 0 (clz), the low word 0 (ctz), not the value
    ("clz", [(5,)], I64, {"clz:high_word_zero"}),
    ("clz", [(2**32,)], I64, set()),
    ("ctz", [(2**32,)], U64, {"ctz:low_word_zero"}),
    ("ctz", [(-2**63,)], I64, {"ctz:low_word_zero"}),
    ("ctz", [(3,)], I64, set()),
    ("clz", [(5,)], I32, set()),  # no halves below 64 bits
    ("popcount", [(-1,)], I8, {"popcount:all_ones"}),
    ("popcount", [(255,)], U8, {"popcount:all_ones"}),
    ("popcount", [(2**64 - 1,)], U64, {"popcount:all_ones"}),
    ("popcount", [(127,)], U8, set()),
    ("bit_reverse", [(2, 3)], I16, {"bit_reverse:low_bit"}),
    ("bit_reverse", [(2, 4)], I16, set()),
    ("rotate_left", [(1,), (32,)], I32, {"rotate:zero", "rotate:masked"}),
    ("rotate_right", [(1,), (-1,)], U8, {"rotate:masked"}),
    ("rotate_left", [(1,), (0,)], I64, {"rotate:zero"}),
    ("rotate_left", [(1,), (3,)], I32, set()),
    ("mul_hi", [(1,), (-1,)], I64, {"mul_hi:negative"}),
    ("mul_hi", [(1,), (2**31,)], U32, {"mul_hi:top_bit_unsigned"}),
    ("mul_hi", [(1,), (2**63,)], U64, {"mul_hi:top_bit_unsigned"}),
    ("mul_hi", [(1,), (2**31 - 1,)], U32, set()),
    ("abs", [(-128,)], I8, {"abs:min"}),
    ("abs", [(-127,)], I8, set()),
    ("min", [(255,), (0,)], U8, {"int_minmax:limit", "int_minmax:top_bit_unsigned"}),
    ("max", [(200,), (3,)], U8, {"int_minmax:top_bit_unsigned"}),
    ("max", [(-2**31,), (3,)], I32, {"int_minmax:limit"}),
    ("min", [(100,), (3,)], U8, set()),
])
def test_integer_functions_at_their_own_edges(op: str, args: list[tuple[int, ...]],
                                              ty: Type, pairs: set[str]) -> None:
    e = Edges()
    e.note_int_function(op, [_a(*v, ty=ty) for v in args], ty)
    assert e.seen == pairs


def test_a_launch_of_many_lanes_notes_what_a_few_lanes_would() -> None:
    # past 64 lanes the tests read the values by numpy, below it as lists
    many = 100
    e = Edges()
    e.note_int_binary("+", _a(*[5] * many, -2**31), _a(*[1] * (many + 1)), I32)
    e.note_int_binary("//", _a(*[3] * many, -2**31), _a(*[2] * many, -1), I32)
    e.note_int_binary(">>", _a(*[3] * many, ty=U64), _a(*[1] * (many - 1), 64, ty=U64), U64)
    e.note_int_convert(_a(*[7] * many, -1, ty=I64), I64, I32)
    e.note_int_function("popcount", [_a(*[7] * many, -1, ty=I8)], I8)
    assert e.seen == {"arith:min", "div:minus_one", "div:min_by_minus_one",
                      "shift:masked", "popcount:all_ones"}
    e.note_int_convert(_a(*[7] * many, -1), I32, I64)
    e.note_int_compare(_a(*[7] * many, 2**64 - 1, ty=U64), _a(*[1] * (many + 1), ty=U64), U64)
    assert {"convert:negative", "compare:limit", "compare:top_bit_unsigned"} <= e.seen


# ------------------------------------------------------------- operands held, tested late

_TYPES = (I8, U8, I32, U32, I64, U64)


def _ints(ty: Type, size: int) -> st.SearchStrategy[np.ndarray]:
    lo, hi = int_range(ty)
    edge = st.sampled_from([lo, lo + 1, -1 if ty.signed else hi - 1, 0, 1, hi,
                            ty.bits, ty.bits - 1])
    value = st.one_of(edge, st.integers(lo, hi)).map(
        lambda v: storage(min(max(v, lo), hi), ty))
    return st.lists(value, min_size=size, max_size=size).map(
        lambda vs: np.array(vs, dtype=np.int64))


def _floats(dtype: type, size: int) -> st.SearchStrategy[np.ndarray]:
    width = 32 if dtype is np.float32 else 64
    value = st.one_of(st.sampled_from([0.0, -0.0, float("nan"), float("inf"),
                                       float("-inf"), 2.0 ** -130, 2.0 ** 31, 2.0 ** 53,
                                       -2.0 ** 31, 2.0 ** 63]),
                      st.floats(width=width))
    return st.lists(value, min_size=size, max_size=size).map(
        lambda vs: np.array(vs, dtype=dtype))


@st.composite
def _note(draw: st.DrawFn) -> tuple[str, tuple[Any, ...]]:
    """One call of an `Edges.note_*` method, with its arguments."""
    size = draw(st.sampled_from([0, 1, 3, 70]))  # past 64: the tests' numpy path
    ty = draw(st.sampled_from(_TYPES))
    to = draw(st.sampled_from(_TYPES))
    fl = draw(st.sampled_from([np.float32, np.float64]))
    which = draw(st.sampled_from(["binary", "compare", "convert", "function", "arith",
                                  "fcompare", "minmax", "to_int", "to_float", "narrow"]))
    if which == "binary":
        op = draw(st.sampled_from(["+", "-", "*", "//", "%", "<<", ">>", "&", "^"]))
        return "note_int_binary", (op, draw(_ints(ty, size)), draw(_ints(ty, size)), ty)
    if which == "compare":
        return "note_int_compare", (draw(_ints(ty, size)), draw(_ints(ty, size)), ty)
    if which == "convert":
        return "note_int_convert", (draw(_ints(ty, size)), ty, to)
    if which == "function":
        op = draw(st.sampled_from(["popcount", "clz", "ctz", "bit_reverse", "rotate_left",
                                   "rotate_right", "mul_hi", "min", "max", "abs"]))
        return "note_int_function", (op, [draw(_ints(ty, size)), draw(_ints(ty, size))],
                                     ty)
    if which == "arith":
        return "note_f32_arith", ([draw(_floats(fl, size)) for _ in range(draw(
            st.integers(1, 3)))],)
    if which in ("fcompare", "minmax"):
        name = "note_f32_compare" if which == "fcompare" else "note_f32_minmax"
        return name, (draw(_floats(fl, size)), draw(_floats(fl, size)))
    if which == "to_int":
        return "note_f32_to_int", (draw(_floats(fl, size)), ty)
    if which == "to_float":
        return "note_int_to_f32", (draw(_ints(ty, size)), ty, draw(st.booleans()))
    return "note_f64_to_f32", (draw(_floats(np.float64, size)),)


@settings(max_examples=300, deadline=None)
@given(st.lists(_note(), max_size=12), st.sampled_from([0, 5, 1 << 20]))
def test_operands_tested_together_meet_what_each_call_tested_alone_meets(
        calls: list[tuple[str, tuple[Any, ...]]], hold: int) -> None:
    # each call on an Edges of its own, read at once: its operands tested alone
    alone: set[str] = set()
    for name, args in calls:
        e = Edges()
        getattr(e, name)(*args)
        alone |= e.seen
    held = Edges()
    with patch.object(edges, "_HOLD", hold):  # 0: a test at each call; 5: every few
        for name, args in calls:
            getattr(held, name)(*args)
    assert held.seen == alone
    assert held.names() == {f"edge:{p}" for p in alone}


def test_an_operand_the_kernel_assigns_again_later_is_tested_as_it_was() -> None:
    from difftest.core.case import case_from_json
    from oracles.reference import run_full

    kernel = ("def k(inp: Buffer[i32], out: Buffer[i32]):\n"
              "    g = gid()\n"
              "    x = inp[g]\n"
              "    y = x + 1\n"  # x is MIN in lane 0: arith:min
              "    x = 0\n"  # and no longer, by the end of the run
              "    out[g] = y + x\n")
    case = case_from_json({"kernel": kernel, "entry": "k", "launch": {"n": 4, "wave": 4},
                           "args": {"inp": {"dtype": "i32", "data": [-2**31, 1, 2, 3]},
                                    "out": {"dtype": "i32", "data": [0] * 4}}})
    assert "edge:arith:min" in run_full(case).edges


def test_the_oracle_meets_the_same_pairs_holding_its_operands_or_not() -> None:
    # the oracle's operands, tested long after it computed them: none of them may have
    # changed in between (an array a later statement writes into, say)
    from hypothesis import HealthCheck

    from generators.cases import kernel_cases
    from oracles.reference import run_full

    met: list[frozenset[str]] = []

    @settings(max_examples=60, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(kernel_cases())
    def run(kc: Any) -> None:
        for case in kc[1]:
            try:
                late = run_full(case).edges
                with patch.object(edges, "_HOLD", 0):
                    at_once = run_full(case).edges
            except OracleError:
                continue  # a race or a kernel past the oracle's work: no run to compare
            assert late == at_once
            met.append(late)

    run()
    assert sum(map(len, met)) > 0  # the cases met some pairs: the comparison saw them


def test_a_replay_of_returned_values_notes_no_edge_its_first_run_noted() -> None:
    """The oracle's replay of a target's returned values (docs/semantics.md, "Atomics
    that return") runs the same operations as the case's first run, whose notes a
    campaign counts: it notes none (they were a fifth of a replay's time)."""
    from difftest.core.case import case_from_json
    from oracles.reference import run_full

    case = case_from_json({
        "kernel": "def k(out: Buffer[i32], c: Buffer[i32]):\n"
                  "    old = atomic_exchange(c, 0, gid())\n"
                  "    out[gid()] = (old + 2147483647) // (gid() - 1)\n",
        "entry": "k", "launch": {"n": 2, "wave": 2},
        "args": {"out": {"dtype": "i32", "data": [0, 0]},
                 "c": {"dtype": "i32", "data": [0]}}})
    first = run_full(case)
    assert {"edge:arith:max", "edge:div:minus_one"} <= first.edges
    replay = run_full(case, returned=[[1], [0]])
    assert replay.edges == frozenset() and replay.returned == [[1], [0]]
