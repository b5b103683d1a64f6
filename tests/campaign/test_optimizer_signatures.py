"""A known optimizer finding is known under any recipe that holds its passes and on any
driver, since the optimizer failed before a driver ran (the recorded loop-peeling crash:
recorded with `spirv_opt=loop-peeling` on Mesa 22, met again by a random recipe on Mesa
25, where campaigns had reported it as new); a crash under passes that do not hold the
finding's, a driver's wrong result, or a smaller shape is not that finding."""

from __future__ import annotations

import json
from pathlib import Path

from difftest.campaign.signature import Signature, passes, setting

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
RECORDED = Signature.from_json(  # the corpus entry's own signature, as written
    json.loads((CORPUS / "kernel-070fdbb87c813b7e.json").read_text())["signature"])
MESA25 = "glsl on llvmpipe Mesa 25.0.7 (LLVM 15.0.6), spirv-opt v2025.5"
RECIPE = ["eliminate-dead-functions", "vector-dce", "loop-peeling", "code-sink"]
FLAGS = " ".join(f"--{p}" for p in RECIPE)
CRASH = f"R0 error: internal: spirv-opt {FLAGS} crashed (exit status #)"
OPTIONS = setting({"spirv_opt": "random", "spirv_recipe": RECIPE, "avoid": "all"})


def test_the_recorded_signature_names_its_pass() -> None:
    assert passes(RECORDED.compiler) == {"--loop-peeling"}
    assert "spirv-opt --loop-peeling crashed" in RECORDED.failure


def test_a_random_recipe_holding_the_pass_on_another_driver_is_the_finding() -> None:
    shape = RECORDED.shape | {"wave:wave_sum", "Store"}
    assert RECORDED.explains("lavapipe-glsl", CRASH, shape, OPTIONS, f"{MESA25} {FLAGS}")


def test_a_recipe_without_the_pass_is_not() -> None:
    flags = "--eliminate-dead-functions --vector-dce --code-sink"
    crash = f"R0 error: internal: spirv-opt {flags} crashed (exit status #)"
    assert not RECORDED.explains("lavapipe-glsl", crash, RECORDED.shape, OPTIONS,
                                 f"{MESA25} {flags}")


def test_a_wrong_result_or_a_smaller_shape_is_not() -> None:
    compiler = f"{MESA25} {FLAGS}"
    assert not RECORDED.explains("lavapipe-glsl", "R3 memory", RECORDED.shape, OPTIONS,
                                 compiler)
    assert not RECORDED.explains("lavapipe-glsl", CRASH, frozenset({"Break"}), OPTIONS,
                                 compiler)


def test_a_drivers_finding_stays_the_drivers() -> None:
    """Where the driver failed, the optimizer's passes are still compared, and the
    driver's release still decides (as for any lavapipe finding)."""
    found = Signature("lavapipe-glsl", "R3 memory", frozenset({"Store"}), "",
                      "glsl on llvmpipe Mesa 22.3.6 (LLVM 15.0.6), spirv-opt v2025.5 "
                      "--merge-blocks")
    assert found.explains("lavapipe-glsl", "R3 memory", frozenset({"Store", "If"}), "",
                          "glsl on llvmpipe Mesa 22.3.6 (LLVM 15.0.6), spirv-opt v2025.5 "
                          "--if-conversion --merge-blocks")
    assert not found.explains("lavapipe-glsl", "R3 memory", frozenset({"Store"}), "",
                              f"{MESA25} --merge-blocks")


def test_the_reducer_cuts_a_recipe_to_single_passes_first() -> None:
    """Reduction tries each pass alone, then the recipe less one pass (before it drops
    the option): the fewest passes that still show a finding say whose it is."""
    import dataclasses

    from difftest.campaign.reduce.launch import simplify_schedule_and_options
    from difftest.core.kernelfile import load_case

    case = load_case(Path(__file__).resolve().parents[1] / "data"
                     / "optimizer_crash_random_recipe.case.json")
    case = dataclasses.replace(case, schedule={}, options={
        "spirv_opt": "random", "spirv_recipe": "merge-blocks,loop-peeling,code-sink"})
    recipes = [c.options.get("spirv_recipe") for c in simplify_schedule_and_options(case)]
    assert recipes[:6] == ["merge-blocks", "loop-peeling", "code-sink",
                           "loop-peeling,code-sink", "merge-blocks,code-sink",
                           "merge-blocks,loop-peeling"]
