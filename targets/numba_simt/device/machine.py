"""The numba-compiled SIMT machine: interprets isa.py's code for resident waves.

With host_loop.py (the host's own compiled loop, which shares nothing with this one),
the only module of the project that imports numba. Every jitted function here is compiled
once per process and cached on disk (`cache=True`); a kernel is data (its `code` rows),
so running a new kernel never compiles anything. `compilations()` counts the entry's type
specialisations (it stays 1: the `run_launch` wrapper normalises every argument's type).

What it owns and its invariants:

- `run_launch` issues workgroups (G = `group_waves` x W consecutive workitems; one wave
  when the launch has no workgroups) in `group_order` onto `slots` resident workgroup
  slots, all of a workgroup's waves at once, and runs the resident waves round-robin,
  `quantum` instructions per turn, each until HALT (with one slot of one wave a wave runs
  to its HALT in one turn: there is nothing to interleave); a group slot freed by the
  HALT of its last wave takes the next workgroup at once. `group_order` lists the
  workgroups of this launch (all of them, or a relaunch's never-ran ones).
- Workgroups: a wave at a BARRIER with EXEC lanes waits there (its turn ends) until every
  wave of its workgroup waits there too, has ended (HALT) or has no ALIVE lane (its lanes
  returned, faulted or deopted: they count as arrived); then they all go on. A state where
  every resident wave waits is ERR_DEADLOCK. Each resident group slot has its own
  instance of every workgroup array (`local_bases`, buffers of the buffer table), zeroed
  when a workgroup is issued onto the slot; LOCALBASE reads it, LOCALID / GROUPID /
  GROUPSIZE the workitem's place in its workgroup.
- Deoptimization (seeds 000/001; the host side is deopt.py and trampoline.py): a lane
  that would fault (out of bounds, division by zero, `fail`), one at a DEOPT (a
  speculation guard taken) and one the schedule forces to deopt at an eligible infopoint
  (DeoptimizeALot: a hash of (seed, gid, infopoint) below a percentage, the lowest lanes
  first up to a limit per launch) leaves its wave
  before the instruction takes effect for it: it bumps the save area's slot index (one
  bump per lane: the atomic add), writes its frame there (gid, reason, infopoint, trip
  count, its bit of every mask register, the infopoint's reference bitmap, and the union
  of the registers and spill slots live at any infopoint) and sets the deopt flag. The
  flag is checked whenever a workgroup would be issued: once set, no further workgroup
  starts, each records its waves in the never-ran bitmap (one bit a wave) and exits;
  resident waves run to completion. A slot index past the save area is ERR_SAVE_AREA,
  never a lost frame. The machine writes nothing per workitem: a wave not in the bitmap
  ran, and each of its lanes either completed or left a frame.
- A wave's state at issue: EXEC = ALIVE = the lanes whose gid is below n, every other
  mask register empty, pc 0. Registers and spill slots are *not* cleared: they hold what
  the slot's previous wave left (zero for a slot's first wave), so compiled code that reads
  a lane it never wrote shows a stale value instead of a plausible zero
  (docs/semantics.md).
- Memory safety: numba does not bounds-check, so nothing indexes memory with data
  unchecked. The code is validated once per launch (opcode known, operands within
  nregs/nmasks/nslots by their role, widths 32/64, jump targets, parameter and spill
  slot indices, the last instruction a HALT or JMP so pc never leaves the code); buffer
  ids and element indices are checked per access. An inconsistency returns an `ERR_*`
  code and never writes out of bounds.

Semantics beyond isa.py's text (choices made here, pinned by tests/numba_simt/test_machine.py):

- Masks are held as 64-bit lane sets (W <= 64), one int64 per mask register.
- EXEC never regains a lane that left ALIVE: every mask op writing EXEC ANDs with ALIVE,
  as M_SETEXEC does (isa.py: a faulted lane leaves EXEC and ALIVE "for good"). ALIVE is
  changed only by faults and KILL; a mask op naming ALIVE as destination is invalid code.
- A faulting instruction leaves the deopting lane's destination unchanged.
- Only EXEC lanes touch memory or deopt. An all-lane (wm=1) LOAD/LEN writes inactive lanes
  with the value when the buffer id and index are valid, else 0; an all-lane DIV/REM
  writes inactive lanes whose divisor is 0 with 0.

Results: the save area (frames, and its header: flag, next slot index, overflow), the
never-ran bitmap, the dispatch trace (T_ISSUE and T_FLAG events with the wave and the
wave-instructions executed so far), and counters (overwritten):
[0] wave-instructions executed, [1] active lane-instructions (sum of popcount(EXEC) before
each executed instruction, exact), [2] waves issued, [3] 0, or after ERR_BUDGET the gid
of the lane that ran out of its loop-trip budget (a TRIP counts the EXEC lanes' trips;
counts start at 0 when a wave is issued).

Compile time: a cold compile is a fresh process with NUMBA_CACHE_DIR pointing at an empty
directory, timed around `warm_up()`; a second fresh process with the same directory
measures the cached load (`difftest bench` does both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from collections import namedtuple

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .fma64 import fma64
from ..isa import ALIVE, EXEC, UNSIGNED, WIDTH, Op

# Error codes returned by run_launch.
OK, ERR_CODE, ERR_BUFFER, ERR_ARGS, ERR_STEPS, ERR_BUDGET, ERR_SAVE_AREA = 0, 1, 2, 3, 4, 5, 6
ERR_DEADLOCK = 7
ERRORS = {
    ERR_CODE: "invalid code (opcode, operand index, width, jump target, parameter or slot)",
    ERR_BUFFER: "invalid buffer id in an active lane, or a buffer table outside memory",
    ERR_ARGS: "inconsistent launch arguments (sizes, wave order, W, slots, quantum)",
    ERR_STEPS: "a wave exceeded the step limit",
    ERR_BUDGET: "a lane ran out of its loop-trip budget (counters[3] is its gid)",
    ERR_SAVE_AREA: "the deopt save area overflowed (more deopting lanes than slots)",
    ERR_DEADLOCK: "deadlock: every resident wave waits at a barrier its workgroup never "
                  "releases",
}
MAX_WAVE_STEPS = 50_000_000  # a wave running this long is a machine or compiler bug
NO_TRIP_BUDGET = 2**62
# mutants.MACHINE_FLAGS: the machine's own bugs, switched on by bits of `mutant_flags`
FLAG_DIV_FLOOR = 1         # div-floor: // and % floor
FLAG_NEVER_RAN_UNMARKED = 2  # never-ran-unmarked: a skipped wave sets no never-ran bit
FLAG_SLOT_NOT_ATOMIC = 4   # slot-index-not-atomic: one slot bump per wave instruction
FLAG_BARRIER_EARLY = 8     # barrier-releases-early: released when all but one wave waits
FLAG_BARRIER_WAITS_GONE = 16  # barrier-waits-for-ended-wave: a wave that ended or has no
#                               ALIVE lane is not counted as arrived
FLAG_LOCAL_SHARED = 32     # workgroup-memory-one-instance: every slot gets slot 0's arrays
FLAG_LOCAL_ZERO_UNSYNCED = 64  # workgroup-zeroing-unsynchronized: each wave zeroes the
#                                arrays when it starts, not the group before any starts
FLAG_SCRATCH_PER_GROUP = 128  # scratch-per-workgroup: the waves of a workgroup share their
#                               spill slots (the wave's scratch offset is left out)
FLAG_DENORM_FLUSH = 256    # f32-denormals-flushed: F arithmetic reads and writes subnormals
#                            as zero (a flush-to-zero / denormals-are-zero mode)
FLAG_MIN_NAN = 512         # f32-min-propagates-nan: FMIN/FMAX (and the wave's) give NaN
#                            where an operand is NaN
FLAG_CVT_SATURATE = 1024   # f32-to-int-saturates: CVT_FI clamps (NaN to 0) instead of
#                            faulting
FLAG_CLZ_ZERO = 2048       # clz-ctz-zero: CLZ and CTZ of 0 give the width minus one
FLAG_POPC_LOW = 4096       # popcount-low-word: POPCOUNT of 64 bits counts the low 32
FLAG_SHUFFLE_OWN = 32768   # shuffle-relative-keeps-own: a relative shuffle whose source is
#                            outside the wave gives the lane its own value, not 0
FLAG_BALLOT_LOW_WORD = 16384  # ballot-functions-low-word: the ballot functions of a
#                               64-lane ballot read its low 32 bits only
FLAG_F64_NARROW = 8192     # f64-rounded-through-f32: f64 + - * fma round their result to
#                            f32 first (a lowering that keeps doubles in float registers)
FLAG_ATOMIC_WAVE_COUNT = 65536  # atomic-optimizer-counts-wave: the combined add of a
#                                 uniform value counts the wave's lanes, not the active ones
FLAG_ATOMIC_FIRST_OLD = 131072  # atomic-optimizer-first-old: every lane of a combined add
#                                 gets the old value the first lane got
FLAG_ATOMIC_OLD_SEXT = 262144  # atomic-old-sign-extended: an unsigned narrow atomic's old
#                                value comes back sign-extended from its width

# Deopt reasons (frame word 1) and the frame layout (a row of the save area).
REASON_OOB, REASON_DIV0, REASON_FAIL, REASON_SPECULATION, REASON_FORCED = 1, 2, 3, 4, 5
REASON_ALLOC, REASON_CONVERT = 6, 7
REASONS = {REASON_OOB: "out_of_bounds", REASON_DIV0: "division_by_zero",
           REASON_FAIL: "fail", REASON_SPECULATION: "speculation", REASON_FORCED: "forced",
           REASON_ALLOC: "alloc", REASON_CONVERT: "invalid_conversion"}
F_GID, F_REASON, F_IP, F_TRIPS, F_HEAD = 0, 1, 2, 3, 4  # then mask words, refmap words,
# the union registers' values, the union spill slots' values
H_FLAG, H_NEXT, H_OVERFLOW = 0, 1, 2  # the save area's header words
T_ISSUE, T_FLAG = 1, 2  # dispatch trace events: (kind, wave, wave-instructions so far)

# Opcodes as literals: numba freezes globals into the cached machine code and its cache is
# keyed on this file only, so isa.py's numbering is restated here and checked at import
# (an edit to isa.py then fails loudly here instead of running stale cached code).
_ADD, _SUB, _MUL, _DIV, _REM, _AND, _OR, _XOR, _SHL, _SHR = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
_EQ, _NE, _LT, _LE, _GT, _GE = 11, 12, 13, 14, 15, 16
_NEG, _NOT, _LNOT, _WRAP, _MOV, _MOVI, _PARAM, _LANEID, _GID, _WAVEID = range(17, 27)
_LOCALID, _GROUPID, _GROUPSIZE = 27, 28, 29
_LOAD, _STORE, _ATOMIC, _LEN, _FAIL, _ALLOC, _LOCALBASE = 30, 31, 32, 33, 34, 35, 36
_SELECT, _CHECK, _RMW = 37, 38, 39
_MGET, _MSET, _MCOND, _MANDN, _MOR, _MAND, _MCLR, _KILL = range(40, 48)
_JMP, _JZE, _JZM, _HALT, _TRIP, _DEOPT, _BARRIER = 50, 51, 52, 53, 54, 55, 56
_SETI, _WSUM, _WMIN, _WMAX, _WOR, _WAND, _WBAL, _WSCX, _WSCI = range(60, 69)
_RFL, _SHUF, _BALLOT, _SPILL, _RELOAD = 70, 71, 72, 80, 81
_FADD, _FSUB, _FMUL, _FFMA, _FMIN, _FMAX = range(90, 96)
_FEQ, _FNE, _FLT, _FLE, _FGT, _FGE, _CVTIF, _CVTFI, _WFMIN, _WFMAX = range(96, 106)
_CVTID, _CVTFD, _CVTDF, _CVTDI = range(106, 110)
_POPC, _CLZ, _CTZ, _BREV, _ROTL, _ROTR, _MULHI, _IMIN, _IMAX, _IABS = range(110, 120)
_EXEC, _ALIVE = 0, 1
_UNS = 256  # isa.UNSIGNED: a kind's unsigned flag
_MIN64 = -9223372036854775807 - 1

_LITERALS = {
    "ADD": _ADD, "SUB": _SUB, "MUL": _MUL, "DIV": _DIV, "REM": _REM, "AND": _AND, "OR": _OR,
    "XOR": _XOR, "SHL": _SHL, "SHR": _SHR, "CMP_EQ": _EQ, "CMP_NE": _NE, "CMP_LT": _LT,
    "CMP_LE": _LE, "CMP_GT": _GT, "CMP_GE": _GE, "NEG": _NEG, "NOT": _NOT, "LNOT": _LNOT,
    "WRAP": _WRAP, "MOV": _MOV, "MOVI": _MOVI, "PARAM": _PARAM, "LANEID": _LANEID,
    "GID": _GID, "WAVEID": _WAVEID, "LOCALID": _LOCALID, "GROUPID": _GROUPID,
    "GROUPSIZE": _GROUPSIZE, "LOAD": _LOAD, "STORE": _STORE, "ATOMIC_ADD": _ATOMIC,
    "LEN": _LEN, "FAIL": _FAIL, "ALLOC": _ALLOC, "LOCALBASE": _LOCALBASE,
    "SELECT": _SELECT, "CHECK_INDEX": _CHECK, "ATOMIC": _RMW,
    "M_GETEXEC": _MGET, "M_SETEXEC": _MSET,
    "M_FROMCOND": _MCOND, "M_ANDN": _MANDN, "M_OR": _MOR, "M_AND": _MAND, "M_CLEAR": _MCLR,
    "KILL": _KILL, "JMP": _JMP, "JZ_EXEC": _JZE, "JZ_MASK": _JZM, "HALT": _HALT,
    "TRIP": _TRIP, "DEOPT": _DEOPT, "BARRIER": _BARRIER,
    "SET_INACTIVE": _SETI, "WWM_SUM": _WSUM, "WWM_MIN": _WMIN, "WWM_MAX": _WMAX,
    "WWM_OR": _WOR, "WWM_AND": _WAND, "WWM_BALLOT": _WBAL, "WWM_SCAN_EXCL": _WSCX,
    "WWM_SCAN_INCL": _WSCI, "READFIRST": _RFL, "SHUFFLE": _SHUF, "BALLOT_FN": _BALLOT,
    "SPILL": _SPILL,
    "RELOAD": _RELOAD, "FADD": _FADD, "FSUB": _FSUB, "FMUL": _FMUL, "FFMA": _FFMA,
    "FMIN": _FMIN, "FMAX": _FMAX, "FCMP_EQ": _FEQ, "FCMP_NE": _FNE, "FCMP_LT": _FLT,
    "FCMP_LE": _FLE, "FCMP_GT": _FGT, "FCMP_GE": _FGE, "CVT_IF": _CVTIF, "CVT_FI": _CVTFI,
    "WWM_FMIN": _WFMIN, "WWM_FMAX": _WFMAX, "CVT_ID": _CVTID, "CVT_FD": _CVTFD,
    "CVT_DF": _CVTDF, "CVT_DI": _CVTDI, "POPCOUNT": _POPC, "CLZ": _CLZ, "CTZ": _CTZ,
    "BIT_REVERSE": _BREV, "ROTATE_LEFT": _ROTL, "ROTATE_RIGHT": _ROTR, "MUL_HI": _MULHI,
    "MIN": _IMIN, "MAX": _IMAX, "ABS": _IABS,
}
assert _LITERALS == {op.name: int(op) for op in Op}, "isa.Op changed: update machine.py"
assert (_EXEC, _ALIVE, WIDTH, _UNS) == (EXEC, ALIVE, 8, UNSIGNED), \
    "isa.py layout changed: update machine.py"

# Operand forms, for validation: one character each for d, a, b, c and imm.
# d/a/b/c: 'v' vector register, 'm' mask read, 'w' mask written (never ALIVE), '-' unused;
# imm: 'b' a kind (width 8|16|32|64, plus UNSIGNED), 'j' jump target, 'p' parameter
# index, 's' spill slot, 'l' workgroup array index, '-' any.
_FORMS = {
    Op.ADD: "vvv-b", Op.SUB: "vvv-b", Op.MUL: "vvv-b", Op.DIV: "vvv-b", Op.REM: "vvv-b",
    Op.AND: "vvv--", Op.OR: "vvv--", Op.XOR: "vvv--", Op.SHL: "vvv-b", Op.SHR: "vvv-b",
    Op.CMP_EQ: "vvv-b", Op.CMP_NE: "vvv-b", Op.CMP_LT: "vvv-b", Op.CMP_LE: "vvv-b",
    Op.CMP_GT: "vvv-b", Op.CMP_GE: "vvv-b", Op.NEG: "vv--b", Op.NOT: "vv--b",
    Op.LNOT: "vv---", Op.WRAP: "vv--b", Op.MOV: "vv---", Op.MOVI: "v----",
    Op.PARAM: "v---p", Op.LANEID: "v----", Op.GID: "v----", Op.WAVEID: "v----",
    Op.LOCALID: "v----", Op.GROUPID: "v----", Op.GROUPSIZE: "v----", Op.LOCALBASE: "v---l",
    Op.LOAD: "vvv--", Op.STORE: "-vvv-", Op.ATOMIC_ADD: "-vvv-", Op.LEN: "vv---",
    Op.FAIL: "-v---", Op.ALLOC: "vv---", Op.SELECT: "vvvv-", Op.CHECK_INDEX: "-v---",
    Op.ATOMIC: "vvvv-",
    Op.M_GETEXEC: "w----", Op.M_SETEXEC: "-m---", Op.M_FROMCOND: "wv---",
    Op.M_ANDN: "wmm--", Op.M_OR: "wmm--", Op.M_AND: "wmm--", Op.M_CLEAR: "w----",
    Op.KILL: "-----", Op.JMP: "----j", Op.JZ_EXEC: "----j", Op.JZ_MASK: "-m--j",
    Op.HALT: "-----", Op.TRIP: "-----", Op.DEOPT: "-----", Op.BARRIER: "-----",
    Op.SET_INACTIVE: "vv---",
    Op.WWM_SUM: "vv--b", Op.WWM_MIN: "vv--b",
    Op.WWM_MAX: "vv--b", Op.WWM_OR: "vv---", Op.WWM_AND: "vv---", Op.WWM_BALLOT: "vv---",
    Op.WWM_SCAN_EXCL: "vv--b", Op.WWM_SCAN_INCL: "vv--b", Op.READFIRST: "vv---",
    Op.SHUFFLE: "vvv--", Op.BALLOT_FN: "vv---", Op.SPILL: "-v--s", Op.RELOAD: "v---s",
    Op.FADD: "vvv--", Op.FSUB: "vvv--", Op.FMUL: "vvv--", Op.FFMA: "vvvv-", Op.FMIN: "vvv--",
    Op.FMAX: "vvv--", Op.FCMP_EQ: "vvv--", Op.FCMP_NE: "vvv--", Op.FCMP_LT: "vvv--",
    Op.FCMP_LE: "vvv--", Op.FCMP_GT: "vvv--", Op.FCMP_GE: "vvv--", Op.CVT_IF: "vv--b",
    Op.CVT_FI: "vv--b", Op.WWM_FMIN: "vv---", Op.WWM_FMAX: "vv---",
    Op.CVT_ID: "vv--b", Op.CVT_FD: "vv---", Op.CVT_DF: "vv---", Op.CVT_DI: "vv--b",
    Op.POPCOUNT: "vv--b", Op.CLZ: "vv--b", Op.CTZ: "vv--b", Op.BIT_REVERSE: "vv--b",
    Op.ROTATE_LEFT: "vvv-b", Op.ROTATE_RIGHT: "vvv-b", Op.MUL_HI: "vvv-b", Op.MIN: "vvv-b",
    Op.MAX: "vvv-b", Op.ABS: "vv--b",
}
assert set(_FORMS) == set(Op), "every opcode needs an operand form"
_NOP = 128  # opcodes are below this
_CODES = {"-": 0, "v": 1, "m": 2, "w": 3, "b": 1, "j": 2, "p": 3, "s": 4, "l": 5}
# How the dispatch loop treats an opcode's vector destination (column _FLAGS):
# _MASKED: written element-wise into V[d] in every lane, the lanes outside the write set
#   restored afterwards (so the common all-lanes case pays nothing); _WRAPS: the result is
#   wrapped to the kind in imm afterwards (64-bit arithmetic's low bits are the narrower
#   result's).
_MASKED, _WRAPS = 1, 2
_FLAG_OPS = {
    _MASKED: (Op.ADD, Op.SUB, Op.MUL, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR, Op.CMP_EQ,
              Op.CMP_NE, Op.CMP_LT, Op.CMP_LE, Op.CMP_GT, Op.CMP_GE, Op.NEG, Op.NOT,
              Op.LNOT, Op.WRAP, Op.MOV, Op.MOVI, Op.PARAM, Op.LANEID, Op.GID, Op.WAVEID,
              Op.LOCALID, Op.GROUPID, Op.GROUPSIZE, Op.LOCALBASE, Op.READFIRST,
              Op.SHUFFLE, Op.RELOAD, Op.FADD, Op.FSUB, Op.FMUL, Op.FFMA, Op.FMIN, Op.FMAX,
              Op.FCMP_EQ, Op.FCMP_NE, Op.FCMP_LT, Op.FCMP_LE, Op.FCMP_GT, Op.FCMP_GE,
              Op.CVT_IF, Op.CVT_ID, Op.CVT_FD, Op.CVT_DF, Op.POPCOUNT, Op.CLZ, Op.CTZ,
              Op.BIT_REVERSE, Op.ROTATE_LEFT, Op.ROTATE_RIGHT, Op.MUL_HI, Op.MIN, Op.MAX,
              Op.ABS, Op.SELECT, Op.BALLOT_FN),
    _WRAPS: (Op.ADD, Op.SUB, Op.MUL, Op.SHL, Op.SHR, Op.NEG, Op.NOT, Op.WRAP, Op.POPCOUNT,
             Op.CLZ, Op.CTZ, Op.BIT_REVERSE, Op.ROTATE_LEFT, Op.ROTATE_RIGHT, Op.MUL_HI,
             Op.ABS),
}
_KNOWN, _FLAGS = 5, 6
# the mode word replacing wm in the code as run: all lanes (wm=1); a masked write (wm=0)
# of an element-wise op; wrap the result to its kind (narrower than 64 bits); an
# element-wise op (_MASKED)
_M_ALL, _M_KEEP, _M_WRAP, _M_VEC = 1, 2, 4, 8
#: [opcode, column]: operand roles (d, a, b, c, imm), known opcode, flags
_ROLES = np.zeros((_NOP, 7), dtype=np.int64)
for _op, _form in _FORMS.items():
    _ROLES[int(_op), :5] = [_CODES[ch] for ch in _form]
    _ROLES[int(_op), _KNOWN] = 1
for _flag, _ops in _FLAG_OPS.items():
    for _op in _ops:
        _ROLES[int(_op), _FLAGS] |= _flag


# --- tiny LLVM intrinsics (numba has no public popcount / count-trailing-zeros) ----------

@intrinsic
def _popc(typingctx, x):  # type: ignore[no-untyped-def]
    """Number of set bits of an int64."""
    if x != types.int64:
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def _ctz(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit of an int64 (64 for zero; callers pass nonzero)."""
    if x != types.int64:
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@intrinsic
def _clz(typingctx, x):  # type: ignore[no-untyped-def]
    """Leading zero bits of an int64 (64 for zero)."""
    if x != types.int64:
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@intrinsic
def _brev(typingctx, x):  # type: ignore[no-untyped-def]
    """An int64's 64 bits in reverse order."""
    if x != types.int64:
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.bitreverse(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def _sdiv(typingctx, x, y):  # type: ignore[no-untyped-def]
    """Truncating int64 division; y is neither 0 nor -1 (the hardware divide traps)."""
    if x != types.int64 or y != types.int64:
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.sdiv(args[0], args[1])

    return types.int64(types.int64, types.int64), codegen


@intrinsic
def _unowned(typingctx, x):  # type: ignore[no-untyped-def]
    """`x`, an array or a tuple holding arrays (tuples in it too), without a reference to
    any array's memory (a null meminfo): numba counts no references on it. A function
    inlined into the dispatch loop takes its array arguments as new references, an incref
    and a decref per call, which LLVM's pruning mostly leaves in a function this size (the
    machine ran four times slower on generated kernels so); unowned, they cost nothing.
    Whoever passes `x` must keep its arrays alive while it is used."""
    if not isinstance(x, (types.Array, types.BaseTuple)):
        return None

    def unowned(context, builder, ty, value):  # type: ignore[no-untyped-def]
        if isinstance(ty, types.Array):
            view = context.make_array(ty)(context, builder, value=value)
            view.meminfo = ir.Constant(view.meminfo.type, None)
            return view._getvalue()
        if isinstance(ty, types.BaseTuple):
            for i, item in enumerate(ty.types):
                value = builder.insert_value(
                    value, unowned(context, builder, item, builder.extract_value(value, i)),
                    i)
        return value

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return unowned(context, builder, sig.args[0], args[0])

    return x(x), codegen


# --- validation ---------------------------------------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _valid_kind(kind):  # type: ignore[no-untyped-def]
    """Whether `kind` is an integer type's kind: 8, 16, 32 or 64, plus _UNS or not."""
    w = kind - (kind & _UNS)
    return kind >= 0 and (w == 8 or w == 16 or w == 32 or w == 64)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _wk(x, sh, uns):  # type: ignore[no-untyped-def]
    """`x` wrapped to a kind of width 64 - sh: its low bits, sign- or zero-extended."""
    if uns:
        return np.int64(np.uint64(x << sh) >> np.uint64(sh))
    return (x << sh) >> sh


@njit(cache=True, nogil=True, error_model="numpy")
def _validate(code, nregs, nmasks, nslots, nparams, nlocal, roles):  # type: ignore[no-untyped-def]
    """(OK, registers used, slots used) or (ERR_CODE, 0, 0)."""
    ninstr = code.shape[0]
    if ninstr == 0 or code.shape[1] != 8:
        return ERR_CODE, 0, 0
    last = code[ninstr - 1, 0]
    if last != _HALT and last != _JMP:  # pc can never run off the end
        return ERR_CODE, 0, 0
    used_regs = 0
    used_slots = 0
    for i in range(ninstr):
        op = code[i, 0]
        if op < 0 or op >= _NOP or roles[op, _KNOWN] == 0:
            return ERR_CODE, 0, 0
        if code[i, 6] != 0 and code[i, 6] != 1:
            return ERR_CODE, 0, 0
        for j in range(4):
            role = roles[op, j]
            x = code[i, 1 + j]
            if role == 1:
                if x < 0 or x >= nregs:
                    return ERR_CODE, 0, 0
                used_regs = max(used_regs, x + 1)
            elif role == 2 or role == 3:
                if x < 0 or x >= nmasks or (role == 3 and x == _ALIVE):
                    return ERR_CODE, 0, 0
        imm = code[i, 5]
        kind = roles[op, 4]
        if kind == 1:
            if not _valid_kind(imm):
                return ERR_CODE, 0, 0
        elif kind == 2:
            if imm < 0 or imm >= ninstr:
                return ERR_CODE, 0, 0
        elif kind == 3:
            if imm < 0 or imm >= nparams:
                return ERR_CODE, 0, 0
        elif kind == 4:
            if imm < 0 or imm >= nslots:
                return ERR_CODE, 0, 0
            used_slots = max(used_slots, imm + 1)
        elif kind == 5:
            if imm < 0 or imm >= nlocal:
                return ERR_CODE, 0, 0
    return OK, used_regs, used_slots


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _row(buftab, nbufs, ref):  # type: ignore[no-untyped-def]
    """The buffer table row whose base is `ref` (a buffer reference), or -1."""
    for i in range(nbufs):
        if buftab[i, 0] == ref:
            return i
    return -1


@njit(cache=True, nogil=True, error_model="numpy")
def _deopt(f, reason, ip, base, k, vo, so, V, S, M, nmasks, TR, union_regs, union_slots,
           ip_info, save, header, not_atomic):  # type: ignore[no-untyped-def]
    """Save the frames of the lanes in lane set f (lane order) to the save area: bump the
    slot index (per lane: an atomic add), write gid, reason, infopoint, trip count, the
    lane's bit of every mask register, the infopoint's reference bitmap, and the union of
    the registers and spill slots live at any infopoint. Returns 1 if the save area
    overflowed (nothing written past its end), else 0. The caller takes the lanes out of
    EXEC and ALIVE and sets the deopt flag."""
    cap = save.shape[0]
    mw = (nmasks + 63) // 64
    rw = ip_info.shape[1] - 1
    nr = union_regs.shape[0]
    shared = header[H_NEXT]
    if not_atomic:  # the slot-index-not-atomic mutant: one read-and-bump for the wave
        header[H_NEXT] += 1
    while f != 0:
        lane = _ctz(f)
        f &= f - 1
        if not_atomic:
            idx = shared
        else:
            idx = header[H_NEXT]
            header[H_NEXT] += 1
        if idx < 0 or idx >= cap:
            header[H_OVERFLOW] = 1
            return 1
        save[idx, F_GID] = base + lane
        save[idx, F_REASON] = reason
        save[idx, F_IP] = ip
        save[idx, F_TRIPS] = TR[k, lane]
        at = F_HEAD
        for w in range(mw):
            bits = np.int64(0)
            for j in range(w * 64, min(nmasks, w * 64 + 64)):
                b = np.int64(1) if j < 2 else (M[k, j] >> lane) & 1  # EXEC, ALIVE: active
                bits |= b << (j - w * 64)
            save[idx, at] = bits
            at += 1
        for w in range(rw):
            save[idx, at] = ip_info[ip, 1 + w]
            at += 1
        for i in range(nr):
            save[idx, at + i] = V[vo + union_regs[i], lane]
        at += nr
        for i in range(union_slots.shape[0]):
            save[idx, at + i] = S[so + union_slots[i], lane]
    return 0


@njit(cache=True, nogil=True, error_model="numpy")
def _forced(ex, base, ip, seed, percent):  # type: ignore[no-untyped-def]
    """DeoptimizeALot: the lanes of ex whose (seed, gid, infopoint) hash falls below
    `percent` of 100."""
    f = np.int64(0)
    x = ex
    while x != 0:
        lane = _ctz(x)
        x &= x - 1
        h = (seed * 1000003 + (base + lane) * 7919 + ip * 104729) & 0x7FFFFFFF
        h = ((h ^ (h >> 13)) * 0x5BD1E995) & 0x7FFFFFFF
        h ^= h >> 15
        if h % 100 < percent:
            f |= np.int64(1) << lane
    return f


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _lane_words(EM, em_key, lanes, W):  # type: ignore[no-untyped-def]
    """EM[l] = -(bit l of `lanes`): all ones where a lane is in the set, else 0; remade
    only when the set differs from the one EM holds (`em_key`). Returns the new key."""
    if em_key != lanes:
        for l in range(W):
            EM[l] = -((lanes >> l) & 1)
    return lanes


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _pick(m, new, old):  # type: ignore[no-untyped-def]
    """A partial write's blend: `new` where the lane word m is all ones, `old` where 0."""
    return (new & m) | (old & ~m)


@njit(cache=True, nogil=True, error_model="numpy")
def _lowest(x, k):  # type: ignore[no-untyped-def]
    """The lowest `k` lanes of the set x."""
    out = np.int64(0)
    while x != 0 and k > 0:
        low = x & -x
        out |= low
        x ^= low
        k -= 1
    return out


# --- f32: a value's bits (sign-extended in an int64) and its value (a float64) ---------
# Decoded and encoded by arithmetic on the fields (exact both ways); an operation computes
# in float64, which holds every f32 and every product of two exactly, and rounds once to
# float32 (LLVM's fptrunc: nearest even, subnormals kept, overflow to infinity).

_F32_NAN = 0x7FC00000
_TWO_M149 = 2.0 ** -149


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _fv(v, daz):  # type: ignore[no-untyped-def]
    """The value of the f32 bits v (daz: a subnormal reads as a zero of its sign)."""
    b = v & 0xFFFFFFFF
    e = (b >> 23) & 0xFF
    m = b & 0x7FFFFF
    if e == 255:
        x = np.inf if m == 0 else np.nan
    elif e == 0:
        x = 0.0 if daz else np.float64(m) * _TWO_M149
    else:
        x = math.ldexp(np.float64(m | 0x800000), e - 150)
    return -x if b >> 31 else x


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _fb(x, ftz):  # type: ignore[no-untyped-def]
    """The bits of x, a float64 rounded to f32 here (ftz: a subnormal result is written
    as a zero of its sign)."""
    y = np.float64(np.float32(x))
    if y != y:
        return np.int64(_F32_NAN)
    neg = y < 0.0 or (y == 0.0 and math.copysign(1.0, y) < 0.0)
    a = abs(y)
    if a == np.inf:
        b = np.int64(0x7F800000)
    elif a == 0.0:
        b = np.int64(0)
    else:
        m, e = math.frexp(a)  # a = m * 2^e, 1/2 <= m < 1
        if e >= -125:
            b = (np.int64(e + 126) << 23) | (np.int64(m * 16777216.0) - 0x800000)
        else:
            b = np.int64(0) if ftz else np.int64(a / _TWO_M149)
    if neg:
        b |= np.int64(0x80000000)
    return np.int64(np.int32(b))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _ffma(x, y, z):  # type: ignore[no-untyped-def]
    """x * y + z with one rounding to f32: the product is exact in float64, the sum is
    rounded to odd (its error, by TwoSum, sets the last bit), and float64 -> float32 is
    then the correct rounding of the exact value (53 >= 24 + 2)."""
    p = x * y
    s = p + z
    if not (math.isfinite(s) and math.isfinite(p) and math.isfinite(z)):
        return s
    bp = s - p
    err = (p - (s - bp)) + (z - bp)
    if err != 0.0 and s != 0.0:
        m, e = math.frexp(s)
        if np.int64(abs(m) * 9007199254740992.0) % 2 == 0:  # even: step toward err
            up = (err > 0.0) == (s > 0.0)  # away from zero
            step = math.ldexp(1.0, e - 53)
            if not up and abs(m) == 0.5:
                step *= 0.5  # below a power of two the spacing halves
            s += math.copysign(step, s) if up else -math.copysign(step, s)
    return s


# f64: the value of 64 bits and back, exactly (frexp/ldexp: no bit casts in a lane
# loop), and fma rounded once by LLVM's own (a fused instruction, or libm's fma)

_F64_NAN = 0x7FF8000000000000
_TWO_M1074 = 2.0 ** -1074
_F64_FRACTION = (np.int64(1) << 52) - 1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _dv(v):  # type: ignore[no-untyped-def]
    """The value of the f64 bits v."""
    e = (v >> 52) & 0x7FF
    m = v & _F64_FRACTION
    if e == 2047:
        x = np.inf if m == 0 else np.nan
    elif e == 0:
        x = np.float64(m) * _TWO_M1074
    else:
        x = math.ldexp(np.float64(m | (np.int64(1) << 52)), e - 1075)
    return -x if v < 0 else x


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _db(x):  # type: ignore[no-untyped-def]
    """The bits of the f64 x (every NaN the one quiet NaN)."""
    if x != x:
        return np.int64(_F64_NAN)
    neg = x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0)
    a = abs(x)
    if a == np.inf:
        b = np.int64(2047) << 52
    elif a == 0.0:
        b = np.int64(0)
    else:
        m, e = math.frexp(a)  # a = m * 2^e, 1/2 <= m < 1
        if e >= -1021:
            b = (np.int64(e + 1022) << 52) | (np.int64(m * 9007199254740992.0)
                                               - (np.int64(1) << 52))
        else:
            b = np.int64(a / _TWO_M1074)
    if neg:
        b |= _MIN64
    return b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _dnarrow(x, narrow):  # type: ignore[no-untyped-def]
    """x, or (the f64-rounded-through-f32 mutant) x rounded to f32 and back."""
    return np.float64(np.float32(x)) if narrow else x


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _fpick(x, y, smaller, nan_wins):  # type: ignore[no-untyped-def]
    """min (smaller) or max of two values: a NaN loses to a number (nan_wins: the mutant
    where it wins), -0.0 is below +0.0."""
    if x != x or y != y:
        if nan_wins:
            return np.nan
        return y if x != x else x
    if x == y:
        xneg = math.copysign(1.0, x) < 0.0
        return x if xneg == smaller else y
    return x if (x < y) == smaller else y


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _ffrom_int(v):  # type: ignore[no-untyped-def]
    """f32(v) of an int64, rounded once: past 2^53 the bits below float64's 53 are folded
    into its last one (rounding to odd), so float64 -> float32 rounds correctly."""
    if v > -9007199254740992 and v < 9007199254740992:
        return np.float64(v)
    if v == -9223372036854775807 - 1:
        return -9223372036854775808.0
    a = -v if v < 0 else v
    k = 0
    while (a >> k) >= 9007199254740992:
        k += 1
    t = a >> k
    if a & ((np.int64(1) << k) - 1) != 0:
        t |= 1
    x = math.ldexp(np.float64(t), k)
    return -x if v < 0 else x


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _ffrom_u64(v):  # type: ignore[no-untyped-def]
    """f32 of the u64 whose bits are `v`, as `_ffrom_int`: from 2^63 up, half of it with
    the dropped bit kept as a sticky one (rounding to odd), doubled exactly."""
    if v >= 0:
        return _ffrom_int(v)
    half = np.int64(np.uint64(v) >> np.uint64(1)) | (v & 1)
    return 2.0 * _ffrom_int(half)


