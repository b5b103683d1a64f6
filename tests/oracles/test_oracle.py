"""Unit tests of the reference oracle's semantics (docs/semantics.md).

Rule of this file: every expected value is derived by hand from the written semantics,
with the derivation in a comment beside it; none was obtained by running the oracle.
Stack lines are found by searching the kernel text (`line_of`), never read back.
"""

from __future__ import annotations

import re
import textwrap
import time
from typing import Any

import pytest

from difftest.core.case import Case, case_from_json
from difftest.core.outcome import COMPLETED, FAULTED, Outcome
from oracles.oracle import ReferenceTarget
from oracles.reference import run_full

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


# ---------------------------------------------------------------------------- helpers


def K(src: str) -> str:
    """Kernel text from an indented triple-quoted string; line 1 is its first line."""
    return textwrap.dedent(src).lstrip("\n")


def make_case(src: str, entry: str, n: int, wave: int, **args: Any) -> Case:
    a: dict[str, Any] = {}
    for name, v in args.items():
        if isinstance(v, tuple):
            dtype, data = v
            a[name] = {"dtype": dtype, "data": list(data)}
        else:
            a[name] = v
    return case_from_json(
        {"kernel": K(src), "entry": entry, "launch": {"n": n, "wave": wave}, "args": a}
    )


def run(src: str, entry: str, n: int, wave: int, _options: dict | None = None,
        **args: Any) -> Outcome:
    return ReferenceTarget().run(make_case(src, entry, n, wave, **args), None, _options)


def ok(src: str, entry: str, n: int, wave: int, **args: Any) -> dict[str, list[int]]:
    """Run a kernel expected to complete everywhere; its final buffers as lists."""
    out = run(src, entry, n, wave, **args)
    assert out.error is None, out.error
    assert out.exception is None, out.exception
    assert out.status == [COMPLETED] * n
    return {k: [int(x) for x in v] for k, v in out.buffers.items()}


def line_of(src: str, needle: str) -> int:
    hits = [i for i, line in enumerate(K(src).splitlines(), 1)
            if needle in line and not line.lstrip().startswith("#")]
    assert len(hits) == 1, f"{needle!r} found on lines {hits}"
    return hits[0]


def frames(fault: Any) -> list[tuple[str, int]]:
    return [(f.function, f.line) for f in fault.stack]


def zeros(k: int, dtype: str = "i32") -> tuple[str, list[int]]:
    return (dtype, [0] * k)


def fill(k: int, v: int, dtype: str = "i32") -> tuple[str, list[int]]:
    return (dtype, [v] * k)


# ==================================================================== wave operations

# One kernel, the same wave operation in both branches of an if/else.
# n = 8, wave = 8, inp = [3, -1, 4, 1, -5, 9, 2, 6].
# then-lanes (even): lane 0:3, 2:4, 4:-5, 6:2.   else-lanes (odd): 1:-1, 3:1, 5:9, 7:6.
IF_ELSE = """
def k(inp: Buffer[i32], out: Buffer[i32]):
    i = gid()
    v = inp[i]
    if lane() % 2 == 0:
        out[i] = EXPR
    else:
        out[i] = EXPR
"""
IF_ELSE_INP = [3, -1, 4, 1, -5, 9, 2, 6]

IF_ELSE_CASES = [
    # then: 3+4-5+2 = 4; else: -1+1+9+6 = 15 (whole wave would be 19)
    ("wave_sum(v)", [4, 15, 4, 15, 4, 15, 4, 15]),
    # then: min(3,4,-5,2) = -5; else: min(-1,1,9,6) = -1
    ("wave_min(v)", [-5, -1, -5, -1, -5, -1, -5, -1]),
    # then: max = 4; else: max = 9
    ("wave_max(v)", [4, 9, 4, 9, 4, 9, 4, 9]),
    # v < -2: then has -5 -> True; else has none (-1 is not < -2) -> False
    ("i32(wave_any(v < -2))", [1, 0, 1, 0, 1, 0, 1, 0]),
    # v > -3: then has -5 -> False; else -1,1,9,6 all > -3 -> True (whole wave: False)
    ("i32(wave_all(v > -3))", [0, 1, 0, 1, 0, 1, 0, 1]),
    # v > 2: then lanes 0 (3), 2 (4) -> bits 0,2 = 5; else lanes 5 (9), 7 (6) -> 32+128 = 160
    ("i32(ballot(v > 2))", [5, 160, 5, 160, 5, 160, 5, 160]),
    # lowest active lane: then lane 0 (3); else lane 1 (-1)
    ("readfirstlane(v)", [3, -1, 3, -1, 3, -1, 3, -1]),
    # source lane of the other parity is inactive in either branch -> 0 everywhere
    ("shuffle(v, lane() ^ 1)", [0] * 8),
    # source 6 - lane keeps the parity: lane0<-6 (2), lane2<-4 (-5), lane4<-2 (4),
    # lane6<-0 (3); lane1<-5 (9), lane3<-3 (1), lane5<-1 (-1), lane7<- -1 (out of range: 0)
    ("shuffle(v, 6 - lane())", [2, 9, -5, 1, 4, -1, 3, 0]),
    # exclusive in lane order: then 0, 3, 3+4=7, 7-5=2; else 0, -1, -1+1=0, 0+9=9
    ("prefix_sum(v)", [0, 0, 3, -1, 7, 0, 2, 9]),
    # inclusive: then 3, 7, 2, 4; else -1, 0, 9, 15
    ("inclusive_sum(v)", [3, -1, 7, 0, 2, 9, 4, 15]),
]


@pytest.mark.parametrize("expr,expected", IF_ELSE_CASES, ids=[c[0] for c in IF_ELSE_CASES])
def test_wave_op_in_if_and_else_branches(expr: str, expected: list[int]) -> None:
    bufs = ok(IF_ELSE.replace("EXPR", expr), "k", 8, 8,
              inp=("i32", IF_ELSE_INP), out=zeros(8))
    assert bufs["out"] == expected


def test_shuffle_without_divergence_reads_other_lanes() -> None:
    # Control for the divergent shuffle above: all 8 lanes active, lane i reads lane i^1:
    # inp = [3, -1, 4, 1, -5, 9, 2, 6] -> [-1, 3, 1, 4, 9, -5, 6, 2].
    # shuffle(v, lane() - 1): lane 0 reads lane -1 (out of range) -> 0, else inp[i-1].
    src = """
    def k(inp: Buffer[i32], out: Buffer[i32], out2: Buffer[i32]):
        i = gid()
        v = inp[i]
        out[i] = shuffle(v, lane() ^ 1)
        out2[i] = shuffle(v, lane() - 1)
    """
    bufs = ok(src, "k", 8, 8, inp=("i32", IF_ELSE_INP), out=zeros(8), out2=zeros(8))
    assert bufs["out"] == [-1, 3, 1, 4, 9, -5, 6, 2]
    assert bufs["out2"] == [0, 3, -1, 4, 1, -5, 9, 2]


