"""The workgroup kernels' generator (generators/workgroups.py): race-free and
barrier-uniform by construction (the oracle never rejects one), its launches' workgroup
sizes, and the patterns a fixed-seed sample covers."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from difftest.core.ir import nodes as n
from difftest.core.ir.walk import walk
from generators.cases import _cases_for
from generators.launches import launches
from generators.sampling import draw
from generators.workgroups import GROUP_WAVES, TILE, workgroup_kernels, workgroup_size
from oracles.reference import OracleError, run_full

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def workgroup_cases(fault_rate: float) -> st.SearchStrategy[Any]:
    return workgroup_kernels(fault_rate).flatmap(
        lambda k: _cases_for(k, launches(600), {}, host=False))


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=QUIET)
@given(workgroup_cases(0.3))
def test_the_oracle_never_rejects_a_workgroup_kernel(case: Any) -> None:
    try:
        run_full(case)
    except OracleError as e:  # a race, or a barrier part of a group misses
        raise AssertionError(f"{e}\n{case.kernel}\n{case.launch_text}") from None


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=QUIET)
@given(workgroup_cases(1.0))
def test_faults_before_barriers_never_leave_a_group_short(case: Any) -> None:
    """With every fault kind on, faulting workitems count as arrived: still no error."""
    try:
        run_full(case)
    except OracleError as e:
        raise AssertionError(f"{e}\n{case.kernel}\n{case.launch_text}") from None


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=QUIET)
@given(st.sampled_from((1, 2, 4, 8, 16, 32, 64)).flatmap(
    lambda w: st.tuples(st.just(w), workgroup_size(w))))
def test_a_workgroup_is_whole_waves_within_the_arrays(wg: tuple[int, int]) -> None:
    wave, group = wg
    assert group % wave == 0 and wave <= group <= TILE
    assert group // wave in GROUP_WAVES or group == wave


def _patterns(program: n.Program) -> set[str]:
    """What a kernel is made of, read off its IR."""
    found: set[str] = set()

    def visit(stmts: tuple[n.Stmt, ...], loops: int, branches: int) -> None:
        for s in stmts:
            if isinstance(s, n.Barrier):
                found.add("barrier")
                if loops:
                    found.add("barrier in a loop")
                if branches:
                    found.add("barrier in a branch")
            if isinstance(s, n.AtomicAdd) and s.buffer == "hist":
                found.add("workgroup atomic")
            if isinstance(s, n.Store) and s.buffer in ("tile", "wide") and any(
                    isinstance(x, n.WaveOp) for x in walk(s.value)):
                found.add("wave op into workgroup memory")
            if isinstance(s, n.Return):
                found.add("workgroup return")
            if isinstance(s, n.Fail):
                found.add("fail")
            if isinstance(s, n.LocalArray) and s.element.bits == 64:
                found.add("i64 array")
            if isinstance(s, n.For):
                visit(s.body, loops + 1, branches)
            elif isinstance(s, n.If):
                visit(s.then, loops, branches + 1)
                visit(s.orelse, loops, branches + 1)
    visit(program.function("kernel").body, 0, 0)
    return found


def test_a_sample_covers_every_pattern() -> None:
    # three seeds' samples: one seed's 300 kernels moves a 5% pattern's share by several
    # points (the draws before it change whenever the generators gain a choice)
    sample = [k for seed in (20261125, 1, 2) for k in draw(workgroup_kernels(), 300, seed)]
    counts = Counter(p for k in sample for p in _patterns(k.program))
    wanted = ("barrier", "barrier in a loop", "barrier in a branch", "workgroup atomic",
              "wave op into workgroup memory", "workgroup return", "fail", "i64 array")
    share = {p: counts[p] / len(sample) for p in wanted}
    assert share["barrier"] == 1.0, share
    rare = {p: s for p, s in share.items() if s < 0.02}
    assert not rare, share
