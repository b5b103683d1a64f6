"""f32 in the translations (docs/semantics.md, "Real targets": contraction off, exact
literals, min/max/abs and the wave operations on the bits, conversions range-checked),
on every installed real target that declares `f32`; expected values derived by hand
(struct's bits, not difftest's)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from difftest.core.case import case_from_json
from difftest.core.kernelfile import load_case
from difftest.core.target import declared_unsupported
from targets.translate import translate

from ..conftest import EXAMPLES
from .test_real_targets import target

F32_TARGETS = ("opencl", "opencl-intel", "cuda-sim", "lavapipe-glsl")
NAN = float("nan")


def bits(x: float) -> int:
    return struct.unpack("<i", struct.pack("<f", x))[0]


def is_nan(b: int) -> bool:
    return (b & 0x7FFFFFFF) > 0x7F800000


def same(got: list[int], want: list[float]) -> bool:
    return all(is_nan(g) if w != w else g == bits(w) for g, w in zip(got, want))


@pytest.mark.parametrize("name", F32_TARGETS)
def test_the_float_example_rounds_as_the_header_derives(name: str) -> None:
    t = target(name)
    got = t.run(load_case(EXAMPLES / "float_rounding.py"), {}, {})
    assert got.error is None, got.error
    assert same(got.buffers["out"].tolist(),
                [0.0, NAN, -1.0, 30000001024.0, 2.0 ** -26, NAN, -1.0, 29999998976.0,
                 0.0, 0.0, -0.0, 0.0])
    assert got.buffers["small"].tolist() == [1, 0, 1, 0]
    assert [g for g, s in enumerate(got.status) if s == "faulted"] == [1, 3]
    assert got.faults is not None and got.faults[1].kind == "invalid_conversion"


KERNEL = """def kernel(x: Buffer[f32], out: Buffer[f32], s: f32):
    g = gid()
    a = x[g]
    out[g] = wave_min(a)
    out[g + 4] = wave_max(a)
    out[g + 8] = shuffle(a * s, 3 - lane())
    out[g + 12] = max(a, -a) + abs(a) * 0.0
    out[g + 16] = f32(i64(min(a, 4.0e18))) if a == a else 1e-45 + 1e-45
