"""The host's one-lane loop, compiled with numba: finishes one deopted workitem.

A resume owns one lane of its wave, so every mask register is that lane's bit or empty
(held here as 1 or 0) and the lane's virtual registers are one int64 array. Most resumes
in the fuzz loop run most of a kernel on the host (every lane reaching an `alloc()`
deopts there), and interpreted in Python this loop was most of the fuzz loop's target
time; compiled, it runs the host code's instructions at machine speed and returns to
Python only for what Python owns (trampoline.py):

- `AT_ALLOC`: the lane reached an `alloc()` of a valid size: the pool allocates (and may
  move, relocating what the host holds), then the loop goes on after it;
- `AT_WAVE_OP`: an instruction that reads other lanes: the wave loop `_Wave.run` takes
  over at it, with the lane's registers made a wave's;
- `DONE` (HALT, or KILL: the lane returned), `FAULTED` (a fault is final on the host),
  `OUT_OF_BUDGET`, and the internal errors (`ERR_*`, never a fault).

It is the host's own code, as trampoline.py's wave loop is: it shares no code with the
machine (machine.py) and reads the host code (`HostCode`: before speculation and register
allocation), decoded by trampoline.py into `lane_code` rows. The wave loop and this loop
are one semantics, step for step (step count, fault order and errors included); the
tests run both on the same lanes.

Integers are int64 and wrap as the host's Python does: every result is reduced to its
width (`_wrap`), the same number for any int64 input because 2**w divides 2**64; a
truncated division is computed without the overflow of abs(-2**63), and its wrap is
explicit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# a lane_code row: kind, every, d, a, b, c, imm, ip, op (arithmetic: an A_ code), width,
# and the opcode (isa.Op)
C_KIND, C_EVERY, C_D, C_A, C_B, C_C, C_IMM, C_IP, C_OP, C_WIDTH, C_OPCODE = range(11)
LANE_CODE_WIDTH = 11

# state: the loop's registers between calls (in and out)
S_PC, S_STEPS, S_TRIPS, S_LANE, S_BASE, S_WAVE, S_ARG = range(7)
STATE_SIZE = 7

# what the loop returns (S_ARG carries the detail named)
(DONE, FAULTED, AT_ALLOC, AT_WAVE_OP, OUT_OF_BUDGET, ERR_OUTSIDE, ERR_STEPS, ERR_REF,
 ERR_CANNOT, ERR_PARAM, ERR_MEMORY) = range(11)
# what `resume_lanes` stopped at, besides a status: a frame it would not start (a workitem
# or infopoint out of range, a start outside the code: Python's resume reports it), or
# nothing (it stopped after a fault, as asked)
NOT_STARTED, PAUSED = -1, -2
# FAULTED: S_ARG = the fail() code (FAIL), S_PC = one past the faulting instruction;
# AT_ALLOC: S_ARG = the size, S_PC = one past the ALLOC; AT_WAVE_OP: S_PC = the wave op
# (not run, not counted); ERR_OUTSIDE: S_ARG = the pc; ERR_REF: S_ARG = the reference;
# ERR_CANNOT: S_ARG = the opcode; ERR_PARAM: S_ARG = the parameter index

# the handler kinds: trampoline.py's numbering (it imports them from here)
(K_BINARY, K_MOVI, K_SETEXEC, K_M_OR, K_GETEXEC, K_JZ_EXEC, K_MOV, K_CLEAR, K_FROMCOND,
 K_M_ANDN, K_LOAD, K_JMP, K_TRIP, K_LEN, K_UNARY, K_LANEID, K_GID, K_STORE, K_DIVREM,
 K_HALT, K_WAVE_OP, K_M_AND, K_WAVEID, K_KILL, K_PARAM, K_JZ_MASK, K_ALLOC, K_FAIL,
 K_CANNOT, K_OUTSIDE) = range(30)

# arithmetic, by operation (the op column of a K_BINARY / K_UNARY / K_DIVREM row)
(A_ADD, A_SUB, A_MUL, A_AND, A_OR, A_XOR, A_SHL, A_SHR, A_EQ, A_NE, A_LT, A_LE, A_GT, A_GE,
 A_NEG, A_NOT, A_LNOT, A_WRAP, A_DIV, A_REM, A_ATOMIC_ADD, A_OTHER) = range(22)

# machine.py's frame layout, mirrored as plain numbers (the host does not import the
# machine): gid, reason, infopoint, trip count, then the mask words
F_GID, F_REASON, F_IP, F_TRIPS, F_HEAD = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _wrap(x, w):  # type: ignore[no-untyped-def]
    """x reduced to a w-bit two's-complement value (1 <= w <= 64)."""
    if w >= 64:
        return x
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


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _arith(op, x, y, w):  # type: ignore[no-untyped-def]
    if op == A_ADD:
        return _wrap(x + y, w)
    if op == A_SUB:
        return _wrap(x - y, w)
    if op == A_MUL:
        return _wrap(x * y, w)
    if op == A_AND:
        return x & y
    if op == A_OR:
        return x | y
    if op == A_XOR:
        return x ^ y
    if op == A_SHL:
        return _wrap(x << (y & (w - 1)), w)
    if op == A_SHR:
        return _wrap(x >> (y & (w - 1)), w)
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
        return _wrap(-x, w)
    if op == A_NOT:
        return _wrap(~x, w)
    if op == A_LNOT:
        return 1 - x
    return _wrap(x, w)  # A_WRAP


