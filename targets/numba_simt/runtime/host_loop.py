"""The host's loop, compiled with numba: the one place that says what host code does.

It finishes deopted workitems and runs never-ran waves on the host (trampoline.py drives
it). It runs the host code (`HostCode`: before speculation and register allocation,
decoded by trampoline.py into rows of this module's columns) over one wave: `regs[lane,
vreg]`, the mask registers as words of lane bits, a trip count per lane. A run owns some
of the wave's lanes (`S_OWNED`): a resumed workitem's lane alone, or a never-ran wave's
workitems. An instruction that writes every lane writes the run's `S_EVERY` lanes: the
resumed lane, or all W lanes of a whole wave (lanes past n too, as on the machine: whole-
wave code reads them). A wave operation reads all W lanes: in a resume the others hold 0.

It returns to Python only for what Python owns:

- `AT_ALLOC`: a lane (`S_LANE`) reached an `alloc()` of a valid size (`S_ARG`): the pool
  allocates (and may move, relocating what the host holds), Python writes the reference
  into the lane's register, and the loop goes on at the same ALLOC with the next lane;
- `DONE` (HALT, or every owned lane returned or faulted: nothing it runs after that
  shows), `OUT_OF_BUDGET` (`S_LANE` ran past its loop-trip budget), and the internal
  errors (`ERR_*`, never a fault).

A fault is final on the host: the lane leaves EXEC and ALIVE and its fault is recorded in
`faults` (lane, one past the faulting instruction, a fail()'s code), in the order raised.

Integers are int64 and wrap: every result is reduced to its width (`_wrap`), the same
number for any int64 input because 2**w divides 2**64; a truncated division is computed
without the overflow of abs(-2**63), and its wrap is explicit. The frame layout is the
machine's (machine.py writes the frames): callers pass it in (`layout`), so this file's
cached machine code never bakes in another file's numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..device.fma64 import fma64

# a code row: kind, every, d, a, b, c, imm, ip, op (an A_ or V_ code), width, and the
# opcode (isa.Op)
C_KIND, C_EVERY, C_D, C_A, C_B, C_C, C_IMM, C_IP, C_OP, C_WIDTH, C_OPCODE = range(11)
CODE_WIDTH = 11

# state: the loop's registers between calls (in and out)
(S_PC, S_STEPS, S_WAVE, S_BASE, S_OWNED, S_EVERY, S_LO, S_HI, S_ARG, S_LANE, S_ALLOCATED,
 S_FAULTS, S_DIRTY, S_GROUP) = range(14)
STATE_SIZE = 14
# S_LO, S_HI: the lanes [lo, hi) the run can touch; S_ALLOCATED: the lanes of the ALLOC
# under way already served; S_FAULTS: rows of `faults` used; S_DIRTY: the lanes whose
# registers may be nonzero (`resume_frames` clears them between resumes); S_GROUP: the
# launch's workgroup size G (kept by `start`)

# what the loop returns (S_ARG, S_LANE carry the detail named)
(DONE, AT_ALLOC, OUT_OF_BUDGET, ERR_OUTSIDE, ERR_STEPS, ERR_REF, ERR_CANNOT, ERR_PARAM,
 ERR_MEMORY) = range(9)
_RUNNING = -3
# what `resume_frames` stopped at, besides a status: a frame it would not start (a workitem
# or infopoint out of range, a start outside the code: Python reports it), or nothing (all
# done, or it stopped after a fault, as asked)
NOT_STARTED, PAUSED = -1, -2
# ERR_OUTSIDE: S_ARG = the pc; ERR_REF: S_ARG = the reference; ERR_CANNOT: S_ARG = the
# opcode; ERR_PARAM: S_ARG = the parameter index

# the handler kinds (trampoline.py decodes opcodes into them)
(K_BINARY, K_MOVI, K_SETEXEC, K_M_OR, K_GETEXEC, K_JZ_EXEC, K_MOV, K_CLEAR, K_FROMCOND,
 K_M_ANDN, K_LOAD, K_JMP, K_TRIP, K_LEN, K_UNARY, K_LANEID, K_GID, K_STORE, K_DIVREM,
 K_HALT, K_WAVE_OP, K_M_AND, K_WAVEID, K_KILL, K_PARAM, K_JZ_MASK, K_ALLOC, K_FAIL,
 K_LOCALID, K_GROUPID, K_GROUPSIZE, K_BARRIER, K_FMA, K_CVT, K_CANNOT, K_OUTSIDE, K_SELECT,
 K_CHECK_INDEX, K_FMA64, K_CVT64, K_BALLOT, K_RMW) = range(42)

_UNS = 256  # isa.UNSIGNED (literal: numba's cache keys on this file)
_U64 = 64 + _UNS
_MIN64 = -9223372036854775807 - 1

# the op column: arithmetic (K_BINARY, K_UNARY, K_DIVREM, K_STORE) and wave operations
(A_ADD, A_SUB, A_MUL, A_AND, A_OR, A_XOR, A_SHL, A_SHR, A_EQ, A_NE, A_LT, A_LE, A_GT, A_GE,
 A_NEG, A_NOT, A_LNOT, A_WRAP, A_DIV, A_REM, A_ATOMIC_ADD, V_SET_INACTIVE, V_SUM, V_MIN,
 V_MAX, V_OR, V_AND, V_BALLOT, V_SCAN_EXCL, V_SCAN_INCL, V_READFIRST, V_SHUFFLE,
 A_FADD, A_FSUB, A_FMUL, A_FMIN, A_FMAX, A_FEQ, A_FNE, A_FLT, A_FLE, A_FGT, A_FGE, A_CVT_IF,
 V_FMIN, V_FMAX, A_OTHER) = range(47)
# the integer functions (isa.Op.POPCOUNT ... ABS), after the rest
A_POPCOUNT, A_CLZ, A_CTZ, A_BIT_REVERSE, A_ROTL, A_ROTR, A_MUL_HI, A_MIN, A_MAX, A_ABS = \
    range(47, 57)
# f64: the F operations of an f64 (imm 64) are theirs shifted by F64_SHIFT, in the same
# order (A_FADD .. V_FMAX), then the conversions between f32 and f64
F64_SHIFT = 57 - A_FADD
(A_DADD, A_DSUB, A_DMUL, A_DMIN, A_DMAX, A_DEQ, A_DNE, A_DLT, A_DLE, A_DGT, A_DGE, A_CVT_ID,
 V_DMIN, V_DMAX, A_CVT_FD, A_CVT_DF) = range(57, 73)

# `layout`: where a frame keeps the workitem, the infopoint, the trip count, and where its
# mask words start (machine.py's F_GID, F_IP, F_TRIPS, F_HEAD)
L_GID, L_IP, L_TRIPS, L_HEAD = range(4)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _wrap(x, k):  # type: ignore[no-untyped-def]
    """x reduced to kind k (isa.kind: a width, plus _UNS for an unsigned type): its low
    bits, two's complement, zero-extended for an unsigned kind."""
    w = k & 255
    if w >= 64:
        return x
    if k & _UNS:
        return x & ((np.int64(1) << w) - 1)
    half = np.int64(1) << (w - 1)
    return ((x + half) & ((np.int64(1) << w) - 1)) - half


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _tdiv(x, y):  # type: ignore[no-untyped-def]
    """x / y truncated toward zero (y != 0), wrapping at -2**63 / -1 as 64 bits do."""
    if y == -1:
        return -x
    q = x // y  # floor
    if q * y != x and (x < 0) != (y < 0):
        q += 1
    return q


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _find(bufs, ref):  # type: ignore[no-untyped-def]
    """The row of `bufs` (sorted by base) whose base is `ref`, or -1."""
    lo, hi = 0, bufs.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if bufs[mid, 0] < ref:
            lo = mid + 1
        else:
            hi = mid
    if lo < bufs.shape[0] and bufs[lo, 0] == ref:
        return lo
    return -1


