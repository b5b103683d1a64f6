"""Workgroups in the translations (docs/semantics.md, "Workgroups in the translations"):
workgroup arrays, barriers, group ids and sync mode, on every real target that declares
`workgroups` and is installed here; expected results derived by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.campaign.runner import check_case
from difftest.core.case import Case
from difftest.core.ir import parse
from difftest.core.kernelfile import load_case
from targets.translate import Unsupported, translate

from ..conftest import EXAMPLES
from .test_real_targets import case, target

WORKGROUP_TARGETS = ("opencl", "opencl-intel", "lavapipe-glsl", "vulkan-glsl", "lavapipe-wgsl",
                     "vulkan-wgsl")


def reduce_case() -> Case:
    """examples/workgroup_reduce.py: a tree reduction of each group's inputs in which
    workitem 5 of each group faults before the first barrier (so it writes nothing and
    must not leave its group short at the barriers), the last group partial."""
    return load_case(EXAMPLES / "workgroup_reduce.py")


INP = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]


def expected_reduce(n: int) -> list[int]:
    """The reduction done by hand: workitem 5 of a group stores nothing and takes no
    step of the tree (its partner's slot 13 is never added); missing workitems of the
    last group leave their slots 0."""
    out = [-1] * n
    for group in range(-(-n // 16)):
        tile = [INP[g % len(INP)] if g < n and g % 16 != 5 else 0
                for g in range(group * 16, group * 16 + 16)]
        d = 8
        while d:
            for lane in range(d):
                if lane != 5 and group * 16 + lane < n:
                    tile[lane] += tile[lane + d]
            d //= 2
        for g in range(group * 16, min(n, group * 16 + 16)):
            if g % 16 != 5:
                out[g] = tile[0] + group * 1000
    return out


@pytest.mark.parametrize("name", WORKGROUP_TARGETS)
def test_a_tree_reduction_with_faulting_workitems_and_a_partial_last_group(name: str) -> None:
    t = target(name)
    c = reduce_case()
    got = t.run(c, {}, {})
    assert got.error is None, got.error
    assert got.buffers["out"].tolist() == expected_reduce(40)
    assert [g for g, s in enumerate(got.status) if s == "faulted"] == [5, 21, 37]
    assert got.exception is not None and got.exception.gid == 5
    assert check_case(c, t, {}, {}).verdict.agree


@pytest.mark.parametrize("name", WORKGROUP_TARGETS)
def test_workgroup_memory_is_zero_at_each_groups_start(name: str) -> None:
    # each group reads its array before writing it, then leaves its mark in it: a group
    # that finds an earlier group's mark was not given fresh, zeroed memory
    t = target(name)
    c = case("def kernel(out: Buffer[i64]):\n"
             "    tile: Local[i64, 8]\n"
             "    out[gid()] = tile[local_id()]\n"
             "    barrier()\n"
             "    tile[local_id()] = i64(gid()) + 1\n", n=64, wave=4,
             out=("int64", [-1] * 64))
    c.group = 8
    got = t.run(c, {}, {})
    assert got.error is None and got.buffers["out"].tolist() == [0] * 64
    unzeroed = t.run(c, {}, {"mutants": ["workgroup-memory-unzeroed"]})
    assert unzeroed.buffers["out"].tolist() != [0] * 64


@pytest.mark.parametrize("name", WORKGROUP_TARGETS)
def test_ghosts_follow_their_group_through_a_loop_of_barriers(name: str) -> None:
    # group 0 returns at once (the whole group: allowed); in group 1, workitems 12-15 are
    # past n=12, ghosts from the launch, which its live ones must not wait for in vain
    t = target(name)
    c = case("def kernel(out: Buffer[i32], s: i32):\n"
             "    tile: Local[i32, 8]\n"
             "    if group_id() == 0:\n"
             "        return\n"
             "    for k in range(0, s):\n"
             "        atomic_add(tile, (local_id() + k) % 8, k + 1)\n"
             "        barrier()\n"
             "    out[gid()] = tile[local_id()]\n", n=12, wave=4, out=[-1] * 12, s=3)
    c.group = 8
    got = t.run(c, {}, {})
    assert got.error is None, got.error
    # slot l gets k + 1 from the live local id l - k (mod 8) of each trip k: 0..3 only
    want = [-1] * 8 + [1, 1 + 2, 1 + 2 + 3, 1 + 2 + 3]
    assert got.buffers["out"].tolist() == want
    assert check_case(c, t, {}, {}).verdict.agree
    short = t.run(c, {}, {"mutants": ["ghost-returns"], "timeout": 5})
    assert short.error is not None or short.buffers["out"].tolist() != want


@pytest.mark.parametrize("name", WORKGROUP_TARGETS)
def test_live_workitems_that_part_at_a_barrier_statement_are_not_checked(name: str) -> None:
    # allowed by the semantics (no barrier is reached differently: workitem 0 leaves in
    # the last trip), but not something the translation can run exactly
    t = target(name)
    c = case("def kernel(out: Buffer[i32]):\n"
             "    for k in range(0, 2):\n"
             "        barrier()\n"
             "        if local_id() == 0 and k == 1:\n"
             "            break\n"
             "        out[gid()] = out[gid()] + k + 1\n", n=8, wave=4, out=[0] * 8)
    c.group = 8
    verdict = check_case(c, t, {}, {}).verdict
    assert verdict.agree and verdict.unchecked, verdict
    assert "went different ways" in str(verdict)


def test_the_translation_declines_what_it_cannot_run() -> None:
    helper = parse("def kernel(out: Buffer[i32]):\n"
                   "    h()\n\n\n"
                   "def h():\n"
                   "    barrier()\n")
    with pytest.raises(Unsupported, match="helper"):
        translate(helper, "kernel", "opencl", 4, group=8)
    tiled = reduce_case().program
    with pytest.raises(Unsupported, match="exactly 8 lanes"):  # CUDA's warps are 32
        translate(tiled, "workgroup_reduce", "cuda", 8, group=16, subgroup=32)
    with pytest.raises(Unsupported, match="exactly 2 lanes"):
        translate(tiled, "workgroup_reduce", "opencl-subgroups", 2, group=16)
    src = translate(tiled, "workgroup_reduce", "opencl", 8, group=16).source
    assert "__local int l_tile[16];" in src
    assert "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);" in src
    assert "vote(C, VT," in src  # the while loop and its break are the group's
    src = translate(tiled, "workgroup_reduce", "glsl", 8, group=16, subgroup=8).source
    assert "shared int v_tile[16];" in src and "barrier();" in src and "vote(" in src
    assert "gl_NumSubgroups == 2u" in src  # two waves of 8 in a group of 16
    src = translate(tiled, "workgroup_reduce", "wgsl", 8, group=16, subgroup=8).source
    assert "var<workgroup> v_tile: array<i32, 16>;" in src and "workgroupBarrier();" in src
    assert "workgroupUniformLoad" in src  # the vote's answer, uniform for WGSL's analysis
    src = translate(tiled, "workgroup_reduce", "cuda", 32, group=64, subgroup=32).source
    assert "__shared__ int l_tile[16];" in src and "__syncthreads();" in src
    assert "vote(" not in src  # an exited thread holds no barrier up: no ghosts


# CUDA (cuda-sim without a GPU): blocks of G threads, warps of 32, so a group of several
# waves has waves of 32; a thread that faults or ends exits (PTX: exit releases barriers)

def test_cuda_a_tree_reduction_over_two_warps_with_faulting_threads(tmp_path: Path) -> None:
    t = target("cuda-sim")
    text = (EXAMPLES / "workgroup_reduce.py").read_text()
    path = tmp_path / "workgroup_reduce.py"
    path.write_text(text.replace("n=40 wave=8 group=16", "n=150 wave=32 group=64")
                    .replace("Local[i32, 16]", "Local[i32, 64]")
                    .replace("i32[-1] * 40", "i32[-1] * 150"))
    c = load_case(path)
    out = [-1] * 150
    for group in range(3):
        gids = range(group * 64, group * 64 + 64)
        tile = [INP[g % len(INP)] if g < 150 and g % 64 != 5 else 0 for g in gids]
        d = 32
        while d:
            for lane in range(d):
                if lane != 5 and group * 64 + lane < 150:
                    tile[lane] += tile[lane + d]
            d //= 2
        for g in gids:
            if g < 150 and g % 64 != 5:
                out[g] = tile[0] + group * 1000
    for order in (1, 7):
        got = t.run(c, {"order_seed": order}, {})
        assert got.error is None, got.error
        assert got.buffers["out"].tolist() == out
        assert [g for g, s in enumerate(got.status) if s == "faulted"] == [5, 69, 133]
    assert check_case(c, t, {}, {}).verdict.agree


def test_cuda_shared_memory_is_zero_and_the_barrier_is_the_blocks() -> None:
    t = target("cuda-sim")
    # each warp reads the other warp's slot, written before the barrier; and each group
    # first reads its array, which must be zero
    c = case("def kernel(out: Buffer[i64]):\n"
             "    tile: Local[i64, 64]\n"
             "    first = tile[local_id()]\n"
             "    barrier()\n"
             "    tile[local_id()] = i64(gid()) + 1\n"
             "    barrier()\n"
             "    out[gid()] = tile[(local_id() + 32) % 64] + first * 1000\n",
             n=192, wave=32, out=("int64", [-1] * 192))
    c.group = 64
    want = [g - g % 64 + (g % 64 + 32) % 64 + 1 for g in range(192)]
    got = t.run(c, {}, {})
    assert got.error is None and got.buffers["out"].tolist() == want
    assert check_case(c, t, {}, {}).verdict.agree
    warp_only = t.run(c, {}, {"mutants": ["barrier-warp-only"]})
    assert warp_only.buffers["out"].tolist() != want
    unzeroed = t.run(c, {}, {"mutants": ["workgroup-memory-unzeroed"]})
    assert unzeroed.buffers["out"].tolist() != want


def test_cuda_live_threads_that_part_at_a_barrier_statement_are_checked() -> None:
    # the case OpenCL C and GLSL can only call unsupported (their sync mode's votes):
    # CUDA's threads simply part, and the case is checked
    t = target("cuda-sim")
    c = case("def kernel(out: Buffer[i32]):\n"
             "    for k in range(0, 2):\n"
             "        barrier()\n"
             "        if local_id() == 0 and k == 1:\n"
             "            break\n"
             "        out[gid()] = out[gid()] + k + 1\n", n=64, wave=32, out=[0] * 64)
    c.group = 64
    verdict = check_case(c, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, verdict
    assert t.run(c, {}, {}).buffers["out"].tolist() == [1] + [3] * 63
    small = case(c.kernel, n=16, wave=8, out=[0] * 16)
    small.group = 16
    assert "32 lanes" in (t.unsupported(small) or "")  # a wave of 8 is not a warp of it


def test_pocl_avoid_spells_a_barrier_branch_so_that_its_known_bug_stays_away() -> None:
    """pocl-guards-lost-after-conditional-barrier (docs/findings.md): the recorded case
    disagrees on PoCL, and agrees under `avoid=barrier-branch-tail`, whose translation
    ends each arm of a barrier-bearing branch at a barrier; the variant keeps the
    kernel's meaning (the tree reduction with faulting workitems is still right)."""
    from difftest.campaign.findings import explain, known_findings
    from difftest.campaign.runner import rerun_with

    from ..conftest import REPO

    t = target("opencl")
    entry = REPO / "corpus" / "kernel-5d19f2c06524aa8f.json"
    c = load_case(entry)
    verdict = check_case(c, t, {}, {}).verdict
    if verdict.agree:
        pytest.skip("this PoCL keeps the guards (a fixed PoCL)")
    avoided = {"avoid": "barrier-branch-tail"}
    assert check_case(c, t, {}, avoided).verdict.agree
    source = t.translation(c, avoided).source
    assert source.count("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);") \
        == t.translation(c, {}).source.count(
            "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);") + 2
    reduce = reduce_case()
    got = t.run(reduce, {}, avoided)
    assert got.error is None and got.buffers["out"].tolist() == expected_reduce(40)
    # a failure the variant makes go away is this bug, whatever its shape
    [known] = [k for k in known_findings([entry]) if k.avoid == "barrier-branch-tail"]
    other = case("def kernel(out: Buffer[i32], s: i32):\n"
                 "    if s > 0:\n"
                 "        barrier()\n"
                 "        if local_id() < 1:\n"
                 "            out[gid()] = 1\n", n=32, wave=16, out=[0] * 32, s=1)
    other.group = 32
    res = check_case(other, t, {}, {})
    assert not res.verdict.agree
    rerun = rerun_with(other, t, {}, res.full, None)
    assert explain([known], "opencl", other, res.verdict, {}, t.compiler({}), rerun) is known


def test_a_campaign_knows_a_reduced_failure_by_its_cause(tmp_path: Path) -> None:
    """A failure whose reduced case agrees under a known finding's variant is that
    finding again, not a new counterexample, whatever its shape (the failing case itself
    was not recognised: say it held a trigger the variant does not spell)."""
    from difftest.campaign.findings import known_findings
    from difftest.campaign.fuzz import FuzzConfig, _Known, _reduce_and_keep

    from ..conftest import REPO

    t = target("opencl")
    other = case("def kernel(out: Buffer[i32], s: i32):\n"
                 "    if s > 0:\n"
                 "        barrier()\n"
                 "        if local_id() < 1:\n"
                 "            out[gid()] = 1\n", n=32, wave=16, out=[0] * 32, s=1)
    other.group = 32
    res = check_case(other, t, {}, {})
    if res.verdict.agree:
        pytest.skip("this PoCL keeps the guards (a fixed PoCL)")
    [finding] = known_findings([REPO / "corpus" / "kernel-5d19f2c06524aa8f.json"])
    failure = "R3 memory"

    def kept(avoid: str) -> bool:
        folder = tmp_path / f"known-{bool(avoid)}"
        folder.mkdir()
        known = _Known([folder], folder)
        known.add(finding.signature, avoid)
        config = FuzzConfig("opencl", corpus=tmp_path / f"corpus-{bool(avoid)}")
        found, _, _ = _reduce_and_keep(other.to_json(), str(res.verdict), "R3 memory",
                                       failure, 0.0, 0.0, config, t, known)
        return found is not None

    assert not kept("barrier-branch-tail")  # recognised by its cause
    assert kept("")  # by shape alone it is another bug: kept as new


def test_pocl_builds_its_work_group_function_before_the_run_is_timed() -> None:
    """PoCL compiles a kernel's work-group function at its first launch for a local
    size; the runner does that launch (n = 0, on copies of the arrays) before it says
    "built", so the run's time limit does not cover a compilation. The dry launch
    leaves the arrays the real one starts from untouched, even where a kernel ignores n."""
    import numpy as np

    from targets.device import opencl_runner as r

    target("opencl")
    source = ("__kernel void k(__global int* out, long n) {\n"
              "    out[get_global_id(0)] += 1 + (int)n;\n}\n")
    phases: list[str] = []
    header = {"platform": "Portable", "source": source, "flags": "-w", "kernel": "k",
              "args": [["array", 0], ["long", 5]], "global": 8, "local": 8,
              "warm_up": 1}
    dev = r.device("Portable")
    _, [out] = r.handle(header, [np.zeros(8, np.int32)],
                        lambda *_: phases.append("built"))
    assert out.tolist() == [6] * 8  # one launch's worth: the dry one wrote to copies
    assert phases == ["built"] and (source, "-w", 8) in dev.warmed
