"""Kernels of the newer values and operations (unsigned and narrow integers, f64, bit
operations, private arrays, wave operations over each type, match, atomics on unsigned
buffers) with their outcomes worked out by hand from docs/semantics.md, each kernel's
comment saying how (tests/data/handworked/, outcomes in expected.json: buffers by value,
each workitem's status, c/f/n, and fault kind; or the checker error a kernel must get).
The reference must compute each one; numba-simt must agree with it."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import pytest

from difftest.core.errors import DifftestError
from difftest.core.kernelfile import load_case
from oracles.reference import run_full

DATA = Path(__file__).resolve().parents[1] / "data" / "handworked"
EXPECTED: dict[str, dict[str, Any]] = json.loads((DATA / "expected.json").read_text())


def _float(storage: int, dtype: str) -> float:
    bits = storage & ((1 << 64) - 1)
    if dtype == "f32":
        return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


def _same(storage: int, want: float | int, dtype: str) -> bool:
    if dtype[0] != "f":  # a value and the storage form it has (a u64 past 2^63: negative)
        return (storage - int(want)) % (1 << 64) == 0
    got = _float(storage, dtype)
    if math.isnan(want):
        return math.isnan(got)
    if dtype == "f32":
        want = struct.unpack("<f", struct.pack("<f", want))[0]
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_reference_computes_the_hand_worked_outcome(name: str) -> None:
    want = EXPECTED[name]
    if "error" in want:
        with pytest.raises(DifftestError, match=want["error"]):
            run_full(load_case(DATA / name))
        return
    run = run_full(load_case(DATA / name))
    for buffer, spec in want.get("buffers", {}).items():
        got = run.final[buffer].tolist()
        assert len(got) == len(spec["values"]) and all(
            _same(g, w, spec["dtype"]) for g, w in zip(got, spec["values"])), (buffer, got)
    if "status" in want:  # (the oracle runs every workitem: none never ran)
        assert "".join("c" if f is None else "f" for f in run.fates) == want["status"]
    faults = {str(g): f.kind for g, f in enumerate(run.fates) if f is not None}
    assert faults == want.get("faults", {})


@pytest.mark.parametrize("name", sorted(n for n, w in EXPECTED.items() if "error" not in w))
def test_numba_simt_agrees(name: str) -> None:
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    verdict = check_case(load_case(DATA / name), load_target("numba-simt"), {}, {}).verdict
    assert verdict.agree, str(verdict)
