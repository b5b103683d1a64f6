"""The Vulkan targets on any device: which device is chosen, what it decides (subgroup
size, wave sizes, reconvergence model), the SPIR-V patch that asks for maximal
reconvergence, and the `uniform` model at work on a device without it.

lavapipe is the device here. A driver with VK_KHR_shader_maximal_reconvergence (Mesa 25's
lavapipe, which .ci/run unpacks from Debian's bookworm-backports) is found through
DIFFTEST_MAXIMAL_ICD; the tests that need it skip without it, with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from difftest.core.case import Case
from difftest.core.ir import parse

from ..app.test_cli import run_cli
from .test_real_targets import target

MAXIMAL_ICD = os.environ.get("DIFFTEST_MAXIMAL_ICD", "")


def runner() -> Any:
    pytest.importorskip("vulkan", reason="the [vulkan] extra is not installed")
    from targets.device import vulkan_runner

    return vulkan_runner


def maximal_icd() -> str:
    if not MAXIMAL_ICD or not Path(MAXIMAL_ICD).is_file():
        pytest.skip("no Vulkan driver with VK_KHR_shader_maximal_reconvergence here (set "
                    "DIFFTEST_MAXIMAL_ICD to its ICD file; .ci/run unpacks Mesa 25's "
                    "lavapipe)")
    return MAXIMAL_ICD


def case(text: str, n: int = 1, wave: int = 1, **args: Any) -> Case:
    arrays = {k: np.array(v, dtype=np.int32) if isinstance(v, list) else v
              for k, v in args.items()}
    return Case(text, "kernel", n, wave, arrays, parse(text))


# ------------------------------------------------------------------ choosing a device
def _dev(index: int, name: str, kind: str, driver: str = "drv", info: str = "") -> dict:
    return {"index": index, "name": name, "type": kind, "driver": driver,
            "driver_info": info}


FOUND = [_dev(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu", "llvmpipe", "Mesa 22.3.6"),
         _dev(1, "Intel(R) UHD Graphics", "integrated-gpu", "Intel open-source Mesa driver"),
         _dev(2, "NVIDIA H100 80GB HBM3", "discrete-gpu", "NVIDIA", "580.159.04")]


def test_auto_takes_the_discrete_gpu_then_any_gpu_then_the_cpu() -> None:
    choose = runner().choose
    assert choose(FOUND, "auto")["index"] == 2
    assert choose(FOUND, "")["index"] == 2
    assert choose(FOUND[:2], "auto")["index"] == 1
    assert choose(FOUND[:1], "auto")["index"] == 0
    assert choose(FOUND, "lavapipe")["index"] == 0
    assert choose(FOUND, "1")["index"] == 1
    assert choose(FOUND, "h100")["index"] == 2        # a piece of the name
    assert choose(FOUND, "580.159")["index"] == 2     # or of the driver's version
    with pytest.raises(runner().NoDevice, match="no Vulkan device matches 'gpu'"):
        choose(FOUND[:1], "gpu")
    with pytest.raises(runner().NoDevice, match=r"the devices here: 0: llvmpipe"):
        choose(FOUND, "radeon")


def test_an_unknown_device_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    target("vulkan-glsl")
    from ..conftest import EXAMPLES

    code, out, err = run_cli(capsys, "check", str(EXAMPLES / "simple_deopt.py"), "--target",
                             "vulkan-glsl", "--opt", "device=radeon9000")
    assert code == 2, out + err
    lines = [x for x in err.splitlines() if x.strip() and "XDG_RUNTIME_DIR" not in x]
    assert len(lines) == 1 and "no Vulkan device matches 'radeon9000'" in lines[0], err


def test_targets_names_each_vulkan_targets_device_and_model(
        capsys: pytest.CaptureFixture[str]) -> None:
    target("vulkan-glsl")
    code, out, _ = run_cli(capsys, "targets")
    assert code == 0
    block = out.split("vulkan-glsl:", 1)[1].split("\n\n", 1)[0]
    assert "device: llvmpipe" in block and "driver Mesa" in block, block
    assert "reconvergence uniform (the device has no VK_KHR_shader_maximal_reconvergence)" \
        in block


# ------------------------------------------------------------------- the SPIR-V patch
GLSL = """#version 460
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer B { int d[]; } b;
void main() {
    if (gl_LocalInvocationIndex % 2u == 0u) { b.d[gl_LocalInvocationIndex] = int(subgroupAdd(1u)); }
}
"""


def _ops(spirv: bytes) -> list[tuple[int, list[int]]]:
    words = struct.unpack(f"<{len(spirv) // 4}I", spirv)
    out, pos = [], 5
    while pos < len(words):
        count = words[pos] >> 16
        out.append((words[pos] & 0xFFFF, list(words[pos + 1:pos + count])))
        pos += count
    return out


def test_the_patch_adds_the_extension_and_the_execution_mode_where_spirv_wants_them() -> None:
    r = runner()
    if shutil.which(r.GLSLANG) is None:
        pytest.skip("glslangValidator is not installed (apt-get install glslang-tools)")
    plain = r.compile_glsl(GLSL)
    patched = r.maximally_reconverging(plain)
    assert r.maximally_reconverging(patched) == patched  # once
    ops = [op for op, _ in _ops(patched)]
    ext = b"SPV_KHR_maximal_reconvergence\0"
    ext += b"\0" * (-len(ext) % 4)
    ext_at = _ops(patched).index((10, list(struct.unpack(f"<{len(ext) // 4}I", ext))))
    # the logical layout: capabilities, extensions, imports, memory model, entry points,
    # execution modes
    assert max(i for i, op in enumerate(ops) if op == 17) < ext_at < ops.index(14)
    entry = next(args[1] for op, args in _ops(patched) if op == 15)
    mode_at = _ops(patched).index((16, [entry, 6023]))
    assert ops.index(15) < mode_at and all(op in (15, 16, 331) for op in ops[ops.index(15):mode_at])
    rest = _ops(patched)
    del rest[mode_at]
    del rest[ext_at]
    assert rest == _ops(plain)  # nothing else changed
    if shutil.which("spirv-dis"):
        text = subprocess.run(["spirv-dis", "-"], input=patched, capture_output=True).stdout
        # (Debian 12's spirv-dis predates the execution mode and stops there)
        assert b'OpExtension "SPV_KHR_maximal_reconvergence"' in text


def test_a_device_with_maximal_reconvergence_is_asked_for_it_and_checked_against_maximal() -> None:
    from difftest.campaign.registry import load_target

    icd = maximal_icd()
    target("vulkan-glsl")  # skips where it is not installed
    t = load_target("vulkan-glsl", {"icd": icd})
    assert t.reconvergence == "maximal" and "asked for" in (t.device_summary() or "")
    # a wave operation in a divergent branch: defined under maximal reconvergence
    c = case("def kernel(out: Buffer[i32]):\n"
             "    if lane() % 2 == 0:\n"
             "        out[gid()] = wave_sum(1)\n", n=8, wave=8, out=[0] * 8)
    assert t.unsupported(c) is None
    got = t.run(c, {}, {"icd": icd})
    assert got.error is None, got.error
    assert got.buffers["out"].tolist() == [4, 0, 4, 0, 4, 0, 4, 0]
    target("vulkan-wgsl")
    wgsl = load_target("vulkan-wgsl", {"icd": icd})
    assert wgsl.reconvergence == "uniform"  # wgpu asks for no maximal reconvergence


def test_a_file_that_is_no_driver_manifest_is_named_with_the_loaders_reason(
        tmp_path: Path) -> None:
    """`--opt icd=FILE` naming a file the Vulkan loader opens no device through: the error
    names the file and the loader's reason (it ended at a bare colon once)."""
    from difftest.campaign.registry import load_target
    from difftest.core.errors import DifftestError

    target("lavapipe-glsl")  # skips where it is not installed
    bogus = tmp_path / "not_a_driver.json"
    bogus.write_text('{"x": 1}')
    with pytest.raises(DifftestError) as e:  # (an OptionError)
        load_target("lavapipe-glsl", {"icd": str(bogus)})
    message = str(e.value)
    assert f"icd={str(bogus)!r}" in message, message
    assert not message.rstrip().endswith(":") and "VkError" in message, message