def test_wave_ops_in_loop_with_break_and_continue() -> None:
    # n = 4, wave = 4, i = lane. Lane i breaks at trip t == i; lane 3 continues at trip 1.
    # trip 0: lane 0 breaks; lanes {1,2,3} reach the ballot -> 0b1110 = 14.
    # trip 1: lane 1 breaks, lane 3 continues; only {2} reaches it -> 4.
    # trip 2: lane 3 rejoined; lane 2 breaks; {3} -> 8.
    # trip 3: lane 3 breaks.
    # acc = acc * 100 + ballot: lane0 0, lane1 14, lane2 14*100+4 = 1404, lane3 1408.
    # After the loop all lanes rejoin: ballot = 15.
    src = """
    def k(out: Buffer[i32], post: Buffer[i32]):
        i = lane()
        acc = 0
        for t in range(0, 4):
            if t == i:
                break
            if t == 1 and i == 3:
                continue
            acc = acc * 100 + i32(ballot(True))
        out[i] = acc
        post[i] = i32(ballot(True))
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), post=zeros(4))
    assert bufs["out"] == [0, 14, 1404, 1408]
    assert bufs["post"] == [15, 15, 15, 15]


def test_wave_ops_in_loop_continue_lanes_skip_one_trip() -> None:
    # n = 4, wave = 4. Lane i skips trip t when (i + t) is odd.
    # trip 0: even lanes {0,2}, values i+1 = 1,3: inclusive_sum -> lane0 1, lane2 4;
    #         wave_max(i) = 2.
    # trip 1: odd lanes {1,3}, values 2,4: inclusive -> lane1 2, lane3 6; wave_max = 3.
    # trip 2: even lanes again: lane0 1, lane2 4; wave_max = 2.
    # s = s*10 + inclusive: lane0 1 -> 11; lane1 2; lane2 4 -> 44; lane3 6.
    # m = m*10 + wave_max: lane0 2 -> 22; lane1 3; lane2 22; lane3 3.
    src = """
    def k(out: Buffer[i32], mx: Buffer[i32]):
        i = lane()
        s = 0
        m = 0
        for t in range(0, 3):
            if (i + t) % 2 == 1:
                continue
            s = s * 10 + inclusive_sum(i + 1)
            m = m * 10 + wave_max(i)
        out[i] = s
        mx[i] = m
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), mx=zeros(4))
    assert bufs["out"] == [11, 2, 44, 6]
    assert bufs["mx"] == [22, 3, 22, 3]


def test_wave_ops_per_lane_trip_counts() -> None:
    # The bound is a (reassigned) parameter, so each lane has its own trip count: lane i
    # runs i trips. At trip t the lanes still iterating are those with i > t, so
    # wave_sum(1) = number of lanes i > t: t=0: 3, t=1: 2, t=2: 1.
    # s(lane i) = sum over t < i: lane0 0, lane1 3, lane2 3+2 = 5, lane3 3+2+1 = 6.
    src = """
    def k(out: Buffer[i32], b: i32):
        b = lane()
        s = 0
        for t in range(0, b):
            s = s + wave_sum(1)
        out[gid()] = s
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), b=0)
    assert bufs["out"] == [0, 3, 5, 6]


def test_wave_ops_after_early_return_from_kernel() -> None:
    # n = 4, wave = 4, inp = [0, 5, 0, 7]: lanes 0 and 2 return; active after: {1, 3}.
    # ballot = 2 + 8 = 10; wave_sum = 12; readfirstlane = lane 1's 5 (lane 0 returned);
    # shuffle(v, 0): lane 0 inactive -> 0, shuffle(v, 3) = 7 -> 0 + 700 = 700;
    # prefix_sum: lane1 0, lane3 5; wave_min 5 * 10 + wave_all(v > 4) (True) = 51.
    src = """
    def k(inp: Buffer[i32], a: Buffer[i32], b: Buffer[i32], c: Buffer[i32],
          d: Buffer[i32], e: Buffer[i32]):
        i = gid()
        v = inp[i]
        if v == 0:
            return
        a[i] = i32(ballot(True))
        b[i] = wave_sum(v)
        c[i] = readfirstlane(v) * 10 + readfirstlane(lane())
        d[i] = shuffle(v, 0) + shuffle(v, 3) * 100
        e[i] = prefix_sum(v) * 100 + wave_min(v) * 10 + i32(wave_all(v > 4))
    """
    m = fill(4, -1)
    bufs = ok(src, "k", 4, 4, inp=("i32", [0, 5, 0, 7]), a=m, b=m, c=m, d=m, e=m)
    assert bufs["a"] == [-1, 10, -1, 10]
    assert bufs["b"] == [-1, 12, -1, 12]
    assert bufs["c"] == [-1, 51, -1, 51]   # readfirstlane(v) = 5, readfirstlane(lane()) = 1
    assert bufs["d"] == [-1, 700, -1, 700]
    assert bufs["e"] == [-1, 0 + 50 + 1, -1, 500 + 50 + 1]


def test_wave_ops_after_early_return_from_helper() -> None:
    # n = 4, wave = 4, inp = [3, -1, 4, -2]. In h, lanes 1 and 3 (v < 0) return 1 early;
    # lanes 0, 2 go on: wave_sum(v) = 3 + 4 = 7 -> inner[0] = inner[2] = 7; they return 2.
    # Back in the kernel all four lanes rejoin at the call's return point: ballot = 15.
    # after = x * 100 + 15 = [215, 115, 215, 115].
    src = """
    def k(inp: Buffer[i32], inner: Buffer[i32], after: Buffer[i32]):
        i = gid()
        x = h(inp[i], inner, i)
        after[i] = x * 100 + i32(ballot(True))


    def h(v: i32, inner: Buffer[i32], i: i32) -> i32:
        if v < 0:
            return 1
        inner[i] = wave_sum(v)
        return 2
    """
    bufs = ok(src, "k", 4, 4, inp=("i32", [3, -1, 4, -2]), inner=fill(4, -1),
              after=zeros(4))
    assert bufs["inner"] == [7, -1, 7, -1]
    assert bufs["after"] == [215, 115, 215, 115]


def test_return_inside_loop_in_helper_parks_lane_until_call_returns() -> None:
    # n = 4, wave = 4. In h, lane i returns i*10 at trip t == i; before that it logs
    # the ballot of the lanes still in the loop at log[i*4 + t]:
    # trip 0: lane 0 returns; {1,2,3} -> 14 at log[4], log[8], log[12].
    # trip 1: lane 1 returns; {2,3} -> 12 at log[9], log[13].
    # trip 2: lane 2 returns; {3} -> 8 at log[14]. trip 3: lane 3 returns.
    # The returned lanes do not come back into the loop. After the call all 4 rejoin:
    # out[i] = i*10 + 15.
    src = """
    def k(out: Buffer[i32], log: Buffer[i32]):
        i = lane()
        r = h(i, log)
        out[i] = r + i32(ballot(True))


    def h(i: i32, log: Buffer[i32]) -> i32:
        for t in range(0, 4):
            if t == i:
                return t * 10
            log[i * 4 + t] = i32(ballot(True))
        return 99
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), log=zeros(16))
    assert bufs["out"] == [15, 25, 35, 45]
    assert bufs["log"] == [0, 0, 0, 0, 14, 0, 0, 0, 14, 12, 0, 0, 14, 12, 8, 0]


def test_wave_ops_inside_if_expression() -> None:
    # n = 8, wave = 8: lanes 0..2 evaluate wave_sum(i) over {0,1,2} = 3; lanes 3..7
    # evaluate the other side: ballot bits 3..7 = 8+16+32+64+128 = 248 -> 1248.
    src = """
    def k(out: Buffer[i32]):
        i = lane()
        out[i] = wave_sum(i) if i < 3 else i32(ballot(True)) + 1000
    """
    bufs = ok(src, "k", 8, 8, out=zeros(8))
    assert bufs["out"] == [3, 3, 3, 1248, 1248, 1248, 1248, 1248]


def test_wave_ops_inside_and_or_right_sides() -> None:
    # n = 4, wave = 4.
    # c: only odd lanes {1,3} evaluate the right side: wave_sum(1) = 2 -> True; even lanes
    #    short-circuit to False. (A whole-wave sum would be 4 -> False everywhere.)
    # d: lane 0 short-circuits to True; lanes {1,2,3} evaluate ballot = 14 -> True.
    #    (A whole-wave ballot would be 15 -> False in lanes 1..3.)
    # e: lanes with lane < 2 short-circuit (or) to True; lanes {2,3} evaluate
    #    readfirstlane(lane()) == 2 -> True for both (lowest active lane is 2).
    src = """
    def k(out: Buffer[i32], out2: Buffer[i32], out3: Buffer[i32]):
        i = lane()
        c = i % 2 == 1 and wave_sum(1) == 2
        d = i == 0 or ballot(True) == 14
        e = i < 2 or readfirstlane(lane()) == 2
        out[i] = i32(c)
        out2[i] = i32(d)
        out3[i] = i32(e)
    """
    bufs = ok(src, "k", 4, 4, out=fill(4, 9), out2=fill(4, 9), out3=fill(4, 9))
    assert bufs["out"] == [0, 1, 0, 1]
    assert bufs["out2"] == [1, 1, 1, 1]
    assert bufs["out3"] == [1, 1, 1, 1]


