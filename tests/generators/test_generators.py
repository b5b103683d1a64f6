"""The generators: kernels are valid, race-free and terminating by construction (the oracle
never reports a race or a step-budget overrun); every construct and fault kind appears in
at least 5% of a fixed-seed sample; launches, inputs, schedules have the intended shape.

Run with `-s` to see the coverage table and the generation speed.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from difftest.core import f32
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from difftest.core.case import case_from_json
from difftest.core.ir.types import DTYPES, value_of
from difftest.core.ir import nodes as n
from difftest.core.ir import parse
from generators.cases import cases, cases_for, kernel_cases
from generators.coverage import ALL_CONSTRUCTS, FAULT_KINDS, constructs, fault_kinds
from generators.pairs import kernel_pairs
from generators.inputs import arguments
from generators.kernels import MAX_LOOP, kernels
from generators.launches import WAVES, launches
from generators.sampling import draw
from generators.schedules import schedules, target_options
from difftest.core.options import DEFAULT_STEP_BUDGET, DEFAULT_WORK_BUDGET
from oracles.reference import OracleError, run_full

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
SAMPLE_SEED = 20261122
SAMPLE_KERNELS = 300


def max_steps(program: n.Program, entry: str) -> int:
    """A static upper bound on the loop trips (the budget's steps) of one workitem of
    `entry` (`s` and `len(acc)` taken at generators' MAX_LOOP)."""
    memo: dict[str, int] = {}

    def function(name: str) -> int:
        if name not in memo:
            memo[name] = block(program.function(name).body)
        return memo[name]

    def calls(e: Any) -> int:
        if isinstance(e, tuple):
            return sum(calls(x) for x in e)
        if not isinstance(e, n.EXPR_NODES):
            return 0
        total = function(e.func) if isinstance(e, n.Call) else 0
        for f in ("operand", "left", "right", "cond", "then", "orelse", "index", "args"):
            total += calls(getattr(e, f, None))
        return total

    def most(e: n.Expr) -> int:
        """The largest value a generated bound can take."""
        if isinstance(e, n.Const):
            return int(e.value)
        if isinstance(e, n.Binary) and e.op == "&" and isinstance(e.right, n.Const):
            return int(e.right.value)  # x & m <= m for m >= 0
        return MAX_LOOP  # `s` and len(acc): inputs keep them within MAX_LOOP

    def trips(s: n.For) -> int:
        least = int(s.start.value) if isinstance(s.start, n.Const) else 0  # starts >= 0
        return max(0, most(s.stop) - least)

    def while_trips(s: n.While) -> int:
        # the generator's counter loop: `c = c + 1; if c > LIMIT: break` (or `>=` at the
        # bottom); LIMIT is a constant, `s` or `(e & m)`
        [limit] = [st.cond.right for st in s.body if isinstance(st, n.If)
                   and isinstance(st.cond, n.Compare) and st.cond.op in (">", ">=")
                   and st.then == (n.Break(),) and isinstance(st.cond.left, n.Name)
                   and st.cond.left.id.startswith("c")][-1:] or [n.Const(10**9)]
        return most(limit) + 1

    def block(stmts: tuple[n.Stmt, ...]) -> int:
        return sum(stmt(s) for s in stmts)

    def stmt(s: n.Stmt) -> int:
        if isinstance(s, n.If):
            return calls(s.cond) + max(block(s.then), block(s.orelse))  # one arm runs
        if isinstance(s, n.For):
            return calls(s.start) + calls(s.stop) + trips(s) * (1 + block(s.body))
        if isinstance(s, n.While):
            return while_trips(s) * (1 + block(s.body))
        if isinstance(s, n.CallStmt):
            return calls(s.call)
        return sum(calls(getattr(s, f, None)) for f in ("value", "index", "code"))

    return function(entry)


# ------------------------------------------------------------------ validity


@settings(max_examples=100, deadline=None, database=None, suppress_health_check=QUIET)
@given(kernel_cases(max_n=1024))
def test_oracle_never_sees_a_race_or_a_budget_overrun(kc: Any) -> None:
    kernel, generated = kc
    for case in generated:
        try:
            run_full(case)
        except OracleError as e:  # pragma: no cover - the message is the point
            raise AssertionError(f"{e}\n{kernel.source}") from None


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=QUIET)
@given(kernels(fault_rate=1.0))
def test_kernels_parse_and_stay_below_the_trip_budget(k: Any) -> None:
    assert parse(k.source) == k.program
    assert k.constructs == constructs(k.program) | kernel_pairs(k.program)
    # every loop terminates by construction, and the launches drawn for a kernel (at most
    # k.max_n workitems) leave each workitem more trips than it can run
    bound = max_steps(k.program, k.entry)
    assert bound < 10**6, k.source
    assert bound <= min(DEFAULT_STEP_BUDGET, DEFAULT_WORK_BUDGET // k.max_n), k.source


def test_the_loop_bound_parameter_only_ever_shrinks() -> None:
    """`s` bounds loops (inputs keep it in -1..8): its only assignment is a loop body's
    `s = s - 1`. (A value the feature `dead` gave it after a loop once let a later
    `range(1, s)` run 32,768 trips, past the oracle's work limit.)"""
    from difftest.core.ir import walk

    for batch in range(8):
        for k in draw(kernels(), 100, batch):
            for fn in k.program.functions:
                for node in walk.walk(fn.body):
                    if isinstance(node, n.Assign) and node.target == "s":
                        v = node.value
                        assert isinstance(v, n.Binary) and v.op == "-" \
                            and isinstance(v.left, n.Name) and v.left.id == "s" \
                            and isinstance(v.right, n.Const) and v.right.value == 1, k.source


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=QUIET)
@given(kernel_cases(per_kernel=2, max_n=300, fault_rate=0.0))
def test_fault_rate_zero_never_faults(kc: Any) -> None:
    kernel, generated = kc
    assert not kernel.faults
    for case in generated:
        assert not fault_kinds(run_full(case)), kernel.source


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=QUIET)
@given(kernel_cases(max_n=300))
def test_arguments_follow_the_kernels_specs(kc: Any) -> None:
    kernel, generated = kc
    for case in generated:
        for b in kernel.buffers:
            data = case.args[b.name]
            # an f32 buffer holds its values' bits, every NaN the one quiet NaN
            # (i32 in int32, every other integer type in int64: storage forms)
            assert data.dtype == (np.int32 if b.dtype in ("i32", "f32") else np.int64)
            if b.dtype == "f32":
                assert all(f32.canonical(int(x)) == int(x) for x in data)
            if b.role == "out":
                assert len(data) <= case.n * b.slots
                if "fault_oob" not in kernel.faults:
                    assert len(data) == case.n * b.slots
            elif b.role == "acc":
                assert 1 <= len(data) <= MAX_LOOP
            elif not kernel.faults & {"fault_oob", "fault_div"}:
                assert len(data) >= 1
        for s in kernel.scalars:
            held = int(case.args[s.name])
            assert s.lo <= (value_of(held, DTYPES[s.type]) if s.type in DTYPES else held) \
                <= s.hi
        # The case file round trip: generated cases are valid case files.
        back = case_from_json(case.to_json())
        assert back.program == case.program
        assert all(np.array_equal(back.args[k], v) for k, v in case.args.items())


