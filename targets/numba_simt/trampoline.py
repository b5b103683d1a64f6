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

Speed (this is the fuzz loop's heaviest target work: every lane reaching an `alloc()`
finishes on the host): a resume owns one lane, and runs in host_lane.py's compiled
one-lane loop over the lane's values alone, returning here only for what this module owns
(an `alloc()`'s allocation, a fault, the end) and handing over to the wave loop `run` at
the first instruction that reads other lanes (a wave operation). A round's frames go to the
compiled loop together (`resume_frames`): it runs them one after another for as long as
each ends there (done, or faulted: a lane that faulted on the device faults again at
once), so Python sees only what it must serve. The wave loop (never-ran
waves on the host, and what follows a wave operation) is Python, built for CPython: the
code is decoded once per compiled kernel (`decode`) into tuples naming a handler kind,
tested most frequent first, whether the instruction writes every owned lane, and for
arithmetic a function specialised to its width; a jump outside the code, or running off
its end, lands on a sentinel entry instead of a bounds check per step; a mask's lanes come
from a per-launch cache. The two loops are one semantics, step for step (step count,
fault order, errors included).

The `resume-restarts-statement` and `stale-frame-reference` mutants live here.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from difftest.core.ir.nodes import ALLOC_MAX
from difftest.core.outcome import Fault

from . import host_lane
from .mutants import NONE, Mutants
from .host_lane import (F_GID, F_HEAD, F_IP, K_ALLOC, K_BINARY, K_CANNOT, K_CLEAR, K_DIVREM,
                        K_FAIL, K_FROMCOND, K_GETEXEC, K_GID, K_HALT, K_JMP, K_JZ_EXEC,
                        K_JZ_MASK, K_KILL, K_LANEID, K_LEN, K_LOAD, K_M_AND, K_M_ANDN, K_M_OR,
                        K_MOV, K_MOVI, K_OUTSIDE, K_PARAM, K_SETEXEC, K_STORE, K_TRIP, K_UNARY,
                        K_WAVE_OP, K_WAVEID)
from .isa import ALIVE, ALWAYS_ALL_LANES, EXEC, Op


class ResumeError(Exception):
    """Inconsistent code or frame met while resuming deopted lanes (an internal error of
    the target, never a fault; not difftest.core.host.HostError, a host program's)."""


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


@functools.lru_cache(maxsize=1024)
def _binary(op: Op, w: int) -> Callable[[int, int], int]:
    """`_BINARY[op]` at width `w` (the instruction's imm, 64 when 0) as a function of the
    two lane values, with `_wrap` inlined as ((x + half) & mask) - half: the same number
    for every w >= 1 (the compiler's widths are 32 and 64)."""
    if w < 1:
        return lambda x, y: _BINARY[op](x, y, w)
    mask, half, sh = (1 << w) - 1, 1 << (w - 1), w - 1
    fast: dict[Op, Callable[[int, int], int]] = {
        Op.ADD: lambda x, y: ((x + y + half) & mask) - half,
        Op.SUB: lambda x, y: ((x - y + half) & mask) - half,
        Op.MUL: lambda x, y: ((x * y + half) & mask) - half,
        Op.SHL: lambda x, y: (((x << (y & sh)) + half) & mask) - half,
        Op.SHR: lambda x, y: (((x >> (y & sh)) + half) & mask) - half,
        Op.AND: operator.and_,
        Op.OR: operator.or_,
        Op.XOR: operator.xor,
        Op.CMP_EQ: lambda x, y: 1 if x == y else 0,
        Op.CMP_NE: lambda x, y: 1 if x != y else 0,
        Op.CMP_LT: lambda x, y: 1 if x < y else 0,
        Op.CMP_LE: lambda x, y: 1 if x <= y else 0,
        Op.CMP_GT: lambda x, y: 1 if x > y else 0,
        Op.CMP_GE: lambda x, y: 1 if x >= y else 0,
    }
    return fast[op]


@functools.lru_cache(maxsize=1024)
def _unary(op: Op, w: int) -> Callable[[int], int]:
    """`_UNARY[op]` at width `w`, as `_binary` (MOV has its own handler)."""
    if w < 1 or op == Op.LNOT:
        return lambda x: _UNARY[op](x, w)
    mask, half = (1 << w) - 1, 1 << (w - 1)
    fast: dict[Op, Callable[[int], int]] = {
        Op.NEG: lambda x: ((half - x) & mask) - half,
        Op.NOT: lambda x: ((~x + half) & mask) - half,
        Op.WRAP: lambda x: ((x + half) & mask) - half,
    }
    return fast[op]


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


def relocate_waiting(frames: np.ndarray, moves: dict[int, int], nmasks: int,
                     union: int, mutants: Mutants = NONE) -> None:
    """After the pool moved: relocate, in place, the references held by every saved frame
    still waiting to be resumed (the rows of `frames`), found through each frame's
    reference bitmap."""
    if mutants.on("stale-frame-reference"):
        return  # the bug: the frames keep the old bases
    if len(frames) and moves:
        bitmap, words, values = _layout(frames[0], nmasks, union)
        host_lane.relocate_frames(frames, bitmap, words, values,
                                  np.fromiter(moves.keys(), np.int64, len(moves)),
                                  np.fromiter(moves.values(), np.int64, len(moves)))


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
                 allocate: Allocate | None = None, ref_params: frozenset[int] = frozenset(),
                 mutants: Mutants = NONE) -> None:
        self.mutants = mutants
        self.rows = compiled.host.rows
        self.decoded: _Decoded = compiled.decoded if compiled.decoded is not None else decode(
            self.rows, compiled.host.nvregs, compiled.host.nmasks, compiled.infopoints)
        # a buffer reference is its base: base -> (base, length, bits)
        self.buffers = {int(row[0]): tuple(int(x) for x in row) for row in buftab}
        self.ref_vregs = compiled.host.ref_vregs
        self.ref_params = ref_params
        self._allocate = allocate
        self.waiting = np.zeros((0, 0), dtype=np.int64)  # frames not resumed yet: rows
        self.allocations = 0
        self.nvregs = compiled.host.nvregs
        self.nmasks = compiled.host.nmasks
        self.infopoints = compiled.infopoints
        self.union = len(compiled.union_regs) + len(compiled.union_slots)
        self.mem = mem
        self.params = [int(x) for x in params]
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None  # `arrays()`
        self.n = n
        self.W = W
        self.budget = trip_budget
        self.lanes_of = _LaneLists()

    # ------------------------------------------------------------------ entries

    def resume(self, frame: np.ndarray) -> LaneFates:
        """Finish one deopted lane from its frame (a row of the save area) in the wave
        loop: what `resume_frames` does with `LANE_LOOP` off, and where a frame naming no
        workitem or infopoint of the launch, or a start outside the code, is reported."""
        gid, ip = int(frame[F_GID]), int(frame[F_IP])
        if not (0 <= gid < self.n and 0 <= ip < len(self.infopoints)):
            raise ResumeError(f"frame names workitem {gid} at infopoint {ip}")
        info = self.infopoints[ip]
        start = info.host_pc
        if self.mutants.on("resume-restarts-statement"):
            start = info.statement_pc  # the statement's earlier effects happen again
        if not 0 <= start < len(self.rows):
            raise ResumeError(f"host pc {start} outside the code")
        wave, lane = divmod(gid, self.W)
        state = _Wave(self, wave, 1 << lane)
        live, live_at = self._live_table()
        vals = np.zeros(max(1, self.nvregs), dtype=np.int64)
        masks = np.zeros(self.nmasks, dtype=np.int64)
        trips = host_lane.load_frame(frame, live[live_at[ip]:live_at[ip + 1]],
                                     len(frame) - self.union, vals, masks)
        masks[EXEC] = masks[ALIVE] = 1
        state.take_lane(lane, vals, masks, int(trips))
        return state.run(start)

    def resume_frames(self, frames: np.ndarray, stop_after_fault: bool = False
                      ) -> Iterator[tuple[int, Fault | None, LaneFates | None]]:
        """Finish the deopted lanes of `frames` (save-area rows), in order: for each,
        (gid, its fault or None, None) when it ended in the compiled batch
        (`host_lane.resume_lanes`), or (-1, None, its fates) when it went through `resume`
        or on from `finish_lane`. The same runs, one frame after another, as `resume` of
        each frame (`waiting`: the frames after the one Python is serving). With
        `stop_after_fault`, nothing runs after the first frame that faults."""
        if not LANE_LOOP:
            for k in range(len(frames)):
                self.waiting = frames[k + 1:]
                yield -1, None, self.resume(frames[k])
            return
        live, live_at = self._live_table()
        restart = self.mutants.on("resume-restarts-statement")  # as `resume`
        starts = np.array([info.statement_pc if restart else info.host_pc
                           for info in self.infopoints], dtype=np.int64)
        out = np.zeros((len(frames), 3), dtype=np.int64)
        values = frames.shape[1] - self.union
        k = 0
        while k < len(frames):
            bufs, params = self.arrays()
            stop, status, vals, masks, state = host_lane.resume_lanes(
                self.decoded.lane, frames, k, live, live_at, starts, len(self.rows), values,
                self.nvregs, self.nmasks, self.n, self.W, self.mem, bufs, params,
                self.budget, _STEP_LIMIT, EXEC, ALIVE, stop_after_fault, out)
            for j in range(k, stop):
                gid = int(frames[j, F_GID])
                if out[j, 0] == host_lane.DONE:
                    yield gid, None, None
                else:
                    fault = self.fault_of(*self.fault_at(int(out[j, 1]), int(out[j, 2])))
                    yield gid, fault, None
            if status == host_lane.PAUSED:
                return
            self.waiting = frames[stop + 1:]
            if status == host_lane.NOT_STARTED:  # `resume` says what is wrong with it
                yield -1, None, self.resume(frames[stop])
            else:
                wave, lane = divmod(int(frames[stop, F_GID]), self.W)
                yield -1, None, _Wave(self, wave, 1 << lane).finish_lane(
                    lane, int(status), vals, masks, state)
            k = stop + 1

    def _live_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Every infopoint's (vreg, saved position) pairs, one after another, and where
        each infopoint's start (`resume_lanes` reads them)."""
        return self.decoded.live_table

    def fault_at(self, pc: int, arg: int) -> tuple[Op, int, int | None]:
        """What faulted where the compiled loop stopped with FAULTED (`pc`: one past the
        faulting instruction; `arg`: a fail()'s code): the op, its infopoint, its code."""
        row = self.decoded.lane[pc - 1]
        op = Op(int(row[host_lane.C_OPCODE]))
        return op, int(row[host_lane.C_IP]), arg if op == Op.FAIL else None

    def fault_of(self, op: Op, ip: int, code: int | None) -> Fault:
        return Fault(_KIND[op], self.infopoints[ip].stack, code)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The buffers (rows of base, length, bits, sorted by base) and the parameters,
        as the compiled lane loop reads them (remade after an allocation)."""
        if self._arrays is None:
            bufs = np.array(sorted(self.buffers.values()), dtype=np.int64).reshape(-1, 3)
            self._arrays = bufs, np.array(self.params, dtype=np.int64).reshape(-1)
        return self._arrays

    def allocate(self, size: int, running: _Wave, lane_vals: np.ndarray | None = None
                 ) -> int:
        """A fresh buffer from the pool; relocates every reference the host holds when
        the pool moved (the saved frames not under `stale-frame-reference`): in the
        running wave's registers, or in `lane_vals` when one lane runs (`run_lane`)."""
        if self._allocate is None:
            raise ResumeError("alloc() with no pool to allocate from")
        ref, moves, self.mem = self._allocate(size)
        self.allocations += 1
        self._arrays = None
        if moves:
            self.buffers = {moves.get(b, b): (moves.get(b, b), ln, bits)
                            for b, (_, ln, bits) in self.buffers.items()}
            self.params = [moves.get(p, p) if i in self.ref_params else p
                           for i, p in enumerate(self.params)]
            for v in self.ref_vregs:
                if lane_vals is None:
                    running.regs[v] = [moves.get(x, x) for x in running.regs[v]]  # type: ignore[misc]
                else:
                    lane_vals[v] = moves.get(int(lane_vals[v]), int(lane_vals[v]))
            relocate_waiting(self.waiting, moves, self.nmasks, self.union, self.mutants)
        self.buffers[ref] = (ref, size, 32)
        return ref

    def run_wave(self, wave: int) -> LaneFates:
        """Run a whole never-ran wave from the start."""
        live = min(self.W, self.n - wave * self.W)
        lanes = (1 << live) - 1
        state = _Wave(self, wave, lanes, (1 << self.W) - 1)
        state.masks[EXEC] = state.masks[ALIVE] = lanes
        state.regs = state.fresh_regs()
        return state.run(0)


