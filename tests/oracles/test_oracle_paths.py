"""The reference oracle's lane-by-lane paths, and the oracle against its frozen predecessor.

`oracles/reference.py` evaluates whole arrays of lanes (every wave of the launch in one
lockstep pass) and runs code lane by lane only where lanes differ in what happens to them:
faults in some lanes while the others go on, division checks, out-of-bounds loads and
stores, atomics, write logs, and the race rule (a race makes it run the case again wave
by wave to name the pair the semantics' order meets first). Each of those paths has a
test here with values derived by hand from docs/semantics.md (the derivation beside it;
none was read back from an oracle; stack lines are found by searching the kernel text).

The last part is differential: the operator tables lane by lane on edge values; and on
generated kernels, and on small kernels drawn to race often, the oracle's `FullRun`
equals, field by field, that of `tests/models/oracle_legacy.py`, a verbatim copy of the
tree-walking oracle it replaced (lane -> value dicts, one wave after another), kept
frozen as the reference for exactly this comparison.
"""

from __future__ import annotations

import random
import textwrap
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from difftest.core.ir.types import I32, I64
from difftest.core.case import Case, case_from_json
from difftest.core.errors import OracleError
from difftest.core.outcome import Fault, Frame
from generators.cases import kernel_cases
from oracles import reference
from difftest.core.fullrun import FullRun
from oracles.reference import run_full
from tests.models import oracle_legacy

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


# ---------------------------------------------------------------------------- helpers


def K(src: str) -> str:
    """Kernel text from an indented triple-quoted string; line 1 is its first line."""
    return textwrap.dedent(src).lstrip("\n")


def make_case(src: str, n: int, wave: int, options: dict[str, Any] | None = None,
              **args: Any) -> Case:
    """A case of the kernel `k`; a buffer argument is (dtype, data)."""
    a = {name: {"dtype": v[0], "data": list(v[1])} if isinstance(v, tuple) else v
         for name, v in args.items()}
    obj: dict[str, Any] = {"kernel": K(src), "entry": "k",
                           "launch": {"n": n, "wave": wave}, "args": a}
    if options:
        obj["options"] = options
    return case_from_json(obj)


def full(src: str, n: int, wave: int, options: dict[str, Any] | None = None,
         **args: Any) -> FullRun:
    return run_full(make_case(src, n, wave, options, **args))


def race(src: str, n: int, wave: int, **args: Any) -> str:
    """The oracle error of a racy kernel."""
    try:
        run_full(make_case(src, n, wave, **args))
    except OracleError as e:
        return str(e)
    raise AssertionError("no race reported")


