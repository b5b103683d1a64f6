"""Every integer type's arithmetic, comparisons and conversions on the real targets: the
rows of tests/oracles/test_int_types.py (each worked out by hand, and the reference
checked against them there), each a kernel of typed scalar arguments, run on every
installed real target that declares the row's types and checked against the reference.
A target that declares fewer types (WGSL: 32 and 64 bits only) runs the rows it can."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.campaign.runner import check_case
from difftest.core.kernelfile import load_case

from ..oracles.test_int_types import ROWS, kernel_file
from .test_real_targets import target

TARGETS = ("opencl", "opencl-intel", "lavapipe-glsl", "lavapipe-wgsl", "cuda-sim")


@pytest.mark.parametrize("name", TARGETS)
def test_each_integer_type_computes_as_the_semantics_says(name: str, tmp_path: Path) -> None:
    t = target(name)
    ran, wrong = 0, []
    for k, (expr, result, args, _) in enumerate(ROWS):
        case = load_case(kernel_file(tmp_path, k, expr, result, args))
        if t.unsupported(case) is not None:
            continue
        ran += 1
        verdict = check_case(case, t, {}, {}).verdict
        if not verdict.agree or verdict.unchecked:
            wrong.append(f"{expr} ({result}, {args}): {verdict}")
    assert not wrong, "\n".join(wrong)
    assert ran >= (20 if name.endswith("wgsl") else len(ROWS))  # the rows it declares


@pytest.mark.parametrize("name", TARGETS)
def test_each_integer_function_computes_as_the_semantics_says(name: str,
                                                             tmp_path: Path) -> None:
    """The rows of tests/oracles/test_bit_ops.py (popcount, clz, ctz, bit_reverse, the
    rotations, mul_hi, min, max, abs of every integer type): the translations' builtins
    and their compositions of 32-bit halves."""
    from ..oracles.test_bit_ops import ROWS as FUNCTIONS

    t = target(name)
    ran, wrong = 0, []
    for k, (expr, result, args, _) in enumerate(FUNCTIONS):
        case = load_case(kernel_file(tmp_path, k, expr, result, args))
        if t.unsupported(case) is not None:
            continue
        ran += 1
        verdict = check_case(case, t, {}, {}).verdict
        if not verdict.agree or verdict.unchecked:
            wrong.append(f"{expr} ({result}, {args}): {verdict}")
    assert not wrong, "\n".join(wrong)
    assert ran >= (20 if name.endswith("wgsl") else len(FUNCTIONS))


@pytest.mark.parametrize("name", TARGETS)
def test_private_arrays_run_as_the_semantics_says(name: str, tmp_path: Path) -> None:
    """The rows of tests/oracles/test_private_arrays.py: zeroed at each declaration,
    one per workitem under divergence, run-time indices, narrow elements, the bounds."""
    from ..oracles.test_private_arrays import ROWS as ARRAYS, kernel_file as array_file

    t = target(name)
    ran, wrong = 0, []
    for k in range(len(ARRAYS)):
        case = load_case(array_file(tmp_path, k))
        if t.unsupported(case) is not None:
            continue
        ran += 1
        verdict = check_case(case, t, {}, {}).verdict
        if not verdict.agree or verdict.unchecked:
            wrong.append(f"{ARRAYS[k][0]}: {verdict}")
    assert not wrong, "\n".join(wrong)
    assert ran >= (8 if name.endswith("wgsl") else len(ARRAYS))


@pytest.mark.parametrize("example", ["integer_types", "bit_ops", "private_arrays",
                                     "ballot_arithmetic", "relative_shuffles",
                                     "clustered_reductions", "quad_operations", "all_equal",
                                     "switch_cases"])
@pytest.mark.parametrize("name", ("numba-simt", "reference") + TARGETS)
def test_the_integer_examples_agree_on_every_target_that_runs_them(example: str,
                                                                    name: str) -> None:
    """`difftest check examples/NAME.py` as a user runs it (the examples' headers derive
    the values by hand: tests/app/test_examples.py checks the reference against them)."""
    import contextlib
    import io

    from difftest.app.cli import main

    from ..conftest import EXAMPLES

    t = target(name)
    path = EXAMPLES / f"{example}.py"
    why = t.unsupported(load_case(path))
    if why is not None:  # WGSL: no 8-bit integers; PoCL: no subgroups
        assert name.endswith("wgsl") or "wave operations" in why, why
        return
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(path), "--target", name])
    assert rc == 0, out.getvalue()
    assert "agree" in out.getvalue() and "disagree" not in out.getvalue()


def test_a_device_without_extended_subgroup_types_declines_narrow_wave_ops(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A Vulkan device whose subgroup operations take no 8- or 16-bit integers
    (shaderSubgroupExtendedTypes false) declines a case with one, naming it; with the
    feature, the same case runs."""
    from difftest.core.case import case_from_json

    t = target("lavapipe-glsl")
    case = case_from_json({"kernel": "def k(out: Buffer[u8], x: u8):\n"
                                     "    out[lane()] = wave_sum(x)\n",
                           "entry": "k", "launch": {"n": 4, "wave": 4},
                           "args": {"out": {"dtype": "u8", "data": [0] * 4}, "x": 200}})
    device = t._device()  # type: ignore[attr-defined]
    ints = dict(device.props.get("ints", {}))
    monkeypatch.setitem(device.props, "ints", {**ints, "subgroup_extended": False})
    why = t.unsupported(case)
    assert why is not None and "wave_sum() of u8 at line 2" in why \
        and "shaderSubgroupExtendedTypes" in why
    monkeypatch.setitem(device.props, "ints", {**ints, "subgroup_extended": True})
    assert t.unsupported(case) is None


