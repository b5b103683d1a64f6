"""Concrete values from a strategy outside a test (CLI `sample`, `check --schedules`).

Runs a tiny Hypothesis test with a fixed seed, so the same (strategy, count, seed) gives
the same values. May return fewer than `count` when the strategy's space is smaller.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st


def draw(strategy: st.SearchStrategy[Any], count: int, seed_value: int = 0) -> list[Any]:
    out: list[Any] = []

    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(seed_value)
    @given(strategy)
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    return out[:count]
