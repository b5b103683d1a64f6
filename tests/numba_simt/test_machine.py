"""numba-simt's machine on hand-assembled programs: every opcode's meaning as isa.py states
it, exec-mask behaviour, faults, scheduling (slots, quantum, wave order, the deopt flag)
and the internal-error codes for invalid code.

Expected values are derived here by hand (small reference formulas below, or literals
worked out in comments), never taken from the machine's output.

Program layout used by most tests (`execute`): buffer 0 is `out` (one block of n cells per
dumped register, prefilled with SENTINEL), buffers 1 and 2 hold per-workitem inputs a and
b; params = their base offsets (a buffer reference is its base, isa.py). The prologue loads
a into r0 and b into r1 and keeps the out buffer's reference in r7 and gid in r6; r5 is the epilogue's scratch. The epilogue
sets EXEC = ALIVE (so inactive-but-alive lanes are dumped too) and stores each dumped
register to out[i * n + gid].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from targets.numba_simt.device import machine
from targets.numba_simt.isa import ALIVE, EXEC, Op

SENTINEL = -777
R_BUF, R_GID, R_TMP = 7, 6, 5
OUT, IN_A, IN_B = 0, 1, 2  # parameter indices
MIN32, MAX32 = -(2**31), 2**31 - 1
MIN64, MAX64 = -(2**63), 2**63 - 1


# --- hand references ------------------------------------------------------------------

def wrap(x: int, bits: int) -> int:
    """Two's-complement wrap of a Python integer to `bits` bits."""
    m = 1 << bits
    x %= m
    return x - m if x >= m // 2 else x