# ------------------------------------------------------------------ coverage


def test_every_construct_and_fault_kind_in_at_least_5_percent() -> None:
    """Over SAMPLE_KERNELS distinct kernels drawn as the fuzz loop draws them -- seeded
    batches of BATCH examples (one long Hypothesis run is no such sample: its examples
    mutate earlier ones, and one construct's share moved from 13% to 5% when a change
    elsewhere shifted its draws) -- each with two oracle runs. Repeats are counted once."""
    from difftest.campaign.fuzz import BATCH, batch_seed

    seen: set[str] = set()
    sample: list[frozenset[str]] = []
    runs: list[frozenset[str]] = []
    with_cases = kernels().flatmap(
        lambda k: st.tuples(st.just(k), st.lists(cases_for(k, 200), min_size=2, max_size=2)))
    batch = 0
    while len(seen) < SAMPLE_KERNELS and batch < 4 * SAMPLE_KERNELS // BATCH:
        for kernel, generated in draw(with_cases, BATCH, batch_seed(SAMPLE_SEED, 0, batch)):
            if kernel.source in seen or len(seen) >= SAMPLE_KERNELS:
                continue
            seen.add(kernel.source)
            sample.append(kernel.constructs)
            runs.extend(fault_kinds(run_full(case)) for case in generated)
        batch += 1
    total = len(sample)
    assert total >= SAMPLE_KERNELS * 0.9
    share = {name: sum(name in c for c in sample) / total for name in ALL_CONSTRUCTS}
    share.update({f"fault:{k}": sum(k in f for f in runs) / len(runs) for k in FAULT_KINDS})
    table = "\n".join(f"{name:24s} {100 * v:5.1f}%" for name, v in sorted(share.items()))
    print(f"\n{total} kernels, {len(runs)} oracle runs (faults: share of runs)\n{table}")
    rare = {name: v for name, v in share.items() if v < 0.05}
    assert not rare, f"constructs under 5% of {total} kernels: {rare}\n{table}"


# ------------------------------------------------------------------ shapes


def test_a_kernels_cases_share_their_target_options_unless_asked_not_to() -> None:
    """One compilation per kernel: every case of a kernel_cases draw has the same options
    (speculation dropped above SPECULATE_MAX_N, where the host would finish too many
    lanes); with share_options=False they are drawn apart and differ somewhere."""
    from generators.cases import SPECULATE_MAX_N

    def compile_key(case: Any) -> dict[str, Any]:
        return {k: v for k, v in case.options.items() if k != "speculate"}

    shared = draw(kernel_cases(), 60, 3)
    for _, cs in shared:
        assert all(compile_key(c) == compile_key(cs[0]) for c in cs)
        small = [c.options.get("speculate") for c in cs if c.n <= SPECULATE_MAX_N]
        assert len(set(small)) <= 1
        assert all("speculate" not in c.options for c in cs if c.n > SPECULATE_MAX_N)
    apart = draw(kernel_cases(share_options=False), 60, 3)
    assert any(compile_key(c) != compile_key(cs[0]) for _, cs in apart for c in cs)


