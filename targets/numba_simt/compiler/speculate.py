"""Speculation: the then-arm of chosen `if` statements is assumed cold and not compiled.

Contract: input the lowered program (the host's code, which keeps every arm); output a
new `Lowered` for the device in which each chosen arm's code is replaced by one DEOPT:
lanes that take the arm leave the device there, and the host finishes them from the
arm's first instruction (deopt.py, trampoline.py). The input is not changed.

An arm may be chosen only if no convergent operation (a wave operation or a barrier) and
no access to a workgroup array is reachable from its start (back edges and the code
after an inlined call's return included): the host finishes a lane alone, after the
launch, and a wave operation needs the wave, a barrier the workgroup, a workgroup array
the group's memory of the launch. The DEOPT "uses" every value live at the arm's start
in the host's code, so register allocation keeps them somewhere the frame can save.
The `speculate-before-convergent` mutant drops the reachability rule.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass

from ..mutants import NONE, Mutants
from ..isa import CONVERGENT, FAULT_SPECULATION, Op
from .liveness import Flow, Liveness, bits, flow, liveness
from .lower import Infopoint, Instr, Label, Lowered


@dataclass(frozen=True)
class HostFacts:
    """The host code's liveness and, per instruction, whether a convergent operation (a
    wave operation or a barrier) is reachable from it: speculation, register allocation
    (when the device runs the host code as is) and the deopt metadata all read them, so a
    compilation works them out once (`host_facts`)."""

    live: Liveness
    reach: list[bool]


def host_facts(host: Lowered, mutants: Mutants = NONE) -> HostFacts:
    f = flow(host.code, host.logical)
    return HostFacts(liveness(f, host.regions, mutants, host.scalar_variables()),
                     _reachable(f))


def wave_reachable(lowered: Lowered) -> tuple[list[bool], dict[Label, int]]:
    """Per instruction of `lowered`: whether a convergent operation (a wave operation or
    a barrier) is reachable from it over
    the lanes' (logical) control flow; and each label's instruction index."""
    f = flow(lowered.code, lowered.logical)
    return _reachable(f), f.label_at


_ACCESSES = frozenset({Op.LOAD, Op.STORE, Op.ATOMIC_ADD, Op.ATOMIC, Op.LEN})


def _reachable(f: Flow) -> list[bool]:
    n = len(f.instrs)
    preds: list[list[int]] = [[] for _ in range(n)]
    for i, succ in enumerate(f.logical):
        for s in succ:
            preds[s].append(i)
    reach = [False] * n
    # a workgroup array's access counts too: a lane the host finishes after the launch
    # would find its group's workgroup memory gone (a reference to one is only ever in
    # the register its LOCALBASE wrote: they are no values)
    arrays = {ins.d for ins in f.instrs if ins.op is Op.LOCALBASE}
    work = [i for i, ins in enumerate(f.instrs) if ins.op in CONVERGENT
            or ins.op in _ACCESSES and ins.a in arrays]
    for i in work:
        reach[i] = True
    while work:
        i = work.pop()
        for p in preds[i]:
            if not reach[p]:
                reach[p] = True
                work.append(p)
    return reach


def speculate(lowered: Lowered, seed: int, facts: HostFacts | None = None,
              mutants: Mutants = NONE) -> Lowered:
    """The device's code: about half the eligible cold-arm candidates (chosen by `seed`)
    replaced by a DEOPT. Returns `lowered` itself when none is chosen. `facts`: the
    lowered code's (worked out here when not given)."""
    facts = host_facts(lowered, mutants) if facts is None else facts
    reach, live = facts.reach, facts.live
    label_at = live.flow.label_at
    rng = random.Random(seed)
    chosen = []
    for cold in lowered.cold_ifs:
        at = label_at[cold.start]
        if at >= len(reach) or at == label_at[cold.end]:
            continue  # an empty arm: nothing to speculate away
        if reach[at] and not mutants.on("speculate-before-convergent"):
            continue
        if rng.random() < 0.5:
            chosen.append(cold)
    if not chosen:
        return lowered
    out = copy.copy(lowered)
    out.infopoints = list(lowered.infopoints)
    code: list[Instr | Label] = []
    skip_until: Label | None = None
    starts = {c.start: c for c in chosen}
    removed: set[Instr | Label] = set()  # taken out with an arm
    for item in lowered.code:
        if skip_until is not None:
            if item is skip_until:
                skip_until = None
                code.append(item)
            else:
                removed.add(item)
            continue
        code.append(item)
        if isinstance(item, Label) and item in starts:
            cold = starts[item]
            at = label_at[cold.start]
            deopt = Instr(Op.DEOPT, ip=len(out.infopoints))
            deopt.deopt_uses = tuple(bits(live.live_in[at]))
            out.infopoints.append(Infopoint(FAULT_SPECULATION, (), (), None))
            code.append(deopt)
            out.logical = {**out.logical, deopt: []}  # the lane's device path ends
            out.speculated = {**out.speculated, deopt.ip: cold.start}  # host resumes here
            skip_until = cold.end
    out.code = code
    out.regions = [r for r in lowered.regions
                   if not ({r.start, r.end, r.parked} & removed)]
    out.logical = {k: v for k, v in out.logical.items() if k not in removed}
    out.cold_ifs = [c for c in lowered.cold_ifs if c.start not in removed
                    and c not in chosen]
    return out
