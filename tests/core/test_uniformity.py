"""The `uniform` reconvergence model: the static analysis (difftest/core/uniformity.py) on
hand-written kernels whose answers follow from the rule in docs/semantics.md, the oracle's
run-time half (`FullRun.partial_wave_op`), and the analysis held against the oracle on
generated kernels: where it says lanes stay together, no living lane is ever missing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from difftest.core.case import Case
from difftest.core.ir import check, nodes as n, parse
from difftest.core.ir.walk import walk
from difftest.core.reconvergence import MAXIMAL, UNIFORM, undefined_wave_ops
from difftest.core.uniformity import analyse


def _marks(src: str) -> dict[int, str]:
    """line -> "" / "div" / "scar" / "div scar" for each wave operation."""
    program = check(parse(src))
    u = analyse(program, "kernel")
    out = {}
    for f in program.functions:
        for x in walk(f.body):
            if isinstance(x, n.WaveOp):
                out[x.line] = " ".join(k for k, s in (("div", u.divergent),
                                                      ("scar", u.scarred)) if id(x) in s)
    return out


def test_divergent_conditions_make_divergent_places_and_merges_end_them() -> None:
    src = """def kernel(inp: Buffer[i32], out: Buffer[i32], s: i32):
    a = wave_sum(1)
    if inp[gid()] > 0:
        b = wave_sum(2)
    c = wave_sum(3)
    if s > 0:
        d = wave_sum(4)
    if inp[wave()] > 0:
        e = wave_sum(5)
    out[gid()] = a
"""
    # line 4: under a condition on gid(); line 7: a scalar parameter; line 9: a load at a
    # uniform index is the same in every lane; lines 2, 5: before, and after the merge
    assert _marks(src) == {2: "", 4: "div", 5: "", 7: "", 9: ""}


def test_wave_operations_inside_float_math_are_seen_and_float_math_can_diverge() -> None:
    src = """def kernel(fin: Buffer[f32], fout: Buffer[f32]):
    for k in range(0, lane()):
        a = fma(wave_min(0.0), 0.0, 0.0)
    b = abs(wave_max(1.0))
    if min(fin[gid()], 1.0) > 0.0:
        c = wave_min(2.0)
    if max(wave_max(fin[0]), 1.0) > 0.0:
        d = wave_min(3.0)
    fout[gid()] = b
"""
    # line 3: a wave operation inside fma, in a loop lanes leave at different trips;
    # line 6: under a condition on min() of a per-lane load; line 8: on max() of a
    # uniform value
    assert _marks(src) == {3: "div", 4: "", 6: "div", 7: "", 8: ""}


def test_a_continue_some_lanes_take_scars_the_whole_loop_but_not_after_it() -> None:
    src = """def kernel(inp: Buffer[i32], out: Buffer[i32], s: i32):
    for k in range(0, s):
        a = wave_sum(1)
        if inp[gid()] > 0:
            continue
        b = wave_sum(2)
    c = wave_sum(3)
    for j in range(0, s):
        if inp[j] > 0:
            continue
        d = wave_sum(4)
    out[gid()] = c
"""
    # the first loop's lanes that continued are back at its next trip with all lanes
    # active: no merge brought them there (line 3 in later trips, line 6); its exit is a
    # merge (line 7). The second loop's continue is taken by all lanes or none.
    assert _marks(src) == {3: "div scar", 6: "div scar", 7: "", 11: ""}


def test_a_break_some_lanes_take_leaves_the_rest_of_the_loop_divergent_unscarred() -> None:
    src = """def kernel(inp: Buffer[i32], out: Buffer[i32], s: i32):
    t = 0
    while True:
        a = wave_sum(1)
        if inp[gid()] > t:
            break
        t = t + 1
    b = wave_sum(t)
    out[gid()] = b
"""
    # lanes that broke are gone until the exit (the oracle sees them missing), where all
    # reconverge; t differs between lanes after the loop, the place of line 8 does not
    assert _marks(src) == {4: "div", 8: ""}


def test_a_helpers_early_return_scars_its_caller_up_to_the_enclosing_merge() -> None:
    src = """def kernel(inp: Buffer[i32], out: Buffer[i32], s: i32):
    if s > 0:
        x = h(inp)
        a = wave_sum(1)
    b = wave_sum(2)
    y = h(inp)
    c = wave_sum(3)
    out[gid()] = y


def h(b: Buffer[i32]) -> i32:
    if b[gid()] > 1:
        return 1
    return wave_sum(6)
"""
    # lines 4 and 7 follow a call some lanes left early: all lanes are active there again
    # but never met at a merge; the if's merge (line 5) is one. Line 14: lanes are gone.
    assert _marks(src) == {4: "scar", 5: "", 7: "scar", 14: "div"}


def test_helpers_called_from_a_scarred_place_are_scarred_and_carry_scars_out() -> None:
    src = """def kernel(inp: Buffer[i32], out: Buffer[i32], s: i32):
    for k in range(0, s):
        if inp[gid()] > k:
            continue
        g(inp)
    out[gid()] = f(inp)
    out[gid()] = wave_sum(9)


