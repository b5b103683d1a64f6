"""Register allocation: virtual registers -> `nregs` physical vector registers, spilling
to per-lane spill slots when they run out.

Contract: input a `Lowered` program; output an `Allocation` with a rewritten instruction
list (spill code inserted) and vreg -> register / slot maps. The input is not changed.

Interference (the liveness rule (docs/semantics.md)):
- a masked write of d interferes with what is live-out at that point over the logical
  CFG (per-lane liveness): values live only in *inactive* lanes may share d's register,
  since a masked write leaves those lanes alone;
- an all-lane write (whole-wave ops, set-inactive, all-lane uniform values, reloads)
  interferes with every value live in any lane there: live-out plus `parked`;
- an op reading other lanes of a source never shares a register with that source.

Colouring is greedy in vreg order. A masked def prefers a register whose value is live
only in parked lanes (the most recently defined one): that is exactly the sharing
per-lane liveness allows, and it keeps fully free registers for all-lane writes, which
cannot use parked ones. Otherwise the register is chosen by `order`: the lowest free one,
the one most recently freed (its last occupant's range ended last before this def), or a
seeded random one -- so a clobber the liveness rules allow does not hang on one greedy
choice. When no register is free, a vreg is spilled everywhere: each use reloads a
temporary, each def writes a temporary that is spilled; a masked def first reloads the
temporary so that the spill (which moves all lanes) keeps the inactive lanes' values, and
keeps that register until the def. Then allocation starts over, on the liveness of the
spilled code (its flow worked out from the round before's: `after_spill`). The colouring
loop and its spill choices run compiled (`coloring.py`), and so does working out what
they read (`dataflow.round_facts`); this module states the rules and writes spill code.

Mutants (`mutants.py`) live here at the places the real bugs did: which liveness an
all-lane write interferes with, how uniform writes count, and how spill code moves lanes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from difftest.core.errors import DifftestError
from difftest.core.ir.types import F32, F64

from . import coloring, dataflow
from ..mutants import NONE, Mutants
from ..isa import Op
from .liveness import Flow, Liveness, after_spill, all_lanes, bits, flow, liveness, uses
from .lower import Instr, Label, Lowered, Region

MAX_ROUNDS = 200
ORDERS = ("lowest", "recent", "random")


class AllocationError(DifftestError):
    """Not even spilling everything fits the register file."""


@dataclass
class Allocation:
    code: list[Instr | Label]
    color: dict[int, int]          # vreg -> physical register
    slot: dict[int, int]           # spilled vreg -> spill slot
    temps: set[int]                # vregs created by spill code
    live: Liveness                 # liveness of the final code
    nregs: int
    nslots: int
    vreg_types: dict[int, Any] = field(default_factory=dict)


def interference(live: Liveness, mutants: Mutants = NONE) -> dict[int, set[int]]:
    """The interference graph: vreg -> the vregs it may not share a register with."""
    return {v: set(bits(others)) for v, others in _mirrored(_across(live, mutants)).items()}


def _round_facts(live: Liveness, nvregs: int, order: str, mutants: Mutants
                 ) -> tuple[np.ndarray, ...]:
    """What a colouring round reads (`dataflow.round_facts`): the defined vregs in order,
    their first defs, their range ends (for the "recent" order), what each one's defs
    may not clobber (`across`: half of each edge of the interference graph, which is all
    colouring needs) and which registers its first def may share (values live only in
    parked lanes, when that def is masked). An all-lane write interferes with parked
    values too (not under `wwm-ignores-inactive`); allocation takes a uniform all-lane
    write for a masked one under `uniform-writemask-all` (the machine always does what
    the instruction says)."""
    a = live.flow.arrays()
    return dataflow.round_facts(
        live.live_in.rows, live.live_out.rows, live.parked.rows, live.whole.rows, a.defs,
        a.flags, a.use_at, a.use, max(nvregs, live.live_in.rows.shape[1] * 64),
        mutants.on("uniform-writemask-all"), not mutants.on("wwm-ignores-inactive"),
        order == "recent")


def _across(live: Liveness, mutants: Mutants = NONE) -> dict[int, int]:
    """Each defined vreg -> the vregs its defs may not clobber, as a bitset (for
    `interference` and the tests; allocation reads `_round_facts`' rows)."""
    vregs, _, _, across, _ = _round_facts(live, 0, "lowest", mutants)
    return {int(v): int.from_bytes(row.tobytes(), "little")
            for v, row in zip(vregs, across)}


def _mirrored(adjacent: dict[int, int]) -> dict[int, int]:
    """The interference graph from `_across`: each vreg's neighbours both ways (for
    `interference` and the tests; allocation builds its own, compiled, in `coloring`)."""
    named = 0  # every vreg in the graph
    for d, others in adjacent.items():
        named |= others | 1 << d
    mirrored = dict.fromkeys(bits(named), 0)
    for d, others in adjacent.items():
        mirrored[d] |= others
        for u in bits(others):
            mirrored[u] |= 1 << d
    return mirrored


def _color(live: Liveness, nvregs: int, nregs: int, order: str, seed: int,
           excluded: set[int], victim_rng: np.ndarray | None, mutants: Mutants,
           dead: frozenset[int] = frozenset()) -> tuple[dict[int, int], list[int]]:
    """Greedy colouring in vreg order with spill decisions on the way: when `v` finds no
    register, a victim is chosen among v and its coloured neighbours (Chaitin's: the
    highest degree per occurrence; never one in `excluded`, nor an earlier victim); a
    coloured victim gives its register back and v tries again. Returns (colours,
    victims); the colours are a valid allocation only when there are no victims. A
    register is taken for v when it holds a vreg v's defs may not clobber, or when a
    vreg it holds may not be clobbered by v's (`_round_facts`' `across`, over vregs below
    `nvregs`). The loop is compiled (`coloring.py`)."""
    vregs, firsts, lasts, across, parked_only = _round_facts(live, nvregs, order, mutants)
    if dead:  # the bug of dead-loop-def-no-interference: their writes stay, unaccounted
        across[np.isin(vregs, sorted(dead))] = 0
    out = coloring.color_rows(vregs, across, parked_only, firsts, lasts, nregs, order,
                              seed, excluded, lambda: _occurrences(live.flow), victim_rng)
    if out is None:
        raise AllocationError(f"registers={nregs} is too few for this kernel, even with spilling")
    return out


def _dead_in_loops(live: Liveness, regions: list[Region], variables: frozenset[int]
                   ) -> frozenset[int]:
    """The variables assigned in a loop and read neither in it nor after it (pairs'
    `live:never`): what dead-loop-def-no-interference takes for removed dead code."""
    f = live.flow
    out: set[int] = set()
    for loop in (r for r in regions if r.kind == "loop_exit"):
        span = range(f.label_at[loop.start], f.label_at[loop.end])
        read = 0
        for i in span:
            read |= f.use_bits[i]
        out.update(d for i in span if (d := f.defined[i]) is not None and d in variables
                   and not read >> d & 1 and not live.live_out[i] >> d & 1)
    return frozenset(out)


def _spill(code: list[Instr | Label], f: Flow, victims: dict[int, int], new_vreg: _Counter,
           temps: dict[int, int], owned: set[Instr], overrides: dict[Instr, list[Label]],
           groups: dict[int, tuple[int, bool]], mutants: Mutants,
           converted: frozenset[int] = frozenset(), narrowed: frozenset[int] = frozenset()
           ) -> list[Instr | Label]:
    """Spill each victim (vreg -> slot) everywhere, in one pass over the code; the same
    code, temporaries numbered alike, as spilling them one pass each in `victims`' order
    (each victim's temporaries in code order, the first victim's first). `temps` gets
    each new temporary's victim. An instruction not in `owned` is another's: it
    is copied (and owned) before it changes, its logical successors (`overrides`)
    carried to the copy. `f`: the flow of `code` (its operands and defs). `groups` gets
    each changed instruction's index in `f` -> (the reloads put before it, whether a spill
    follows it): what `after_spill` works the new flow out from. The victims in
    `converted` (the f32-spill-converts mutant's) move through a conversion (c = 1); those
    in `narrowed` (f64-spill-low-word's) are spilled as their low 32 bits (c = 2)."""
    touching = dict.fromkeys(victims, 0)  # instructions that get a temporary of each
    changed: set[int] = set()  # the instructions (indices in `f`) spill code changes
    wanted = 0  # the victims, as a bitset: most instructions name none of them
    for v in victims:
        wanted |= 1 << v
    rank = {v: k for k, v in enumerate(victims)}
    for k, ins in enumerate(f.instrs):
        if not (f.use_bits[k] | f.def_bits[k]) & wanted:
            continue
        # a deopt use alone gets no temporary: the slot has it
        named = [u for u in f.reads[k] if u in victims]
        if (ins.keeps or f.defined[k] is not None) and ins.d in victims:
            named.append(ins.d)
        if named:
            changed.add(k)
            for v in set(named):
                touching[v] += 1
        elif ins.deopt_uses and not victims.keys().isdisjoint(ins.deopt_uses):
            changed.add(k)
    next_temp = {}
    for v in victims:
        next_temp[v] = new_vreg.next
        new_vreg.next += touching[v]
    out: list[Instr | Label] = []
    wm = 0 if mutants.on("spill-under-mask") else 1  # spills must move every lane
    k = -1  # the instruction's index in `f`
    for item in code:
        if isinstance(item, Label):
            out.append(item)
            continue
        k += 1
        if k not in changed:
            out.append(item)
            continue
        ins = item  # it names a victim, or one waits in its deopt uses (`changed`)
        used = set(f.reads[k])
        if ins.keeps:
            used.add(ins.d)
        d = f.defined[k]
        waits = bool(ins.deopt_uses) and not victims.keys().isdisjoint(ins.deopt_uses)
        if ins not in owned:
            ins = item.clone()
            owned.add(ins)
            if item in overrides:
                overrides[ins] = overrides[item]
        if waits:  # a spilled value waits in its slot: the frame saves it
            ins.deopt_uses = tuple(u for u in ins.deopt_uses if u not in victims)
        spill_after: Instr | None = None
        before = len(out)  # the reloads go in from here
        touched = used if d is None else used | {d}
        for v in sorted(touched.intersection(victims), key=rank.__getitem__):
            slot = victims[v]
            defined = d == v
            t = next_temp[v]
            next_temp[v] += 1
            temps[t] = v
            partial = defined and not all_lanes(ins)
            carried = partial and not mutants.on("partial-def-no-reload")
            if v in used or carried:
                # before a partial def, the reload carries the lanes the def leaves alone
                under_mask = partial and mutants.on("reload-under-mask")
                out.append(Instr(Op.RELOAD, d=t, imm=slot, wm=0 if under_mask else wm,
                                 c=int(v in converted)))
            if v in used:
                for fld in ("a", "b", "c"):
                    if getattr(ins, fld) == v and v in uses(ins):
                        setattr(ins, fld, t)
            if defined:
                ins.d = t
                # The spill after a masked def moves all lanes: the lanes this def leaves
                # alone (reloaded above) must survive until then.
                ins.keeps = carried and not mutants.on("masked-def-no-keep")
                spill_after = Instr(Op.SPILL, a=t, imm=slot, wm=wm,
                                    c=1 if v in converted else 2 if v in narrowed else 0)
        groups[k] = (len(out) - before, spill_after is not None)
        out.append(ins)
        if spill_after is not None:
            out.append(spill_after)
    return out


def _occurrences(f: Flow) -> dict[int, int]:
    occurrences: dict[int, int] = {}
    for used, d in zip(f.used, f.defined):
        for v in used:
            occurrences[v] = occurrences.get(v, 0) + 1
        if d is not None:
            occurrences[d] = occurrences.get(d, 0) + 1
    return occurrences


class _Counter:
    def __init__(self, start: int) -> None:
        self.next = start

    def __call__(self) -> int:
        v = self.next
        self.next += 1
        return v


def allocate_registers(lowered: Lowered, nregs: int, order: str = "lowest", seed: int = 0,
                       live: Liveness | None = None, mutants: Mutants = NONE) -> Allocation:
    """Colour `lowered`'s vregs onto `nregs` registers, spilling as needed; `order` picks
    among free registers (ORDERS), `seed` seeds the random order. `live`: the liveness
    of `lowered`'s code as it is, when the caller has it (the first round's)."""
    assert order in ORDERS, order
    code = list(lowered.code)  # spill code copies an instruction before changing it
    overrides = dict(lowered.logical)
    regions = lowered.regions
    variables = lowered.scalar_variables()  # what the pair mutants of liveness act on
    owned: set[Instr] = set()  # the instructions this allocation made
    types = dict(lowered.vreg_types)
    new_vreg = _Counter(lowered.nvregs)
    slots: dict[int, int] = {}
    temps: set[int] = set()
    # the random order's victim choices: one generator for the whole allocation
    victims = coloring.random_state(seed + 1) if order == "random" else None
    for _ in range(MAX_ROUNDS):
        if live is None:
            live = liveness(flow(code, overrides), regions, mutants, variables)
        dead = _dead_in_loops(live, regions, variables) \
            if mutants.on("dead-loop-def-no-interference") else frozenset()
        color, chosen = _color(live, new_vreg.next, nregs, order, seed, temps | set(slots),
                               victims, mutants, dead)
        if not chosen:
            return Allocation(code, color, slots, temps, live, nregs, len(slots), types)
        # every victim of this round is spilled before the next (one victim a round made
        # small register budgets cost tens of rounds a kernel)
        now: dict[int, int] = {}
        for victim in chosen:
            slots[victim] = now[victim] = len(slots)
        new_temps: dict[int, int] = {}
        groups: dict[int, tuple[int, bool]] = {}
        converted = frozenset(v for v in now if types[v] is F32) \
            if mutants.on("f32-spill-converts") else frozenset()
        narrowed = frozenset(v for v in now if types[v] is F64) \
            if mutants.on("f64-spill-low-word") else frozenset()
        code = _spill(code, live.flow, now, new_vreg, new_temps, owned, overrides, groups,
                      mutants, converted, narrowed)
        live = liveness(after_spill(live.flow, code, groups), regions, mutants, variables)
        for t, victim in new_temps.items():
            temps.add(t)
            types[t] = types[victim]
    raise AllocationError(f"register allocation did not converge with registers={nregs}")


__all__ = ["Allocation", "AllocationError", "allocate_registers", "interference"]