"""


@pytest.mark.parametrize("name", ("opencl-intel", "cuda-sim"))
def test_wave_operations_and_min_max_keep_nan_and_signed_zero_rules(name: str) -> None:
    """wave_min/max over [-0.0, NaN, +0.0, 1e-45]: the NaN loses, -0.0 is the minimum,
    the subnormal the maximum; the shuffle reverses the lanes of a * s (s = 0.5: the
    subnormal becomes 0.0, a tie to even); max(a, -a) of a zero is +0.0."""
    t = target(name)
    obj = {"kernel": KERNEL, "entry": "kernel", "launch": {"n": 4, "wave": 4},
           "args": {"x": {"dtype": "f32", "data": [-0.0, "nan", 0.0, 1e-45]},
                    "out": {"dtype": "f32", "data": [0.0] * 20}, "s": 0.5}}
    got = t.run(case_from_json(obj), {}, {})
    assert got.error is None, got.error
    out = got.buffers["out"].tolist()
    assert same(out[0:4], [-0.0] * 4) and same(out[4:8], [1e-45] * 4)
    assert same(out[8:12], [0.0, 0.0, NAN, -0.0])
    assert same(out[12:16], [0.0, NAN, 0.0, 1e-45])
    assert same(out[16:20], [0.0, 2.0 ** -148, 0.0, 0.0])


def test_the_opencl_translation_turns_contraction_off_and_spells_literals_exactly() -> None:
    case = load_case(EXAMPLES / "float_rounding.py")
    src = translate(case.program, case.entry, "opencl", 4).source
    assert "#pragma OPENCL FP_CONTRACT OFF" in src
    assert "0x1.4000000000000p+3f" in src  # 10.0, exactly
    plain = translate(load_case(EXAMPLES / "simple_deopt.py").program, "simple_deopt",
                      "opencl", 4).source
    assert "FP_CONTRACT" not in plain  # an integer kernel's translation is as it was


def test_wgsl_does_not_run_floats() -> None:
    t = target("vulkan-wgsl")
    reason = declared_unsupported(t, load_case(EXAMPLES / "float_rounding.py"))
    assert reason is not None and "f32" in reason


def test_the_glsl_translation_is_precise_and_spells_literals_exactly() -> None:
    case = load_case(EXAMPLES / "float_rounding.py")
    src = translate(case.program, case.entry, "glsl", 4).source
    assert "precise float" in src and "float t" not in src.replace("precise float", "")
    assert "(10.0)" in src and "fma_rn(" in src  # fma through binary64, rounded to odd
    tiny = translate(case_from_json({
        "kernel": "def kernel(x: Buffer[f32]):\n    x[0] = x[0] * 1e-45 + 0.1\n",
        "entry": "kernel", "launch": {"n": 1, "wave": 1},
        "args": {"x": {"dtype": "f32", "data": [1.0]}}}).program, "kernel", "glsl", 1).source
    assert "intBitsToFloat((1))" in tiny  # a subnormal by its bits
    assert "(0.10000000149011612)" in tiny  # binary64's shortest decimal of f32(0.1)
    plain = translate(load_case(EXAMPLES / "simple_deopt.py").program, "simple_deopt",
                      "glsl", 4).source
    assert "precise" not in plain and "fma_rn" not in plain


def test_the_float_bits_reach_the_device_unchanged() -> None:
    """A NaN with a payload and -0.0 in, moved by a load and a store: any NaN out, and
    -0.0 kept (its sign bit)."""
    t = target("opencl")
    obj = {"kernel": "def kernel(x: Buffer[f32], out: Buffer[f32]):\n"
                     "    out[gid()] = x[gid()]\n",
           "entry": "kernel", "launch": {"n": 3, "wave": 1},
           "args": {"x": {"dtype": "f32", "data": ["nan", -0.0, "-inf"]},
                    "out": {"dtype": "f32", "data": [1.0, 1.0, 1.0]}}}
    got = t.run(case_from_json(obj), {}, {}).buffers["out"].tolist()
    assert same(got, [NAN, -0.0, float("-inf")])
    assert np.int32(got[1]) == np.int32(-(2**31))


def test_a_reproducer_compares_floats_as_the_checker_does(tmp_path) -> None:
    """`difftest export` of an f32 case: the standalone reproducer shows f32 elements as
    floats, and takes any NaN for any NaN (its expected values say which buffers are
    f32)."""
    import json
    import subprocess
    import sys

    from difftest.app.cli import main

    target("opencl")
    out = tmp_path / "repro"
    assert main(["export", str(EXAMPLES / "float_rounding.py"), "--target", "opencl",
                 "--out", str(out)]) == 0
    data = json.loads((out / "data.json").read_text())
    assert data["floats"] == ["out", "x"]
    data["expected"]["buffers"]["out"][0] = bits(1.0)
    data["expected"]["buffers"]["out"][1] = -4194304  # a NaN with the sign bit set
    (out / "changed.json").write_text(json.dumps(data))
    done = subprocess.run([sys.executable, str(out / "repro.py"), "--data",
                           str(out / "changed.json")], capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [x for x in done.stdout.splitlines() if x.startswith("out[")]
    assert lines == ["out[0]: expected 1.0, got 0.0"]


def test_the_float_constants_variant_leaves_no_f32_a_compiler_can_fold() -> None:
    """avoid=float-constants (lavapipe-float-zero-fold, lavapipe-select-negative-zero):
    each f32 literal and conversion goes through its bits plus the run-time zero."""
    case = load_case(EXAMPLES / "float_rounding.py")
    plain = translate(case.program, case.entry, "glsl", 4).source
    src = translate(case.program, case.entry, "glsl", 4,
                    avoid=frozenset({"float-constants"})).source
    assert plain.count("(10.0)") == src.count("floatBitsToInt((10.0))") == 2
    conv = case_from_json({
        "kernel": "def kernel(x: Buffer[f32]):\n    x[0] = f32(gid())\n",
        "entry": "kernel", "launch": {"n": 1, "wave": 1},
        "args": {"x": {"dtype": "f32", "data": [1.0]}}}).program
    src = translate(conv, "kernel", "glsl", 1, avoid=frozenset({"float-constants"})).source
    assert "floatBitsToInt(t" in src and "float(C.gid)" in src
