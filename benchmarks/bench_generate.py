"""Generation throughput on one core: generated kernels/s, generated cases/s, and
oracle-checked cases/s (generation + the reference oracle's full run of every case).

    python benchmarks/bench_generate.py [--kernels 500] [--seed 0] [--max-n 3000]

Each figure runs a fixed number of Hypothesis examples (generate phase only, no
database) under a fixed seed, so reruns draw the same kernels; the timings still depend
on the machine and its load. Run it on an idle core.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any
from collections.abc import Callable

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st


def _timed(strategy: st.SearchStrategy[Any], examples: int, seed_value: int,
           body: Callable[[Any], int]) -> tuple[int, int, float]:
    """Runs `examples` draws of `strategy`; returns (examples, units counted by `body`,
    seconds)."""
    counts = [0, 0]

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(seed_value)
    @given(strategy)
    def run(value: Any) -> None:
        counts[0] += 1
        counts[1] += body(value)

    start = time.perf_counter()
    run()
    return counts[0], counts[1], time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", type=int, default=500, help="examples per figure")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-n", type=int, default=3000, help="largest launch")
    args = parser.parse_args(argv)

    from generators.cases import kernel_cases
    from generators.kernels import kernels
    from oracles.reference import run_full

    k, _, t = _timed(kernels(), args.kernels, args.seed, lambda _: 1)
    print(f"kernels():        {k / t:7.1f} generated kernels/s   ({k} in {t:.2f} s)")

    strategy = kernel_cases(max_n=args.max_n)
    k, c, t = _timed(strategy, args.kernels, args.seed, lambda kc: len(kc[1]))
    print(f"kernel_cases():   {c / t:7.1f} generated cases/s     ({c} cases of {k} kernels "
          f"in {t:.2f} s)")

    oracle_times: list[float] = []

    def check(kc: Any) -> int:
        for case in kc[1]:
            start = time.perf_counter()
            run_full(case)
            oracle_times.append(time.perf_counter() - start)
        return len(kc[1])

    k, c, t = _timed(strategy, args.kernels, args.seed, check)
    print(f"+ oracle run:     {c / t:7.1f} oracle-checked cases/s ({c} cases in {t:.2f} s; "
          f"oracle {sum(oracle_times):.2f} s, median {1e3 * statistics.median(oracle_times):.1f}"
          f" ms, max {1e3 * max(oracle_times):.0f} ms per case)")


if __name__ == "__main__":
    main()