# f32: the host's own arithmetic (machine.py's is another): a register's bits seen as a
# numpy float32 through a one-element array, numba's float32 operations (binary32's,
# rounded to nearest even), and the bits written back with every NaN the one quiet NaN

_NAN_BITS = 0x7FC00000
_NAN64_BITS = 0x7FF8000000000000


@njit(cache=True, nogil=True, error_model="numpy")
def _f(v):  # type: ignore[no-untyped-def]
    """The f32 whose bits the register value v holds."""
    box = np.empty(1, dtype=np.int32)
    box[0] = v
    return box.view(np.float32)[0]


@njit(cache=True, nogil=True, error_model="numpy")
def _bits(x):  # type: ignore[no-untyped-def]
    """The register value of the float32 x."""
    if x != x:
        return np.int64(_NAN_BITS)
    box = np.empty(1, dtype=np.float32)
    box[0] = x
    return np.int64(box.view(np.int32)[0])


@njit(cache=True, nogil=True, error_model="numpy")
def _from_int(x):  # type: ignore[no-untyped-def]
    """f32(x): x rounded to 24 significant bits, ties to even, by integer arithmetic."""
    if x == 0:
        return np.float32(0.0)
    if x == -9223372036854775807 - 1:
        return np.float32(-9223372036854775808.0)
    a = -x if x < 0 else x
    k = 0
    while (a >> k) >= 16777216:
        k += 1
    q = a >> k
    if k > 0:
        rest = a - (q << k)
        half = np.int64(1) << (k - 1)
        if rest > half or (rest == half and q & 1 == 1):
            q += 1
    r = np.float32(np.float64(q) * 2.0 ** k)  # exact: q <= 2^24
    return -r if x < 0 else r


@njit(cache=True, nogil=True, error_model="numpy")
def _from_u64(x):  # type: ignore[no-untyped-def]
    """f32 of the u64 whose bits are x, as `_from_int` (on its unsigned value)."""
    if x >= 0:
        return _from_int(x)
    a = np.uint64(x)
    k = 0
    while (a >> np.uint64(k)) >= np.uint64(16777216):
        k += 1
    q = a >> np.uint64(k)
    rest = a - (q << np.uint64(k))
    half = np.uint64(1) << np.uint64(k - 1)
    if rest > half or (rest == half and q & np.uint64(1) == np.uint64(1)):
        q += np.uint64(1)
    return np.float32(np.float64(q) * 2.0 ** k)  # exact: q <= 2^24


@njit(cache=True, nogil=True, error_model="numpy")
def _fma(x, y, z):  # type: ignore[no-untyped-def]
    """x * y + z rounded once: the float64 product is exact; the float64 sum is made odd
    in its last bit where it is inexact (so the final rounding to float32 sees which side
    of a tie the exact sum lies on)."""
    p = np.float64(x) * np.float64(y)
    s = p + np.float64(z)
    if np.isfinite(s) and np.isfinite(p):
        bp = s - p
        err = (p - (s - bp)) + (np.float64(z) - bp)
        if err != 0.0:  # round to odd: of s and its neighbour toward the exact sum
            box = np.empty(1, dtype=np.float64)
            box[0] = s
            if box.view(np.int64)[0] & 1 == 0:
                s = np.nextafter(s, np.inf if err > 0.0 else -np.inf)
    return np.float32(s)


