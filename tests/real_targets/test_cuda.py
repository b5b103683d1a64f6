"""The CUDA translation without a GPU: the warp simulator against CUDA's rules for member
masks (hand-written kernels whose answers the CUDA C++ Programming Guide gives), NVRTC on
every generated kernel's translation, and the `cuda` target where a GPU is (marker
`gpu`: `python -m pytest -m gpu` on the GPU machine; elsewhere they skip, saying why)."""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings

from targets.translated import TranslatedTarget

from .test_real_targets import target

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


def sim(kernel: str, threads: int, *arrays: np.ndarray, seed_value: int = 1
        ) -> tuple[list[np.ndarray], str]:
    """Run `kernel` (taking `int* a0, int* a1, ...`) in one block of `threads` threads."""
    from targets.device import warpsim_runner as w

    params = [["ptr", i, "int"] for i in range(len(arrays))]
    lib = w.build(kernel, "k", params)
    return w.run(lib, 1, threads, seed_value, params, list(arrays))


def test_a_ballot_sees_the_lanes_of_its_mask_that_are_there() -> None:
    k = """extern "C" __global__ void k(int* out) {
        int lane = threadIdx.x;
        if (lane >= 6) return;                             // exited: allowed in a mask
        if (lane % 2 == 0) out[lane] = __ballot_sync(0x55u, true);
        else out[lane] = __ballot_sync(0xaau, lane != 3);
    }"""
    out, error = sim(k, 8, np.zeros(8, np.int32))
    assert error == ""
    # the even lanes meet in 0x55 and the odd ones in 0xaa; lanes 6 and 7 have exited
    assert out[0].tolist()[:6] == [0x15, 0x22, 0x15, 0x22, 0x15, 0x22]


def test_a_mask_that_leaves_out_its_caller_stops_the_launch() -> None:
    k = """extern "C" __global__ void k(int* out) {
        out[threadIdx.x] = __ballot_sync(0x1u, true);
    }"""
    _, error = sim(k, 2, np.zeros(2, np.int32))
    assert "lane 1 calls __ballot_sync at line 2 with member mask 0x1, which leaves it out" \
        in error


def test_lanes_of_one_mask_at_different_operations_wait_forever() -> None:
    k = """extern "C" __global__ void k(int* out) {
        if (threadIdx.x == 0) out[0] = __ballot_sync(0x3u, true);
        else out[1] = __any_sync(0x3u, true);
    }"""
    _, error = sim(k, 2, np.zeros(2, np.int32))
    assert error.startswith("lane 0 waits at __ballot_sync with mask 0x3 at line 2 for "
                            "lane 1, which waits at __any_sync with mask 0x3 at line 3")