def test_launch_sizes_and_partial_waves() -> None:
    sample = draw(launches(), 600, seed_value=3)
    ns = [n_ for n_, _ in sample]
    assert 90 <= statistics.median(ns) <= 180, statistics.median(ns)
    assert max(ns) > 1000 and min(ns) < 10 and max(ns) <= 3000
    assert sum(n_ > 1024 for n_ in ns) / len(ns) < 0.1
    wide = [(n_, w) for n_, w in sample if w > 1]
    assert sum(n_ % w != 0 for n_, w in wide) / len(wide) > 0.5
    assert {w for _, w in sample} == set(WAVES)
    assert all(n_ <= 200 for n_, _ in draw(launches(200), 100, seed_value=4))


def test_schedules_and_options_are_open_mappings_targets_accept() -> None:
    from targets.numba_simt.target import NumbaSimtTarget

    target = NumbaSimtTarget()
    got = draw(schedules(), 100, seed_value=5)
    assert any(s.get("wave_order") == "shuffled" for s in got)
    assert any(not s for s in got)
    assert all(1 <= s.get("slots", 1) <= 8 for s in got)
    for options in draw(target_options(), 60, seed_value=6):
        target.validate_options(options)  # numba-simt rejects unknown option values


@pytest.mark.parametrize("call, message", [
    (lambda: kernels(fault_rate=1.5), "fault_rate=1.5"),
    (lambda: kernels(max_statements=0), "max_statements=0"),
    (lambda: kernel_cases(per_kernel=0), "per_kernel=0"),
    (lambda: launches(0), "max_n=0"),
    (lambda: arguments(None, 0), "n=0"),  # type: ignore[arg-type]
])
def test_bad_arguments_name_the_argument(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_generation_speed_is_reported() -> None:
    count = [0]

    @settings(max_examples=100, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=QUIET)
    @seed(1)
    @given(kernels())
    def gen(_: Any) -> None:
        count[0] += 1

    start = time.perf_counter()
    gen()
    elapsed = time.perf_counter() - start
    one = draw(cases(max_n=64), 1, seed_value=2)
    assert one and one[0].n <= 64
    print(f"\n{count[0] / elapsed:.0f} generated kernels/s on this core")


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 3000))
def test_schedules_keep_host_work_bounded_and_are_valid_for_numba_simt(
        number: int, n_items: int) -> None:
    from generators import schedules as sch
    from targets.numba_simt.runtime.dispatch import check_schedule

    class _Sized:
        n = n_items

    s = sch.schedule_by_number(_Sized(), number)
    check_schedule(s)  # every generated value is one numba-simt takes
    if "deopt_percent" in s:
        assert 1 <= s["deopt_percent"] <= max(1, 100 * sch.HOST_LANES // n_items)
        assert s["deopt_limit"] in sch.DEOPT_LIMITS
    assert s.get("never_ran") != "host" or n_items <= sch.HOST_WAVES_N
    assert s.get("after_exception") != "finish" or n_items <= sch.FINISH_MAX_N
    unbounded = sch.schedule_by_number(None, number)
    assert unbounded.keys() == s.keys()  # bounding changes values, never which keys


def test_a_target_whose_groups_need_one_wave_size_gets_groups_of_one_wave_otherwise() -> None:
    """CUDA's blocks are warps of 32: its generators (group_waves=(32,)) give launches of
    other wave sizes groups of one wave, instead of groups that would be skipped as
    unsupported, and still draw groups of several waves of 32."""
    caps = frozenset({"wave_ops", "faults", "workgroups"})
    sample = draw(kernel_cases(max_n=300, capabilities=caps, one_wave=True,
                               waves=(4, 8, 32), group_waves=(32,)), 400, 3)
    groups = [(c.wave, c.group_size) for k, cs in sample if "workgroups" in k.features
              for c in cs]
    assert groups, "no workgroup kernels drawn"
    assert all(g == w for w, g in groups if w != 32), groups
    assert any(g > w for w, g in groups if w == 32), groups
    free = draw(kernel_cases(max_n=300, capabilities=caps, one_wave=True,
                             waves=(4, 8, 32)), 400, 3)
    assert any(c.group_size > c.wave for k, cs in free for c in cs if c.wave != 32)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(kernel_cases(2))
def test_every_argument_holds_values_of_its_type(kc: Any) -> None:
    """Whatever the generators draw for a buffer or a scalar is a value of its type, in
    its storage form: a case file round-trips it (a u8 output buffer once held -5)."""
    from difftest.core.case import case_from_json

    _, cases = kc
    for case in cases:
        again = case_from_json(case.to_json())
        for name, v in case.args.items():
            w = again.args[name]
            assert (v == w).all() if isinstance(v, np.ndarray) else v == w, name