@njit(cache=True, nogil=True, error_model="numpy")
def _ballot_fn(fn, b, lane, W):  # type: ignore[no-untyped-def]
    """isa.BALLOT_FN: function `fn` (bit count, inclusive and exclusive count, find_lsb,
    find_msb, inverse) of the wave's W bits of b for `lane`, in plain loops (machine.py
    computes it another way); a find of no bit is -1."""
    m = b
    if W < 64:
        m &= (np.int64(1) << W) - 1
    if fn == 5:
        return (m >> lane) & 1
    top = 64 if fn == 0 else lane + 1 if fn == 1 else lane if fn == 2 else 64
    count = np.int64(0)
    first = np.int64(-1)
    last = np.int64(-1)
    for i in range(top):
        if (m >> i) & 1:
            count += 1
            if first < 0:
                first = i
            last = i
    return count if fn <= 2 else first if fn == 3 else last


@njit(cache=True, nogil=True, error_model="numpy")
def _d(v):  # type: ignore[no-untyped-def]
    """The f64 whose bits the register value v holds."""
    box = np.empty(1, dtype=np.int64)
    box[0] = v
    return box.view(np.float64)[0]


@njit(cache=True, nogil=True, error_model="numpy")
def _dbits(x):  # type: ignore[no-untyped-def]
    """The register value of the float64 x (every NaN the one quiet NaN)."""
    if x != x:
        return np.int64(_NAN64_BITS)
    box = np.empty(1, dtype=np.float64)
    box[0] = x
    return box.view(np.int64)[0]


@njit(cache=True, nogil=True, error_model="numpy")
def _dpick(x, y, smaller):  # type: ignore[no-untyped-def]
    """min / max of two f64 register values, as `_pick`."""
    fx = _d(x)
    fy = _d(y)
    if fx != fx:
        return _dbits(fy)
    if fy != fy:
        return _dbits(fx)
    if fx == fy:
        return min(x, y) if smaller else max(x, y)
    return x if (fx < fy) == smaller else y


@njit(cache=True, nogil=True, error_model="numpy")
def _double_arith(op, x, y, k):  # type: ignore[no-untyped-def]
    if op == A_DADD:
        return _dbits(_d(x) + _d(y))
    if op == A_DSUB:
        return _dbits(_d(x) - _d(y))
    if op == A_DMUL:
        return _dbits(_d(x) * _d(y))
    if op == A_DMIN or op == A_DMAX:
        return _dpick(x, y, op == A_DMIN)
    if op == A_CVT_ID:
        return _dbits(np.float64(np.uint64(x)) if k == _U64 else np.float64(x))
    if op == A_CVT_FD:
        return _dbits(np.float64(_f(x)))
    if op == A_CVT_DF:
        return _bits(np.float32(_d(x)))
    fx = _d(x)
    fy = _d(y)
    if op == A_DEQ:
        t = fx == fy
    elif op == A_DNE:
        t = fx != fy
    elif op == A_DLT:
        t = fx < fy
    elif op == A_DLE:
        t = fx <= fy
    elif op == A_DGT:
        t = fx > fy
    else:
        t = fx >= fy
    return np.int64(1) if t else np.int64(0)


@njit(cache=True, nogil=True, error_model="numpy")
def _pick(x, y, smaller):  # type: ignore[no-untyped-def]
    """min / max of two f32 register values: a NaN loses to a number, -0.0 < +0.0."""
    fx = _f(x)
    fy = _f(y)
    if fx != fx:
        return _bits(fy)
    if fy != fy:
        return _bits(fx)
    if fx == fy:  # equal: only zeros can differ (in their sign bit)
        return min(x, y) if smaller else max(x, y)  # as signed bits: -0.0 is negative
    return x if (fx < fy) == smaller else y


