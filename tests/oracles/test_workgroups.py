"""The oracle and the checker on workgroups (docs/semantics.md, "Workgroups").

As in test_oracle.py, every expected value is derived by hand from the written semantics,
the derivation beside it; none was read back from the oracle.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pytest

from difftest.core.case import Case, case_from_json
from difftest.core.errors import OracleError
from difftest.core.outcome import COMPLETED, FAULTED, NEVER_RAN, ExceptionReport, Outcome
from difftest.core.verdict import check_outcome
from oracles.reference import run_full


def make(src: str, n: int, wave: int, group: int | None, **buffers: list[int]) -> Case:
    launch: dict[str, Any] = {"n": n, "wave": wave}
    if group is not None:
        launch["group"] = group
    return case_from_json({
        "kernel": textwrap.dedent(src).lstrip("\n"), "entry": "kernel", "launch": launch,
        "args": {k: {"dtype": "i32", "data": v} for k, v in buffers.items()}})


def final(case: Case) -> dict[str, list[int]]:
    out = run_full(case).outcome()
    assert out.error is None and out.exception is None, (out.error, out.exception)
    return {k: v.tolist() for k, v in out.buffers.items()}


def outside(case: Case) -> OracleError:
    with pytest.raises(OracleError) as e:
        run_full(case)
    return e.value


TREE_SUM = """
def kernel(inp: Buffer[i32], out: Buffer[i32]):
    tile: Local[i32, 8]
    tile[local_id()] = inp[gid()]
    barrier()
    for k in range(0, 3):
        s = 4 >> k
        if local_id() < s:
            tile[local_id()] = tile[local_id()] + tile[local_id() + s]
        barrier()
    out[gid()] = tile[0] * 100 + group_id() * 10 + group_size()
