"""The host's interpreter (the trampoline, as in seed 000): finishes deopted workitems
from their saved frames, and runs never-ran waves that the schedule puts on the host.

It interprets the compiler's code *before* speculation and register allocation (the
`HostCode`: virtual registers, every arm present), as HotSpot's interpreter runs the
bytecode the compiled code came from; it is numba-simt's own, never the oracle, and does
not share the numba machine's implementation. State per lane: the virtual registers, the
lane's bit of each mask register, its loop-trip count.

A resumed lane starts at its infopoint's host instruction with nothing but what its frame
holds: its mask bits, trip count, and the values the metadata maps from the saved
registers and slots (every value live there). It runs alone, as the only active lane of
its wave: the compiler never lets a lane deopt where a wave operation could follow (a real
fault re-faults at once). A fault on the host is final: the lane's fate, with the stack
of the infopoint that faulted.

A lane at an `alloc()` (ALLOC) asks the pool for a fresh buffer (`allocate`, given by
dispatch); when that moves the pool, every buffer reference the host holds is relocated:
the launch's parameters, the registers of the wave it is running (the vregs the host code
types as references), and the reference slots of every saved frame still waiting to be
resumed (`waiting`), found through each frame's reference bitmap -- seed 000's oops in
saved registers, updated in place.

The `resume-restarts-statement` and `stale-frame-reference` mutants live here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np

from difftest.ir.nodes import ALLOC_MAX
from difftest.outcome import Fault

from . import mutants
from .isa import ALIVE, ALWAYS_ALL_LANES, EXEC, Op

# machine.py's frame layout (mirrored as plain numbers: this module must not import numba)
F_GID, F_REASON, F_IP, F_TRIPS, F_HEAD = 0, 1, 2, 3, 4


class HostError(Exception):
    """Inconsistent code or frame (an internal error of the target, never a fault)."""


class HostBudget(Exception):
    """A lane ran out of its loop-trip budget on the host."""

    def __init__(self, gid: int) -> None:
        super().__init__(gid)
        self.gid = gid


def _wrap(x: int, bits: int) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_BINARY = {
    Op.ADD: lambda a, b, w: _wrap(a + b, w),
    Op.SUB: lambda a, b, w: _wrap(a - b, w),
    Op.MUL: lambda a, b, w: _wrap(a * b, w),
    Op.AND: lambda a, b, w: a & b,
    Op.OR: lambda a, b, w: a | b,
    Op.XOR: lambda a, b, w: a ^ b,
    Op.SHL: lambda a, b, w: _wrap(a << (b & (w - 1)), w),
    Op.SHR: lambda a, b, w: _wrap(a >> (b & (w - 1)), w),
    Op.CMP_EQ: lambda a, b, w: int(a == b),
    Op.CMP_NE: lambda a, b, w: int(a != b),
    Op.CMP_LT: lambda a, b, w: int(a < b),
    Op.CMP_LE: lambda a, b, w: int(a <= b),
    Op.CMP_GT: lambda a, b, w: int(a > b),
    Op.CMP_GE: lambda a, b, w: int(a >= b),
}
_UNARY = {
    Op.NEG: lambda a, w: _wrap(-a, w),
    Op.NOT: lambda a, w: _wrap(~a, w),
    Op.LNOT: lambda a, w: 1 - a,
    Op.WRAP: lambda a, w: _wrap(a, w),
    Op.MOV: lambda a, w: a,
}
_KIND = {Op.DIV: "division_by_zero", Op.REM: "division_by_zero", Op.LOAD: "out_of_bounds",
         Op.STORE: "out_of_bounds", Op.ATOMIC_ADD: "out_of_bounds", Op.FAIL: "fail",
         Op.ALLOC: "out_of_bounds"}
#: the pool's side of `alloc()`: size -> (reference, moves {old base: new base}, storage)
Allocate = Callable[[int], tuple[int, dict[int, int], np.ndarray]]


def _layout(frame: np.ndarray, nmasks: int, union: int) -> tuple[int, int, int]:
    """Where a frame's parts start after its head (machine.py's layout): the reference
    bitmap, and the saved values; and how many bitmap words there are."""
    bitmap = F_HEAD + (nmasks + 63) // 64
    values = len(frame) - union
    return bitmap, values - bitmap, values


def relocate_frame(frame: np.ndarray, moves: dict[int, int], nmasks: int, union: int) -> None:
    """Relocate the references a saved frame holds (its reference bitmap says which of
    its saved values are references), in place."""
    bitmap, rw, values = _layout(frame, nmasks, union)
    for w in range(rw):
        word = int(frame[bitmap + w]) & ((1 << 64) - 1)
        while word:
            low = word & -word
            pos = values + w * 64 + low.bit_length() - 1
            frame[pos] = moves.get(int(frame[pos]), int(frame[pos]))
            word ^= low


def relocate_waiting(frames: list[np.ndarray], moves: dict[int, int], nmasks: int,
                     union: int) -> None:
    """After the pool moved: relocate every saved frame still waiting to be resumed."""
    if mutants.on("stale-frame-reference"):
        return  # the bug: the frames keep the old bases
    for frame in frames:
        relocate_frame(frame, moves, nmasks, union)


@dataclass
class LaneFates:
    """What a host run did to its lanes: faults (gid -> Fault), the others completed."""

    completed: list[int] = field(default_factory=list)
    faults: dict[int, Fault] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)  # faulting gids, in the order raised


class Host:
    """The host's view of one launch: the code, memory and launch parameters."""

    def __init__(self, compiled: Any, mem: np.ndarray, buftab: np.ndarray,
                 params: np.ndarray, n: int, W: int, trip_budget: int,
                 allocate: Allocate | None = None, ref_params: frozenset[int] = frozenset()
                 ) -> None:
        # decoded once: Python ints and Op members (a numpy row per step costs 10x more)
        self.code = [(Op(int(r[0])), *(int(x) for x in r[1:])) for r in compiled.host.rows]
        # a buffer reference is its base: base -> (base, length, bits)
        self.buffers = {int(row[0]): tuple(int(x) for x in row) for row in buftab}
        self.ref_vregs = compiled.host.ref_vregs
        self.ref_params = ref_params
        self._allocate = allocate
        self.waiting: list[np.ndarray] = []  # saved frames not resumed yet
        self.allocations = 0
        self.nvregs = compiled.host.nvregs
        self.nmasks = compiled.host.nmasks
        self.infopoints = compiled.infopoints
        self.union = len(compiled.union_regs) + len(compiled.union_slots)
        self.mem = mem
        self.params = [int(x) for x in params]
        self.n = n
        self.W = W
        self.budget = trip_budget

    # ------------------------------------------------------------------ entries

    def resume(self, frame: np.ndarray) -> LaneFates:
        """Finish one deopted lane from its frame (a row of the save area)."""
        gid, ip = int(frame[F_GID]), int(frame[F_IP])
        if not (0 <= gid < self.n and 0 <= ip < len(self.infopoints)):
            raise HostError(f"frame names workitem {gid} at infopoint {ip}")
        info = self.infopoints[ip]
        wave, lane = divmod(gid, self.W)
        state = _Wave(self, wave, 1 << lane)
        for j in range(self.nmasks):
            bit = (int(frame[F_HEAD + j // 64]) >> (j % 64)) & 1
            state.masks[j] = bit << lane
        state.masks[EXEC] = state.masks[ALIVE] = 1 << lane
        values = _layout(frame, self.nmasks, self.union)[2]
        for loc in info.live:
            if loc.position >= 0:
                state.regs[loc.vreg][lane] = int(frame[values + loc.position])
        state.trips[lane] = int(frame[F_TRIPS])
        start = info.host_pc
        if mutants.on("resume-restarts-statement"):
            start = info.statement_pc  # the statement's earlier effects happen again
        return state.run(start)

    def allocate(self, size: int, running: _Wave) -> int:
        """A fresh buffer from the pool; relocates every reference the host holds when
        the pool moved (the saved frames not under `stale-frame-reference`)."""
        if self._allocate is None:
            raise HostError("alloc() with no pool to allocate from")
        ref, moves, self.mem = self._allocate(size)
        self.allocations += 1
        if moves:
            self.buffers = {moves.get(b, b): (moves.get(b, b), ln, bits)
                            for b, (_, ln, bits) in self.buffers.items()}
            self.params = [moves.get(p, p) if i in self.ref_params else p
                           for i, p in enumerate(self.params)]
            for v in self.ref_vregs:
                running.regs[v] = [moves.get(x, x) for x in running.regs[v]]  # type: ignore[misc]
            relocate_waiting(self.waiting, moves, self.nmasks, self.union)
        self.buffers[ref] = (ref, size, 32)
        return ref

    def run_wave(self, wave: int) -> LaneFates:
        """Run a whole never-ran wave from the start."""
        live = min(self.W, self.n - wave * self.W)
        lanes = (1 << live) - 1
        state = _Wave(self, wave, lanes)
        state.masks[EXEC] = state.masks[ALIVE] = lanes
        return state.run(0)


class _Wave:
    """One wave (or one lane of it) on the host."""

    def __init__(self, host: Host, wave: int, lanes: int) -> None:
        self.h = host
        self.wave = wave
        self.base = wave * host.W
        self.lanes = lanes  # the lanes this run owns
        self.regs = [[0] * host.W for _ in range(host.nvregs)]
        self.masks = [0] * host.nmasks
        self.trips = [0] * host.W
        self.fates = LaneFates()

    def active(self, m: int) -> list[int]:
        out = []
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        return out

    def fault(self, lane: int, op: Op, ip: int, code: int | None = None) -> None:
        info = self.h.infopoints[ip]
        gid = self.base + lane
        self.fates.faults[gid] = Fault(_KIND[op], info.stack, code)
        self.fates.order.append(gid)
        self.masks[EXEC] &= ~(1 << lane)
        self.masks[ALIVE] &= ~(1 << lane)

    def buffer(self, ref: int) -> tuple[int, int, int]:
        row = self.h.buffers.get(ref)
        if row is None:
            raise HostError(f"invalid buffer reference {ref}")
        return row  # type: ignore[return-value]

    def run(self, pc: int) -> LaneFates:
        code, regs, masks, W = self.h.code, self.regs, self.masks, self.h.W
        steps = 0
        op: Any  # an Op's value: the rows hold plain ints
        while True:
            if not 0 <= pc < len(code):
                raise HostError(f"host pc {pc} outside the code")
            op, d, a, b, c, imm, wm, ip = code[pc]
            pc += 1
            steps += 1
            if steps > 50_000_000:
                raise HostError("the host ran past its step limit")
            ex = masks[EXEC]
            every = op in ALWAYS_ALL_LANES or wm == 1
            write = self.active(self.lanes if every else ex)
            if op in _BINARY:
                f2 = _BINARY[op]
                ra, rb, rd = regs[a], regs[b], regs[d]
                for lane in write:
                    rd[lane] = f2(ra[lane], rb[lane], imm if imm else 64)
            elif op in _UNARY:
                f1 = _UNARY[op]
                ra, rd = regs[a], regs[d]
                for lane in write:
                    rd[lane] = f1(ra[lane], imm if imm else 64)
            elif op in (Op.DIV, Op.REM):
                ra, rb, rd = regs[a], regs[b], regs[d]
                for lane in write:
                    x, y = ra[lane], rb[lane]
                    if y == 0:
                        if ex >> lane & 1:
                            self.fault(lane, op, ip)
                        continue
                    q = _tdiv(x, y)
                    rd[lane] = _wrap(q if op == Op.DIV else x - q * y, imm)
            elif op == Op.MOVI:
                for lane in write:
                    regs[d][lane] = imm
            elif op == Op.PARAM:
                for lane in write:
                    regs[d][lane] = self.h.params[imm]
            elif op == Op.LANEID:
                for lane in write:
                    regs[d][lane] = lane
            elif op == Op.GID:
                for lane in write:
                    regs[d][lane] = self.base + lane
            elif op == Op.WAVEID:
                for lane in write:
                    regs[d][lane] = self.wave
            elif op in (Op.LOAD, Op.LEN):
                for lane in write:
                    active = ex >> lane & 1
                    ref = regs[a][lane]
                    if not active and ref not in self.h.buffers:
                        regs[d][lane] = 0
                        continue
                    base, length, _ = self.buffer(ref)
                    if op == Op.LEN:
                        regs[d][lane] = length
                        continue
                    i = regs[b][lane]
                    if 0 <= i < length:
                        regs[d][lane] = int(self.h.mem[base + i])
                    elif active:
                        self.fault(lane, op, ip)
                    else:
                        regs[d][lane] = 0
            elif op in (Op.STORE, Op.ATOMIC_ADD):
                for lane in self.active(ex):
                    base, length, bits = self.buffer(regs[a][lane])
                    i = regs[b][lane]
                    if not 0 <= i < length:
                        self.fault(lane, op, ip)
                        continue
                    v = regs[c][lane]
                    if op == Op.ATOMIC_ADD:
                        v += int(self.h.mem[base + i])
                    self.h.mem[base + i] = _wrap(v, bits)
            elif op == Op.FAIL:
                for lane in self.active(ex):
                    self.fault(lane, op, ip, regs[a][lane])
            elif op == Op.ALLOC:
                for lane in self.active(ex):
                    size = regs[a][lane]
                    if not 0 <= size <= ALLOC_MAX:
                        self.fault(lane, op, ip)
                        continue
                    regs[d][lane] = self.h.allocate(size, self)
            elif op == Op.M_GETEXEC:
                masks[d] = ex
            elif op == Op.M_SETEXEC:
                masks[EXEC] = masks[a] & masks[ALIVE]
            elif op == Op.M_FROMCOND:
                cond = 0
                for lane in self.active(ex):
                    if regs[a][lane]:
                        cond |= 1 << lane
                masks[d] = cond & ex if d != EXEC else cond & ex
            elif op in (Op.M_ANDN, Op.M_OR, Op.M_AND):
                x, y = masks[a], masks[b]
                t = x & ~y if op == Op.M_ANDN else (x | y if op == Op.M_OR else x & y)
                masks[d] = t & masks[ALIVE] if d == EXEC else t
            elif op == Op.M_CLEAR:
                masks[d] = 0
            elif op == Op.KILL:
                masks[ALIVE] &= ~ex
                masks[EXEC] = 0
            elif op == Op.JMP:
                pc = imm
            elif op == Op.JZ_EXEC:
                if ex == 0:
                    pc = imm
            elif op == Op.JZ_MASK:
                if masks[a] == 0:
                    pc = imm
            elif op == Op.TRIP:
                for lane in self.active(ex):
                    self.trips[lane] += 1
                    if self.trips[lane] > self.h.budget:
                        raise HostBudget(self.base + lane)
            elif op == Op.HALT:
                break
            elif op == Op.SET_INACTIVE:
                for lane in range(W):
                    regs[d][lane] = regs[a][lane] if ex >> lane & 1 else imm
            elif op in (Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR, Op.WWM_AND,
                        Op.WWM_BALLOT):
                xs = regs[a]
                if op == Op.WWM_SUM:
                    t = _wrap(sum(xs), imm)
                elif op == Op.WWM_MIN:
                    t = min(xs)
                elif op == Op.WWM_MAX:
                    t = max(xs)
                elif op == Op.WWM_OR:
                    t = int(any(xs))
                elif op == Op.WWM_AND:
                    t = int(all(xs))
                else:
                    t = _wrap(sum(1 << lane for lane in range(W) if xs[lane]), 64)
                for lane in range(W):
                    regs[d][lane] = t
            elif op in (Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL):
                running, out = 0, []
                for lane in range(W):
                    if op == Op.WWM_SCAN_INCL:
                        running += regs[a][lane]
                        out.append(_wrap(running, imm))
                    else:
                        out.append(_wrap(running, imm))
                        running += regs[a][lane]
                regs[d] = out
            elif op == Op.READFIRST:
                if ex:
                    first = regs[a][(ex & -ex).bit_length() - 1]
                    for lane in write:
                        regs[d][lane] = first
            elif op == Op.SHUFFLE:
                src = regs[a]
                gathered = [src[i] if 0 <= i < W else 0 for i in regs[b]]
                for lane in write:
                    regs[d][lane] = gathered[lane]
            else:
                raise HostError(f"the host cannot run {op.name}")
        for lane in self.active(self.lanes):
            gid = self.base + lane
            if gid not in self.fates.faults:
                self.fates.completed.append(gid)
        return self.fates
