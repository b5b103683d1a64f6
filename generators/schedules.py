"""`schedules()` and `target_options()`: open mappings that targets interpret.

The oracle ignores both (that is the point: any schedule and any option must give an
outcome the checker accepts). A target reads the keys it knows and ignores the rest, so
the keys here are plausible ones, not a closed list:

schedule (numba-simt reads `wave_order`, `order_seed`, `slots`, `quantum`,
`stop_on_fault`; the others are for the deopt runtime and later targets):
- `wave_order`: "ascending" | "descending" | "shuffled", with `order_seed` for shuffles;
- `slots`: 1..8 resident waves; `quantum`: instructions per turn among them;
- `stop_on_fault`: whether the deopt flag stops issuing new waves;
- `replay_order`: "ascending" | "descending" | "shuffled" for deopted workitems, with
  `replay_seed`; `never_ran`: "host" | "device" (where never-ran waves run).

target options (numba-simt rejects unknown ones, so only what it declares):
- `registers`: 8..64 physical registers (small budgets force spills);
- `uniform_writes`: "all_lanes" | "active".

Each optional key costs a choice; shrinking removes keys (back to each target's default)
and moves values to the first listed.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

ORDERS = ("ascending", "descending", "shuffled")
_SEED = st.integers(0, 2**16)

_SCHEDULES = st.fixed_dictionaries({}, optional={
    "wave_order": st.sampled_from(ORDERS),
    "order_seed": _SEED,
    "slots": st.integers(1, 8),
    "quantum": st.sampled_from((64, 1, 3, 16)),
    "stop_on_fault": st.booleans(),
    "replay_order": st.sampled_from(ORDERS),
    "replay_seed": _SEED,
    "never_ran": st.sampled_from(("host", "device")),
})

_OPTIONS = st.fixed_dictionaries({}, optional={
    "registers": st.sampled_from((24, 8, 12, 16, 32, 64)),
    "uniform_writes": st.sampled_from(("all_lanes", "active")),
})


def schedules() -> st.SearchStrategy[dict[str, Any]]:
    """A schedule: wave issue order, resident slots, interleaving, replay order."""
    return _SCHEDULES


def target_options() -> st.SearchStrategy[dict[str, Any]]:
    """Compiler options: the register budget and how uniform values are written."""
    return _OPTIONS