def line_of(src: str, needle: str) -> int:
    hits = [i for i, line in enumerate(K(src).splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} found on lines {hits}"
    return hits[0]


def at(src: str, kind: str, *frames: tuple[str, str], code: int | None = None) -> Fault:
    """The fault `kind` with a stack of (function, text on the frame's line)."""
    return Fault(kind, tuple(Frame(f, line_of(src, needle)) for f, needle in frames), code)


def bufs(r: FullRun) -> dict[str, list[int]]:
    return {k: [int(x) for x in v] for k, v in r.final.items()}


def log(r: FullRun) -> list[list[tuple[str, int, int, bool]]]:
    return [[(w.buffer, w.index, w.value, w.atomic) for w in entries] for entries in r.writes]


def zeros(k: int, dtype: str = "i32") -> tuple[str, list[int]]:
    return (dtype, [0] * k)


# ================================================= faults in some lanes, the rest go on

MID_EXPRESSION = """
def k(inp: Buffer[i32], out: Buffer[i32]):
    g = gid()
    v = inp[g * 2] + wave_sum(1)
    out[g] = v
"""


def test_load_fault_mid_expression_leaves_the_wave_op_to_the_others() -> None:
    # n = 7, W = 4, inp[k] = 10 + k (9 entries). inp[2g] is in bounds for g <= 4.
    # wave 0 (g 0..3): all load, wave_sum(1) = 4: out[g] = 10 + 2g + 4 = 14, 16, 18, 20.
    # wave 1 (g 4..6): g 5, 6 fault on the load (indices 10, 12), so only g 4 reaches the
    # wave op: wave_sum(1) = 1, out[4] = 18 + 1 = 19. out[5], out[6] stay 0.
    r = full(MID_EXPRESSION, 7, 4, inp=("i32", [10 + k for k in range(9)]), out=zeros(7))
    assert bufs(r)["out"] == [14, 16, 18, 20, 19, 0, 0]
    oob = at(MID_EXPRESSION, "out_of_bounds", ("k", "inp[g * 2]"))
    assert r.fates == [None] * 5 + [oob, oob]
    assert log(r) == [[("out", g, v, False)] for g, v in enumerate([14, 16, 18, 20, 19])] \
        + [[], []]


DIV_MID_EXPRESSION = """
def k(d: Buffer[i32], out: Buffer[i32]):
    g = gid()
    out[g] = 1000 // d[g] + wave_sum(1)
"""


def test_division_by_zero_in_some_lanes_only() -> None:
    # n = 5, W = 8 (one partial wave), d = [3, 0, -7, 0, 5]: lanes 1 and 3 fault at the
    # `//`; wave_sum(1) counts lanes {0, 2, 4} = 3. 1000 // 3 = 333 -> 336;
    # 1000 // -7 truncates to -142 -> -139; 1000 // 5 = 200 -> 203.
    r = full(DIV_MID_EXPRESSION, 5, 8, d=("i32", [3, 0, -7, 0, 5]), out=zeros(5))
    assert bufs(r)["out"] == [336, 0, -139, 0, 203]
    div = at(DIV_MID_EXPRESSION, "division_by_zero", ("k", "1000 //"))
    assert r.fates == [None, div, None, div, None]
    assert log(r)[1] == [] and log(r)[3] == []


DIVMOD = """
def k(a: Buffer[DT], b: Buffer[DT], q: Buffer[DT], r: Buffer[DT]):
    g = gid()
    q[g] = a[g] // b[g]
    r[g] = a[g] % b[g]
"""


def test_truncating_division_lane_by_lane_divisors() -> None:
    # Per lane (a, b) -> (a // b, a % b), truncating toward zero:
    # (MIN, -1) -> (MIN, 0): MIN // -1 wraps to MIN, MIN % -1 == 0;
    # (7, 2) -> (3, 1); (-7, 2) -> (-3, -1); (7, -2) -> (-3, 1); (-7, -2) -> (3, -1);
    # (MIN, 0) and (5, 0) fault at the `//` line and never reach the `%` line.
    # n = 7, W = 4: waves {0..3} and {4..6}, both with mixed divisors.
    for dt, lo in (("i32", I32_MIN), ("i64", I64_MIN)):
        src = DIVMOD.replace("DT", dt)
        r = full(src, 7, 4, a=(dt, [lo, 7, -7, 7, -7, lo, 5]), b=(dt, [-1, 2, 2, -2, -2, 0, 0]),
                 q=zeros(7, dt), r=zeros(7, dt))
        assert bufs(r)["q"] == [lo, 3, -3, -3, 3, 0, 0]
        assert bufs(r)["r"] == [0, 1, -1, 1, -1, 0, 0]
        div = at(src, "division_by_zero", ("k", "a[g] // b[g]"))
        assert r.fates == [None] * 5 + [div, div]


FAIL_SOME = """
def k(out: Buffer[i32]):
    g = gid()
    if g % 3 == 1:
        fail(g * 10 - 1)
    out[g] = g
"""


def test_fail_in_some_lanes_carries_each_lanes_code() -> None:
    # n = 8, W = 4: g = 1, 4, 7 fail with codes 9, 39, 69; the others store out[g] = g.
    r = full(FAIL_SOME, 8, 4, out=zeros(8))
    assert bufs(r)["out"] == [0, 0, 2, 3, 0, 5, 6, 0]
    fates: list[Fault | None] = [None] * 8
    for g in (1, 4, 7):
        fates[g] = at(FAIL_SOME, "fail", ("k", "fail("), code=g * 10 - 1)
    assert r.fates == fates
    exc = r.outcome().exception
    assert exc is not None and exc.gid == 1


# ========================================================== out-of-bounds loads and stores

STORE_ORDER = """
def k(out: Buffer[i32], idx: Buffer[i32]):
    g = gid()
    out[idx[g]] = wave_sum(g)
"""


def test_store_out_of_bounds_in_some_lanes_after_the_value() -> None:
    # The value first: wave_sum(g) over all 4 lanes = 0+1+2+3 = 6; then the index
    # idx[g] = [2, -1, 3, 0]; then the bounds check on out (3 entries): lanes 1 (-1) and
    # 2 (3) fault at the store, lane 0 stores out[2] = 6, lane 3 out[0] = 6.
    r = full(STORE_ORDER, 4, 4, out=zeros(3), idx=("i32", [2, -1, 3, 0]))
    assert bufs(r)["out"] == [6, 0, 6]
    oob = at(STORE_ORDER, "out_of_bounds", ("k", "out[idx[g]]"))
    assert r.fates == [None, oob, oob, None]
    assert log(r) == [[("out", 2, 6, False)], [], [], [("out", 0, 6, False)]]


HELPER_LOAD = """
def k(inp: Buffer[i32], out: Buffer[i32]):
    g = gid()
    out[g] = get(inp, g - 1)


def get(b: Buffer[i32], i: i32) -> i32:
    return b[i] * 2
"""


def test_load_out_of_bounds_in_a_helper_in_one_lane() -> None:
    # n = 3, W = 2, inp = [5, 6, 7]: g 0 loads b[-1] and faults inside get (stack: the
    # call in k, then the load in get); g 1 -> 2 * inp[0] = 10, g 2 -> 2 * inp[1] = 12.
    r = full(HELPER_LOAD, 3, 2, inp=("i32", [5, 6, 7]), out=zeros(3))
    assert bufs(r)["out"] == [0, 10, 12]
    assert r.fates == [at(HELPER_LOAD, "out_of_bounds", ("k", "get(inp"), ("get", "b[i]")),
                       None, None]


PER_LANE_REFS = """
def k(a: Buffer[i32], b: Buffer[i32], out: Buffer[i32]):
    g = gid()
    r = a if g % 2 == 0 else b
    out[g] = r[g] + len(r)
"""


def test_buffer_references_differ_by_lane() -> None:
    # a = [1, 2, 3], b = [10, 20, 30, 40, 50]; even lanes read a, odd lanes b.
    # g0: a[0] + 3 = 4; g1: b[1] + 5 = 25; g2: a[2] + 3 = 6; g3: b[3] + 5 = 45;
    # g4: a[4] is out of bounds (a has 3 entries, though b has 5).
    r = full(PER_LANE_REFS, 5, 4, a=("i32", [1, 2, 3]), b=("i32", [10, 20, 30, 40, 50]),
             out=zeros(5))
    assert bufs(r)["out"] == [4, 25, 6, 45, 0]
    assert r.fates == [None] * 4 + [at(PER_LANE_REFS, "out_of_bounds", ("k", "out[g] ="))]


PER_LANE_STORES = """
def k(a: Buffer[i32], b: Buffer[i64]):
    g = gid()
    if g % 2 == 0:
        a[g // 2] = g + 2147483647
    else:
        b[g // 2] = i64(g) * 4294967296
"""


def test_stores_to_two_buffers_wrap_to_each_width() -> None:
    # i32: g + MAX wraps for g >= 1: g0 -> MAX, g2 -> MIN + 1, g4 -> MIN + 3.
    # i64: g * 2^32 for g1 -> 4294967296, g3 -> 12884901888.
    r = full(PER_LANE_STORES, 5, 2, a=zeros(3), b=zeros(2, "i64"))
    assert bufs(r) == {"a": [I32_MAX, I32_MIN + 1, I32_MIN + 3],
                       "b": [4294967296, 12884901888]}
    assert log(r) == [[("a", 0, I32_MAX, False)], [("b", 0, 4294967296, False)],
                      [("a", 1, I32_MIN + 1, False)], [("b", 1, 12884901888, False)],
                      [("a", 2, I32_MIN + 3, False)]]


# ==================================================================== atomics

ATOMIC_SAME = """
def k(acc: Buffer[i32], wide: Buffer[i64]):
    g = gid()
    atomic_add(acc, 0, g)
    atomic_add(wide, 0, 1)
"""


def test_many_lanes_add_to_one_location_across_waves() -> None:
    # n = 10, W = 4: acc[0] = 2147483640 + (0 + 1 + ... + 9 = 45) = 2147483685, which
    # wraps to 2147483685 - 2^32 = -2147483611. wide[0] = I64_MAX + 10 wraps to
    # I64_MIN + 9. Each workitem's log: its two contributions, marked atomic.
    r = full(ATOMIC_SAME, 10, 4, acc=("i32", [2147483640]), wide=("i64", [I64_MAX]))
    assert bufs(r) == {"acc": [-2147483611], "wide": [I64_MIN + 9]}
    assert log(r) == [[("acc", 0, g, True), ("wide", 0, 1, True)] for g in range(10)]
    assert r.fates == [None] * 10


ATOMIC_ORDER = """
def k(acc: Buffer[i32], idx: Buffer[i32]):
    g = gid()
    atomic_add(acc, idx[g], wave_sum(1))
"""


def test_atomic_index_then_value_then_bounds() -> None:
    # n = 4, W = 4, idx = [0, 5, 1] (3 entries). The index first: g3 faults loading
    # idx[3]. The value next: wave_sum(1) over the 3 lanes left = 3. Then the bounds check
    # on acc (2 entries): g1's index 5 faults. g0 adds 3 to acc[0], g2 adds 3 to acc[1].
    r = full(ATOMIC_ORDER, 4, 4, acc=zeros(2), idx=("i32", [0, 5, 1]))
    assert bufs(r)["acc"] == [3, 3]
    oob = at(ATOMIC_ORDER, "out_of_bounds", ("k", "atomic_add("))
    assert r.fates == [None, oob, None, oob]
    assert log(r) == [[("acc", 0, 3, True)], [], [("acc", 1, 3, True)], []]


OWN_MIX = """
def k(out: Buffer[i32]):
    g = gid()
    out[g] = 10
    atomic_add(out, g, g)
    out[g] = out[g] * 2
"""


def test_own_plain_and_atomic_accesses_are_not_a_race() -> None:
    # Each workitem alone touches out[g]: 10, then + g, then doubled: (10 + g) * 2.
    r = full(OWN_MIX, 3, 2, out=zeros(3))
    assert bufs(r)["out"] == [20, 22, 24]
    assert log(r) == [[("out", g, 10, False), ("out", g, g, True), ("out", g, 20 + 2 * g, False)]
                      for g in range(3)]


SHARED_READS = """
def k(inp: Buffer[i32], out: Buffer[i32]):
    g = gid()
    if g % 2 == 0:
        out[g] = inp[0] + 1
    else:
        out[g] = inp[0] - 1
"""


def test_everyone_loading_one_unwritten_location_is_not_a_race() -> None:
    r = full(SHARED_READS, 5, 2, inp=("i32", [7]), out=zeros(5))
    assert bufs(r)["out"] == [8, 6, 8, 6, 8]


# ======================================================================= races

LOAD_THEN_STORE = """
def k(out: Buffer[i32]):
    g = gid()
    if g == 3:
        out[0] = 1
    else:
        x = out[0]
"""


def test_race_names_the_pair_in_wave_order() -> None:
    # n = 4, W = 2. Wave 0 runs first: g0 and g1 take the else side and load out[0].
    # Wave 1: the then side first, g3 stores out[0]: it conflicts with the first recorded
    # reader, g0. (Within one wave the then side runs before the else side, so running
    # all waves at once would meet g3's store before any load.)
    assert race(LOAD_THEN_STORE, 4, 2, out=zeros(1)) == \
        "race: workitem 0 loads out[0] and workitem 3 stores to it"


def test_race_two_stores_in_one_statement() -> None:
    # n = 4, W = 4: g0 and g1 both store out[0]; g0's store comes first in lane order.
    src = """
    def k(out: Buffer[i32]):
        g = gid()
        out[g // 2] = g
    """
    assert race(src, 4, 4, out=zeros(2)) == \
        "race: workitem 0 stores to out[0] and workitem 1 stores to it"


def test_race_across_waves_without_divergence() -> None:
    # n = 4, W = 2: wave 0 stores out[0] (g0) and out[1] (g1); in wave 1, g2 stores out[0].
    src = """
    def k(out: Buffer[i32]):
        g = gid()
        out[g % 2] = g
    """
    assert race(src, 4, 2, out=zeros(2)) == \
        "race: workitem 0 stores to out[0] and workitem 2 stores to it"


def test_race_atomic_then_load_by_another() -> None:
    # n = 2, W = 2: g1 atomically adds to acc[0] (then side); then both load acc[0], g0
    # first: it conflicts with g1's atomic.
    src = """
    def k(acc: Buffer[i32]):
        g = gid()
        if g == 1:
            atomic_add(acc, 0, 5)
        x = acc[0]
    """
    assert race(src, 2, 2, acc=zeros(1)) == \
        "race: workitem 1 atomically updates acc[0] and workitem 0 loads it"


def test_race_skips_the_storers_own_earlier_load() -> None:
    # g0 and g1 load out[0] (readers: 0, 1); then g0 stores it. Its own load is no
    # conflict; g1's is.
    src = """
    def k(out: Buffer[i32]):
        g = gid()
        x = out[0]
        if g == 0:
            out[0] = 5
    """
    assert race(src, 2, 2, out=zeros(1)) == \
        "race: workitem 1 loads out[0] and workitem 0 stores to it"


def test_race_after_faults_elsewhere_is_still_the_error() -> None:
    # g0 faults (division by zero) before anything; g1 and g2 (wave 1 and 2, W = 1)
    # store out[0]: the race is the result.
    src = """
    def k(out: Buffer[i32]):
        g = gid()
        x = 1 // g
        out[0] = g
    """
    assert race(src, 3, 1, out=zeros(1)) == \
        "race: workitem 1 stores to out[0] and workitem 2 stores to it"


# =========================================================== budgets and wave operations

BUDGET = """
def k(out: Buffer[i32], m: Buffer[i32]):
    g = gid()
    s = 0
    for t in range(0, m[g]):
        s = s + 1
    out[g] = s
"""


def test_exhausted_lanes_stop_while_the_others_go_on() -> None:
    # step_budget 3, m = [1, 5, 3, 4, 0], n = 5, W = 2. A lane would start its 4th trip
    # when m > 3 (g1, g3): steps counts that trip (4) and the lane stops, writing nothing.
    # g0 runs 1 trip (out 1), g2 3 trips (out 3), g4 none (out 0).
    r = full(BUDGET, 5, 2, {"step_budget": 3}, out=zeros(5), m=("i32", [1, 5, 3, 4, 0]))
    assert r.exhausted == [1, 3]
    assert r.trips == [1, 4, 3, 4, 0]
    assert bufs(r)["out"] == [1, 0, 3, 0, 0]
    assert r.fates == [None] * 5
    assert log(r)[1] == [] and log(r)[3] == []
    error = r.outcome().error
    assert error is not None and str(error).startswith(
        "step_budget: workitem 1 ran out of its budget of 3 loop trips")


WAVES = """
def k(p: Buffer[i32], c: Buffer[i32], f: Buffer[i32], sh: Buffer[i32], e: Buffer[i32],
      b: Buffer[i64], d: Buffer[i32]):
    g = gid()
    p[g] = prefix_sum(g)
    c[g] = wave_sum(1)
    f[g] = readfirstlane(g)
    sh[g] = shuffle(g, lane() + 1)
    e[g] = i32(elect())
    b[g] = ballot(g % 2 == 0)
    if g % 3 != 0:
        d[g] = wave_sum(g)
"""


def test_wave_operations_reduce_each_wave_separately() -> None:
    # n = 10, W = 4: waves {0..3}, {4..7}, {8, 9} (a partial last wave).
    # prefix_sum(g): 0,0,1,3 | 0,4,9,15 | 0,8.   wave_sum(1): 4 | 4 | 2.
    # readfirstlane(g): 0 | 4 | 8.
    # shuffle(g, lane + 1): lane 3 reads lane 4, outside the wave -> 0; in the last wave
    # g9 (lane 1) reads lane 2, past n so not active -> 0: 1,2,3,0 | 5,6,7,0 | 9,0.
    # elect(): the lowest active lane of each wave.
    # ballot(g even): lanes 0 and 2 -> 5 | 5 | lane 0 -> 1.
    # g % 3 != 0 leaves {1, 2} | {4, 5, 7} | {8}: wave_sum(g) = 3 | 16 | 8.
    r = full(WAVES, 10, 4, p=zeros(10), c=zeros(10), f=zeros(10), sh=zeros(10),
             e=zeros(10), b=zeros(10, "i64"), d=zeros(10))
    out = bufs(r)
    assert out["p"] == [0, 0, 1, 3, 0, 4, 9, 15, 0, 8]
    assert out["c"] == [4, 4, 4, 4, 4, 4, 4, 4, 2, 2]
    assert out["f"] == [0, 0, 0, 0, 4, 4, 4, 4, 8, 8]
    assert out["sh"] == [1, 2, 3, 0, 5, 6, 7, 0, 9, 0]
    assert out["e"] == [1, 0, 0, 0, 1, 0, 0, 0, 1, 0]
    assert out["b"] == [5, 5, 5, 5, 5, 5, 5, 5, 1, 1]
    assert out["d"] == [0, 3, 3, 0, 16, 16, 0, 16, 8, 0]


def test_ballot_of_lane_63_is_negative_in_every_wave() -> None:
    # n = 128, W = 64: in each wave only lane 63 votes: bit 63 = -2^63.
    src = """
    def k(b: Buffer[i64]):
        g = gid()
        b[g] = ballot(lane() == 63)
    """
    assert bufs(full(src, 128, 64, b=zeros(128, "i64")))["b"] == [I64_MIN] * 128


# ============================================ differential: against the frozen old oracle


def _result(run: Any, case: Case) -> Any:
    """A full run as plain data (each oracle module has its own Write class), or the
    text of its oracle error."""
    try:
        r = run(case)
    except OracleError as e:
        return str(e)
    return {
        "n": r.n, "wave": r.wave, "fates": r.fates, "exhausted": r.exhausted,
        "budget_text": r.budget_text, "trips": r.trips,
        "writes": [[(w.buffer, w.index, w.value, w.atomic) for w in entries]
                   for entries in r.writes],
        "initial": {k: (str(v.dtype), v.tolist()) for k, v in r.initial.items()},
        "final": {k: (str(v.dtype), v.tolist()) for k, v in r.final.items()},
        "outcome": r.outcome().to_json(),
    }


def assert_same_as_legacy(case: Case) -> None:
    new, old = _result(run_full, case), _result(oracle_legacy.run_full, case)
    assert new == old


QUIET = list(HealthCheck)

_EDGES = (-2**63, -2**63 + 1, -2**32, -2**31 - 1, -2**31, -2**31 + 1, -65, -64, -63, -33,
          -32, -31, -7, -2, -1, 0, 1, 2, 7, 31, 32, 33, 63, 64, 65, 2**31 - 2, 2**31 - 1,
          2**31, 2**32, 2**63 - 2, 2**63 - 1)


@pytest.mark.parametrize("bits", [32, 64])
def test_operators_agree_with_the_legacy_python_int_operators(bits: int) -> None:
    """Every arithmetic and comparison operator on all pairs of edge values (and a fixed
    random sample) of the width, lane by lane against the legacy oracle's operators on
    unbounded Python ints: wrapping, truncating `//` and `%`, MIN // -1, masked shifts.
    (A 64-bit operation also stands for i32 operands widened to i64.)"""
    lo, hi = -2**(bits - 1), 2**(bits - 1) - 1
    rng = random.Random(bits)
    values = [v for v in _EDGES if lo <= v <= hi] + [rng.randint(lo, hi) for _ in range(60)]
    pairs = [(x, y) for x in values for y in values]
    a = np.array([x for x, _ in pairs], dtype=np.int64)
    b = np.array([y for _, y in pairs], dtype=np.int64)
    for op, vectorised in reference._ARITH.items():
        keep = [y != 0 or op not in ("//", "%") for _, y in pairs]  # zero faults instead
        got = vectorised(a[keep], b[keep], I32 if bits == 32 else I64).tolist()
        want = [oracle_legacy._ARITH[op](x, y, bits) for (x, y), k in zip(pairs, keep) if k]
        assert got == want, op
    for op, compare in reference._COMPARE.items():
        assert compare(a, b).tolist() == [oracle_legacy._COMPARE[op](x, y) for x, y in pairs]


@settings(max_examples=40, database=None, deadline=None, suppress_health_check=QUIET)
@given(kernel_cases(capabilities=frozenset({"wave_ops", "faults", "host_programs"}),
                    int_types=frozenset({I32, I64})))
def test_generated_kernels_agree_with_the_legacy_oracle(kc: Any) -> None:
    # the legacy copy predates alloc(), workgroups, f32 and the integer types past i32
    # and i64, and the wave operations past the first eleven (relative shuffles, ballot
    # functions, bitwise, clustered and quad operations, wave_all_equal); their semantics
    # are pinned in test_oracle.py, test_workgroups.py, tests/core/test_f32.py,
    # test_ballot_arithmetic.py, test_subgroup_vocabulary.py and the examples' tests
    # (numba-simt against the oracle: the fuzz shards)
    from hypothesis import assume

    from difftest.core.ir import nodes as n
    from difftest.core.ir.walk import walk

    program = kc[0].program
    assume(not any(isinstance(x, n.WaveOp) and (x.op not in n.PAIRED_WAVE_OPS or (
                       x.op in n.CLUSTERED_OPS and len(x.args) == 2))
                   or isinstance(x, n.MathOp) and x.op in n.BALLOT_FUNCTIONS
                   for f in program.functions for x in walk(f.body)))
    for case in kc[1]:
        assert_same_as_legacy(case)


_INDEX = st.sampled_from(["g % 2", "g // 2", "g", "0", "(g * 3) % 4", "lane()", "wave()",
                          "3 - g % 4", "g % 3"])
_GUARD = st.sampled_from(["g % 2 == 0", "lane() == 1", "g > 2", "wave() == 1", "g == 3"])


@st.composite
def _access(draw: st.DrawFn) -> str:
    index = draw(_INDEX)
    return draw(st.sampled_from([f"buf[{index}] = g", f"x = buf[{index}]",
                                 f"atomic_add(buf, {index}, g)", f"y[g] = buf[{index}]"]))


@st.composite
def racy_cases(draw: st.DrawFn) -> Case:
    """Small kernels of stores, loads and atomics to a shared 4-entry buffer, some under
    a branch: many race (and name a pair), some fault, some do neither."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            lines += [f"    if {draw(_GUARD)}:", f"        {draw(_access())}"]
            if draw(st.booleans()):
                lines += ["    else:", f"        {draw(_access())}"]
        else:
            lines.append(f"    {draw(_access())}")
    src = "def k(buf: Buffer[i32], y: Buffer[i32]):\n    g = gid()\n    x = 0\n" \
        + "\n".join(lines) + "\n"
    n = draw(st.integers(1, 10))
    wave = draw(st.sampled_from([1, 2, 4, 8]))
    data = draw(st.lists(st.integers(-3, 3), min_size=4, max_size=4))
    return case_from_json({"kernel": src, "entry": "k", "launch": {"n": n, "wave": wave},
                           "args": {"buf": {"dtype": "i32", "data": data},
                                    "y": {"dtype": "i32", "data": [0] * n}}})


@settings(max_examples=150, database=None, deadline=None, suppress_health_check=QUIET)
@given(racy_cases())
def test_races_agree_with_the_legacy_oracle(case: Case) -> None:
    assert_same_as_legacy(case)


def test_racy_sample_really_races() -> None:
    """The strategy above is worth running: a fixed sample has races and clean runs."""
    from generators.sampling import draw

    results = [_result(run_full, c) for c in draw(racy_cases(), 60, 1)]
    assert any(isinstance(r, str) for r in results)
    assert any(not isinstance(r, str) for r in results)


def test_legacy_copy_is_the_tree_walker() -> None:
    """tests/models/oracle_legacy.py must stay the frozen per-lane interpreter, independent of
    the oracle under test (a comparison with itself would prove nothing)."""
    assert oracle_legacy.run_full is not run_full
    assert hasattr(oracle_legacy, "_WaveRun") and hasattr(oracle_legacy, "_wrap")