BALLOT_OF_I32 = """# difftest: launch n=8 wave=8
# difftest: arg out = i32[0] * 16
def kernel(out: Buffer[i32]):
    g = gid()
    out[g] = ballot_find_msb(g) + ballot_bit_count(g - 1) * 10
    out[g + 8] = ballot_inclusive_bit_count(g * 3) + i32(inverse_ballot(g - 9)) * 100
"""


@pytest.mark.parametrize("name", TARGETS)
def test_a_ballot_function_of_a_narrower_value_widens_it_first(name: str,
                                                                tmp_path: Path) -> None:
    """A ballot function's argument may be any signed integer (an i32 widens to i64,
    sign-extended, as everywhere): each translation converts it before its bits are
    read (the WGSL one once bit-cast an i32 as if it were 64 bits wide). The values differ
    per lane: Intel's compiler aborts on a count of a uniform one (docs/findings.md,
    intel-ballot-bit-count-crash)."""
    t = target(name)
    path = tmp_path / "k.py"
    path.write_text(BALLOT_OF_I32)
    case = load_case(path)
    if t.unsupported(case) is not None:
        assert "wave operations" in t.unsupported(case), t.unsupported(case)
        return
    verdict = check_case(case, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


@pytest.mark.parametrize("name", [t for t in TARGETS if not t.endswith("wgsl")])
def test_an_atomic_on_narrow_elements_is_declined_before_any_run(name: str) -> None:
    """No language under test has 8- or 16-bit atomics: a case with one, through a
    parameter, a buffer variable, a helper's parameter or a workgroup array, is one the
    target declines up front (it was an `unsupported` run, which check counted as not
    checked and exit 0), and the same kernel on 32-bit elements is not."""
    from difftest.core.case import case_from_json

    t = target(name)
    kernels = {
        "direct": "def k(out: Buffer[{e}]):\n    atomic_add(out, 0, {e}(1))\n",
        "variable": "def k(out: Buffer[{e}]):\n    b = out\n    atomic_add(b, 0, {e}(1))\n",
        "helper": "def h(o: Buffer[{e}]) -> {e}:\n    old = atomic_max(o, 0, {e}(1))\n"
                  "    return old\n\ndef k(out: Buffer[{e}]):\n    x = h(out)\n",
        "local": "def k(out: Buffer[{e}]):\n    a: Local[{e}, 4]\n"
                 "    atomic_add(a, 0, {e}(1))\n    barrier()\n    out[gid()] = a[0]\n",
    }
    for shape, text in kernels.items():
        for elem in ("u8", "i16"):
            case = case_from_json({"kernel": text.format(e=elem), "entry": "k",
                                   "launch": {"n": 4, "wave": 4, "group": 4},
                                   "args": {"out": {"dtype": elem, "data": [0] * 4}}})
            why = t.unsupported(case)
            assert why is not None and f"on {elem} elements" in why, (shape, why)
        wide = case_from_json({"kernel": text.format(e="u32"), "entry": "k",
                               "launch": {"n": 4, "wave": 4, "group": 4},
                               "args": {"out": {"dtype": "u32", "data": [0] * 4}}})
        assert t.unsupported(wide) is None or "elements" not in t.unsupported(wide), shape