# --- the machine ------------------------------------------------------------------------
#
# Lane loops are written so LLVM vectorizes them: no helper calls with array arguments
# inside them (numba would refcount the arrays per call), no data-dependent branches, and
# partial writes blended from a mask read from memory (EM), never one LLVM can see is 0/-1:
# that becomes a masked store (vpmaskmovq), microcoded and slow on AMD.

#: the machine's entry takes four structures (numba passes a named tuple of scalars and
#: arrays as it would the fields; they are unpacked once, at entry)
MachineCode = namedtuple("MachineCode", "code nregs nmasks nslots roles union_regs "
                                        "union_slots ip_info")
LaunchSettings = namedtuple("LaunchSettings", "n W gw group_order slots quantum max_steps "
                                              "trip_budget mutant_flags force_seed "
                                              "force_percent force_limit")
Memory = namedtuple("Memory", "mem buftab params local_bases local_lens")
Results = namedtuple("Results", "counters save header never_ran trace")
#: a launch's state, which `_launch` allocates and `_run_waves` runs on
State = namedtuple("State", "dc V S M pcs wave_of waiting group_of steps_of TR T EM G "
                            "members")


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _umulhi64(x, y):  # type: ignore[no-untyped-def]
    """The high 64 bits of the 128-bit product of two u64 (their bits as int64), from
    32-bit halves (no partial sum overflows 64 bits)."""
    a = np.uint64(x)
    b = np.uint64(y)
    low = np.uint64(0xFFFFFFFF)
    thirty_two = np.uint64(32)
    alo, ahi, blo, bhi = a & low, a >> thirty_two, b & low, b >> thirty_two
    lolo, hilo, lohi = alo * blo, ahi * blo, alo * bhi
    cross = (lolo >> thirty_two) + (hilo & low) + lohi
    return np.int64(ahi * bhi + (hilo >> thirty_two) + (cross >> thirty_two))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _int_function(op, x, y, w, uns, quirks):  # type: ignore[no-untyped-def]
    """One lane of an integer function (isa.Op.POPCOUNT ... ABS) on values of width w,
    unsigned if `uns`: x, y in storage form; the result before its wrap to the kind.
    `quirks`: the machine's mutant flags."""
    mask = np.int64(-1) if w == 64 else (np.int64(1) << w) - 1
    u = x & mask  # the width's bits
    if op == _POPC:
        if w == 64 and (quirks & FLAG_POPC_LOW) != 0:
            u &= np.int64(0xFFFFFFFF)  # the mutant: the low word only
        return _popc(u)
    if (op == _CLZ or op == _CTZ) and u == 0 and (quirks & FLAG_CLZ_ZERO) != 0:
        return np.int64(w - 1)  # the mutant
    if op == _CLZ:
        return _clz(u) - (64 - w)
    if op == _CTZ:
        return np.int64(w) if u == 0 else _ctz(u)
    if op == _BREV:
        return np.int64(np.uint64(_brev(u)) >> np.uint64(64 - w))
    if op == _ROTL or op == _ROTR:
        s = y & (w - 1)
        if op == _ROTR:
            s = (w - s) & (w - 1)
        if s == 0:
            return u
        return ((u << s) | np.int64(np.uint64(u) >> np.uint64(w - s))) & mask
    if op == _MULHI:
        if w == 64:
            hi = _umulhi64(x, y)
            if not uns:  # the signed product's high half from the unsigned one's
                hi -= (y if x < 0 else np.int64(0)) + (x if y < 0 else np.int64(0))
            return hi
        if uns:  # values below 2^32: the product fits 64 unsigned bits
            return np.int64((np.uint64(x) * np.uint64(y)) >> np.uint64(w))
        return (x * y) >> w  # |x * y| <= 2^62: exact
    if op == _IMIN or op == _IMAX:
        flip = np.int64(_MIN64) if uns and w == 64 else np.int64(0)  # a u64's order
        a = x ^ flip
        b = y ^ flip
        return (min(a, b) if op == _IMIN else max(a, b)) ^ flip
    return x if uns or x >= 0 else -x  # ABS (MIN wraps to itself)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _int_functions(op, V, rd, ra, rb, imm, W, quirks):  # type: ignore[no-untyped-def]
    """The integer functions, every lane (the dispatch loop keeps and wraps)."""
    w = imm & 255
    uns = imm & _UNS
    for l in range(W):
        V[rd, l] = _int_function(op, V[ra, l], V[rb, l], w, uns, quirks)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _select(V, rd, ra, rb, rc, W):  # type: ignore[no-untyped-def]
    """SELECT, every lane (a private array's element read or written in registers)."""
    for l in range(W):
        V[rd, l] = V[rb, l] if V[ra, l] != 0 else V[rc, l]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _outside(V, ra, length, ex, W):  # type: ignore[no-untyped-def]
    """CHECK_INDEX: the EXEC lanes whose index is outside 0..length-1."""
    f = np.int64(0)
    for l in range(W):
        if (ex >> l) & 1 and (V[ra, l] < 0 or V[ra, l] >= length):
            f |= np.int64(1) << l
    return f


