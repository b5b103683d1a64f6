"""`match` on the real targets: written as the language's switch where it can say it
(OpenCL C, GLSL, WGSL), kept as the `if` chain where a case breaks out of the loop
around it, and agreeing either way (examples/switch_cases.py has both); the translation
mutant switch-falls-through (arms without `break`) is caught by the example."""

from __future__ import annotations

import re

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


@pytest.mark.parametrize("name", ["lavapipe-glsl"])  # (the target offering it)
def test_arms_without_break_are_caught(name: str) -> None:
    t = target(name)
    verdict = check_case(load_case(EXAMPLES / "switch_cases.py"), t, {},
                         {"mutants": ["switch-falls-through"]}).verdict
    assert not verdict.agree and "out[" in str(verdict), str(verdict)
