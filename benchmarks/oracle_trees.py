"""`python benchmarks/oracle_trees.py BASE TREE [--kernels K] [--seeds A:B]`: two source
trees' reference oracles on the same cases, run by run: a change meant to make the oracle
faster must not change one answer.

BASE's generators draw the sample (`bench_target.sample_cases`, every capability,
workgroups included, seeds A to B-1, K kernels each) and save it as case files; each
tree then loads the same files in a process of its own (two versions of one package
cannot share a process) and runs, for every case, the oracle's full run and, where the
kernel's atomics return values, a replay of those values each plus one (the replay's
paths: `run_full(..., returned=...)`). Each run is reduced to a digest of everything a
verdict reads -- final memory, each workitem's fate, the values atomics returned, the
subnormal and partial-wave notes, the edge pairs met, or the oracle's error -- and the
two lists are compared. Exit 1 where any run differs (the first few are named).

    git worktree add /tmp/base <commit>
    python benchmarks/oracle_trees.py /tmp/base .
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

_CHILD = r"""
import functools, hashlib, json, os, sys
tree, mode, cases_file, kernels, first, last = sys.argv[1:7]
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
if mode == "draw":
    import generators.cases as cases
    from generators.kernels import _checked
    import bench_target
    capabilities = frozenset(cases.NEEDS.values()) | {"faults", "mutants", "wave_ops"}
    cases.kernel_cases = functools.partial(cases.kernel_cases, capabilities=capabilities)
    drawn = []
    for seed in range(int(first), int(last)):
        _checked.cache_clear()
        drawn += [c.to_json() for c in bench_target.sample_cases(int(kernels), seed)]
    with open(cases_file, "w") as f:
        json.dump(drawn, f)
    sys.exit()
from difftest.campaign.runner import oracle_run
from difftest.core.case import case_from_json


def listed(arrays):
    return {k: v.tolist() for k, v in arrays.items()}


def digest(full, error):
    if full is None:
        what = ["error", error.kind, error.message]
    elif not hasattr(full, "returned"):  # a host program's run
        launch = full.full
        what = ["host", full.observations, full.error, listed(full.final), full.launches,
                None if launch is None else [listed(launch.final),
                                             [None if f is None else str(f)
                                              for f in launch.fates]]]
    else:
        what = [listed(full.final), [None if f is None else str(f) for f in full.fates],
                full.returned, full.subnormal, full.partial_wave_op, sorted(full.edges)]
    text = json.dumps(what, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


rows = []
with open(cases_file) as f:
    for number, obj in enumerate(json.load(f)):
        case = case_from_json(obj)
        full, error = oracle_run(case)
        rows.append([number, "run", digest(full, error)])
        if full is not None and getattr(full, "returned", None):
            shifted = [[x + 1 for x in r] for r in full.returned]
            rows.append([number, "replay", digest(*oracle_run(case, None, shifted))])
print(json.dumps(rows))
"""


def _child(tree: str, mode: str, cases_file: str, kernels: int, first: int,
           last: int) -> str:
    # a fixed hash seed: a sample drawn from sets of names is the same sample each run
    done = subprocess.run([sys.executable, "-c", _CHILD, os.path.abspath(tree), mode,
                           cases_file, str(kernels), str(first), str(last)],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the tree whose oracle is the reference")
    parser.add_argument("tree", help="the tree under test")
    parser.add_argument("--kernels", type=int, default=60, help="kernels per seed")
    parser.add_argument("--seeds", default="0:8", metavar="A:B",
                        help="the seeds A to B-1 (default 0:8)")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split(":"))
    with tempfile.TemporaryDirectory() as folder:
        cases_file = os.path.join(folder, "cases.json")
        _child(args.base, "draw", cases_file, args.kernels, first, last)
        with open(cases_file) as f:
            count = len(json.load(f))
        runs = [json.loads(_child(t, "run", cases_file, args.kernels, first, last)
                           .strip().splitlines()[-1]) for t in (args.base, args.tree)]
    differ = [(a[0], a[1]) for a, b in zip(*runs) if a != b]
    replays = sum(1 for row in runs[0] if row[1] == "replay")
    print(f"{count} cases (seeds {first} to {last - 1}, {args.kernels} kernels each), "
          f"{len(runs[0])} oracle runs of which {replays} replays of returned values: "
          f"{len(differ)} differ" + ("" if len(runs[0]) == len(runs[1]) else
                                     f" (and {len(runs[0])} runs against {len(runs[1])})"))
    for number, what in differ[:5]:
        print(f"  case {number} ({what})")
    sys.exit(1 if differ or len(runs[0]) != len(runs[1]) else 0)


if __name__ == "__main__":
    main()