class _Regs(dict[int, list[int]]):
    """vreg -> its value in each of W lanes, 0 until written."""

    def __init__(self, W: int) -> None:
        super().__init__()
        self.W = W

    def __missing__(self, vreg: int) -> list[int]:
        lanes = self[vreg] = [0] * self.W
        return lanes


class _LaneLists(dict[int, list[int]]):
    """mask -> its lanes, lowest first: computed once per mask and launch (the host asks
    for the same few masks at nearly every instruction). The lists are never changed."""

    def __missing__(self, mask: int) -> list[int]:
        out, m = [], mask
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        self[mask] = out
        return out


# What an instruction does, decoded from its opcode (host_lane.py numbers the kinds):
# `_Wave.run` tests them in this order, the most frequent in the fuzz loop first.
_KINDS = {
    Op.MOVI: K_MOVI, Op.M_SETEXEC: K_SETEXEC, Op.M_OR: K_M_OR, Op.M_GETEXEC: K_GETEXEC,
    Op.JZ_EXEC: K_JZ_EXEC, Op.MOV: K_MOV, Op.M_CLEAR: K_CLEAR, Op.M_FROMCOND: K_FROMCOND,
    Op.M_ANDN: K_M_ANDN, Op.LOAD: K_LOAD, Op.JMP: K_JMP, Op.TRIP: K_TRIP, Op.LEN: K_LEN,
    Op.LANEID: K_LANEID, Op.GID: K_GID, Op.STORE: K_STORE, Op.ATOMIC_ADD: K_STORE,
    Op.DIV: K_DIVREM, Op.REM: K_DIVREM, Op.HALT: K_HALT, Op.M_AND: K_M_AND,
    Op.WAVEID: K_WAVEID, Op.KILL: K_KILL, Op.PARAM: K_PARAM, Op.JZ_MASK: K_JZ_MASK,
    Op.ALLOC: K_ALLOC, Op.FAIL: K_FAIL,
    **{op: K_BINARY for op in _BINARY}, **{op: K_UNARY for op in _UNARY if op != Op.MOV},
    **{op: K_WAVE_OP for op in (Op.SET_INACTIVE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX,
                                Op.WWM_OR, Op.WWM_AND, Op.WWM_BALLOT, Op.WWM_SCAN_EXCL,
                                Op.WWM_SCAN_INCL, Op.READFIRST, Op.SHUFFLE)},
}  # any other opcode (DEOPT, SPILL, RELOAD: device code only) is K_CANNOT
_JUMPS = frozenset({Op.JMP, Op.JZ_EXEC, Op.JZ_MASK})

