"""The fuzz properties: generated cases on each target under test agree with the oracle.

Sharded (each shard its own seed) so `pytest -n auto` spreads them over every core; the
number of examples per shard comes from the difftest profile (`--difftest-profile`:
ci is small and fixed, dev larger, fuzz long).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, seed
from hypothesis import strategies as st

from difftest.runner import check_case, oracle_run
from generators.cases import kernel_cases
from generators.schedules import schedule_by_number, schedule_numbers
from difftest.registry import load_target

SHARDS = 8


@pytest.mark.parametrize("shard", range(SHARDS))
def test_target_agrees_with_oracle(shard: int, difftest_settings: Any,
                                   difftest_targets: list[str]) -> None:
    targets = [load_target(name) for name in difftest_targets if name != "reference"]
    if not targets:
        targets = [load_target("reference")]

    @difftest_settings
    @seed(1000 + shard)
    @given(kernel_cases(), st.lists(schedule_numbers(), max_size=1))
    def prop(kc: Any, numbers: list[int]) -> None:
        kernel, cases = kc
        for case in cases:
            full, oracle_error = oracle_run(case)
            assert oracle_error is None, f"{oracle_error}\n{kernel.source}"
            for target in targets:
                unsupported = getattr(target, "unsupported", None)
                if callable(unsupported) and unsupported(case):
                    continue  # by its declared capabilities (opencl: no wave operations)
                extra = [schedule_by_number(case, k) for k in numbers]
                for schedule in [case.schedule, *extra]:
                    res = check_case(case, target, schedule, None, None, full, oracle_error)
                    if not res.verdict.agree:
                        case.schedule = schedule
                        raise AssertionError(
                            f"{target.name}: {res.verdict}\n{kernel.source}\n"
                            f"case: {json.dumps(case.to_json())}"
                        )

    prop()


def test_collect_less_still_collects_cycles() -> None:
    """The fuzz loop's collector settings collect less often, never not at all: a cycle
    dropped in a fresh process is freed once enough new objects stay alive (the
    collector counts allocations net of deallocations) to run a young collection."""
    script = """
import gc, weakref
from difftest.fuzz import GC_THRESHOLDS, collect_less
collect_less()
assert gc.isenabled() and gc.get_threshold() == GC_THRESHOLDS
class Node:
    pass
a, b = Node(), Node()
a.other, b.other = b, a
gone = weakref.ref(a)
del a, b
junk = []
for i in range(2 * GC_THRESHOLDS[0]):
    junk.append([i])
    if gone() is None:
        break
assert gone() is None, "a dropped cycle outlived a young collection's allocations"
"""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
