"""Emission: allocated code -> the machine's int64 rows, the host's code, deopt metadata
and a listing.

Contract: input the device's `Lowered` (after speculation), its `Allocation`, and the
host's `Lowered` (the code before speculation); output a `Compiled` kernel, self-contained
and immutable in use: everything a run needs (rows, register/mask/slot counts, parameter
order), everything the host needs to finish a deopted lane (its own code over virtual
registers, and per infopoint where to resume and where each value it needs sits on the
device), and everything a report needs (listing, source stacks, each value's meaning).
It is per compilation: nothing is kept on the target object.

Deopt metadata (seeds 000/001): at each infopoint, the values live there for the lane --
per-lane liveness of the *host's* code at the resume point, so a spilled value is found in
its slot and a DEOPT's frame state is complete -- each with exactly one location; the
union of the registers and slots live at any infopoint is what every frame saves (one
deopt exit per kernel); a bitmap says which saved values are buffer references; an
infopoint is eligible for a forced deopt when no wave operation, barrier or workgroup-array
access is reachable from it.
`check_metadata` validates all of it. The `metadata-misses-spills` and
`deopt-last-infopoint-live` mutants live here.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np


from difftest.core.outcome import Frame

from ..mutants import NONE, Mutants
from ..isa import IMM, INFOPOINTS, KINDED as _KINDED, KINDS, UNSIGNED, WIDTH, Op
from .liveness import Flow, all_lanes, bits, defs, operands
from .lower import Instr, Label, Lowered
from .regalloc import Allocation
from .speculate import HostFacts, host_facts

_KIND_NAMES = {1: "out_of_bounds", 2: "division_by_zero", 3: "fail", 4: "speculation",
               5: "alloc", 6: "invalid_conversion"}


class Location(NamedTuple):
    """Where a value live at an infopoint sits on the device, and its place in a frame.
    (A tuple: a compile makes one per value live at each infopoint, hundreds, and a
    frozen dataclass's construction was a twentieth of emission.)"""

    vreg: int
    kind: str           # "reg" | "slot"
    index: int  # type: ignore[assignment]  # the register or spill slot (hides tuple.index)
    position: int       # its index among a frame's saved values (union regs, then slots)
    is_ref: bool        # holds a buffer reference
    names: Mapping[int, str]  # the compilation's

    @property
    def name(self) -> str:
        """What it is: "kernel.x", "loop `j` trip counter (line 5)", ..."""
        return self.names.get(self.vreg, f"v{self.vreg}")

    def __repr__(self) -> str:  # without the compilation's names
        return (f"Location(vreg={self.vreg!r}, kind={self.kind!r}, index={self.index!r}, "
                f"position={self.position!r}, is_ref={self.is_ref!r})")


@dataclass(frozen=True)
class DeoptInfo:
    """Deopt metadata of one infopoint."""

    ip: int
    pc: int                        # the device instruction (-1: none, e.g. a cold arm's)
    kind: str                      # out_of_bounds | division_by_zero | fail | speculation
    stack: tuple[Frame, ...]
    live: tuple[Location, ...]
    host_pc: int                   # where the host resumes (a DEOPT: its arm's start)
    statement_pc: int              # the host index where the innermost statement starts
    eligible: bool                 # nothing convergent reachable: forced deopts allowed
    ref_words: tuple[int, ...]     # bitmap over frame positions holding references
    needs: tuple[int, ...] = ()    # the vregs live there (what `live` must locate)


@dataclass(frozen=True)
class HostCode:
    """The code the host interprets: the lowered program before speculation and register
    allocation, over virtual registers, jump targets resolved to indices."""

    rows: np.ndarray               # int64[ninstr, WIDTH]
    nvregs: int
    nmasks: int
    vreg_bits: dict[int, int]      # integer vregs' kinds (isa.kind; an f32's is 32)
    ref_vregs: frozenset[int] = frozenset()  # vregs holding buffer references


@dataclass(frozen=True)
class Compiled:
    """A compiled kernel: immutable once made (the compile cache hands out one object to
    every launch); its listing is made when first asked for."""

    rows: np.ndarray            # int64[ninstr, WIDTH]
    nregs: int
    nmasks: int
    nslots: int
    params: list[str]
    infopoints: list[DeoptInfo]  # indexed by ip
    make_listing: Callable[[], str] = field(repr=False, compare=False)
    color: dict[int, int]
    slot: dict[int, int]
    vreg_names: Mapping[int, str]   # every vreg's meaning
    host: HostCode
    union_regs: list[int]
    union_slots: list[int]
    ip_info: np.ndarray          # int64[n_ip, 1 + ref words]: eligible, reference bitmap
    # the host's decoding of `host` (trampoline.decode), made with the compilation
    # (target.compile_program); None for code emitted without it (a launch decodes it)
    decoded: Any = field(default=None, repr=False, compare=False)
    # the kernel's workgroup arrays (name, element bits, length), LOCALBASE's numbering
    workgroup_arrays: list[tuple[str, int, int]] = field(default_factory=list)
    # it meets at barriers or shares workgroup memory: its workgroups run on the device,
    # whole (dispatch.py)
    groupwise: bool = False

    @functools.cached_property
    def listing(self) -> str:
        """The annotated listing, made when first asked for (`difftest compile`, reports):
        a tenth of a compile's time, which the fuzz loop never reads."""
        return self.make_listing()


def _fmt(ins: Instr, color: dict[int, int], imm: int) -> str:
    """One instruction as the listing shows it (`imm`: as emitted: a jump's is its pc)."""
    def r(v: int) -> str:
        return f"r{color[v]}" if v in color else f"v{v}?"

    op = ins.op
    name = op.name.lower()
    if op in (Op.JMP, Op.JZ_EXEC):
        return f"{name} @{imm}"
    if op == Op.JZ_MASK:
        return f"{name} m{ins.a}, @{imm}"
    if op in (Op.HALT, Op.KILL, Op.TRIP, Op.DEOPT):
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
    if op in (Op.SPILL, Op.RELOAD) and ins.c:
        name += ".cvt"  # a converting move (the f32-spill-converts mutant's)
    if op == Op.SPILL:
        return f"{name} s{imm}, {r(ins.a)}"
    if op == Op.RELOAD:
        return f"{name} {r(ins.d)}, s{imm}"
    parts = []
    if defs(ins) is not None:
        parts.append(r(ins.d))
    parts += [r(u) for u in operands(ins)]
    if op in (Op.MOVI, Op.SET_INACTIVE):
        parts.append(f"#{imm}")
    elif op == Op.PARAM:
        parts.append(f"param{imm}")
    elif op in _KINDED and imm in KINDS:
        name += f".{'u' if imm & UNSIGNED else 'i'}{imm & 255}"
    return f"{name} {', '.join(parts)}"


def _rows(table: Sequence[tuple[int, ...]]) -> np.ndarray:
    """The machine's code rows (int64[n, WIDTH]) from one tuple of WIDTH per instruction
    (one flat array built at once: row-by-row assignment cost a microsecond a row, and
    `np.array` of the tuples twice what this does, finding their shape)."""
    flat = itertools.chain.from_iterable(table)
    return np.fromiter(flat, dtype=np.int64, count=len(table) * WIDTH).reshape(-1, WIDTH)


def _host_code(host: Lowered, f: Flow) -> tuple[HostCode, dict[Label, int], dict[int, int]]:
    """The host's rows, each label's index, and each infopoint's instruction index (`f`:
    the host code's flow, which has its instructions and labels)."""
    at = f.label_at
    table = [(ins.op, ins.d, ins.a, ins.b, ins.c,
              at[ins.target] if ins.target is not None else ins.imm, ins.wm, ins.ip)
             for ins in f.instrs]
    ip_at = {ins.ip: i for i, ins in enumerate(f.instrs) if ins.ip >= 0}
    rows = _rows(table)
    # (types by identity: an enum's hash and properties are Python calls)
    types = host.vreg_types.items()
    # each register's kind (`isa.kind`, written out: a call a register was a tenth of this)
    bits_of = {v: t.bits + (0 if t.signed else UNSIGNED) for v, t in types if t.is_number}
    refs = frozenset(v for v, t in types if t.is_buffer)
    return HostCode(rows, host.nvregs, host.nmasks, bits_of, refs), at, ip_at


def emit(lowered: Lowered, alloc: Allocation, host: Lowered | None = None,
         facts: HostFacts | None = None, mutants: Mutants = NONE) -> Compiled:
    """The device code `lowered` under `alloc`, with the deopt metadata that resumes it in
    `host` (default: the same code; `facts`: the host code's, worked out when not given).
    Nothing it is given is changed."""
    host = lowered if host is None else host
    facts = host_facts(host, mutants) if facts is None else facts
    f = alloc.live.flow  # the allocated code's instructions, labels, defs and operands
    c = alloc.color
    kept: list[int] = []  # the instructions emitted (a move within one register is not)
    pc_at = [0] * (len(f.instrs) + 1)  # instruction index -> its (or the next one's) pc
    for k, ins in enumerate(f.instrs):
        pc_at[k] = len(kept)
        if not (ins.op == Op.MOV and ins.d in c and c[ins.d] == c.get(ins.a)):
            kept.append(k)
    pc_at[-1] = len(kept)
    at = {label: pc_at[k] for label, k in f.label_at.items()}
    instrs = [f.instrs[k] for k in kept]
    table: list[tuple[int, ...]] = []
    device_pc: dict[int, int] = {}
    for pc, k in enumerate(kept):
        ins = f.instrs[k]
        imm = at[ins.target] if ins.target is not None else ins.imm
        d = c.get(ins.d, ins.d) if f.defined[k] is not None else ins.d
        a, b, cc = ins.a, ins.b, ins.c
        src = f.reads[k]  # operands(ins): a, then b, then c
        if src:
            a = c[a]
            if len(src) > 1:
                b = c[b]
                if len(src) > 2:
                    cc = c[cc]
        table.append((ins.op, d, a, b, cc, imm, ins.wm, ins.ip))
        if ins.ip >= 0:
            assert ins.op in INFOPOINTS, ins
            device_pc[ins.ip] = pc
    rows = _rows(table)
    hcode, host_at, host_ip_at = _host_code(host, facts.live.flow)
    infos, union_regs, union_slots = _metadata(lowered, alloc, host, facts, host_at,
                                               host_ip_at, device_pc, mutants)
    rw = max(1, (len(union_regs) + len(union_slots) + 63) // 64)
    ip_info = np.zeros((max(1, len(infos)), 1 + rw), dtype=np.int64)
    for info in infos:
        ip_info[info.ip, 0] = int(info.eligible)
        ip_info[info.ip, 1:1 + len(info.ref_words)] = info.ref_words
    names = lowered.vreg_meanings
    return Compiled(rows, alloc.nregs, lowered.nmasks, max(1, alloc.nslots), lowered.params,
                    infos, functools.partial(_listing, lowered, alloc, instrs, rows, infos, names),
                    dict(alloc.color), dict(alloc.slot), names, hcode,
                    union_regs, union_slots, ip_info,
                    workgroup_arrays=list(lowered.workgroup_arrays),
                    groupwise=bool(lowered.workgroup_arrays)
                    or bool((rows[:, 0] == Op.BARRIER).any()))


def _metadata(device: Lowered, alloc: Allocation, host: Lowered, facts: HostFacts,
              host_at: dict[Label, int], host_ip_at: dict[int, int],
              device_pc: dict[int, int], mutants: Mutants
              ) -> tuple[list[DeoptInfo], list[int], list[int]]:
    live, reach = facts.live, facts.reach
    misses_spills = mutants.on("metadata-misses-spills")
    raw: list[tuple[int, int, int, list[tuple[int, str, int]]]] = []
    needs: dict[int, tuple[int, ...]] = {}
    for ip, point in enumerate(device.infopoints):
        if ip in device.speculated:
            hpc = host_at[device.speculated[ip]]
        else:
            hpc = host_ip_at.get(ip, -1)
        pc = device_pc.get(ip, -1)
        where: list[tuple[int, str, int]] = []
        if pc >= 0 and hpc >= 0:
            needs[ip] = tuple(bits(live.live_in[hpc]))
            for v in needs[ip]:
                if v in alloc.slot:
                    if misses_spills:
                        continue  # the old bug: spilled values not listed
                    where.append((v, "slot", alloc.slot[v]))
                elif v in alloc.color:
                    where.append((v, "reg", alloc.color[v]))
                else:
                    where.append((v, "missing", -1))  # check_metadata names it
        raw.append((ip, pc, hpc, where))
    device_points = [r for r in raw if r[1] >= 0]
    chosen = device_points[-1:] if mutants.on("deopt-last-infopoint-live") else device_points
    union_regs = sorted({i for r in chosen for _, k, i in r[3] if k == "reg"})
    union_slots = sorted({i for r in chosen for _, k, i in r[3] if k == "slot"})
    pos_reg = {r: p for p, r in enumerate(union_regs)}
    pos_slot = {s: len(union_regs) + p for p, s in enumerate(union_slots)}
    rw = max(1, (len(union_regs) + len(union_slots) + 63) // 64)
    infos = []
    for (ip, pc, hpc, where), point in zip(raw, device.infopoints):
        locs = []
        words = [0] * rw
        for v, kind, index in where:
            pos = pos_reg.get(index, -1) if kind == "reg" else pos_slot.get(index, -1)
            ty = host.vreg_types.get(v)
            is_ref = ty is not None and ty.is_buffer
            if is_ref and pos >= 0:
                words[pos // 64] |= 1 << (pos % 64)
            locs.append(Location(v, kind, index, pos, is_ref, host.vreg_meanings))
        stmt_pc = hpc
        if point.statement is not None and point.statement in host_at:
            stmt_pc = host_at[point.statement]
        eligible = 0 <= hpc < len(reach) and not reach[hpc]
        words = [w - (1 << 64) if w >= 1 << 63 else w for w in words]  # as int64
        infos.append(DeoptInfo(ip, pc, _KIND_NAMES.get(point.kind, "?"), point.stack,
                               tuple(locs), hpc, stmt_pc, bool(eligible), tuple(words),
                               needs.get(ip, ())))
    return infos, union_regs, union_slots


def check_metadata(compiled: Compiled) -> list[str]:
    """What is wrong with a compilation's deopt metadata (empty: nothing). For every
    infopoint the device can stop at: each value live there (by the host code's liveness)
    has exactly one location, no two live values share one, and every location is among
    the frame's saved values."""
    problems = []
    regs, slots = set(compiled.union_regs), set(compiled.union_slots)
    for info in compiled.infopoints:
        if info.pc < 0:
            continue
        located = [loc.vreg for loc in info.live]
        for v in info.needs:
            if located.count(v) != 1:
                name = compiled.vreg_names.get(v, f"v{v}")
                problems.append(f"ip{info.ip}: {name} is live there but has "
                                f"{located.count(v)} locations")
        seen: dict[tuple[str, int], str] = {}
        vregs: set[int] = set()
        for loc in info.live:
            if loc.kind == "missing":
                problems.append(f"ip{info.ip}: {loc.name} is live but has no location")
                continue
            if loc.vreg in vregs:
                problems.append(f"ip{info.ip}: {loc.name} has two locations")
            vregs.add(loc.vreg)
            key = (loc.kind, loc.index)
            if key in seen:
                problems.append(f"ip{info.ip}: {loc.name} and {seen[key]} share "
                                f"{loc.kind} {loc.index}")
            seen[key] = loc.name
            if loc.position < 0 or (loc.kind == "reg" and loc.index not in regs) or (
                    loc.kind == "slot" and loc.index not in slots):
                problems.append(f"ip{info.ip}: {loc.name} in {loc.kind} {loc.index} is not "
                                "saved by a frame")
    return problems


def _listing(lowered: Lowered, alloc: Allocation, instrs: list[Instr], rows: np.ndarray,
             infos: list[DeoptInfo], names: Mapping[int, str]) -> str:
    by_pc = {info.pc: info for info in infos if info.pc >= 0}
    lines = []
    for pc, ins in enumerate(instrs):
        text = f"{pc:4d}  {_fmt(ins, alloc.color, int(rows[pc, IMM]))}"
        if all_lanes(ins) and defs(ins) is not None or (ins.op in (Op.SPILL,) and ins.wm):
            text += "   [all lanes]"
        info = by_pc.get(pc)
        if info is not None:
            where = " <- ".join(f"{f.function}:{f.line}" for f in reversed(info.stack))
            live_txt = ", ".join(
                f"{loc.name}={'r' if loc.kind == 'reg' else 's'}{loc.index}"
                f"{'*' if loc.is_ref else ''}" for loc in info.live)
            text += (f"   ; ip{info.ip} {info.kind}" + (f" at {where}" if where else "")
                     + f"; resume host@{info.host_pc}"
                     + ("" if info.eligible else " (a wave op or barrier follows: no forced deopt)")
                     + f"; live {{{live_txt}}}")
        lines.append(text)
    used = sorted(set(alloc.color.values()))
    header = (f"; {len(instrs)} instructions, {alloc.nregs} registers ({len(used)} used), "
              f"{alloc.nslots} spill slots, {lowered.nmasks} masks; * = buffer reference")
    assignment = ", ".join(
        f"{lowered.vreg_names[v]}=" + (f"s{alloc.slot[v]}" if v in alloc.slot
                                       else f"r{alloc.color[v]}")
        for v in sorted(lowered.vreg_names) if v in alloc.color or v in alloc.slot)
    return "\n".join([header, f"; variables: {assignment}", *lines])