#: a decoded instruction: (kind, every, d, a, b, c, imm, ip, f, op) -- `every`: it writes
#: every lane the run owns (else the EXEC lanes); `f`: an arithmetic op's function
_Instr = tuple[int, bool, int, int, int, int, int, int, Any, Op]

# the operands (d, a, b, c) each kind reads or writes: v a vreg, m a mask register
_ROLES = {K_BINARY: "vvv", K_MOVI: "v", K_SETEXEC: "-m", K_M_OR: "mmm", K_GETEXEC: "m",
          K_MOV: "vv", K_CLEAR: "m", K_FROMCOND: "mv", K_M_ANDN: "mmm", K_LOAD: "vvv",
          K_LEN: "vv", K_UNARY: "vv", K_LANEID: "v", K_GID: "v", K_STORE: "-vvv",
          K_DIVREM: "vvv", K_M_AND: "mmm", K_WAVEID: "v", K_PARAM: "v", K_JZ_MASK: "-m",
          K_ALLOC: "vv", K_FAIL: "-v"}  # every other kind names no register
# the compiled loop's arithmetic codes
_ARITH = {Op.ADD: host_lane.A_ADD, Op.SUB: host_lane.A_SUB, Op.MUL: host_lane.A_MUL,
          Op.AND: host_lane.A_AND, Op.OR: host_lane.A_OR, Op.XOR: host_lane.A_XOR,
          Op.SHL: host_lane.A_SHL, Op.SHR: host_lane.A_SHR, Op.CMP_EQ: host_lane.A_EQ,
          Op.CMP_NE: host_lane.A_NE, Op.CMP_LT: host_lane.A_LT, Op.CMP_LE: host_lane.A_LE,
          Op.CMP_GT: host_lane.A_GT, Op.CMP_GE: host_lane.A_GE, Op.NEG: host_lane.A_NEG,
          Op.NOT: host_lane.A_NOT, Op.LNOT: host_lane.A_LNOT, Op.WRAP: host_lane.A_WRAP,
          Op.DIV: host_lane.A_DIV, Op.REM: host_lane.A_REM,
          Op.ATOMIC_ADD: host_lane.A_ATOMIC_ADD}


