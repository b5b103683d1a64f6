"""`schedules()` and `target_options()`: open mappings that targets interpret (the oracle
ignores them). Shrinks toward the empty mapping, i.e. each target's defaults."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def schedules() -> st.SearchStrategy[dict[str, Any]]:
    """Wave issue order (with a seed for shuffles), resident slots, instructions per turn,
    and whether the deopt flag stops issuing new waves after a fault."""
    return st.fixed_dictionaries({}, optional={
        "wave_order": st.sampled_from(("ascending", "descending", "shuffled")),
        "order_seed": st.integers(0, 2**16),
        "slots": st.integers(1, 4),
        "quantum": st.sampled_from((64, 1, 3, 16)),
        "stop_on_fault": st.booleans(),
    })


def target_options() -> st.SearchStrategy[dict[str, Any]]:
    """Compiler options: the register budget (small values force spills) and how uniform
    values are materialised."""
    return st.fixed_dictionaries({}, optional={
        "registers": st.sampled_from((24, 8, 6, 12, 64)),
        "uniform_writes": st.sampled_from(("all_lanes", "active")),
    })
