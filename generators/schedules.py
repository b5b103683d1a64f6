"""Schedules by number, and `target_options()`.

A schedule is an open mapping that targets interpret (the oracle ignores it: that is the
point). Generation draws one integer per schedule, and `schedule_by_number(case, N)`
expands it deterministically, so the N-th schedule of a case is the same everywhere:
`difftest run/check --schedule-seed N` reproduces what the fuzz loop saw, and a schedule
costs one Hypothesis choice instead of one per key. Number 0 is the empty schedule (every
target's defaults); shrinking moves toward it.

Keys (numba-simt reads them; `difftest targets` lists what each target reads):
- `wave_order`: "ascending" | "descending" | "shuffled", with `order_seed` for shuffles;
- `slots`: 1..8 resident waves; `quantum`: instructions per turn among them;
- `replay_order`: "ascending" | "descending" | "shuffled" for deopted workitems, with
  `replay_seed`; `never_ran`: "host" | "device" (where never-ran waves run);
  `after_exception`: "stop" | "finish" (whether they still run once an exception is
  reported); `deopt_percent` with `deopt_seed`: DeoptimizeALot, forced deopts, and
  `deopt_limit`: at most that many of them in a run.

Target options (`target_options()`, numba-simt's; the fuzz loop keeps only the ones the
target under test declares): `registers` (small budgets force spills), `uniform_writes`,
`alloc_order` and `alloc_seed`, `speculate` (a seed: speculation on), `reduce` (tree:
reductions as shuffle butterflies, whose whole-wave sections are long enough to spill in).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from difftest.core.spirv_opt import RECIPE_PASSES

ORDERS = ("ascending", "descending", "shuffled")
MAX_NUMBER = 2**31 - 1

# key -> the values a schedule draws from (each key present in about half the schedules)
_CHOICES: dict[str, tuple[Any, ...]] = {
    "wave_order": ORDERS,
    "slots": (1, 2, 3, 4, 8),
    "quantum": (64, 1, 3, 16),
    "replay_order": ORDERS,
    "never_ran": ("host", "device"),
    "after_exception": ("stop", "finish"),
    "deopt_percent": (10, 50, 100, 3),
}
# a key whose value needs a seed too: the seed key, and the values that use it
_SEEDS = {"wave_order": ("order_seed", ("shuffled",)),
          "replay_order": ("replay_seed", ("shuffled",)),
          "deopt_percent": ("deopt_seed", (10, 50, 100, 3))}


# numba-simt finishes deopted workitems and never-ran waves on the host, far slower than
# the machine (a resume is a compiled call plus Python bookkeeping, tens of microseconds;
# a never-ran wave and whatever follows a wave operation run one Python instruction at a
# time): a schedule keeps that work bounded, so one case stays well under a second. These
# bounds were set when every resume ran in Python. A percentage applies at every
# infopoint a lane passes, so without a limit a lane passing 20 of them deopts 20 times
# as often as the percentage says, and forced deopts would swamp the fuzz loop.
HOST_LANES = 16  # the share of lanes forced to deopt at an infopoint: 16 / n, at most
DEOPT_LIMITS = (1, 2, 4, 8, 16)  # forced deopts in a run, at most
HOST_WAVES_N = 64  # never_ran: "host" only for launches up to this size
# after_exception: "finish" only up to this size: it resumes every faulting lane of every
# wave (a fault in every lane of a large launch is hundreds of host resumes)
FINISH_MAX_N = 256


def schedule_by_number(case: Any, number: int) -> dict[str, Any]:
    """The `number`-th schedule for `case` (0: the empty schedule). Deterministic across
    processes and machines (a `random.Random` seeded by the number alone, then bounded by
    the case's launch size: `HOST_LANES`, `HOST_WAVES_N`, `FINISH_MAX_N`; `case=None` leaves
    it unbounded).
    """
    if number == 0:
        return {}
    rng = random.Random(number)
    out: dict[str, Any] = {}
    for key, values in _CHOICES.items():
        if rng.random() < 0.5:
            out[key] = values[rng.randrange(len(values))]
            if key in _SEEDS and out[key] in _SEEDS[key][1]:
                out[_SEEDS[key][0]] = rng.randrange(2**16)
    if "deopt_percent" in out:
        out["deopt_limit"] = DEOPT_LIMITS[rng.randrange(len(DEOPT_LIMITS))]
    n = getattr(case, "n", None)
    if n is not None:
        if "deopt_percent" in out:
            out["deopt_percent"] = min(out["deopt_percent"], max(1, 100 * HOST_LANES // n))
        if out.get("never_ran") == "host" and n > HOST_WAVES_N:
            out["never_ran"] = "device"
        if out.get("after_exception") == "finish" and n > FINISH_MAX_N:
            out["after_exception"] = "stop"
    return out


def schedule_numbers() -> st.SearchStrategy[int]:
    """Schedule numbers; shrinks toward 0, the empty schedule."""
    return st.integers(0, MAX_NUMBER)


def schedules() -> st.SearchStrategy[dict[str, Any]]:
    """Schedules as dicts (by number; for case-independent uses)."""
    return schedule_numbers().map(lambda k: schedule_by_number(None, k))


_OPTIONS = st.fixed_dictionaries({
    # small budgets (4..7) force spills, and a clobber often needs one of them
    "registers": st.sampled_from((24, 6, 4, 8, 5, 12, 7, 6, 4, 16, 32, 5)),
    "alloc_order": st.sampled_from(("lowest", "random", "recent", "random")),
    "reduce": st.sampled_from(("native", "tree")),
}, optional={
    "uniform_writes": st.sampled_from(("all_lanes", "active")),
    "alloc_seed": st.integers(0, 2**16),
    "speculate": st.integers(1, 2**16),
    # read by the Vulkan GLSL targets under spirv_opt=random: shrinking drops passes
    "spirv_recipe": st.lists(st.sampled_from(RECIPE_PASSES), min_size=1,
                             max_size=8).map(",".join),
})


def target_options() -> st.SearchStrategy[dict[str, Any]]:
    """Compiler options: the register budget and how uniform values are written."""
    return _OPTIONS
