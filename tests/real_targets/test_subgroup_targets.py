"""The bitwise, clustered and quad operations and wave_all_equal on every installed real
target that has subgroups: tests/oracles/test_subgroup_vocabulary.py's kernel (values
from its own per-lane model) in the widest wave each runs and in waves of 8, and the
examples through `difftest check`; GLSL uses the device's clustered operations where it
has them (Mesa 25's lavapipe) and composes them of shuffles where not (Mesa 22's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.campaign.runner import check_case
from difftest.core.kernelfile import load_case

from ..oracles.test_subgroup_vocabulary import case_file
from .test_real_targets import target
from .test_vulkan import maximal_icd

TARGETS = ("opencl-intel", "lavapipe-glsl", "lavapipe-wgsl", "cuda-sim")


@pytest.mark.parametrize("name", TARGETS)
def test_the_vocabulary_computes_as_the_model(name: str, tmp_path: Path) -> None:
    t = target(name)
    for wave in sorted({8, max(w for w in t.wave_sizes if w <= 64)}):
        case = load_case(case_file(tmp_path, wave))
        assert t.unsupported(case) is None, t.unsupported(case)
        verdict = check_case(case, t, {}, {}).verdict
        assert verdict.agree and not verdict.unchecked, f"W = {wave}: {verdict}"


@pytest.mark.parametrize("icd, native", [("", False), ("maximal", True)])
def test_glsl_clustered_native_where_the_device_has_them(icd: str, native: bool,
                                                         tmp_path: Path) -> None:
    t = target("lavapipe-glsl")
    options = {"icd": maximal_icd()} if icd else {}
    case = load_case(case_file(tmp_path, 8))
    source = t.listing(case, options)
    assert source is not None
    assert ("subgroupClusteredMin" in source) is native  # cluster=4 of 8 lanes
    assert "subgroupQuadBroadcast" in source and "subgroupAllEqual" in source
    verdict = check_case(case, t, {}, options).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


RELATIVE = """\
# difftest: launch n=16 wave=16
# difftest: arg out = i64[0] * 96
# difftest: arg d = i32[-3, 2, -1, 0, 5, -16, 16, 1, -2, 3, 7, -7, 4, -4, 15, -15]
def k(out: Buffer[i64], d: Buffer[i32]):
    g = gid()
    x = prefix_sum(1) * 10 + 1
    out[g] = shuffle_down(x, -1)
    out[g + 16] = shuffle_up(x, -2)
    out[g + 32] = shuffle_down(x, d[g])
    out[g + 48] = shuffle_up(x, d[g])
    out[g + 64] = shuffle_up(x, 3)
    out[g + 80] = shuffle_xor(x, d[g])
"""


@pytest.mark.parametrize("name", TARGETS)
def test_relative_shuffles_by_negative_and_run_time_amounts(name: str, tmp_path: Path
                                                           ) -> None:
    """A relative shuffle reads lane `lane - delta` (up), `lane + delta` (down), `lane ^
    mask`, and 0 where that is no lane. GLSL's Up and Down take an unsigned delta and
    leave a lane past the subgroup undefined: `shuffle_down(x, -1)` written as Down by
    2^32 - 1 gave the lane's own value on NVIDIA's driver, so a source below the lane is
    read by Up and one above by Down."""
    from oracles.reference import run_full

    d = [-3, 2, -1, 0, 5, -16, 16, 1, -2, 3, 7, -7, 4, -4, 15, -15]
    x = [10 * lane + 1 for lane in range(16)]

    def at(src: int) -> int:
        return x[src] if 0 <= src < 16 else 0

    want = ([at(k - 1) for k in range(16)] + [at(k + 2) for k in range(16)]
            + [at(k + d[k]) for k in range(16)] + [at(k - d[k]) for k in range(16)]
            + [at(k - 3) for k in range(16)] + [at(k ^ d[k]) for k in range(16)])
    path = tmp_path / "relative.py"
    path.write_text(RELATIVE)
    case = load_case(path)
    assert run_full(case).final["out"].tolist() == want
    t = target(name)
    verdict = check_case(case, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)
    if name == "lavapipe-glsl":  # the literal amounts: each by the one call that reads it
        source = t.listing(case, {}) or ""
        assert source.count("subgroupShuffleUp(") == 4, source  # -1 down, 3 up, d twice
        assert source.count("subgroupShuffleDown(") == 3, source  # -2 up, d twice


CLUSTERED = """# difftest: launch n=4 wave=4
# difftest: arg x = {T}[{top}, 7, 6, 3]
# difftest: arg out = {T}[0] * 20
def kernel(x: Buffer[{T}], out: Buffer[{T}]):
    g = gid()
    out[g] = wave_and(x[g], cluster=2)
    out[g + 4] = wave_or(x[g], cluster=2)
    out[g + 8] = wave_xor(x[g], cluster=2)
    out[g + 12] = wave_min(x[g], cluster=2)
    out[g + 16] = wave_max(x[g], cluster=2)
