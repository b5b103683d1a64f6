"""Ballot arithmetic (docs/semantics.md, "Ballot arithmetic") in a 64-lane wave, where a
ballot's high word holds lanes 32-63: values worked out by hand on the reference, and
numba-simt's machine and host replay against it (examples/ballot_arithmetic.py has W = 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.campaign.registry import load_target
from difftest.campaign.runner import check_case
from difftest.core.kernelfile import load_case
from oracles.reference import run_full

# lanes 2 and 40 vote yes: b = 2^40 + 4; each workitem also reads x = b | 2^63 (bit 63:
# lane 63's); lane 41 faults (a division by zero) after the ballot functions
KERNEL = """# difftest: launch n=64 wave=64
# difftest: arg out = i32[0] * 320
def kernel(out: Buffer[i32]):
    g = gid()
    b = ballot(g == 2 or g == 40)
    x = b | (i64(1) << 63)
    out[g] = ballot_find_msb(b)
    out[g + 64] = ballot_find_lsb(b)
    out[g + 128] = ballot_exclusive_bit_count(x)
    out[g + 192] = ballot_bit_count(x)
    out[g + 256] = i32(inverse_ballot(x))
    out[g] = out[g] // (g - 41)
"""


def _expected(g: int) -> tuple[int, int, int, int, int]:
    exclusive = (g > 2) + (g > 40)  # lanes 2, 40 and 63 below g
    return 40, 2, exclusive, 3, int(g in (2, 40, 63))


def test_the_reference_reads_both_words_of_a_64_lane_ballot(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    run = run_full(load_case(path))
    out = [int(v) for v in run.final["out"]]
    for g in range(64):
        msb, lsb, exclusive, count, inverse = _expected(g)
        assert (out[g + 64], out[g + 128], out[g + 192], out[g + 256]) == \
            (lsb, exclusive, count, inverse), g
        if g != 41:  # 41 faults: its last store never ran
            assert out[g] == int(msb / (g - 41)), g  # truncating division
    assert run.fates[41] is not None and run.fates[41].kind == "division_by_zero"


@pytest.mark.parametrize("schedule, options", [
    ({}, {}), ({}, {"registers": 5}), ({}, {"speculate": 7}),
    # lanes forced to deopt at the first store: the host's loop computes the rest
    ({"deopt_percent": 60, "deopt_seed": 3}, {})])
def test_numba_simt_agrees_in_a_64_lane_wave(tmp_path: Path, schedule: dict,
                                             options: dict) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    verdict = check_case(load_case(path), load_target("numba-simt"), schedule,
                         options).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


def test_the_msb_mutant_reads_the_low_word_alone(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    verdict = check_case(load_case(path), load_target("numba-simt"), {},
                         {"mutants": ["ballot-functions-low-word"]}).verdict
    assert not verdict.agree and "out[" in str(verdict)
