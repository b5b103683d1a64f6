"""Draws that are a function of the seed and the strategies alone.

Hypothesis (6.131 and later) draws about one integer in twenty from a pool of constants
it collects from the source of every *local* module imported so far. Which modules a
process has imported (a CLI run, a pytest worker after other tests, a target's module
loaded or not), and whether difftest is installed editable, then changed what a seed
draws: the same `--seed` made different kernels in different processes. `pin()` keeps
that pool empty; Hypothesis's own constants (limits, powers of two, NaN...) still come.
"""

from __future__ import annotations

from typing import Any

_EMPTY: Any = None


def _no_local_constants() -> Any:
    return _EMPTY


def pin() -> None:
    """Make every later draw in this process independent of the modules imported
    (idempotent; a Hypothesis without the pool has nothing to pin)."""
    global _EMPTY
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants") \
            or providers._get_local_constants is _no_local_constants:
        return
    _EMPTY = providers.Constants()
    providers._get_local_constants = _no_local_constants
    providers.CONSTANTS_CACHE.cache.clear()
