"""The bitwise, clustered and quad operations and wave_all_equal (docs/semantics.md,
"Bitwise and clustered reductions", "Quad operations") under data-dependent divergence:
the expected values from a plain per-lane model written here (clusters, quads and
active lanes spelled out, nothing of the oracle's), held against the reference and
numba-simt in waves of 64 and of 8; each of numba-simt's mutants of them is caught; the
checker's rules for `cluster=` and the quad lane."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.campaign.registry import load_target
from difftest.campaign.runner import check_case
from difftest.core.errors import KernelError
from difftest.core.ir.parse import parse
from difftest.core.kernelfile import load_case
from oracles.reference import run_full

N = 64
ROWS = 11


def kernel(wave: int) -> str:
    return f"""# difftest: launch n={N} wave={wave}
# difftest: arg out = i32[0] * {N * ROWS}
# difftest: arg a = i32[{", ".join(str(v) for v in inputs())}]
def kernel(out: Buffer[i32], a: Buffer[i32]):
    g = gid()
    x = a[g]
    if x % 3 != 0:
        out[g] = wave_sum(x, cluster=8)
        out[g + {N}] = wave_min(x, cluster=4)
        out[g + {2 * N}] = wave_max(x, cluster=16)
        out[g + {3 * N}] = wave_and(x | 256)
        out[g + {4 * N}] = wave_or(x, cluster=2)
        out[g + {5 * N}] = wave_xor(x, cluster=32)
        out[g + {6 * N}] = quad_broadcast(x, 1)
        out[g + {7 * N}] = quad_swap_vertical(x)
        out[g + {8 * N}] = i32(wave_all_equal(x // 50))
        out[g + {9 * N}] = wave_and(x, cluster=64)
    if lane() != 0:
        out[g + {10 * N}] = i32(wave_all_equal(x * 0 + 5))
"""


def inputs() -> list[int]:
    return [(g * 37 + 11) % 97 - 20 for g in range(N)]


def _trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def expected(wave: int) -> list[int]:
    """Lane by lane: the active lanes are those whose x % 3 != 0; a cluster of C is lanes
    C*k .. C*k+C-1 of the wave; a quad lanes 4q .. 4q+3; an inactive source gives 0."""
    x = inputs()
    active = [v % 3 != 0 for v in x]
    out = [0] * (N * ROWS)

    def fold(g: int, cluster: int, op: object) -> int:
        base = g - g % wave + (g % wave) // cluster * cluster
        vals = [x[h] for h in range(base, min(base + cluster, g - g % wave + wave))
                if active[h]]
        acc = vals[0]
        for v in vals[1:]:
            acc = op(acc, v)  # type: ignore[operator]
        return acc

    for g in range(N):
        out[g + 10 * N] = int(g % wave != 0)  # lane 0 is not active there
        if not active[g]:
            continue
        lane, first = g % wave, g - g % wave
        out[g] = (fold(g, 8, lambda a, b: a + b) + 2**31) % 2**32 - 2**31
        out[g + N] = fold(g, 4, min)
        out[g + 2 * N] = fold(g, 16, max)
        out[g + 3 * N] = fold(g, 64, lambda a, b: (a | 256) & (b | 256)) | 256
        out[g + 4 * N] = fold(g, 2, lambda a, b: a | b)
        out[g + 5 * N] = fold(g, 32, lambda a, b: a ^ b)
        src = first + (lane & ~3) + 1
        out[g + 6 * N] = x[src] if (lane & ~3) + 1 < wave and active[src] else 0
        src = first + (lane ^ 2)
        out[g + 7 * N] = x[src] if (lane ^ 2) < wave and active[src] else 0
        wave_active = [_trunc(x[h], 50) for h in range(first, first + wave) if active[h]]
        out[g + 8 * N] = int(len(set(wave_active)) == 1)
        out[g + 9 * N] = fold(g, 64, lambda a, b: a & b)
    return out


def case_file(tmp_path: Path, wave: int) -> Path:
    path = tmp_path / f"vocabulary_{wave}.py"
    path.write_text(kernel(wave))
    return path


@pytest.mark.parametrize("wave", [64, 8])
def test_the_reference_computes_each_row_as_the_model(tmp_path: Path, wave: int) -> None:
    run = run_full(load_case(case_file(tmp_path, wave)))
    got = [int(v) for v in run.final["out"]]
    want = expected(wave)
    wrong = [(k // N, k % N, got[k], want[k]) for k in range(N * ROWS) if got[k] != want[k]]
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("wave", [64, 8])
@pytest.mark.parametrize("schedule, options", [
    ({}, {}), ({}, {"registers": 5}), ({}, {"reduce": "tree"}),
    # lanes forced to deopt at the first store: the host's loop computes the rest
    ({"deopt_percent": 60, "deopt_seed": 3}, {})])
def test_numba_simt_agrees(tmp_path: Path, wave: int, schedule: dict, options: dict
                           ) -> None:
    verdict = check_case(load_case(case_file(tmp_path, wave)), load_target("numba-simt"),
                         schedule, options).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


@pytest.mark.parametrize("mutant", ["cluster-whole-wave", "cluster-step-past",
                                    "wave-and-identity-zero", "quad-lanes-across-quads",
                                    "all-equal-lane0"])
def test_each_mutant_is_caught(tmp_path: Path, mutant: str) -> None:
    verdict = check_case(load_case(case_file(tmp_path, 64)), load_target("numba-simt"),
                         {}, {"mutants": [mutant]}).verdict
    assert not verdict.agree and "out[" in str(verdict), str(verdict)


@pytest.mark.parametrize("call, message", [
    ("wave_sum(x, cluster=3)", "must be a power of two"),
    ("wave_sum(x, cluster=128)", "integer literal 1 to 64"),
    ("wave_sum(x, cluster=x)", "integer literal 1 to 64"),
    ("wave_any(x == 1, cluster=2)", "keyword arguments are not supported"),
    ("wave_min(f32(1.5), cluster=2)", "over clusters takes an integer"),
    ("quad_broadcast(x, 4)", "quad lane of quad_broadcast() must be an integer literal"),
    ("quad_broadcast(x, x)", "quad lane of quad_broadcast() must be an integer literal"),
    ("wave_xor(x == 1)", "must be an integer, got bool"),
    ("wave_and(f32(1.0))", "must be an integer, got f32"),
    ("i32(wave_all_equal(f32(1.0)))", "must be an integer or a bool"),
])
def test_the_checker_refuses(call: str, message: str) -> None:
    text = f"def k(out: Buffer[i32]):\n    x = gid()\n    out[0] = i32({call})\n"
    with pytest.raises(KernelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(text)