"""


def test_a_tree_reduction_in_workgroup_memory() -> None:
    # Groups of 8 over 16 workitems (waves of 4: two waves a group). Each group's tile
    # ends with the sum of its 8 inputs in slot 0: 1+..+8 = 36, 9+..+16 = 100. Every
    # workitem writes tile[0] * 100 + group_id() * 10 + 8.
    case = make(TREE_SUM, 16, 4, 8, inp=list(range(1, 17)), out=[0] * 16)
    assert final(case)["out"] == [3608] * 8 + [10018] * 8


def test_workgroup_memory_is_per_group_and_starts_at_zero() -> None:
    # Each group's workitem 0 adds 5 to its own group's slot; every workitem then reads
    # it after the barrier: 5 in every group (instances are not shared across groups, and
    # start at zero).
    case = make("""
    def kernel(out: Buffer[i32]):
        t: Local[i32, 1]
        if local_id() == 0:
            t[0] = t[0] + 5
        barrier()
        out[gid()] = t[0]
    """, 12, 2, 4, out=[0] * 12)
    assert final(case)["out"] == [5] * 12


def test_a_launch_without_a_group_has_groups_of_one_wave() -> None:
    # G = W = 4: local_id() is the lane, group_id() the wave, group_size() 4.
    case = make("""
    def kernel(out: Buffer[i32]):
        out[gid()] = local_id() * 100 + group_id() * 10 + group_size()
    """, 6, 4, None, out=[0] * 6)
    assert final(case)["out"] == [4, 104, 204, 304, 14, 114]


def test_the_last_group_may_be_partial() -> None:
    # n = 10, G = 8: group 1 holds gids 8 and 9 (local ids 0, 1); group_size() stays 8.
    # Its tile slots 2..7 stay 0, so workitem 8 reads slot (0+1) = 9's write: 9, and
    # workitem 9 reads slot 2: 0.
    case = make("""
    def kernel(out: Buffer[i32]):
        t: Local[i32, 8]
        t[local_id()] = gid()
        barrier()
        out[gid()] = t[(local_id() + 1) % group_size()]
    """, 10, 2, 8, out=[-1] * 10)
    assert final(case)["out"] == [1, 2, 3, 4, 5, 6, 7, 0, 9, 0]


def test_a_workgroup_array_access_out_of_bounds_faults() -> None:
    case = make("""
    def kernel(out: Buffer[i32]):
        t: Local[i32, 2]
        t[local_id()] = 1
        out[gid()] = 7
    """, 4, 4, None, out=[0] * 4)
    out = run_full(case).outcome()
    # lanes 2 and 3 index past the 2 slots: out_of_bounds at line 3; lanes 0, 1 go on.
    assert out.status == [COMPLETED, COMPLETED, FAULTED, FAULTED]
    assert out.exception is not None and out.exception.gid == 2
    assert out.exception.fault.kind == "out_of_bounds"
    assert out.exception.fault.stack[-1].line == 3
    assert out.buffers["out"].tolist() == [7, 7, 0, 0]


def test_a_barrier_orders_global_memory_within_a_group() -> None:
    # Each workitem stores its gid, then (after the barrier) reads its group neighbour's
    # slot, then (after another barrier) overwrites its own: a rotation within each group
    # of 4: [1, 2, 3, 0, 5, 6, 7, 4].
    case = make("""
    def kernel(out: Buffer[i32]):
        out[gid()] = gid()
        barrier()
        x = out[group_id() * 4 + (local_id() + 1) % 4]
        barrier()
        out[gid()] = x
    """, 8, 2, 4, out=[0] * 8)
    assert final(case)["out"] == [1, 2, 3, 0, 5, 6, 7, 4]


def test_two_workitems_store_one_location_in_turn() -> None:
    # Workitem 1 stores first (epoch 0), workitem 0 after the barrier (epoch 1): the last
    # store is 0's, 100. Replaying the logs workitem by workitem would leave 1's, 201.
    case = make("""
    def kernel(out: Buffer[i32]):
        if local_id() == 1:
            out[0] = 201
        barrier()
        if local_id() == 0:
            out[0] = 100
    """, 2, 2, None, out=[0])
    full = run_full(case)
    assert full.outcome().buffers["out"].tolist() == [100]
    good = Outcome({"out": np.array([100], np.int32)}, None, [COMPLETED] * 2)
    assert check_outcome(case, full, good).agree
    bad = Outcome({"out": np.array([201], np.int32)}, None, [COMPLETED] * 2)
    verdict = check_outcome(case, full, bad)
    assert not verdict.agree and verdict.rule == "R3 memory"


# --------------------------------------------------------- outside the semantics


def test_a_barrier_part_of_a_group_skips_is_outside_the_semantics() -> None:
    case = make("""
    def kernel(out: Buffer[i32]):
        if local_id() < 4:
            barrier()
        out[gid()] = 1
    """, 16, 4, 8, out=[0] * 16)
    e = outside(case)
    assert e.kind == "barrier"
    assert e.message == ("workitem 0 of workgroup 0 reaches barrier() at line 3 but "
                         "workitem 4 is elsewhere: control flow that reaches a barrier is "
                         "uniform over the workgroup, the same iterations of the same loops")


def test_a_barrier_in_a_group_uniform_branch_is_fine() -> None:
    # Group 1 alone takes the branch, as a whole: each group meets its own barriers.
    case = make("""
    def kernel(out: Buffer[i32]):
        if group_id() == 1:
            barrier()
        out[gid()] = group_id()
    """, 8, 2, 4, out=[0] * 8)
    assert final(case)["out"] == [0, 0, 0, 0, 1, 1, 1, 1]


def test_a_barrier_in_different_loop_trips_is_outside_the_semantics() -> None:
    # Lane 0 makes 2 trips, lane 1 one: at trip 1 lane 1 has left the loop.
    case = make("""
    def kernel(out: Buffer[i32]):
        for k in range(0, 2 - local_id()):
            barrier()
        out[gid()] = 1
    """, 2, 2, None, out=[0] * 2)
    e = outside(case)
    assert e.kind == "barrier" and "workitem 1 is elsewhere" in e.message


def test_returning_before_a_barrier_the_group_meets_is_outside_the_semantics() -> None:
    case = make("""
    def kernel(out: Buffer[i32]):
        if gid() == 3:
            return
        barrier()
        out[gid()] = 1
    """, 4, 4, None, out=[0] * 4)
    e = outside(case)
    assert e.kind == "barrier" and "workitem 3 returned from the kernel" in e.message


def test_a_faulted_workitem_counts_as_arrived() -> None:
    # Workitem 2 fails before the barrier; the rest of its group passes it and stores 5.
    case = make("""
    def kernel(out: Buffer[i32]):
        if gid() == 2:
            fail(7)
        barrier()
        out[gid()] = 5
    """, 8, 2, 4, out=[0] * 8)
    out = run_full(case).outcome()
    assert out.buffers["out"].tolist() == [5, 5, 0, 5, 5, 5, 5, 5]
    assert out.exception is not None and (out.exception.gid, out.exception.fault.code) == (2, 7)


def test_a_race_between_barriers_names_both_workitems() -> None:
    case = make("""
    def kernel(out: Buffer[i32]):
        t: Local[i32, 4]
        t[local_id()] = gid()
        out[gid()] = t[(local_id() + 1) % 4]
    """, 4, 4, None, out=[0] * 4)
    e = outside(case)
    assert e.kind == "race"
    # Every lane stores first (line 3), then every lane loads (line 4); in that order the
    # first conflicting access is lane 0's load of slot 1, which lane 1 stored. No barrier:
    # nothing is said of epochs.
    assert e.message == "workitem 1 stores to workgroup 0's t[1] and workitem 0 loads it"


def test_workgroups_never_race_through_a_barrier() -> None:
    # Group 0 stores out[0]; group 1 loads it after a barrier: barriers order a group
    # with itself only, so this is a race across workgroups.
    case = make("""
    def kernel(out: Buffer[i32], res: Buffer[i32]):
        if gid() == 0:
            out[0] = 9
        barrier()
        if gid() == 2:
            res[0] = out[0]
    """, 4, 2, None, out=[0], res=[0])
    e = outside(case)
    assert e.kind == "race"
    assert e.message == ("workitem 0 stores to out[0] and workitem 2 loads it "
                         "(workgroups 0 and 1: no barrier orders them)")


def test_atomics_of_several_epochs_add_up() -> None:
    # Every workitem adds 1 before and 10 after the barrier to one shared counter: atomics
    # only, so no race; 4 workitems over two groups: 4 * 11 = 44.
    case = make("""
    def kernel(out: Buffer[i32]):
        atomic_add(out, 0, 1)
        barrier()
        atomic_add(out, 0, 10)
    """, 4, 1, 2, out=[0])
    assert final(case)["out"] == [44]


# ------------------------------------------------------------------ the checker


def test_a_group_that_synchronises_runs_whole_or_not_at_all() -> None:
    # Workitem 0 faults; the target reports it and leaves group 1 never-ran (legal) or
    # only workitem 3 of it never-ran (not: 2 and 3 meet at the barrier).
    case = make("""
    def kernel(out: Buffer[i32]):
        if gid() == 0:
            fail(1)
        barrier()
        out[gid()] = 5
    """, 4, 1, 2, out=[0] * 4)
    full = run_full(case)
    exc = ExceptionReport(0, full.fates[0])
    whole = Outcome({"out": np.array([0, 5, 0, 0], np.int32)}, exc,
                    [FAULTED, COMPLETED, NEVER_RAN, NEVER_RAN])
    assert check_outcome(case, full, whole).agree
    part = Outcome({"out": np.array([0, 5, 5, 0], np.int32)}, exc,
                   [FAULTED, COMPLETED, COMPLETED, NEVER_RAN])
    verdict = check_outcome(case, full, part)
    assert verdict.rule == "R2 fates" and "workgroup 1 is partly never-ran" in verdict.message


def test_without_barriers_never_ran_is_per_workitem_as_before() -> None:
    # No barrier: nothing ties a group's workitems together, so any never-ran set the
    # policy allows is legal (R2 only asks for an exception to be reported).
    case = make("""
    def kernel(out: Buffer[i32]):
        t: Local[i32, 2]
        if gid() == 0:
            fail(1)
        out[gid()] = 5
    """, 4, 1, 2, out=[0] * 4)
    full = run_full(case)
    exc = ExceptionReport(0, full.fates[0])
    part = Outcome({"out": np.array([0, 5, 5, 0], np.int32)}, exc,
                   [FAULTED, COMPLETED, COMPLETED, NEVER_RAN])
    assert check_outcome(case, full, part).agree


def test_sequential_policy_runs_a_synchronising_kernel_group_by_group() -> None:
    # Under `sequential`, everything after the reported workitem's *group* is never-ran:
    # workitem 1 (same group as the faulting 0, a later wave) ran.
    case = make("""
    def kernel(out: Buffer[i32]):
        if gid() == 0:
            fail(1)
        barrier()
        out[gid()] = 5
    """, 4, 1, 2, out=[0] * 4)
    full = run_full(case)
    exc = ExceptionReport(0, full.fates[0])
    good = Outcome({"out": np.array([0, 5, 0, 0], np.int32)}, exc,
                   [FAULTED, COMPLETED, NEVER_RAN, NEVER_RAN])
    assert check_outcome(case, full, good, policy="sequential").agree
    ran_later = Outcome({"out": np.array([0, 5, 5, 5], np.int32)}, exc,
                        [FAULTED, COMPLETED, COMPLETED, COMPLETED])
    verdict = check_outcome(case, full, ran_later, policy="sequential")
    assert verdict.rule == "R1 exception" and "in a workgroup after" in verdict.message


def test_a_synchronising_kernel_whose_every_access_faults() -> None:
    # The one workitem divides by g = 0 before its first store: no access is made at all,
    # and the race rule has nothing to look at.
    case = make("""
    def kernel(out: Buffer[i32]):
        t: Local[i32, 4]
        t[local_id()] = 1 // gid()
        barrier()
        out[gid()] = t[0]
    """, 1, 1, None, out=[0])
    out = run_full(case).outcome()
    assert out.exception is not None and out.exception.fault.kind == "division_by_zero"
    assert out.buffers["out"].tolist() == [0]