@njit(cache=True, nogil=True, error_model="numpy")
def load_frame(frame, live, values, vals, masks):  # type: ignore[no-untyped-def]
    """A resumed lane's registers and masks from its frame: `live` rows (vreg, position
    among the frame's saved values, which start at `values`); mask j is bit j of the
    head words. Returns the lane's trip count."""
    for k in range(live.shape[0]):
        vals[live[k, 0]] = frame[values + live[k, 1]]
    for j in range(masks.shape[0]):
        masks[j] = (frame[F_HEAD + j // 64] >> (j % 64)) & 1
    return frame[F_TRIPS]


@njit(cache=True, nogil=True, error_model="numpy")
def run_lane(code, vals, masks, state, mem, bufs, params, budget, step_limit, exec_,
             alive):  # type: ignore[no-untyped-def]
    """Run one lane from state[S_PC] until it returns to Python; returns the status.
    `exec_`, `alive`: the EXEC and ALIVE mask registers' numbers."""
    pc = state[S_PC]
    steps = state[S_STEPS]
    trips = state[S_TRIPS]
    lane = state[S_LANE]
    status = DONE
    while True:
        kind = code[pc, C_KIND]
        every = code[pc, C_EVERY]
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
        on = every != 0 or ex != 0
        if kind == K_BINARY:
            if on:
                vals[d] = _arith(code[pc - 1, C_OP], vals[a], vals[b], code[pc - 1, C_WIDTH])
        elif kind == K_MOVI:
            if on:
                vals[d] = imm
        elif kind == K_SETEXEC:
            masks[exec_] = masks[a] & masks[alive]
        elif kind == K_M_OR or kind == K_M_ANDN or kind == K_M_AND:
            if kind == K_M_OR:
                t = masks[a] | masks[b]
            elif kind == K_M_ANDN:
                t = masks[a] & ~masks[b]
            else:
                t = masks[a] & masks[b]
            masks[d] = t & masks[alive] if d == exec_ else t
        elif kind == K_GETEXEC:
            masks[d] = ex
        elif kind == K_JZ_EXEC:
            if ex == 0:
                pc = imm
        elif kind == K_MOV:
            if on:
                vals[d] = vals[a]
        elif kind == K_CLEAR:
            masks[d] = 0
        elif kind == K_FROMCOND:
            masks[d] = ex if ex != 0 and vals[a] != 0 else 0
        elif kind == K_LOAD or kind == K_LEN:
            if on:
                ref = vals[a]
                r = _find(bufs, ref)
                if r < 0:
                    if ex != 0:
                        status = ERR_REF
                        state[S_ARG] = ref
                        break
                    vals[d] = 0
                elif kind == K_LEN:
                    vals[d] = bufs[r, 1]
                elif 0 <= vals[b] < bufs[r, 1]:
                    at = bufs[r, 0] + vals[b]
                    if at >= mem.shape[0]:
                        status = ERR_MEMORY
                        break
                    vals[d] = mem[at]
                elif ex != 0:
                    status = FAULTED
                    break
                else:
                    vals[d] = 0
        elif kind == K_JMP:
            pc = imm
        elif kind == K_TRIP:
            if ex != 0:
                trips += 1
                if trips > budget:
                    status = OUT_OF_BUDGET
                    break
        elif kind == K_UNARY:
            if on:
                vals[d] = _arith(code[pc - 1, C_OP], vals[a], 0, code[pc - 1, C_WIDTH])
        elif kind == K_LANEID:
            if on:
                vals[d] = lane
        elif kind == K_GID:
            if on:
                vals[d] = state[S_BASE] + lane
        elif kind == K_STORE:
            if ex != 0:
                ref = vals[a]
                r = _find(bufs, ref)
                if r < 0:
                    status = ERR_REF
                    state[S_ARG] = ref
                    break
                i = vals[b]
                if not 0 <= i < bufs[r, 1]:
                    status = FAULTED
                    break
                at = bufs[r, 0] + i
                if at >= mem.shape[0]:
                    status = ERR_MEMORY
                    break
                v = vals[code[pc - 1, C_C]]
                if code[pc - 1, C_OP] == A_ATOMIC_ADD:
                    v += mem[at]
                mem[at] = _wrap(v, bufs[r, 2])
        elif kind == K_DIVREM:
            if on:
                x = vals[a]
                y = vals[b]
                if y == 0:
                    if ex != 0:
                        status = FAULTED
                        break
                else:
                    q = _tdiv(x, y)
                    w = code[pc - 1, C_WIDTH]
                    vals[d] = _wrap(q if code[pc - 1, C_OP] == A_DIV else x - q * y, w)
        elif kind == K_HALT:
            break
        elif kind == K_WAVE_OP:
            pc -= 1
            steps -= 1
            status = AT_WAVE_OP
            break
        elif kind == K_WAVEID:
            if on:
                vals[d] = state[S_WAVE]
        elif kind == K_KILL:
            if ex != 0:
                break  # the lane returned: nothing it runs after this shows
        elif kind == K_PARAM:
            if on:
                if not 0 <= imm < params.shape[0]:
                    status = ERR_PARAM
                    state[S_ARG] = imm
                    break
                vals[d] = params[imm]
        elif kind == K_JZ_MASK:
            if masks[a] == 0:
                pc = imm
        elif kind == K_ALLOC:
            if ex != 0:
                state[S_ARG] = vals[a]
                status = AT_ALLOC
                break
        elif kind == K_FAIL:
            if ex != 0:
                state[S_ARG] = vals[a]
                status = FAULTED
                break
        elif kind == K_OUTSIDE:
            status = ERR_OUTSIDE
            state[S_ARG] = imm
            break
        else:
            status = ERR_CANNOT
            state[S_ARG] = code[pc - 1, C_OPCODE]
            break
    state[S_PC] = pc
    state[S_STEPS] = steps
    state[S_TRIPS] = trips
    return status


@njit(cache=True, nogil=True, error_model="numpy")
def resume_lanes(code, frames, first, live, live_at, starts, rows, values, nvregs, nmasks,
                 n, W, mem, bufs, params, budget, step_limit, exec_, alive,
                 stop_after_fault, out):  # type: ignore[no-untyped-def]
    """Resume frames[first:] in order, for as long as each ends DONE or FAULTED: a
    frame's lane gets its registers and masks from the frame (`load_frame`, its live
    values `live[live_at[ip]:live_at[ip + 1]]`; EXEC and ALIVE its bit), then runs
    (`run_lane`) from `starts[ip]`; out[k] = (status, S_PC, S_ARG) for frame k. Returns
    (k, status, vals, masks, state): k the first frame not finished here, with the
    status it stopped at and what `run_lane` goes on from (or NOT_STARTED: a frame naming
    no workitem or infopoint of the launch, or a start outside the code, untouched;
    PAUSED: after the first fault, with `stop_after_fault`, or all done). Most resumes
    end at once (a faulting lane faults again): one call for them all, instead of a call
    and its Python bookkeeping each."""
    vals = np.zeros(max(1, nvregs), dtype=np.int64)
    masks = np.zeros(nmasks, dtype=np.int64)
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    for k in range(first, frames.shape[0]):
        gid = frames[k, F_GID]
        ip = frames[k, F_IP]
        if gid < 0 or gid >= n or ip < 0 or ip >= starts.shape[0]:
            return k, NOT_STARTED, vals, masks, state
        pc = starts[ip]
        if pc < 0 or pc >= rows:
            return k, NOT_STARTED, vals, masks, state
        vals[:] = 0
        state[:] = 0
        state[S_TRIPS] = load_frame(frames[k], live[live_at[ip]:live_at[ip + 1]], values,
                                    vals, masks)
        masks[exec_] = 1
        masks[alive] = 1
        state[S_PC] = pc
        state[S_LANE] = gid % W
        state[S_BASE] = gid - gid % W
        state[S_WAVE] = gid // W
        status = run_lane(code, vals, masks, state, mem, bufs, params, budget, step_limit,
                          exec_, alive)
        if status != DONE and status != FAULTED:
            return k, status, vals, masks, state
        out[k, 0] = status
        out[k, 1] = state[S_PC]
        out[k, 2] = state[S_ARG]
        if status == FAULTED and stop_after_fault:
            return k + 1, PAUSED, vals, masks, state
    return frames.shape[0], PAUSED, vals, masks, state


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
                    x = frames[r, pos]
                    for m in range(old.shape[0]):
                        if old[m] == x:
                            frames[r, pos] = new[m]
                            break


def warm_up() -> None:
    """Compile, or load from numba's on-disk cache, this module's functions."""
    code = np.array([[K_MOVI, 1, 0, 0, 0, 0, 7, -1, A_OTHER, 64, 0],
                     [K_HALT, 0, 0, 0, 0, 0, 0, -1, A_OTHER, 64, 0]], dtype=np.int64)
    frame = np.zeros(8, dtype=np.int64)
    out = np.zeros((1, 3), dtype=np.int64)
    _, _, vals, _, _ = resume_lanes(
        code, frame.reshape(1, -1), 0, np.zeros((0, 2), dtype=np.int64),
        np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64), 2, 6, 1, 2, 1, 1,
        np.zeros(1, dtype=np.int64), np.zeros((0, 3), dtype=np.int64),
        np.zeros(1, dtype=np.int64), 1, 10, 0, 1, False, out)
    frames = np.array([[0, 0, 0, 0, 0b10, 5, 16]], dtype=np.int64)
    relocate_frames(frames, 4, 1, 5, np.array([16]), np.array([48]))
    assert out[0, 0] == DONE and vals[0] == 7 and frames[0, 6] == 48, (
        f"host lane warm-up failed: {out} {vals} {frames}")