def test_wave_ops_after_fault_exclude_faulted_lane() -> None:
    # n = 4, wave = 4, inp = [10, 0, 50, 25].
    # m = wave_max(100 // inp[i]): lane 1 faults while evaluating the argument, so it is
    #    not active: max(10, 2, 4) = 10.
    # After that lane 1 is gone: wave_sum(q) over lanes {0,2,3} = 10 + 2 + 4 = 16,
    #    ballot = 1 + 4 + 8 = 13 -> out = 16*100 + 13 = 1613 (lane 1 never stores).
    src = """
    def k(inp: Buffer[i32], out: Buffer[i32], mx: Buffer[i32]):
        i = gid()
        m = wave_max(100 // inp[i])
        q = 100 // inp[i]
        mx[i] = m
        out[i] = wave_sum(q) * 100 + i32(ballot(True))
    """
    out = run(src, "k", 4, 4, inp=("i32", [10, 0, 50, 25]), out=fill(4, -1), mx=fill(4, -1))
    assert out.error is None
    assert out.exception is not None and out.exception.gid == 1
    assert out.exception.fault.kind == "division_by_zero"
    assert out.status == [COMPLETED, FAULTED, COMPLETED, COMPLETED]
    assert out.buffers["mx"].tolist() == [10, -1, 10, 10]
    assert out.buffers["out"].tolist() == [1613, -1, 1613, 1613]


def test_wave_ops_in_partial_last_wave() -> None:
    # n = 6, wave = 4: wave 0 = gids 0..3 (lanes 0..3), wave 1 = gids 4,5 (lanes 0,1);
    # lanes 2,3 of wave 1 are inactive from launch.
    # ballot: wave 0 -> 15, wave 1 -> 3.  wave_sum(gid): 0+1+2+3 = 6; 4+5 = 9.
    # shuffle(gid, 3): wave 0 -> gid 3; wave 1 -> lane 3 inactive -> 0.
    # wave_min(gid)*10 + wave(): wave 0 -> 0; wave 1 -> 4*10 + 1 = 41.
    src = """
    def k(a: Buffer[i32], s: Buffer[i32], sh: Buffer[i32], mn: Buffer[i32]):
        i = gid()
        a[i] = i32(ballot(True))
        s[i] = wave_sum(i)
        sh[i] = shuffle(i, 3)
        mn[i] = wave_min(i) * 10 + wave()
    """
    m = fill(6, -1)
    bufs = ok(src, "k", 6, 4, a=m, s=m, sh=m, mn=m)
    assert bufs["a"] == [15, 15, 15, 15, 3, 3]
    assert bufs["s"] == [6, 6, 6, 6, 9, 9]
    assert bufs["sh"] == [3, 3, 3, 3, 0, 0]
    assert bufs["mn"] == [0, 0, 0, 0, 41, 41]


def test_ballot_lane_63_is_negative_i64() -> None:
    # n = 64, wave = 64: ballot(lane() == 63) = 1 << 63 as i64 = -2**63;
    # ballot(True) = all 64 bits = -1; ballot(lane() >= 62) = 2**62 + 2**63 -> -2**62.
    src = """
    def k(top: Buffer[i64], full: Buffer[i64], two: Buffer[i64]):
        i = gid()
        top[i] = ballot(lane() == 63)
        full[i] = ballot(True)
        two[i] = ballot(lane() >= 62)
    """
    bufs = ok(src, "k", 64, 64, top=zeros(64, "i64"), full=zeros(64, "i64"),
              two=zeros(64, "i64"))
    assert bufs["top"] == [I64_MIN] * 64
    assert bufs["full"] == [-1] * 64
    assert bufs["two"] == [-(2**62)] * 64


def test_wave_sum_wraps_and_prefix_sum_i64() -> None:
    # n = 2, wave = 2, v = 2**31 - 1 in both lanes: i32 wave_sum = 2**32 - 2 -> -2;
    # as i64 (i64(v)) the sum is 4294967294. prefix_sum(i64(v)): lane0 0, lane1 2**31 - 1.
    src = """
    def k(inp: Buffer[i32], a: Buffer[i32], b: Buffer[i64], c: Buffer[i64]):
        i = gid()
        v = inp[i]
        a[i] = wave_sum(v)
        b[i] = wave_sum(i64(v))
        c[i] = prefix_sum(i64(v))
    """
    bufs = ok(src, "k", 2, 2, inp=("i32", [I32_MAX, I32_MAX]), a=zeros(2),
              b=zeros(2, "i64"), c=zeros(2, "i64"))
    assert bufs["a"] == [-2, -2]
    assert bufs["b"] == [2**32 - 2, 2**32 - 2]
    assert bufs["c"] == [0, I32_MAX]


def test_each_wave_is_its_own_set_of_lanes() -> None:
    # n = 8, wave = 2: four waves of two lanes; wave_sum(gid) in wave w = 2w + 2w+1 = 4w+1;
    # ballot(True) = 3 in every wave; lane() is gid % 2.
    src = """
    def k(out: Buffer[i32], b: Buffer[i32]):
        i = gid()
        out[i] = wave_sum(i) * 10 + lane()
        b[i] = i32(ballot(True))
    """
    bufs = ok(src, "k", 8, 2, out=zeros(8), b=zeros(8))
    assert bufs["out"] == [10, 11, 50, 51, 90, 91, 130, 131]
    assert bufs["b"] == [3] * 8


def test_wave_op_in_helper_sees_callers_lanes_and_bool_moves() -> None:
    # n = 4, wave = 4. The helper's wave_sum sees the lanes of the branch it is called
    # from: then-lanes {1,2,3} -> 1+2+3 = 6; else-lane {0} -> 0, + 100 -> 100.
    # shuffle of a bool c = lane > 1 (F F T T) from lane + 1: lane0 <- lane1 F, lane1 <-
    # lane2 T, lane2 <- lane3 T, lane3 <- lane 4 (out of range) -> False: [0, 1, 1, 0].
    # readfirstlane(c): lane 0's False -> 0 everywhere.
    src = """
    def k(out: Buffer[i32], sh: Buffer[i32], rf: Buffer[i32]):
        i = lane()
        if i >= 1:
            out[i] = h(i)
        else:
            out[i] = h(i) + 100
        c = i > 1
        sh[i] = i32(shuffle(c, i + 1))
        rf[i] = i32(readfirstlane(c))


    def h(x: i32) -> i32:
        return wave_sum(x)
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), sh=fill(4, 9), rf=fill(4, 9))
    assert bufs["out"] == [100, 6, 6, 6]
    assert bufs["sh"] == [0, 1, 1, 0]
    assert bufs["rf"] == [0, 0, 0, 0]


def test_nested_if_else_reconverges_at_each_end() -> None:
    # n = 8, wave = 8, i = lane. Outer: i < 4 vs i >= 4; inner: odd vs even.
    # Inner branches: {1,3} -> ballot 10, {0,2} -> 5, {5,7} -> 160, {4,6} -> 80.
    # After the inner if/else its lanes rejoin: ballot {0..3} = 15, {4..7} = 240 -> b.
    # After the outer if/else all rejoin: ballot 255 -> c.
    src = """
    def k(a: Buffer[i32], b: Buffer[i32], c: Buffer[i32]):
        i = lane()
        if i < 4:
            if i % 2 == 1:
                a[i] = i32(ballot(True))
            else:
                a[i] = i32(ballot(True))
            b[i] = i32(ballot(True))
        else:
            if i % 2 == 1:
                a[i] = i32(ballot(True))
            else:
                a[i] = i32(ballot(True))
            b[i] = i32(ballot(True))
        c[i] = i32(ballot(True))
    """
    bufs = ok(src, "k", 8, 8, a=zeros(8), b=zeros(8), c=zeros(8))
    assert bufs["a"] == [5, 10, 5, 10, 80, 160, 80, 160]
    assert bufs["b"] == [15, 15, 15, 15, 240, 240, 240, 240]
    assert bufs["c"] == [255] * 8


# ==================================================================== evaluation order

EVAL_ORDER = """
def k(a: Buffer[i32], out: Buffer[i32], z: i32, bad: i32, c: bool):
    x = 0
    STMT


