"""The compiled colouring loop (targets/numba_simt/compiler/coloring.py) against the Python loop it
replaced, kept here as the reference: for every order the same colours and the same spill
victims, round after round, whatever is already excluded (the random order from the same
`random.Random` streams); and colourings that are valid (no two interfering vregs share a
register) and vary with the random order's seed."""

from __future__ import annotations

import bisect
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generators.kernels import kernels
from targets.numba_simt.compiler import coloring
from targets.numba_simt.mutants import Mutants
from targets.numba_simt.compiler.liveness import Liveness, bits, flow, liveness
from targets.numba_simt.compiler.lower import lower
from targets.numba_simt.compiler.regalloc import (ORDERS, AllocationError, _across, _color, _mirrored,
                                         _occurrences)

from ..models.liveness_reference import writes_all

_SETTINGS = st.sampled_from([[], ["uniform-writemask-all"], ["wwm-ignores-inactive"]])


def reference_color(live: Liveness, across: dict[int, int], nregs: int, order: str,
                    rng: random.Random, spill: Any, m: Mutants
                    ) -> tuple[dict[int, int], list[int]]:
    """The Python colouring loop as it was before it was compiled (regalloc.py at
    c4796c4), which `coloring._loop` must match for "lowest" and "recent"."""
    color: dict[int, int] = {}
    first_def: dict[int, int] = {}
    for i, d in enumerate(live.flow.defined):
        if d is not None and d not in first_def:
            first_def[d] = i
    last_use: dict[int, int] = {}
    if order == "recent":
        seen = 0
        for i in range(len(live.live_in) - 1, -1, -1):
            new = live.live_in[i] & ~seen
            if new:
                seen |= new
                for u in bits(new):
                    last_use[u] = i
    ended: dict[int, list[int]] = {}
    victims: list[int] = []
    colored = 0
    holding = [0] * nregs
    blocked = [0] * nregs
    regs = range(nregs)
    instrs, parked, live_out = live.flow.instrs, live.parked, live.live_out
    for v in sorted(first_def):
        bit = 1 << v
        while True:
            mine = across.get(v, 0)
            free = [r for r in regs if not (holding[r] & mine or blocked[r] & bit)]
            if free:
                break
            victim = spill(v, colored, victims)
            if victim is None:
                raise AllocationError("too few")
            victims.append(victim)
            if victim == v:
                break
            r = color.pop(victim)
            holding[r] &= ~(1 << victim)
            colored &= ~(1 << victim)
            blocked[r] = 0
            for u in bits(holding[r]):
                blocked[r] |= across.get(u, 0)
        if not free:
            continue
        i = first_def[v]
        holders: list[tuple[int, int]] = []
        parked_only = parked[i] & ~live_out[i] & colored
        if parked_only and not writes_all(instrs[i], m):
            holders = [(u, color[u]) for u in bits(parked_only) if color[u] in free]
        if order == "random":
            if holders and rng.random() < 0.5:
                choice = rng.choice(holders)[1]
            else:
                choice = rng.choice(free)
        elif holders:
            choice = max(holders)[1]
        elif order == "recent":
            def freed_at(r: int) -> int:
                ends = ended.get(r, ())
                k = bisect.bisect_right(ends, i)
                return ends[k - 1] if k else -1
            choice = max(free, key=lambda r: (freed_at(r), -r))
        else:
            choice = free[0]
        color[v] = choice
        colored |= bit
        holding[choice] |= bit
        blocked[choice] |= across.get(v, 0)
        if order == "recent":
            bisect.insort(ended.setdefault(choice, []), last_use.get(v, i))
    return color, victims


def reference_victim(occurrences: dict[int, int], graph: dict[int, int], failed: int,
                     colored: int, excluded: set[int], rng: random.Random | None) -> int | None:
    """Chaitin's choice as it was."""
    candidates = [u for u in {failed, *bits(graph[failed] & colored)} if u not in excluded]
    if not candidates:
        return None
    if rng is not None and rng.random() < 0.5:
        return rng.choice(sorted(candidates))
    return max(candidates, key=lambda u: (graph[u].bit_count() / occurrences.get(u, 1), -u))


def _round(kernel: Any, tree: bool, m: Mutants) -> tuple[Liveness, int]:
    lowered = lower(kernel.program, kernel.entry, tree=tree, mutants=m)
    return liveness(flow(lowered.code, lowered.logical), lowered.regions, m), lowered.nvregs


