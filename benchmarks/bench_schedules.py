"""How many schedules per case find bugs fastest (`python benchmarks/bench_schedules.py`).

The fuzz loop checks each generated case against `schedules_per_case` schedules, reusing
one oracle run and one compilation: more schedules give more checked cases per
CPU-second, but only detections per CPU-second matter. This measures both for S = 1..8
from one pass over a fixed-seed sample, without running a hunt per S:

- per case, the CPU time of what S does not change (the oracle run, the compilation --
  once per kernel and options, as the fuzz loop pays it --, the case's share of
  generating its kernel) and of each clean numba-simt run under each of
  8 schedules (the case's own, then 7 drawn by number);
- per case and mutant, the first of those 8 schedules under which the mutant's outcome
  disagrees with the oracle.

A fuzz loop with S schedules spends `sum(fixed + the first S runs)` on the sample and
catches a mutant in the kernels with a case whose first detecting schedule is below S, so
a mutant's expected time to detection is that time over that count (kernels, not cases:
the cases of one kernel are drawn together and catch together; counting cases would
flatter many cases per kernel). Printed per S: checked cases per CPU-second, the median
over the mutants of the expected time to detection (CPU seconds, one core), and
detections per CPU-second summed over the mutants.
Cases are split over `--workers` processes (CPU time is summed, so the figures are per
core), by kernel. `--per-case-options` draws each case's target options apart instead of
once per kernel (`kernel_cases(share_options=False)`), to compare the two;
`--per-kernel K` draws K cases per kernel (`kernel_cases(K)`; default: the fuzz loop's).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import time
from typing import Any

SCHEDULES = 8


def _measure(args: tuple[int, int, int, int, bool, int | None]) -> dict[str, Any]:
    from bench_target import compile_fresh, empty_compile_cache, sample_cases
    from difftest.campaign.runner import check_case, oracle_run, target_options
    from generators.schedules import schedule_by_number
    from targets.numba_simt import mutants
    from targets.numba_simt.target import NumbaSimtTarget

    kernels, seed, part, parts, share, per_kernel = args
    target = NumbaSimtTarget()
    target.warm_up()  # the machine's JIT compilation (or cache load) is no case's cost
    empty_compile_cache()
    t0 = time.process_time()
    cases = sample_cases(kernels, seed, share, per_kernel, batch=None)
    generation = (time.process_time() - t0) / max(1, len(cases))
    rows = []
    programs: dict[int, int] = {}  # a kernel's number, by its parsed program
    for i, case in enumerate(cases):
        kernel = programs.setdefault(id(case.program), len(programs))
        if kernel % parts != part:
            continue
        options = target_options(target, case.options)
        rng = random.Random(i * 7919 + seed)
        schedules = [dict(case.schedule)] + [schedule_by_number(case, rng.randrange(1, 2**31))
                                             for _ in range(SCHEDULES - 1)]
        t0 = time.process_time()
        full, error = oracle_run(case, options)
        compile_fresh(case, options)
        fixed = generation + time.process_time() - t0
        runs = []
        for schedule in schedules:
            t0 = time.process_time()
            result = check_case(case, target, schedule, options, None, full, error)
            runs.append(time.process_time() - t0)
            if not result.verdict.agree:
                raise SystemExit(f"numba-simt disagrees without mutants: {result.verdict}")
        first = {}
        for name in mutants.NAMES:
            for k, schedule in enumerate(schedules):
                with_mutant = {**options, "mutants": [name]}
                if not check_case(case, target, schedule, with_mutant, None, full,
                                  error).verdict.agree:
                    first[name] = k
                    break
        rows.append({"kernel": kernel, "fixed": fixed, "runs": runs, "first": first})
    return {"rows": rows}


def summarize(rows: list[dict[str, Any]], names: list[str]) -> list[dict[str, float]]:
    out = []
    for s in range(1, SCHEDULES + 1):
        spent = sum(r["fixed"] + sum(r["runs"][:s]) for r in rows)
        ttd = []
        for name in names:
            caught = len({r["kernel"] for r in rows if r["first"].get(name, SCHEDULES) < s})
            ttd.append(spent / caught if caught else float("inf"))
        out.append({"schedules": s, "checked_per_cpu_s": s * len(rows) / spent,
                    "median_ttd_cpu_s": statistics.median(ttd),
                    "detections_per_cpu_s": sum(1 / t for t in ttd if t != float("inf")),
                    "never_caught": sum(1 for t in ttd if t == float("inf"))})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=160)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--per-case-options", action="store_true")
    parser.add_argument("--per-kernel", type=int, metavar="K")
    args = parser.parse_args()
    from targets.numba_simt import mutants

    jobs = [(args.kernels, args.seed, p, args.workers, not args.per_case_options,
             args.per_kernel) for p in range(args.workers)]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        parts = pool.map(_measure, jobs)
    rows = [r for part in parts for r in part["rows"]]
    table = summarize(rows, sorted(mutants.NAMES))
    print(f"{len(rows)} cases of {args.kernels} kernels (seed {args.seed}), "
          f"{len(mutants.NAMES)} mutants, target options drawn per "
          f"{'case' if args.per_case_options else 'kernel'}, cases per kernel "
          f"{args.per_kernel or 'as the fuzz loop draws'}")
    print(" S  checked/cpu-s  median TTD (cpu-s)  detections/cpu-s  never caught")
    for row in table:
        print(f"{row['schedules']:2d}  {row['checked_per_cpu_s']:13.1f}  "
              f"{row['median_ttd_cpu_s']:18.2f}  {row['detections_per_cpu_s']:16.2f}  "
              f"{row['never_caught']:12d}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "table": table}, f)


if __name__ == "__main__":
    main()
