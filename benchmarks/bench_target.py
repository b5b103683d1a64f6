"""`difftest bench` (or `python benchmarks/bench_target.py [--json FILE] [--quick]`):
numba-simt's speed, measured side by side in one run.

- SimpleDeopt (the seed's kernel) with `length = 2n`, so no workitem faults, at n = 2^22:
  numba-simt's machine vs the same computation as a hand-written `@njit` loop, as a ratio
  per wave size (W = 1, 8, 32, 64; best of `repeat` runs each, interleaved so machine
  noise hits both sides alike), and vs the oracle at n = 2^16;
- machine throughput in lane-instructions/s;
- JIT compilations of the machine while running generated kernels (aim: 0 after warm-up);
- cold and cached compile time of the machine (fresh processes, an empty and then a warm
  NUMBA_CACHE_DIR);
- checked cases per CPU-second on each real target that is installed, beside numba-simt's
  (benchmarks/bench_real_targets.py).

Besides machine.py this is the one module that imports numba: for the hand-written
baseline, which must be compiled by the same compiler to be a fair reference.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

SIMPLE_DEOPT = """\
def simple_deopt(out: Buffer[i32], length: i32):
    p = gid()
    out_index = p + length if p == length // 2 else p
    write_int_array(out, out_index, p * p)


def write_int_array(ary: Buffer[i32], index: i32, val: i32):
    ary[index] = val
"""


def _case(n: int, wave: int) -> Any:
    from difftest.core.case import case_from_json

    # The data list is small JSON only for the case check; the buffer is replaced below.
    case = case_from_json({"kernel": SIMPLE_DEOPT, "entry": "simple_deopt",
                           "launch": {"n": 1, "wave": wave},
                           "args": {"out": {"dtype": "i32", "data": [0]}, "length": 2}})
    case.n = n
    case.args["out"] = np.full(n, -1, dtype=np.int32)
    case.args["length"] = 2 * n
    return case


def _baseline() -> Any:
    from numba import njit

    # not cached: `difftest bench` runs this file as __main__ and bench_trees.py imports
    # it as bench_target, and numba's cache of one would import the other by name
    @njit
    def simple_deopt_loop(out: np.ndarray, length: int) -> int:
        n = out.shape[0]
        faults = 0
        half = length // 2
        for p in range(n):
            idx = p + length if p == half else p
            if 0 <= idx < n:
                out[idx] = np.int32(p * p)
            else:
                faults += 1
        return faults

    return simple_deopt_loop


def _time(fn: Any) -> float:
    t0 = time.process_time()  # CPU time: the machine is shared and wall time swings
    fn()
    return time.process_time() - t0


def _machine_runner(case: Any) -> tuple[Any, Any]:
    """A closure running only the machine on `case` (layout done once), and counters."""
    from targets.numba_simt.device import machine
    from targets.numba_simt.runtime import deopt
    from targets.numba_simt.target import compile_case

    compiled = compile_case(case, {})
    n, w = case.n, case.wave
    buftab = np.array([[0, n, 32]], dtype=np.int64)
    params = np.array([0, case.args["length"]], dtype=np.int64)
    order = np.arange((n + w - 1) // w, dtype=np.int64)
    counters = np.zeros(4, dtype=np.int64)
    mem = np.full(n, -1, dtype=np.int64)
    area = deopt.make_area(compiled, n, w, w, 1)

    def run() -> None:
        counters[:] = 0
        rc = machine.run_launch(compiled.rows, n, w, compiled.nregs, compiled.nmasks,
                                compiled.nslots, mem, buftab, params, order, 1, 64,
                                counters, area)
        assert rc == 0, f"machine error {rc}"

    return run, (mem, counters, area)


def bench_ratios(n: int, waves: list[int], repeat: int) -> dict[int, dict[str, Any]]:
    baseline = _baseline()
    out = np.full(n, -1, dtype=np.int32)
    baseline(out, 2 * n)  # compile / load
    rows = {}
    for w in waves:
        run, (mem, counters, area) = _machine_runner(_case(n, w))
        run()  # warm
        expected = (np.arange(n, dtype=np.int64) ** 2).astype(np.int32)
        assert np.array_equal(mem.astype(np.int32), expected), "numba-simt result differs"
        from targets.numba_simt.runtime import deopt

        assert len(deopt.frames(area)) == 0, "a workitem deopted"
        t_machine, t_njit = float("inf"), float("inf")
        for _ in range(repeat):
            t_njit = min(t_njit, _time(lambda: baseline(out, 2 * n)))
            t_machine = min(t_machine, _time(run))
        rows[w] = {"machine_s": t_machine, "njit_s": t_njit, "ratio": t_machine / t_njit,
                   "lane_instructions": int(counters[1]),
                   "lane_instructions_per_s": counters[1] / t_machine}
    return rows


def bench_oracle(n: int, wave: int) -> dict[str, float]:
    from oracles.reference import run_full

    from targets.numba_simt.target import NumbaSimtTarget

    case = _case(n, wave)
    target = NumbaSimtTarget()
    target.run(case)  # compile, warm
    t_target = min(_time(lambda: target.run(case)) for _ in range(3))
    t_oracle = _time(lambda: run_full(case))
    return {"oracle_s": t_oracle, "target_s": t_target, "ratio": t_oracle / t_target}


def bench_jit_compilations(kernels: int, seed: int) -> dict[str, int]:
    """Numba compilations of the machine's entry while running generated kernels."""
    from generators.cases import cases
    from generators.sampling import draw

    from targets.numba_simt.device import machine
    from targets.numba_simt.target import NumbaSimtTarget

    target = NumbaSimtTarget()
    target.warm_up()
    before = machine.compilations()
    for case in draw(cases(), kernels, seed):
        target.run(case, case.schedule, case.options)
    return {"kernels": kernels, "compilations": machine.compilations() - before}


