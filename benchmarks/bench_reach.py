"""How often generated cases catch one mutant (`python benchmarks/bench_reach.py MUTANT`).

Generates `--kernels` kernels with a fixed seed, checks every case (its own schedule)
with numba-simt's mutant on, and prints how many cases disagree with the oracle, and in
how many distinct kernels one does. The quick way to see whether a generator change
reaches a mutant's bug shape, before a hunt. `--like T` draws the kernels a campaign on
target T draws (its types and capabilities) and leaves out the cases T could not run:
what each kernel brings a hunt of T's translation mutant of the same mistake, where a
slow target meets few kernels a minute (the translation's mistake and numba-simt's are
the same change of a value).
"""

from __future__ import annotations

import argparse
from typing import Any


def reach(mutant: str, kernels: int, seed: int, like: Any = None
          ) -> tuple[int, int, int, int]:
    """(cases that disagree with the mutant on, cases, distinct kernels with such a case,
    distinct kernels)."""
    from bench_target import sample_cases
    from difftest.campaign.runner import check_case, oracle_run, target_options
    from targets.numba_simt.target import NumbaSimtTarget

    target = NumbaSimtTarget()
    counts = [0, 0]
    seen: set[str] = set()
    caught: set[str] = set()
    for case in sample_cases(kernels, seed, like=like):
        if like is not None and (like.unsupported(case) or target.unsupported(case)):
            continue
        seen.add(case.kernel)
        options = target_options(target, case.options)
        full, error = oracle_run(case, options)
        result = check_case(case, target, None, {**options, "mutants": [mutant]}, None,
                            full, error)
        if not result.verdict.agree and not result.verdict.unchecked:
            counts[0] += 1
            caught.add(case.kernel)
        counts[1] += 1
    return counts[0], counts[1], len(caught), len(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mutant")
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--like", metavar="TARGET", default=None,
                        help="draw the kernels a campaign on TARGET draws")
    args = parser.parse_args()
    like = None
    if args.like is not None:
        from difftest.campaign.registry import load_target

        try:
            like = load_target(args.like)
        except Exception as e:  # noqa: BLE001 - an unknown or uninstalled target
            parser.error(f"--like {args.like}: {e}")
    caught, cases, kernels_caught, kernels = reach(args.mutant, args.kernels, args.seed,
                                                   like)
    print(f"{args.mutant}: {caught} of {cases} cases disagree, in {kernels_caught} of "
          f"{kernels} distinct kernels ({100 * kernels_caught / max(1, kernels):.1f}%; "
          f"{args.kernels} examples, seed {args.seed}"
          f"{', drawn as for ' + args.like if args.like else ''})")


if __name__ == "__main__":
    main()