@njit(cache=True, nogil=True, error_model="numpy")
def _int_function(op, x, y, k):  # type: ignore[no-untyped-def]
    """An integer function (docs/semantics.md, "Bit operations") of one lane's values of
    kind k, on Python's exact integers' rules spelled in int64 (machine.py computes the
    same with LLVM's bit intrinsics: two implementations, checked against each other by
    every case a deopt replays on the host)."""
    w = k & 255
    uns = (k & _UNS) != 0
    mask = np.int64(-1) if w == 64 else (np.int64(1) << w) - 1
    u = x & mask
    r = np.int64(0)
    if op == A_POPCOUNT or op == A_CLZ or op == A_CTZ or op == A_BIT_REVERSE:
        count = np.int64(0)
        lead = np.int64(-1)  # the highest set bit
        trail = np.int64(-1)  # the lowest
        for i in range(w):
            if (u >> i) & 1:
                count += 1
                lead = np.int64(i)
                if trail < 0:
                    trail = np.int64(i)
                if op == A_BIT_REVERSE:
                    r |= np.int64(1) << (w - 1 - i)
        if op == A_POPCOUNT:
            r = count
        elif op == A_CLZ:
            r = w - 1 - lead
        elif op == A_CTZ:
            r = np.int64(w) if trail < 0 else trail
    elif op == A_ROTL or op == A_ROTR:
        s = y & (w - 1)
        if op == A_ROTR:
            s = (w - s) & (w - 1)
        r = u if s == 0 else ((u << s) | np.int64(np.uint64(u) >> np.uint64(w - s))) & mask
    elif op == A_MUL_HI:  # 64 x 64 from 16-bit digits, then the sign corrections
        ux = np.uint64(x) & np.uint64(mask)
        uy = np.uint64(y) & np.uint64(mask)
        digits = np.zeros(8, dtype=np.uint64)
        for i in range(4):
            carry = np.uint64(0)
            for j in range(4):
                t = (digits[i + j] + ((ux >> np.uint64(16 * i)) & np.uint64(0xFFFF))
                     * ((uy >> np.uint64(16 * j)) & np.uint64(0xFFFF)) + carry)
                digits[i + j] = t & np.uint64(0xFFFF)
                carry = t >> np.uint64(16)
            digits[i + 4] += carry
        hi = np.uint64(0)  # bits w .. w + 63 of the unsigned product
        for i in range(8):
            at = 16 * i - w
            if -16 < at < 64:
                hi |= (digits[i] << np.uint64(at)) if at >= 0 else (digits[i] >> np.uint64(-at))
        r = np.int64(hi)
        if not uns:  # the signed product: subtract y * 2^w for x < 0, x * 2^w for y < 0
            r -= (y if x < 0 else np.int64(0)) + (x if y < 0 else np.int64(0))
    elif op == A_MIN or op == A_MAX:
        flip = _MIN64 if k == _U64 else np.int64(0)
        a = x ^ flip
        b = y ^ flip
        r = (min(a, b) if op == A_MIN else max(a, b)) ^ flip
    else:  # A_ABS
        r = x if uns or x >= 0 else -x
    return _wrap(r, k)


@njit(cache=True, nogil=True, error_model="numpy")
def arith(op, x, y, k):  # type: ignore[no-untyped-def]
    """An A_ operation on one lane's values of kind k (unary ones ignore y)."""
    w = k & 255
    if op >= A_DADD:
        return _double_arith(op, x, y, k)
    if op >= A_POPCOUNT:
        return _int_function(op, x, y, k)
    if op >= A_FADD:
        if op == A_CVT_IF and k == _U64:
            return _bits(_from_u64(x))
        return _float_arith(op, x, y)
    if k == _U64:  # the operations where a u64 is not its bits read as signed
        if op == A_SHR:
            return np.int64(np.uint64(x) >> np.uint64(y & 63))
        if op == A_LT or op == A_LE or op == A_GT or op == A_GE:
            x ^= _MIN64  # the unsigned order, as signed
            y ^= _MIN64
        if op == A_DIV or op == A_REM:  # y != 0
            q = np.uint64(x) // np.uint64(y)
            return np.int64(q if op == A_DIV else np.uint64(x) - q * np.uint64(y))
    if op == A_ADD:
        return _wrap(x + y, k)
    if op == A_SUB:
        return _wrap(x - y, k)
    if op == A_MUL:
        return _wrap(x * y, k)
    if op == A_AND:
        return x & y
    if op == A_OR:
        return x | y
    if op == A_XOR:
        return x ^ y
    if op == A_SHL:
        return _wrap(x << (y & (w - 1)), k)
    if op == A_SHR:  # arithmetic; a narrower unsigned value is >= 0: logical alike
        return _wrap(x >> (y & (w - 1)), k)
    if op == A_EQ:
        return np.int64(1) if x == y else np.int64(0)
    if op == A_NE:
        return np.int64(1) if x != y else np.int64(0)
    if op == A_LT:
        return np.int64(1) if x < y else np.int64(0)
    if op == A_LE:
        return np.int64(1) if x <= y else np.int64(0)
    if op == A_GT:
        return np.int64(1) if x > y else np.int64(0)
    if op == A_GE:
        return np.int64(1) if x >= y else np.int64(0)
    if op == A_NEG:
        return _wrap(-x, k)
    if op == A_NOT:
        return _wrap(~x, k)
    if op == A_LNOT:
        return 1 - x
    if op == A_DIV or op == A_REM:  # y != 0 (an unsigned kind's values are >= 0 here)
        q = _tdiv(x, y)
        return _wrap(q if op == A_DIV else x - q * y, k)
    return _wrap(x, k)  # A_WRAP


@njit(cache=True, nogil=True, error_model="numpy")
def _float_arith(op, x, y):  # type: ignore[no-untyped-def]
    if op == A_FADD:
        return _bits(_f(x) + _f(y))
    if op == A_FSUB:
        return _bits(_f(x) - _f(y))
    if op == A_FMUL:
        return _bits(_f(x) * _f(y))
    if op == A_FMIN or op == A_FMAX:
        return _pick(x, y, op == A_FMIN)
    if op == A_CVT_IF:
        return _bits(_from_int(x))
    fx = _f(x)
    fy = _f(y)
    if op == A_FEQ:
        t = fx == fy
    elif op == A_FNE:
        t = fx != fy
    elif op == A_FLT:
        t = fx < fy
    elif op == A_FLE:
        t = fx <= fy
    elif op == A_FGT:
        t = fx > fy
    else:
        t = fx >= fy
    return np.int64(1) if t else np.int64(0)


@njit(cache=True, nogil=True, error_model="numpy")
def _fault(faults, state, masks, lane, pc, code, exec_, alive):  # type: ignore[no-untyped-def]
    """A lane faults: recorded, and out of EXEC and ALIVE for good."""
    k = state[S_FAULTS]
    faults[k, 0] = lane
    faults[k, 1] = pc
    faults[k, 2] = code
    state[S_FAULTS] = k + 1
    bit = np.int64(1) << lane
    masks[exec_] &= ~bit
    masks[alive] &= ~bit