def _by_opcode(table: dict[Op, int], default: int) -> np.ndarray:
    out = np.full(max(Op) + 1, default, dtype=np.int64)
    for op, x in table.items():
        out[op] = x
    return out


_KNOWN = np.zeros(max(Op) + 1, dtype=bool)
_KNOWN[list(Op)] = True
_KIND_OF = _by_opcode(_KINDS, K_CANNOT)
_ARITH_OF = _by_opcode(_ARITH, host_lane.A_OTHER)
_ALL_LANES_OF = _by_opcode({op: 1 for op in ALWAYS_ALL_LANES}, 0)
_JUMP_OF = _by_opcode({op: 1 for op in _JUMPS}, 0).astype(bool)
_WIDE_KINDS = np.array([K_BINARY, K_UNARY])  # width: imm, or 64 for 0
_ROLE_OF = np.zeros((K_OUTSIDE + 1, 4), dtype=np.int64)  # 0: none, 1: vreg, 2: mask
for _kind, _roles in _ROLES.items():
    _ROLE_OF[_kind, :len(_roles)] = ["-vm".index(r) for r in _roles]


class _Decoded:
    """A kernel's host code decoded once, with its compilation (`Compiled.decoded`):
    `lane`, int64 rows in host_lane.py's columns, for the compiled one-lane loop; per
    infopoint the (vreg, saved position) pairs a resume loads (`live_table`); and `code`,
    the same as `_Instr` tuples for the wave loop (made when first asked: most kernels
    never need it)."""

    def __init__(self, lane: np.ndarray, live_table: tuple[np.ndarray, np.ndarray]) -> None:
        self.lane = lane
        self.live_table = live_table

    @functools.cached_property
    def code(self) -> list[_Instr]:
        return [(kind, bool(every), d, a, b, c, imm, ip,
                 _binary(Op(raw), width) if kind == K_BINARY else
                 _unary(Op(raw), width) if kind == K_UNARY else None,
                 Op(raw) if kind != K_OUTSIDE else Op.HALT)
                for kind, every, d, a, b, c, imm, ip, _, width, raw in self.lane.tolist()]


