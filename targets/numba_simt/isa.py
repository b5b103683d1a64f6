"""numba-simt's machine code: opcodes and the instruction row layout.

One instruction is one int64 row of `WIDTH` columns: [op, d, a, b, c, imm, wm, ip].

- `d` destination (vector register, mask register or spill slot, by opcode), `a`, `b`, `c`
  sources, `imm` an immediate (a constant, an integer type's *kind*, a jump target, a
  parameter or slot index, by opcode). A kind is the type's width, 8, 16, 32 or 64, plus
  UNSIGNED (256) for an unsigned type (`kind(ty)`).
- `wm` write mode of the destination vector register: 0 = masked (only lanes whose EXEC bit
  is set are written), 1 = all lanes (whole-wave / writemask-all: every lane is written,
  inactive ones included; this is what makes register allocation around divergence hard).
- `ip` the infopoint id of an instruction that can fault (-1 otherwise).

State of one wave: vector registers V[nregs, W] (int64), mask registers M[nmasks, W]
(uint8; M[EXEC] is the exec mask, M[ALIVE] the lanes neither faulted nor returned from
the kernel), spill slots S[nslots, W] (int64), a pc. Memory is one int64 array (the
pool's storage); a buffer reference value is the buffer's base offset in it, resolved
through the buffer table [nbufs, 3] = (base, length, kind of its elements) -- so when the
pool moves a buffer, every reference to it held anywhere (a saved frame too) must be
relocated; a buffer holds its elements wrapped to their kind (an f32 buffer's kind is
32: its bits). Workgroup arrays are buffers too: one instance of each per
resident workgroup slot, zeroed when a workgroup is issued onto the slot (LOCALBASE
gives the wave its group's instance).

Every integer value lives in a register as its storage form (difftest/core/ir/types.py:
its 64 bits read as an int64, sign-extended from a signed type's width, zero-extended
from an unsigned one's). Arithmetic wraps to the kind in `imm` with two's complement;
DIV/REM truncate toward zero (signed: MIN // -1 == MIN, MIN % -1 == 0; unsigned: on the
values) and fault on a zero divisor; shift amounts are masked to the width; SHR is
arithmetic for a signed kind, logical for an unsigned one; a comparison's `imm` is 64 or
64 + UNSIGNED (a u64: compared as unsigned; every narrower value compares as its storage
form). Comparisons write 0/1. A lane that faults records (ip, code) and leaves EXEC and
ALIVE for good.

An f32 lives in a vector register as its 32 bits, sign-extended (as an i32 would be), and
in memory as a 32-bit element: loads, stores, moves, spills and shuffles carry it as they
carry an i32. The F ops read and write those bits: binary32 arithmetic, rounded to
nearest even, subnormals kept, every NaN written as 0x7FC00000 (docs/semantics.md, "32-bit
floats"). Negation and `abs` are XOR / AND on the sign bit. An f64 lives in a register
and in memory as its 64 bits; the F ops take it where their `imm` is 64 (binary64, NaN
written as 0x7FF8000000000000), and CVT_ID / CVT_DI / CVT_FD / CVT_DF convert it.
"""

from __future__ import annotations

import enum

WIDTH = 8
OP, D, A, B, C, IMM, WM, IP = range(WIDTH)

UNSIGNED = 256  # added to a width: the kind of an unsigned integer type
#: every valid kind
KINDS = frozenset({8, 16, 32, 64} | {w + UNSIGNED for w in (8, 16, 32, 64)})


def kind(ty: object) -> int:
    """The kind of an integer type (difftest.core.ir.types.Type); an f32's is 32."""
    bits, signed = getattr(ty, "bits"), getattr(ty, "signed")
    return int(bits) + (0 if signed else UNSIGNED)

EXEC, ALIVE = 0, 1  # fixed mask registers

#: fault kinds as recorded by the machine
FAULT_NONE, FAULT_OOB, FAULT_DIV0, FAULT_FAIL, FAULT_SPECULATION, FAULT_ALLOC = 0, 1, 2, 3, 4, 5
FAULT_CONVERT = 6