# --- the opcode families: a function each, which numba inlines into the dispatch loop of
# `_run_waves` (inline="always": the code as if written there, no call); their array
# arguments are unowned there (`_unowned`), or each call would count references

@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _issue(launch, memory, results, state, nxt, ntrace, total_steps, resident,
           issued):  # type: ignore[no-untyped-def]
    """Issue workgroups onto the free group slots, in `group_order`, all of a workgroup's
    waves at once (in the state the module docstring says), checking the deopt flag first:
    once it is set, every workgroup not yet issued records its waves never-ran instead.
    Returns (nxt, ntrace, resident, issued) updated."""
    n, W, gw, group_order = launch.n, launch.W, launch.gw, launch.group_order
    mem, local_bases, local_lens = memory.mem, memory.local_bases, memory.local_lens
    header, never_ran, trace = results.header, results.never_ran, results.trace
    group_of, members, wave_of, waiting = (state.group_of, state.members, state.wave_of,
                                           state.waiting)
    pcs, steps_of, M, TR = state.pcs, state.steps_of, state.M, state.TR
    unmarked = (launch.mutant_flags & FLAG_NEVER_RAN_UNMARKED) != 0
    one_instance = (launch.mutant_flags & FLAG_LOCAL_SHARED) != 0
    zero_unsynced = (launch.mutant_flags & FLAG_LOCAL_ZERO_UNSYNCED) != 0
    issue_count = group_order.shape[0]
    nlocal = local_lens.shape[0]
    nwaves = (n + W - 1) // W
    full = np.int64(-1) if W == 64 else (np.int64(1) << W) - 1
    for sg in range(group_of.shape[0]):
        if group_of[sg] < 0 and nxt < issue_count:
            if header[H_FLAG] != 0:
                # a group starting after a deopt records its waves never-ran and exits
                # (the flag never clears during a launch: so do all later ones)
                while nxt < issue_count:
                    g = group_order[nxt]
                    nxt += 1
                    if not unmarked:
                        for w in range(g * gw, min(g * gw + gw, nwaves)):
                            never_ran[w >> 6] |= np.int64(1) << (w & 63)
                break
            g = group_order[nxt]
            nxt += 1
            group_of[sg] = g
            if nlocal > 0 and not zero_unsynced:
                src = 0 if one_instance else sg
                for j in range(nlocal):
                    lb = local_bases[src, j]  # the workgroup's arrays start as zeros
                    for i in range(local_lens[j]):
                        mem[lb + i] = 0
            members[sg] = 0
            for i in range(gw):
                kk = sg * gw + i
                w = g * gw + i
                waiting[kk] = 0
                if w >= nwaves:  # the partial last group has no such wave
                    wave_of[kk] = -1
                    continue
                trace[ntrace, 0] = T_ISSUE
                trace[ntrace, 1] = w
                trace[ntrace, 2] = total_steps
                ntrace += 1
                wave_of[kk] = w
                pcs[kk] = 0
                steps_of[kk] = 0
                live = n - w * W
                lanes0 = full if live >= W else (np.int64(1) << live) - 1
                for j in range(M.shape[1]):
                    M[kk, j] = 0
                M[kk, _EXEC] = lanes0
                M[kk, _ALIVE] = lanes0
                for l in range(W):
                    TR[kk, l] = 0
                members[sg] += 1
                resident += 1
                issued += 1
    return nxt, ntrace, resident, issued


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _ballot_fn(fn, b, l, W, quirks):  # type: ignore[no-untyped-def]
    """Ballot function `fn` (isa.BALLOT_FN's imm: bit_count, inclusive and exclusive
    count, find_lsb, find_msb, inverse) of the wave's W bits of b, for lane l; a find of
    no bit is -1."""
    m = b
    if W < 64:
        m &= (np.int64(1) << W) - 1
    elif (quirks & FLAG_BALLOT_LOW_WORD) != 0:
        m &= np.int64(0xFFFFFFFF)  # the mutant: a 64-lane ballot's low word alone
    if fn == 1 or fn == 2:  # the lanes up to l (inclusive) or below it
        top = l + 1 if fn == 1 else l
        if top < 64:
            m &= (np.int64(1) << top) - 1
    if fn <= 2:
        return _popc(m)
    if fn == 5:
        return (m >> l) & 1
    if m == 0:
        return np.int64(-1)
    if fn == 3:
        return _ctz(m)
    return 63 - _clz(m)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _elementwise(op, V, S, G, rd, ra, rb, c, vo, so, imm, ex, W, base, wave, gw, k,
                 params, local_bases, quirks):  # type: ignore[no-untyped-def]
    """The element-wise ops (_MASKED) numbered below the f32 ones, every lane of V[rd] (the
    dispatch loop keeps the lanes outside the write set, and wraps). One chain: the common
    operations first."""
    if op == _MOV:
        for l in range(W):
            V[rd, l] = V[ra, l]
    elif op == _MOVI:
        for l in range(W):
            V[rd, l] = imm
    elif op == _ADD:
        for l in range(W):
            V[rd, l] = V[ra, l] + V[rb, l]
    elif op == _SUB:
        for l in range(W):
            V[rd, l] = V[ra, l] - V[rb, l]
    elif op == _EQ or op == _NE or op == _LT or op == _LE or op == _GT or op == _GE:
        # all six as a < b or a == b, operands swapped and/or the result negated
        rx, ry = (rb, ra) if op == _GT or op == _LE else (ra, rb)
        islt = -np.int64(op != _EQ and op != _NE)
        iseq = ~islt
        neg = np.int64(op == _NE or op == _GE or op == _LE)
        flip = np.int64(_MIN64) if imm == 64 + _UNS else np.int64(0)  # u64 order
        for l in range(W):
            x = V[rx, l] ^ flip
            y = V[ry, l] ^ flip
            V[rd, l] = ((np.int64(x < y) & islt) | (np.int64(x == y) & iseq)) ^ neg
    elif op == _PARAM:
        x = params[imm]
        for l in range(W):
            V[rd, l] = x
    elif op == _GID or op == _LANEID:
        start = base if op == _GID else 0
        for l in range(W):
            V[rd, l] = start + l
    elif op == _WAVEID:
        for l in range(W):
            V[rd, l] = wave
    elif op == _MUL:
        for l in range(W):
            V[rd, l] = V[ra, l] * V[rb, l]
    elif op == _AND:
        for l in range(W):
            V[rd, l] = V[ra, l] & V[rb, l]
    elif op == _OR:
        for l in range(W):
            V[rd, l] = V[ra, l] | V[rb, l]
    elif op == _XOR:
        for l in range(W):
            V[rd, l] = V[ra, l] ^ V[rb, l]
    elif op == _SHL:
        amt = (imm & 255) - 1
        for l in range(W):
            V[rd, l] = V[ra, l] << (V[rb, l] & amt)
    elif op == _SHR:
        amt = (imm & 255) - 1
        if imm == 64 + _UNS:  # logical (narrower unsigned values are >= 0)
            for l in range(W):
                V[rd, l] = np.int64(np.uint64(V[ra, l])
                                    >> np.uint64(V[rb, l] & amt))
        else:
            for l in range(W):
                V[rd, l] = V[ra, l] >> (V[rb, l] & amt)
    elif op == _NEG:
        for l in range(W):
            V[rd, l] = -V[ra, l]
    elif op == _NOT:
        for l in range(W):
            V[rd, l] = ~V[ra, l]
    elif op == _WRAP:
        for l in range(W):
            V[rd, l] = V[ra, l]
    elif op == _LNOT:
        for l in range(W):
            V[rd, l] = 1 - V[ra, l]
    elif op == _RELOAD:
        rs = so + imm
        if c == 0:
            for l in range(W):
                V[rd, l] = S[rs, l]
        else:  # a converting reload: the integer slot back to f32
            for l in range(W):
                V[rd, l] = _fb(_ffrom_int(S[rs, l]), False)
    elif op == _RFL:
        if ex != 0:
            x = V[ra, _ctz(ex)]
            for l in range(W):
                V[rd, l] = x
    elif op == _SHUF:
        # imm 1: a relative shuffle; the shuffle-relative-keeps-own mutant gives a lane
        # whose source is outside the wave its own value (as CUDA's __shfl_down_sync)
        own = imm == 1 and (quirks & FLAG_SHUFFLE_OWN) != 0
        for l in range(W):  # gather every source first: d may be a or b
            src = V[rb, l]
            ok = (src >= 0) & (src < W)
            x = V[ra, src if ok else 0]
            G[l] = x if ok else (V[ra, l] if own else np.int64(0))
        for l in range(W):
            V[rd, l] = G[l]
    # the workgroup ids last: the common operations come first in the chain
    elif op == _LOCALID:
        start = (wave % gw) * W
        for l in range(W):
            V[rd, l] = start + l
    elif op == _GROUPID or op == _GROUPSIZE:
        x = wave // gw if op == _GROUPID else gw * W
        for l in range(W):
            V[rd, l] = x
    elif op == _LOCALBASE:
        x = local_bases[0 if (quirks & FLAG_LOCAL_SHARED) != 0 else k // gw, imm]
        for l in range(W):
            V[rd, l] = x
    elif op == _SELECT:
        _select(V, rd, ra, rb, vo + c, W)
    elif op == _BALLOT:
        for l in range(W):
            V[rd, l] = _ballot_fn(imm, V[ra, l], l, W, quirks)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _f64_elementwise(op, V, rd, ra, rb, rc, imm, W, nan_wins,  # type: ignore[no-untyped-def]
                     narrow):
    """The element-wise f64 ops (F ops with imm 64) and the conversions to and from f64."""
    if op == _FADD or op == _FSUB or op == _FMUL:
        sign = -1.0 if op == _FSUB else 1.0
        for l in range(W):
            x = _dv(V[ra, l])
            y = _dv(V[rb, l])
            V[rd, l] = _db(_dnarrow(x * y if op == _FMUL else x + sign * y, narrow))
    elif op == _FFMA:
        for l in range(W):
            V[rd, l] = _db(_dnarrow(fma64(_dv(V[ra, l]), _dv(V[rb, l]), _dv(V[rc, l])),
                                    narrow))
    elif op == _FMIN or op == _FMAX:
        for l in range(W):
            V[rd, l] = _db(_fpick(_dv(V[ra, l]), _dv(V[rb, l]), op == _FMIN, nan_wins))
    elif op == _CVTID:
        if imm == 64 + _UNS:  # a u64's value
            for l in range(W):
                V[rd, l] = _db(np.float64(np.uint64(V[ra, l])))
        else:
            for l in range(W):
                V[rd, l] = _db(np.float64(V[ra, l]))
    elif op == _CVTFD:
        for l in range(W):
            V[rd, l] = _db(_fv(V[ra, l], False))
    elif op == _CVTDF:
        for l in range(W):
            V[rd, l] = _fb(_dv(V[ra, l]), False)
    else:  # the comparisons
        for l in range(W):
            x = _dv(V[ra, l])
            y = _dv(V[rb, l])
            if op == _FEQ:
                t = x == y
            elif op == _FNE:
                t = x != y
            elif op == _FLT:
                t = x < y
            elif op == _FLE:
                t = x <= y
            elif op == _FGT:
                t = x > y
            else:
                t = x >= y
            V[rd, l] = np.int64(t)


@njit(cache=True, nogil=True, error_model="numpy")
def _f32_elementwise(op, V, rd, ra, rb, rc, imm, W, quirks):  # type: ignore[no-untyped-def]
    """The element-wise f32 ops, every lane of V[rd]: arithmetic in float64 rounded once,
    min/max, CVT_IF, the comparisons (`quirks`: the machine's mutant flags)."""
    flush = (quirks & FLAG_DENORM_FLUSH) != 0
    nan_wins = (quirks & FLAG_MIN_NAN) != 0
    if (imm == 64 and op != _CVTIF) or op >= _CVTID:
        _f64_elementwise(op, V, rd, ra, rb, rc, imm, W, nan_wins,
                         (quirks & FLAG_F64_NARROW) != 0)
    elif op == _FADD or op == _FSUB or op == _FMUL:
        sign = -1.0 if op == _FSUB else 1.0
        for l in range(W):
            x = _fv(V[ra, l], flush)
            y = _fv(V[rb, l], flush)
            V[rd, l] = _fb(x * y if op == _FMUL else x + sign * y, flush)
    elif op == _FFMA:
        for l in range(W):
            V[rd, l] = _fb(_ffma(_fv(V[ra, l], flush), _fv(V[rb, l], flush),
                                 _fv(V[rc, l], flush)), flush)
    elif op == _FMIN or op == _FMAX:
        for l in range(W):
            V[rd, l] = _fb(_fpick(_fv(V[ra, l], False), _fv(V[rb, l], False),
                                  op == _FMIN, nan_wins), False)
    elif op == _CVTIF:
        if imm == 64 + _UNS:  # a u64's value
            for l in range(W):
                V[rd, l] = _fb(_ffrom_u64(V[ra, l]), False)
        else:
            for l in range(W):
                V[rd, l] = _fb(_ffrom_int(V[ra, l]), False)
    elif op == _FEQ or op == _FNE or op == _FLT or op == _FLE or op == _FGT or op == _FGE:
        for l in range(W):
            x = _fv(V[ra, l], False)
            y = _fv(V[rb, l], False)
            if op == _FEQ:
                t = x == y
            elif op == _FNE:
                t = x != y
            elif op == _FLT:
                t = x < y
            elif op == _FLE:
                t = x <= y
            elif op == _FGT:
                t = x > y
            else:
                t = x >= y
            V[rd, l] = np.int64(t)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _mask_op(op, d, a, b, ex, alive, M, k, V, ra, W):  # type: ignore[no-untyped-def]
    """The mask ops but KILL, on slot k's mask registers; EXEC and ALIVE are the turn's
    `ex` and `alive` (held apart from M while the wave runs). Returns EXEC."""
    if op == _MGET:
        if d != _EXEC:  # EXEC = EXEC is a no-op
            M[k, d] = ex
    elif op == _MSET:
        ex = (ex if a == _EXEC else (alive if a == _ALIVE else M[k, a])) & alive
    elif op == _MANDN or op == _MOR or op == _MAND:
        x = ex if a == _EXEC else (alive if a == _ALIVE else M[k, a])
        y = ex if b == _EXEC else (alive if b == _ALIVE else M[k, b])
        if op == _MANDN:
            t = x & ~y
        elif op == _MOR:
            t = x | y
        else:
            t = x & y
        if d == _EXEC:
            ex = t & alive  # EXEC never regains a lane that left ALIVE
        else:
            M[k, d] = t
    elif op == _MCOND:
        t = np.int64(0)
        for l in range(W):
            t |= np.int64(V[ra, l] != 0) << l
        if d == _EXEC:
            ex = t & ex
        else:
            M[k, d] = t & ex
    else:  # _MCLR
        if d == _EXEC:
            ex = 0
        else:
            M[k, d] = 0
    return ex


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _store(op, ex, full, V, ra, rb, rc, W, mem, buftab):  # type: ignore[no-untyped-def]
    """STORE and ATOMIC_ADD of V[rc] to buffer V[ra] at index V[rb], the EXEC lanes in
    lane order. Returns (the lanes out of bounds, which deopt; OK or ERR_BUFFER)."""
    nbufs = buftab.shape[0]
    f = np.int64(0)
    # Fast path: every active lane names the first active lane's buffer and is
    # in bounds (checked in one vectorized pass); only the stores go lane by
    # lane. Otherwise lane by lane with every check.
    off = length = bsh = uns = np.int64(0)
    cur = np.int64(-1)  # the buffer whose row is in off/length/bsh
    odd = np.int64(ex)  # nonzero: take the checked path
    if ex != 0:
        ref = V[ra, _ctz(ex)]
        row = _row(buftab, nbufs, ref)
        if row >= 0:
            cur = ref
            off = buftab[row, 0]
            length = buftab[row, 1]
            bsh = 64 - (buftab[row, 2] & 255)
            uns = buftab[row, 2] & _UNS
            odd = 0
            for l in range(W):
                i = V[rb, l]
                odd |= (((V[ra, l] ^ ref) | np.int64(i < 0) | np.int64(i >= length))
                        & -((ex >> l) & 1))
    rest = ex
    if odd == 0 and ex == full and op == _STORE:
        if uns:  # (two loops: each wraps one way, no test per lane)
            for l in range(W):
                mem[np.uint64(off + V[rb, l])] = _wk(V[rc, l], bsh, True)
        else:
            for l in range(W):
                mem[np.uint64(off + V[rb, l])] = _wk(V[rc, l], bsh, False)
    elif odd == 0:  # (indices are checked: uint64 skips the wraparound test)
        for l in range(W):
            if (ex >> l) & 1:  # active lanes, in lane order
                at = np.uint64(off + V[rb, l])
                x = V[rc, l] if op == _STORE else mem[at] + V[rc, l]
                mem[at] = _wk(x, bsh, uns)
    while odd != 0 and rest != 0:  # active lanes, in lane order
        l = _ctz(rest)
        rest &= rest - 1
        ref = V[ra, l]
        if ref != cur or cur < 0:
            row = _row(buftab, nbufs, ref)
            if row < 0:
                return f, ERR_BUFFER
            cur = ref
            off = buftab[row, 0]
            length = buftab[row, 1]
            bsh = 64 - (buftab[row, 2] & 255)
            uns = buftab[row, 2] & _UNS
        idx = V[rb, l]
        if idx < 0 or idx >= length:
            f |= np.int64(1) << l
            continue
        x = V[rc, l]
        if op == _ATOMIC:
            x += mem[off + idx]
        mem[off + idx] = _wk(x, bsh, uns)
    return f, OK


@njit(cache=True, nogil=True, error_model="numpy")
def _atomic(ex, full, V, rd, ra, rb, rc, imm, W, mem, buftab, flags):  # type: ignore[no-untyped-def]
    """ATOMIC: the EXEC lanes' atomics in lane order, each lane's old value into V[rd]
    (compare_exchange compares with V[rd] as it was). Returns (the lanes out of bounds,
    which deopt; OK or ERR_BUFFER).

    Adds of every active lane to one location are combined, as an atomic optimizer does
    (LLVM AMDGPU's): one update of the location by the lanes' total, each lane's old
    value the location's plus the exclusive prefix sum of the values below it (a uniform
    value: the value times the number of active lanes, and times the active lanes below
    it) -- the same values lane order gives."""
    nbufs = buftab.shape[0]
    f = np.int64(0)
    if imm == 0 and ex != 0:
        l0 = _ctz(ex)
        ref = V[ra, l0]
        idx = V[rb, l0]
        v0 = V[rc, l0]
        same = True
        uniform = True
        for l in range(W):
            if (ex >> l) & 1:
                same = same and V[ra, l] == ref and V[rb, l] == idx
                uniform = uniform and V[rc, l] == v0
        row = _row(buftab, nbufs, ref)
        if same and row >= 0 and idx >= 0 and idx < buftab[row, 1]:
            at = buftab[row, 0] + idx
            bsh = 64 - (buftab[row, 2] & 255)
            uns = buftab[row, 2] & _UNS
            base = mem[at]
            if uniform:
                lanes = _popc(full if flags & FLAG_ATOMIC_WAVE_COUNT else ex)
                mem[at] = _wk(base + v0 * lanes, bsh, uns)
            below = np.int64(0)
            back = 0 if flags & FLAG_ATOMIC_OLD_SEXT else uns  # the old value's extension
            for l in range(W):
                if (ex >> l) & 1:
                    v = V[rc, l]  # (before V[rd]: they may be one register)
                    first = flags & FLAG_ATOMIC_FIRST_OLD
                    V[rd, l] = _wk(base, bsh, back) if first else _wk(base + below, bsh, back)
                    below += v
            if not uniform:
                mem[at] = _wk(base + below, bsh, uns)
            return f, OK
    for l in range(W):
        if (ex >> l) & 1 == 0:
            continue
        row = _row(buftab, nbufs, V[ra, l])
        if row < 0:
            return f, ERR_BUFFER
        idx = V[rb, l]
        if idx < 0 or idx >= buftab[row, 1]:
            f |= np.int64(1) << l
            continue
        at = buftab[row, 0] + idx
        kind = buftab[row, 2]
        old = mem[at]
        v = V[rc, l]
        if imm == 0:
            x = old + v
        elif imm == 1 or imm == 2:
            if kind == 64 + _UNS:
                less = np.uint64(v) < np.uint64(old)
            else:
                less = v < old
            x = (v if less else old) if imm == 1 else (old if less or v == old else v)
        elif imm == 3:
            x = old & v
        elif imm == 4:
            x = old | v
        elif imm == 5:
            x = old ^ v
        elif imm == 6:
            x = v
        else:
            x = v if old == V[rd, l] else old
        mem[at] = _wk(x, 64 - (kind & 255), kind & _UNS)
        V[rd, l] = _wk(old, 64 - (kind & 255), 0) if flags & FLAG_ATOMIC_OLD_SEXT else old
    return f, OK


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _load(op, mode, ex, full, V, rd, ra, rb, W, mem, buftab):  # type: ignore[no-untyped-def]
    """LOAD and LEN into V[rd], lane by lane over the write set; only EXEC lanes fault (see
    the module docstring). Returns (the lanes out of bounds; OK or ERR_BUFFER)."""
    nbufs = buftab.shape[0]
    sel = full if mode & _M_ALL else ex
    f = np.int64(0)
    for l in range(W):
        if (sel >> l) & 1 == 0:
            continue
        act = (ex >> l) & 1
        row = _row(buftab, nbufs, V[ra, l])
        r = np.int64(0)
        if row < 0:
            if act != 0:
                return f, ERR_BUFFER
        elif op == _LEN:
            r = buftab[row, 1]
        else:
            idx = V[rb, l]
            if idx >= 0 and idx < buftab[row, 1]:
                r = mem[buftab[row, 0] + idx]
            elif act != 0:
                f |= np.int64(1) << l
                continue
        V[rd, l] = r
    return f, OK


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _divide(op, mode, ex, full, V, rd, ra, rb, imm, W, T, EM, em_key, floor):  # type: ignore[no-untyped-def]
    """DIV and REM into V[rd] (`floor`: the div-floor mutant). Returns (the EXEC lanes
    whose divisor is 0, which deopt; EM's key)."""
    sel = full if mode & _M_ALL else ex
    # a signed kind's quotient is wrapped (MIN // -1); an unsigned one's is in
    # range already (narrower unsigned values are >= 0: signed division
    # serves them; a u64 has a path of its own below)
    sh = 0 if imm & _UNS else 64 - imm
    isdiv = op == _DIV
    # One pass over the operands: zero divisors (EXEC lanes fault), whether the
    # write set's operands are uniform (one scalar divide, as a GPU's scalar
    # unit would) or all fit 32 bits (a float64 divide is then exact, and
    # vectorizes), else an int64 divide lane by lane.
    x0 = V[ra, _ctz(sel)] if sel != 0 else np.int64(0)
    y0 = V[rb, _ctz(sel)] if sel != 0 else np.int64(0)
    z = np.int64(0)
    wide = np.int64(0)
    spread = np.int64(0)
    for l in range(W):
        x = V[ra, l]
        y = V[rb, l]
        m = -((sel >> l) & 1)
        z |= np.int64(y == 0) << l
        wide |= ((x - np.int64(np.int32(x))) | (y - np.int64(np.int32(y)))) & m
        spread |= ((x ^ x0) | (y ^ y0)) & m
    f = z & ex
    wsel = sel & ~f  # a faulting lane keeps its destination
    part = wsel != full
    if part:
        em_key = _lane_words(EM, em_key, wsel, W)
        for l in range(W):
            T[l] = V[rd, l]
    if imm == 64 + _UNS:  # a u64: on the unsigned values
        for l in range(W):
            x = np.uint64(V[ra, l])
            y = V[rb, l]
            yu = np.uint64(1) if y == 0 else np.uint64(y)
            q = x // yu
            V[rd, l] = np.int64(0) if y == 0 else np.int64(
                q if isdiv else x - q * yu)
    elif spread == 0 and not floor:
        if y0 == 0:
            r = np.int64(0)
        elif y0 == -1:  # MIN // -1 wraps to MIN; MIN % -1 == 0
            r = -x0 if isdiv else np.int64(0)
        else:
            q = _sdiv(x0, y0)
            r = q if isdiv else x0 - q * y0
        r = (r << sh) >> sh
        for l in range(W):
            V[rd, l] = r
    elif wide == 0 and not floor:
        for l in range(W):
            x = V[ra, l]
            y = V[rb, l]
            ys = np.int64(1) if (y == 0) | (y == -1) else y
            q = np.int64(np.int32(np.float64(np.int32(x))
                                  / np.float64(np.int32(ys))))
            if isdiv:
                r = -q if y == -1 else q  # MIN // -1 wraps to MIN below
            else:
                r = x - q * ys            # x % -1 == 0
            r = np.int64(0) if y == 0 else r
            V[rd, l] = (r << sh) >> sh
    else:
        for l in range(W):
            x = V[ra, l]
            y = V[rb, l]
            if y == 0:
                r = np.int64(0)
            elif y == -1:
                r = -x if isdiv else np.int64(0)
            else:
                q = _sdiv(x, y)
                if floor and x - q * y != 0 and (x < 0) != (y < 0):
                    q -= 1  # the div-floor mutant: Python's // and %
                r = q if isdiv else x - q * y
            V[rd, l] = (r << sh) >> sh
    if part:
        for l in range(W):
            m = EM[l]
            V[rd, l] = _pick(m, V[rd, l], T[l])
    return f, em_key


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _spill(mode, ex, full, V, S, ra, rs, c, W, EM, em_key):  # type: ignore[no-untyped-def]
    """SPILL of V[ra] to spill slot row rs, in the lanes wm says (c != 0: converting).
    Returns EM's key."""
    if c == 1:
        # a converting spill (the f32-spill-converts mutant's): the f32 as an
        # integer, truncated and saturated, NaN as 0; all lanes or EXEC's
        for l in range(W):
            if mode & _M_ALL or (ex >> l) & 1:
                x = _fv(V[ra, l], False)
                S[rs, l] = (np.int64(0) if x != x else
                            np.int64(-9223372036854775807 - 1) if x < -9.2e18
                            else np.int64(9223372036854775807) if x >= 9.2e18
                            else np.int64(x))
    elif c == 2:
        # a narrowed spill (the f64-spill-low-word mutant's): a 32-bit store, the low
        # word sign-extended back on reload; all lanes or EXEC's
        for l in range(W):
            if mode & _M_ALL or (ex >> l) & 1:
                S[rs, l] = (V[ra, l] << 32) >> 32
    elif mode & _M_ALL or ex == full:
        for l in range(W):
            S[rs, l] = V[ra, l]
    else:
        em_key = _lane_words(EM, em_key, ex, W)
        for l in range(W):
            m = EM[l]
            S[rs, l] = _pick(m, V[ra, l], S[rs, l])
    return em_key


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _whole_wave(op, ex, full, V, rd, ra, imm, W, EM, em_key):  # type: ignore[no-untyped-def]
    """The integer whole-wave ops, which read and write all W lanes whatever EXEC holds:
    SET_INACTIVE, the reductions, the ballot and the scans. Returns EM's key."""
    if op == _SETI:  # every lane: V[a] where EXEC, else imm
        if ex == full:
            for l in range(W):
                V[rd, l] = V[ra, l]
        else:
            em_key = _lane_words(EM, em_key, ex, W)
            for l in range(W):
                m = EM[l]
                V[rd, l] = _pick(m, V[ra, l], imm)
    elif (op == _WSUM or op == _WMIN or op == _WMAX or op == _WOR or op == _WAND
          or op == _WBAL):
        # reduce all W lanes, write all W lanes
        if op == _WSUM:
            t = np.int64(0)
            for l in range(W):
                t += V[ra, l]
            t = _wk(t, 64 - (imm & 255), imm & _UNS)
        elif op == _WMIN or op == _WMAX:
            flip = np.int64(_MIN64) if imm == 64 + _UNS else np.int64(0)  # u64 order
            t = V[ra, 0] ^ flip
            for l in range(1, W):
                x = V[ra, l] ^ flip
                t = min(t, x) if op == _WMIN else max(t, x)
            t ^= flip
        elif op == _WOR:
            t = np.int64(0)
            for l in range(W):
                t |= np.int64(V[ra, l] != 0)
        elif op == _WAND:
            t = np.int64(1)
            for l in range(W):
                t &= np.int64(V[ra, l] != 0)
        else:  # ballot: bit l for lanes with V[a][l] != 0 (bit 63 makes it negative)
            t = np.int64(0)
            for l in range(W):
                t |= np.int64(V[ra, l] != 0) << l
        for l in range(W):
            V[rd, l] = t
    else:  # the scans
        sh = 64 - (imm & 255)
        uns = imm & _UNS
        t = np.int64(0)
        incl = op == _WSCI
        for l in range(W):  # in place is safe: lane l is written after it is read
            x = V[ra, l]
            if incl:
                t += x
                V[rd, l] = _wk(t, sh, uns)
            else:
                V[rd, l] = _wk(t, sh, uns)
                t += x
    return em_key


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _trips(TR, k, ex, W, trip_budget):  # type: ignore[no-untyped-def]
    """TRIP: count a loop trip for each EXEC lane of slot k. Returns the lanes past the
    budget."""
    over = np.int64(0)
    for l in range(W):
        t = TR[k, l] + ((ex >> l) & 1)
        TR[k, l] = t
        over |= np.int64(t > trip_budget) << l
    return over


@njit(cache=True, nogil=True, error_model="numpy")
def _to_int(mode, ex, full, V, rd, ra, imm, W, saturate, wide):  # type: ignore[no-untyped-def]
    """CVT_FI (CVT_DI where `wide`) into V[rd] (`saturate`: the f32-to-int-saturates
    mutant). Like LOAD, only EXEC lanes fault and an all-lane write gives the others 0.
    Returns the EXEC lanes whose value lies outside the kind (NaN included), which
    deopt."""
    sel = full if mode & _M_ALL else ex
    w = imm & 255
    uns = imm & _UNS
    # the kind's values, as the truncated float must lie: [lo, hi) (powers of
    # two: exact), NaN outside
    lo = 0.0 if uns else -math.ldexp(1.0, w - 1)
    hi = math.ldexp(1.0, w if uns else w - 1)
    f = np.int64(0)
    for l in range(W):
        if (sel >> l) & 1 == 0:
            continue
        x = _dv(V[ra, l]) if wide else _fv(V[ra, l], False)
        t = np.trunc(x)
        if t == t and t >= lo and t < hi:
            V[rd, l] = (np.int64(np.uint64(t)) if uns and t >= 9.2e18
                        else np.int64(t))
        elif (ex >> l) & 1 == 0:
            V[rd, l] = 0
        elif saturate:  # the mutant: clamp, NaN to 0
            V[rd, l] = (np.int64(0) if x != x else np.int64(lo) if x < 0
                        else np.int64(hi - 1.0) if w < 64
                        else np.int64(-1) if uns
                        else np.int64(9223372036854775807))
        else:
            f |= np.int64(1) << l
    return f


@njit(cache=True, nogil=True, error_model="numpy")
def _wave_fpick(op, V, rd, ra, W, nan_wins, wide):  # type: ignore[no-untyped-def]
    """WWM_FMIN and WWM_FMAX (of f64s where `wide`): all W lanes reduced, the result
    written to all W lanes."""
    t = _dv(V[ra, 0]) if wide else _fv(V[ra, 0], False)
    for l in range(1, W):
        t = _fpick(t, _dv(V[ra, l]) if wide else _fv(V[ra, l], False), op == _WFMIN,
                   nan_wins)
    x = _db(t) if wide else _fb(t, False)
    for l in range(W):
        V[rd, l] = x


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _raise_flag(header, trace, ntrace, wave, at):  # type: ignore[no-untyped-def]
    """Set the deopt flag after a deopt; its first setting in the launch is traced (wave,
    wave-instructions so far: `at`). Returns ntrace."""
    if header[H_FLAG] == 0:
        trace[ntrace, 0] = T_FLAG
        trace[ntrace, 1] = wave
        trace[ntrace, 2] = at
        ntrace += 1
    header[H_FLAG] = 1
    return ntrace


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _after_turn(state, sg, gw, early, waits_gone):  # type: ignore[no-untyped-def]
    """Group slot sg's workgroup after a turn of one of its waves: released from its
    barrier once every wave is there (a wave that ended or has no ALIVE lane counts as
    there; `early`, `waits_gone`: the barrier mutants), or freed once all ended."""
    wave_of, waiting, M, group_of, members = (state.wave_of, state.waiting, state.M,
                                              state.group_of, state.members)
    here = 0
    gone = 0
    running = 0
    for kk in range(sg * gw, sg * gw + gw):
        if wave_of[kk] < 0:
            continue
        running += 1
        if waiting[kk] != 0:
            here += 1
        elif M[kk, _ALIVE] == 0:
            gone += 1
    if running == 0:
        group_of[sg] = -1
    elif here > 0:
        arrived = here if waits_gone else here + gone + members[sg] - running
        if arrived >= members[sg] - (1 if early else 0):
            for kk in range(sg * gw, sg * gw + gw):
                waiting[kk] = 0


@njit(cache=True, nogil=True, error_model="numpy")
def _launch(program, launch, memory, results):  # type: ignore[no-untyped-def]
    """One launch (`run_launch` says what each field is): checked, then run by `_run_waves`
    on the state allocated here."""
    code, nregs, nmasks, nslots, roles, union_regs, union_slots, ip_info = program
    (n, W, gw, group_order, slots, quantum, max_steps, trip_budget, mutant_flags, force_seed,
     force_percent, force_limit) = launch
    mem, buftab, params, local_bases, local_lens = memory
    counters, save, header, never_ran, trace = results
    # ---- arguments (everything below indexes with these, unchecked) ----
    if counters.shape[0] != 4:
        return ERR_ARGS
    for i in range(4):
        counters[i] = 0
    if n < 0 or W < 1 or W > 64 or nregs < 1 or nmasks < 2 or nslots < 0:
        return ERR_ARGS
    if slots < 1 or quantum < 1 or max_steps < 1 or trip_budget < 0 or gw < 1:
        return ERR_ARGS
    if buftab.shape[1] != 3 or roles.shape[0] != _NOP or roles.shape[1] != 7:
        return ERR_ARGS
    nwaves = (n + W - 1) // W
    ngroups = (nwaves + gw - 1) // gw
    issue_count = group_order.shape[0]  # the groups of this launch (all, or a relaunch's)
    if never_ran.shape[0] * 64 < nwaves or header.shape[0] != 3:
        return ERR_ARGS
    if trace.shape[0] < nwaves + 1 or trace.shape[1] != 3:
        return ERR_ARGS
    nlocal = local_lens.shape[0]
    KG = min(slots, issue_count)  # resident workgroup slots
    if local_bases.shape[1] != nlocal or (nlocal > 0 and local_bases.shape[0] < KG):
        return ERR_ARGS
    for i in range(union_regs.shape[0]):
        if union_regs[i] < 0 or union_regs[i] >= nregs:
            return ERR_ARGS
    for i in range(union_slots.shape[0]):
        if union_slots[i] < 0 or union_slots[i] >= max(nslots, 1):
            return ERR_ARGS
    if ip_info.shape[1] < 1 or save.shape[1] != (F_HEAD + (nmasks + 63) // 64
                                                  + ip_info.shape[1] - 1
                                                  + union_regs.shape[0]
                                                  + union_slots.shape[0]):
        return ERR_ARGS
    seen = np.zeros(ngroups, dtype=np.uint8)
    for i in range(issue_count):
        g = group_order[i]
        if g < 0 or g >= ngroups or seen[g] != 0:
            return ERR_ARGS
        seen[g] = 1
    for i in range(trace.shape[0]):
        trace[i, 0] = 0
    nbufs = buftab.shape[0]
    memlen = mem.shape[0]
    for i in range(nbufs):
        bb, bl, bits = buftab[i, 0], buftab[i, 1], buftab[i, 2]
        if bb < 0 or bl < 0 or bb > memlen or bl > memlen - bb or not _valid_kind(bits):
            return ERR_BUFFER
        for j in range(i):  # a reference is a base: two rows may not share one
            if buftab[j, 0] == bb:
                return ERR_BUFFER
    for s in range(KG if nlocal > 0 else 0):  # each workgroup array's instances in memory
        for j in range(nlocal):
            lb, ll = local_bases[s, j], local_lens[j]
            if lb < 0 or ll < 0 or lb > memlen or ll > memlen - lb:
                return ERR_BUFFER
    err, _, _ = _validate(code, nregs, nmasks, nslots, params.shape[0], nlocal, roles)
    if err != OK:
        return err
    for i in range(code.shape[0]):  # every infopoint has its row in ip_info
        if code[i, 7] >= ip_info.shape[0]:
            return ERR_CODE
    if issue_count == 0:
        return OK
    # the code as run: column 6 holds a mode word (_M_*) in place of wm
    dc = code.copy()
    for i in range(dc.shape[0]):
        flags = roles[code[i, 0], _FLAGS]
        mode = code[i, 6]  # _M_ALL
        if (flags & _MASKED) != 0:
            mode |= _M_VEC
            if code[i, 6] == 0:
                mode |= _M_KEEP
        if (flags & _WRAPS) != 0 and code[i, 5] & 255 != 64:
            mode |= _M_WRAP
        dc[i, 6] = mode

    # ---- state of KG resident workgroup slots of gw wave slots each: K wave slots ----
    K = KG * gw
    V = np.zeros((K * nregs, W), dtype=np.int64)   # slot k's register r: row k*nregs + r
    S = np.zeros((K * max(nslots, 1), W), dtype=np.int64)
    M = np.zeros((K, nmasks), dtype=np.int64)      # lane sets; M[k, EXEC], M[k, ALIVE]
    pcs = np.zeros(K, dtype=np.int64)
    wave_of = np.full(K, -1, dtype=np.int64)      # -1: no wave (ended, or none issued)
    waiting = np.zeros(K, dtype=np.int64)          # 1: the wave waits at a barrier
    group_of = np.full(KG, -1, dtype=np.int64)     # the workgroup on each group slot
    steps_of = np.zeros(K, dtype=np.int64)
    TR = np.zeros((K, W), dtype=np.int64)          # loop trips per lane of each slot
    T = np.zeros(W, dtype=np.int64)                # a destination's lanes kept aside
    EM = np.zeros(W, dtype=np.int64)               # EM[l] = -(bit l of em_key)
    G = np.zeros(W, dtype=np.int64)                # SHUFFLE's gathered sources
    members = np.zeros(KG, dtype=np.int64)         # waves issued with each slot's group
    return _run_waves(program, launch, memory, results,
                      State(dc, V, S, M, pcs, wave_of, waiting, group_of, steps_of, TR, T, EM,
                            G, members))


@njit(cache=True, nogil=True, error_model="numpy")
def _run_waves(program, launch, memory, results, state):  # type: ignore[no-untyped-def]
    """Issue the launch's workgroups and run their waves, as the module docstring says
    (`_launch` checked the launch and allocated `state`; it holds every array while this
    runs, so they are all unowned here)."""
    program, launch, memory, results, state = _unowned((program, launch, memory, results,
                                                        state))
    _, nregs, nmasks, nslots, _, union_regs, union_slots, ip_info = program
    (n, W, gw, group_order, _, quantum, max_steps, trip_budget, mutant_flags, force_seed,
     force_percent, force_limit) = launch
    mem, buftab, params, local_bases, local_lens = memory
    counters, save, header, never_ran, trace = results
    dc, V, S, M, pcs, wave_of, waiting, group_of, steps_of, TR, T, EM, G, members = state
    nlocal = local_lens.shape[0]
    K = wave_of.shape[0]
    em_key = np.int64(0)
    floor = (mutant_flags & FLAG_DIV_FLOOR) != 0
    not_atomic = (mutant_flags & FLAG_SLOT_NOT_ATOMIC) != 0
    early = (mutant_flags & FLAG_BARRIER_EARLY) != 0
    waits_gone = (mutant_flags & FLAG_BARRIER_WAITS_GONE) != 0
    one_instance = (mutant_flags & FLAG_LOCAL_SHARED) != 0
    zero_unsynced = (mutant_flags & FLAG_LOCAL_ZERO_UNSYNCED) != 0
    scratch_group = (mutant_flags & FLAG_SCRATCH_PER_GROUP) != 0
    nan_wins = (mutant_flags & FLAG_MIN_NAN) != 0
    saturate = (mutant_flags & FLAG_CVT_SATURATE) != 0
    forcing = force_percent > 0 and force_limit != 0
    forced_left = force_limit  # < 0: no limit
    full = np.int64(-1) if W == 64 else (np.int64(1) << W) - 1
    header[H_FLAG] = 0
    header[H_NEXT] = 0
    header[H_OVERFLOW] = 0
    ntrace = 0
    nxt = 0                                        # next position in group_order
    resident = 0
    total_steps = 0
    total_lanes = 0
    issued = 0
    k = 0
    while True:
        # ---- issue workgroups onto free group slots, in order, checking the deopt flag ----
        nxt, ntrace, resident, issued = _issue(launch, memory, results, state, nxt, ntrace,
                                               total_steps, resident, issued)
        if resident == 0:
            break
        tries = 0
        while wave_of[k] < 0 or waiting[k] != 0:
            k = k + 1 if k + 1 < K else 0
            tries += 1
            if tries > K:  # every resident wave waits at a barrier that stays shut
                return ERR_DEADLOCK

        # ---- one turn of slot k's wave ----
        wave = wave_of[k]
        base = wave * W
        vo = k * nregs
        so = (k - k % gw if scratch_group else k) * nslots
        pc = pcs[k]
        if zero_unsynced and pc == 0 and steps_of[k] == 0:
            # the bug: the wave zeroes its group's arrays as it starts, over what the
            # group's other waves may have written already (no barrier after the zeroing)
            for j in range(nlocal):
                lb = local_bases[0 if one_instance else k // gw, j]
                for i in range(local_lens[j]):
                    mem[lb + i] = 0
        ex = M[k, _EXEC]
        alive = M[k, _ALIVE]
        left = max_steps - steps_of[k]
        budget = left if K == 1 or quantum > left else quantum
        steps = 0
        lanes = 0
        halted = False
        at_barrier = False
        while steps < budget:
            op = dc[pc, 0]
            d = dc[pc, 1]
            a = dc[pc, 2]
            b = dc[pc, 3]
            c = dc[pc, 4]
            imm = dc[pc, 5]
            mode = dc[pc, 6]
            ipx = dc[pc, 7]
            fd = np.int64(0)  # lanes that deopt at this instruction, and why
            why = 0
            if forcing and ipx >= 0 and ex != 0 and ip_info[ipx, 0] != 0:
                fd = _forced(ex, base, ipx, force_seed, force_percent)  # DeoptimizeALot
                if forced_left >= 0 and fd != 0:
                    fd = _lowest(fd, forced_left)  # the launch's limit: the lowest lanes
                    forced_left -= _popc(fd)
                    forcing = forced_left > 0
                ex &= ~fd  # they leave before the instruction runs
                why = REASON_FORCED
                if fd != 0:
                    if _deopt(fd, why, ipx, base, k, vo, so, V, S, M, nmasks, TR,
                              union_regs, union_slots, ip_info, save, header,
                              not_atomic) != 0:
                        return ERR_SAVE_AREA
                    alive &= ~fd
                    ntrace = _raise_flag(header, trace, ntrace, wave, total_steps + steps)
                    fd = np.int64(0)
            steps += 1
            lanes += _popc(ex)
            pc += 1
            rd = vo + d
            ra = vo + a
            rb = vo + b
            # one opcode family a branch, each a function of its own: inlined, but for
            # the float and conversion families, called (in a smaller loop LLVM's
            # code ran f64 work 1.4x as fast, integer work as fast; numba compiles
            # the machine in 30% less time: bench_trees.py --families)
            if mode & _M_VEC:
                # element-wise ops writing V[d] (as wm says): a masked write to a
                # partial EXEC keeps V[d] aside, writes every lane, then restores
                keep = (mode & _M_KEEP) != 0 and ex != full
                if keep:
                    em_key = _lane_words(EM, em_key, ex, W)
                    for l in range(W):
                        T[l] = V[rd, l]
                # (three functions side by side: numba copies an inlined function's IR
                # once per block with all its variables, so one holding the other two
                # took 15 s more to compile)
                if op < _FADD:
                    _elementwise(op, V, S, G, rd, ra, rb, c, vo, so, imm, ex, W, base, wave,
                                 gw, k, params, local_bases, mutant_flags)
                elif op < _POPC:  # f32: nothing of an integer kernel's work comes here
                    _f32_elementwise(op, V, rd, ra, rb, vo + c, imm, W, mutant_flags)
                else:
                    _int_functions(op, V, rd, ra, rb, imm, W, mutant_flags)
                if mode & _M_WRAP:
                    sh = 64 - (imm & 255)
                    if imm & _UNS:
                        for l in range(W):
                            V[rd, l] = np.int64(np.uint64(V[rd, l] << sh) >> np.uint64(sh))
                    else:
                        for l in range(W):
                            V[rd, l] = (V[rd, l] << sh) >> sh
                if keep:
                    for l in range(W):
                        m = EM[l]
                        V[rd, l] = _pick(m, V[rd, l], T[l])
            elif (op == _MGET or op == _MSET or op == _MANDN or op == _MOR or op == _MAND
                  or op == _MCOND or op == _MCLR):
                ex = _mask_op(op, d, a, b, ex, alive, M, k, V, ra, W)
            elif op == _JZE:
                if ex == 0:
                    pc = imm
            elif op == _JMP:
                pc = imm
            elif op == _JZM:
                if (ex if a == _EXEC else (alive if a == _ALIVE else M[k, a])) == 0:
                    pc = imm
            elif op == _STORE or op == _ATOMIC:
                fd, err = _store(op, ex, full, V, ra, rb, vo + c, W, mem, buftab)
                why = REASON_OOB
                if err != OK:
                    return err
            elif op == _RMW:
                fd, err = _atomic(ex, full, V, rd, ra, rb, vo + c, imm, W, mem, buftab,
                                  mutant_flags)
                why = REASON_OOB
                if err != OK:
                    return err
            elif op == _LOAD or op == _LEN:
                fd, err = _load(op, mode, ex, full, V, rd, ra, rb, W, mem, buftab)
                why = REASON_OOB
                if err != OK:
                    return err
            elif op == _DIV or op == _REM:
                fd, em_key = _divide(op, mode, ex, full, V, rd, ra, rb, imm, W, T, EM, em_key,
                                     floor)
                why = REASON_DIV0
            elif op == _SPILL:
                em_key = _spill(mode, ex, full, V, S, ra, so + imm, c, W, EM, em_key)
            elif (op == _SETI or op == _WSUM or op == _WMIN or op == _WMAX or op == _WOR
                  or op == _WAND or op == _WBAL or op == _WSCX or op == _WSCI):
                em_key = _whole_wave(op, ex, full, V, rd, ra, imm, W, EM, em_key)
            elif op == _CHECK:  # the lanes whose index is outside the array deopt
                fd = _outside(V, ra, imm, ex, W)
                why = REASON_OOB
            elif op == _FAIL:  # every active lane deopts; the host raises the fail
                fd = ex
                why = REASON_FAIL
            elif op == _ALLOC:  # the host allocates: every active lane finishes there
                fd = ex
                why = REASON_ALLOC
            elif op == _DEOPT:  # a speculation guard taken: the host finishes them
                fd = ex
                why = REASON_SPECULATION
            elif op == _KILL:
                alive &= ~ex
                ex = 0
            elif op == _TRIP:
                over = _trips(TR, k, ex, W, trip_budget)
                if over != 0:
                    counters[0] = total_steps + steps
                    counters[1] = total_lanes + lanes
                    counters[2] = issued
                    counters[3] = base + _ctz(over)
                    return ERR_BUDGET
            elif op == _BARRIER:
                if ex != 0:  # lanes are here: wait for the workgroup (pc is past it)
                    at_barrier = True
                    break
            elif op == _HALT:
                halted = True
                break
            # f32, last: nothing of an integer kernel's work passes these tests
            elif op == _CVTFI or op == _CVTDI:
                fd = _to_int(mode, ex, full, V, rd, ra, imm, W, saturate, op == _CVTDI)
                why = REASON_CONVERT
            elif op == _WFMIN or op == _WFMAX:
                _wave_fpick(op, V, rd, ra, W, nan_wins, imm == 64)
            else:  # unreachable after _validate
                return ERR_CODE
            if fd != 0:
                if _deopt(fd, why, ipx, base, k, vo, so, V, S, M, nmasks, TR, union_regs,
                          union_slots, ip_info, save, header, not_atomic) != 0:
                    return ERR_SAVE_AREA
                ex &= ~fd
                alive &= ~fd
                ntrace = _raise_flag(header, trace, ntrace, wave, total_steps + steps)
        total_steps += steps
        total_lanes += lanes
        counters[0] = total_steps
        counters[1] = total_lanes
        counters[2] = issued
        if halted:
            wave_of[k] = -1
            resident -= 1
        else:
            pcs[k] = pc
            M[k, _EXEC] = ex
            M[k, _ALIVE] = alive
            steps_of[k] += steps
            if steps_of[k] >= max_steps:
                return ERR_STEPS
            if at_barrier:
                waiting[k] = 1
        # ---- slot k's workgroup: released from its barrier once every wave is there (a
        # wave that ended or has no ALIVE lane counts as there), or freed once all ended
        sg = k // gw
        if gw == 1 and not at_barrier:  # a lone wave's group, at no barrier
            if wave_of[k] < 0:
                group_of[sg] = -1
        else:
            _after_turn(state, sg, gw, early, waits_gone)
        k = k + 1 if k + 1 < K else 0
    return OK


def _out(name: str, arr: np.ndarray, dtype: type) -> np.ndarray:
    """An output array is written in place: it must already have the machine's layout."""
    if not (isinstance(arr, np.ndarray) and arr.dtype == dtype and arr.ndim == 1
            and arr.flags.c_contiguous and arr.flags.writeable):
        raise TypeError(f"run_launch: {name} must be a writable contiguous 1-d "
                        f"{np.dtype(dtype).name} array, got {getattr(arr, 'dtype', type(arr))}")
    return arr


def _in(arr: np.ndarray, ndim: int) -> np.ndarray:
    out = np.ascontiguousarray(arr, dtype=np.int64)
    if out.ndim != ndim:
        raise TypeError(f"run_launch: expected a {ndim}-d array, got shape {out.shape}")
    return out


@dataclass
class DeoptArea:
    """What run_launch needs for deoptimization, and where it leaves the result.

    union_regs / union_slots: the registers and spill slots a frame saves (the union of
    those live at any infopoint); ip_info[ip] = (eligible for a forced deopt, reference
    bitmap words); save[capacity, frame_words]: the frames; header: flag, next slot index,
    overflow; never_ran: one bit a wave; trace[waves + 1, 3]: the dispatch trace."""

    union_regs: np.ndarray
    union_slots: np.ndarray
    ip_info: np.ndarray
    save: np.ndarray
    header: np.ndarray
    never_ran: np.ndarray
    trace: np.ndarray

    @staticmethod
    def make(n: int, W: int, nmasks: int, union_regs: Any, union_slots: Any, ip_info: Any,
             capacity: int) -> DeoptArea:
        regs = np.asarray(union_regs, dtype=np.int64).reshape(-1)
        slots = np.asarray(union_slots, dtype=np.int64).reshape(-1)
        info = np.asarray(ip_info, dtype=np.int64)
        if info.ndim != 2 or info.shape[0] == 0:
            info = np.zeros((1, 1), dtype=np.int64)
        words = frame_words(nmasks, info.shape[1] - 1, len(regs), len(slots))
        nwaves = (n + W - 1) // W
        return DeoptArea(regs, slots, info, np.zeros((max(1, capacity), words), np.int64),
                         np.zeros(3, np.int64), np.zeros(max(1, (nwaves + 63) // 64), np.int64),
                         np.zeros((nwaves + 1, 3), np.int64))


def refmap_start(nmasks: int) -> int:
    """The column of a saved frame where its reference bitmap starts: after the head and
    one bit per mask register."""
    return F_HEAD + (nmasks + 63) // 64


def frame_words(nmasks: int, ref_words: int, nregs: int, nslots: int) -> int:
    """int64 words of one saved frame."""
    return refmap_start(nmasks) + ref_words + nregs + nslots


def run_launch(code: np.ndarray, n: int, W: int, nregs: int, nmasks: int, nslots: int,
               mem: np.ndarray, buftab: np.ndarray, params: np.ndarray,
               group_order: np.ndarray, slots: int, quantum: int, counters: np.ndarray,
               area: DeoptArea, max_wave_steps: int = MAX_WAVE_STEPS,
               trip_budget: int = NO_TRIP_BUDGET, flags: int = 0, force_seed: int = 0,
               force_percent: int = 0, force_limit: int = -1, group_waves: int = 1,
               local_bases: np.ndarray | None = None,
               local_lens: np.ndarray | None = None) -> int:
    """Run one launch of `code` over the workgroups `group_order` of n workitems in waves
    of W lanes, `group_waves` waves a workgroup; returns OK (0) or an `ERR_*` code (see
    `ERRORS`).

    Inputs: code int64[ninstr, 8]; buftab int64[nbufs, 3] rows (base, length, bits 32|64)
    into mem; params (PARAM reads params[imm]); group_order, distinct workgroup indices
    in 0..ceil(n/(W*group_waves))-1 (with one wave a group, the waves); `slots` resident
    workgroups, whose waves run round-robin, `quantum` instructions a turn; `area`
    (DeoptArea) the deopt metadata and results. Workgroup arrays: local_bases
    int64[slots, arrays], each resident slot's instance of each array (its base in mem,
    a buffer table row of its own), local_lens int64[arrays] their lengths. Written in
    place: mem (int64), counters (int64[4]) and the area's save, header, never_ran and
    trace, as the module docstring says. `force_seed`/`force_percent`: DeoptimizeALot at
    the eligible infopoints (0: never), at most `force_limit` lanes in the launch (< 0: no
    limit). `trip_budget`: the loop trips (TRIP instructions executed while active) each
    lane may run; one more stops the launch with ERR_BUDGET and that lane's gid in
    counters[3]. `max_wave_steps` bounds the instructions of one wave: past it is
    ERR_STEPS, a machine or compiler bug (callers derive it from the trip budget and the
    code size). `flags`: machine mutants (FLAG_*; mutants.py), 0 for the correct machine.
    Array dtypes are checked here, so the jitted entry is only ever compiled for one
    signature.
    """
    bases = np.zeros((1, 0), np.int64) if local_bases is None else _in(local_bases, 2)
    lens = np.zeros(0, np.int64) if local_lens is None else _in(local_lens, 1)
    return int(_launch(
        MachineCode(_in(code, 2), int(nregs), int(nmasks), int(nslots), _ROLES,
                    _in(area.union_regs, 1), _in(area.union_slots, 1),
                    _in(area.ip_info, 2)),
        LaunchSettings(int(n), int(W), int(group_waves), _in(group_order, 1), int(slots),
                       int(quantum), int(max_wave_steps), int(trip_budget), int(flags),
                       int(force_seed), int(force_percent), int(force_limit)),
        Memory(_out("mem", mem, np.int64), _in(buftab, 2), _in(params, 1), bases, lens),
        Results(_out("counters", counters, np.int64), _out2("save", area.save),
                _out("header", area.header, np.int64),
                _out("never_ran", area.never_ran, np.int64), _out2("trace", area.trace))))


def _out2(name: str, arr: np.ndarray) -> np.ndarray:
    if not (isinstance(arr, np.ndarray) and arr.dtype == np.int64 and arr.ndim == 2
            and arr.flags.c_contiguous and arr.flags.writeable):
        raise TypeError(f"run_launch: {name} must be a writable contiguous 2-d int64 array")
    return arr


def error_message(rc: int) -> str:
    """What a nonzero `run_launch` result means."""
    return ERRORS.get(rc, f"unknown machine error {rc}")


def compilations() -> int:
    """How many type specialisations of the machine's entry exist in this process (1 after
    `warm_up`; a larger number means some caller made numba compile again)."""
    return len(_launch.signatures)


def cache_is_warm() -> bool:
    """Whether numba's on-disk cache already holds the machine (so `warm_up` loads it in
    well under a second instead of compiling for 10-80 s). Best effort: it asks numba's
    cache index (its own freshness check against the source), and says False when it
    cannot tell."""
    try:
        return bool(_launch._cache._cache_file._load_index())  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - numba internals; any doubt means "cold"
        return False


def warm_up() -> None:
    """Compile, or load from the on-disk cache, every jitted function of the machine, by
    running a small program that reaches them all (so parallel workers find a warm cache).

    To time a cold compile, run this in a fresh process with NUMBA_CACHE_DIR set to an
    empty directory; a second fresh process with the same directory times the cached load.
    """
    rows = [
        (_GID, 0, 0, 0, 0, 0, 0, -1),
        (_MOVI, 1, 0, 0, 0, 2, 1, -1),
        (_DIV, 2, 0, 1, 0, 32, 0, 0),
        (_STORE, 0, 3, 0, 2, 0, 0, 1),
        (_HALT, 0, 0, 0, 0, 0, 0, -1),
    ]
    code = np.array(rows, dtype=np.int64)
    n = 2
    area = DeoptArea.make(n, 2, 2, [0, 1, 2], [0], np.ones((2, 2), np.int64), 2)
    mem = np.zeros(n, dtype=np.int64)
    rc = run_launch(code, n, 2, 4, 2, 1, mem, np.array([[0, n, 32]], dtype=np.int64),
                    np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 1, 64,
                    np.zeros(4, dtype=np.int64), area, force_seed=1, force_percent=1)
    assert rc == OK and mem.tolist() == [0, 0] and area.header[1] == 0, (
        f"machine warm-up failed: {rc} {mem} {area.header}")


__all__ = ["DeoptArea", "ERRORS", "MAX_WAVE_STEPS", "REASONS", "cache_is_warm",
           "compilations", "error_message", "frame_words", "refmap_start", "run_launch",
           "warm_up"]
