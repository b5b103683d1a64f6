"""`python benchmarks/order_search.py [--kernels K] [--seeds A:B] [--target T]`: how
often the checker cannot order a run's atomics (docs/semantics.md, "Atomics that
return"), on a target's own runs of generated cases (numba-simt's by default), with and
without the search's "wave" order (`--steps N`: with another step budget).

The cases are drawn as a campaign on the target draws them (`bench_target.sample_cases`
like the target, seeds A to B-1, K kernels each; `--no-workgroups`: as
benchmarks/bench_trees.py draws them, numba-simt only); each case the target runs is run
by the oracle and by the target in its own schedule and as many more as the fuzz loop
runs (`--opt KEY=VALUE`: the target's options, as `difftest fuzz` takes them), and every
location whose atomics the checker hands to the search (`atomic_order._search`: no
shortcut decided it) is kept. Each kept location is then searched again twice, without
the launch's wave size and with it, and the locations left undecided and the search's
CPU seconds are printed for each. On numba-simt every run has an order, so an undecided
location is a run the checker leaves unchecked; on a real target it may also be a wrong
history the search could not rule out.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from difftest.core.atomic_order import Edge

sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                os.path.dirname(os.path.abspath(__file__))]


def _locations(kernels: int, seeds: range, workgroups: bool = True,
               target_name: str = "numba-simt", opts: dict[str, Any] | None = None
               ) -> list[tuple[int, list[Edge], int]]:
    """(start, edges, wave size) of every location the checker searched."""
    import functools

    import bench_target
    import generators.cases as cases
    import difftest.core.atomic_order as atomic_order
    from difftest.campaign.fuzz import collect_less
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import oracle_run, replayed, run_target, target_options
    from difftest.core.verdict import check_outcome
    from generators.schedules import schedule_by_number

    kept: list[tuple[int, list[Edge], int]] = []
    search = atomic_order._search

    def keep(start, edges, steps, wave=0):  # type: ignore[no-untyped-def]
        kept.append((start, list(edges), wave))
        return search(start, edges, steps, wave)

    atomic_order._search = keep  # type: ignore[assignment]
    collect_less()
    target = load_target(target_name)
    like: Any = target
    if not workgroups:  # bench_trees.py's draws: every feature but workgroups
        capabilities = frozenset(v for k, v in cases.NEEDS.items() if k != "workgroups")
        cases.kernel_cases = functools.partial(  # type: ignore[assignment]
            cases.kernel_cases, capabilities=capabilities | {"faults", "mutants", "wave_ops"})
        like = None
    for seed in seeds:
        rng = random.Random(seed)
        for case in bench_target.sample_cases(kernels, seed, like=like):
            if target.unsupported(case):
                continue
            options = target_options(target, {**case.options, **(opts or {})})
            full, error = oracle_run(case, options)
            for k in range(target.schedules_per_case):
                schedule = (case.schedule if k == 0
                            else schedule_by_number(case, rng.randrange(2**31)))
                outcome = run_target(target, case, schedule, options)
                run, why = replayed(case, full, error, outcome, options)
                check_outcome(case, run, outcome, None, False, why)
    atomic_order._search = search
    return kept


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of steps >= 1, got {text!r}")
    return int(text)


def main() -> None:
    from difftest.core.atomic_order import STEPS, find_order
    from difftest.core.options import parse_cli

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=100, help="kernels per seed")
    parser.add_argument("--seeds", default="10:26", metavar="A:B")
    parser.add_argument("--target", default="numba-simt")
    parser.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                        help="a target option (repeatable), as difftest fuzz takes it")
    parser.add_argument("--steps", type=_positive, default=STEPS,
                        help="the search's step budget per location when each kept "
                        "location is searched again (default: the checker's)")
    parser.add_argument("--no-workgroups", action="store_true",
                        help="draw as benchmarks/bench_trees.py does: every feature but "
                        "workgroups, the launch shapes of any target")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split(":"))
    opts = parse_cli(args.opt)
    kept = _locations(args.kernels, range(first, last), not args.no_workgroups,
                      args.target, opts)
    print(f"{len(kept)} locations searched on {args.target}, {args.kernels} kernels x seeds "
          f"{first}-{last - 1}")
    for what, with_wave in (("without the wave size", False), ("with it", True)):
        undecided, cpu = 0, 0.0
        for start, edges, wave in kept:
            t0 = time.process_time()
            found = find_order(start, edges, args.steps, wave=wave if with_wave else 0)
            cpu += time.process_time() - t0
            undecided += found.undecided
        print(f"  {what}: {undecided} undecided, {cpu:.2f} CPU s")


if __name__ == "__main__":
    main()
