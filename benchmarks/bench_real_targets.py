"""Checked cases per CPU-second on the real targets, beside numba-simt's, on one core:
the fuzz loop's work per generated case (generation, one oracle run, the target's run and
the verdict) over a fixed-seed sample drawn as the fuzz loop draws it for each target (its
cases per kernel, wave sizes and reconvergence model). CPU time is this process's
(`time.process_time`) plus the target's device processes' (their threads, and the
compilers they run, included), best of `repeat`; the device processes are started and
warmed on a few other cases first, as a fuzz worker starts them once. Where the time goes
is the wall clock of each part: generation, the oracle, the device's front end (glslang,
naga, NVRTC, g++), the rest of its build (the driver's compiler), the launch, the verdict,
and the rest (translation, the process protocol, decoding).

    python benchmarks/bench_real_targets.py [--kernels K] [--seed S] [--json FILE]
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

REAL = ("opencl", "opencl-intel", "lavapipe-wgsl", "lavapipe-glsl", "vulkan-wgsl",
        "vulkan-glsl", "cuda-sim", "cuda")
PARTS = ("generation", "oracle", "front_end", "build", "launch", "verdict", "rest")


def sample(target: Any, kernels: int, seed: int) -> list[Any]:
    """The cases the fuzz loop's first worker draws for `target` from `kernels` kernels."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    from difftest.campaign.fuzz import BATCH, batch_seed
    from generators.cases import kernel_cases

    strategy = kernel_cases(target.cases_per_kernel, capabilities=target.capabilities,
                            waves=target.wave_sizes, reconvergence=target.reconvergence,
                            one_wave=target.one_wave_per_kernel)
    cases: list[Any] = []
    for number, start in enumerate(range(0, kernels, BATCH)):
        @settings(max_examples=min(BATCH, kernels - start), database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @hseed(batch_seed(seed, 0, number))
        @given(strategy)
        def generate(kc: Any) -> None:
            cases.extend(kc[1])

        generate()
    return cases


def _device_cpu(target: Any) -> float:
    cpu = getattr(target, "device_cpu_seconds", None)
    return float(cpu()) if callable(cpu) else 0.0


def checked_per_cpu_second(name: str, kernels: int, seed: int, repeat: int
                           ) -> dict[str, Any]:
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import oracle_run, replayed, run_target, target_options, \
        undefined_in_run
    from difftest.core.verdict import check_outcome
    from generators.kernels import _checked

    target = load_target(name)
    target.warm_up()
    per_case = target.schedules_per_case
    for case in sample(target, 8, seed + 999)[:16]:  # start and warm the device processes
        if not target.unsupported(case):
            run_target(target, case, case.schedule, target_options(target, case.options))
    best: dict[str, Any] | None = None
    phases = getattr(target, "phase_seconds", {})
    for _ in range(repeat):
        _checked.cache_clear()
        c0, d0 = time.process_time(), _device_cpu(target)
        w0 = time.perf_counter()
        cases = sample(target, kernels, seed)
        generation = time.process_time() - c0
        wall = dict.fromkeys(PARTS, 0.0)
        wall["generation"] = time.perf_counter() - w0
        p0 = dict(phases)
        checked = disagree = 0
        disagreeing: list[Any] = []
        for case in cases:
            if target.unsupported(case):
                continue
            options = target_options(target, case.options)
            t = time.perf_counter()
            full, error = oracle_run(case, options)
            wall["oracle"] += time.perf_counter() - t
            if undefined_in_run(target, full):
                continue
            for _k in range(per_case):
                t = time.perf_counter()
                outcome = run_target(target, case, case.schedule, options)
                u = time.perf_counter()
                wall["rest"] += u - t
                replay, why = replayed(case, full, error, outcome, options)
                verdict = check_outcome(case, replay, outcome, None,
                                        target.never_ran_granularity == "wave", why)
                wall["verdict"] += time.perf_counter() - u
                checked += 1
                disagree += not verdict.agree
                if not verdict.agree:
                    disagreeing.append(case)
        for phase in ("front_end", "build", "launch"):
            spent = phases.get(phase, 0.0) - p0.get(phase, 0.0)
            wall[phase] = spent
            wall["rest"] -= spent
        total = time.process_time() - c0
        device = _device_cpu(target) - d0
        row = {"target": name, "cases": checked, "disagreements": disagree,
               "kernels": kernels, "cpu_s": total + device, "device_cpu_s": device,
               "generation_s": generation,
               "checked_per_cpu_s": checked / (total + device),
               "wall_s": {k: round(v, 3) for k, v in wall.items()}}
        if best is None or row["checked_per_cpu_s"] > best["checked_per_cpu_s"]:
            best = row
            best["known"] = disagreeing
    assert best is not None
    best["known"] = known_bugs(target, best["known"])
    return best


def known_bugs(target: Any, cases: list[Any]) -> dict[str, int]:
    """The disagreeing cases by the known bug whose spelling-around makes each agree
    (the first of `target.avoidable` that does; "-": none does). Outside the timing."""
    from collections import Counter

    from difftest.campaign.runner import rerun_with, target_options

    def bug(case: Any) -> str:
        agrees = rerun_with(case, target, target_options(target, case.options), None, None)
        return next((a for a in getattr(target, "avoidable", ()) if agrees({"avoid": a})),
                    "-")

    return dict(Counter(bug(case) for case in cases))


def run(kernels: int, seed: int, repeat: int, names: tuple[str, ...]) -> dict[str, Any]:
    from difftest.core.errors import DifftestError
    from difftest.campaign.registry import load_target

    out: dict[str, Any] = {}
    for name in ("numba-simt",) + names:
        try:
            load_target(name)
        except DifftestError as e:
            out[name] = {"target": name, "skipped": str(e)}
            continue
        out[name] = checked_per_cpu_second(name, kernels, seed, repeat)
    return out


def format_rows(rows: dict[str, Any]) -> str:
    lines = ["checked cases per CPU-second, the fuzz loop's work on one core (device "
             "processes' CPU included):"]
    for name, r in rows.items():
        if "skipped" in r:
            lines.append(f"  {name:14} not installed here")
            continue
        lines.append(f"  {name:14} {r['checked_per_cpu_s']:6.1f}  ({r['cases']} cases of "
                     f"{r['kernels']} kernels in {r['cpu_s']:.1f} CPU-s, of it device "
                     f"{r['device_cpu_s']:.1f} s; {r['disagreements']} disagree)")
        if r.get("known"):
            lines.append(" " * 17 + "disagreeing, by the known bug whose avoiding makes "
                         "each agree ('-': none): " + ", ".join(
                             f"{k} {v}" for k, v in sorted(r["known"].items())))
        wall = r.get("wall_s", {})
        spent = sum(wall.values())
        if spent > 0:
            lines.append(" " * 17 + "where the time goes: " + ", ".join(
                f"{k.replace('_', ' ')} {100 * wall[k] / spent:.0f}%" for k in PARTS
                if k in wall))
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--target", action="append", default=None)
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args()
    result = run(a.kernels, a.seed, a.repeat, tuple(a.target or REAL))
    print(format_rows(result))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    sys.exit(0)