def tdiv(a: int, b: int) -> int:
    """Division truncating toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def trem(a: int, b: int) -> int:
    return a - b * tdiv(a, b)


# --- assembling and running -------------------------------------------------------------

def I(op: int, d: int = 0, a: int = 0, b: int = 0, c: int = 0, imm: int = 0, wm: int = 0,
      ip: int = -1) -> tuple[int, ...]:
    """One instruction row [op, d, a, b, c, imm, wm, ip]."""
    return (int(op), d, a, b, c, imm, wm, ip)


def code_of(rows: list[tuple[int, ...]]) -> np.ndarray:
    return np.array(rows, dtype=np.int64).reshape(-1, 8)


@dataclass
class Result:
    rc: int
    status: list[int]
    fault_ip: list[int]
    fault_code: list[int]
    counters: list[int]
    mem: np.ndarray


def launch(rows: list[tuple[int, ...]], n: int, W: int, *, mem: Any = None,
           buftab: Any = None, params: Any = None, nregs: int = 8, nmasks: int = 6,
           nslots: int = 2, order: Any = None, slots: int = 1, quantum: int = 64,
           capacity: int | None = None, eligible: bool = False, **kw: Any) -> Result:
    """Run `rows` as one launch; every argument has a small default. Frames save every
    register (so a FAIL's code can be read back from its frame); per workitem the result
    says 0 never ran (its wave's never-ran bit), 2 deopted (a frame: at this level a
    fault), else 1 completed, with the frame's infopoint and, for FAIL, the code."""
    mem = np.zeros(1, dtype=np.int64) if mem is None else np.asarray(mem, dtype=np.int64)
    buftab = [[0, len(mem), 64]] if buftab is None else buftab
    params = np.zeros(1, dtype=np.int64) if params is None else params
    nwaves = (n + W - 1) // W
    order = np.arange(nwaves) if order is None else order
    code = code_of(rows)
    n_ip = max([r[7] for r in rows] + [0]) + 1
    ip_info = np.zeros((n_ip, 2), dtype=np.int64)
    ip_info[:, 0] = int(eligible)
    area = machine.DeoptArea.make(n, W, nmasks, range(nregs), range(nslots), ip_info,
                                  capacity if capacity is not None else slots * W)
    area.save[:] = 99  # the machine must write every field of the frames it uses
    counters = np.full(4, 99, dtype=np.int64)
    rc = machine.run_launch(code, n, W, nregs, nmasks, nslots, mem,
                            np.asarray(buftab, dtype=np.int64),
                            np.asarray(params, dtype=np.int64),
                            np.asarray(order, dtype=np.int64), slots, quantum, counters,
                            area, **kw)
    status, fault_ip, fault_code = [1] * n, [-1] * n, [0] * n
    for g in range(n):
        w = g // W
        if (int(area.never_ran[w >> 6]) >> (w & 63)) & 1:
            status[g] = 0
    values = machine.F_HEAD + (nmasks + 63) // 64 + 1  # one reference-bitmap word
    for row in area.save[:min(int(area.header[1]), len(area.save))]:
        g, ip = int(row[machine.F_GID]), int(row[machine.F_IP])
        status[g], fault_ip[g] = 2, ip
        if row[machine.F_REASON] == machine.REASON_FAIL:
            [fail] = [r for r in rows if r[7] == ip and r[0] == int(Op.FAIL)]
            fault_code[g] = int(row[values + fail[2]])
    return Result(rc, status, fault_ip, fault_code, counters.tolist(), mem)


@dataclass
class Dumped(Result):
    out: list[list[int]]  # out[i] = register dump[i], per gid


def prologue() -> list[tuple[int, ...]]:
    return [I(Op.PARAM, R_BUF, imm=OUT, wm=1), I(Op.GID, R_GID, wm=1),
            I(Op.PARAM, R_TMP, imm=IN_A, wm=1), I(Op.LOAD, 0, R_TMP, R_GID, ip=900),
            I(Op.PARAM, R_TMP, imm=IN_B, wm=1), I(Op.LOAD, 1, R_TMP, R_GID, ip=901)]


def epilogue(n: int, dump: tuple[int, ...]) -> list[tuple[int, ...]]:
    rows = [I(Op.M_SETEXEC, a=ALIVE)]
    for i, r in enumerate(dump):
        rows += [I(Op.MOVI, R_TMP, imm=i * n, wm=1),
                 I(Op.ADD, R_TMP, R_TMP, R_GID, imm=64, wm=1),
                 I(Op.STORE, a=R_BUF, b=R_TMP, c=r, ip=990 + i)]
    return rows + [I(Op.HALT)]


def execute(body: list[tuple[int, ...]], n: int, W: int, *, a: Any = None, b: Any = None,
            dump: tuple[int, ...] = (2,), in_bits: int = 64, **kw: Any) -> Dumped:
    """prologue + body + epilogue over inputs a, b (default 0); returns the dumps."""
    a = [0] * n if a is None else list(a)
    b = [0] * n if b is None else list(b)
    assert len(a) == n and len(b) == n
    size = len(dump) * n
    mem = np.array([SENTINEL] * size + a + b, dtype=np.int64)
    buftab = [[0, size, 64], [size, n, in_bits], [size + n, n, in_bits]]
    if size == 0:  # an empty out goes last: no two buffers may share a base
        buftab[0][0] = 2 * n
    params = [row[0] for row in buftab]
    rows = prologue() + body + epilogue(n, dump)
    r = launch(rows, n, W, mem=mem, buftab=buftab, params=params, **kw)
    out = [r.mem[i * n:(i + 1) * n].tolist() for i in range(len(dump))]
    return Dumped(r.rc, r.status, r.fault_ip, r.fault_code, r.counters, r.mem, out)


def even_lanes_exec() -> list[tuple[int, ...]]:
    """EXEC = lanes with an even lane id (uses r3, r4 and m2)."""
    return [I(Op.LANEID, 4, wm=1), I(Op.MOVI, 3, imm=1, wm=1), I(Op.AND, 4, 4, 3),
            I(Op.LNOT, 4, 4), I(Op.M_FROMCOND, 2, 4), I(Op.M_SETEXEC, a=2)]


def binop(op: Op, imm: int, xs: list[int], ys: list[int], W: int = 8) -> Dumped:
    r = execute([I(op, 2, 0, 1, imm=imm)], len(xs), W, a=xs, b=ys)
    assert r.rc == 0
    return r


# --- arithmetic -------------------------------------------------------------------------

XS = [5, -5, 7, -7, MAX32, MIN32, 123456, -1]
YS = [3, 3, -2, -2, 1, -1, 1000, 7]


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("op, ref", [
    (Op.ADD, lambda x, y: x + y), (Op.SUB, lambda x, y: x - y),
    (Op.MUL, lambda x, y: x * y),
])
def test_add_sub_mul_wrap_to_width(op: Op, ref: Any, bits: int) -> None:
    xs = XS + [MAX64 if bits == 64 else MAX32, MIN64 if bits == 64 else MIN32]
    ys = YS + [1, 1]
    r = binop(op, bits, xs, ys, W=4)
    assert r.out[0] == [wrap(ref(x, y), bits) for x, y in zip(xs, ys)]


def test_wrapping_literals() -> None:
    assert binop(Op.ADD, 32, [MAX32], [1]).out[0] == [MIN32]
    assert binop(Op.SUB, 32, [MIN32], [1]).out[0] == [MAX32]
    assert binop(Op.MUL, 32, [65536], [65536]).out[0] == [0]         # 2^32 wraps to 0
    assert binop(Op.MUL, 32, [65536], [32768]).out[0] == [MIN32]     # 2^31
    assert binop(Op.ADD, 64, [MAX64], [1]).out[0] == [MIN64]
    assert binop(Op.MUL, 64, [2**62], [4]).out[0] == [0]


@pytest.mark.parametrize("bits", [32, 64])
def test_div_rem_truncate_toward_zero(bits: int) -> None:
    # 7 // -2 == -3 and 7 % -2 == 1 (Python would give -4 and -1)
    r = binop(Op.DIV, bits, [7, -7, 7, -7, 6, -6, 0, 1], [2, 2, -2, -2, 3, 4, 5, -9])
    assert r.out[0] == [3, -3, -3, 3, 2, -1, 0, 0]
    r = binop(Op.REM, bits, [7, -7, 7, -7, 6, -6, 0, 1], [2, 2, -2, -2, 3, 4, 5, -9])
    assert r.out[0] == [1, -1, 1, -1, 0, -2, 0, 1]


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("op, ref", [(Op.DIV, tdiv), (Op.REM, trem)])
def test_div_rem_min_by_minus_one_and_general_values(op: Op, ref: Any, bits: int) -> None:
    lo, hi = (MIN32, MAX32) if bits == 32 else (MIN64, MAX64)
    xs = [lo, lo, hi, lo + 1, -1, 1000003, -999999, hi]
    ys = [-1, 1, -1, -1, lo, -17, 13, hi]
    r = binop(op, bits, xs, ys)
    assert r.out[0] == [wrap(ref(x, y), bits) for x, y in zip(xs, ys)]
    if op == Op.DIV:
        assert r.out[0][0] == lo      # MIN // -1 wraps to MIN
    else:
        assert r.out[0][0] == 0       # MIN % -1 == 0


def test_div_uniform_operands_and_wide_64_bit_operands() -> None:
    # every lane the same (one scalar divide) ...
    r = binop(Op.DIV, 32, [-7] * 8, [2] * 8)
    assert r.out[0] == [-3] * 8
    r = binop(Op.REM, 64, [MIN64] * 8, [-1] * 8)
    assert r.out[0] == [0] * 8
    # ... and operands beyond 32 bits, where a float64 divide would round
    xs = [2**62 + 1, -(2**62) - 3, 2**53 + 1, -(2**53) - 1, 10**18, MIN64, MAX64, 3]
    ys = [3, 7, 1, 3, -(10**9) - 7, 3, -2, 2**40]
    for op, ref in ((Op.DIV, tdiv), (Op.REM, trem)):
        r = binop(op, 64, xs, ys)
        assert r.out[0] == [wrap(ref(x, y), 64) for x, y in zip(xs, ys)]


def test_division_by_zero_faults_the_lane_at_ip_and_the_others_go_on() -> None:
    n = 8
    xs = [10, 20, 30, 40, 50, 60, 70, 80]
    ys = [1, 0, 2, 0, 5, 1, 1, 0]
    body = [I(Op.DIV, 2, 0, 1, imm=32, ip=5), I(Op.MOVI, 3, imm=1, wm=1),
            I(Op.ADD, 2, 2, 3, imm=32)]
    r = execute(body, n, 8, a=xs, b=ys, dump=(2,))
    assert r.rc == 0
    zero = [y == 0 for y in ys]
    assert r.status == [2 if z else 1 for z in zero]
    assert r.fault_ip == [5 if z else -1 for z in zero]
    assert r.fault_code == [0] * n
    # faulted lanes are out of EXEC and ALIVE: the epilogue never stores them
    assert r.out[0] == [SENTINEL if z else x // y + 1 for x, y, z in zip(xs, ys, zero)]


def test_rem_by_zero_faults_too() -> None:
    r = execute([I(Op.REM, 2, 0, 1, imm=64, ip=3)], 2, 2, a=[5, 5], b=[0, 2])
    assert r.status == [2, 1] and r.fault_ip == [3, -1] and r.out[0] == [SENTINEL, 1]


@pytest.mark.parametrize("bits", [32, 64])
def test_shift_amounts_are_masked_and_shr_is_arithmetic(bits: int) -> None:
    xs = [1, 1, 1, -16, -16, 3, 5, MIN32]
    ys = [3, bits, bits + 2, 2, bits + 1, -1, 0, 1]
    m = bits - 1
    r = binop(Op.SHL, bits, xs, ys)
    assert r.out[0] == [wrap(x << (y & m), bits) for x, y in zip(xs, ys)]
    assert r.out[0][:3] == [8, 1, 4]
    r = binop(Op.SHR, bits, xs, ys)
    assert r.out[0] == [wrap(x >> (y & m), bits) for x, y in zip(xs, ys)]
    assert r.out[0][3:5] == [-4, -8]  # arithmetic: the sign is kept


def test_shl_32_overflows_into_the_sign() -> None:
    assert binop(Op.SHL, 32, [1, 3], [31, 31], W=2).out[0] == [MIN32, MIN32]


def test_bitwise_and_comparisons() -> None:
    xs = [12, -1, 0, 5, -3, 7, MIN64, 2]
    ys = [10, 6, 0, 5, 3, -7, MAX64, 3]
    for op, ref in [(Op.AND, lambda x, y: x & y), (Op.OR, lambda x, y: x | y),
                    (Op.XOR, lambda x, y: x ^ y), (Op.CMP_EQ, lambda x, y: int(x == y)),
                    (Op.CMP_NE, lambda x, y: int(x != y)), (Op.CMP_LT, lambda x, y: int(x < y)),
                    (Op.CMP_LE, lambda x, y: int(x <= y)), (Op.CMP_GT, lambda x, y: int(x > y)),
                    (Op.CMP_GE, lambda x, y: int(x >= y))]:
        assert binop(op, 64, xs, ys).out[0] == [ref(x, y) for x, y in zip(xs, ys)], op.name


U = 256  # isa.UNSIGNED


def test_unsigned_and_narrow_kinds() -> None:
    """The kinds past i32 and i64 (isa.py): wrapping zero-extends an unsigned kind and
    sign-extends a signed one at its own width; a u64 compares, divides and shifts right
    as unsigned, on its bits. Values worked out by hand."""
    MAXU64 = -1  # 2^64 - 1, as its bits read as an int64
    # u8: 250 + 10 = 260 -> 4; i8: 127 + 1 -> -128; u16 0 - 1 -> 65535
    assert binop(Op.ADD, 8 + U, [250, 127], [10, 1], W=2).out[0] == [4, 128]
    assert binop(Op.ADD, 8, [250, 127], [10, 1], W=2).out[0] == [4, -128]
    assert binop(Op.SUB, 16 + U, [0, 5], [1, 3], W=2).out[0] == [65535, 2]
    # a u64's order and its division: 2^64 - 1 > 1; (2^64 - 1) // 3; 2^63 >> 63 == 1
    assert binop(Op.CMP_GT, 64 + U, [MAXU64, 1], [1, MAXU64], W=2).out[0] == [1, 0]
    assert binop(Op.CMP_GT, 64, [MAXU64, 1], [1, MAXU64], W=2).out[0] == [0, 1]
    assert binop(Op.DIV, 64 + U, [MAXU64, MIN64], [3, MAXU64], W=2).out[0] == [
        (2**64 - 1) // 3, 0]
    assert binop(Op.REM, 64 + U, [MAXU64, 7], [10, 4], W=2).out[0] == [5, 3]
    assert binop(Op.SHR, 64 + U, [MIN64, MAXU64], [63, 60], W=2).out[0] == [1, 15]
    assert binop(Op.SHR, 64, [MIN64, MAXU64], [63, 60], W=2).out[0] == [-1, -1]
    # u32: 4294967295 // 1 stays 4294967295 (no sign extension of the quotient)
    assert binop(Op.DIV, 32 + U, [4294967295, 10], [1, 3], W=2).out[0] == [4294967295, 3]
    r = execute([I(Op.WRAP, 2, 0, imm=8 + U), I(Op.WRAP, 3, 0, imm=8)], 2, 2,
                a=[-1, 200], dump=(2, 3))
    assert r.out == [[255, 200], [-1, -56]]


def test_unary_ops() -> None:
    xs = [0, 1, -1, MAX32, MIN32, MIN64, 2**40 + 5, 7]
    bools = [0, 1, 1, 0, 1, 0, 0, 1]
    for op, bits, ref in [(Op.NEG, 32, lambda x: -x), (Op.NEG, 64, lambda x: -x),
                          (Op.NOT, 32, lambda x: ~x), (Op.NOT, 64, lambda x: ~x),
                          (Op.WRAP, 32, lambda x: x), (Op.WRAP, 64, lambda x: x)]:
        r = execute([I(op, 2, 0, imm=bits)], 8, 8, a=xs)
        assert r.out[0] == [wrap(ref(x), bits) for x in xs], (op.name, bits)
    assert execute([I(Op.NEG, 2, 0, imm=32)], 1, 1, a=[MIN32]).out[0] == [MIN32]
    assert execute([I(Op.WRAP, 2, 0, imm=32)], 1, 1, a=[2**32 + 5]).out[0] == [5]
    r = execute([I(Op.LNOT, 2, 0), I(Op.MOV, 3, 2)], 8, 4, a=bools, dump=(2, 3))
    assert r.out == [[1 - x for x in bools]] * 2


def test_constants_parameters_and_ids() -> None:
    n, W = 10, 4
    body = [I(Op.MOVI, 2, imm=-42), I(Op.PARAM, 3, imm=IN_B), I(Op.LANEID, 4),
            I(Op.WAVEID, 0), I(Op.GID, 1)]
    r = execute(body, n, W, dump=(2, 3, 4, 0, 1))
    assert r.rc == 0
    in_b_base = 5 * n + n  # after out's five dumps and a (execute's layout)
    assert r.out == [[-42] * n, [in_b_base] * n, [g % W for g in range(n)],
                     [g // W for g in range(n)], list(range(n))]


def test_len_of_a_buffer() -> None:
    r = execute([I(Op.PARAM, 3, imm=IN_A), I(Op.LEN, 2, 3),
                 I(Op.PARAM, 3, imm=OUT), I(Op.LEN, 4, 3)], 3, 2, dump=(2, 4))
    assert r.out == [[3, 3, 3], [6, 6, 6]]  # out holds two dumps of n = 3


# --- write modes and whole-wave operations ----------------------------------------------

def test_masked_write_keeps_inactive_lanes_and_all_lane_write_overwrites() -> None:
    n = W = 8
    body = [I(Op.MOVI, 2, imm=100, wm=1), I(Op.MOVI, 0, imm=2**40, wm=1)]
    body += even_lanes_exec()
    body += [I(Op.MOVI, 2, imm=7),                 # masked: even lanes only
             I(Op.MOVI, 3, imm=9, wm=1),           # all lanes
             I(Op.ADD, 0, 1, 1, imm=32),           # masked + wrap: inactive keep 2^40
             I(Op.MOVI, 1, imm=-1, wm=1),
             I(Op.MOV, 4, 1)]                      # masked over r4 = odd/even flag
    r = execute(body, n, W, b=[MAX32] * n, dump=(2, 3, 0, 4))
    even = [lane % 2 == 0 for lane in range(n)]
    assert r.out[0] == [7 if e else 100 for e in even]
    assert r.out[1] == [9] * n
    assert r.out[2] == [wrap(2 * MAX32, 32) if e else 2**40 for e in even]
    assert r.out[3] == [-1 if e else 0 for e in even]  # odd lanes kept LNOT(1) = 0


def test_spill_and_reload_masked_and_all_lanes() -> None:
    n = W = 4
    body = [I(Op.LANEID, 2, wm=1), I(Op.SPILL, a=2, imm=0, wm=1), I(Op.SPILL, a=2, imm=1, wm=1)]
    body += even_lanes_exec()
    body += [I(Op.MOVI, 2, imm=50, wm=1),
             I(Op.SPILL, a=2, imm=0),              # masked: slot 0 = 50 on even lanes
             I(Op.SPILL, a=2, imm=1, wm=1),        # all lanes: slot 1 = 50
             I(Op.MOVI, 3, imm=-5, wm=1), I(Op.MOVI, 4, imm=-5, wm=1),
             I(Op.RELOAD, 3, imm=0, wm=1),         # all lanes of slot 0
             I(Op.RELOAD, 4, imm=1)]               # masked: even lanes get 50
    r = execute(body, n, W, dump=(3, 4))
    assert r.out[0] == [50, 1, 50, 3]
    assert r.out[1] == [50, -5, 50, -5]


def test_set_inactive_then_wwm_sum_over_a_partial_exec() -> None:
    n, W = 16, 8
    body = even_lanes_exec() + [
        I(Op.SET_INACTIVE, 2, 0, imm=0, wm=1),     # inactive lanes -> the identity 0
        I(Op.WWM_SUM, 3, 2, imm=64, wm=1),
        I(Op.SET_INACTIVE, 4, 0, imm=-9, wm=1)]
    a = [g + 1 for g in range(n)]
    r = execute(body, n, W, a=a, dump=(3, 4))
    # wave 0: lanes 0,2,4,6 hold 1,3,5,7 -> 16; wave 1: 9+11+13+15 = 48
    assert r.out[0] == [16] * 8 + [48] * 8
    assert r.out[1] == [a[g] if g % 2 == 0 else -9 for g in range(n)]


def test_wwm_sum_wraps_and_reads_every_lane() -> None:
    n = W = 4
    r = execute([I(Op.WWM_SUM, 2, 0, imm=32, wm=1), I(Op.WWM_SUM, 3, 0, imm=64, wm=1)],
                n, W, a=[MAX32, MAX32, 2, 0], dump=(2, 3))
    assert r.out[0] == [wrap(2 * MAX32 + 2, 32)] * 4 == [0] * 4
    assert r.out[1] == [2 * MAX32 + 2] * 4


def test_wwm_min_max_or_and_include_lanes_past_n() -> None:
    n, W = 5, 8  # lanes 5..7 are not workitems, but LANEID wm=1 writes them
    body = [I(Op.LANEID, 0, wm=1), I(Op.MOVI, 1, imm=10, wm=1), I(Op.SUB, 0, 0, 1, imm=64, wm=1),
            I(Op.WWM_MIN, 2, 0, wm=1, imm=64), I(Op.WWM_MAX, 3, 0, wm=1, imm=64),
            I(Op.LANEID, 4, wm=1), I(Op.MOVI, 1, imm=7, wm=1), I(Op.CMP_EQ, 1, 4, 1, wm=1, imm=64),
            I(Op.WWM_OR, 4, 1, wm=1),                                   # only lane 7 is set
            I(Op.WWM_AND, 1, 1, wm=1)]
    r = execute(body, n, W, dump=(2, 3, 4, 1))
    assert r.out == [[-10] * n, [-3] * n, [1] * n, [0] * n]
    body = [I(Op.MOVI, 0, imm=3, wm=1), I(Op.WWM_AND, 2, 0, wm=1)]
    assert execute(body, n, W).out[0] == [1] * n


def test_ballot_sets_bit_63_on_a_64_lane_wave() -> None:
    n = W = 64
    body = [I(Op.LANEID, 3, wm=1), I(Op.MOVI, 4, imm=63, wm=1), I(Op.CMP_EQ, 4, 3, 4, wm=1, imm=64),
            I(Op.MOVI, 2, imm=5, wm=1), I(Op.CMP_EQ, 3, 3, 2, wm=1, imm=64), I(Op.OR, 3, 3, 4, wm=1),
            I(Op.WWM_BALLOT, 2, 3, wm=1)]
    r = execute(body, n, W)
    assert r.out[0] == [wrap((1 << 63) | (1 << 5), 64)] * n
    assert r.out[0][0] < 0


def test_scans_exclusive_and_inclusive_wrap() -> None:
    n = W = 4
    a = [MAX32, 1, 2, 3]
    body = [I(Op.WWM_SCAN_EXCL, 2, 0, imm=32, wm=1), I(Op.WWM_SCAN_INCL, 3, 0, imm=32, wm=1),
            I(Op.WWM_SCAN_INCL, 4, 0, imm=64, wm=1), I(Op.WWM_SCAN_EXCL, 0, 0, imm=64, wm=1)]
    r = execute(body, n, W, a=a, dump=(2, 3, 4, 0))
    assert r.out[0] == [0, MAX32, MIN32, MIN32 + 2]
    assert r.out[1] == [MAX32, MIN32, MIN32 + 2, MIN32 + 5]
    assert r.out[2] == [MAX32, 2**31, 2**31 + 2, 2**31 + 5]
    assert r.out[3] == [0, MAX32, 2**31, 2**31 + 2]  # in place (d == a)


def test_readfirst_reads_the_lowest_exec_lane() -> None:
    n = W = 8
    a = [10 * (g + 1) for g in range(n)]
    body = [I(Op.MOVI, 2, imm=-1, wm=1), I(Op.MOVI, 3, imm=-1, wm=1),
            I(Op.LANEID, 4, wm=1), I(Op.MOVI, 3, imm=3, wm=1), I(Op.CMP_GE, 4, 4, 3, wm=1, imm=64),
            I(Op.MOVI, 3, imm=-1, wm=1),
            I(Op.M_FROMCOND, 2, 4), I(Op.M_SETEXEC, a=2),   # lanes 3..7
            I(Op.READFIRST, 2, 0),                         # masked: lanes 3..7 get a[3]
            I(Op.M_CLEAR, EXEC),
            I(Op.READFIRST, 3, 0, wm=1)]                   # no EXEC lane: writes nothing
    r = execute(body, n, W, a=a, dump=(2, 3))
    assert r.out[0] == [-1, -1, -1, 40, 40, 40, 40, 40]
    assert r.out[1] == [-1] * n


def test_shuffle_out_of_range_source_is_zero_and_in_place_gathers_first() -> None:
    n = W = 8
    a = [100 + lane for lane in range(n)]
    src = [7, 0, -1, 8, 3, 3, 100, 1]
    body = [I(Op.SHUFFLE, 2, 0, 1), I(Op.SHUFFLE, 0, 0, 1, wm=1)]
    r = execute(body, n, W, a=a, b=src, dump=(2, 0))
    expect = [a[s] if 0 <= s < W else 0 for s in src]
    assert r.out == [expect, expect]


# --- memory -----------------------------------------------------------------------------

def test_load_and_store_out_of_bounds_fault() -> None:
    n = 6
    idx = [0, 5, 6, -1, 2, 100]  # in bounds: 0 <= i < 6
    body = [I(Op.PARAM, 3, imm=IN_A, wm=1), I(Op.LOAD, 2, 3, 1, ip=11)]
    r = execute(body, n, 8, a=[7, 8, 9, 10, 11, 12], b=idx)
    oob = [not 0 <= i < n for i in idx]
    assert r.status == [2 if o else 1 for o in oob]
    assert r.fault_ip == [11 if o else -1 for o in oob]
    assert r.out[0] == [SENTINEL if o else [7, 8, 9, 10, 11, 12][i] for o, i in zip(oob, idx)]

    body = [I(Op.PARAM, 3, imm=IN_A, wm=1), I(Op.STORE, a=3, b=1, c=R_GID, ip=12)]
    r = execute(body, n, 8, a=[-1] * n, b=idx)
    size = n  # one dump
    assert r.status == [2 if o else 1 for o in oob]
    assert r.fault_ip == [12 if o else -1 for o in oob]
    # in-bounds lanes stored their gid at index idx: a[0] <- 0, a[5] <- 1, a[2] <- 4
    assert r.mem[size:size + n].tolist() == [0, -1, 4, -1, -1, 1]


def test_store_wraps_to_the_buffer_width_and_the_highest_lane_wins() -> None:
    n = W = 4
    body = [I(Op.PARAM, 3, imm=IN_A, wm=1), I(Op.MOVI, 4, imm=0, wm=1),
            I(Op.STORE, a=3, b=4, c=0, ip=1)]        # every lane stores to a[0]
    r = execute(body, n, W, a=[1, 2, 3, 2**32 + 9], in_bits=32, dump=())
    assert r.mem[0:n].tolist() == [9, 2, 3, 2**32 + 9]  # lane 3 last, wrapped to 32 bits


def test_atomic_add_every_active_lane_once_wrapping_at_32_bits() -> None:
    n = W = 8
    body = even_lanes_exec() + [
        I(Op.PARAM, 3, imm=IN_A, wm=1), I(Op.MOVI, 4, imm=0, wm=1), I(Op.MOVI, 2, imm=1, wm=1),
        I(Op.ATOMIC_ADD, a=3, b=4, c=2, ip=1)]       # the 4 even lanes add 1 each to a[0]
    r = execute(body, n, W, a=[MAX32 - 1] + [0] * (n - 1), in_bits=32, dump=())
    assert r.rc == 0 and r.status == [1] * n
    assert r.mem[0] == wrap(MAX32 - 1 + 4, 32) == MIN32 + 2
    # a 64-bit buffer: lanes 0..3 add their gid + 1 to a[gid % 2]; 64-bit wrap
    body = [I(Op.PARAM, 3, imm=IN_A, wm=1), I(Op.MOVI, 4, imm=1, wm=1),
            I(Op.AND, 4, R_GID, 4), I(Op.MOVI, 2, imm=1, wm=1), I(Op.ADD, 2, R_GID, 2, imm=64),
            I(Op.ATOMIC_ADD, a=3, b=4, c=2, ip=1)]
    r = execute(body, 4, 4, a=[MAX64, 5, 0, 0], dump=())
    assert r.mem[0:2].tolist() == [wrap(MAX64 + 1 + 3, 64), 5 + 2 + 4]


def test_bad_buffer_id_in_an_active_lane_is_an_internal_error() -> None:
    body = [I(Op.MOVI, 3, imm=9, wm=1), I(Op.LOAD, 2, 3, 1, ip=1)]
    assert execute(body, 2, 2).rc == machine.ERR_BUFFER
    body = [I(Op.MOVI, 3, imm=-1, wm=1), I(Op.STORE, a=3, b=1, c=1, ip=1)]
    assert execute(body, 2, 2).rc == machine.ERR_BUFFER


def test_all_lane_load_in_inactive_lanes_never_faults() -> None:
    # the documented choice: inactive lanes read the value if in bounds, else 0
    n = W = 4
    body = even_lanes_exec() + [I(Op.PARAM, 3, imm=IN_A, wm=1),
                                I(Op.LOAD, 2, 3, 1, wm=1, ip=1)]
    r = execute(body, n, W, a=[5, 6, 7, 8], b=[3, 2, 9, 99])
    assert r.status == [1, 1, 2, 1]               # only active lane 2 faults
    assert r.out[0] == [8, 7, SENTINEL, 0]


def test_fail_faults_every_exec_lane_with_its_code() -> None:
    n = 8
    body = even_lanes_exec() + [I(Op.MOVI, 2, imm=10, wm=1), I(Op.MUL, 2, R_GID, 2, imm=64),
                                I(Op.FAIL, a=2, ip=33)]
    r = execute(body, n, 8, dump=(R_GID,))
    even = [g % 2 == 0 for g in range(n)]
    assert r.status == [2 if e else 1 for e in even]
    assert r.fault_ip == [33 if e else -1 for e in even]
    assert r.fault_code == [10 * g if e else 0 for g, e in zip(range(n), even)]
    assert r.out[0] == [SENTINEL if e else g for g, e in zip(range(n), even)]


# --- masks and control ------------------------------------------------------------------

def test_mask_ops_and_branches() -> None:
    n = W = 8
    L1, L2, L3, L4 = 12, 15, 18, 22  # body positions; the 6-row prologue comes first
    body = [
        I(Op.LANEID, 3, wm=1), I(Op.MOVI, 4, imm=1, wm=1), I(Op.AND, 3, 3, 4, wm=1),  # odd
        I(Op.M_GETEXEC, 2),                        # 3: m2 = all lanes
        I(Op.M_FROMCOND, 3, 3),                    # 4: m3 = odd lanes
        I(Op.M_ANDN, 4, 2, 3),                     # 5: m4 = even lanes
        I(Op.M_SETEXEC, a=3),                      # 6
        I(Op.JZ_EXEC, imm=L1),                     # 7: not taken, odd lanes are active
        I(Op.MOVI, 2, imm=1),                      # 8: odd lanes
        I(Op.M_SETEXEC, a=4),                      # 9
        I(Op.MOVI, 3, imm=2),                      # 10: even lanes (odd ones keep 1)
        I(Op.M_AND, 5, 3, 4),                      # 11: empty
        I(Op.JZ_MASK, a=5, imm=L2),                # 12 = L1: taken
        I(Op.MOVI, 4, imm=99, wm=1),               # 13
        I(Op.MOVI, 4, imm=98, wm=1),               # 14
        I(Op.M_CLEAR, EXEC),                       # 15 = L2
        I(Op.JZ_EXEC, imm=L3),                     # 16: taken
        I(Op.MOVI, 4, imm=77, wm=1),               # 17
        I(Op.M_OR, EXEC, 3, 4),                    # 18 = L3: all lanes again
        I(Op.JZ_MASK, a=EXEC, imm=L3),             # 19: not taken
        I(Op.JMP, imm=L4),                         # 20
        I(Op.MOVI, 4, imm=55, wm=1),               # 21: jumped over
        I(Op.MOVI, 0, imm=8),                      # 22 = L4: every lane (EXEC is full)
    ]
    assert len(body) == 23
    jumps = (Op.JMP, Op.JZ_EXEC, Op.JZ_MASK)
    shift = len(prologue())
    body = [r[:5] + (r[5] + shift if r[0] in jumps else r[5],) + r[6:] for r in body]
    r = execute(body, n, W, dump=(2, 3, 4, 0))
    odd = [lane % 2 for lane in range(n)]
    assert r.out[0] == [1 if o else 0 for o in odd]
    assert r.out[1] == [1 if o else 2 for o in odd]
    assert r.out[2] == [1] * n                     # r4 = 1 from row 1, every write skipped
    assert r.out[3] == [8] * n


def test_exec_never_regains_a_faulted_lane() -> None:
    n = W = 4
    body = [I(Op.M_GETEXEC, 2),                    # saved before the fault: all lanes
            I(Op.DIV, 3, 0, 1, imm=32, ip=7),      # lane 1 divides by zero
            I(Op.M_OR, EXEC, EXEC, 2),             # rejoin with the saved mask
            I(Op.MOVI, 4, imm=1, wm=1),
            I(Op.PARAM, 3, imm=IN_A, wm=1),
            I(Op.STORE, a=3, b=R_GID, c=4, ip=8),  # a[gid] = 1 under EXEC
            I(Op.M_SETEXEC, a=2),                  # again, through M_SETEXEC
            I(Op.PARAM, 3, imm=IN_B, wm=1),
            I(Op.STORE, a=3, b=R_GID, c=4, ip=9)]  # b[gid] = 1 under EXEC
    r = execute(body, n, W, a=[0, 0, 0, 0], b=[1, 0, 1, 1], dump=())
    assert r.status == [1, 2, 1, 1] and r.fault_ip == [-1, 7, -1, -1]
    assert r.mem[:n].tolist() == [1, 0, 1, 1]
    assert r.mem[n:].tolist() == [1, 0, 1, 1]      # lane 1's b stays 0


def test_kill_then_halt_is_completed() -> None:
    n, W = 8, 4
    body = even_lanes_exec() + [I(Op.KILL), I(Op.MOVI, 2, imm=3, wm=1)]
    r = execute(body, n, W)
    assert r.status == [1] * n and r.fault_ip == [-1] * n and r.fault_code == [0] * n
    # killed (even) lanes are not ALIVE, so the epilogue does not store them
    assert r.out[0] == [SENTINEL if g % 2 == 0 else 3 for g in range(n)]


def test_partial_last_wave() -> None:
    n, W = 10, 8
    rows = [I(Op.MOVI, 0, imm=1),                 # masked: workitem lanes only
            I(Op.SET_INACTIVE, 1, 0, imm=0, wm=1),
            I(Op.WWM_SUM, 2, 1, imm=64, wm=1),
            I(Op.GID, 3), I(Op.PARAM, 4, imm=0, wm=1),
            I(Op.STORE, a=4, b=3, c=2, ip=1),
            I(Op.HALT)]
    mem = np.full(n, SENTINEL, dtype=np.int64)
    r = launch(rows, n, W, mem=mem, buftab=[[0, n, 64]], params=[0])
    assert r.rc == 0
    assert len(r.status) == n and r.status == [1] * n
    assert r.mem.tolist() == [8] * 8 + [2] * 2    # lanes past n were never active
    ninstr = len(rows)
    assert r.counters == [2 * ninstr, (8 + 2) * ninstr, 2, 0]


def test_masks_are_empty_at_issue_but_registers_and_slots_keep_the_last_waves_values() -> None:
    """docs/semantics.md: a reused slot's registers and spill slots are not cleared (a read
    of a never-written lane shows a stale value), its masks are."""
    n, W = 8, 2
    rows = [I(Op.PARAM, 4, imm=0, wm=1), I(Op.GID, 3, wm=1),
            I(Op.JZ_MASK, a=3, imm=4),                # m3 empty at issue: taken
            I(Op.MOVI, 2, imm=-50, wm=1),             # (runs only if m3 were stale)
            I(Op.RELOAD, 1, imm=1, wm=1),             # slot 1: the previous wave's r2
            I(Op.ADD, 2, 1, 5, imm=64),               # + r5: the previous wave's gid
            I(Op.STORE, a=4, b=3, c=2, ip=1),
            I(Op.GID, 5, wm=1),
            I(Op.MOVI, 2, imm=100, wm=1), I(Op.SPILL, a=2, imm=1, wm=1),
            I(Op.M_GETEXEC, 3),
            I(Op.HALT)]
    mem = np.full(n, SENTINEL, dtype=np.int64)
    r = launch(rows, n, W, mem=mem, buftab=[[0, n, 64]], params=[0], slots=1)
    # wave 0 finds zeros (a fresh slot); wave w > 0 finds wave w-1's values in the slot
    assert r.rc == 0 and r.mem.tolist() == [0, 0] + [100 + g - W for g in range(W, n)]


# --- scheduling -------------------------------------------------------------------------

def _race_free(n: int, W: int, **kw: Any) -> Result:
    """out[gid] = sum of 0..gid % 5 by a loop whose trip count differs per lane."""
    rows = [I(Op.PARAM, 7, imm=0, wm=1), I(Op.GID, 6, wm=1),
            I(Op.MOVI, 1, imm=5, wm=1), I(Op.REM, 0, 6, 1, imm=64, ip=0),   # k = gid % 5
            I(Op.MOVI, 2, imm=0), I(Op.MOVI, 3, imm=1, wm=1),
            # loop at 6: while k > 0: acc += k; k -= 1
            I(Op.MOVI, 4, imm=0, wm=1), I(Op.CMP_GT, 4, 0, 4, imm=64),
            I(Op.M_FROMCOND, 2, 4), I(Op.M_SETEXEC, a=2),
            I(Op.JZ_EXEC, imm=14),
            I(Op.ADD, 2, 2, 0, imm=64), I(Op.SUB, 0, 0, 3, imm=64),
            I(Op.JMP, imm=6),
            # 14: every lane that started
            I(Op.M_SETEXEC, a=ALIVE),
            I(Op.STORE, a=7, b=6, c=2, ip=1),
            I(Op.HALT)]
    mem = np.full(n, SENTINEL, dtype=np.int64)
    return launch(rows, n, W, mem=mem, buftab=[[0, n, 64]], params=[0], **kw)


def test_several_slots_interleaved_give_the_same_race_free_result() -> None:
    n, W = 37, 4
    expect = [sum(range((g % 5) + 1)) for g in range(n)]
    base = _race_free(n, W)
    assert base.rc == 0 and base.mem.tolist() == expect
    order = np.array([9, 3, 0, 7, 1, 8, 2, 6, 4, 5])
    for slots, quantum in [(3, 1), (2, 5), (16, 1), (4, 2)]:
        r = _race_free(n, W, slots=slots, quantum=quantum, order=order)
        assert r.rc == 0 and r.mem.tolist() == expect, (slots, quantum)
        assert r.status == [1] * n
        assert r.counters == base.counters  # same work, whatever the interleaving


def test_quantum_one_really_interleaves_waves() -> None:
    # each wave: lane 0 loads cell 0, then stores it + 1. One slot: 2 increments;
    # two slots, quantum 1: both waves load 0 before either stores, so the result is 1.
    rows = [I(Op.PARAM, 0, imm=0, wm=1), I(Op.MOVI, 1, imm=0, wm=1),
            I(Op.LOAD, 2, 0, 1, ip=0), I(Op.MOVI, 3, imm=1, wm=1),
            I(Op.ADD, 2, 2, 3, imm=64), I(Op.STORE, a=0, b=1, c=2, ip=1), I(Op.HALT)]
    for slots, expect in [(1, 2), (2, 1)]:
        r = launch(rows, 2, 1, mem=[0], buftab=[[0, 1, 64]], params=[0], slots=slots,
                   quantum=1)
        assert r.rc == 0 and r.mem.tolist() == [expect], slots


def test_wave_order_is_respected() -> None:
    # lane 0 of each wave takes a ticket: t = ctr; ctr = t + 1; out[wave] = t
    n, W = 6, 2
    rows = [I(Op.PARAM, 0, imm=0, wm=1), I(Op.LANEID, 1, wm=1),
            I(Op.LNOT, 1, 1, wm=1), I(Op.M_FROMCOND, 2, 1), I(Op.M_SETEXEC, a=2),
            I(Op.MOVI, 1, imm=0, wm=1), I(Op.LOAD, 2, 0, 1, ip=0),
            I(Op.MOVI, 3, imm=1, wm=1), I(Op.ADD, 3, 2, 3, imm=64),
            I(Op.STORE, a=0, b=1, c=3, ip=1),
            I(Op.WAVEID, 4, wm=1), I(Op.MOVI, 5, imm=1, wm=1), I(Op.ADD, 4, 4, 5, imm=64),
            I(Op.STORE, a=0, b=4, c=2, ip=2), I(Op.HALT)]
    r = launch(rows, n, W, mem=[0] * 4, buftab=[[0, 4, 64]], params=[0], order=[2, 0, 1])
    assert r.rc == 0
    assert r.mem.tolist() == [3, 1, 2, 0]         # wave 2 first (ticket 0), then 0, then 1


def _fault_in_wave(n: int, W: int, bad_gid: int, **kw: Any) -> Result:
    rows = [I(Op.GID, 0, wm=1), I(Op.MOVI, 1, imm=bad_gid, wm=1), I(Op.CMP_NE, 1, 0, 1, imm=64),
            I(Op.MOVI, 2, imm=0, wm=1), I(Op.MOVI, 2, imm=0, wm=1),
            I(Op.DIV, 3, 0, 1, imm=64, ip=4),         # gid / (gid != bad): faults there
            I(Op.MOVI, 2, imm=0, wm=1), I(Op.MOVI, 2, imm=0, wm=1), I(Op.HALT)]
    return launch(rows, n, W, **kw)


def test_the_deopt_flag_leaves_later_waves_never_ran_and_resident_ones_complete() -> None:
    n, W = 16, 4
    # one slot: wave 0 faults, waves 1..3 are never issued
    r = _fault_in_wave(n, W, 1)
    assert r.rc == 0
    assert r.status == [1, 2, 1, 1] + [0] * 12
    assert r.fault_ip == [-1, 4, -1, -1] + [-1] * 12
    assert r.counters[2] == 1
    # two slots, quantum 1: wave 1 is already resident when wave 0 faults; it completes
    r = _fault_in_wave(n, W, 1, slots=2, quantum=1)
    assert r.status == [1, 2, 1, 1] + [1] * 4 + [0] * 8
    assert r.counters[2] == 2
    # the flag is about issue order, not wave numbers: descending order, fault in wave 3
    r = _fault_in_wave(n, W, 13, order=[3, 2, 1, 0])
    assert r.status == [0] * 12 + [1, 2, 1, 1]


def test_status_and_counters_are_written_by_the_machine() -> None:
    r = _fault_in_wave(4, 4, 99)  # no fault anywhere
    assert r.status == [1] * 4 and r.fault_ip == [-1] * 4 and r.fault_code == [0] * 4
    assert r.counters == [9, 9 * 4, 1, 0]


def test_zero_workitems_is_a_no_op() -> None:
    r = launch([I(Op.HALT)], 0, 8)
    assert r.rc == 0 and r.status == [] and r.counters == [0, 0, 0, 0]


# --- validation and internal errors -----------------------------------------------------

@pytest.mark.parametrize("rows, why", [
    ([I(Op.JMP, imm=5), I(Op.HALT)], "jump target out of range"),
    ([I(Op.JZ_EXEC, imm=-1), I(Op.HALT)], "negative jump target"),
    ([I(Op.ADD, 8, 0, 0, imm=64), I(Op.HALT)], "destination register out of range"),
    ([I(Op.ADD, 0, 0, -1, imm=64), I(Op.HALT)], "negative source register"),
    ([I(Op.STORE, a=0, b=0, c=8), I(Op.HALT)], "store value register out of range"),
    ([I(Op.M_OR, 6, 0, 0), I(Op.HALT)], "mask register out of range"),
    ([I(Op.M_CLEAR, ALIVE), I(Op.HALT)], "a mask op writing ALIVE"),
    ([I(Op.SPILL, a=0, imm=2), I(Op.HALT)], "spill slot out of range"),
    ([I(Op.PARAM, 0, imm=1), I(Op.HALT)], "parameter index out of range"),
    ([I(Op.ADD, 0, 0, 0, imm=24), I(Op.HALT)], "a kind of no width 8, 16, 32 or 64"),
    ([I(Op.ADD, 0, 0, 0, imm=512 + 32), I(Op.HALT)], "a kind with a stray flag"),
    ([(120, 0, 0, 0, 0, 0, 0, -1), I(Op.HALT)], "unknown opcode"),
    ([I(Op.MOV, 0, 1, wm=2), I(Op.HALT)], "write mode not 0 or 1"),
    ([I(Op.HALT), I(Op.MOVI, 0, imm=1)], "code may run off its end"),
    ([], "no code"),
])
def test_invalid_code_is_an_internal_error_before_anything_runs(rows: list, why: str) -> None:
    mem = np.array([5, 6], dtype=np.int64)
    r = launch(rows, 4, 2, mem=mem, buftab=[[0, 2, 64]], params=[0])
    assert r.rc == machine.ERR_CODE, why
    assert r.mem.tolist() == [5, 6] and r.counters == [0, 0, 0, 0]  # nothing ran


def test_inconsistent_arguments_are_internal_errors() -> None:
    halt = [I(Op.HALT)]
    assert launch(halt, 4, 2, order=[0, 0]).rc == machine.ERR_ARGS      # a wave twice
    assert launch(halt, 4, 2, order=[2]).rc == machine.ERR_ARGS         # no such wave
    assert launch(halt, 4, 2, order=[1]).rc == machine.OK               # a relaunch's subset
    assert launch(halt, 4, 65).rc == machine.ERR_ARGS                   # W > 64
    assert launch(halt, 4, 2, slots=0).rc == machine.ERR_ARGS
    assert launch(halt, 4, 2, quantum=0).rc == machine.ERR_ARGS
    assert launch(halt, 4, 2, nmasks=1).rc == machine.ERR_ARGS
    assert launch(halt, 4, 2, mem=[0], buftab=[[0, 2, 64]]).rc == machine.ERR_BUFFER
    assert launch(halt, 4, 2, mem=[0, 0], buftab=[[1, 1, 24]]).rc == machine.ERR_BUFFER  # no kind
    area = machine.DeoptArea.make(1, 1, 2, [0], [], np.zeros((1, 2), np.int64), 1)
    with pytest.raises(TypeError, match="counters"):
        machine.run_launch(code_of(halt), 1, 1, 1, 2, 0, np.zeros(1, np.int64),
                           np.zeros((1, 3), np.int64), np.zeros(1, np.int64),
                           np.zeros(1, np.int64), 1, 1, np.zeros(4, np.float64), area)
    bad = machine.DeoptArea.make(1, 1, 2, [5], [], np.zeros((1, 2), np.int64), 1)
    assert machine.run_launch(code_of(halt), 1, 1, 1, 2, 0, np.zeros(1, np.int64),
                              np.zeros((1, 3), np.int64), np.zeros(1, np.int64),
                              np.zeros(1, np.int64), 1, 1, np.zeros(4, np.int64),
                              bad) == machine.ERR_ARGS   # a saved register past nregs


def test_a_wave_past_the_step_limit_is_an_internal_error() -> None:
    spin = [I(Op.JMP, imm=0)]
    assert launch(spin, 2, 2, max_wave_steps=1000).rc == machine.ERR_STEPS
    assert launch(spin, 4, 2, slots=2, quantum=7, max_wave_steps=100).rc == machine.ERR_STEPS
    assert machine.error_message(machine.ERR_STEPS).startswith("a wave exceeded")


def test_the_machine_is_compiled_once() -> None:
    machine.warm_up()
    before = machine.compilations()
    _race_free(9, 4, slots=2, quantum=3)
    execute([I(Op.ADD, 2, 0, 1, imm=32)], 3, 64)
    assert machine.compilations() == before == 1


@pytest.mark.parametrize("xs, ys", [
    ([-7] * 8, [2] * 8),                                          # uniform operands
    ([7, -7, 9, 100, MIN32, 5, 6, MAX32], [2, 3, -4, 7, -1, 1, 4, 2]),   # 32-bit
    ([2**40, -(2**40), 9, 100, MIN64, 5, 6, MAX64], [3, 3, -4, 7, -1, 1, 4, 2]),  # wide
])
def test_div_masked_write_keeps_inactive_lanes(xs: list[int], ys: list[int]) -> None:
    n = W = 8
    body = [I(Op.MOVI, 2, imm=-1, wm=1)] + even_lanes_exec() + [I(Op.DIV, 2, 0, 1, imm=64, ip=1)]
    r = execute(body, n, W, a=xs, b=ys)
    assert r.out[0] == [wrap(tdiv(x, y), 64) if lane % 2 == 0 else -1
                        for lane, (x, y) in enumerate(zip(xs, ys))]


def test_all_lane_div_writes_zero_where_an_inactive_divisor_is_zero() -> None:
    n = W = 4
    body = even_lanes_exec() + [I(Op.MOVI, 2, imm=-1, wm=1), I(Op.REM, 2, 0, 1, imm=32, wm=1, ip=1)]
    r = execute(body, n, W, a=[7, 7, 7, 7], b=[2, 0, 0, 3])
    assert r.status == [1, 1, 2, 1]                  # only the active lane 2 faults
    assert r.out[0] == [1, 0, SENTINEL, 1]           # inactive lane 1 gets 0, lane 3 7 % 3
