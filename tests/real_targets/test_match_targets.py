"""`match` on the real targets: written as the language's switch where it can say it
(OpenCL C, GLSL, WGSL), kept as the `if` chain where a case breaks out of the loop
around it, and agreeing either way (examples/switch_cases.py has both); the translation
mutant switch-falls-through (arms without `break`) is caught by the example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from difftest.campaign.runner import check_case
from difftest.core.kernelfile import load_case

from ..conftest import EXAMPLES
from .test_real_targets import target

TARGETS = ("opencl-intel", "lavapipe-glsl", "lavapipe-wgsl", "cuda-sim")


@pytest.mark.parametrize("name", TARGETS)
def test_the_example_agrees_and_its_first_match_is_a_switch(name: str) -> None:
    t = target(name)
    case = load_case(EXAMPLES / "switch_cases.py")
    source = t.listing(case, {})
    assert source is not None
    # the first match has no `break`: a switch (CUDA keeps if chains); the one in the
    # loop breaks out of it in `case 3`: an if, whose else is the rest of the chain
    # (`case 0`, which returns): a switch of its own
    switches = re.findall(r"switch \(?v_v", source)
    assert len(switches) == (0 if name == "cuda-sim" else 2), source
    verdict = check_case(case, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


def _switch_block(source: str) -> str:
    """The first `switch` statement of `source`, braces and all."""
    start = source.index("switch ")
    depth = 0
    for k in range(source.index("{", start), len(source)):
        depth += {"{": 1, "}": -1}.get(source[k], 0)
        if depth == 0:
            return source[start:k + 1]
    raise AssertionError(source)


ONE_VALUE_ARM = """\
# difftest: launch n=8 wave=8
# difftest: arg out = i32[0] * 8
def k(out: Buffer[i32]):
    g = gid()
    v = lane() % 3
    match v:
        case 0:
            out[g] = wave_sum(1)
        case 1 | 2:
            out[g] = 5
        case _:
            out[g] = 7
"""


@pytest.mark.parametrize("name", ["lavapipe-glsl", "lavapipe-wgsl"])
def test_spirv_switches_hold_no_wave_operation_an_arm_of_several_values_runs(
        name: str, tmp_path: Path) -> None:
    """SPIR-V's switch keeps together only the lanes of one selector value
    (SPV_KHR_maximal_reconvergence; NVIDIA's driver parts the others): an arm reached by
    several values, or the default, with a wave operation runs after the switch, which
    only picks it; an arm of one value keeps its wave operations inside."""
    t = target(name)
    picked = _switch_block(t.listing(load_case(EXAMPLES / "switch_cases.py"), {}) or "")
    assert "subgroup" not in picked and "default" in picked, picked
    path = tmp_path / "one_value_arm.py"
    path.write_text(ONE_VALUE_ARM)
    case = load_case(path)
    kept = _switch_block(t.listing(case, {}) or "")
    assert "subgroupAdd" in kept, kept
    verdict = check_case(case, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


@pytest.mark.parametrize("name", ["lavapipe-glsl"])  # (the target offering it)
def test_arms_without_break_are_caught(name: str) -> None:
    t = target(name)
    verdict = check_case(load_case(EXAMPLES / "switch_cases.py"), t, {},
                         {"mutants": ["switch-falls-through"]}).verdict
    assert not verdict.agree and "out[" in str(verdict), str(verdict)


# a case value the variable's type cannot hold never matches (`v == 2147483648` of an
# i32 compares as i64): no label of the switch may wrap it to one that does (2147483648
# to MIN, 18446744073709551615 to a u32's all ones), or say a value twice
WIDE_CASES = """\
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-2147483648, -1, 0, 7]
# difftest: arg y = u32[4294967295, 5, 5, 0]
# difftest: arg o = i32[0] * 8
def k(x: Buffer[i32], y: Buffer[u32], o: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 2147483648:
            o[g] = 1
        case 4294967295:
            o[g] = 2
        case 7 | -1 | 4294967303:
            o[g] = 3
        case _:
            o[g] = 4
    w = y[g]
    match w:
        case 18446744073709551615:
            o[g + 4] = 1
        case 9223372036854775813 | 5:
            o[g + 4] = 3
        case _:
            o[g + 4] = 9
"""


@pytest.mark.parametrize("name", TARGETS)
def test_case_values_the_variable_cannot_hold_never_match(name: str, tmp_path: Path
                                                          ) -> None:
    from oracles.reference import run_full

    path = tmp_path / "wide_cases.py"
    path.write_text(WIDE_CASES)
    case = load_case(path)
    assert run_full(case).final["o"].tolist() == [4, 3, 4, 3, 9, 3, 3, 9]
    t = target(name)
    source = t.listing(case, {})
    assert source is not None
    # the labels it can hold kept: both still switches (a u32's as an int)
    assert len(re.findall(r"switch \S*v_[vw]", source)) == (
        0 if name == "cuda-sim" else 2), source
    verdict = check_case(case, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


def test_case_labels_wrapped_to_32_bits_are_caught(tmp_path: Path) -> None:
    path = tmp_path / "wide_cases.py"
    path.write_text(WIDE_CASES)
    verdict = check_case(load_case(path), target("lavapipe-glsl"), {},
                         {"mutants": ["switch-label-wraps"]}).verdict
    assert not verdict.agree, str(verdict)
