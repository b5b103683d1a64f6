"""Mesa's gallivm drivers (lavapipe) end a shader's loops after 65,535 iterations in all
(a deliberate limiter): a run where a workitem runs more loop trips than a quarter of
that is not checked on them (it was reported as a disagreement by a ten-minute campaign:
a `while` of 2^30 trips, which the semantics stops at its trip budget, left after 65,535
on Mesa 22); a run within it is checked as before."""

from __future__ import annotations

from pathlib import Path

from difftest.campaign.runner import cannot_run, check_case
from difftest.core.kernelfile import load_case

from .test_real_targets import target

KERNEL = """# difftest: launch n=8 wave=8
# difftest: arg out = i32[0] * 8
# difftest: arg s = {s}
def kernel(out: Buffer[i32], s: i32):
    c = 0
    while True:
        c = c + 1
        if c > s * (gid() % 2):
            break
    out[gid()] = c
"""


def _case(tmp_path: Path, s: int):  # type: ignore[no-untyped-def]
    path = tmp_path / f"loop_{s}.py"
    path.write_text(KERNEL.format(s=s))
    return load_case(path)


def test_a_run_past_the_limiter_is_not_checked_on_lavapipe(tmp_path: Path) -> None:
    t = target("lavapipe-glsl")
    why = cannot_run(t, _case(tmp_path, 70000))
    assert why is not None and "65,535" in why and "workitem 1" in why, why


def test_a_run_within_it_is_checked(tmp_path: Path) -> None:
    t = target("lavapipe-glsl")
    case = _case(tmp_path, 1000)
    assert cannot_run(t, case) is None
    verdict = check_case(case, t, {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


def test_other_targets_have_no_such_limit(tmp_path: Path) -> None:
    assert cannot_run(target("cuda-sim"), _case(tmp_path, 70000)) is None