@njit(cache=True, nogil=True, error_model="numpy")
def _wave_op(op, regs, d, a, b, imm, write, ex, lo, hi):  # type: ignore[no-untyped-def]
    """The operations that read other lanes (`write`: the lanes an ordinary write covers;
    the whole-wave ones write all W lanes)."""
    W = regs.shape[0]
    if op == V_SET_INACTIVE:
        for lane in range(W):
            regs[lane, d] = regs[lane, a] if (ex >> lane) & 1 else imm
    elif op == V_SCAN_EXCL or op == V_SCAN_INCL:
        running = np.int64(0)
        for lane in range(W):
            x = regs[lane, a]
            if op == V_SCAN_INCL:
                running += x
                regs[lane, d] = _wrap(running, imm)
            else:
                regs[lane, d] = _wrap(running, imm)
                running += x
    elif op == V_READFIRST:
        if ex != 0:
            first = 0
            while not (ex >> first) & 1:
                first += 1
            x = regs[first, a]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = x
    elif op == V_SHUFFLE:
        gathered = np.zeros(W, dtype=np.int64)
        for lane in range(W):
            i = regs[lane, b]
            if 0 <= i < W:
                gathered[lane] = regs[i, a]
        for lane in range(lo, hi):
            if (write >> lane) & 1:
                regs[lane, d] = gathered[lane]
    else:  # a reduction to one value, in every lane
        t = regs[0, a]
        if op == V_SUM:
            for lane in range(1, W):
                t += regs[lane, a]
            t = _wrap(t, imm)
        elif op == V_MIN or op == V_MAX:
            flip = np.int64(_MIN64) if imm == _U64 else np.int64(0)  # a u64's order
            t ^= flip
            for lane in range(1, W):
                x = regs[lane, a] ^ flip
                t = min(t, x) if op == V_MIN else max(t, x)
            t ^= flip
        elif op == V_FMIN or op == V_FMAX:
            for lane in range(1, W):
                t = _pick(t, regs[lane, a], op == V_FMIN)
        elif op == V_DMIN or op == V_DMAX:
            for lane in range(1, W):
                t = _dpick(t, regs[lane, a], op == V_DMIN)
        elif op == V_OR or op == V_AND:
            hits = 0
            for lane in range(W):
                if regs[lane, a] != 0:
                    hits += 1
            t = np.int64(1) if (hits > 0 if op == V_OR else hits == W) else np.int64(0)
        else:  # V_BALLOT
            t = np.int64(0)
            for lane in range(W):
                if regs[lane, a] != 0:
                    t |= np.int64(1) << lane
        for lane in range(W):
            regs[lane, d] = t


@njit(cache=True, nogil=True, error_model="numpy")
def _load(kind, regs, masks, state, faults, mem, bufs, d, a, b, pc, write, ex, lo, hi,
          exec_, alive):  # type: ignore[no-untyped-def]
    """LOAD / LEN: an inactive lane (a whole-wave write) reads 0 where an active one
    would fault or read an invalid reference."""
    for lane in range(lo, hi):
        if (write >> lane) & 1:
            active = (ex >> lane) & 1
            ref = regs[lane, a]
            r = _find(bufs, ref)
            if r < 0:
                if active:
                    state[S_ARG] = ref
                    return ERR_REF
                regs[lane, d] = 0
            elif kind == K_LEN:
                regs[lane, d] = bufs[r, 1]
            elif 0 <= regs[lane, b] < bufs[r, 1]:
                at = bufs[r, 0] + regs[lane, b]
                if at >= mem.shape[0]:
                    return ERR_MEMORY
                regs[lane, d] = mem[at]
            elif active:
                _fault(faults, state, masks, lane, pc, 0, exec_, alive)
            else:
                regs[lane, d] = 0
    return _RUNNING


@njit(cache=True, nogil=True, error_model="numpy")
def _store(op, regs, masks, state, faults, mem, bufs, a, b, c, pc, ex, lo, hi, exec_,
           alive):  # type: ignore[no-untyped-def]
    """STORE / ATOMIC_ADD (`op`), lane by lane, wrapped to the buffer's bits."""
    for lane in range(lo, hi):
        if (ex >> lane) & 1:
            ref = regs[lane, a]
            r = _find(bufs, ref)
            if r < 0:
                state[S_ARG] = ref
                return ERR_REF
            i = regs[lane, b]
            if not 0 <= i < bufs[r, 1]:
                _fault(faults, state, masks, lane, pc, 0, exec_, alive)
                continue
            at = bufs[r, 0] + i
            if at >= mem.shape[0]:
                return ERR_MEMORY
            v = regs[lane, c]
            if op == A_ATOMIC_ADD:
                v += mem[at]
            mem[at] = _wrap(v, bufs[r, 2])
    return _RUNNING