def h(p: i32, q: i32) -> i32:
    return p + q
"""

# Each statement and the fault it must raise first (z = 0, bad = 100, len(a) = 4, c = True).
EVAL_ORDER_CASES = [
    # store: the value 1 // z first -> division by zero, before the index is checked
    ("out[bad] = 1 // z", "division_by_zero"),
    # store: value first even when the index expression itself would fault
    ("out[a[bad]] = 1 // z", "division_by_zero"),
    # store: value a[bad] faults first; the index 1 // z is never evaluated
    ("out[1 // z] = a[bad]", "out_of_bounds"),
    # operands left to right
    ("x = a[bad] + 1 // z", "out_of_bounds"),
    ("x = 1 // z + a[bad]", "division_by_zero"),
    ("x = a[bad] % (1 // z)", "out_of_bounds"),
    ("x = 1 % z - a[bad]", "division_by_zero"),
    # comparisons too
    ("x = i32(a[bad] < 1 // z)", "out_of_bounds"),
    # helper arguments left to right
    ("x = h(a[bad], 1 // z)", "out_of_bounds"),
    ("x = h(1 // z, a[bad])", "division_by_zero"),
    # wave-op arguments left to right
    ("x = shuffle(a[bad], 1 // z)", "out_of_bounds"),
    # atomic_add: index, then value, then the bounds check
    ("atomic_add(out, a[bad], 1 // z)", "out_of_bounds"),
    ("atomic_add(out, 1 // z, a[bad])", "division_by_zero"),
    ("atomic_add(out, bad, 1 // z)", "division_by_zero"),
    ("atomic_add(out, bad, 1)", "out_of_bounds"),
    # if-expression: only the chosen side runs (c is True)
    ("x = 1 // z if c else a[bad]", "division_by_zero"),
    ("x = a[bad] if c else 1 // z", "out_of_bounds"),
    # fail's code is evaluated before the fail itself
    ("fail(1 // z)", "division_by_zero"),
]


@pytest.mark.parametrize("stmt,kind", EVAL_ORDER_CASES, ids=[c[0] for c in EVAL_ORDER_CASES])
def test_evaluation_order_first_fault_wins(stmt: str, kind: str) -> None:
    src = EVAL_ORDER.replace("STMT", stmt)
    out = run(src, "k", 1, 1, a=zeros(4), out=fill(4, 7), z=0, bad=100, c=True)
    assert out.error is None, out.error
    assert out.exception is not None
    assert out.exception.gid == 0
    assert out.exception.fault.kind == kind
    # Every one of these faults is raised in the kernel's own frame, on the STMT line
    # (arguments are evaluated in the caller; h itself never runs).
    assert frames(out.exception.fault) == [("k", line_of(src, stmt))]
    assert out.status == [FAULTED]
    assert out.buffers["out"].tolist() == [7, 7, 7, 7]


def test_short_circuit_and_select_avoid_faults() -> None:
    # z = 0: `z != 0 and ...` never divides; `z == 0 or ...` never divides; the select
    # takes the 5 side; so no fault: out = [0 (False), 1 (True), 5].
    src = """
    def k(out: Buffer[i32], z: i32):
        out[0] = i32(z != 0 and 10 // z > 1)
        out[1] = i32(z == 0 or 10 % z > 1)
        out[2] = 5 if z == 0 else 10 // z
    """
    bufs = ok(src, "k", 1, 1, out=fill(3, 9), z=0)
    assert bufs["out"] == [0, 1, 5]


# ========================================================================= arithmetic

ARITH_I32 = """
def k(out: Buffer[i32], a: i32, b: i32):
    out[0] = a OP b
"""
ARITH_I64 = """
def k(out: Buffer[i64], a: i64, b: i64):
    out[0] = a OP b
"""

ARITH_CASES = [
    # truncating division / remainder (toward zero; r = a - b * q)
    ("i32", -7, "//", 2, -3),
    ("i32", -7, "%", 2, -1),     # -7 - 2*(-3) = -1
    ("i32", 7, "//", -2, -3),
    ("i32", 7, "%", -2, 1),      # 7 - (-2)*(-3) = 1
    ("i32", -7, "//", -2, 3),
    ("i32", -7, "%", -2, -1),    # -7 - (-2)*3 = -1
    ("i32", I32_MIN, "//", -1, I32_MIN),   # 2**31 wraps to MIN
    ("i32", I32_MIN, "%", -1, 0),
    ("i64", -7, "//", 2, -3),
    ("i64", 7, "%", -2, 1),
    ("i64", I64_MIN, "//", -1, I64_MIN),
    ("i64", I64_MIN, "%", -1, 0),
    # wrapping + - *
    ("i32", I32_MAX, "+", 1, I32_MIN),
    ("i32", I32_MIN, "-", 1, I32_MAX),
    ("i32", 65536, "*", 65536, 0),           # 2**32 -> 0
    ("i32", 65537, "*", 65537, 131073),      # 2**32 + 2*65536 + 1 -> 131073
    ("i64", I64_MAX, "+", 1, I64_MIN),
    ("i64", I64_MIN, "-", 1, I64_MAX),
    ("i64", 2**32, "*", 2**32, 0),           # 2**64 -> 0
    ("i64", 2**32 + 1, "*", 2**32 + 1, 2**33 + 1),  # 2**64 + 2**33 + 1 -> 2**33 + 1
    # shifts: amount masked to the width (& 31 / & 63)
    ("i32", 1, "<<", 33, 2),                 # 33 & 31 = 1
    ("i32", 3, "<<", 32, 3),                 # 32 & 31 = 0
    ("i32", 1, "<<", 31, I32_MIN),
    ("i32", 1, "<<", -1, I32_MIN),           # -1 & 31 = 31
    ("i32", 0x40000001, "<<", 1, I32_MIN + 2),  # 0x80000002 -> -2**31 + 2
    ("i64", 1, "<<", 65, 2),                 # 65 & 63 = 1
    ("i64", 1, "<<", 33, 2**33),
    ("i64", 1, "<<", 63, I64_MIN),
    # arithmetic right shift of negatives
    ("i32", -8, ">>", 1, -4),
    ("i32", -1, ">>", 31, -1),
    ("i32", I32_MIN, ">>", 31, -1),
    ("i32", -16, ">>", 33, -8),              # 33 & 31 = 1
    ("i32", -7, ">>", 1, -4),                # floor(-3.5)
    ("i64", -(2**40), ">>", 68, -(2**36)),   # 68 & 63 = 4
    ("i64", I64_MIN, ">>", 63, -1),
    # bitwise on two's complement
    ("i32", -1, "^", 5, -6),
    ("i32", 6, "&", -4, 4),                  # ...11100 & 110 = 100
    ("i32", 5, "|", -8, -3),                 # ...11000 | 101 = ...11101
]


@pytest.mark.parametrize(
    "ty,a,op,b,expected", ARITH_CASES, ids=[f"{c[0]}:{c[1]}{c[2]}{c[3]}" for c in ARITH_CASES]
)
def test_arithmetic(ty: str, a: int, op: str, b: int, expected: int) -> None:
    src = (ARITH_I32 if ty == "i32" else ARITH_I64).replace("OP", op)
    bufs = ok(src, "k", 1, 1, out=zeros(1, ty), a=a, b=b)
    assert bufs["out"] == [expected]


def test_unary_minus_and_invert_wrap() -> None:
    # -MIN wraps to MIN (i32 and i64); ~0 = -1; ~MAX = MIN; -(-5) = 5.
    src = """
    def k(o32: Buffer[i32], o64: Buffer[i64], a: i32, b: i64):
        o32[0] = -a
        o32[1] = ~0
        o32[2] = ~2147483647
        o32[3] = -(-5)
        o64[0] = -b
    """
    bufs = ok(src, "k", 1, 1, o32=zeros(4), o64=zeros(1, "i64"), a=I32_MIN, b=I64_MIN)
    assert bufs["o32"] == [I32_MIN, -1, I32_MIN, 5]
    assert bufs["o64"] == [I64_MIN]


def test_mixed_widths_widen_and_literals_are_i32() -> None:
    # a: i32 = 2**31 - 1, b: i64 = 1, c: i32 = -5.
    # [0] a + b: i32 widened to i64 -> 2147483648 (no wrap).
    # [1] a + 1: both i32 -> wraps to -2147483648 before the store widens it.
    # [2] a * 2: i32 -> 4294967294 wraps to -2.
    # [3] 2147483647 + 1: both literals fit i32 -> i32 -> -2147483648.
    # [4] 2147483648 + 1: 2147483648 does not fit i32, so it is an i64 literal -> 2147483649.
    # [5] i64(a) + 1 -> 2147483648.
    # [6] c + i64(0): widening sign-extends -> -5 (not 4294967291).
    # [7] y: i64 = a; y * 2 -> 4294967294 (y is i64).
    # [8] a << b: mixed -> i64: 2147483647 << 1 = 4294967294 (no wrap at 32 bits).
    src = """
    def k(out: Buffer[i64], a: i32, b: i64, c: i32):
        out[0] = a + b
        out[1] = a + 1
        out[2] = a * 2
        out[3] = 2147483647 + 1
        out[4] = 2147483648 + 1
        out[5] = i64(a) + 1
        out[6] = c + i64(0)
        y: i64 = a
        out[7] = y * 2
        out[8] = a << b
    """
    bufs = ok(src, "k", 1, 1, out=zeros(9, "i64"), a=I32_MAX, b=1, c=-5)
    assert bufs["out"] == [2**31, I32_MIN, -2, I32_MIN, 2**31 + 1, 2**31, -5, 2**32 - 2,
                           2**32 - 2]


def test_negative_literal_min_is_i32() -> None:
    # docs/semantics.md: -2147483648 is one i32 literal, so x is i32 and x - 1 wraps to
    # 2147483647 (stored into an i64 buffer after wrapping). 2147483648 alone is i64:
    # y - 1 = 2147483647 without wrapping, and y + 1 = 2147483649.
    src = """
    def k(out: Buffer[i64]):
        x = -2147483648
        out[0] = x - 1
        y = 2147483648
        out[1] = y + 1
    """
    bufs = ok(src, "k", 1, 1, out=zeros(2, "i64"))
    assert bufs["out"] == [I32_MAX, 2**31 + 1]


@pytest.mark.parametrize("value,expected", [
    (2**32 + 5, 5),            # low 32 bits = 5
    (2**31, I32_MIN),          # 0x80000000
    (-1, -1),
    (I64_MAX, -1),             # low 32 bits all ones
    (I32_MIN - 1, I32_MAX),    # 0xFFFFFFFF7FFFFFFF -> 0x7FFFFFFF
    (-(2**32), 0),
])
def test_i32_narrowing_of_i64(value: int, expected: int) -> None:
    src = """
    def k(out: Buffer[i32], big: i64):
        out[0] = i32(big)
        out[1] = i32(True) + i32(False) * 10
    """
    bufs = ok(src, "k", 1, 1, out=zeros(2), big=value)
    assert bufs["out"] == [expected, 1]


def test_i32_store_into_i64_buffer_and_i64_loads() -> None:
    # inp (i64) = [2**40, -3]; out (i64)[0] = inp[0] + inp[1] = 2**40 - 3;
    # out[1] = i32(inp[0]) = 0 (low 32 bits of 2**40); out[2] = gid() - 1 = -1 (i32 -> i64).
    src = """
    def k(inp: Buffer[i64], out: Buffer[i64]):
        out[0] = inp[0] + inp[1]
        out[1] = i32(inp[0])
        out[2] = gid() - 1
    """
    bufs = ok(src, "k", 1, 1, inp=("i64", [2**40, -3]), out=zeros(3, "i64"))
    assert bufs["out"] == [2**40 - 3, 0, -1]


# ============================================================================= faults

STACK_KERNEL = """
# header comment: line 1 counts
def k(a: Buffer[i32], log: Buffer[i32], z: i32):
    i = gid()
    log[i] = 7
    r = outer(a, i, z)
    log[i] = r


def outer(b: Buffer[i32], i: i32, z: i32) -> i32:
    t = i * 2
    return inner(b, i, z) + t


def inner(c: Buffer[i32], i: i32, z: i32) -> i32:
    if i % 2 == 1:
        BODY
    return 1
"""

STACK_CASES = [
    ("return c[i + 100]", "out_of_bounds", None),     # load out of bounds
    ("c[i + 100] = 5", "out_of_bounds", None),        # store out of bounds
    ("return 10 // z", "division_by_zero", None),
    ("return 10 % z", "division_by_zero", None),
    ("fail(i * 10 + 3)", "fail", 13),                 # gid 1: 1*10 + 3
]


@pytest.mark.parametrize("body,kind,code", STACK_CASES, ids=[c[0] for c in STACK_CASES])
def test_fault_stack_through_two_helpers(body: str, kind: str, code: int | None) -> None:
    # n = 4, wave = 2. Odd gids (1, 3) fault inside inner, called from outer, called from
    # k. Stack, outermost first: k at the call of outer, outer at the call of inner,
    # inner at the faulting line. Lowest faulting gid (1) is the reported exception.
    # log: gid 0: inner 1 + t 0 = 1; gid 2: 1 + 4 = 5; gids 1, 3 keep the 7 they wrote
    # before faulting. a is never written (the store variant is out of bounds).
    src = STACK_KERNEL.replace("BODY", body)
    expected_stack = [
        ("k", line_of(src, "r = outer(a, i, z)")),
        ("outer", line_of(src, "return inner(b, i, z) + t")),
        ("inner", line_of(src, body)),
    ]
    # hand check of the line numbers: the comment is line 1, `def k` line 2
    assert [ln for _, ln in expected_stack] == [5, 11, 16]
    out = run(src, "k", 4, 2, a=zeros(4), log=fill(4, -1), z=0)
    assert out.error is None, out.error
    assert out.exception is not None
    assert out.exception.gid == 1
    f = out.exception.fault
    assert f.kind == kind
    assert frames(f) == expected_stack
    assert f.code == code
    assert out.status == [COMPLETED, FAULTED, COMPLETED, FAULTED]
    assert out.faults is not None and sorted(out.faults) == [1, 3]
    assert frames(out.faults[3]) == expected_stack
    assert out.faults[3].code == (33 if kind == "fail" else None)
    assert out.buffers["log"].tolist() == [1, 7, 5, 7]
    assert out.buffers["a"].tolist() == [0, 0, 0, 0]


def test_lowest_faulting_gid_is_reported_not_the_first_in_time() -> None:
    # n = 2, wave = 2 (one wave, lockstep). Lane 1 fails first in program order (code 11),
    # lane 0 later (code 10, after its store). The report is the lowest gid: 0, code 10.
    # out: gid 0 stored 1 before failing; gid 1 never stored.
    src = """
    def k(out: Buffer[i32]):
        i = gid()
        if i == 1:
            fail(11)
        out[i] = 1
        if i == 0:
            fail(10)
    """
    out = run(src, "k", 2, 2, out=fill(2, -1))
    assert out.exception is not None and out.exception.gid == 0
    assert out.exception.fault.kind == "fail" and out.exception.fault.code == 10
    assert frames(out.exception.fault) == [("k", line_of(src, "fail(10)"))]
    assert out.faults is not None
    assert out.faults[1].code == 11
    assert frames(out.faults[1]) == [("k", line_of(src, "fail(11)"))]
    assert out.status == [FAULTED, FAULTED]
    assert out.buffers["out"].tolist() == [1, -1]


def test_faults_across_waves_status_and_writes_before_fault() -> None:
    # n = 6, wave = 2. Every gid logs i + 10 first; gids with i % 3 == 1 (1 and 4) then
    # fail(i); the others store out[i] = 1.
    # Exception: gid 1, code 1. status: c f c c f c. log fully written; out[1], out[4] stay.
    src = """
    def k(out: Buffer[i32], log: Buffer[i32]):
        i = gid()
        log[i] = i + 10
        if i % 3 == 1:
            fail(i)
        out[i] = 1
    """
    out = run(src, "k", 6, 2, out=fill(6, -1), log=fill(6, -1))
    assert out.exception is not None and out.exception.gid == 1
    assert out.exception.fault.code == 1
    assert out.status == [COMPLETED, FAULTED, COMPLETED, COMPLETED, FAULTED, COMPLETED]
    assert out.faults is not None and out.faults[4].code == 4
    assert out.buffers["log"].tolist() == [10, 11, 12, 13, 14, 15]
    assert out.buffers["out"].tolist() == [1, -1, 1, 1, -1, 1]


def test_store_and_load_out_of_bounds_in_kernel_frame() -> None:
    # Negative indices are out of bounds too (no Python wrap-around).
    # gid 0: out[-1] = 3 -> out_of_bounds at the store line.
    # gid 1: x = out[len(out)] -> out_of_bounds at the load line.
    src = """
    def k(out: Buffer[i32]):
        i = gid()
        if i == 0:
            out[i - 1] = 3
        else:
            x = out[len(out)]
            out[i] = x
    """
    out = run(src, "k", 2, 2, out=fill(4, 9))
    assert out.faults is not None
    assert out.faults[0].kind == "out_of_bounds"
    assert frames(out.faults[0]) == [("k", line_of(src, "out[i - 1] = 3"))]
    assert out.faults[1].kind == "out_of_bounds"
    assert frames(out.faults[1]) == [("k", line_of(src, "x = out[len(out)]"))]
    assert out.buffers["out"].tolist() == [9, 9, 9, 9]


def test_full_run_write_logs_stop_at_fault() -> None:
    # gid 0 writes out[0]=1, out[1]=2 then fails; gid 1 writes out[2]=3 and completes.
    src = """
    def k(out: Buffer[i32]):
        i = gid()
        if i == 0:
            out[0] = 1
            out[1] = 2
            fail(5)
            out[3] = 4
        else:
            out[2] = 3
    """
    full = run_full(make_case(src, "k", 2, 2, out=zeros(4)))
    assert full.fates[1] is None
    assert full.fates[0] is not None and full.fates[0].code == 5
    assert [(w.buffer, w.index, w.value) for w in full.writes[0]] == [("out", 0, 1), ("out", 1, 2)]
    assert [(w.buffer, w.index, w.value) for w in full.writes[1]] == [("out", 2, 3)]
    assert full.final["out"].tolist() == [1, 2, 3, 0]


def test_write_log_columns_are_each_workitems_entries_in_program_order() -> None:
    # lanes run a statement together, so the log is recorded store by store across
    # lanes; its columns (what the checker replays) are workitem by workitem, and an
    # alloc()'d buffer, private to its workitem, is not logged
    src = """
    def k(out: Buffer[i32], acc: Buffer[i64]):
        g = gid()
        p = alloc(2)
        p[0] = g
        out[g * 2] = g + 10
        atomic_add(acc, 0, g + 1)
        out[g * 2 + 1] = p[0] + 20
    """
    full = run_full(make_case(src, "k", 3, 4, out=zeros(6), acc=zeros(1, "i64")))
    gid, buffer, index, value, atomic = (c.tolist() for c in full.writes.columns()[:5])
    names = [full.writes.names[b] for b in buffer]
    assert list(zip(gid, names, index, value, atomic)) == [
        (g, name, i, v, a) for g in range(3) for name, i, v, a in (
            ("out", 2 * g, g + 10, False), ("acc", 0, g + 1, True),
            ("out", 2 * g + 1, g + 20, False))]
    assert [[tuple(w)[:4] for w in log] for log in full.writes] == [
        [(names[k], index[k], value[k], atomic[k]) for k in range(len(gid)) if gid[k] == g]
        for g in range(3)]


# ============================================================================== races


def _race(out: Outcome, a: int, b: int, loc: str) -> None:
    assert out.error is not None
    assert "race" in str(out.error)
    assert re.search(rf"\bworkitem {a}\b", str(out.error)), out.error
    assert re.search(rf"\bworkitem {b}\b", str(out.error)), out.error
    assert loc in str(out.error)


def test_race_two_stores_to_one_location() -> None:
    # gids 0 and 1 both store out[0]: the first and second writer are named.
    src = """
    def k(out: Buffer[i32]):
        out[0] = gid()
    """
    _race(run(src, "k", 2, 2, out=zeros(2)), 0, 1, "out[0]")


def test_race_two_stores_in_different_waves() -> None:
    # gid 1 (wave 0) and gid 6 (wave 3) store out[3]; nobody else touches it.
    src = """
    def k(out: Buffer[i32]):
        i = gid()
        if i == 1 or i == 6:
            out[3] = i
    """
    _race(run(src, "k", 8, 2, out=zeros(8)), 1, 6, "out[3]")


@pytest.mark.parametrize("storer", [0, 1])
def test_race_store_vs_load(storer: int) -> None:
    # One workitem stores x[2], the other loads it (either order in time).
    src = """
    def k(x: Buffer[i32], y: Buffer[i32], s: i32):
        i = gid()
        if i == s:
            x[2] = 5
        else:
            y[i] = x[2]
    """
    _race(run(src, "k", 2, 1, x=zeros(4), y=zeros(2), s=storer), 0, 1, "x[2]")


def test_no_race_for_shared_reads_and_own_locations() -> None:
    # Everybody reads x[2] (nobody writes it): fine. Each workitem stores and re-reads its
    # own y[i]: fine. y[i] = x[2] + 1 = 8, then z[i] = y[i] * 2 = 16.
    src = """
    def k(x: Buffer[i32], y: Buffer[i32], z: Buffer[i32]):
        i = gid()
        y[i] = x[2] + 1
        z[i] = y[i] * 2
    """
    bufs = ok(src, "k", 4, 2, x=fill(4, 7), y=zeros(4), z=zeros(4))
    assert bufs["y"] == [8] * 4
    assert bufs["z"] == [16] * 4


def test_atomic_add_by_many_is_not_a_race_and_sums() -> None:
    # n = 64, wave = 8. acc[0] += gid: 5 + (0 + ... + 63) = 5 + 2016 = 2021.
    # acc[1 + gid % 2] += 1: 32 even gids -> acc[1] = 32, 32 odd -> acc[2] = 32.
    src = """
    def k(acc: Buffer[i32]):
        atomic_add(acc, 0, gid())
        atomic_add(acc, 1 + gid() % 2, 1)
    """
    bufs = ok(src, "k", 64, 8, acc=("i32", [5, 0, 0]))
    assert bufs["acc"] == [2021, 32, 32]


def test_atomic_add_wraps() -> None:
    # i32: k workitems each add 2**31 - 1 to 0.
    #   k = 2: 2**32 - 2 -> wraps to -2.
    #   k = 3: 3 * 2**31 - 3 = 6442450941; minus 2**32 = 2147483645 = 2**31 - 3.
    # i64: each adds -2**62. k = 2: -2**63 (fits). k = 3: -3 * 2**62 + 2**64 = 2**62.
    src = """
    def k(a: Buffer[i32], b: Buffer[i64], big: i64):
        atomic_add(a, 0, 2147483647)
        atomic_add(b, 0, big)
    """
    bufs = ok(src, "k", 2, 2, a=zeros(1), b=zeros(1, "i64"), big=-(2**62))
    assert bufs["a"] == [-2]
    assert bufs["b"] == [-(2**63)]
    bufs = ok(src, "k", 3, 4, a=zeros(1), b=zeros(1, "i64"), big=-(2**62))
    assert bufs["a"] == [2**31 - 3]
    assert bufs["b"] == [2**62]


def test_race_plain_load_of_atomic_location() -> None:
    # gid 0 atomically adds to acc[0]; gid 1 plainly loads acc[0]: a race.
    src = """
    def k(acc: Buffer[i32], out: Buffer[i32]):
        i = gid()
        if i == 0:
            atomic_add(acc, 0, 1)
        else:
            out[i] = acc[0]
    """
    _race(run(src, "k", 2, 2, acc=zeros(1), out=zeros(2)), 0, 1, "acc[0]")


def test_race_load_before_atomic_by_other() -> None:
    # Time order reversed: gid 0 loads acc[0] first, gid 1 adds to it afterwards.
    src = """
    def k(acc: Buffer[i32], out: Buffer[i32]):
        i = gid()
        if i == 0:
            out[i] = acc[0]
        else:
            atomic_add(acc, 0, 1)
    """
    _race(run(src, "k", 2, 1, acc=zeros(1), out=zeros(2)), 0, 1, "acc[0]")


def test_race_plain_store_to_atomic_location() -> None:
    # gids 0..3 atomically add to acc[1]; gid 2 also plainly stores it: a race naming 2 and
    # another atomic updater (0 or 1 come first in time, so the name is one of 0, 1, 3).
    src = """
    def k(acc: Buffer[i32]):
        i = gid()
        atomic_add(acc, 1, 1)
        if i == 2:
            acc[1] = 0
    """
    out = run(src, "k", 4, 4, acc=zeros(2))
    assert out.error is not None and "race" in str(out.error) and "acc[1]" in str(out.error)
    assert re.search(r"\bworkitem 2\b", str(out.error))
    assert re.search(r"\bworkitem [013]\b", str(out.error))


def test_own_atomic_then_load_is_not_a_race() -> None:
    # docs/semantics.md: one workitem mixing plain and atomic accesses to a location only it
    # touches is not a race. acc[i] = 3 + 1 = 4, out[i] = acc[i] = 4.
    src = """
    def k(acc: Buffer[i32], out: Buffer[i32]):
        i = gid()
        atomic_add(acc, i, 1)
        out[i] = acc[i]
    """
    bufs = ok(src, "k", 2, 2, acc=fill(2, 3), out=zeros(2))
    assert bufs["acc"] == [4, 4]
    assert bufs["out"] == [4, 4]


# ======================================================================== step budget

BUDGET_KERNEL = """
def k(out: Buffer[i32], big: i32):
    s = 0
    for j in range(0, big):
        s = s + 1
    out[gid()] = s
"""


def test_trip_budget_counts_loop_trips_only() -> None:
    # docs/semantics.md, "Budgets": a step is one loop trip; statements are not counted.
    # big = 10 is 10 trips: a budget of 10 is enough, 9 is not.
    out = run(BUDGET_KERNEL, "k", 1, 1, {"step_budget": 10}, out=zeros(1), big=10)
    assert out.error is None, out.error
    assert out.buffers["out"].tolist() == [10]
    out = run(BUDGET_KERNEL, "k", 1, 1, {"step_budget": 9}, out=zeros(1), big=10)
    assert out.error is not None and str(out.error).startswith("step_budget: workitem 0 "), out.error
    assert out.exception is None


def test_trip_budget_counts_trips_of_every_loop_and_empty_bodies_too() -> None:
    src = """
    def k(out: Buffer[i32], a: i32, b: i32):
        for i in range(0, a):
            for j in range(0, b):
                pass
        out[gid()] = 1
    """
    # 3 outer trips + 3 * 4 inner trips = 15
    assert run(src, "k", 2, 2, {"step_budget": 15}, out=zeros(2), a=3, b=4).error is None
    err = run(src, "k", 2, 2, {"step_budget": 14}, out=zeros(2), a=3, b=4).error
    assert err is not None and err.kind == "step_budget"


def test_trip_budget_is_per_workitem() -> None:
    # 64 workitems x 10 trips each; a budget of 10 per workitem is enough for all of them.
    out = run(BUDGET_KERNEL, "k", 64, 8, {"step_budget": 10}, out=zeros(64), big=10)
    assert out.error is None, out.error
    assert out.buffers["out"].tolist() == [10] * 64


def test_trip_budget_shares_the_work_budget_out_evenly() -> None:
    # 64 workitems share work_budget: 640 // 64 = 10 trips each is enough, 639 // 64 = 9
    # is not (the per-workitem step_budget, 100,000 by default, is not the limit here).
    out = run(BUDGET_KERNEL, "k", 64, 8, {"work_budget": 640}, out=zeros(64), big=10)
    assert out.error is None, out.error
    out = run(BUDGET_KERNEL, "k", 64, 8, {"work_budget": 639}, out=zeros(64), big=10)
    assert out.error is not None and str(out.error).startswith("step_budget"), out.error
    assert "9 loop trips per workitem" in str(out.error)


def test_trip_budget_stops_a_huge_launch_within_seconds() -> None:
    # 65,536 workitems x 20,000 trips under the default budgets: each may run
    # 1,000,000 // 65,536 = 15 trips, so the run stops after about a million trips.
    t0 = time.process_time()
    out = run(BUDGET_KERNEL, "k", 65536, 64, None, out=zeros(65536), big=20000)
    assert time.process_time() - t0 < 30
    assert out.error is not None and str(out.error).startswith("step_budget"), out.error
    assert "15 loop trips per workitem" in str(out.error)


def test_step_budget_full_run_goes_on_past_an_exhausted_workitem() -> None:
    # Workitem 2 loops 50 times, the others 4 (3 + the trip that breaks): with a budget of
    # 10, workitem 2 stops before its 11th trip (s = 10); every other workitem completes.
    src = """
    def k(out: Buffer[i32], big: i32):
        s = 0
        bound = 3
        if gid() == 2:
            bound = big
        for j in range(0, 60):
            if j < bound:
                s = s + 1
                out[gid()] = s
            else:
                break
    """
    case = make_case(src, "k", 4, 2, out=zeros(4), big=50)
    full = run_full(case, {"step_budget": 10})
    assert full.exhausted == [2]
    assert full.fates == [None] * 4
    assert full.final["out"].tolist() == [3, 3, 10, 3]
    assert [w.value for w in full.writes[2]] == list(range(1, 11))
    assert full.outcome().error is not None


# ============================================================================== loops


def test_empty_ranges_do_not_run_and_keep_loop_variable() -> None:
    # range(5, 2) and range(3, 3) are empty: s stays 0 and j keeps 100 (Python semantics).
    src = """
    def k(out: Buffer[i32]):
        s = 0
        j = 100
        for j in range(5, 2):
            s = s + 1
        for j in range(3, 3):
            s = s + 1
        out[0] = s
        out[1] = j
    """
    bufs = ok(src, "k", 1, 1, out=fill(2, -1))
    assert bufs["out"] == [0, 100]


def test_loop_variable_after_loop_is_last_value() -> None:
    # range(0, 5): j takes 0..4, s = 0+1+2+3+4 = 10, and j is 4 afterwards (not 5).
    # a loop left by break: m takes 0..6, breaks at 6 -> m == 6 afterwards.
    src = """
    def k(out: Buffer[i32]):
        s = 0
        j = 100
        for j in range(0, 5):
            s = s + j
        m = -1
        for m in range(0, 10):
            if m == 6:
                break
        out[0] = s
        out[1] = j
        out[2] = m
    """
    bufs = ok(src, "k", 1, 1, out=zeros(3))
    assert bufs["out"] == [10, 4, 6]


def test_nested_loops_and_inner_break() -> None:
    # s = sum over a in 0..2, b in 0..3 of a*10 + b = 4*(0+10+20) + 3*(0+1+2+3) = 138.
    # t: the inner loop breaks at b == a, so it adds b for b < a:
    #   a=0: nothing; a=1: 0; a=2: 0+1 -> t = 1; the outer loop is unaffected (c = 3 trips).
    src = """
    def k(out: Buffer[i32]):
        s = 0
        t = 0
        c = 0
        for a in range(0, 3):
            c = c + 1
            for b in range(0, 4):
                s = s + a * 10 + b
            for b in range(0, 4):
                if b == a:
                    break
                t = t + b
        out[0] = s
        out[1] = t
        out[2] = c
    """
    bufs = ok(src, "k", 1, 1, out=zeros(3))
    assert bufs["out"] == [138, 1, 3]


def test_loop_bounds_forms() -> None:
    # range(-3, 2): -3-2-1+0+1 = -5.  range(b) with b = 4: 0+1+2+3 = 6.
    # range(len(inp)) with len 5: 5 trips.  continue on even j in range(0, 10): 1+3+5+7+9 = 25.
    # Bounds are evaluated once at loop entry: changing b inside does not change the trips
    # (b = 4 -> 4 trips, e = 4).
    src = """
    def k(inp: Buffer[i32], out: Buffer[i32], b: i32):
        s = 0
        for j in range(-3, 2):
            s = s + j
        out[0] = s
        s = 0
        for j in range(b):
            s = s + j
        out[1] = s
        s = 0
        for j in range(0, len(inp)):
            s = s + 1
        out[2] = s
        s = 0
        for j in range(0, 10):
            if j % 2 == 0:
                continue
            s = s + j
        out[3] = s
        e = 0
        for j in range(0, b):
            b = 0
            e = e + 1
        out[4] = e
    """
    bufs = ok(src, "k", 1, 1, inp=zeros(5), out=zeros(5), b=4)
    assert bufs["out"] == [-5, 6, 5, 25, 4]


def test_loop_bounds_are_any_expressions_evaluated_once_per_lane() -> None:
    # Lane i loops range(i - 1, 2 * i): i = 0: range(-1, 0) -> j = -1; i = 1: range(0, 2)
    # -> 0, 1; i = 2: range(1, 4) -> 1, 2, 3; i = 3: range(2, 6) -> 2, 3, 4, 5.
    # Sums: -1, 1, 6, 14. The bound reads `x`, which the body changes: read once at entry.
    # At trip t the lanes iterating are those with 2i - (i - 1) = i + 1 > t trips:
    # wave_sum(1) at t = 0: 4 lanes, t = 1: 3, t = 2: 2, t = 3: 1 -> per lane the running
    # total over its trips: lane0 4, lane1 4+3, lane2 4+3+2, lane3 4+3+2+1.
    src = """
    def k(out: Buffer[i32], cnt: Buffer[i32]):
        i = lane()
        x = 2 * i
        s = 0
        c = 0
        for j in range(i - 1, x):
            x = 0
            s = s + j
            c = c + wave_sum(1)
        out[i] = s
        cnt[i] = c
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), cnt=zeros(4))
    assert bufs["out"] == [-1, 1, 6, 14]
    assert bufs["cnt"] == [4, 7, 9, 10]