def _live_table(infopoints: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Every infopoint's (vreg, saved position) pairs, one after another, and where each
    infopoint's start (`resume_lanes` reads them)."""
    pairs = [[(loc.vreg, loc.position) for loc in info.live if loc.position >= 0]
             for info in infopoints]
    at = np.zeros(len(pairs) + 1, dtype=np.int64)
    at[1:] = np.cumsum([len(p) for p in pairs])
    flat = [pair for p in pairs for pair in p]
    return np.array(flat, dtype=np.int64).reshape(-1, 2), at


def decode(rows: np.ndarray, nvregs: int, nmasks: int, infopoints: Sequence[Any] = ()
           ) -> _Decoded:
    """The host code decoded (an unknown opcode, a register or a width out of range:
    ResumeError). Past the last instruction, and at every jump target outside the code,
    sits a K_OUTSIDE entry (its imm: the pc) that raises the error the pc check would, so
    neither loop needs a bounds check."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, 8)
    count = len(rows)
    ops = rows[:, 0]
    unknown = np.flatnonzero((ops < 0) | (ops >= len(_KNOWN)))
    if len(unknown) == 0:
        unknown = np.flatnonzero(~_KNOWN[ops])
    if len(unknown):
        pc = int(unknown[0])
        raise ResumeError(f"host instruction {pc}: unknown opcode {int(ops[pc])}")
    kind = _KIND_OF[ops]
    imm = rows[:, 5].copy()
    width = np.where(np.isin(kind, _WIDE_KINDS), np.where(imm == 0, 64, imm),
                     np.where(kind == K_DIVREM, imm, 64))
    arithmetic = np.isin(kind, (K_BINARY, K_UNARY, K_DIVREM))
    bad = np.flatnonzero(arithmetic & ((width < 1) | (width > 64)))
    if len(bad):
        pc = int(bad[0])
        raise ResumeError(f"host instruction {pc} ({Op(ops[pc]).name}): width {width[pc]}")
    roles = _ROLE_OF[kind]
    regs = rows[:, 1:5]
    limit = np.where(roles == 1, nvregs, nmasks)
    bad = np.flatnonzero(((roles > 0) & ((regs < 0) | (regs >= limit))).any(axis=1))
    if len(bad):
        pc = int(bad[0])
        raise ResumeError(f"host instruction {pc} ({Op(ops[pc]).name}): a register out of "
                        "range")
    outside = {count: count}  # pc outside the code -> its entry's index
    for pc in np.flatnonzero(_JUMP_OF[ops] & ((imm < 0) | (imm >= count))).tolist():
        imm[pc] = outside.setdefault(int(imm[pc]), count + len(outside))
    lane = np.empty((count + len(outside), host_lane.LANE_CODE_WIDTH), dtype=np.int64)
    lane[:count] = np.column_stack((
        kind, (_ALL_LANES_OF[ops] == 1) | (rows[:, 6] == 1), regs, imm, rows[:, 7],
        _ARITH_OF[ops], width, ops))
    lane[count:] = [(K_OUTSIDE, 0, 0, 0, 0, 0, pc, -1, host_lane.A_OTHER, 64, Op.HALT)
                    for pc in outside]
    return _Decoded(lane, _live_table(infopoints))


_STEP_LIMIT = 50_000_000
#: resumes run in host_lane.py's compiled loop; False: in the wave loop, owning one lane
#: (the same semantics: the tests compare the two)
LANE_LOOP = True
_LANE_ERRORS = {host_lane.ERR_OUTSIDE: "host pc {} outside the code",
                host_lane.ERR_STEPS: "the host ran past its step limit",
                host_lane.ERR_REF: "invalid buffer reference {}",
                host_lane.ERR_CANNOT: "the host cannot run {}",
                host_lane.ERR_PARAM: "parameter {} out of range",
                host_lane.ERR_MEMORY: "a buffer past the end of memory"}


class _Wave:
    """One wave (or one lane of it) on the host."""

    def __init__(self, host: Host, wave: int, lanes: int, hardware: int | None = None
                 ) -> None:
        self.h = host
        self.wave = wave
        self.base = wave * host.W
        self.lanes = lanes  # the lanes this run owns
        # the lanes an all-lane write covers: a whole wave's every hardware lane (lanes
        # past n too, as on the machine: whole-wave code reads them); a resumed lane alone
        self.hardware = lanes if hardware is None else hardware
        self.regs: _Regs = _Regs(0)  # vreg -> its value in each lane (`fresh_regs`)
        self.masks = [0] * host.nmasks
        self.trips = [0] * host.W
        self.fates = LaneFates()

    def fresh_regs(self) -> _Regs:
        """Every vreg, 0 in every lane (a vreg's lanes are made when it is first named:
        a resume hands over to `run` with a few hundred vregs, and reads a few)."""
        return _Regs(self.h.W)

    def fault(self, lane: int, op: Op, ip: int, code: int | None = None) -> None:
        gid = self.base + lane
        self.fates.faults[gid] = self.h.fault_of(op, ip, code)
        self.fates.order.append(gid)
        self.masks[EXEC] &= ~(1 << lane)
        self.masks[ALIVE] &= ~(1 << lane)

    def buffer(self, ref: int) -> tuple[int, int, int]:
        row = self.h.buffers.get(ref)
        if row is None:
            raise ResumeError(f"invalid buffer reference {ref}")
        return row  # type: ignore[return-value]

    def run(self, pc: int, steps: int = 0) -> LaneFates:
        """Run the lanes this run owns from `pc` to HALT (`steps`: instructions already
        run, by the compiled lane loop)."""
        h = self.h
        code, regs, masks, lanes_of = h.decoded.code, self.regs, self.masks, h.lanes_of
        owned = lanes_of[self.lanes]
        every_lane = lanes_of[self.hardware]
        if not 0 <= pc < len(h.rows):
            raise ResumeError(f"host pc {pc} outside the code")
        while True:
            kind, every, d, a, b, c, imm, ip, f, op = code[pc]
            pc += 1
            steps += 1
            if steps > _STEP_LIMIT:
                if kind == K_OUTSIDE:
                    raise ResumeError(f"host pc {imm} outside the code")
                raise ResumeError("the host ran past its step limit")
            ex = masks[EXEC]
            # the lanes an instruction writes: `every_lane if every else lanes_of[ex]`
            if kind == K_BINARY:
                ra, rb, rd = regs[a], regs[b], regs[d]
                for lane in every_lane if every else lanes_of[ex]:
                    rd[lane] = f(ra[lane], rb[lane])
            elif kind == K_MOVI:
                for lane in every_lane if every else lanes_of[ex]:
                    regs[d][lane] = imm
            elif kind == K_SETEXEC:
                masks[EXEC] = masks[a] & masks[ALIVE]
            elif kind == K_M_OR:
                t = masks[a] | masks[b]
                masks[d] = t & masks[ALIVE] if d == EXEC else t
            elif kind == K_GETEXEC:
                masks[d] = ex
            elif kind == K_JZ_EXEC:
                if ex == 0:
                    pc = imm
            elif kind == K_MOV:
                ra, rd = regs[a], regs[d]
                for lane in every_lane if every else lanes_of[ex]:
                    rd[lane] = ra[lane]
            elif kind == K_CLEAR:
                masks[d] = 0
            elif kind == K_FROMCOND:
                cond = 0
                for lane in lanes_of[ex]:
                    if regs[a][lane]:
                        cond |= 1 << lane
                masks[d] = cond & ex
            elif kind == K_M_ANDN:
                t = masks[a] & ~masks[b]
                masks[d] = t & masks[ALIVE] if d == EXEC else t
            elif kind == K_LOAD or kind == K_LEN:
                self.load(op, d, a, b, ip, every_lane if every else lanes_of[ex], ex)
            elif kind == K_JMP:
                pc = imm
            elif kind == K_TRIP:
                trips = self.trips
                for lane in lanes_of[ex]:
                    trips[lane] += 1
                    if trips[lane] > h.budget:
                        raise HostBudget(self.base + lane)
            elif kind == K_UNARY:
                ra, rd = regs[a], regs[d]
                for lane in every_lane if every else lanes_of[ex]:
                    rd[lane] = f(ra[lane])
            elif kind == K_LANEID:
                for lane in every_lane if every else lanes_of[ex]:
                    regs[d][lane] = lane
            elif kind == K_GID:
                for lane in every_lane if every else lanes_of[ex]:
                    regs[d][lane] = self.base + lane
            elif kind == K_STORE:
                self.store(op, a, b, c, ip, lanes_of[ex])
            elif kind == K_DIVREM:
                self.divrem(op, d, a, b, imm, ip, every_lane if every else lanes_of[ex], ex)
            elif kind == K_HALT:
                break
            elif kind == K_WAVE_OP:
                self.wave_op(op, d, a, b, imm, every_lane if every else lanes_of[ex], ex)
            elif kind == K_M_AND:
                t = masks[a] & masks[b]
                masks[d] = t & masks[ALIVE] if d == EXEC else t
            elif kind == K_WAVEID:
                for lane in every_lane if every else lanes_of[ex]:
                    regs[d][lane] = self.wave
            elif kind == K_KILL:
                masks[ALIVE] &= ~ex
                masks[EXEC] = 0
            elif kind == K_PARAM:
                for lane in every_lane if every else lanes_of[ex]:
                    regs[d][lane] = h.params[imm]
            elif kind == K_JZ_MASK:
                if masks[a] == 0:
                    pc = imm
            elif kind == K_ALLOC:  # `allocate` may replace the lists of reference vregs
                for lane in lanes_of[ex]:
                    size = regs[a][lane]
                    if not 0 <= size <= ALLOC_MAX:
                        self.fault(lane, op, ip)
                        continue
                    regs[d][lane] = h.allocate(size, self)
            elif kind == K_FAIL:
                for lane in lanes_of[ex]:
                    self.fault(lane, op, ip, regs[a][lane])
            elif kind == K_OUTSIDE:
                raise ResumeError(f"host pc {imm} outside the code")
            else:
                raise ResumeError(f"the host cannot run {op.name}")
        faults = self.fates.faults
        for lane in owned:
            gid = self.base + lane
            if gid not in faults:
                self.fates.completed.append(gid)
        return self.fates

    def finish_lane(self, lane: int, status: int, vals: np.ndarray, masks: np.ndarray,
                    state: np.ndarray) -> LaneFates:
        """Go on with a resume (one lane's run) after host_lane.py's compiled loop returned
        `status`, on that lane's values alone (`vals[vreg]`, and `masks[j]`: the lane's bit
        of mask j, 1 or 0): allocate at an `alloc()` and run on; at a wave operation,
        which reads other lanes, make the registers a wave's (the other lanes 0) and go on
        in `run`; record the fault or the completion."""
        h = self.h
        lane_code = h.decoded.lane
        while status == host_lane.AT_ALLOC:  # the pool's: then on after the ALLOC
            pc, size = int(state[host_lane.S_PC]), int(state[host_lane.S_ARG])
            if not 0 <= size <= ALLOC_MAX:
                self.fault(lane, Op.ALLOC, int(lane_code[pc - 1, host_lane.C_IP]))
                return self.fates
            vals[lane_code[pc - 1, host_lane.C_D]] = h.allocate(size, self, vals)
            bufs, params = h.arrays()
            status = host_lane.run_lane(lane_code, vals, masks, state, h.mem, bufs, params,
                                        h.budget, _STEP_LIMIT, EXEC, ALIVE)
        pc, arg = int(state[host_lane.S_PC]), int(state[host_lane.S_ARG])
        if status == host_lane.DONE:
            self.fates.completed.append(self.base + lane)
        elif status == host_lane.FAULTED:
            self.fault(lane, *h.fault_at(pc, arg))
        elif status == host_lane.AT_WAVE_OP:
            self.take_lane(lane, vals, masks, int(state[host_lane.S_TRIPS]))
            return self.run(pc, int(state[host_lane.S_STEPS]))
        elif status == host_lane.OUT_OF_BUDGET:
            raise HostBudget(self.base + lane)
        else:
            raise ResumeError(_LANE_ERRORS.get(status, "the host lane loop stopped with {}")
                            .format(Op(arg).name if status == host_lane.ERR_CANNOT else arg))
        return self.fates

    def take_lane(self, lane: int, vals: np.ndarray, masks: np.ndarray, trips: int) -> None:
        """Make one lane's state (as the compiled lane loop holds it) this wave's, for
        `run`: the registers a wave's (the other lanes 0), the masks the lane's bit."""
        self.masks = [m << lane for m in masks.tolist()]
        self.trips[lane] = trips
        self.regs = self.fresh_regs()
        for v, x in enumerate(vals.tolist()):
            if x:
                self.regs[v][lane] = x

    # -------------------------------------------------- the less frequent instructions

    def load(self, op: Op, d: int, a: int, b: int, ip: int, write: list[int],
             ex: int) -> None:
        """LOAD / LEN: an inactive lane (a whole-wave write) reads 0 where an active
        one would fault or read an invalid reference."""
        regs, buffers, mem = self.regs, self.h.buffers, self.h.mem
        for lane in write:
            active = ex >> lane & 1
            ref = regs[a][lane]
            if not active and ref not in buffers:
                regs[d][lane] = 0
                continue
            base, length, _ = self.buffer(ref)
            if op == Op.LEN:
                regs[d][lane] = length
                continue
            i = regs[b][lane]
            if 0 <= i < length:
                regs[d][lane] = int(mem[base + i])
            elif active:
                self.fault(lane, op, ip)
            else:
                regs[d][lane] = 0

    def store(self, op: Op, a: int, b: int, c: int, ip: int, active: list[int]) -> None:
        """STORE / ATOMIC_ADD, lane by lane."""
        regs, mem = self.regs, self.h.mem
        for lane in active:
            base, length, bits = self.buffer(regs[a][lane])
            i = regs[b][lane]
            if not 0 <= i < length:
                self.fault(lane, op, ip)
                continue
            v = regs[c][lane]
            if op == Op.ATOMIC_ADD:
                v += int(mem[base + i])
            mem[base + i] = _wrap(v, bits)

    def divrem(self, op: Op, d: int, a: int, b: int, imm: int, ip: int, write: list[int],
               ex: int) -> None:
        ra, rb, rd = self.regs[a], self.regs[b], self.regs[d]
        for lane in write:
            x, y = ra[lane], rb[lane]
            if y == 0:
                if ex >> lane & 1:
                    self.fault(lane, op, ip)
                continue
            q = _tdiv(x, y)
            rd[lane] = _wrap(q if op == Op.DIV else x - q * y, imm)

    def wave_op(self, op: Op, d: int, a: int, b: int, imm: int, write: list[int],
                ex: int) -> None:
        """The operations that read other lanes."""
        regs, W = self.regs, self.h.W
        if op == Op.SET_INACTIVE:
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
        else:  # SHUFFLE
            src = regs[a]
            gathered = [src[i] if 0 <= i < W else 0 for i in regs[b]]
            for lane in write:
                regs[d][lane] = gathered[lane]