"""


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize("ty", ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"])
def test_clustered_reductions_start_from_each_types_identity(name: str, ty: str,
                                                             tmp_path: Path) -> None:
    """A clustered reduction composed of shuffles starts from its operation's identity
    in the operand's own type: all ones for `wave_and` is MAX of an unsigned type (WGSL
    has no `-1u`: the shader did not build), the largest value for `wave_min`, the
    smallest for `wave_max`. Lane 0 holds all ones (-1, or MAX unsigned)."""
    from oracles.reference import run_full

    bits, signed = int(ty[1:]), ty[0] == "i"
    top = -1 if signed else (1 << bits) - 1  # all ones, as the type holds it
    least, most = (top, 7) if signed else (7, top)  # of lanes 0 and 1
    want = ([7, 7, 6 & 3, 6 & 3] + [top, top, 7, 7] + [top ^ 7, top ^ 7, 6 ^ 3, 6 ^ 3]
            + [least, least, 3, 3] + [most, most, 6, 6])
    path = tmp_path / f"clustered_{ty}.py"
    path.write_text(CLUSTERED.format(T=ty, top=top))
    case = load_case(path)
    assert run_full(case).final["out"].tolist() == [
        v % (1 << 64) - (1 << 64) if ty == "u64" and v >= 1 << 63 else v for v in want]
    t = target(name)
    why = t.unsupported(case)
    if why is not None:  # WGSL: 32 and 64 bits only; a device's subgroup types
        assert bits < 32, why
        return
    verdict = check_case(case, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


BIT_COUNTS = """\
# difftest: launch n=12 wave=8
# difftest: arg out = i32[0] * 36
# difftest: arg v = 255
def kernel(out: Buffer[i32], v: i64):
    g = gid()
    out[g] = ballot_bit_count(v)
    out[g + 12] = ballot_bit_count(i64(g) - 1)
    out[g + 24] = ballot_inclusive_bit_count(v)
"""


def _bit_counts(tmp_path: Path) -> Path:
    path = tmp_path / "bit_counts.py"
    path.write_text(BIT_COUNTS)
    return path


def test_the_ballot_bit_count_variant_builds_no_subgroup_count(tmp_path: Path) -> None:
    """avoid=ballot-bit-count (intel-ballot-bit-count-crash): `ballot_bit_count` is a
    popcount of the ballot's wave bits, not `sub_group_ballot_bit_count`; the other
    ballot functions keep the subgroup's own."""
    from targets.translate import translate

    case = load_case(_bit_counts(tmp_path))
    plain = translate(case.program, case.entry, "opencl-subgroups", 8).source
    src = translate(case.program, case.entry, "opencl-subgroups", 8,
                    avoid=frozenset({"ballot-bit-count"})).source
    assert plain.count("sub_group_ballot_bit_count(") == 2
    assert "sub_group_ballot_bit_count(" not in src and "popcount(" in src
    assert src.count("sub_group_ballot_inclusive_scan(") == 1


def test_intel_avoid_spells_ballot_bit_count_so_that_its_crash_stays_away(
        tmp_path: Path) -> None:
    """intel-ballot-bit-count-crash (docs/findings.md): the recorded case aborts Intel's
    compiler, and agrees under `avoid=ballot-bit-count`; the variant counts right on a
    uniform ballot, on one that differs per work-item and in a partial wave (n = 12 in
    waves of 8: by docs/semantics.md each count is of the wave's 8 bits alone)."""
    from ..conftest import REPO

    t = target("opencl-intel")
    avoided = {"avoid": "ballot-bit-count"}
    recorded = load_case(REPO / "corpus" / "kernel-ebbc46df3d346bbd.json")
    if check_case(recorded, t, {}, {}).verdict.agree:
        pytest.skip("this Intel runtime builds it (a fixed runtime)")
    assert check_case(recorded, t, {}, avoided).verdict.agree
    case = load_case(_bit_counts(tmp_path))
    got = t.run(case, {}, avoided)
    assert got.error is None, got.error
    below = [(g - 1) & 255 for g in range(12)]  # -1's eight bits for workitem 0
    assert got.buffers["out"].tolist() == (
        [8] * 12 + [bin(b).count("1") for b in below]
        + [lane + 1 for lane in list(range(8)) + list(range(4))])
    verdict = check_case(case, t, {}, avoided).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)
