"""The bitwise, clustered and quad operations and wave_all_equal on every installed real
target that has subgroups: tests/oracles/test_subgroup_vocabulary.py's kernel (values
from its own per-lane model) in the widest wave each runs and in waves of 8, and the
examples through `difftest check`; GLSL uses the device's clustered operations where it
has them (Mesa 25's lavapipe) and composes them of shuffles where not (Mesa 22's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.campaign.runner import check_case
from difftest.core.kernelfile import load_case

from ..oracles.test_subgroup_vocabulary import case_file
from .test_real_targets import target
from .test_vulkan import maximal_icd

TARGETS = ("opencl-intel", "lavapipe-glsl", "lavapipe-wgsl", "cuda-sim")


@pytest.mark.parametrize("name", TARGETS)
def test_the_vocabulary_computes_as_the_model(name: str, tmp_path: Path) -> None:
    t = target(name)
    for wave in sorted({8, max(w for w in t.wave_sizes if w <= 64)}):
        case = load_case(case_file(tmp_path, wave))
        assert t.unsupported(case) is None, t.unsupported(case)
        verdict = check_case(case, t, {}, {}).verdict
        assert verdict.agree and not verdict.unchecked, f"W = {wave}: {verdict}"


@pytest.mark.parametrize("icd, native", [("", False), ("maximal", True)])
def test_glsl_clustered_native_where_the_device_has_them(icd: str, native: bool,
                                                         tmp_path: Path) -> None:
    t = target("lavapipe-glsl")
    options = {"icd": maximal_icd()} if icd else {}
    case = load_case(case_file(tmp_path, 8))
    source = t.listing(case, options)
    assert source is not None
    assert ("subgroupClusteredMin" in source) is native  # cluster=4 of 8 lanes
    assert "subgroupQuadBroadcast" in source and "subgroupAllEqual" in source
    verdict = check_case(case, t, {}, options).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)