_COMPILE_SNIPPET = (
    "import time; t=time.perf_counter(); "
    "from targets.numba_simt.device import machine; machine.warm_up(); "
    "print(time.perf_counter()-t)"
)


def bench_compile_time() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env,
                                 capture_output=True, text=True, check=True)
            times.append(float(out.stdout.strip().splitlines()[-1]))
    return {"cold_s": times[0], "cached_s": times[1]}


def sample_cases(kernels: int, seed: int, share_options: bool = True,
                 per_kernel: int | None = None, batch: int | None = -1,
                 like: Any = None) -> list[Any]:
    """The cases `kernel_cases()` generates for `kernels` kernels (examples) under a fixed
    seed (`per_kernel`: its argument; None: its default, as the fuzz loop draws), drawn as
    the fuzz loop draws them: Hypothesis runs of `batch` examples (-1: the fuzz loop's
    `BATCH`), each seeded as a worker seeds its batches; `batch=None`: one run of them
    all, seeded `seed` (as before this option), which replays kernels more often
    (Hypothesis mutates earlier examples) and so compiles less per case than the fuzz
    loop does (a third less on one sample). `like`: a target, whose campaigns' cases
    are drawn instead (its capabilities, wave sizes, integer types, cases per kernel)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    from difftest.campaign.fuzz import BATCH, batch_seed, kernel_cases_for
    from generators.cases import CASES_PER_KERNEL, kernel_cases

    size = BATCH if batch == -1 else kernels if batch is None else batch
    strategy = kernel_cases(CASES_PER_KERNEL if per_kernel is None else per_kernel,
                            share_options=share_options) if like is None \
        else kernel_cases_for(like)
    cases: list[Any] = []
    for number, start in enumerate(range(0, kernels, size)):
        @settings(max_examples=min(size, kernels - start), database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @hseed(seed if batch is None else batch_seed(seed, 0, number))
        @given(strategy)
        def generate(kc: Any) -> None:
            cases.extend(kc[1])

        generate()
    return cases


def empty_compile_cache() -> None:
    """Start a pass over a sample with nothing compiled, as a new fuzz worker does."""
    from targets.numba_simt import target as numba_simt

    numba_simt._CACHE.clear()


def compile_fresh(case: Any, options: dict[str, Any], every_case: bool = False) -> None:
    """Compile `case` for numba-simt as the fuzz loop does: through the target's compile
    cache (keyed by kernel text, entry and compile options, the last 256 kept), which a
    pass over a sample starts empty (`empty_compile_cache`): Hypothesis often draws a
    kernel it drew a few examples before, and a fuzz worker then finds it compiled -- or,
    `every_case`, every case afresh (an AllocationError is the target's outcome, not the
    bench's). A kernel with atomics that return is compiled as the target runs it, with
    its log (targets/returned_log.py)."""
    from targets import returned_log
    from targets.numba_simt import target as numba_simt

    if every_case:
        empty_compile_cache()
    if returned_log.ordered(case):  # what the target runs: the kernel that logs
        case = returned_log.logged(case, returned_log.FIRST_SLOTS)[0]
    try:
        numba_simt.compile_case(case, options)
    except numba_simt.AllocationError:
        pass


def bench_generation(kernels: int, seed: int, repeat: int = 2) -> dict[str, Any]:
    """Generated kernels/s (the strategy alone), and checked cases per CPU-second on one
    core doing exactly the fuzz loop's work per case (`difftest fuzz`'s defaults): one
    oracle run, then `schedules_per_case` (case, schedule) checks against it -- each a
    checked case -- with the CPU time split into generation (of the fixed-seed sample,
    `sample_cases`, shared out among its cases), oracle, compile (numba-simt: once per
    kernel and options, through the compile cache, as the fuzz loop pays it:
    `compile_fresh`), target (the runs, which then find the case compiled) and verdict;
    under the fuzz loop's garbage collector settings (`difftest.campaign.fuzz.collect_less`) and,
    on the same cases, under CPython's defaults (the two interleaved, best of `repeat`
    each). Also on numba-simt, on the same cases, checked cases per CPU-second with 1..4
    schedules per case (the extra schedules drawn by number with a seeded generator), so
    the figure's dependence on that setting is in plain view
    (benchmarks/bench_schedules.py measures what it does to detection)."""
    import gc
    import random

    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    from difftest.campaign.fuzz import FuzzConfig, collect_less
    from difftest.campaign.runner import oracle_run, run_target, target_options
    from generators.kernels import _checked
    from generators.kernels import kernels as kernel_strategy
    from generators.schedules import schedule_by_number
    from oracles.oracle import ReferenceTarget

    from targets.numba_simt.target import NumbaSimtTarget

    count = [0]

    @settings(max_examples=kernels, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @hseed(seed)
    @given(kernel_strategy())
    def gen_only(k: Any) -> None:
        count[0] += 1

    t_gen = _time(gen_only)
    out: dict[str, Any] = {"kernels_per_s": count[0] / t_gen}
    sample_cases(10, seed + 1)  # warm: Hypothesis's own set-up
    cases = sample_cases(kernels // 2, seed)
    per_case = (FuzzConfig("numba-simt").schedules_per_case
                or NumbaSimtTarget().schedules_per_case)  # None: the target's own
    most = max(4, per_case)
    rng = random.Random(seed)
    schedules = [[case.schedule] + [schedule_by_number(case, rng.randrange(2**31))
                                    for _ in range(most - 1)] for case in cases]

    def measure(target: Any, timing: bool) -> tuple[dict[str, float], list[float]]:
        """CPU time per part over the sample (`timing`: every schedule; otherwise the
        fuzz loop's, as a warm-up), and target + verdict time per schedule index."""
        by_wave = target.never_ran_granularity == "wave"
        split = {"oracle": 0.0, "compile": 0.0, "target": 0.0, "verdict": 0.0}
        extra = [0.0] * most
        empty_compile_cache()

        def timed(part: str, fn: Any, *a: Any) -> Any:
            t0 = time.process_time()
            result = fn(*a)
            split[part] += time.process_time() - t0
            return result

        for case, scheds in zip(cases, schedules):
            options = target_options(target, case.options)
            f, err = timed("oracle", oracle_run, case, options)
            if isinstance(target, NumbaSimtTarget):
                timed("compile", compile_fresh, case, options)
            for k, sched in enumerate(scheds if timing else scheds[:per_case]):
                t0 = time.process_time()
                o = timed("target", run_target, target, case, sched, options)
                v = timed("verdict", _judged, case, f, err, o, options, by_wave)
                extra[k] += time.process_time() - t0
                assert v.agree, str(v)
        return split, extra

    targets = (ReferenceTarget(), NumbaSimtTarget())
    for target in targets:
        measure(target, False)  # warm: imports, numba's own compilation
    thresholds = gc.get_threshold()
    best: dict[tuple[bool, str], tuple[float, Any]] = {}  # (tuned, target): (total, parts)
    for _ in range(repeat):  # the two settings interleaved, best of `repeat` each
        for tuned in (False, True):
            if tuned:
                collect_less()
            else:
                gc.unfreeze()
                gc.set_threshold(*thresholds)
            _checked.cache_clear()  # the same sample again, in this setting, parsed anew
            t0 = time.process_time()
            sample_cases(kernels // 2, seed)
            generation = time.process_time() - t0
            for target in targets:
                split, extra = measure(target, True)
                # the first `per_case` schedules are the fuzz loop's work; the rest for S
                total = generation + split["oracle"] + split["compile"] + sum(extra[:per_case])
                key = (tuned, target.name)
                if key not in best or total < best[key][0]:
                    best[key] = (total, (generation, split, extra))
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    out.update(_rates(best, per_case, len(cases), most, NumbaSimtTarget.name))
    out["cases"] = len(cases)
    out["schedules_per_case"] = per_case
    return out


def _rates(best: dict[tuple[bool, str], tuple[float, Any]], per_case: int, cases: int,
           most: int, by_schedules: str) -> dict[str, Any]:
    """Checked cases per CPU-second from the best runs (`bench_generation`): per target
    and garbage-collector setting, the tuned setting's split of the time, and on target
    `by_schedules` the rate with 1..`most` schedules per case."""
    out: dict[str, Any] = {}
    for (tuned, name), (total, (generation, split, extra)) in best.items():
        rate = per_case * cases / total
        if not tuned:
            out[f"checked_cases_per_s_{name}_default_gc"] = rate
            continue
        fixed = split["oracle"] + split["compile"]
        runs = sum(extra[:per_case])
        share = runs / max(1e-12, split["target"] + split["verdict"])
        parts = {"oracle": split["oracle"], "compile": split["compile"],
                 "target": split["target"] * share, "verdict": split["verdict"] * share,
                 "generation": generation}
        out[f"checked_cases_per_s_{name}"] = rate
        out[f"split_{name}"] = {k: v / total for k, v in parts.items()}
        if name == by_schedules:
            out["by_schedules"] = {s: s * cases / (generation + fixed + sum(extra[:s]))
                                   for s in range(1, most + 1)}
    return out


def bench_compile(kernels: int, seed: int) -> dict[str, float]:
    """numba-simt's compile CPU time per generated case, every case compiled afresh (the
    compiler's speed; the fuzz loop compiles once per kernel and options): mean, and the
    share of the slowest tenth."""
    from difftest.campaign.runner import target_options
    from targets.numba_simt.target import NumbaSimtTarget

    target = NumbaSimtTarget()
    times = []
    for case in sample_cases(kernels, seed):
        options = target_options(target, case.options)
        t0 = time.process_time()
        compile_fresh(case, options, every_case=True)
        times.append(time.process_time() - t0)
    times.sort()
    slow = times[-max(1, len(times) // 10):]
    return {"cases": len(times), "ms_per_case": 1e3 * sum(times) / len(times),
            "slowest_tenth_share": sum(slow) / sum(times)}


def bench_fault_path(n: int, waves: list[int], repeat: int) -> dict[int, dict[str, float]]:
    """SimpleDeopt with `length = n`: workitem n/2 writes out of bounds, so it deopts and
    faults on the host while every other workitem runs on the device; the whole target
    run (pool, machine, deopt, host, read-back) against the `@njit` loop."""
    from targets.numba_simt.target import NumbaSimtTarget

    baseline = _baseline()
    out = np.full(n, -1, dtype=np.int32)
    assert baseline(out, n) == 1
    target = NumbaSimtTarget()
    rows = {}
    for w in waves:
        case = _case(n, w)
        case.args["length"] = n
        outcome = target.run(case)
        assert outcome.exception is not None and outcome.exception.gid == n // 2, outcome
        t_target, t_njit = float("inf"), float("inf")
        for _ in range(repeat):
            t_njit = min(t_njit, _time(lambda: baseline(out, n)))
            t_target = min(t_target, _time(lambda: target.run(case)))
        rows[w] = {"target_s": t_target, "njit_s": t_njit, "ratio": t_target / t_njit}
    return rows


def bench_bookkeeping(log2s: list[int], wave: int) -> dict[int, dict[str, int]]:
    """The deopt runtime's bookkeeping bytes (save area, never-ran bits) against n, from
    a run's own diagnostics (SimpleDeopt, the fault at n/2)."""
    from targets.numba_simt.target import NumbaSimtTarget

    target = NumbaSimtTarget()
    rows = {}
    for k in log2s:
        case = _case(1 << k, wave)
        case.args["length"] = 1 << k
        d = target.run(case).diagnostics
        rows[1 << k] = {"save_area_bytes": int(d["save_area_bytes"]),
                        "never_ran_bytes": int(d["never_ran_bytes"])}
    return rows


def run_bench(n_log2: int = 22, oracle_log2: int = 16, repeat: int = 5,
              kernels: int = 1000, quick: bool = False) -> dict[str, Any]:
    waves = [1, 8, 32, 64]
    result: dict[str, Any] = {"n": 1 << n_log2}
    result["waves"] = {str(w): r for w, r in bench_ratios(1 << n_log2, waves, repeat).items()}
    result["ratio_vs_njit"] = result["waves"]["32"]["ratio"]
    result["fault_path"] = {str(w): r for w, r in
                            bench_fault_path(1 << n_log2, waves, repeat).items()}
    result["bookkeeping"] = {str(k): r for k, r in
                             bench_bookkeeping([10, 14, 18, n_log2], 32).items()}
    result["vs_oracle"] = bench_oracle(1 << oracle_log2, 32)
    result["jit"] = bench_jit_compilations(kernels, 0)
    result["compile"] = bench_compile_time()
    result["generation"] = bench_generation(800 if not quick else 50, 0)
    result["kernel_compile"] = bench_compile(100 if not quick else 25, 0)
    result["real_targets"] = _real_targets().run(100 if not quick else 20, 0,
                                                  2 if not quick else 1,
                                                  _real_targets().REAL)
    return result


def _real_targets() -> Any:
    """benchmarks/bench_real_targets.py, beside this file (benchmarks is no package)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_real_targets.py")
    spec = importlib.util.spec_from_file_location("bench_real_targets", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def format_bench(r: dict[str, Any]) -> str:
    lines = [f"SimpleDeopt, length = 2n, n = {r['n']} (no fault; every workitem runs)",
             "   W   numba-simt      @njit loop    ratio   lane-instr/s"]
    for w, row in r["waves"].items():
        lines.append(f"{int(w):4d}  {row['machine_s'] * 1e3:9.1f} ms  {row['njit_s'] * 1e3:9.1f} ms"
                     f"  {row['ratio']:7.1f}x  {row['lane_instructions_per_s'] / 1e9:6.2f} G")
    lines.append("SimpleDeopt, length = n: workitem n/2 faults (deopt path; whole target run)")
    lines.append("   W   numba-simt      @njit loop    ratio")
    for w, row in r["fault_path"].items():
        lines.append(f"{int(w):4d}  {row['target_s'] * 1e3:9.1f} ms  {row['njit_s'] * 1e3:9.1f} ms"
                     f"  {row['ratio']:7.1f}x")
    lines.append("deopt bookkeeping (W = 32): " + "; ".join(
        f"n = {k}: save area {v['save_area_bytes']} B, never-ran {v['never_ran_bytes']} B"
        for k, v in r["bookkeeping"].items()))
    o = r["vs_oracle"]
    lines.append(f"oracle vs numba-simt (whole target run) at n = 65536, W = 32: "
                 f"{o['oracle_s'] * 1e3:.0f} ms vs {o['target_s'] * 1e3:.1f} ms = "
                 f"{o['ratio']:.0f}x")
    j = r["jit"]
    lines.append(f"machine JIT compilations while running {j['kernels']} generated kernels: "
                 f"{j['compilations']}")
    c = r["compile"]
    lines.append(f"machine compile: cold {c['cold_s']:.1f} s, cached {c['cached_s']:.2f} s")
    g = r["generation"]
    lines.append(f"generation (one core): {g['kernels_per_s']:.0f} kernels/s")
    lines.append(f"checked cases per CPU-second (one core, the fuzz loop's work: "
                 f"{g['cases']} generated cases, {g['schedules_per_case']} schedules each):")
    for name in ("reference", "numba-simt"):
        split = ", ".join(f"{k} {v:.0%}" for k, v in g[f"split_{name}"].items())
        lines.append(f"  {name}: {g[f'checked_cases_per_s_{name}']:.0f} ({split}); "
                     f"{g[f'checked_cases_per_s_{name}_default_gc']:.0f} under CPython's "
                     "default garbage collector settings")
    lines.append("  numba-simt with S schedules per case, the same cases: " + ", ".join(
        f"S = {s}: {v:.0f}" for s, v in g["by_schedules"].items()))
    k = r["kernel_compile"]
    lines.append(f"numba-simt compile per generated case: {k['ms_per_case']:.1f} ms over "
                 f"{k['cases']} cases (the slowest tenth: {k['slowest_tenth_share']:.0%})")
    lines.append(_real_targets().format_rows(r["real_targets"]))
    lines.append(f"ratio_vs_njit (W = 32): {r['ratio_vs_njit']:.2f}")
    return "\n".join(lines)


def main_bench(json_path: str | None, quick: bool) -> int:
    r = run_bench(n_log2=18 if quick else 22, repeat=3 if quick else 5,
                  kernels=100 if quick else 1000, quick=quick)
    print(format_bench(r))
    if json_path:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(r, f, indent=1)
    return 0


def _judged(case: Any, full: Any, error: Any, outcome: Any, options: dict[str, Any],
            by_wave: bool) -> Any:
    """The verdict on `outcome`, as the fuzz loop gives it: against the replay of the
    target's returned values where the kernel's atomics are ordered."""
    from difftest.campaign.runner import replayed
    from difftest.core.verdict import check_outcome

    replay, why = replayed(case, full, error, outcome, options)
    return check_outcome(case, replay, outcome, None, by_wave, why)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = parser.parse_args()
    sys.exit(main_bench(args.json, args.quick))