def test_while_true_left_by_break_with_lanes_diverged_by_iteration() -> None:
    # Lane i breaks at trip i (the check comes first), so it runs i full trips.
    # trip t: lanes with i > t reach the ballot: t=0 {1,2,3} 14, t=1 {2,3} 12, t=2 {3} 8.
    # acc = acc * 100 + ballot: lane0 0, lane1 14, lane2 1412, lane3 141208.
    # The loop's exit rejoins everyone: ballot 15. `begun` counts trips begun: i + 1.
    src = """
    def k(out: Buffer[i32], post: Buffer[i32], trips: Buffer[i32]):
        i = lane()
        acc = 0
        t = 0
        begun = 0
        while True:
            begun = begun + 1
            if t == i:
                break
            acc = acc * 100 + i32(ballot(True))
            t = t + 1
        out[i] = acc
        post[i] = i32(ballot(True))
        trips[i] = begun
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), post=zeros(4), trips=zeros(4))
    assert bufs["out"] == [0, 14, 1412, 141208]
    assert bufs["post"] == [15, 15, 15, 15]
    assert bufs["trips"] == [1, 2, 3, 4]


def test_while_true_continue_and_return_from_nested_loops_in_a_helper() -> None:
    # h(x): while True over j = 0, 1, ...: for each j an inner for over m in 0..2; it
    # returns j * 10 + m at the first (j, m) with j + m == x; odd j is skipped (continue).
    # x = lane: lane0 (0,0) -> 0; lane1 (0,1) -> 1; lane2 (0,2) -> 2; lane3: j = 0 gives
    # m up to 2 only, j = 1 is skipped, j = 2: m = 1 -> 21.
    # After the call every lane is back: wave_sum(1) = 4.
    src = """
    def h(x: i32) -> i32:
        j = 0
        while True:
            if j % 2 == 1:
                j = j + 1
                continue
            for m in range(0, 3):
                if j + m == x:
                    return j * 10 + m
            j = j + 1

    def k(out: Buffer[i32], post: Buffer[i32]):
        out[lane()] = h(lane())
        post[lane()] = wave_sum(1)
    """
    bufs = ok(src, "k", 4, 4, out=zeros(4), post=zeros(4))
    assert bufs["out"] == [0, 1, 2, 21]
    assert bufs["post"] == [4, 4, 4, 4]


def test_elect_is_the_lowest_active_lane() -> None:
    # Under `if lane() % 2 == 1` the active lanes of wave 0 are {1, 3}: lane 1 is elected;
    # in wave 1 (lanes 0, 1 of a partial wave of 2, gids 4 and 5) lane 1 (gid 5). With
    # everyone active, lane 0 of each wave. Inside the else (even lanes) lane 0.
    src = """
    def k(out: Buffer[i32], all: Buffer[i32]):
        g = gid()
        all[g] = i32(elect())
        if lane() % 2 == 1:
            out[g] = i32(elect())
        else:
            out[g] = 10 * i32(elect())
    """
    bufs = ok(src, "k", 6, 4, out=zeros(6), all=zeros(6))
    assert bufs["all"] == [1, 0, 0, 0, 1, 0]
    assert bufs["out"] == [10, 1, 0, 0, 10, 1]


def test_i64_loop_bounds() -> None:
    # range(big - 3, big) with big = 2**40 (i64 param): j takes 2**40 - 3 .. 2**40 - 1;
    # the loop variable is i64: sum = 3 * 2**40 - 6.
    src = """
    def k(out: Buffer[i64], big: i64, lo: i64):
        s: i64 = 0
        for j in range(lo, big):
            s = s + j
        out[0] = s
    """
    bufs = ok(src, "k", 1, 1, out=zeros(1, "i64"), big=2**40, lo=2**40 - 3)
    assert bufs["out"] == [3 * 2**40 - 6]