@njit(cache=True, nogil=True, error_model="numpy")
def _rmw(op, regs, masks, state, faults, mem, bufs, d, a, b, c, pc, ex, lo, hi, exec_,
         alive):  # type: ignore[no-untyped-def]
    """ATOMIC (isa.Op.ATOMIC; `op` nodes.ATOMIC_OPS' index), lane by lane: the old
    value into d, the location wrapped to the buffer's bits."""
    for lane in range(lo, hi):
        if (ex >> lane) & 1:
            ref = regs[lane, a]
            r = _find(bufs, ref)
            if r < 0:
                state[S_ARG] = ref
                return ERR_REF
            i = regs[lane, b]
            if not 0 <= i < bufs[r, 1]:
                _fault(faults, state, masks, lane, pc, 0, exec_, alive)
                continue
            at = bufs[r, 0] + i
            if at >= mem.shape[0]:
                return ERR_MEMORY
            k = bufs[r, 2]
            old = mem[at]
            mem[at] = _wrap(_rmw_value(op, old, regs[lane, c], regs[lane, d], k), k)
            regs[lane, d] = old
    return _RUNNING


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _rmw_value(op, old, v, compare, k):  # type: ignore[no-untyped-def]
    """What an atomic leaves, before wrapping: add, min, max, and, or, xor, exchange,
    compare_exchange (min and max of a u64 unsigned)."""
    if op == 0:
        return old + v
    if op == 1 or op == 2:
        if k == _U64:
            less = np.uint64(v) < np.uint64(old)
        else:
            less = v < old
        return (v if less else old) if op == 1 else (old if less or v == old else v)
    if op == 3:
        return old & v
    if op == 4:
        return old | v
    if op == 5:
        return old ^ v
    if op == 6:
        return v
    return v if old == compare else old


@njit(cache=True, nogil=True, error_model="numpy")
def _alloc(regs, masks, state, faults, a, pc, ex, lo, hi, alloc_max, exec_,
           alive):  # type: ignore[no-untyped-def]
    """ALLOC, one lane at a time in lane order (Python allocates): AT_ALLOC for the next
    lane asking a valid size; a size out of range faults the lane."""
    todo = ex & ~state[S_ALLOCATED]
    for lane in range(lo, hi):
        if (todo >> lane) & 1:
            state[S_ALLOCATED] |= np.int64(1) << lane
            if 0 <= regs[lane, a] <= alloc_max:
                state[S_LANE] = lane
                state[S_ARG] = regs[lane, a]
                return AT_ALLOC
            _fault(faults, state, masks, lane, pc, 0, exec_, alive)
    state[S_ALLOCATED] = 0
    return _RUNNING


@njit(cache=True, nogil=True, error_model="numpy")
def _mask_op(kind, masks, d, a, b, ex, exec_, alive):  # type: ignore[no-untyped-def]
    """The mask instructions (a write to EXEC keeps it within ALIVE)."""
    if kind == K_SETEXEC:
        masks[exec_] = masks[a] & masks[alive]
    elif kind == K_GETEXEC:
        masks[d] = ex
    elif kind == K_CLEAR:
        masks[d] = 0
    else:
        if kind == K_M_OR:
            t = masks[a] | masks[b]
        elif kind == K_M_ANDN:
            t = masks[a] & ~masks[b]
        else:
            t = masks[a] & masks[b]
        masks[d] = t & masks[alive] if d == exec_ else t


