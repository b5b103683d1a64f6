"""The conformance suite (tests/data/conformance/: kernels written from docs/semantics.md,
their outcomes derived by hand in each header and checked on the reference by
tests/oracles/test_conformance.py) on every installed real target: each file the target
does not decline must agree (declining at run time counts: 8- and 16-bit atomics, which
the translations cannot spell, are the outcome `unsupported`). One test per target,
looping over the files, to keep CI's time low."""

from __future__ import annotations

import pytest

from difftest.campaign.runner import check_case
from difftest.core.kernelfile import load_case

from ..oracles.test_conformance import FILES
from .test_real_targets import target

TARGETS = ("opencl", "opencl-intel", "lavapipe-glsl", "lavapipe-wgsl", "cuda-sim")
# the files each runs: no translation has 8-bit atomics (k20); PoCL no wave operations;
# lavapipe no fma of f64 and no wave of 64, CUDA no wave of 64 either; WGSL only 32- and
# 64-bit integers (no f32, f64, i8, u16)
MIN_RAN = {"opencl": 25, "opencl-intel": 37, "lavapipe-glsl": 35, "lavapipe-wgsl": 9,
           "cuda-sim": 36}


@pytest.mark.parametrize("name", TARGETS)
def test_each_conformance_kernel_agrees(name: str) -> None:
    t = target(name)
    ran, wrong = [], []
    for path in FILES:
        case = load_case(path)
        if t.unsupported(case) is not None:
            continue
        verdict = check_case(case, t, {}, {}).verdict
        if verdict.unchecked and getattr(verdict.actual, "kind", None) == "unsupported":
            continue
        ran.append(path.stem)
        if not verdict.agree or verdict.unchecked:
            wrong.append(f"{path.stem}: {verdict}")
    assert not wrong, "\n".join(wrong)
    assert len(ran) >= MIN_RAN[name], ran
