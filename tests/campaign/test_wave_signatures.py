"""A partial wave is part of a finding's shape only on a target whose launch is cut into
waves: PoCL launches a case's items in work-groups of its own choosing, so a finding
reduced to one item of a 16-lane wave (every recorded pocl-guards-lost-after-conditional-
barrier entry) explains the same operations in a launch of whole waves -- a campaign had
reported such a failure as new."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from difftest.campaign.findings import KnownFinding, explain
from difftest.campaign.signature import Signature, launch_wave, shape
from difftest.core.case import Case
from difftest.core.ir.parse import parse
from difftest.core.verdict import Verdict

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
GHOST = """
def kernel(out: Buffer[i32]):
    wide: Local[i64, 256]
    if gid() > 1000:
        pass
    else:
        wide[0] = 1
        barrier()
        out[gid()] = 2
"""
POCL = frozenset({"faults", "workgroups"})  # no wave operations
WAVES = frozenset({"faults", "workgroups", "wave_ops"})


def _case(n: int) -> Case:
    return Case(GHOST, "kernel", n, 16, {"out": np.zeros(n, dtype=np.int32)}, parse(GHOST))


def test_a_partial_wave_is_in_the_shape_only_where_the_launch_has_waves() -> None:
    one = _case(1)
    assert "partial_wave" in shape(one.program, one.entry, 1, launch_wave(WAVES, 16))
    assert "partial_wave" not in shape(one.program, one.entry, 1, launch_wave(POCL, 16))
    assert "partial_wave" not in shape(one.program, one.entry, 32, launch_wave(WAVES, 16))


def test_a_finding_reduced_below_a_wave_explains_whole_waves_on_pocl() -> None:
    reduced = _case(1)
    wrong = Verdict(False, "R3 memory", "m")

    def known(caps: frozenset[str]) -> KnownFinding:
        return KnownFinding("bug", Signature("opencl", "R3 memory", shape(
            reduced.program, reduced.entry, 1, launch_wave(caps, 16))), CORPUS)

    whole = _case(464)  # 29 waves
    assert explain([known(POCL)], "opencl", whole, wrong, {}, "", None, POCL) is not None
    # where waves are the launch's, the partial wave the finding needed is asked for
    assert explain([known(WAVES)], "opencl", whole, wrong, {}, "", None, WAVES) is None
    assert explain([known(WAVES)], "opencl", _case(17), wrong, {}, "", None, WAVES) is not None


def test_pocls_recorded_findings_ask_for_no_partial_wave() -> None:
    for path in CORPUS.glob("*.json"):
        sig = json.loads(path.read_text()).get("signature")
        if sig and sig["target"] == "opencl":
            assert "partial_wave" not in sig["shape"], path.name
