"""Emission: allocated code -> the machine's int64 rows, deopt metadata and a listing.

Contract: input an `Allocation` (every vreg coloured or spilled) and the `Lowered` it came
from; output a `Compiled` kernel, self-contained and immutable in use: everything a run
needs (rows, register/mask/slot counts, parameter order) and everything a report needs
(infopoints with source stacks and where each live variable sits). It is per compilation:
nothing is kept on the target object.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from difftest.outcome import Frame

from .isa import FAULTING, WIDTH, Op
from .liveness import all_lanes, bits, defs, operands
from .lower import Instr, Label, Lowered
from .regalloc import Allocation

_KIND_NAMES = {1: "out_of_bounds", 2: "division_by_zero", 3: "fail"}


@dataclass(frozen=True)
class Location:
    """Where a live variable sits at an infopoint: a register or a spill slot."""

    name: str           # "frame.var" (innermost frames last) or "$tN" for a temporary
    kind: str           # "reg" | "slot"
    index: int
    is_ref: bool        # holds a buffer reference


@dataclass(frozen=True)
class DeoptInfo:
    """Deopt metadata of one infopoint: what faults, the source stack, the live values."""

    pc: int
    kind: str
    stack: tuple[Frame, ...]
    live: tuple[Location, ...]


@dataclass
class Compiled:
    rows: np.ndarray            # int64[ninstr, WIDTH]
    nregs: int
    nmasks: int
    nslots: int
    params: list[str]
    infopoints: list[DeoptInfo]
    listing: str
    color: dict[int, int]
    slot: dict[int, int]
    vreg_names: dict[int, str]


def _fmt(ins: Instr, color: dict[int, int]) -> str:
    def r(v: int) -> str:
        return f"r{color[v]}" if v in color else f"v{v}?"

    op = ins.op
    name = op.name.lower()
    if op in (Op.JMP, Op.JZ_EXEC):
        return f"{name} @{ins.imm}"
    if op == Op.JZ_MASK:
        return f"{name} m{ins.a}, @{ins.imm}"
    if op in (Op.HALT, Op.KILL):
        return name
    if op == Op.M_GETEXEC:
        return f"{name} m{ins.d}"
    if op == Op.M_SETEXEC:
        return f"{name} m{ins.a}"
    if op == Op.M_CLEAR:
        return f"{name} m{ins.d}"
    if op == Op.M_FROMCOND:
        return f"{name} m{ins.d}, {r(ins.a)}"
    if op in (Op.M_ANDN, Op.M_OR, Op.M_AND):
        return f"{name} m{ins.d}, m{ins.a}, m{ins.b}"
    if op == Op.SPILL:
        return f"{name} s{ins.imm}, {r(ins.a)}"
    if op == Op.RELOAD:
        return f"{name} {r(ins.d)}, s{ins.imm}"
    parts = []
    if defs(ins) is not None:
        parts.append(r(ins.d))
    parts += [r(u) for u in operands(ins)]
    if op in (Op.MOVI, Op.SET_INACTIVE):
        parts.append(f"#{ins.imm}")
    elif op == Op.PARAM:
        parts.append(f"param{ins.imm}")
    elif ins.imm in (32, 64) and op not in (Op.LOAD, Op.STORE):
        name += f".i{ins.imm}"
    return f"{name} {', '.join(parts)}"


def emit(lowered: Lowered, alloc: Allocation) -> Compiled:
    instrs: list[Instr] = []
    at: dict[int, int] = {}
    for item in alloc.code:
        if isinstance(item, Label):
            at[id(item)] = len(instrs)
        elif not (item.op == Op.MOV and alloc.color.get(item.d) == alloc.color.get(item.a)
                  and item.d in alloc.color):
            instrs.append(item)  # a move within one register is dropped
    rows = np.zeros((len(instrs), WIDTH), dtype=np.int64)
    infos: list[DeoptInfo] = [None] * len(lowered.infopoints)  # type: ignore[list-item]
    lines = []
    live = alloc.live
    flow_index = {id(ins): i for i, ins in enumerate(live.flow.instrs)}
    for pc, ins in enumerate(instrs):
        imm = ins.imm
        if ins.target is not None:
            imm = at[id(ins.target)]
            ins.imm = imm
        c = alloc.color
        d = c.get(ins.d, ins.d) if defs(ins) is not None else ins.d
        a, b, cc = ins.a, ins.b, ins.c
        src = operands(ins)
        if src:
            a = c[ins.a] if ins.a in src else ins.a
        if len(src) > 1:
            b = c[ins.b]
        if len(src) > 2:
            cc = c[ins.c]
        rows[pc] = (int(ins.op), d, a, b, cc, imm, ins.wm, ins.ip)
        text = f"{pc:4d}  {_fmt(ins, c)}"
        if all_lanes(ins) and defs(ins) is not None or (ins.op in (Op.SPILL,) and ins.wm):
            text += "   [all lanes]"
        if ins.ip >= 0:
            assert ins.op in FAULTING, ins
            ip = lowered.infopoints[ins.ip]
            here = live.live_in[flow_index[id(ins)]]
            locs = []
            named: dict[int, str] = {}
            for fname, vars_ in ip.frames:
                for var, v in vars_.items():
                    named[v] = f"{fname}.{var}"
            for v in bits(here):
                name = named.get(v, f"$t{v}")
                vtype = alloc.vreg_types.get(v)
                is_ref = bool(vtype is not None and getattr(vtype, "is_buffer", False))
                if v in alloc.slot:
                    locs.append(Location(name, "slot", alloc.slot[v], is_ref))
                elif v in c:
                    locs.append(Location(name, "reg", c[v], is_ref))
            info = DeoptInfo(pc, _KIND_NAMES[ip.kind], ip.stack, tuple(locs))
            infos[ins.ip] = info
            where = " <- ".join(f"{f.function}:{f.line}" for f in reversed(ip.stack))
            live_txt = ", ".join(
                f"{loc.name}={'r' if loc.kind == 'reg' else 's'}{loc.index}{'*' if loc.is_ref else ''}"
                for loc in locs
            )
            text += f"   ; ip{ins.ip} {info.kind} at {where}; live {{{live_txt}}}"
        lines.append(text)
    header = (f"; {len(instrs)} instructions, {alloc.nregs} registers "
              f"({len(set(alloc.color.values()))} used), {alloc.nslots} spill slots, "
              f"{lowered.nmasks} masks; * = buffer reference")
    assignment = ", ".join(
        f"{lowered.vreg_names[v]}=" + (f"s{alloc.slot[v]}" if v in alloc.slot else f"r{alloc.color[v]}")
        for v in sorted(lowered.vreg_names) if v in alloc.color or v in alloc.slot
    )
    listing = "\n".join([header, f"; variables: {assignment}", *lines])
    assert all(i is not None for i in infos)
    return Compiled(rows, alloc.nregs, lowered.nmasks, max(1, alloc.nslots), lowered.params,
                    infos, listing, dict(alloc.color), dict(alloc.slot), dict(lowered.vreg_names))