def g(b: Buffer[i32]):
    x = wave_max(1)


def f(b: Buffer[i32]) -> i32:
    y = h(b)
    return wave_min(y)


def h(b: Buffer[i32]) -> i32:
    if b[gid()] > 1:
        return 1
    return 0
"""
    # g runs only in the scarred loop (line 11); f calls h at its top level, so f's own
    # callers go on scarred (line 7), as does f after the call (line 16)
    assert _marks(src) == {11: "div scar", 16: "scar", 7: "scar"}


def test_undefined_wave_ops_under_uniform_are_the_scarred_ones() -> None:
    program = check(parse("""def kernel(inp: Buffer[i32], out: Buffer[i32], s: i32):
    for k in range(0, s):
        if inp[gid()] > 0:
            continue
        out[gid()] = wave_sum(1)
    if inp[gid()] > 0:
        out[gid()] = wave_sum(2)
"""))
    assert [w.line for w in undefined_wave_ops(program, "kernel", UNIFORM)] == [5]


def _run(src: str, n_items: int, wave: int, **args: Any) -> Any:
    from oracles.reference import run_full

    program = check(parse(src))
    arrays = {k: (np.array(v, dtype=np.int32) if isinstance(v, list) else v)
              for k, v in args.items()}
    return run_full(Case(src, "kernel", n_items, wave, arrays, program))


def test_the_oracle_names_the_first_wave_operation_a_wave_ran_in_part() -> None:
    uniform = "def kernel(out: Buffer[i32]):\n    out[gid()] = wave_sum(1)\n"
    assert _run(uniform, 8, 4, out=[0] * 8).partial_wave_op is None
    # lanes past n are not there
    assert _run(uniform, 6, 4, out=[0] * 6).partial_wave_op == (
        "wave_sum() at line 2 runs in wave 1 with 2 of its 4 lanes")
    branch = ("def kernel(out: Buffer[i32]):\n    if gid() > 0:\n"
              "        out[gid()] = wave_sum(1)\n")
    assert _run(branch, 4, 4, out=[0] * 4).partial_wave_op == (
        "wave_sum() at line 3 runs in wave 0 with 3 of its 4 lanes")
    # a lane that faulted before is missing too
    fault = ("def kernel(inp: Buffer[i32], out: Buffer[i32]):\n    x = inp[gid()]\n"
             "    out[gid()] = wave_sum(x)\n")
    assert _run(fault, 4, 4, inp=[1, 2, 3], out=[0] * 4).partial_wave_op == (
        "wave_sum() at line 3 runs in wave 0 with 3 of its 4 lanes")


def _generated(model: str) -> Any:
    from generators.cases import kernel_cases

    return kernel_cases(1, max_n=96, reconvergence=model, waves=(4, 8, 16))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st_cases=st.one_of(_generated(UNIFORM), _generated(MAXIMAL)))
def test_where_the_analysis_says_lanes_stay_together_no_living_lane_is_missing(
        st_cases: Any) -> None:
    """The analysis against the oracle: at a wave operation it calls non-divergent, a
    wave's active lanes are all its lanes but those that faulted, ran out of budget,
    returned from the kernel or lie past n. (Scars are what the oracle cannot see, so
    they are not checked here.)"""
    from oracles import reference

    kernel, cases = st_cases
    u = analyse(kernel.program, kernel.entry)
    seen: list[tuple[int, np.ndarray, np.ndarray]] = []
    ended: set[int] = set()
    wave_op, ret = reference._Run.e_WaveOp, reference._Run.s_Return

    def spy(self: Any, act: Any, e: n.WaveOp, lanes: Any) -> Any:
        active, values = wave_op(self, act, e, lanes)
        if id(e) not in u.divergent:
            gone = self.dead.copy()
            gone[list(ended)] = True
            seen.append((e.line, active.copy(), gone))
        return active, values

    def spy_return(self: Any, act: Any, s: n.Return, lanes: Any) -> Any:
        out = ret(self, act, s, lanes)
        if not act.callers:  # the kernel's own return: the lanes end
            ended.update(lanes.tolist())
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reference._Run, "e_WaveOp", spy)
        mp.setattr(reference._Run, "s_Return", spy_return)
        for case in cases:
            seen.clear()
            ended.clear()
            try:
                reference.run_full(case)
            except Exception:  # noqa: BLE001 - racy or too long: nothing to hold it to
                continue
            for line, active, dead in seen:
                waves = set((active // case.wave).tolist())
                for w in waves:
                    lanes = np.arange(w * case.wave, min((w + 1) * case.wave, case.n))
                    alive = lanes[~dead[lanes]]
                    here = active[active // case.wave == w]
                    assert set(alive.tolist()) <= set(here.tolist()), (
                        f"line {line}: wave {w} runs with {here.tolist()}, alive "
                        f"{alive.tolist()}\n{kernel.source}")
