"""The numba-compiled SIMT machine: interprets isa.py's code for resident waves.

The only module that imports numba. Compiled once per process and cached on disk
(`cache=True`): kernels are data (the `code` rows), so fuzzing never JIT-compiles per
kernel. numba does not bounds-check, so every index that comes from data is checked here
(`_validate` checks the code once per launch; buffer ids and memory indices per access);
an inconsistency is an internal error code, never a wild write.

`run_launch` issues waves in `wave_order` onto `slots` resident wave slots and runs them
round-robin, `quantum` instructions per turn. With `stop_on_fault`, the deopt flag (any
lane faulted) is checked when a wave would be issued: once set, no further wave starts and
its workitems stay never-ran; resident waves run to completion.

Results per workitem: status (0 never ran, 1 completed, 2 faulted), the faulting
instruction's infopoint id and the `fail` code. Counters: [0] instructions executed,
[1] active lane-instructions, [2] waves issued.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .isa import ALIVE, EXEC, Op

OK, ERR_CODE, ERR_BUFFER, ERR_PC, ERR_STEPS = 0, 1, 2, 3, 4
MAX_WAVE_STEPS = 50_000_000  # a wave running this long is a machine/compiler bug

# opcode constants as plain ints for numba
_ADD, _SUB, _MUL, _DIV, _REM = int(Op.ADD), int(Op.SUB), int(Op.MUL), int(Op.DIV), int(Op.REM)
_AND, _OR, _XOR, _SHL, _SHR = int(Op.AND), int(Op.OR), int(Op.XOR), int(Op.SHL), int(Op.SHR)
_EQ, _NE, _LT, _LE, _GT, _GE = (int(Op.CMP_EQ), int(Op.CMP_NE), int(Op.CMP_LT),
                                int(Op.CMP_LE), int(Op.CMP_GT), int(Op.CMP_GE))
_NEG, _NOT, _LNOT, _WRAP, _MOV, _MOVI = (int(Op.NEG), int(Op.NOT), int(Op.LNOT),
                                         int(Op.WRAP), int(Op.MOV), int(Op.MOVI))
_PARAM, _LANEID, _GID, _WAVEID = int(Op.PARAM), int(Op.LANEID), int(Op.GID), int(Op.WAVEID)
_LOAD, _STORE, _ATOMIC, _LEN, _FAIL = (int(Op.LOAD), int(Op.STORE), int(Op.ATOMIC_ADD),
                                       int(Op.LEN), int(Op.FAIL))
_MGET, _MSET, _MCOND, _MANDN, _MOR, _MAND, _MCLR, _KILL = (
    int(Op.M_GETEXEC), int(Op.M_SETEXEC), int(Op.M_FROMCOND), int(Op.M_ANDN), int(Op.M_OR),
    int(Op.M_AND), int(Op.M_CLEAR), int(Op.KILL))
_JMP, _JZE, _JZM, _HALT = int(Op.JMP), int(Op.JZ_EXEC), int(Op.JZ_MASK), int(Op.HALT)
_SETI, _WSUM, _WMIN, _WMAX, _WOR, _WAND, _WBAL, _WSCX, _WSCI = (
    int(Op.SET_INACTIVE), int(Op.WWM_SUM), int(Op.WWM_MIN), int(Op.WWM_MAX), int(Op.WWM_OR),
    int(Op.WWM_AND), int(Op.WWM_BALLOT), int(Op.WWM_SCAN_EXCL), int(Op.WWM_SCAN_INCL))
_RFL, _SHUF, _SPILL, _RELOAD = int(Op.READFIRST), int(Op.SHUFFLE), int(Op.SPILL), int(Op.RELOAD)

_MIN64 = np.int64(-9223372036854775808)

# operand roles per opcode, for validation: 0 none, 1 vreg, 2 mask
_ROLES = np.zeros((128, 4), dtype=np.int64)  # columns d, a, b, c


def _roles(op: Op, d: int = 0, a: int = 0, b: int = 0, c: int = 0) -> None:
    _ROLES[int(op)] = (d, a, b, c)


for _op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR,
            Op.CMP_EQ, Op.CMP_NE, Op.CMP_LT, Op.CMP_LE, Op.CMP_GT, Op.CMP_GE, Op.LOAD,
            Op.SHUFFLE):
    _roles(_op, 1, 1, 1)
for _op in (Op.NEG, Op.NOT, Op.LNOT, Op.WRAP, Op.MOV, Op.LEN, Op.SET_INACTIVE, Op.WWM_SUM,
            Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR, Op.WWM_AND, Op.WWM_BALLOT, Op.WWM_SCAN_EXCL,
            Op.WWM_SCAN_INCL, Op.READFIRST):
    _roles(_op, 1, 1)
for _op in (Op.MOVI, Op.PARAM, Op.LANEID, Op.GID, Op.WAVEID, Op.RELOAD):
    _roles(_op, 1)
_roles(Op.STORE, 0, 1, 1, 1)
_roles(Op.ATOMIC_ADD, 0, 1, 1, 1)
_roles(Op.FAIL, 0, 1)
_roles(Op.SPILL, 0, 1)
_roles(Op.M_GETEXEC, 2)
_roles(Op.M_SETEXEC, 0, 2)
_roles(Op.M_FROMCOND, 2, 1)
_roles(Op.M_ANDN, 2, 2, 2)
_roles(Op.M_OR, 2, 2, 2)
_roles(Op.M_AND, 2, 2, 2)
_roles(Op.M_CLEAR, 2)
_roles(Op.JZ_MASK, 0, 2)
_KNOWN = np.zeros(128, dtype=np.uint8)
for _op in Op:
    _KNOWN[int(_op)] = 1


@njit(cache=True)
def _validate(code, nregs, nmasks, nslots, nparams, roles, known):  # type: ignore[no-untyped-def]
    ninstr = code.shape[0]
    if ninstr == 0 or code.shape[1] != 8:
        return ERR_CODE
    for i in range(ninstr):
        op = code[i, 0]
        if op < 0 or op >= 128 or known[op] == 0:
            return ERR_CODE
        for j in range(4):
            role = roles[op, j]
            x = code[i, 1 + j]
            if role == 1 and not (0 <= x < nregs):
                return ERR_CODE
            if role == 2 and not (0 <= x < nmasks):
                return ERR_CODE
        if op == _JMP or op == _JZE or op == _JZM:
            if not (0 <= code[i, 5] < ninstr):
                return ERR_CODE
        if op == _PARAM and not (0 <= code[i, 5] < nparams):
            return ERR_CODE
        if (op == _SPILL or op == _RELOAD) and not (0 <= code[i, 5] < nslots):
            return ERR_CODE
    return OK


@njit(cache=True, inline="always")
def _wrap(x, bits):  # type: ignore[no-untyped-def]
    if bits == 32:
        return np.int64(np.int32(x))
    return x


@njit(cache=True, inline="always")
def _tdiv(a, b):  # type: ignore[no-untyped-def]
    """Division truncating toward zero; b != 0. MIN // -1 wraps to MIN. (numba's // floors,
    like Python's, so the floor is corrected; b == -1 never reaches the hardware divide,
    where MIN / -1 traps.)"""
    if b == -1:
        return -a
    q = a // b
    if a % b != 0 and (a < 0) != (b < 0):
        q += 1
    return q


@njit(cache=True, inline="always")
def _trem(a, b):  # type: ignore[no-untyped-def]
    if b == -1:
        return np.int64(0)
    return a - b * _tdiv(a, b)


@njit(cache=True)
def _count(mask):  # type: ignore[no-untyped-def]
    c = 0
    for x in mask:
        c += x
    return c


@njit(cache=True)
def _run_wave(code, V, M, S, pcs, k, wave, W, n, mem, buftab, params, status, fault_ip,
              fault_code, counters, budget, flag, ones):  # type: ignore[no-untyped-def]
    """Run slot k's wave for at most `budget` instructions. Returns 1 if the wave halted,
    0 if it yielded, a negative error code on an internal error."""
    v = V[k]
    m = M[k]
    s = S[k]
    ex = m[EXEC]
    alive = m[ALIVE]
    pc = pcs[k]
    base = wave * W
    nbufs = buftab.shape[0]
    nact = _count(ex)
    steps = 0
    lane_steps = 0
    res = 0
    while steps < budget:
        op = code[pc, 0]
        d = code[pc, 1]
        a = code[pc, 2]
        b = code[pc, 3]
        c = code[pc, 4]
        imm = code[pc, 5]
        wm = code[pc, 6]
        steps += 1
        lane_steps += nact
        pc += 1
        sel = ones if wm else ex
        if op <= _GE:
            # two-operand arithmetic and comparisons
            va = v[a]
            vb = v[b]
            vd = v[d]
            if op == _ADD:
                if imm == 32:
                    for l in range(W):
                        r = np.int64(np.int32(va[l] + vb[l]))
                        vd[l] = r if sel[l] else vd[l]
                else:
                    for l in range(W):
                        r = va[l] + vb[l]
                        vd[l] = r if sel[l] else vd[l]
            elif op == _SUB:
                if imm == 32:
                    for l in range(W):
                        r = np.int64(np.int32(va[l] - vb[l]))
                        vd[l] = r if sel[l] else vd[l]
                else:
                    for l in range(W):
                        r = va[l] - vb[l]
                        vd[l] = r if sel[l] else vd[l]
            elif op == _MUL:
                if imm == 32:
                    for l in range(W):
                        r = np.int64(np.int32(va[l] * vb[l]))
                        vd[l] = r if sel[l] else vd[l]
                else:
                    for l in range(W):
                        r = va[l] * vb[l]
                        vd[l] = r if sel[l] else vd[l]
            elif op == _DIV or op == _REM:
                for l in range(W):
                    if not sel[l]:
                        continue
                    y = vb[l]
                    if y == 0:
                        if ex[l]:
                            g = base + l
                            status[g] = 2
                            fault_ip[g] = code[pc - 1, 7]
                            ex[l] = 0
                            alive[l] = 0
                            flag[0] = 1
                        continue
                    x = va[l]
                    if op == _DIV:
                        vd[l] = _wrap(_tdiv(x, y), imm)
                    else:
                        vd[l] = _wrap(_trem(x, y), imm)
                nact = _count(ex)
            elif op == _AND:
                for l in range(W):
                    r = va[l] & vb[l]
                    vd[l] = r if sel[l] else vd[l]
            elif op == _OR:
                for l in range(W):
                    r = va[l] | vb[l]
                    vd[l] = r if sel[l] else vd[l]
            elif op == _XOR:
                for l in range(W):
                    r = va[l] ^ vb[l]
                    vd[l] = r if sel[l] else vd[l]
            elif op == _SHL:
                sh = imm - 1
                for l in range(W):
                    r = _wrap(va[l] << (vb[l] & sh), imm)
                    vd[l] = r if sel[l] else vd[l]
            elif op == _SHR:
                sh = imm - 1
                for l in range(W):
                    r = _wrap(va[l] >> (vb[l] & sh), imm)
                    vd[l] = r if sel[l] else vd[l]
            elif op == _EQ:
                for l in range(W):
                    r = np.int64(va[l] == vb[l])
                    vd[l] = r if sel[l] else vd[l]
            elif op == _NE:
                for l in range(W):
                    r = np.int64(va[l] != vb[l])
                    vd[l] = r if sel[l] else vd[l]
            elif op == _LT:
                for l in range(W):
                    r = np.int64(va[l] < vb[l])
                    vd[l] = r if sel[l] else vd[l]
            elif op == _LE:
                for l in range(W):
                    r = np.int64(va[l] <= vb[l])
                    vd[l] = r if sel[l] else vd[l]
            elif op == _GT:
                for l in range(W):
                    r = np.int64(va[l] > vb[l])
                    vd[l] = r if sel[l] else vd[l]
            else:
                for l in range(W):
                    r = np.int64(va[l] >= vb[l])
                    vd[l] = r if sel[l] else vd[l]
        elif op <= _WAVEID:
            vd = v[d]
            if op == _MOV:
                va = v[a]
                for l in range(W):
                    vd[l] = va[l] if sel[l] else vd[l]
            elif op == _MOVI:
                for l in range(W):
                    vd[l] = imm if sel[l] else vd[l]
            elif op == _PARAM:
                x = params[imm]
                for l in range(W):
                    vd[l] = x if sel[l] else vd[l]
            elif op == _GID:
                for l in range(W):
                    vd[l] = (base + l) if sel[l] else vd[l]
            elif op == _LANEID:
                for l in range(W):
                    vd[l] = l if sel[l] else vd[l]
            elif op == _WAVEID:
                for l in range(W):
                    vd[l] = wave if sel[l] else vd[l]
            else:
                va = v[a]
                if op == _NEG:
                    for l in range(W):
                        r = _wrap(-va[l], imm)
                        vd[l] = r if sel[l] else vd[l]
                elif op == _NOT:
                    for l in range(W):
                        r = _wrap(~va[l], imm)
                        vd[l] = r if sel[l] else vd[l]
                elif op == _LNOT:
                    for l in range(W):
                        r = 1 - va[l]
                        vd[l] = r if sel[l] else vd[l]
                else:  # WRAP
                    for l in range(W):
                        r = _wrap(va[l], imm)
                        vd[l] = r if sel[l] else vd[l]
        elif op <= _FAIL:
            if op == _FAIL:
                va = v[a]
                for l in range(W):
                    if ex[l]:
                        g = base + l
                        status[g] = 2
                        fault_ip[g] = code[pc - 1, 7]
                        fault_code[g] = va[l]
                        ex[l] = 0
                        alive[l] = 0
                        flag[0] = 1
                nact = 0
                continue
            va = v[a]
            faulted = False
            for l in range(W):
                if not ex[l]:
                    continue
                buf = va[l]
                if buf < 0 or buf >= nbufs:
                    res = -ERR_BUFFER
                    break
                off = buftab[buf, 0]
                length = buftab[buf, 1]
                if op == _LEN:
                    v[d, l] = length
                    continue
                idx = v[b, l]
                if idx < 0 or idx >= length:
                    g = base + l
                    status[g] = 2
                    fault_ip[g] = code[pc - 1, 7]
                    ex[l] = 0
                    alive[l] = 0
                    flag[0] = 1
                    faulted = True
                    continue
                if op == _LOAD:
                    v[d, l] = mem[off + idx]
                elif op == _STORE:
                    mem[off + idx] = _wrap(v[c, l], buftab[buf, 2])
                else:
                    mem[off + idx] = _wrap(mem[off + idx] + v[c, l], buftab[buf, 2])
            if res != 0:
                break
            if faulted:
                nact = _count(ex)
        elif op <= _KILL:
            if op == _MGET:
                md = m[d]
                for l in range(W):
                    md[l] = ex[l]
            elif op == _MSET:
                ma = m[a]
                for l in range(W):
                    ex[l] = ma[l] & alive[l]
                nact = _count(ex)
            elif op == _MCOND:
                md = m[d]
                va = v[a]
                for l in range(W):
                    md[l] = ex[l] & np.uint8(va[l] != 0)
            elif op == _MANDN:
                md = m[d]
                ma = m[a]
                mb = m[b]
                for l in range(W):
                    md[l] = ma[l] & (1 - mb[l])
                if d == EXEC:
                    nact = _count(ex)
            elif op == _MOR:
                md = m[d]
                ma = m[a]
                mb = m[b]
                for l in range(W):
                    md[l] = ma[l] | mb[l]
                if d == EXEC:
                    for l in range(W):
                        ex[l] = ex[l] & alive[l]
                    nact = _count(ex)
            elif op == _MAND:
                md = m[d]
                ma = m[a]
                mb = m[b]
                for l in range(W):
                    md[l] = ma[l] & mb[l]
                if d == EXEC:
                    nact = _count(ex)
            elif op == _MCLR:
                md = m[d]
                for l in range(W):
                    md[l] = 0
                if d == EXEC:
                    nact = 0
            else:  # KILL
                for l in range(W):
                    alive[l] = alive[l] & (1 - ex[l])
                    ex[l] = 0
                nact = 0
        elif op <= _HALT:
            if op == _JMP:
                pc = imm
            elif op == _JZE:
                if nact == 0:
                    pc = imm
            elif op == _JZM:
                if _count(m[a]) == 0:
                    pc = imm
            else:  # HALT
                for l in range(W):
                    g = base + l
                    if g < n and status[g] != 2:
                        status[g] = 1
                res = 1
                break
        elif op <= _WSCI:
            vd = v[d]
            va = v[a]
            if op == _SETI:
                for l in range(W):
                    vd[l] = va[l] if ex[l] else imm
            elif op == _WSUM:
                acc = np.int64(0)
                for l in range(W):
                    acc += va[l]
                acc = _wrap(acc, imm)
                for l in range(W):
                    vd[l] = acc
            elif op == _WMIN:
                acc = va[0]
                for l in range(1, W):
                    acc = min(acc, va[l])
                for l in range(W):
                    vd[l] = acc
            elif op == _WMAX:
                acc = va[0]
                for l in range(1, W):
                    acc = max(acc, va[l])
                for l in range(W):
                    vd[l] = acc
            elif op == _WOR:
                acc = np.int64(0)
                for l in range(W):
                    acc |= np.int64(va[l] != 0)
                for l in range(W):
                    vd[l] = acc
            elif op == _WAND:
                acc = np.int64(1)
                for l in range(W):
                    acc &= np.int64(va[l] != 0)
                for l in range(W):
                    vd[l] = acc
            elif op == _WBAL:
                acc = np.int64(0)
                for l in range(W):
                    if va[l] != 0:
                        acc |= np.int64(1) << l
                for l in range(W):
                    vd[l] = acc
            elif op == _WSCX:
                acc = np.int64(0)
                for l in range(W):
                    x = va[l]
                    vd[l] = _wrap(acc, imm)
                    acc += x
            else:
                acc = np.int64(0)
                for l in range(W):
                    acc += va[l]
                    vd[l] = _wrap(acc, imm)
        elif op == _RFL:
            first = -1
            for l in range(W):
                if ex[l]:
                    first = l
                    break
            if first >= 0:
                x = v[a, first]
                vd = v[d]
                for l in range(W):
                    vd[l] = x if sel[l] else vd[l]
        elif op == _SHUF:
            va = v[a]
            vb = v[b]
            vd = v[d]
            for l in range(W):
                src = vb[l]
                x = va[src] if 0 <= src < W else np.int64(0)
                if sel[l]:
                    vd[l] = x
        elif op == _SPILL:
            sd = s[imm]
            va = v[a]
            for l in range(W):
                sd[l] = va[l] if sel[l] else sd[l]
        elif op == _RELOAD:
            sa = s[imm]
            vd = v[d]
            for l in range(W):
                vd[l] = sa[l] if sel[l] else vd[l]
        else:
            res = -ERR_CODE
            break
    pcs[k] = pc
    counters[0] += steps
    counters[1] += lane_steps
    return res


@njit(cache=True)
def _launch(code, n, W, nregs, nmasks, nslots, mem, buftab, params, wave_order, slots,
            quantum, stop_on_fault, status, fault_ip, fault_code, counters, roles, known
            ):  # type: ignore[no-untyped-def]
    err = _validate(code, nregs, nmasks, nslots, params.shape[0], roles, known)
    if err != OK:
        return err
    if W < 1 or W > 64 or nmasks < 2:
        return ERR_CODE
    nwaves = (n + W - 1) // W
    if wave_order.shape[0] != nwaves:
        return ERR_CODE
    seen = np.zeros(nwaves, dtype=np.uint8)
    for i in range(nwaves):
        w = wave_order[i]
        if w < 0 or w >= nwaves or seen[w]:
            return ERR_CODE
        seen[w] = 1
    for i in range(buftab.shape[0]):
        if buftab[i, 0] < 0 or buftab[i, 1] < 0 or buftab[i, 0] + buftab[i, 1] > mem.shape[0]:
            return ERR_BUFFER
    K = max(1, slots)
    V = np.zeros((K, nregs, W), dtype=np.int64)
    M = np.zeros((K, nmasks, W), dtype=np.uint8)
    S = np.zeros((K, max(1, nslots), W), dtype=np.int64)
    pcs = np.zeros(K, dtype=np.int64)
    wave_of = np.full(K, -1, dtype=np.int64)
    steps_of = np.zeros(K, dtype=np.int64)
    flag = np.zeros(1, dtype=np.int64)
    ones = np.ones(W, dtype=np.uint8)  # the write mask of all-lane writes
    budget = quantum if K > 1 else MAX_WAVE_STEPS
    if budget < 1:
        budget = 1
    nxt = 0
    while True:
        for k in range(K):
            if wave_of[k] < 0 and nxt < nwaves:
                if stop_on_fault and flag[0] != 0:
                    nxt = nwaves
                    break
                w = wave_order[nxt]
                nxt += 1
                wave_of[k] = w
                pcs[k] = 0
                steps_of[k] = 0
                # Registers and spill slots keep whatever the previous wave left: compiled
                # code never reads a lane it did not write (if it did, that is a finding).
                for l in range(W):
                    M[k, EXEC, l] = 0
                    M[k, ALIVE, l] = 0
                for l in range(W):
                    if w * W + l < n:
                        M[k, EXEC, l] = 1
                        M[k, ALIVE, l] = 1
                counters[2] += 1
        busy = False
        for k in range(K):
            if wave_of[k] < 0:
                continue
            busy = True
            before = counters[0]
            r = _run_wave(code, V, M, S, pcs, k, wave_of[k], W, n, mem, buftab, params,
                          status, fault_ip, fault_code, counters, budget, flag, ones)
            if r < 0:
                return -r
            steps_of[k] += counters[0] - before
            if r == 1:
                wave_of[k] = -1
            elif steps_of[k] > MAX_WAVE_STEPS:
                return ERR_STEPS
        if not busy and nxt >= nwaves:
            break
    return OK


def run_launch(code: np.ndarray, n: int, W: int, nregs: int, nmasks: int, nslots: int,
               mem: np.ndarray, buftab: np.ndarray, params: np.ndarray,
               wave_order: np.ndarray, slots: int, quantum: int, stop_on_fault: bool,
               status: np.ndarray, fault_ip: np.ndarray, fault_code: np.ndarray,
               counters: np.ndarray) -> int:
    """Run a launch; returns 0, or an internal error code (see ERR_*)."""
    return int(_launch(code, n, W, nregs, nmasks, nslots, mem, buftab, params, wave_order,
                       slots, quantum, stop_on_fault, status, fault_ip, fault_code, counters,
                       _ROLES, _KNOWN))


def compilations() -> int:
    """How many type specialisations of the machine's entry exist in this process."""
    return len(_launch.signatures)


def warm_up() -> None:
    """Compile (or load from the disk cache) the machine, on a two-instruction program."""
    code = np.zeros((2, 8), dtype=np.int64)
    code[0] = (int(Op.MOVI), 0, 0, 0, 0, 1, 0, -1)
    code[1] = (int(Op.HALT), 0, 0, 0, 0, 0, 0, -1)
    n = 1
    run_launch(code, n, 1, 1, 2, 1, np.zeros(1, dtype=np.int64),
               np.zeros((1, 3), dtype=np.int64), np.zeros(1, dtype=np.int64),
               np.zeros(1, dtype=np.int64), 1, 64, True, np.zeros(n, dtype=np.int8),
               np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64),
               np.zeros(4, dtype=np.int64))
