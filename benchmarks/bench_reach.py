"""How often generated cases catch one mutant (`python benchmarks/bench_reach.py MUTANT`).

Generates `--kernels` kernels with a fixed seed, checks every case (its own schedule)
with the mutant on, and prints how many cases disagree with the oracle. The quick way to
see whether a generator change reaches a mutant's bug shape, before a hunt.
"""

from __future__ import annotations

import argparse


def reach(mutant: str, kernels: int, seed: int) -> tuple[int, int]:
    """(cases that disagree with the mutant on, cases)."""
    from bench_target import sample_cases
    from difftest.campaign.runner import check_case, oracle_run, target_options
    from targets.numba_simt.target import NumbaSimtTarget

    target = NumbaSimtTarget()
    counts = [0, 0]
    for case in sample_cases(kernels, seed):
        options = target_options(target, case.options)
        full, error = oracle_run(case, options)
        result = check_case(case, target, None, {**options, "mutants": [mutant]}, None,
                            full, error)
        counts[0] += not result.verdict.agree
        counts[1] += 1
    return counts[0], counts[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mutant")
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    caught, cases = reach(args.mutant, args.kernels, args.seed)
    print(f"{args.mutant}: {caught} of {cases} cases disagree "
          f"({args.kernels} kernels, seed {args.seed})")


if __name__ == "__main__":
    main()