class Op(enum.IntEnum):
    # --- vector arithmetic: V[d] = f(V[a], V[b]) wrapped to imm bits (masked or all by wm)
    ADD = 1
    SUB = 2
    MUL = 3
    DIV = 4          # faults (division by zero) at ip
    REM = 5          # faults (division by zero) at ip
    AND = 6
    OR = 7
    XOR = 8
    SHL = 9
    SHR = 10
    CMP_EQ = 11      # V[d] = V[a] == V[b] (0/1); likewise below; imm 64 or 64 + UNSIGNED
    CMP_NE = 12
    CMP_LT = 13
    CMP_LE = 14
    CMP_GT = 15
    CMP_GE = 16
    NEG = 17         # V[d] = wrap(-V[a], imm)
    NOT = 18         # V[d] = wrap(~V[a], imm)
    LNOT = 19        # V[d] = 1 - V[a]  (bools are 0/1)
    WRAP = 20        # V[d] = wrap(V[a], imm)  (a conversion: truncate to imm's width,
                     # extend by its signedness)
    MOV = 21         # V[d] = V[a]
    MOVI = 22        # V[d] = imm
    PARAM = 23       # V[d] = params[imm]   (kernel arguments; base offsets for buffers)
    LANEID = 24      # V[d] = lane
    GID = 25         # V[d] = wave_base + lane
    WAVEID = 26      # V[d] = wave index
    LOCALID = 27     # V[d] = index in the workgroup (gid % G)
    GROUPID = 28     # V[d] = workgroup index (gid // G)
    GROUPSIZE = 29   # V[d] = G
    # --- memory (buffer reference in V[a])
    LOAD = 30        # V[d] = mem[V[a]][V[b]]            faults (out of bounds) at ip
    STORE = 31       # mem[V[a]][V[b]] = V[c]            faults (out of bounds) at ip
    ATOMIC_ADD = 32  # mem[V[a]][V[b]] += V[c] (wrapped to the buffer's bits), lane order
    LEN = 33         # V[d] = length of buffer V[a]
    FAIL = 34        # every EXEC lane faults (fail) at ip with code V[a]
    ALLOC = 35       # every EXEC lane deopts here: the host allocates V[d] = a fresh zeroed
                     # Buffer[i32] of V[a] elements (device code cannot) and finishes it
    LOCALBASE = 36   # V[d] = a reference to workgroup array imm of the wave's workgroup
    # --- private arrays, kept in registers: one vector register per element
    SELECT = 37      # V[d] = V[b] if V[a] != 0 else V[c]  (an indexed read or write)
    ATOMIC = 39      # an atomic that returns (imm: nodes.ATOMIC_OPS' index) on mem[V[a]][V[b]]
                     # with V[c], the EXEC lanes in lane order: V[d] = the old value
                     # (compare_exchange compares with V[d] as it was); faults (out of
                     # bounds) at ip
    CHECK_INDEX = 38  # every EXEC lane whose V[a] is outside 0..imm-1 faults (out of
                      # bounds) at ip
    # --- masks
    M_GETEXEC = 40   # M[d] = EXEC
    M_SETEXEC = 41   # EXEC = M[a] & ALIVE
    M_FROMCOND = 42  # M[d] = EXEC & (V[a] != 0)
    M_ANDN = 43      # M[d] = M[a] & ~M[b]
    M_OR = 44        # M[d] = M[a] | M[b]
    M_AND = 45       # M[d] = M[a] & M[b]
    M_CLEAR = 46     # M[d] = 0
    KILL = 47        # ALIVE &= ~EXEC; EXEC = 0   (a kernel `return`)
    # --- control (whole-wave branches; targets are instruction indices in imm)
    JMP = 50
    JZ_EXEC = 51     # jump if no EXEC lane is set
    JZ_MASK = 52     # jump if M[a] has no lane set
    HALT = 53
    TRIP = 54        # a loop trip: each EXEC lane's trip count += 1; a lane past the
                     # launch's trip budget stops the launch (the step_budget error)
    DEOPT = 55       # every EXEC lane deopts here (a speculation guard taken): its frame
                     # goes to the save area and the host finishes it (infopoint in ip)
    BARRIER = 56     # with EXEC lanes, the wave waits until every wave of its workgroup
                     # waits here, has ended or has no ALIVE lane; then all go on
    # --- whole-wave operations: read all lanes, write V[d] in ALL lanes
    SET_INACTIVE = 60  # V[d][l] = V[a][l] if EXEC[l] else imm        (all lanes)
    WWM_SUM = 61       # V[d][*] = wrap(sum V[a][*], imm)
    WWM_MIN = 62       # V[d][*] = min V[a][*] (unsigned where imm is 64 + UNSIGNED)
    WWM_MAX = 63       # V[d][*] = max V[a][*] (likewise)
    WWM_OR = 64        # V[d][*] = any(V[a][*] != 0)
    WWM_AND = 65       # V[d][*] = all(V[a][*] != 0)
    WWM_BALLOT = 66    # V[d][*] = wrap(sum of 1 << l over lanes with V[a][l] != 0, 64)
    WWM_SCAN_EXCL = 67  # V[d][l] = wrap(sum of V[a][k] for k < l, imm)
    WWM_SCAN_INCL = 68  # V[d][l] = wrap(sum of V[a][k] for k <= l, imm)
    # --- cross-lane, writing the destination like arithmetic (masked or all by wm)
    READFIRST = 70     # V[d] = V[a][first lane with EXEC set]
    SHUFFLE = 71       # V[d][l] = V[a][V[b][l]] if 0 <= V[b][l] < W else 0
    BALLOT_FN = 72     # V[d][l] = ballot function imm (BALLOT_FUNCTIONS' index) of the wave's
                       # W bits of V[a][l], relative to lane l: lane-local
    # --- spills (slot in imm); wm 1 moves all lanes, as spills must
    SPILL = 80         # S[imm] = V[a]   (c = 1: the f32 V[a] converted to an integer,
                       # truncated and saturated, as a float-to-int move would; c = 2:
                       # its low 32 bits, sign-extended: the f64-spill-low-word mutant)
    RELOAD = 81        # V[d] = S[imm]   (c = 1: the integer S[imm] converted to f32)
    # --- f32 (bits in, bits out; masked or all by wm, like arithmetic)
    FADD = 90
    FSUB = 91
    FMUL = 92
    FFMA = 93          # V[d] = V[a] * V[b] + V[c], rounded once
    FMIN = 94          # a NaN loses to a number; -0.0 < +0.0
    FMAX = 95
    FCMP_EQ = 96       # V[d] = 0/1, IEEE: false for NaN except FCMP_NE
    FCMP_NE = 97
    FCMP_LT = 98
    FCMP_LE = 99
    FCMP_GT = 100
    FCMP_GE = 101
    CVT_IF = 102       # V[d] = f32 of the integer V[a] of kind imm (nearest even)
    CVT_FI = 103       # V[d] = V[a] truncated to an integer of kind imm; faults (invalid
                       # conversion) at ip for NaN and values the kind cannot hold
    WWM_FMIN = 104     # V[d][*] = f32 min V[a][*] (whole wave, like WWM_MIN)
    WWM_FMAX = 105
    # --- f64 conversions (the F ops above take an f64 where imm is 64)
    CVT_ID = 106       # V[d] = f64 of the integer V[a] of kind imm (nearest even)
    CVT_FD = 107       # V[d] = the f32 V[a] as an f64 (exact)
    CVT_DF = 108       # V[d] = the f64 V[a] rounded to f32 (nearest even; past f32: inf)
    CVT_DI = 109       # V[d] = the f64 V[a] truncated to an integer of kind imm (as CVT_FI)
    # --- the integer functions (docs/semantics.md, "Bit operations") on V[a]'s bits of
    # kind imm (and V[b]), masked or all by wm, the result wrapped to the kind
    POPCOUNT = 110     # V[d] = the number of set bits
    CLZ = 111          # V[d] = leading zero bits within the width (of 0: the width)
    CTZ = 112          # V[d] = trailing zero bits (of 0: the width)
    BIT_REVERSE = 113  # V[d] = the width's bits in reverse order
    ROTATE_LEFT = 114  # V[d] = V[a] rotated left by V[b] mod the width (V[b] of any kind)
    ROTATE_RIGHT = 115
    MUL_HI = 116       # V[d] = the high half of the full product (of signed or unsigned
    #                    values, as the kind says)
    MIN = 117          # V[d] = min(V[a], V[b]) (unsigned where imm is 64 + UNSIGNED)
    MAX = 118
    ABS = 119          # V[d] = |V[a]| (a signed kind's MIN is itself; an unsigned value)