@settings(max_examples=80, deadline=None)
@given(kernels(), st.booleans(), st.integers(1, 12), st.sampled_from(ORDERS), _SETTINGS,
       st.integers(0, 2**16), st.data())
def test_colours_and_victims_are_the_python_loops(kernel: Any, tree: bool, nregs: int,
                                                  order: str, names: list[str], seed: int,
                                                  data: Any) -> None:
    """Two rounds, as allocation runs them: the victims' generator (the random order's)
    goes on from one round to the next."""
    m = Mutants.of(names)
    live, nvregs = _round(kernel, tree, m)
    across = _across(live, m)
    defined = sorted({d for d in live.flow.defined if d is not None})
    excluded = set(data.draw(st.lists(st.sampled_from(defined), max_size=6))
                   if defined else [])
    graph = _mirrored(across)
    occurrences = _occurrences(live.flow)
    want_rng = random.Random(seed + 1) if order == "random" else None
    got_rng = coloring.random_state(seed + 1) if order == "random" else None
    for _ in range(2):
        def spill(v: int, colored: int, so_far: list[int]) -> int | None:
            return reference_victim(occurrences, graph, v, colored,
                                    excluded | set(so_far), want_rng)

        try:
            want = reference_color(live, across, nregs, order, random.Random(seed),
                                   spill, m)
        except AllocationError:
            want = None
        try:
            got = _color(live, nvregs, nregs, order, seed, set(excluded), got_rng, m)
        except AllocationError:
            got = None
        if want is not None and want[1]:
            want = ({}, want[1])  # a round that spills returns no colours
        assert got == want


def _valid(live: Liveness, across: dict[int, int], color: dict[int, int]) -> None:
    graph = _mirrored(across)
    for v, r in color.items():
        clash = [u for u in bits(graph.get(v, 0)) if color.get(u) == r]
        assert not clash, f"v{v} shares register {r} with interfering {clash}"
    assert set(color) == {d for d in live.flow.defined if d is not None}


@settings(max_examples=40, deadline=None)
@given(kernels(), st.booleans(), _SETTINGS)
def test_random_order_colours_validly_and_by_its_seed(kernel: Any, tree: bool,
                                                       names: list[str]) -> None:
    m = Mutants.of(names)
    live, nvregs = _round(kernel, tree, m)
    across = _across(live, m)
    nregs = 256  # enough that nothing spills: the colouring itself is checked
    runs = {}
    for seed in (1, 2, 3, 1):
        color, victims = _color(live, nvregs, nregs, "random", seed, set(), None, m)
        assert victims == []
        _valid(live, across, color)
        runs.setdefault(seed, []).append(color)
    assert runs[1][0] == runs[1][1]  # the same seed, the same choices


def test_random_order_choices_vary_with_the_seed() -> None:
    """Three vregs that do not interfere, eight registers: each seed picks at random."""
    seen = set()
    for seed in range(20):
        out = coloring.color([0, 1, 2], 3, [0, 0, 0], [0, 0, 0], [0, 1, 2], [0, 1, 2], 8,
                             "random", seed, set(), dict, None)
        assert out is not None and out[1] == []
        seen.add(tuple(out[0].values()))
    assert len(seen) > 10


def test_random_victims_are_candidates_and_vary() -> None:
    """Four vregs that all interfere, one register: every one but the last coloured is
    spilled, each a legal candidate, and which ones depends on the victim generator."""
    across = [0b1110, 0b1100, 0b1000, 0]
    outs = set()
    for seed in range(12):
        out = coloring.color([0, 1, 2, 3], 4, across, [0] * 4, [0, 1, 2, 3], [3] * 4, 1,
                             "random", 0, set(), lambda: {0: 1, 1: 1, 2: 1, 3: 1},
                             coloring.random_state(seed))
        assert out is not None
        colours, victims = out
        assert colours == {} and len(victims) == 3 and len(set(victims)) == 3
        outs.add(tuple(victims))
    assert len(outs) > 1


def test_no_candidate_left_is_an_allocation_failure() -> None:
    """Two interfering vregs, one register, both excluded (temporaries): nothing can go."""
    assert coloring.color([0, 1], 2, [0b10, 0], [0, 0], [0, 1], [1, 1], 1, "lowest", 0,
                          {0, 1}, lambda: {}, None) is None


def test_warm_up_reaches_every_path() -> None:
    coloring.warm_up()