@njit(cache=True, nogil=True, error_model="numpy")
def run(code, regs, masks, trips, state, faults, mem, bufs, params, budget, step_limit,
        alloc_max, exec_, alive):  # type: ignore[no-untyped-def]
    """Run from state[S_PC] until the run returns to Python; returns the status.
    `exec_`, `alive`: the EXEC and ALIVE mask registers' numbers; `alloc_max`: the
    largest size an `alloc()` may ask for."""
    pc = state[S_PC]
    steps = state[S_STEPS]
    owned = state[S_OWNED]
    every_lane = state[S_EVERY]
    lo = state[S_LO]
    hi = state[S_HI]
    status = _RUNNING
    while status == _RUNNING:
        kind = code[pc, C_KIND]
        d = code[pc, C_D]
        a = code[pc, C_A]
        b = code[pc, C_B]
        imm = code[pc, C_IMM]
        pc += 1
        steps += 1
        if steps > step_limit:
            if kind == K_OUTSIDE:
                status = ERR_OUTSIDE
                state[S_ARG] = imm
            else:
                status = ERR_STEPS
            break
        ex = masks[exec_]
        write = every_lane if code[pc - 1, C_EVERY] != 0 else ex
        if kind == K_BINARY or kind == K_UNARY:
            op = code[pc - 1, C_OP]
            w = code[pc - 1, C_WIDTH]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = arith(op, regs[lane, a], regs[lane, b], w)
        elif kind == K_MOVI or kind == K_LANEID or kind == K_GID or kind == K_WAVEID:
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = (imm if kind == K_MOVI else lane if kind == K_LANEID
                                     else state[S_BASE] + lane if kind == K_GID
                                     else state[S_WAVE])
        elif kind == K_LOCALID or kind == K_GROUPID or kind == K_GROUPSIZE:
            group = state[S_GROUP]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    gid = state[S_BASE] + lane
                    regs[lane, d] = (gid % group if kind == K_LOCALID
                                     else gid // group if kind == K_GROUPID else group)
        elif (kind == K_SETEXEC or kind == K_M_OR or kind == K_M_ANDN or kind == K_M_AND
              or kind == K_GETEXEC or kind == K_CLEAR):
            _mask_op(kind, masks, d, a, b, ex, exec_, alive)
        elif kind == K_JZ_EXEC:
            if ex == 0:
                pc = imm
        elif kind == K_MOV:
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = regs[lane, a]
        elif kind == K_FROMCOND:
            cond = np.int64(0)
            for lane in range(lo, hi):
                if (ex >> lane) & 1 and regs[lane, a] != 0:
                    cond |= np.int64(1) << lane
            masks[d] = cond
        elif kind == K_LOAD or kind == K_LEN:
            status = _load(kind, regs, masks, state, faults, mem, bufs, d, a, b, pc, write,
                           ex, lo, hi, exec_, alive)
        elif kind == K_JMP:
            pc = imm
        elif kind == K_TRIP:
            for lane in range(lo, hi):
                if (ex >> lane) & 1:
                    trips[lane] += 1
                    if trips[lane] > budget:
                        status = OUT_OF_BUDGET
                        state[S_LANE] = lane
                        break
        elif kind == K_STORE:
            status = _store(code[pc - 1, C_OP], regs, masks, state, faults, mem, bufs, a, b,
                            code[pc - 1, C_C], pc, ex, lo, hi, exec_, alive)
        elif kind == K_RMW:
            status = _rmw(imm, regs, masks, state, faults, mem, bufs, d, a, b,
                          code[pc - 1, C_C], pc, ex, lo, hi, exec_, alive)
        elif kind == K_DIVREM:
            op = code[pc - 1, C_OP]
            w = code[pc - 1, C_WIDTH]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    if regs[lane, b] != 0:
                        regs[lane, d] = arith(op, regs[lane, a], regs[lane, b], w)
                    elif (ex >> lane) & 1:
                        _fault(faults, state, masks, lane, pc, 0, exec_, alive)
        elif kind == K_FMA:
            c = code[pc - 1, C_C]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = _bits(_fma(_f(regs[lane, a]), _f(regs[lane, b]),
                                               _f(regs[lane, c])))
        elif kind == K_BALLOT:  # lane-local, relative to the lane; of the wave's W bits
            W = regs.shape[0]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = _ballot_fn(imm, regs[lane, a], lane, W)
        elif kind == K_FMA64:
            c = code[pc - 1, C_C]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = _dbits(fma64(_d(regs[lane, a]), _d(regs[lane, b]),
                                                 _d(regs[lane, c])))
        elif kind == K_SELECT:
            c = code[pc - 1, C_C]
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    regs[lane, d] = regs[lane, b] if regs[lane, a] != 0 else regs[lane, c]
        elif kind == K_CHECK_INDEX:
            for lane in range(lo, hi):
                if (ex >> lane) & 1 and not 0 <= regs[lane, a] < imm:
                    _fault(faults, state, masks, lane, pc, 0, exec_, alive)
        elif kind == K_CVT or kind == K_CVT64:  # f32 (f64) -> an integer of kind w; NaN
            # and past it fault
            w = code[pc - 1, C_WIDTH]
            width = w & 255
            uns = w & _UNS
            low = 0.0 if uns else -(np.float64(2.0) ** (width - 1))
            high = np.float64(2.0) ** (width if uns else width - 1)
            for lane in range(lo, hi):
                if (write >> lane) & 1:
                    t = np.trunc(_d(regs[lane, a]) if kind == K_CVT64
                                 else np.float64(_f(regs[lane, a])))
                    if t == t and low <= t < high:
                        regs[lane, d] = (np.int64(np.uint64(t)) if uns and t >= 2.0 ** 62
                                         else np.int64(t))
                    elif (ex >> lane) & 1:
                        _fault(faults, state, masks, lane, pc, 0, exec_, alive)
                    else:
                        regs[lane, d] = 0
        elif kind == K_HALT:
            status = DONE
        elif kind == K_WAVE_OP:
            _wave_op(code[pc - 1, C_OP], regs, d, a, b, imm, write, ex, lo, hi)
            state[S_DIRTY] = -1  # every lane's registers
        elif kind == K_KILL:
            masks[alive] &= ~ex
            masks[exec_] = 0
        elif kind == K_PARAM:
            if write != 0:
                if not 0 <= imm < params.shape[0]:
                    status = ERR_PARAM
                    state[S_ARG] = imm
                    break
                for lane in range(lo, hi):
                    if (write >> lane) & 1:
                        regs[lane, d] = params[imm]
        elif kind == K_JZ_MASK:
            if masks[a] == 0:
                pc = imm
        elif kind == K_ALLOC:
            status = _alloc(regs, masks, state, faults, a, pc, ex, lo, hi, alloc_max, exec_,
                            alive)
            if status == AT_ALLOC:  # back at this ALLOC, counted once
                pc -= 1
                steps -= 1
        elif kind == K_FAIL:
            for lane in range(lo, hi):
                if (ex >> lane) & 1:
                    _fault(faults, state, masks, lane, pc, regs[lane, a], exec_, alive)
        elif kind == K_OUTSIDE:
            status = ERR_OUTSIDE
            state[S_ARG] = imm
        elif kind == K_BARRIER and ex == 0:
            pass  # whole-wave code passes a barrier its lanes left (a break, a return)
        else:
            status = ERR_CANNOT
            state[S_ARG] = code[pc - 1, C_OPCODE]
        if status == _RUNNING and masks[alive] & owned == 0:
            status = DONE  # every owned lane returned or faulted
    state[S_PC] = pc
    state[S_STEPS] = steps
    return status


@njit(cache=True, nogil=True, error_model="numpy")
def start(state, pc, gid_base, W, lo, hi, owned, every_lane):  # type: ignore[no-untyped-def]
    """A fresh run of the wave whose first workitem is `gid_base`, from `pc`."""
    dirty = state[S_DIRTY]
    group = state[S_GROUP]
    state[:] = 0
    state[S_GROUP] = group
    state[S_PC] = pc
    state[S_WAVE] = gid_base // W
    state[S_BASE] = gid_base
    state[S_LO] = lo
    state[S_HI] = hi
    state[S_OWNED] = owned
    state[S_EVERY] = every_lane
    state[S_DIRTY] = dirty | every_lane


@njit(cache=True, nogil=True, error_model="numpy")
def resume_frames(code, frames, first, layout, live, live_at, starts, rows, n, values, regs,
                  masks, trips, state, faults, mem, bufs, params, budget, step_limit,
                  alloc_max, exec_, alive, stop_after_fault, out):  # type: ignore[no-untyped-def]
    """Resume frames[first:] in order, for as long as each ends DONE: a frame's lane gets
    its live values `live[live_at[ip]:live_at[ip + 1]]` (vreg, position among the saved
    values, which start at column `values`), its mask bits and trip count from the frame,
    and runs (`run`) alone from `starts[ip]` (`rows`: the code's length before its
    sentinels; `n`: the launch's workitems); out[k] = (faulted, one past the faulting
    instruction, a fail()'s code) for frame k. Returns (k, status): k the first frame not
    finished here, with the status `run` stopped at (state, regs and masks as it left
    them); or NOT_STARTED: frame k names no workitem or infopoint of the launch, or a
    start outside the code (untouched); or PAUSED: all done, or stopped after a fault with
    `stop_after_fault`. One call serves a round's many resumes that end at once (a lane
    that faulted on the device faults again at its first instruction)."""
    W = regs.shape[0]
    for k in range(first, frames.shape[0]):
        gid = frames[k, layout[L_GID]]
        ip = frames[k, layout[L_IP]]
        if gid < 0 or gid >= n or ip < 0 or ip >= starts.shape[0]:
            return k, NOT_STARTED
        pc = starts[ip]
        if pc < 0 or pc >= rows:
            return k, NOT_STARTED
        dirty = state[S_DIRTY]
        for lane in range(W):
            if (dirty >> lane) & 1:
                regs[lane, :] = 0
        state[S_DIRTY] = 0
        lane = gid % W
        bit = np.int64(1) << lane
        start(state, pc, gid - lane, W, lane, lane + 1, bit, bit)
        for j in range(live_at[ip], live_at[ip + 1]):
            regs[lane, live[j, 0]] = frames[k, values + live[j, 1]]
        head = layout[L_HEAD]
        for j in range(masks.shape[0]):
            masks[j] = ((frames[k, head + j // 64] >> (j % 64)) & 1) << lane
        masks[exec_] = bit
        masks[alive] = bit
        trips[lane] = frames[k, layout[L_TRIPS]]
        status = run(code, regs, masks, trips, state, faults, mem, bufs, params, budget,
                     step_limit, alloc_max, exec_, alive)
        if status != DONE:
            return k, status
        faulted = state[S_FAULTS] > 0
        out[k, 0] = 1 if faulted else 0
        out[k, 1] = faults[0, 1]
        out[k, 2] = faults[0, 2]
        if faulted and stop_after_fault:
            return k + 1, PAUSED
    return frames.shape[0], PAUSED


@njit(cache=True, nogil=True, error_model="numpy")
def relocate(values, old, new):  # type: ignore[no-untyped-def]
    """In place: each value equal to old[m] becomes new[m] (one pass: a value moved is
    not moved again)."""
    for i in range(values.shape[0]):
        x = values[i]
        for m in range(old.shape[0]):
            if old[m] == x:
                values[i] = new[m]
                break


@njit(cache=True, nogil=True, error_model="numpy")
def relocate_frames(frames, bitmap, words, values, old, new):  # type: ignore[no-untyped-def]
    """Relocate, in place, the references the saved frames (rows) hold: each frame's
    `words` bitmap words from column `bitmap` mark which of its saved values (from column
    `values`) are references; a reference equal to old[m] becomes new[m]."""
    for r in range(frames.shape[0]):
        for w in range(words):
            word = frames[r, bitmap + w]
            for i in range(64):
                pos = values + w * 64 + i
                if (word >> i) & 1 and pos < frames.shape[1]:
                    relocate(frames[r, pos:pos + 1], old, new)


def warm_up() -> None:
    """Compile, or load from numba's on-disk cache, this module's functions."""
    code = np.array([[K_MOVI, 1, 0, 0, 0, 0, 7, -1, A_OTHER, 64, 0],
                     [K_HALT, 0, 0, 0, 0, 0, 0, -1, A_OTHER, 64, 0]], dtype=np.int64)
    regs = np.zeros((2, 1), dtype=np.int64)
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    out = np.zeros((1, 3), dtype=np.int64)
    frames = np.zeros((1, 6), dtype=np.int64)
    frames[0, 0] = 1  # workitem 1: lane 1 of wave 0
    stop, status = resume_frames(
        code, frames, 0, np.array([0, 1, 2, 3]), np.zeros((0, 2), dtype=np.int64),
        np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64), 2, 2, 5, regs,
        np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64), state,
        np.zeros((2, 3), dtype=np.int64), np.zeros(1, dtype=np.int64),
        np.zeros((0, 3), dtype=np.int64), np.zeros(1, dtype=np.int64), 1, 10, 1024, 0, 1,
        False, out)
    saved = np.array([[0, 0, 0, 0, 0b10, 5, 16]], dtype=np.int64)
    relocate_frames(saved, 4, 1, 5, np.array([16]), np.array([48]))
    assert (stop, status) == (1, PAUSED) and regs[1, 0] == 7 and saved[0, 6] == 48, (
        f"host loop warm-up failed: {stop} {status} {regs} {saved}")