#: opcodes whose `imm` is an integer kind
KINDED = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.SHL, Op.SHR, Op.CMP_EQ,
                    Op.CMP_NE, Op.CMP_LT, Op.CMP_LE, Op.CMP_GT, Op.CMP_GE, Op.NEG, Op.NOT,
                    Op.WRAP, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_SCAN_EXCL,
                    Op.WWM_SCAN_INCL, Op.CVT_IF, Op.CVT_FI, Op.CVT_ID, Op.CVT_DI,
                    Op.POPCOUNT, Op.CLZ, Op.CTZ, Op.BIT_REVERSE, Op.ROTATE_LEFT,
                    Op.ROTATE_RIGHT, Op.MUL_HI, Op.MIN, Op.MAX, Op.ABS})
#: the integer functions of one operand, and of two
INT_FUNCTIONS_A = frozenset({Op.POPCOUNT, Op.CLZ, Op.CTZ, Op.BIT_REVERSE, Op.ABS})
INT_FUNCTIONS_AB = frozenset({Op.ROTATE_LEFT, Op.ROTATE_RIGHT, Op.MUL_HI, Op.MIN, Op.MAX})
#: opcodes that may fault, and so carry an infopoint
FAULTING = frozenset({Op.DIV, Op.REM, Op.LOAD, Op.STORE, Op.ATOMIC_ADD, Op.ATOMIC, Op.FAIL,
                      Op.CVT_FI, Op.CVT_DI, Op.CHECK_INDEX})
