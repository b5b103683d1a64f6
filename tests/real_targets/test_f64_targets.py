"""f64 on the real targets: the hand-worked rows of tests/oracles/test_f64.py on every
installed real target that declares f64 (a row it declines -- Vulkan's fma of f64, a
subnormal on a device that may flush one -- is left out, and says why), and the
example examples/double_precision.py through `difftest check` as a user runs it."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from difftest.campaign.runner import check_case, undefined_in_run
from difftest.core.kernelfile import load_case
from oracles.reference import run_full

from ..oracles.test_f64 import ROWS
from ..oracles.test_int_types import kernel_file
from .test_real_targets import target

TARGETS = ("opencl", "opencl-intel", "lavapipe-glsl", "lavapipe-wgsl", "cuda-sim")


@pytest.mark.parametrize("name", TARGETS)
def test_each_f64_row_computes_as_the_semantics_says(name: str, tmp_path: Path) -> None:
    t = target(name)
    if "f64" not in t.capabilities:
        assert name.endswith("wgsl"), f"{name} declares no f64"
        return
    ran, declined, wrong = 0, [], []
    for k, (expr, result, args, _) in enumerate(ROWS):
        case = load_case(kernel_file(tmp_path, k, expr, result, args))
        why = t.unsupported(case)
        if why is None:
            why = undefined_in_run(t, run_full(case))
        if why is not None:
            declined.append(why)
            continue
        ran += 1
        verdict = check_case(case, t, {}, {}).verdict
        if not verdict.agree or verdict.unchecked:
            wrong.append(f"{expr} ({result}, {args}): {verdict}")
    assert not wrong, "\n".join(wrong)
    # only Vulkan declines rows: fma of f64, and subnormals lavapipe may flush
    assert all("fma() of f64" in w or "subnormal" in w for w in declined), declined
    assert ran >= (len(ROWS) - 8 if name.startswith("lavapipe") else len(ROWS))


@pytest.mark.parametrize("name", ("numba-simt", "reference") + TARGETS)
def test_the_f64_example_agrees_on_every_target_that_runs_it(name: str) -> None:
    from difftest.app.cli import main

    from ..conftest import EXAMPLES

    t = target(name)
    path = EXAMPLES / "double_precision.py"
    why = t.unsupported(load_case(path))
    if why is not None:  # PoCL: no subgroups; WGSL: no f64; Vulkan: no fma of f64
        assert ("wave operations" in why or "f64" in why), why
        return
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(path), "--target", name])
    assert rc == 0, out.getvalue()
    assert "agree" in out.getvalue() and "disagree" not in out.getvalue()
