"""Concrete values from a strategy outside a test (CLI `sample`).

Runs a tiny Hypothesis test with a fixed seed, so the same (strategy, count, seed) gives
the same values. May give fewer than `count` when the strategy's space is smaller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st


def each(strategy: st.SearchStrategy[Any], count: int, seed_value: int,
         use: Callable[[Any], None]) -> int:
    """`use(value)` for each of the first `count` values drawn, as they are drawn (none
    is kept: a large count holds one at a time); returns how many. An exception `use`
    raises ends the drawing and is raised again here (Hypothesis would shrink it)."""
    used, failed = 0, list[Exception]()

    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(seed_value)
    @given(strategy)
    def collect(value: Any) -> None:
        nonlocal used
        if failed or used >= count:
            return
        try:
            use(value)
        except Exception as e:  # noqa: BLE001 - handed back outside Hypothesis's test
            failed.append(e)
            return
        used += 1

    collect()
    if failed:
        raise failed[0]
    return used


def draw(strategy: st.SearchStrategy[Any], count: int, seed_value: int = 0) -> list[Any]:
    """The first `count` values drawn, as a list."""
    out: list[Any] = []
    each(strategy, count, seed_value, out.append)
    return out
