"""The host's side of deopt (the trampoline, as in seed 000): finishes deopted workitems
from their saved frames, and runs never-ran waves that the schedule puts on the host.

The host runs the compiler's code *before* speculation and register allocation (the
`HostCode`: virtual registers, every arm present), as HotSpot's interpreter runs the
bytecode the compiled code came from; it is numba-simt's own, never the oracle, and shares
nothing with the numba machine. What each instruction does is host_loop.py's compiled
loop, the one home of the host code's meaning; this module decodes the code for it once
per compiled kernel (`decode`), starts its runs, and serves what the loop hands back.

A resumed lane starts at its infopoint's host instruction with nothing but what its frame
holds: its mask bits, trip count, and the values the metadata maps from the saved
registers and slots (every value live there). It runs alone, as the only active lane of
its wave: the compiler never lets a lane deopt where a wave operation could follow (a real
fault re-faults at once). A fault on the host is final: the lane's fate, with the stack
of the infopoint that faulted. A round's frames go to the loop together
(`host_loop.resume_frames`), so Python sees only what it must serve.

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
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from difftest.core.ir.nodes import ALLOC_MAX
from difftest.core.outcome import Fault

from . import host_loop
from .host_loop import (K_ALLOC, K_BINARY, K_CANNOT, K_CHECK_INDEX, K_CLEAR, K_CVT, K_DIVREM,
                        K_FAIL, K_FMA, K_BARRIER, K_GROUPID, K_GROUPSIZE, K_LOCALID,
                        K_FROMCOND, K_GETEXEC, K_GID, K_HALT, K_JMP, K_JZ_EXEC, K_JZ_MASK,
                        K_KILL, K_LANEID, K_LEN, K_LOAD, K_M_AND, K_M_ANDN, K_M_OR, K_MOV,
                        K_MOVI, K_OUTSIDE, K_PARAM, K_SELECT, K_SETEXEC, K_STORE, K_TRIP,
                        K_UNARY, K_WAVE_OP, K_WAVEID)
from ..isa import ALIVE, ALWAYS_ALL_LANES, EXEC, INT_FUNCTIONS_A, INT_FUNCTIONS_AB, UNSIGNED, Op
from ..device.machine import F_GID, F_HEAD, F_IP, F_TRIPS, refmap_start
from ..mutants import NONE, Mutants


class ResumeError(Exception):
    """Inconsistent code or frame met while resuming deopted lanes (an internal error of
    the target, never a fault; not difftest.core.host.HostError, a host program's)."""


class HostBudget(Exception):
    """A lane ran out of its loop-trip budget on the host."""

    def __init__(self, gid: int) -> None:
        super().__init__(gid)
        self.gid = gid


_KIND = {Op.DIV: "division_by_zero", Op.REM: "division_by_zero", Op.LOAD: "out_of_bounds",
         Op.STORE: "out_of_bounds", Op.ATOMIC_ADD: "out_of_bounds", Op.ATOMIC: "out_of_bounds",
         Op.FAIL: "fail",
         Op.ALLOC: "out_of_bounds", Op.CVT_FI: "invalid_conversion",
         Op.CVT_DI: "invalid_conversion",
         Op.CHECK_INDEX: "out_of_bounds"}
#: the pool's side of `alloc()`: size -> (reference, moves {old base: new base}, storage)
Allocate = Callable[[int], tuple[int, dict[int, int], np.ndarray]]
# the frame layout as host_loop.py reads it: machine.py's, which writes the frames
_LAYOUT = np.array([F_GID, F_IP, F_TRIPS, F_HEAD], dtype=np.int64)
_STEP_LIMIT = 50_000_000
_ERRORS = {host_loop.ERR_OUTSIDE: "host pc {} outside the code",
           host_loop.ERR_STEPS: "the host ran past its step limit",
           host_loop.ERR_REF: "invalid buffer reference {}",
           host_loop.ERR_CANNOT: "the host cannot run {}",
           host_loop.ERR_PARAM: "parameter {} out of range",
           host_loop.ERR_MEMORY: "a buffer past the end of memory"}


def _layout(frame: np.ndarray, nmasks: int, union: int) -> tuple[int, int, int]:
    """Where a frame's parts start after its head (machine.py's layout): the reference
    bitmap, and the saved values; and how many bitmap words there are."""
    bitmap = refmap_start(nmasks)
    values = len(frame) - union
    return bitmap, values - bitmap, values


def _moves(moves: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    return (np.fromiter(moves.keys(), np.int64, len(moves)),
            np.fromiter(moves.values(), np.int64, len(moves)))


def relocate_waiting(frames: np.ndarray, moves: dict[int, int], nmasks: int,
                     union: int, mutants: Mutants = NONE) -> None:
    """After the pool moved: relocate, in place, the references held by every saved frame
    still waiting to be resumed (the rows of `frames`), found through each frame's
    reference bitmap."""
    if mutants.on("stale-frame-reference"):
        return  # the bug: the frames keep the old bases
    if len(frames) and moves:
        bitmap, words, values = _layout(frames[0], nmasks, union)
        host_loop.relocate_frames(frames, bitmap, words, values, *_moves(moves))


@dataclass
class LaneFates:
    """What a host run did to its lanes: faults (gid -> Fault), the others completed."""

    completed: list[int] = field(default_factory=list)
    faults: dict[int, Fault] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)  # faulting gids, in the order raised


class Host:
    """The host's view of one launch: the code, memory and launch parameters, and the
    registers of the wave it runs (host_loop.py's arrays, reused run after run)."""

    def __init__(self, compiled: Any, mem: np.ndarray, buftab: np.ndarray,
                 params: np.ndarray, n: int, W: int, trip_budget: int,
                 allocate: Allocate | None = None, ref_params: frozenset[int] = frozenset(),
                 mutants: Mutants = NONE, group: int = 0) -> None:
        self.mutants = mutants
        self.rows = compiled.host.rows
        self.decoded: _Decoded = compiled.decoded
        # a buffer reference is its base: base -> (base, length, bits)
        self.buffers = {int(row[0]): tuple(int(x) for x in row) for row in buftab}
        self.ref_vregs = np.array(sorted(compiled.host.ref_vregs), dtype=np.int64)
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
        self.regs = np.zeros((W, max(1, self.nvregs)), dtype=np.int64)
        self.masks = np.zeros(max(1, self.nmasks), dtype=np.int64)
        self.trips = np.zeros(W, dtype=np.int64)
        self.state = np.zeros(host_loop.STATE_SIZE, dtype=np.int64)
        self.state[host_loop.S_GROUP] = group or W  # the workgroup size G
        self.faults = np.zeros((W, 3), dtype=np.int64)

    def resume_frames(self, frames: np.ndarray, stop_after_fault: bool = False
                      ) -> Iterator[tuple[int, Fault | None]]:
        """Finish the deopted lanes of `frames` (save-area rows), in order: for each, its
        workitem and its fault (None: it completed). With `stop_after_fault`, nothing
        runs after the first frame that faults. `waiting`: the frames after the one
        Python is serving."""
        live, live_at = self.decoded.live_table
        restart = self.mutants.on("resume-restarts-statement")
        # the bug: resume at the statement's start, so its earlier effects happen again
        starts = np.array([info.statement_pc if restart else info.host_pc
                           for info in self.infopoints], dtype=np.int64)
        out = np.zeros((len(frames), 3), dtype=np.int64)
        values = frames.shape[1] - self.union
        k = 0
        while k < len(frames):
            bufs, params = self.arrays()
            stop, status = host_loop.resume_frames(
                self.decoded.lane, frames, k, _LAYOUT, live, live_at, starts,
                len(self.rows), self.n, values, self.regs, self.masks, self.trips,
                self.state, self.faults, self.mem, bufs, params, self.budget, _STEP_LIMIT,
                ALLOC_MAX, EXEC, ALIVE, stop_after_fault, out)
            for j in range(k, stop):
                gid = int(frames[j, F_GID])
                yield gid, self.fault_of(int(out[j, 1]), int(out[j, 2])) if out[j, 0] else None
            if status == host_loop.PAUSED:
                return
            gid, ip = int(frames[stop, F_GID]), int(frames[stop, F_IP])
            if status == host_loop.NOT_STARTED:
                if not (0 <= gid < self.n and 0 <= ip < len(self.infopoints)):
                    raise ResumeError(f"frame names workitem {gid} at infopoint {ip}")
                raise ResumeError(f"host pc {int(starts[ip])} outside the code")
            self.waiting = frames[stop + 1:]
            fates = self._serve(status)
            self.waiting = frames[:0]
            yield gid, fates.faults.get(gid)
            k = stop + 1

    def run_wave(self, wave: int) -> LaneFates:
        """Run a whole never-ran wave from the start."""
        W = self.W
        live = min(W, self.n - wave * W)
        lanes = (1 << live) - 1
        self.regs[:] = 0
        self.trips[:] = 0
        self.masks[:] = 0
        self.state[host_loop.S_DIRTY] = 0
        host_loop.start(self.state, 0, wave * W, W, 0, W, _word(lanes),
                        _word((1 << W) - 1))
        self.masks[EXEC] = self.masks[ALIVE] = _word(lanes)
        bufs, params = self.arrays()
        return self._serve(self._run(bufs, params))

    def _run(self, bufs: np.ndarray, params: np.ndarray) -> int:
        return int(host_loop.run(self.decoded.lane, self.regs, self.masks, self.trips,
                                 self.state, self.faults, self.mem, bufs, params,
                                 self.budget, _STEP_LIMIT, ALLOC_MAX, EXEC, ALIVE))

    def _serve(self, status: int) -> LaneFates:
        """Go on with the run host_loop.py returned `status` from: allocate at each
        `alloc()` and run on; then the run's lanes' fates."""
        state = self.state
        base = int(state[host_loop.S_BASE])
        while status == host_loop.AT_ALLOC:
            lane, size = int(state[host_loop.S_LANE]), int(state[host_loop.S_ARG])
            ref = self.allocate(size)
            dest = self.decoded.lane[int(state[host_loop.S_PC]), host_loop.C_D]
            self.regs[lane, dest] = ref
            status = self._run(*self.arrays())
        if status == host_loop.OUT_OF_BUDGET:
            raise HostBudget(base + int(state[host_loop.S_LANE]))
        if status != host_loop.DONE:
            arg = int(state[host_loop.S_ARG])
            raise ResumeError(_ERRORS.get(status, "the host loop stopped with {}").format(
                Op(arg).name if status == host_loop.ERR_CANNOT else arg))
        fates = LaneFates()
        for lane, pc, code in self.faults[:int(state[host_loop.S_FAULTS])].tolist():
            fates.faults[base + lane] = self.fault_of(pc, code)
            fates.order.append(base + lane)
        owned = int(state[host_loop.S_OWNED]) & ((1 << self.W) - 1)
        fates.completed = [base + lane for lane in range(self.W)
                           if owned >> lane & 1 and base + lane not in fates.faults]
        return fates

    def fault_of(self, pc: int, code: int) -> Fault:
        """The fault of the instruction before `pc` (a fail()'s `code`)."""
        row = self.decoded.lane[pc - 1]
        op = Op(int(row[host_loop.C_OPCODE]))
        ip = int(row[host_loop.C_IP])
        return Fault(_KIND[op], self.infopoints[ip].stack, code if op == Op.FAIL else None)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The buffers (rows of base, length, bits, sorted by base) and the parameters,
        as the host loop reads them (remade after an allocation)."""
        if self._arrays is None:
            bufs = np.array(sorted(self.buffers.values()), dtype=np.int64).reshape(-1, 3)
            self._arrays = bufs, np.array(self.params, dtype=np.int64).reshape(-1)
        return self._arrays

    def allocate(self, size: int) -> int:
        """A fresh buffer from the pool; relocates every reference the host holds when
        the pool moved: the parameters, the reference registers of the lanes the run
        writes, and the saved frames waiting (not under `stale-frame-reference`)."""
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
            # the running lanes' references: the rows of the lanes the run writes (a
            # resume's lane alone; other rows may hold zeros that are no reference, though
            # a moved item's old base may be 0)
            every = int(self.state[host_loop.S_EVERY]) & ((1 << self.W) - 1)
            rows = np.array([lane for lane in range(self.W) if every >> lane & 1])
            if len(self.ref_vregs) and len(rows):
                at = np.ix_(rows, self.ref_vregs)
                held = np.ascontiguousarray(self.regs[at]).reshape(-1)
                host_loop.relocate(held, *_moves(moves))
                self.regs[at] = held.reshape(len(rows), -1)
            relocate_waiting(self.waiting, moves, self.nmasks, self.union, self.mutants)
        self.buffers[ref] = (ref, size, 32)
        return ref


def _word(lanes: int) -> int:
    """A lane mask as an int64 word (lane 63 is the sign bit)."""
    return lanes - (1 << 64) if lanes >> 63 else lanes


# What an instruction does, decoded from its opcode (host_loop.py numbers the kinds)
_KINDS = {
    Op.MOVI: K_MOVI, Op.M_SETEXEC: K_SETEXEC, Op.M_OR: K_M_OR, Op.M_GETEXEC: K_GETEXEC,
    Op.JZ_EXEC: K_JZ_EXEC, Op.MOV: K_MOV, Op.M_CLEAR: K_CLEAR, Op.M_FROMCOND: K_FROMCOND,
    Op.M_ANDN: K_M_ANDN, Op.LOAD: K_LOAD, Op.JMP: K_JMP, Op.TRIP: K_TRIP, Op.LEN: K_LEN,
    Op.LANEID: K_LANEID, Op.GID: K_GID, Op.STORE: K_STORE, Op.ATOMIC_ADD: K_STORE,
    Op.ATOMIC: host_loop.K_RMW,
    Op.DIV: K_DIVREM, Op.REM: K_DIVREM, Op.HALT: K_HALT, Op.M_AND: K_M_AND,
    Op.WAVEID: K_WAVEID, Op.KILL: K_KILL, Op.PARAM: K_PARAM, Op.JZ_MASK: K_JZ_MASK,
    Op.ALLOC: K_ALLOC, Op.FAIL: K_FAIL, Op.LOCALID: K_LOCALID, Op.GROUPID: K_GROUPID,
    Op.GROUPSIZE: K_GROUPSIZE, Op.BARRIER: K_BARRIER, Op.FFMA: K_FMA, Op.CVT_FI: K_CVT,
    Op.CVT_DI: host_loop.K_CVT64, Op.BALLOT_FN: host_loop.K_BALLOT,
    Op.SELECT: K_SELECT, Op.CHECK_INDEX: K_CHECK_INDEX,
    **{op: K_BINARY for op in (Op.ADD, Op.SUB, Op.MUL, Op.AND, Op.OR, Op.XOR, Op.SHL,
                               Op.SHR, Op.CMP_EQ, Op.CMP_NE, Op.CMP_LT, Op.CMP_LE,
                               Op.CMP_GT, Op.CMP_GE, Op.FADD, Op.FSUB, Op.FMUL, Op.FMIN,
                               Op.FMAX, Op.FCMP_EQ, Op.FCMP_NE, Op.FCMP_LT, Op.FCMP_LE,
                               Op.FCMP_GT, Op.FCMP_GE)},
    **{op: K_UNARY for op in (Op.NEG, Op.NOT, Op.LNOT, Op.WRAP, Op.CVT_IF, Op.CVT_ID,
                              Op.CVT_FD, Op.CVT_DF, *INT_FUNCTIONS_A)},
    **{op: K_BINARY for op in INT_FUNCTIONS_AB},
    **{op: K_WAVE_OP for op in (Op.SET_INACTIVE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX,
                                Op.WWM_OR, Op.WWM_AND, Op.WWM_BALLOT, Op.WWM_SCAN_EXCL,
                                Op.WWM_SCAN_INCL, Op.READFIRST, Op.SHUFFLE, Op.WWM_FMIN,
                                Op.WWM_FMAX)},
}  # any other opcode is K_CANNOT: DEOPT, SPILL, RELOAD (device code only) and LOCALBASE (the
# prologue's: a resume starts past it); a BARRIER is one only where a lane the host runs
# meets it (whole-wave code passes one its lanes left)
_JUMPS = frozenset({Op.JMP, Op.JZ_EXEC, Op.JZ_MASK})

# the operands (d, a, b, c) each kind reads or writes: v a vreg, m a mask register
_ROLES = {K_BINARY: "vvv", K_MOVI: "v", K_SETEXEC: "-m", K_M_OR: "mmm", K_GETEXEC: "m",
          K_MOV: "vv", K_CLEAR: "m", K_FROMCOND: "mv", K_M_ANDN: "mmm", K_LOAD: "vvv",
          K_LEN: "vv", K_UNARY: "vv", K_LANEID: "v", K_GID: "v", K_STORE: "-vvv",
          K_DIVREM: "vvv", K_M_AND: "mmm", K_WAVEID: "v", K_PARAM: "v", K_JZ_MASK: "-m",
          K_ALLOC: "vv", K_FAIL: "-v", K_WAVE_OP: "vvv", K_LOCALID: "v", K_GROUPID: "v",
          K_GROUPSIZE: "v", K_FMA: "vvvv", K_CVT: "vv", K_SELECT: "vvvv",
          host_loop.K_FMA64: "vvvv", host_loop.K_CVT64: "vv", host_loop.K_BALLOT: "vv",
          K_CHECK_INDEX: "-v", host_loop.K_RMW: "vvvv"}  # the others name no register
# the op column: what an arithmetic or wave instruction computes
_OPS = {Op.ADD: host_loop.A_ADD, Op.SUB: host_loop.A_SUB, Op.MUL: host_loop.A_MUL,
        Op.AND: host_loop.A_AND, Op.OR: host_loop.A_OR, Op.XOR: host_loop.A_XOR,
        Op.SHL: host_loop.A_SHL, Op.SHR: host_loop.A_SHR, Op.CMP_EQ: host_loop.A_EQ,
        Op.CMP_NE: host_loop.A_NE, Op.CMP_LT: host_loop.A_LT, Op.CMP_LE: host_loop.A_LE,
        Op.CMP_GT: host_loop.A_GT, Op.CMP_GE: host_loop.A_GE, Op.NEG: host_loop.A_NEG,
        Op.NOT: host_loop.A_NOT, Op.LNOT: host_loop.A_LNOT, Op.WRAP: host_loop.A_WRAP,
        Op.DIV: host_loop.A_DIV, Op.REM: host_loop.A_REM,
        Op.ATOMIC_ADD: host_loop.A_ATOMIC_ADD, Op.SET_INACTIVE: host_loop.V_SET_INACTIVE,
        Op.WWM_SUM: host_loop.V_SUM, Op.WWM_MIN: host_loop.V_MIN,
        Op.WWM_MAX: host_loop.V_MAX, Op.WWM_OR: host_loop.V_OR,
        Op.WWM_AND: host_loop.V_AND, Op.WWM_BALLOT: host_loop.V_BALLOT,
        Op.WWM_SCAN_EXCL: host_loop.V_SCAN_EXCL, Op.WWM_SCAN_INCL: host_loop.V_SCAN_INCL,
        Op.READFIRST: host_loop.V_READFIRST, Op.SHUFFLE: host_loop.V_SHUFFLE,
        Op.FADD: host_loop.A_FADD, Op.FSUB: host_loop.A_FSUB, Op.FMUL: host_loop.A_FMUL,
        Op.FMIN: host_loop.A_FMIN, Op.FMAX: host_loop.A_FMAX, Op.FCMP_EQ: host_loop.A_FEQ,
        Op.FCMP_NE: host_loop.A_FNE, Op.FCMP_LT: host_loop.A_FLT,
        Op.FCMP_LE: host_loop.A_FLE, Op.FCMP_GT: host_loop.A_FGT,
        Op.FCMP_GE: host_loop.A_FGE, Op.CVT_IF: host_loop.A_CVT_IF,
        Op.WWM_FMIN: host_loop.V_FMIN, Op.WWM_FMAX: host_loop.V_FMAX,
        Op.CVT_ID: host_loop.A_CVT_ID, Op.CVT_FD: host_loop.A_CVT_FD,
        Op.CVT_DF: host_loop.A_CVT_DF,
        Op.POPCOUNT: host_loop.A_POPCOUNT, Op.CLZ: host_loop.A_CLZ, Op.CTZ: host_loop.A_CTZ,
        Op.BIT_REVERSE: host_loop.A_BIT_REVERSE, Op.ROTATE_LEFT: host_loop.A_ROTL,
        Op.ROTATE_RIGHT: host_loop.A_ROTR, Op.MUL_HI: host_loop.A_MUL_HI,
        Op.MIN: host_loop.A_MIN, Op.MAX: host_loop.A_MAX, Op.ABS: host_loop.A_ABS}


def _by_opcode(table: dict[Op, int], default: int) -> np.ndarray:
    out = np.full(max(Op) + 1, default, dtype=np.int64)
    for op, x in table.items():
        out[op] = x
    return out


_KNOWN = np.zeros(max(Op) + 1, dtype=bool)
_KNOWN[list(Op)] = True
_KIND_OF = _by_opcode(_KINDS, K_CANNOT)
_OP_OF = _by_opcode(_OPS, host_loop.A_OTHER)
_ALL_LANES_OF = _by_opcode({op: 1 for op in ALWAYS_ALL_LANES}, 0)
_JUMP_OF = _by_opcode({op: 1 for op in _JUMPS}, 0).astype(bool)
#: the F operations, which take an f64 where their imm is 64
_F_OF = _by_opcode({op: 1 for op in (Op.FADD, Op.FSUB, Op.FMUL, Op.FFMA, Op.FMIN, Op.FMAX,
                                     Op.FCMP_EQ, Op.FCMP_NE, Op.FCMP_LT, Op.FCMP_LE,
                                     Op.FCMP_GT, Op.FCMP_GE, Op.WWM_FMIN, Op.WWM_FMAX)},
                   0).astype(bool)
_WIDE_KINDS = np.array([K_BINARY, K_UNARY])  # kind: imm, or 64 for 0
_ROLE_OF = np.zeros((max(_ROLES) + 1, 4), dtype=np.int64)  # 0: none, 1: vreg, 2: mask
for _kind, _roles in _ROLES.items():
    _ROLE_OF[_kind, :len(_roles)] = ["-vm".index(r) for r in _roles]


@dataclass(frozen=True)
class _Decoded:
    """A kernel's host code decoded once, with its compilation (`Compiled.decoded`):
    `lane`, int64 rows in host_loop.py's columns; per infopoint the (vreg, saved
    position) pairs a resume loads (`live_table`)."""

    lane: np.ndarray
    live_table: tuple[np.ndarray, np.ndarray]


def _live_table(infopoints: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Every infopoint's (vreg, saved position) pairs, one after another, and where each
    infopoint's start."""
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
    the loop needs no bounds check."""
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
    # the width column holds the kind (isa.kind: a width, plus UNSIGNED)
    width = np.where(np.isin(kind, _WIDE_KINDS), np.where(imm == 0, 64, imm),
                     np.where((kind == K_DIVREM) | (kind == K_CVT)
                              | (kind == host_loop.K_CVT64), imm, 64))
    arithmetic = np.isin(kind, (K_BINARY, K_UNARY, K_DIVREM, K_CVT, host_loop.K_CVT64))
    bits = width & ~UNSIGNED
    bad = np.flatnonzero(arithmetic & ((width < 1) | (bits < 1) | (bits > 64)))
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
    lane = np.empty((count + len(outside), host_loop.CODE_WIDTH), dtype=np.int64)
    # an F operation of an f64 (imm 64): its f64 twin
    op_of = _OP_OF[ops]
    f64 = _F_OF[ops] & (imm == 64)
    op_of = np.where(f64 & (kind != K_FMA), op_of + host_loop.F64_SHIFT, op_of)
    kind = np.where(f64 & (kind == K_FMA), host_loop.K_FMA64, kind)
    lane[:count] = np.column_stack((
        kind, (_ALL_LANES_OF[ops] == 1) | (rows[:, 6] == 1), regs, imm, rows[:, 7],
        op_of, width, ops))
    lane[count:] = [(K_OUTSIDE, 0, 0, 0, 0, 0, pc, -1, host_loop.A_OTHER, 64, Op.HALT)
                    for pc in outside]
    return _Decoded(lane, _live_table(infopoints))
