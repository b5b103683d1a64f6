"""Generated kernels: valid, race-free, terminating; every construct and fault kind
appears often enough (over a fixed-seed sample); launches have the intended shape."""

from __future__ import annotations

import statistics

from hypothesis import HealthCheck, given, seed, settings

from generators.cases import kernel_cases
from generators.coverage import ALL_CONSTRUCTS, FAULT_KINDS, fault_kinds
from generators.launches import launches
from generators.sampling import draw
from oracles.reference import OracleError, run_full

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=QUIET)
@given(kernel_cases())
def test_oracle_never_sees_a_race_or_a_budget_overrun(kc) -> None:  # type: ignore[no-untyped-def]
    kernel, cases = kc
    for case in cases:
        try:
            run_full(case)
        except OracleError as e:  # pragma: no cover - the assertion message is the point
            raise AssertionError(f"{e}\n{kernel.source}") from None


def test_every_construct_and_fault_kind_in_at_least_5_percent() -> None:
    sample = []

    @settings(max_examples=300, deadline=None, database=None, suppress_health_check=QUIET)
    @seed(20261122)
    @given(kernel_cases(per_kernel=2, max_n=200))
    def collect(kc) -> None:  # type: ignore[no-untyped-def]
        kernel, cases = kc
        kinds: set[str] = set()
        for case in cases:
            kinds |= fault_kinds(run_full(case))
        sample.append((kernel.constructs, kinds))

    collect()
    total = len(sample)
    assert total >= 250
    share = {name: sum(name in c for c, _ in sample) / total for name in ALL_CONSTRUCTS}
    share.update({f"fault:{k}": sum(k in f for _, f in sample) / total for k in FAULT_KINDS})
    table = "\n".join(f"{name:24s} {100 * v:5.1f}%" for name, v in sorted(share.items()))
    print(table)
    rare = {name: v for name, v in share.items() if v < 0.05}
    assert not rare, f"constructs under 5% of {total} kernels: {rare}\n{table}"


def test_launch_sizes_and_partial_waves() -> None:
    sample = draw(launches(), 400, seed_value=3)
    ns = [n for n, _ in sample]
    assert 60 <= statistics.median(ns) <= 260, statistics.median(ns)
    assert max(ns) > 1000 and min(ns) < 10
    assert sum(n % w != 0 for n, w in sample) / len(sample) > 0.3
    assert {w for _, w in sample} == {1, 2, 4, 8, 16, 32, 64}