# ------------------------------------------------------------- the uniform model at work
DIVERGENT = """def kernel(inp: Buffer[i32], out: Buffer[i32]):
    if inp[gid()] > 0:
        out[gid()] = wave_sum(1)
"""
SCARRED = """def kernel(inp: Buffer[i32], out: Buffer[i32]):
    for k in range(0, 3):
        if inp[gid()] > k:
            continue
        out[gid()] = out[gid()] + wave_sum(1)
"""


@pytest.mark.parametrize("name", ["vulkan-glsl", "vulkan-wgsl"])
def test_without_maximal_reconvergence_only_uniform_control_flow_is_checked(
        name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    t = target(name)
    if name == "vulkan-glsl" and t._device().props["maximal_reconvergence"]:  # type: ignore[attr-defined]
        pytest.skip(f"{name}'s device here promises maximal reconvergence")
    assert t.reconvergence == "uniform"
    # all lanes take the branch: uniform, checked
    ok = tmp_path / "ok.py"
    ok.write_text("# difftest: launch n=8 wave=4\n# difftest: arg inp = i32[1] * 8\n"
                  "# difftest: arg out = i32[0] * 8\n" + DIVERGENT)
    code, out, err = run_cli(capsys, "check", str(ok), "--target", name)
    assert code == 0 and "agree" in out, out + err
    # lanes disagree on the branch: the run leaves the sum undefined (the oracle's half)
    split = tmp_path / "split.py"
    split.write_text("# difftest: launch n=8 wave=4\n# difftest: arg inp = i32[1, 0] * 4\n"
                     "# difftest: arg out = i32[0] * 8\n" + DIVERGENT)
    code, out, err = run_cli(capsys, "check", str(split), "--target", name)
    assert code == 2 and "cannot run this case" in err, out + err
    assert "wave_sum() at line 6 runs in wave 0 with 2 of its 4 lanes" in err, err
    # lanes that continued are back with all lanes active: the static half
    scar = case(SCARRED, n=4, wave=4, inp=[0, 1, 2, 0], out=[0] * 4)
    why = t.unsupported(scar)
    assert why is not None and "wave_sum() at line 5" in why and "uniform" in why, why


# -------------------------------------------------------------------------- a GPU's
@pytest.mark.gpu
@pytest.mark.parametrize("name", ["vulkan-glsl", "vulkan-wgsl"])
def test_on_a_gpu_the_device_decides_and_the_examples_agree(name: str) -> None:
    """The machine's GPU (`device=gpu`): its subgroup size sets the wave sizes, its
    maximal reconvergence (where it has the extension) the model of vulkan-glsl; every
    example with wave operations agrees there."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import cannot_run, check_case
    from difftest.core.errors import DifftestError
    from difftest.core.kernelfile import load_case

    from ..conftest import EXAMPLES

    target(name)
    try:
        t = load_target(name, {"device": "gpu"})
    except DifftestError as e:
        pytest.skip(f"no GPU with a Vulkan driver here: {e}")
    props = t._device().props  # type: ignore[attr-defined]
    assert props["type"] != "cpu"
    assert max(t.wave_sizes) == (props["max_subgroup_size"] if name == "vulkan-glsl"
                                 and props["size_control"] else max(t.wave_sizes))
    if name == "vulkan-glsl" and props["maximal_reconvergence"]:
        assert t.reconvergence == "maximal"
    for path in sorted(EXAMPLES.glob("*.py")):
        c = load_case(path)
        if c.wave not in t.wave_sizes or cannot_run(t, c):
            continue
        assert check_case(c, t, options={"device": "gpu"}).verdict.agree, path.name


def test_a_lavapipe_reproducer_prints_no_driver_noise(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """Mesa's drivers complain on stderr when XDG_RUNTIME_DIR is not set; a reproducer
    (and a device process) gives them one, so its output is its result alone."""
    import subprocess
    import sys

    from difftest.app.cli import main

    from ..conftest import EXAMPLES

    target("vulkan-glsl")
    assert main(["export", str(EXAMPLES / "simple_deopt.py"), "--target", "vulkan-glsl",
                 "--out", str(tmp_path)]) == 0
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    done = subprocess.run([sys.executable, str(tmp_path / "repro.py")], capture_output=True,
                          text=True, timeout=120, env=env)
    assert "XDG_RUNTIME_DIR" not in done.stdout + done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stdout + done.stderr


def test_a_reduction_keeps_only_kernels_that_still_mean_what_the_original_did(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`export --reduce`'s interestingness test (difftest/app/source_reducer.py), on
    lavapipe 22.3's sign-extension bug with Mesa 25 as the reference: the original kernel
    is interesting; one that stores nothing, or stores the wrong value outright, is not
    (the reference would not give the expected result), so C-Vise cannot reduce the bug
    away."""
    import json
    import re
    import subprocess

    from difftest.app.cli import main

    icd = maximal_icd()
    target("vulkan-glsl")
    if shutil.which("cvise") is None:
        pytest.skip("C-Vise is not installed (apt-get install cvise)")
    path = tmp_path / "sext.json"
    path.write_text(json.dumps({
        "kernel": "def kernel(out: Buffer[i32], s: i32):\n    x: i64 = s\n"
                  "    if x <= 2:\n        out[0] = 1\n",
        "entry": "kernel", "launch": {"n": 1, "wave": 1},
        "args": {"out": {"dtype": "i32", "data": [0]}, "s": -5}}))
    out = tmp_path / "repro"
    monkeypatch.chdir(tmp_path)  # --out relative, as a user writes it (the test ran in
    code = main(["export", str(path), "--target", "vulkan-glsl", "--out", "repro",  # it)
                 "--reduce", "1", "--reference", f"icd={icd}"])
    printed = capsys.readouterr().out
    if code != 0:
        pytest.skip(f"this lavapipe does not show the bug: {printed[-200:]}")
    test = out / "reduce" / "interesting.sh"
    left = subprocess.run(["pgrep", "-f", str(test)], capture_output=True, text=True)
    assert left.stdout.strip() == "", "C-Vise's workers outlived the reduction's budget"
    original = (out / "kernel.comp").read_text()

    def interesting(kernel: str) -> bool:
        (out / "reduce" / "kernel.comp").write_text(kernel)
        return subprocess.run([str(test)], cwd=out / "reduce").returncode == 0

    assert interesting(original)
    body = original.split("void main() {", 1)
    nothing = body[0] + "void main() {\n}\n"
    assert not interesting(nothing)  # stores nothing: a missing store is no bug
    wrong = original.replace("if (", "if (false && (", 1).replace(") {", ")) {", 1)
    assert wrong != original and not interesting(wrong)  # its stores never happen
    bare = re.sub(r"^(\s*int\s+\w+)\s*=\s*[^;]*;", r"\1;", original, count=1, flags=re.M)
    assert bare != original and not interesting(bare)  # an indeterminate value read
    assert (out / "reduced" / "repro.py").is_file()


# ------------------------------------------------------------------------------- f32
DOUBLES = """#version 460
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { float d[]; } b;
void main() { b.d[1] = float(double(b.d[0]) * 3.0lf); }
"""
OFFERED = {"float64": True, "signed_zero_inf_nan32": True, "signed_zero_inf_nan64": True,
           "rounding_rte32": True, "rounding_rte64": True, "denorm_preserve32": False}


def test_the_float_controls_asked_for_are_those_the_device_offers() -> None:
    r = runner()
    if shutil.which(r.GLSLANG) is None:
        pytest.skip("glslangValidator is not installed (apt-get install glslang-tools)")
    plain = r.compile_glsl(GLSL)
    patched = r.float_controlled(plain, OFFERED)
    assert r.float_controlled(patched, OFFERED) == patched  # once
    ops = _ops(patched)
    entry = next(args[1] for op, args in ops if op == 15)
    modes = sorted(tuple(args[1:]) for op, args in ops if op == 16 and args[0] == entry
                   and args[1] in (4459, 4461, 4462))
    assert modes == [(4461, 32), (4462, 32)]  # no subnormals offered, no doubles used
    assert (17, [4466]) in ops and (17, [4467]) in ops and (17, [4464]) not in ops
    keeps = _ops(r.float_controlled(plain, {**OFFERED, "denorm_preserve32": True}))
    assert (16, [entry, 4459, 32]) in keeps and (17, [4464]) in keeps
    doubles = _ops(r.float_controlled(r.compile_glsl(DOUBLES), OFFERED))
    entry = next(args[1] for op, args in doubles if op == 15)
    assert {(4461, 64), (4462, 64)} <= {tuple(args[1:]) for op, args in doubles
                                        if op == 16 and args[0] == entry}
    if shutil.which("spirv-val"):
        bad = subprocess.run(["spirv-val", "--target-env", "vulkan1.3", "-"], input=patched,
                             capture_output=True)
        assert bad.returncode == 0, bad.stdout + bad.stderr


def _f32_file(tmp_path: Path, body: str, **args: str) -> Path:
    path = tmp_path / "k.py"
    head = "".join(f"# difftest: arg {k} = {v}\n" for k, v in args.items())
    params = ", ".join(f"{k}: Buffer[f32]" for k in args)
    path.write_text(f"# difftest: launch n=2 wave=2\n{head}def kernel({params}):\n{body}")
    return path


def test_glsl_floats_on_lavapipe_are_exact(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """lavapipe keeps signed zeros, NaN and round to nearest when asked: f32 is declared,
    the rounding example agrees, and so does `fma` where rounding binary64's
    `a * b + c` to binary32 would round twice (the result lies just past a midpoint)."""
    from difftest.core import f32

    from ..conftest import EXAMPLES

    t = target("lavapipe-glsl")
    assert "f32" in t.capabilities and "f32 exact" in (t.device_summary() or "")
    code, out, err = run_cli(capsys, "check", str(EXAMPLES / "float_rounding.py"),
                             "--target", "lavapipe-glsl")
    assert code == 0 and "1 of 1 schedules agree" in out, out + err
    u = 2.0 ** -12
    a, b = [2.0 ** -24 * (1 + u), -2.0 ** -24 * (1 + u)], [1 - u + 2.0 ** -24] * 2
    c = [1.0, -1.0]
    for x, y, z in zip(a, b, c):  # the cases a binary64 sum gets wrong
        assert f32.rounded(x * y + z) != f32.fma(x, y, z)
    path = _f32_file(tmp_path, "    out[gid()] = fma(a[gid()], b[gid()], c[gid()])\n",
                     a=f"f32{a!r}", b=f"f32{b!r}", c=f"f32{c!r}", out="f32[0.0] * 2")
    code, out, err = run_cli(capsys, "check", str(path), "--target", "lavapipe-glsl")
    assert code == 0 and "1 of 1 schedules agree" in out, out + err


def test_a_run_with_a_subnormal_is_not_checked_where_the_device_may_flush_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = target("lavapipe-glsl")
    if not getattr(t, "flushes_subnormals"):
        pytest.skip("this device can be asked to keep subnormals")
    body = "    out[gid()] = x[gid()] * 0.5\n"
    path = _f32_file(tmp_path, body, x="f32[1.0, 2.0]", out="f32[0.0] * 2")
    code, out, err = run_cli(capsys, "check", str(path), "--target", "lavapipe-glsl")
    assert code == 0, out + err
    path = _f32_file(tmp_path, body, x="f32[1.0, 2e-38]", out="f32[0.0] * 2")
    code, out, err = run_cli(capsys, "check", str(path), "--target", "lavapipe-glsl")
    assert code == 2 and "cannot run this case" in err, out + err
    assert "a subnormal f32" in err and "at line 5" in err and "flush" in err, err


def test_wgsl_declares_no_floats() -> None:
    t = target("lavapipe-wgsl")
    assert "f32" not in t.capabilities
    c = Case("def kernel(x: Buffer[f32]):\n    x[0] = x[0] * 2.0\n", "kernel", 1, 1,
             {"x": np.zeros(1, dtype=np.int32)},
             parse("def kernel(x: Buffer[f32]):\n    x[0] = x[0] * 2.0\n"))
    why = t.unsupported(c) or ""
    assert why.startswith("f32") and "WGSL" in why and "NaN" in why, why


def test_a_device_this_machine_lacks_is_not_here_and_its_findings_skip(tmp_path: Path) -> None:
    """A finding recorded on a GPU (device=gpu) replays elsewhere as skipped, not failed:
    the device is a valid option this machine cannot honour."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import replay
    from difftest.core.errors import NotOnThisMachine
    from difftest.core.kernelfile import load_case

    target("vulkan-wgsl")
    with pytest.raises(NotOnThisMachine, match="no Vulkan device matches"):
        load_target("vulkan-wgsl", {"device": "no-such-device-anywhere"})
    path = tmp_path / "case.json"
    case = {"format": "difftest-case", "version": 3, "entry": "kernel",
            "kernel": "def kernel(out: Buffer[i64]):\n    out[gid()] = gid() * 2147483648\n",
            "launch": {"n": 2, "wave": 1}, "args": {"out": {"dtype": "i64", "data": [0, 0]}},
            "options": {"vulkan-wgsl": {"device": "no-such-device-anywhere"}}}
    path.write_text(json.dumps(case))
    results = replay(load_case(path), "vulkan-wgsl", [], {"verdict": "disagree"},
                     ["vulkan-wgsl"], [])
    assert results and all(r.ok and r.skipped for r in results), results


def test_a_known_bug_is_known_on_every_release_that_still_has_it() -> None:
    """lavapipe-float-zero-fold was recorded on Mesa 22.3.6 and is still in Mesa 25.0.7:
    a failure there that goes away with its variant is that bug (by its cause), though
    the compiler's name differs in its version (campaigns used to report it as new)."""
    from difftest.campaign.findings import explain, known_findings
    from difftest.campaign.runner import check_case, rerun_with
    from difftest.core.kernelfile import load_case

    from ..conftest import REPO

    icd = maximal_icd()
    path = REPO / "corpus" / "kernel-4394b18f5b6c0243.json"
    [finding] = known_findings([path])
    assert finding.id == "lavapipe-float-zero-fold" and finding.avoid
    c = load_case(path)
    t = target("lavapipe-glsl")
    options = {"icd": icd}
    res = check_case(c, t, {}, options)
    assert not res.verdict.agree  # still there
    compiler = t.compiler(options)
    assert compiler != finding.signature.compiler and "Mesa 25" in compiler, compiler
    rerun = rerun_with(c, t, options, res.full, res.oracle_error)
    assert explain([finding], "lavapipe-glsl", c, res.verdict, options, compiler,
                   rerun) is finding


@pytest.mark.parametrize("name, entry", [("lavapipe-glsl", "kernel-256e6efeb5b5dfca.json"),
                                         ("lavapipe-wgsl", "kernel-7f1d124f44d9720f.json")])
def test_stores_after_79_early_returns_are_the_nesting_finding_and_its_variant_avoids_it(
        name: str, entry: str) -> None:
    """lavapipe-nesting-limit-drops-code: 78 stores, each bounds check an early return in
    the translation; lavapipe drops the last store. With `avoid=return-nesting` (the module
    through spirv-opt's merge-return) every store lands, o[k] = k + 1 as the kernel
    writes it, and the failure is explained by that cause, not by the kernel's shape."""
    from difftest.campaign.findings import explain, known_findings
    from difftest.campaign.runner import check_case, rerun_with
    from difftest.core.kernelfile import load_case

    from ..conftest import REPO

    path = REPO / "corpus" / entry
    [finding] = known_findings([path])
    assert finding.id == "lavapipe-nesting-limit-drops-code"
    assert finding.avoid == "return-nesting"
    c = load_case(path)
    t = target(name)
    res = check_case(c, t, {}, {})
    assert not res.verdict.agree
    assert int(res.outcome.buffers["o"][77]) == 0  # the store dropped
    avoided = check_case(c, t, {}, {"avoid": "return-nesting"})
    assert avoided.verdict.agree, str(avoided.verdict)
    assert [int(x) for x in avoided.outcome.buffers["o"]] == list(range(1, 79))
    rerun = rerun_with(c, t, {}, res.full, res.oracle_error)
    assert explain([finding], name, c, res.verdict, {}, t.compiler({}), rerun) is finding


# ------------------------------------------------ what the translation cannot spell
UNICODE = """
def kër(ö: Buffer[i32]):
    数 = gid() * 2
    ö[gid()] = fünf(数)

def fünf(x: i32) -> i32:
    if x == 2:
        fail(3)
    return x + 1
"""


def test_glsl_renames_names_it_cannot_spell_and_reports_the_kernels_own() -> None:
    """GLSL takes ASCII names of at most 1,024 characters; the kernel language any
    identifier Python takes. glslang refused `数` and `kër` (a build failure a campaign
    would have called lavapipe's bug): now they are renamed in the source, and a fault
    in `fünf` is reported with its own name."""
    from difftest.campaign.runner import check_case
    from targets.translate import translate

    tr = translate(parse(UNICODE), "kër", "glsl", 4)
    assert "数" not in tr.source and "fünf" not in tr.source and tr.source.isascii()
    assert [p.name for p in tr.params] == ["ö"] and "fünf" in tr.functions
    long_name = "x" * 2000
    text = f"def kernel(out: Buffer[i32]):\n    {long_name} = 1\n    out[0] = {long_name}\n"
    assert long_name not in translate(parse(text), "kernel", "glsl", 4).source
    t = target("lavapipe-glsl")
    c = Case(UNICODE, "kër", 4, 4, {"ö": np.zeros(4, dtype=np.int32)}, parse(UNICODE))
    res = check_case(c, t)
    assert res.verdict.agree, str(res.verdict)
    assert res.outcome.exception is not None
    assert [f.function for f in res.outcome.exception.fault.stack] == ["kër", "fünf"]


def test_more_buffers_than_the_device_binds_is_a_case_it_cannot_run() -> None:
    """lavapipe binds 32 storage buffers to a shader; the translation adds two. A kernel
    of 31 buffers crashed it or read garbage (reported as its bugs): now it says it
    cannot run the case, and 30 still run."""
    from difftest.campaign.runner import check_case

    t = target("lavapipe-glsl")
    limit = t._device().props["max_storage_buffers"]

    def kernel(k: int) -> Case:
        params = ", ".join(f"b{i}: Buffer[i32]" for i in range(k))
        text = f"def kernel({params}):\n    b0[gid()] = {k}\n"
        return Case(text, "kernel", 1, 1, {f"b{i}": np.zeros(1, dtype=np.int32)
                                           for i in range(k)}, parse(text))

    assert t.unsupported(kernel(limit - 2)) is None
    assert check_case(kernel(limit - 2), t).verdict.agree
    why = t.unsupported(kernel(limit - 1))
    assert why is not None and f"past the {limit} the device binds" in why
