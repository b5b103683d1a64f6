"""Two source trees of difftest side by side on integer kernels without workgroups: the
machine alone on SimpleDeopt (W = 32, one slot: the per-wave cost) and checked cases per
CPU-second on a fixed-seed generated sample drawn without the `workgroups` and `f32`
capabilities, the newer tree's f32 features not drawn at all (so both trees draw the
same sample, choice for choice).

    git worktree add /tmp/base <commit>
    python benchmarks/bench_trees.py /tmp/base .

Each tree runs in a process of its own (two versions of one package cannot share a
process), alternately, `--rounds` times; each figure is the best of its tree's rounds,
CPU time (`time.process_time`) inside the process, and the ratios are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_CHILD = r"""
import functools, json, os, sys
tree = sys.argv[1]
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import generators.cases as cases
import generators.kernels as kernels
# the features a newer generator draws (f32) are not drawn at all: the same sample as a
# tree from before them, choice for choice
kernels.FEATURES = tuple(f for f in kernels.FEATURES if f != "f32")
kernels.FAULT_FEATURES = tuple(f for f in kernels.FAULT_FEATURES if f != "fault_convert")
cases.NEEDS = {k: v for k, v in cases.NEEDS.items() if k != "f32"}
capabilities = frozenset(v for k, v in cases.NEEDS.items() if k != "workgroups")
cases.kernel_cases = functools.partial(
    cases.kernel_cases, capabilities=capabilities | {"faults", "mutants", "wave_ops"})
import bench_target
machine = bench_target.bench_ratios(1 << 22, [32], 7)[32]["machine_s"]
rates = bench_target.bench_generation(int(sys.argv[2]), 0)
print(json.dumps({"machine_s": machine,
                  "cases_per_s": rates["checked_cases_per_s_numba-simt"],
                  "cases": rates["cases"]}))
"""


def measure(tree: str, kernels: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, os.path.abspath(tree), str(kernels)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the tree to compare against")
    parser.add_argument("tree", help="the tree under test")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kernels", type=int, default=800)
    args = parser.parse_args()
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.rounds):
        for name in (args.base, args.tree):
            got = measure(name, args.kernels)
            have = best.setdefault(name, got)
            have["machine_s"] = min(have["machine_s"], got["machine_s"])
            have["cases_per_s"] = max(have["cases_per_s"], got["cases_per_s"])
    b, t = best[args.base], best[args.tree]
    print(f"machine alone, SimpleDeopt n = 2^22, W = 32: {b['machine_s'] * 1e3:.1f} ms -> "
          f"{t['machine_s'] * 1e3:.1f} ms ({t['machine_s'] / b['machine_s']:.2f}x)")
    print(f"checked cases per CPU-second ({int(t['cases'])} cases, no workgroups): "
          f"{b['cases_per_s']:.0f} -> {t['cases_per_s']:.0f} "
          f"({t['cases_per_s'] / b['cases_per_s']:.2f}x)")


if __name__ == "__main__":
    main()