#: opcodes with an infopoint: where a lane can leave the machine for the host
INFOPOINTS = FAULTING | {Op.DEOPT, Op.ALLOC}
#: opcodes whose result depends on other lanes of the wave
WAVE_OPS = frozenset({Op.SET_INACTIVE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR,
                      Op.WWM_AND, Op.WWM_BALLOT, Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL,
                      Op.READFIRST, Op.SHUFFLE, Op.WWM_FMIN, Op.WWM_FMAX})
#: opcodes a lane cannot run alone: the host cannot finish a lane past one (no forced
#: deopt or speculation where one is reachable): the wave operations, and a barrier (the
#: rest of the group would wait for a lane that runs on the host after the launch)
CONVERGENT = WAVE_OPS | {Op.BARRIER}
#: opcodes whose destination is a vector register
WRITES_VREG = frozenset(
    {Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR,
     Op.CMP_EQ, Op.CMP_NE, Op.CMP_LT, Op.CMP_LE, Op.CMP_GT, Op.CMP_GE, Op.NEG, Op.NOT,
     Op.LNOT, Op.WRAP, Op.MOV, Op.MOVI, Op.PARAM, Op.LANEID, Op.GID, Op.WAVEID,
     Op.LOCALID, Op.GROUPID, Op.GROUPSIZE, Op.LOCALBASE, Op.LOAD,
     Op.LEN, Op.ALLOC, Op.SET_INACTIVE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR, Op.WWM_AND,
     Op.WWM_BALLOT, Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL, Op.READFIRST, Op.SHUFFLE, Op.RELOAD,
     Op.FADD, Op.FSUB, Op.FMUL, Op.FFMA, Op.FMIN, Op.FMAX, Op.FCMP_EQ, Op.FCMP_NE,
     Op.FCMP_LT, Op.FCMP_LE, Op.FCMP_GT, Op.FCMP_GE, Op.CVT_IF, Op.CVT_FI, Op.WWM_FMIN,
     Op.WWM_FMAX, Op.CVT_ID, Op.CVT_FD, Op.CVT_DF, Op.CVT_DI, Op.SELECT, Op.BALLOT_FN,
     Op.ATOMIC}
    | INT_FUNCTIONS_A | INT_FUNCTIONS_AB
)
#: the uniform values lowering may write to all lanes (`uniform_writes=all_lanes`)
UNIFORM_VALUES = frozenset({Op.MOVI, Op.PARAM, Op.WAVEID, Op.GROUPID, Op.GROUPSIZE,
                            Op.LOCALBASE})
#: opcodes that always write every lane of their destination, whatever `wm` says
ALWAYS_ALL_LANES = frozenset(
    {Op.SET_INACTIVE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR, Op.WWM_AND,
     Op.WWM_BALLOT, Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL, Op.WWM_FMIN, Op.WWM_FMAX}
)
#: the f32 NaN every F op writes (and SET_INACTIVE's identity for WWM_FMIN / WWM_FMAX)
NAN_BITS = 0x7FC00000
#: the f64 NaN (SET_INACTIVE's identity for an f64 WWM_FMIN / WWM_FMAX)
NAN64_BITS = 0x7FF8000000000000