def test_a_block_of_several_warps_meets_at_syncthreads() -> None:
    k = """extern "C" __global__ void k(int* out) {
        __shared__ int tile[96];
        int t = threadIdx.x;
        tile[t] = t * 2;
        __syncthreads();                                   // every write before is seen
        out[t] = tile[(t + 40) % 96] + 1000 * __popc(__ballot_sync(0xffffffffu, t % 3 == 0));
    }"""
    for order in (1, 2, 3):
        out, error = sim(k, 96, np.zeros(96, np.int32), seed_value=order)
        assert error == ""
        # a ballot sees its own warp of 32 (lanes 0, 3, ..., of which 11 or 10 are t % 3 == 0)
        votes = [sum(1 for x in range(32 * (t // 32), 32 * (t // 32) + 32) if x % 3 == 0)
                 for t in range(96)]
        assert out[0].tolist() == [((t + 40) % 96) * 2 + 1000 * votes[t] for t in range(96)]


def test_an_exited_thread_does_not_hold_a_barrier_up() -> None:
    k = """extern "C" __global__ void k(int* out) {
        __shared__ int tile[64];
        int t = threadIdx.x;
        tile[t] = 0;
        __syncthreads();
        if (t == 5 || t == 40) return;                      // PTX: exit releases barriers
        tile[t] = t;
        __syncthreads();
        out[t] = tile[63 - t];
    }"""
    out, error = sim(k, 64, np.full(64, -1, np.int32))
    assert error == ""
    assert out[0].tolist() == [-1 if t in (5, 40) else (0 if 63 - t in (5, 40) else 63 - t)
                               for t in range(64)]


def test_threads_at_different_barriers_or_at_a_warp_operation_stop_the_launch() -> None:
    k = """extern "C" __global__ void k(int* out) {
        if (threadIdx.x < 32) __syncthreads();
        else __syncthreads();
    }"""
    _, error = sim(k, 64, np.zeros(1, np.int32))
    assert error.startswith("threads of one block wait at different barriers: "
                            "__syncthreads() at line 2 and __syncthreads() at line 3") or \
        error.startswith("threads of one block wait at different barriers: "
                         "__syncthreads() at line 3 and __syncthreads() at line 2"), error
    k = """extern "C" __global__ void k(int* out) {
        if (threadIdx.x == 33) out[0] = __ballot_sync(0x3u, true);
        else __syncthreads();
    }"""
    _, error = sim(k, 64, np.zeros(1, np.int32))
    assert error.startswith("thread 0 waits at __syncthreads() at line 3 for thread 33, "
                            "which waits at __ballot_sync with mask 0x3 at line 2"), error


def test_shuffles_reductions_and_the_active_mask() -> None:
    k = """extern "C" __global__ void k(int* out, int* wide) {
        int lane = threadIdx.x;
        if (lane == 3) return;
        unsigned m = __ballot_sync(0xfu, true);            // 0b0111
        out[lane] = __shfl_sync(m, lane * 10, (lane + 1) % 4);
        out[4 + lane] = __reduce_add_sync(m, lane + 1) * 100 + __reduce_max_sync(m, -lane);
        long long v = __shfl_sync(m, (long long)lane << 40, 1);
        wide[lane] = (int)(v >> 40);
        out[8 + lane] = __activemask();
    }"""
    out, error = sim(k, 4, np.zeros(12, np.int32), np.zeros(4, np.int32))
    assert error == ""
    # lane 2 reads lane 3, which exited: undefined, the simulator's poison
    assert out[0].tolist()[:3] == [10, 20, 0x5a5a5a5a]
    assert out[0].tolist()[4:7] == [600, 600, 600]
    assert out[1].tolist()[:3] == [1, 1, 1]
    assert out[0].tolist()[8:11] == [1, 2, 4]  # only the caller: all CUDA promises


def test_the_thread_order_does_not_change_a_correct_kernel() -> None:
    k = """extern "C" __global__ void k(int* out) {
        int lane = threadIdx.x, s = 0;
        for (int i = 0; i < 3; i++) {
            unsigned m = __ballot_sync(0xffu, lane > i);
            if (lane > i) s += __popc(m);
        }
        out[lane] = s;
    }"""
    got = {tuple(sim(k, 8, np.zeros(8, np.int32), seed_value=s)[0][0].tolist())
           for s in range(5)}
    assert got == {(0, 7, 13, 18, 18, 18, 18, 18)}


# --------------------------------------------------------------------------- NVRTC
SHARDS = 2


def _nvrtc() -> Any:
    from targets.cuda import nvrtc

    why = nvrtc.available()
    if why:
        pytest.skip(why)
    return nvrtc


#: the integer types the CUDA translation runs (its targets' `int_types`)
_CUDA_INTS = TranslatedTarget.int_types


@pytest.mark.parametrize("shard", range(SHARDS))
def test_nvrtc_compiles_every_generated_kernels_translation(shard: int,
                                                            difftest_settings: Any) -> None:
    """NVIDIA's own front end accepts the translation of whatever the generators write,
    at every wave size and with each mutant (a translation a GPU build would reject is a
    translation bug, found here without the GPU)."""
    from generators.kernels import kernels
    from generators.workgroups import workgroup_kernels
    from hypothesis import strategies as st
    from targets.translate import translate

    nvrtc = _nvrtc()
    mutants = (frozenset(), frozenset({"member-mask-full"}),
               frozenset({"member-mask-activemask"}), frozenset({"reduce-64-as-32"}),
               frozenset({"workgroup-memory-unzeroed"}), frozenset({"barrier-warp-only"}))
    # a plain kernel at any wave size, or a workgroup one in blocks of 1 to 4 warps
    launches = st.one_of(
        st.tuples(kernels(without=frozenset({"alloc"}), int_types=_CUDA_INTS),
                  st.sampled_from((1, 2, 4, 8, 16, 32)), st.just(0)),
        st.tuples(workgroup_kernels(), st.just(32), st.sampled_from((32, 64, 96, 128))))

    @settings(difftest_settings, max_examples=max(10, difftest_settings.max_examples),
              suppress_health_check=list(HealthCheck))
    @seed(500 + shard)
    @given(launches, st.sampled_from(mutants))
    def prop(launch: Any, muts: frozenset[str]) -> None:
        kernel, wave, group = launch
        source = translate(kernel.program, kernel.entry, "cuda", wave, muts, 32 if group else 0,
                           group=group).source
        ok, log = nvrtc.compile_ptx(source)
        assert ok, f"{log}\n{source}"
        undefined = [w for w in _UNDEFINED if w in log]
        assert not undefined, f"{log}\n{source}"

    prop()


#: NVRTC's warnings of constant expressions C++ leaves undefined (the front end then folds
#: what follows them as it likes): a float or integer result out of range, a division by 0
_UNDEFINED = ("#222", "#61", "#39")


def test_no_float_operation_on_literals_is_a_constant_expression(tmp_path: Any) -> None:
    """`3.4028235e+38 * 2.0 * 0.0 != itself` is true (the product overflows to infinity,
    times 0 is NaN). Written with float literals, the product was a constant expression
    that C++ leaves undefined past the type's range: NVRTC warned (#222) and folded the
    comparison to false, on the GPU and in the PTX; literals by their bits are none."""
    from difftest.campaign.runner import check_case
    from difftest.core.kernelfile import load_case
    from targets.translate import translate

    nvrtc = _nvrtc()
    path = tmp_path / "nan_fold.py"
    path.write_text(NAN_FOLD)
    case = load_case(path)
    source = translate(case.program, case.entry, "cuda", 2, frozenset(), 0).source
    ok, log = nvrtc.compile_ptx(source)
    assert ok and not [w for w in _UNDEFINED if w in log], log
    verdict = check_case(case, target("cuda-sim"), {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


NAN_FOLD = """\
# difftest: launch n=2 wave=2
# difftest: arg out = i32[0] * 2
def k(out: Buffer[i32]):
    x = 3.4028235e+38 * 2.0 * 0.0
    if x != x:
        out[gid()] = 1
"""


# ------------------------------------------------------------------------- the GPU
@pytest.mark.gpu
def test_the_cuda_target_runs_the_divergent_example_on_the_gpu() -> None:
    from difftest.core.kernelfile import load_case

    from ..conftest import EXAMPLES

    t = target("cuda")
    got = t.run(load_case(EXAMPLES / "divergent_wave_ops.py"), {}, {})
    assert got.error is None, got.error
    assert got.buffers["out"].tolist() == [120, -1, 121, -1, 90, 60, -1, 35]


def test_an_exported_cuda_sim_reproducer_runs_without_difftest(tmp_path: Any,
                                                                capsys: Any) -> None:
    """`difftest export` writes the kernel, the warp simulator and its runner: the
    reproducer shows the 64-bit sum the mutant reduces on 32 bits."""
    import subprocess
    import sys

    from difftest.app.cli import main

    from .test_real_targets import MUTANTS

    target("cuda-sim")
    case = MUTANTS / "cuda-sim" / "kernel-fcf8c1dc0d94c144.json"
    assert main(["export", str(case), "--target", "cuda-sim", "--out", str(tmp_path)]) == 0
    assert {p.name for p in tmp_path.iterdir()} >= {"kernel.cu", "warpsim.h",
                                                    "warpsim_runner.py", "repro.py"}
    done = subprocess.run([sys.executable, str(tmp_path / "repro.py")], capture_output=True,
                          text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "out[0]: expected 2147483648, got -2147483648" in done.stdout


def test_a_reproducer_reads_u64_values_from_2_to_the_63_as_the_case_gives_them(
        tmp_path: Any) -> None:
    """A copy of u64 values at 2^63 and above: the reproducer finds no difference (its
    expected values were their storage form, -1 against the 2^64 - 1 it read back)."""
    import json
    import subprocess
    import sys

    from difftest.app.cli import main

    target("cuda-sim")
    big = [2**64 - 1, 2**63, 2**63 - 1, 0]
    case = tmp_path / "u64.json"
    case.write_text(json.dumps({
        "kernel": "def k(w: Buffer[u64], out: Buffer[u64]):\n    out[gid()] = w[gid()]\n",
        "entry": "k", "launch": {"n": 4, "wave": 4},
        "args": {"w": {"dtype": "u64", "data": big},
                 "out": {"dtype": "u64", "data": [1, 1, 1, 1]}}}))
    out = tmp_path / "repro"
    assert main(["export", str(case), "--target", "cuda-sim", "--out", str(out)]) == 0
    assert json.loads((out / "data.json").read_text())["expected"]["buffers"]["out"] == big
    done = subprocess.run([sys.executable, str(out / "repro.py")], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no difference" in done.stdout


def test_export_checks_its_reference_setting_before_it_writes(tmp_path: Any,
                                                              capsys: Any) -> None:
    """`export --reduce --reference X`: a setting that is no KEY=VALUE, or that the target
    does not take, is one line naming --reference, and no reproducer is written (it was
    checked after the reproducer's folder was written, and named --opt)."""
    from difftest.app.cli import main

    from .test_real_targets import MUTANTS

    target("cuda-sim")
    case = MUTANTS / "cuda-sim" / "kernel-fcf8c1dc0d94c144.json"
    for reference, needle in (("opt", "--reference 'opt': expected KEY=VALUE"),
                              ("bogus=1", "--reference: unknown option 'bogus'")):
        out = tmp_path / reference
        code = main(["export", str(case), "--target", "cuda-sim", "--out", str(out),
                     "--reduce", "1", "--reference", reference])
        err = capsys.readouterr().err
        assert code == 2 and needle in err, err
        assert not out.exists()


def test_compile_and_export_of_what_the_language_cannot_spell_is_one_line(
        tmp_path: Any, capsys: Any) -> None:
    """An 8-bit atomic_add, which CUDA C++ has not: `compile` and `export` say so in one
    line, exit 2, and write nothing (a traceback of the translation's Unsupported)."""
    from difftest.app.cli import main

    from ..conftest import REPO

    target("cuda-sim")
    kernel = REPO / "tests" / "data" / "conformance" / "k37_atomic_add_wraps.py"
    for argv in (["compile", str(kernel)], ["export", str(kernel), "--out",
                                            str(tmp_path / "out")]):
        assert main([*argv, "--target", "cuda-sim"]) == 2
        err = capsys.readouterr().err
        assert err.splitlines() == [f"difftest: error: {kernel}: target cuda-sim cannot run "
                                    "this case: atomic_add() on u8 elements (line 23): the "
                                    "language has no 8- or 16-bit atomics"], err
    assert not (tmp_path / "out").exists()


def test_a_reproducer_says_what_it_needs_when_it_is_missing(tmp_path: Any) -> None:
    """Run by an interpreter without the packages it needs (here: no site-packages at
    all), a reproducer says what to install and exits 2, instead of a traceback."""
    import subprocess
    import sys

    from difftest.app.cli import main

    from .test_real_targets import MUTANTS

    target("cuda-sim")
    case = MUTANTS / "cuda-sim" / "kernel-fcf8c1dc0d94c144.json"
    assert main(["export", str(case), "--target", "cuda-sim", "--out", str(tmp_path)]) == 0
    done = subprocess.run([sys.executable, "-S", str(tmp_path / "repro.py")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.startswith("this reproducer needs Python 3 with numpy (pip install "
                                  "numpy) and g++; here: ModuleNotFoundError"), done.stdout
    assert "Traceback" not in done.stderr


def test_the_simulator_leaves_no_build_folder_behind(tmp_path: Any) -> None:
    """Each process's kernels are built in a folder of its own, removed when it exits
    (campaigns start many processes: the folders used to pile up in the temp folder)."""
    import os
    import subprocess
    import sys

    kernel = 'extern "C" __global__ void k(int* out) { out[threadIdx.x] = 1; }'
    script = ("from targets.device import warpsim_runner as w\n"
              f"w.build({kernel!r}, 'k', [['ptr', 0, 'int']])\n"
              "print(w._folder())\n")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, check=True, cwd=os.path.dirname(os.path.dirname(
                              os.path.dirname(os.path.abspath(__file__)))))
    folder = proc.stdout.strip()
    assert folder.startswith(str(tmp_path))
    assert not os.path.exists(folder)


def test_the_gpu_runner_builds_with_the_options_nvrtc_is_checked_with() -> None:
    """The runner (standalone: it imports CuPy, so it is read here, not imported) and the
    NVRTC check build alike: IEEE f32, nothing of CuPy's own compile path (-ftz=true)."""
    import ast

    from targets.cuda import nvrtc

    from ..conftest import REPO

    tree = ast.parse((REPO / "targets" / "device" / "cuda_runner.py").read_text())
    found = [ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
             and any(getattr(t, "id", "") == "OPTIONS" for t in n.targets)]
    assert found == [nvrtc.OPTIONS]
    assert "--ftz=false" in nvrtc.OPTIONS and "--fmad=false" in nvrtc.OPTIONS


@pytest.mark.gpu
def test_the_cuda_target_keeps_subnormals() -> None:
    """A subnormal f32 plus zero stays itself: CuPy's compile path flushed it."""
    from difftest.campaign.runner import check_case
    from difftest.core.kernelfile import load_case

    from ..conftest import REPO

    case = load_case(REPO / "corpus" / "kernel-8fc0326ee9285e9e.json")
    assert check_case(case, target("cuda")).verdict.agree
