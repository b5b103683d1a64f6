"""numba-simt's compiled one-lane host loop (host_lane.py) against the host's wave loop,
which runs the same resumes one lane at a time in Python: whole runs of generated cases
must not tell them apart; its arithmetic against the wave loop's on edge values; and the
decoding both loops read."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators.cases import kernel_cases
from targets.numba_simt import host_lane, trampoline
from targets.numba_simt.isa import Op
from targets.numba_simt.target import NumbaSimtTarget

TARGET = NumbaSimtTarget()

EDGES = [0, 1, -1, 2, 7, -7, 31, 32, 33, 63, 64, 2**31 - 1, -2**31, 2**31, 2**32 + 5,
         2**62, 2**63 - 1, -2**63, -2**63 + 1, 123456789123, -987654321987]
BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR, Op.CMP_EQ,
          Op.CMP_NE, Op.CMP_LT, Op.CMP_LE, Op.CMP_GT, Op.CMP_GE]


def _run_both(case: Any, schedule: dict[str, Any], monkeypatch: pytest.MonkeyPatch
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    options = dict(case.options)
    compiled = TARGET.run(case, schedule, options).to_json()
    with monkeypatch.context() as m:
        m.setattr(trampoline, "LANE_LOOP", False)
        interpreted = TARGET.run(case, schedule, options).to_json()
    return compiled, interpreted


def test_whole_runs_agree_between_the_lane_loop_and_the_wave_loop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Outcome, memory and diagnostics (deopt counts, allocations, the dispatch trace)
    of generated cases under schedules that deopt often, one run resuming in the
    compiled loop and one in the wave loop."""
    resumed = []

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(kernel_cases(per_kernel=2), st.integers(0, 2**16), st.sampled_from([10, 50, 100]))
    def agree(kc: Any, seed: int, percent: int) -> None:
        for case in kc[1]:
            for schedule in (case.schedule, {"deopt_percent": percent, "deopt_seed": seed,
                                             "after_exception": "finish"}):
                compiled, interpreted = _run_both(case, schedule, monkeypatch)
                assert compiled == interpreted
                resumed.append(len(compiled.get("diagnostics", {}).get("deopted", [])))

    agree()
    assert sum(resumed) >= 200, f"too few resumes to compare: {sum(resumed)}"


@pytest.mark.parametrize("width", [32, 64, 1, 7])
def test_binary_arithmetic_matches_the_wave_loop_on_edge_values(width: int) -> None:
    for op in BINARY:
        code = trampoline._ARITH[op]
        for x in EDGES:
            for y in EDGES:
                want = trampoline._binary(op, width)(x, y)
                got = int(host_lane._arith(code, x, y, width))
                assert got == want, (op.name, width, x, y)


@pytest.mark.parametrize("width", [32, 64, 5])
def test_unary_arithmetic_matches_the_wave_loop_on_edge_values(width: int) -> None:
    for op in (Op.NEG, Op.NOT, Op.WRAP, Op.LNOT):
        for x in EDGES if op != Op.LNOT else [0, 1]:
            want = trampoline._unary(op, width)(x)
            got = int(host_lane._arith(trampoline._ARITH[op], x, 0, width))
            assert got == want, (op.name, width, x)


def _one_instruction(op: Op, x: int, y: int, width: int) -> tuple[int, int]:
    """(status, V[2]) after the compiled loop runs `V[2] = V[0] op V[1]` with V[2] = 5."""
    decoded = trampoline.decode(_rows((op, 2, 0, 1, 0, width, 0, 0),
                                       (Op.HALT, 0, 0, 0, 0, 0, 0, -1)), 3, 2)
    vals = np.array([x, y, 5], dtype=np.int64)
    state = np.zeros(host_lane.STATE_SIZE, dtype=np.int64)
    status = host_lane.run_lane(decoded.lane, vals, np.ones(2, dtype=np.int64), state,
                                np.zeros(1, dtype=np.int64), np.zeros((0, 3), dtype=np.int64),
                                np.zeros(1, dtype=np.int64), 1, 100, 0, 1)
    return int(status), int(vals[2])


@pytest.mark.parametrize("width", [32, 64])
def test_division_matches_the_wave_loop_including_the_overflowing_quotient(width: int) -> None:
    for x in EDGES:
        for y in EDGES:
            for op in (Op.DIV, Op.REM):
                status, got = _one_instruction(op, x, y, width)
                if y == 0:
                    assert (status, got) == (host_lane.FAULTED, 5)  # the lane faults
                    continue
                q = trampoline._tdiv(x, y)
                want = trampoline._wrap(q if op == Op.DIV else x - q * y, width)
                assert (status, got) == (host_lane.DONE, want), (op.name, x, y)


def _rows(*instrs: tuple[int, ...]) -> np.ndarray:
    return np.array([(int(op), *rest) for op, *rest in instrs], dtype=np.int64)


def test_decoding_rejects_an_unknown_opcode_a_register_and_a_width_out_of_range() -> None:
    halt = (Op.HALT, 0, 0, 0, 0, 0, 0, -1)
    with pytest.raises(trampoline.ResumeError, match="unknown opcode 99"):
        trampoline.decode(_rows((99, 0, 0, 0, 0, 0, 0, -1), halt), 4, 2)
    with pytest.raises(trampoline.ResumeError, match="ADD.*register"):
        trampoline.decode(_rows((Op.ADD, 0, 1, 4, 0, 32, 0, -1), halt), 4, 2)
    with pytest.raises(trampoline.ResumeError, match="M_OR.*register"):
        trampoline.decode(_rows((Op.M_OR, 2, 0, 1, 0, 0, 0, -1), halt), 4, 2)
    with pytest.raises(trampoline.ResumeError, match="DIV.*width 0"):
        trampoline.decode(_rows((Op.DIV, 0, 1, 2, 0, 0, 0, 0), halt), 4, 2)


def test_a_jump_outside_the_code_lands_on_a_sentinel_in_both_decodings() -> None:
    decoded = trampoline.decode(_rows((Op.JMP, 0, 0, 0, 0, 17, 0, -1),
                                       (Op.HALT, 0, 0, 0, 0, 0, 0, -1)), 1, 2)
    jump = decoded.lane[0]
    target = decoded.lane[jump[host_lane.C_IMM]]
    assert target[host_lane.C_KIND] == host_lane.K_OUTSIDE and target[host_lane.C_IMM] == 17
    assert decoded.code[jump[host_lane.C_IMM]][6] == 17  # the wave loop's entry: its pc
    assert decoded.lane[2][host_lane.C_KIND] == host_lane.K_OUTSIDE  # past the end


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
