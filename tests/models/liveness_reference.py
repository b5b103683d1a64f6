"""The Python rules `dataflow.py` compiles (liveness.py and regalloc.py as they were
before: big-integer bitsets, one instruction at a time), kept as the reference the
compiled code must match (tests/numba_simt/test_dataflow.py, tests/numba_simt/test_coloring.py); and
`spill_rounds`, the spilled code those tests and test_compiler.py check it on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

from targets.numba_simt.mutants import NONE, Mutants
from targets.numba_simt.isa import ALWAYS_ALL_LANES, UNIFORM_VALUES, Op
from targets.numba_simt.compiler.liveness import (_DROPS, CROSS_LANE, Flow, Liveness, after_spill,
                                         all_lanes, flow)
from targets.numba_simt.compiler.liveness import liveness as compiled_liveness
from targets.numba_simt.compiler.lower import PARKING_KINDS, Instr, Lowered, Region
from targets.numba_simt.compiler.regalloc import _Counter, _spill


def spill_rounds(lowered: Lowered, data: Any, rounds: int, most: int,
                 mutants: Mutants = NONE
                 ) -> Iterator[tuple[list[Any], dict[int, Any], Liveness]]:
    """`lowered`'s code and liveness, then `rounds` times: spill up to `most` vregs drawn
    from `data` (not spilled already, nor a spill's temporary: as allocation does) and
    yield the spilled code, its logical successors and its liveness, worked out from the
    round before's (`after_spill`)."""
    code, overrides = list(lowered.code), dict(lowered.logical)
    fresh = _Counter(lowered.nvregs)
    excluded: set[int] = set()
    live = compiled_liveness(flow(code, overrides), lowered.regions, mutants)
    yield code, overrides, live
    for _ in range(rounds):
        candidates = sorted({d for d in live.flow.defined if d is not None} - excluded)
        if not candidates:
            return
        victims = data.draw(st.lists(st.sampled_from(candidates), unique=True,
                                     min_size=1, max_size=most))
        slots = {v: len(excluded) + k for k, v in enumerate(victims)}
        temps: dict[int, int] = {}
        groups: dict[int, tuple[int, bool]] = {}
        code = _spill(code, live.flow, slots, fresh, temps, set(), overrides, groups, mutants)
        excluded |= set(victims) | set(temps)
        live = compiled_liveness(after_spill(live.flow, code, groups), lowered.regions,
                                 mutants)
        yield code, overrides, live


def reads_every_lane(ins: Instr) -> bool:
    """Whether an instruction reads its operands in every lane, inactive ones too (an
    all-lane op; SET_INACTIVE reads only the active lanes, and a spill's temporary
    carries its inactive lanes by itself)."""
    return ins.op not in (Op.SET_INACTIVE, Op.SPILL) and all_lanes(ins)


def writes_all(ins: Instr, mutants: Mutants = NONE) -> bool:
    """Whether allocation treats the write as all-lane (not a uniform one under the
    `uniform-writemask-all` mutant)."""
    if not (ins.op in ALWAYS_ALL_LANES or ins.wm == 1):
        return False
    return not (ins.op in UNIFORM_VALUES and mutants.on("uniform-writemask-all"))


def backward(succs: list[list[int]], use_bits: list[int], def_bits: list[int]
             ) -> tuple[list[int], list[int]]:
    """Backward liveness to a fixed point over the CFG `succs`: (live_in, live_out)."""
    n = len(succs)
    live_in, live_out = [0] * n, [0] * n
    keep = [~d for d in def_bits]
    back = [(i, s) for i in range(n) for s in succs[i] if s <= i]
    while True:
        for i in range(n - 1, -1, -1):
            out = 0
            for s in succs[i]:
                out |= live_in[s]
            live_out[i] = out
            live_in[i] = use_bits[i] | (out & keep[i])
        if all(live_in[s] & ~live_out[i] == 0 for i, s in back):
            return live_in, live_out


def whole_wave(f: Flow, mutants: Mutants = NONE) -> list[int]:
    """The values all-lane instructions read, live over the physical CFG."""
    n = len(f.instrs)
    use_bits = [0] * n
    for i, ins in enumerate(f.instrs):
        if f.reads[i] and reads_every_lane(ins):
            for u in f.reads[i]:
                use_bits[i] |= 1 << u
    tracked = 0
    for b in use_bits:
        tracked |= b
    if not tracked or mutants.on("whole-wave-read-not-live"):
        return [0] * n
    kill = [d & tracked for d in f.def_bits]
    return backward(f.physical, use_bits, kill)[1]


def liveness(f: Flow, regions: list[Region], mutants: Mutants = NONE
             ) -> tuple[list[int], list[int], list[int], list[int]]:
    """(live_in, live_out, parked, whole)."""
    n = len(f.instrs)
    live_in, live_out = backward(f.logical, f.use_bits, f.def_bits)
    parked = [0] * n
    dropped = {kind for name, kind in _DROPS.items() if mutants.on(name)}
    for r in regions:
        if r.kind not in PARKING_KINDS or r.kind in dropped:
            continue
        start, stop = f.label_at[r.start], f.label_at[r.end]
        waiting = live_in[f.label_at[r.parked]] if f.label_at[r.parked] < n else 0
        if not waiting:
            continue
        for i in range(start, stop):
            parked[i] |= waiting
    return live_in, live_out, parked, whole_wave(f, mutants)


def across(f: Flow, live_out: list[int], parked: list[int], whole: list[int],
           mutants: Mutants = NONE) -> dict[int, int]:
    """Each defined vreg -> the vregs its defs may not clobber."""
    adjacent: dict[int, int] = {}
    parked_too = not mutants.on("wwm-ignores-inactive")
    for i, d in enumerate(f.defined):
        if d is None:
            continue
        ins = f.instrs[i]
        out = live_out[i] | whole[i]
        if parked_too and writes_all(ins, mutants):
            out |= parked[i]
        others = out & ~(1 << d)
        if ins.op in CROSS_LANE:
            for u in f.used[i]:
                if u != d:
                    others |= 1 << u
        adjacent[d] = adjacent.get(d, 0) | others
    return adjacent
