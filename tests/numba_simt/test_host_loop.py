"""numba-simt's host loop (host_loop.py), instruction by instruction, against the ISA's
meaning written out here with Python's integers (isa.py's comments: two's-complement
wrapping at the instruction's width, truncated division, the wave operations over all W
lanes); and the decoding it reads."""

from __future__ import annotations

import numpy as np
import pytest

from targets.numba_simt.runtime import host_loop, trampoline
from targets.numba_simt.isa import ALIVE, EXEC, Op

EDGES = [0, 1, -1, 2, 7, -7, 31, 32, 33, 63, 64, 2**31 - 1, -2**31, 2**31, 2**32 + 5,
         2**62, 2**63 - 1, -2**63, -2**63 + 1, 123456789123, -987654321987]


def _wrap(x: int, w: int) -> int:
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def _tdiv(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


SPEC_BINARY = {
    Op.ADD: lambda x, y, w: _wrap(x + y, w), Op.SUB: lambda x, y, w: _wrap(x - y, w),
    Op.MUL: lambda x, y, w: _wrap(x * y, w), Op.AND: lambda x, y, w: x & y,
    Op.OR: lambda x, y, w: x | y, Op.XOR: lambda x, y, w: x ^ y,
    Op.SHL: lambda x, y, w: _wrap(x << (y & (w - 1)), w),
    Op.SHR: lambda x, y, w: _wrap(x >> (y & (w - 1)), w),
    Op.CMP_EQ: lambda x, y, w: int(x == y), Op.CMP_NE: lambda x, y, w: int(x != y),
    Op.CMP_LT: lambda x, y, w: int(x < y), Op.CMP_LE: lambda x, y, w: int(x <= y),
    Op.CMP_GT: lambda x, y, w: int(x > y), Op.CMP_GE: lambda x, y, w: int(x >= y),
    Op.DIV: lambda x, y, w: _wrap(_tdiv(x, y), w),
    Op.REM: lambda x, y, w: _wrap(x - _tdiv(x, y) * y, w),
}
SPEC_UNARY = {Op.NEG: lambda x, w: _wrap(-x, w), Op.NOT: lambda x, w: _wrap(~x, w),
              Op.WRAP: lambda x, w: _wrap(x, w), Op.LNOT: lambda x, w: 1 - x}


def _rows(*instrs: tuple[int, ...]) -> np.ndarray:
    return np.array([(int(op), *rest) for op, *rest in instrs], dtype=np.int64)


HALT = (Op.HALT, 0, 0, 0, 0, 0, 0, -1)


def _run_wave(code: np.ndarray, regs: np.ndarray, active: int) -> tuple[int, np.ndarray]:
    """Run decoded `code` over a whole wave (W = regs' rows) with `active` lanes in EXEC
    and ALIVE: (status, the fault rows)."""
    W = regs.shape[0]
    active, every = _wrap(active, 64), _wrap((1 << W) - 1, 64)  # as int64 words
    masks = np.zeros(2, dtype=np.int64)
    masks[EXEC] = masks[ALIVE] = active
    state = np.zeros(host_loop.STATE_SIZE, dtype=np.int64)
    host_loop.start(state, 0, 0, W, 0, W, active, every)
    faults = np.zeros((W, 3), dtype=np.int64)
    status = host_loop.run(code, regs, masks, np.zeros(W, dtype=np.int64), state, faults,
                           np.zeros(1, dtype=np.int64), np.zeros((0, 3), dtype=np.int64),
                           np.zeros(1, dtype=np.int64), 1, 100, 1024, EXEC, ALIVE)
    return int(status), faults[:int(state[host_loop.S_FAULTS])]


@pytest.mark.parametrize("width", [32, 64, 1, 7])
@pytest.mark.parametrize("op", list(SPEC_BINARY))
def test_binary_arithmetic_wraps_at_the_width_on_edge_values(op: Op, width: int) -> None:
    """`V[2] = V[0] op V[1]`, every pair of edge values at once, one pair a lane."""
    pairs = [(x, y) for x in EDGES for y in EDGES]
    code = trampoline.decode(_rows((op, 2, 0, 1, 0, width, 0, 0), HALT), 3, 2).lane
    for at in range(0, len(pairs), 64):
        chunk = pairs[at:at + 64]
        regs = np.array([(x, y, 5) for x, y in chunk], dtype=np.int64)
        status, faults = _run_wave(code, regs, (1 << len(chunk)) - 1)
        assert status == host_loop.DONE
        faulted = {int(lane) for lane in faults[:, 0]}
        for lane, (x, y) in enumerate(chunk):
            if op in (Op.DIV, Op.REM) and y == 0:
                assert lane in faulted and regs[lane, 2] == 5  # the lane faults
                continue
            assert int(regs[lane, 2]) == SPEC_BINARY[op](x, y, width), (op.name, x, y)


@pytest.mark.parametrize("width", [32, 64, 5])
@pytest.mark.parametrize("op", list(SPEC_UNARY))
def test_unary_arithmetic_wraps_at_the_width_on_edge_values(op: Op, width: int) -> None:
    xs = EDGES if op != Op.LNOT else [0, 1]
    code = trampoline.decode(_rows((op, 1, 0, 0, 0, width, 0, 0), HALT), 2, 2).lane
    regs = np.array([(x, 5) for x in xs], dtype=np.int64)
    assert _run_wave(code, regs, (1 << len(xs)) - 1)[0] == host_loop.DONE
    assert [int(v) for v in regs[:, 1]] == [SPEC_UNARY[op](x, width) for x in xs]


WAVE = [5, -3, 0, 9, 2**40, -7, 1, 0]  # V[0] in each of 8 lanes
EXEC_LANES = 0b0110_1010


@pytest.mark.parametrize("op, imm, b, want", [
    (Op.SET_INACTIVE, 77, 0, [77 if not EXEC_LANES >> i & 1 else x for i, x in enumerate(WAVE)]),
    (Op.WWM_SUM, 32, 0, [_wrap(sum(WAVE), 32)] * 8),
    (Op.WWM_MIN, 0, 0, [min(WAVE)] * 8),
    (Op.WWM_MAX, 0, 0, [max(WAVE)] * 8),
    (Op.WWM_OR, 0, 0, [1] * 8),
    (Op.WWM_AND, 0, 0, [0] * 8),
    (Op.WWM_BALLOT, 0, 0, [sum(1 << i for i, x in enumerate(WAVE) if x)] * 8),
    (Op.WWM_SCAN_EXCL, 64, 0, [sum(WAVE[:i]) for i in range(8)]),
    (Op.WWM_SCAN_INCL, 64, 0, [sum(WAVE[:i + 1]) for i in range(8)]),
    (Op.READFIRST, 0, 0, [WAVE[1] if EXEC_LANES >> i & 1 else 0 for i in range(8)]),
    (Op.SHUFFLE, 0, 1, [(WAVE[7 - i] if EXEC_LANES >> i & 1 else 0) for i in range(8)]),
])
def test_wave_operations_read_every_lane_as_the_isa_says(op: Op, imm: int, b: int,
                                                        want: list[int]) -> None:
    """`V[2] = op(V[0])` (SHUFFLE: lane i reads lane V[1][i] = 7 - i) on a wave of 8
    lanes with EXEC_LANES active; a write of the active lanes leaves the others 0."""
    code = trampoline.decode(_rows((op, 2, 0, b, 0, imm, 0, -1), HALT), 3, 2).lane
    regs = np.array([(x, 7 - i, 0) for i, x in enumerate(WAVE)], dtype=np.int64)
    assert _run_wave(code, regs, EXEC_LANES)[0] == host_loop.DONE
    assert [int(v) for v in regs[:, 2]] == want


def test_a_fail_faults_each_active_lane_in_lane_order_and_the_run_ends() -> None:
    """FAIL: every EXEC lane faults with its code, lowest first; with every owned lane
    gone the run is done (the MOVI after it never runs)."""
    code = trampoline.decode(_rows((Op.FAIL, 0, 0, 0, 0, 0, 0, 0),
                                   (Op.MOVI, 1, 0, 0, 0, 9, 1, -1), HALT), 2, 2).lane
    regs = np.array([(10 + i, 0) for i in range(4)], dtype=np.int64)
    status, faults = _run_wave(code, regs, 0b1101)
    assert status == host_loop.DONE
    assert faults.tolist() == [[0, 1, 10], [2, 1, 12], [3, 1, 13]]
    assert regs[:, 1].tolist() == [0, 0, 0, 0]


def test_decoding_rejects_an_unknown_opcode_a_register_and_a_width_out_of_range() -> None:
    with pytest.raises(trampoline.ResumeError, match="unknown opcode 120"):
        trampoline.decode(_rows((120, 0, 0, 0, 0, 0, 0, -1), HALT), 4, 2)
    with pytest.raises(trampoline.ResumeError, match="ADD.*register"):
        trampoline.decode(_rows((Op.ADD, 0, 1, 4, 0, 32, 0, -1), HALT), 4, 2)
    with pytest.raises(trampoline.ResumeError, match="M_OR.*register"):
        trampoline.decode(_rows((Op.M_OR, 2, 0, 1, 0, 0, 0, -1), HALT), 4, 2)
    with pytest.raises(trampoline.ResumeError, match="DIV.*width 0"):
        trampoline.decode(_rows((Op.DIV, 0, 1, 2, 0, 0, 0, 0), HALT), 4, 2)
    with pytest.raises(trampoline.ResumeError, match="SHUFFLE.*register"):
        trampoline.decode(_rows((Op.SHUFFLE, 0, 1, 5, 0, 0, 0, -1), HALT), 4, 2)


def test_a_jump_outside_the_code_lands_on_a_sentinel_that_is_an_internal_error() -> None:
    decoded = trampoline.decode(_rows((Op.JMP, 0, 0, 0, 0, 17, 0, -1), HALT), 1, 2)
    jump = decoded.lane[0]
    target = decoded.lane[jump[host_loop.C_IMM]]
    assert target[host_loop.C_KIND] == host_loop.K_OUTSIDE and target[host_loop.C_IMM] == 17
    assert decoded.lane[2][host_loop.C_KIND] == host_loop.K_OUTSIDE  # past the end
    regs = np.zeros((1, 1), dtype=np.int64)
    assert _run_wave(decoded.lane, regs, 1)[0] == host_loop.ERR_OUTSIDE


def test_relocation_reads_each_frames_own_bitmap_to_its_last_bit() -> None:
    # two frames of one layout: head (gid, reason, ip, trips, 0 mask words), 2 bitmap
    # words, 65 values; frame 0 marks value 63 (the sign bit of word 0) and value 64,
    # frame 1 marks value 0 only
    frames = np.zeros((2, 4 + 2 + 65), dtype=np.int64)
    frames[0, 4] = np.int64(-2**63)
    frames[0, 5] = 1
    frames[1, 4] = 1
    frames[:, 6:] = 16
    trampoline.relocate_waiting(frames, {16: 48, 7: 9}, 0, 65)
    assert [i for i, x in enumerate(frames[0, 6:]) if x == 48] == [63, 64]
    assert [i for i, x in enumerate(frames[1, 6:]) if x == 48] == [0]


def test_relocation_moves_a_value_once_when_moves_chain() -> None:
    values = np.array([16, 48, 5], dtype=np.int64)
    host_loop.relocate(values, np.array([16, 48]), np.array([48, 80]))
    assert values.tolist() == [48, 80, 5]
