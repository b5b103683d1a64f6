"""Two source trees of difftest side by side on integer kernels without workgroups: the
machine alone on SimpleDeopt (W = 32, one slot: the per-wave cost), and checked cases per
CPU-second, as the fuzz loop checks them (generation, one oracle run, the compile, the
target's schedules of each case and their verdicts, under its collector settings), three
ways:

- each tree on its own generators' samples, drawn with `--seeds` fixed seeds (one seed's
  sample decides a figure by several per cent: which kernels it happens to draw), without
  the `workgroups` capability and without the features `--without` names (default
  `f32`; `--without f32,returning` leaves out atomics that return too, the same kinds of
  kernel as a tree from before them; a campaign draws them, and a case of a kernel with
  either carries no host program, so without them a tree whose cases carry one wherever
  they can checks fewer, longer cases: `--host-percent` draws host programs as an
  older tree did; `--without none` draws every feature, as a campaign does), with the
  CPU seconds of the generation and of each stage;
- the same, weighed by the work each case asks: its kernel's compiled instructions (a
  tree whose generators draw larger kernels checks fewer of them per second without
  being slower at any of them), and the loop trips a case's workitems run (its dynamic
  work: what the oracle's interpreter pays for, trip by trip);
- both trees on the same cases (the older tree's samples, saved as case files): the
  compiler, machine, oracle and checker alone, generation left out, with the CPU
  seconds of each stage (the oracle, the compile, the target's runs, the verdicts).

    git worktree add /tmp/base <commit>
    python benchmarks/bench_trees.py /tmp/base .

`--families` measures the machine on one opcode family at a time (integer arithmetic,
branches, comparisons, shifts, loads; f32 and f64 arithmetic; conversions), the same way.

`--machine-only` measures the machine alone, the trees taking turns `--rounds` times,
also as its ratio to a hand-written `@njit` loop timed in the same process (on a machine
whose speed drifts between rounds, that ratio and the paired figure drift less).

Each tree runs in processes of its own (two versions of one package cannot share a
process), alternately, `--rounds` times; each figure is the best of its tree's rounds
(the median beside it), CPU time (`time.process_time`) inside the process, and the
ratios are printed, with the median of the rounds' ratios (paired by round). On a shared
machine one process's figure for the same cases moves by 10 per cent from run to run (by a
third on a virtual machine whose host is busy): take enough rounds, and `--together`
(the two trees' processes of a round run at the same time, one a core, so a drift of the
machine's speed moves both alike; the first round's own samples still run one after the
other, the first tree's saving them), whose paired ratios tell a few per cent.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

_CHILD = r"""
import functools, json, os, random, sys, time
tree, mode, shared = sys.argv[1], sys.argv[2], sys.argv[5]
kernels, seeds = int(sys.argv[3]), int(sys.argv[4])
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import generators.cases as cases
import generators.kernels as kernels_module
# the features a newer generator draws (--without: f32 by default) are not drawn at
# all: the same kinds of kernel as a tree from before them
without = set(sys.argv[6].split(","))
kernels_module.FEATURES = tuple(f for f in kernels_module.FEATURES if f not in without)
kernels_module.FAULT_FEATURES = tuple(f for f in kernels_module.FAULT_FEATURES
                                      if f != "fault_convert" or "f32" not in without)
cases.NEEDS = {k: v for k, v in cases.NEEDS.items() if k not in without}
if sys.argv[7] and hasattr(cases, "_HOST_PERCENT"):  # --host-percent, where a tree has it
    cases._HOST_PERCENT = tuple(int(p) for p in sys.argv[7].split(","))
capabilities = frozenset(v for k, v in cases.NEEDS.items() if k != "workgroups")
cases.kernel_cases = functools.partial(
    cases.kernel_cases, capabilities=capabilities | {"faults", "mutants", "wave_ops"})
import bench_target
from difftest.campaign.fuzz import collect_less
from difftest.campaign.runner import oracle_run, run_target, target_options
from difftest.core.case import case_from_json
from difftest.core.verdict import check_outcome
from generators.kernels import _checked
from generators.schedules import schedule_by_number
from targets.numba_simt.target import NumbaSimtTarget

target = NumbaSimtTarget()
per_case = target.schedules_per_case


def _replayed(case, full, error, outcome, options):
    # the oracle run to judge by: the replay of the target's returned values where the
    # tree has atomics that return, else the one run
    from difftest.campaign import runner
    if hasattr(runner, "replayed"):
        return runner.replayed(case, full, error, outcome, options)
    return full, error


STAGES = dict.fromkeys(("oracle", "compile", "run", "verdict"), 0.0)
WORK = {"trips": 0, "plain": 0}  # the oracle's loop trips, over the cases without host programs


def check(sample):
    # the fuzz loop's work per case: the oracle once, the compile (through its cache,
    # which a worker starts empty), then its schedule and `per_case - 1` more, drawn by
    # number, each run and judged; the CPU time of each stage added to STAGES
    bench_target.empty_compile_cache()
    rng = random.Random(0)
    clock = time.process_time
    for case in sample:
        options = target_options(target, case.options)
        t0 = clock()
        full, error = oracle_run(case, options)
        t1 = clock()
        if case.host is None and full is not None:  # each workitem's trips, summed
            WORK["trips"] += sum(full.trips)
            WORK["plain"] += 1
        bench_target.compile_fresh(case, options)
        t2 = clock()
        STAGES["oracle"] += t1 - t0
        STAGES["compile"] += t2 - t1
        for k in range(per_case):
            schedule = (case.schedule if k == 0
                        else schedule_by_number(case, rng.randrange(2**31)))
            t0 = clock()
            outcome = run_target(target, case, schedule, options)
            t1 = clock()
            replay, why = _replayed(case, full, error, outcome, options)
            verdict = check_outcome(case, replay, outcome, None, False, why)
            STAGES["run"] += t1 - t0
            STAGES["verdict"] += clock() - t1
            assert verdict.agree, str(verdict)


collect_less()
check(bench_target.sample_cases(20, 999))  # warm: imports, numba's own compilation
if mode == "same":  # a process of its own: no kernel of the sample met before
    with open(shared) as f:
        same = [case_from_json(c) for c in json.load(f)]
    STAGES.update(dict.fromkeys(STAGES, 0.0))
    t0 = time.process_time()
    check(same)
    print(json.dumps({"same_per_s": per_case * len(same) / (time.process_time() - t0),
                      "same_cases": per_case * len(same),
                      **{f"same_{k}_s": v for k, v in STAGES.items()}}))
    sys.exit()
def instructions(sample):
    # the work a sample asks of the target: its kernels' compiled instructions, once per
    # checked case (worked out after the clock stops)
    from targets.numba_simt import target as numba_simt
    total = 0
    for case in sample:
        options = target_options(target, case.options)
        try:
            total += len(numba_simt.compile_case(case, options).rows)
        except numba_simt.AllocationError:
            pass
    return per_case * total


machine = bench_target.bench_ratios(1 << 22, [32], 7)[32]["machine_s"]
own_cases, own_cpu, drawn, steps, own_instructions, gen = 0, 0.0, [], 0, 0, 0.0
STAGES.update(dict.fromkeys(STAGES, 0.0))
WORK.update(trips=0, plain=0)
for seed in range(seeds):
    _checked.cache_clear()
    t0 = time.process_time()
    sample = bench_target.sample_cases(kernels, seed)
    gen += time.process_time() - t0
    check(sample)
    own_cpu += time.process_time() - t0
    own_cases += per_case * len(sample)
    own_instructions += instructions(sample)
    steps += sum(len(c.host or ()) for c in sample)
    drawn += [c.to_json() for c in sample]
if not os.path.exists(shared):  # the older tree, run first, saves its samples
    with open(shared, "w") as f:
        json.dump(drawn, f)
print(json.dumps({"machine_s": machine, "own_per_s": own_cases / own_cpu,
                  "own_cases": own_cases, "host_steps": steps,
                  "own_instructions": own_instructions,
                  "own_instructions_per_s": own_instructions / own_cpu,
                  "own_generation_s": gen, "own_trips_per_case": WORK["trips"] / WORK["plain"],
                  **{f"own_{k}_s": v for k, v in STAGES.items()}}))
"""


_MACHINE = r"""
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/benchmarks"]
import bench_target
row = bench_target.bench_ratios(1 << 22, [32], 7)[32]
print(json.dumps({"machine_s": row["machine_s"], "ratio": row["ratio"]}))
"""


def _turns(base: str, tree: str, rounds: int, script: str, *args: str
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`script` run for each tree in a process of its own, the trees taking turns
    `rounds` times: each tree's rounds' JSON results (a tree against itself is the
    measure's own noise)."""
    runs: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for _ in range(rounds):
        for side, name in zip(runs, (base, tree)):
            out = subprocess.run([sys.executable, "-c", script, os.path.abspath(name), *args],
                                 capture_output=True, text=True, check=True)
            side.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return runs


def machine_only(base: str, tree: str, rounds: int) -> None:
    """The machine alone, each tree in processes of its own taking turns: the best and
    median of its rounds, and each round's ratio of the two (paired: a machine whose
    speed drifts moves both alike), as CPU time and as the ratio to the same
    hand-written `@njit` loop, timed in the same process."""
    runs = _turns(base, tree, rounds, _MACHINE)
    for key, what in (("machine_s", "CPU ms"), ("ratio", "times the @njit loop")):
        scale = 1e3 if key == "machine_s" else 1.0
        b, t = ([r[key] * scale for r in side] for side in runs)
        paired = statistics.median(y / x for x, y in zip(b, t))
        mb, mt = statistics.median(b), statistics.median(t)
        print(f"machine alone, SimpleDeopt n = 2^22, W = 32, {what}: best {min(b):.1f} -> "
              f"{min(t):.1f} ({min(t) / min(b):.2f}x), medians {mb:.1f} -> {mt:.1f} "
              f"({mt / mb:.2f}x), paired median {paired:.2f}x")


_FAMILIES = r"""
import json, sys, time
sys.path[:0] = [sys.argv[1]]
from difftest.core.case import case_from_json
from targets.numba_simt.target import NumbaSimtTarget
kernels, repeat = json.loads(sys.argv[2]), int(sys.argv[3])
options = {"work_budget": 10**10, "step_budget": 10**9}
target = NumbaSimtTarget()
out = {}
for name, (dtype, text) in kernels.items():
    try:
        case = case_from_json({"kernel": text, "entry": "k",
                               "launch": {"n": 16384, "wave": 32},
                               "args": {"out": {"dtype": dtype, "data": [0] * 16384}}})
    except Exception:  # a kernel this tree's language cannot say
        out[name] = None
        continue
    first = target.run(case, case.schedule, options)  # compiled, and the machine warm
    assert first.error is None and first.exception is None, (name, first)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        target.run(case, case.schedule, options)
        best = min(best, time.process_time() - t0)
    out[name] = best
print(json.dumps(out))
"""

# One opcode family each, 256 loop trips of 16,384 workitems in waves of 32: the machine's
# time (the compile of a kernel this small is a few per cent of its run).
_LOOP = ("def k(out: Buffer[{t}]):\n    g = gid()\n    s = {init}\n"
         "    for i in range(256):\n{body}    out[g] = s\n")
FAMILIES = {
    "i32 arithmetic": ("i32", "g", "        s = s + i * 3 - (s ^ i)\n"),
    "i32 branches": ("i32", "g", "        if (s & 3) == 1:\n            s = s + 5\n"
                     "        else:\n            s = s - 1\n"),
    "i32 comparisons": ("i32", "g", "        s = s + i32(s < i) + i32(s == 7)\n"),
    "i32 shifts": ("i32", "g", "        s = (s << 1) ^ (s >> 3)\n"),
    "i32 loads": ("i32", "g", "        s = s + out[(g + i) % 1024]\n"),
    "f32 arithmetic": ("f32", "f32(g)", "        s = s * 0.5 + 1.0\n"),
    "f32 to i32": ("f32", "f32(g)", "        s = f32(i32(s * 0.5) + i)\n"),
    "f64 arithmetic": ("f64", "f64(g)", "        s = s * f64(0.5) + f64(1.0)\n"),
}


def families(base: str, tree: str, rounds: int) -> None:
    """The machine on one opcode family at a time, each tree in processes of its own
    taking turns: best CPU ms of each tree's rounds, and the ratios (paired by round)."""
    kernels = {name: (t, _LOOP.format(t=t, init=init, body=body))
               for name, (t, init, body) in FAMILIES.items()}
    runs = _turns(base, tree, rounds, _FAMILIES, json.dumps(kernels), "5")
    for name in kernels:
        b, t = ([r[name] for r in side] for side in runs)
        if None in b or None in t:
            print(f"{name}: not in both trees' language")
            continue
        bb = [float(x) * 1e3 for x in b if x is not None]
        tt = [float(x) * 1e3 for x in t if x is not None]
        paired = statistics.median(y / x for x, y in zip(bb, tt))
        print(f"{name}: best {min(bb):.1f} -> {min(tt):.1f} CPU ms "
              f"({min(tt) / min(bb):.2f}x), paired median {paired:.2f}x")


def _child(tree: str, mode: str, kernels: int, seeds: int, shared: str, without: str,
           host_percent: str) -> subprocess.Popen[str]:
    # a fixed hash seed: a sample drawn from sets of names is the same sample each run
    return subprocess.Popen([sys.executable, "-c", _CHILD, os.path.abspath(tree), mode,
                             str(kernels), str(seeds), shared, without, host_percent],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONHASHSEED": "0"})


def _result(proc: subprocess.Popen[str]) -> dict[str, float]:
    out, err = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"bench child failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def measure(trees: list[str], kernels: int, seeds: int, shared: str, without: str,
            host_percent: str = "", together: bool = False) -> list[dict[str, float]]:
    """Each tree's figures: its own samples in one process (the first tree's run saves
    them to `shared`), then the saved samples in a process of their own. `together`: the
    trees' processes of each mode run at the same time, one a core, so that a machine
    whose speed drifts slows both alike (the paired ratios)."""
    results: list[dict[str, float]] = [{} for _ in trees]
    for mode in ("own", "same"):
        if together and (mode == "same" or os.path.exists(shared)):
            procs = [_child(t, mode, kernels, seeds, shared, without, host_percent)
                     for t in trees]
            for r, proc in zip(results, procs):
                r.update(_result(proc))
        else:
            for r, t in zip(results, trees):
                r.update(_result(_child(t, mode, kernels, seeds, shared, without,
                                        host_percent)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the tree to compare against")
    parser.add_argument("tree", help="the tree under test")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kernels", type=int, default=200, help="kernels per seed")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--without", default="f32", metavar="FEATURE,...",
                        help="generator features neither tree draws (default: f32; "
                        "none: every feature, as a campaign draws them)")
    parser.add_argument("--host-percent", default="", metavar="FAULTING,NOT",
                        help="the percent of cases that can carry a host program which "
                        "do, for kernels that may fault and those that cannot, in a tree "
                        "that draws them so (generators/cases.py's _HOST_PERCENT; the tree "
                        "before the integer types drew about 8,50)")
    parser.add_argument("--together", action="store_true",
                        help="run the two trees' processes at the same time, one a core "
                        "(a machine that needs two free cores): a drift of the machine's "
                        "speed then moves both alike, and the ratios paired by round "
                        "tell a few per cent where the best and median cannot")
    parser.add_argument("--machine-only", action="store_true",
                        help="measure the machine alone, --rounds turns of each tree")
    parser.add_argument("--families", action="store_true",
                        help="measure the machine on one opcode family at a time (a loop "
                        "of integer, float or conversion work), --rounds turns of each tree")
    args = parser.parse_args()
    if args.families:
        families(args.base, args.tree, args.rounds)
        return
    if args.machine_only:
        machine_only(args.base, args.tree, args.rounds)
        return
    b: list[dict[str, float]] = []
    t: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        shared = os.path.join(folder, "cases.json")
        for _ in range(args.rounds):
            rb, rt = measure([args.base, args.tree], args.kernels, args.seeds, shared,
                             args.without, args.host_percent, args.together)
            b.append(rb)
            t.append(rt)

    def line(what: str, key: str, best: Any, unit: str, scale: float = 1.0) -> None:
        fb, ft = best(r[key] for r in b) * scale, best(r[key] for r in t) * scale
        mb = statistics.median(r[key] for r in b) * scale
        mt = statistics.median(r[key] for r in t) * scale
        paired = statistics.median(y[key] / x[key] for x, y in zip(b, t))
        print(f"{what}: {fb:.1f}{unit} -> {ft:.1f}{unit} ({ft / fb:.2f}x; medians "
              f"{mb:.1f} -> {mt:.1f}, {mt / mb:.2f}x; paired by round {paired:.2f}x)")

    line("machine alone, SimpleDeopt n = 2^22, W = 32", "machine_s", min, " ms", 1e3)
    line(f"checked cases per CPU-second, each tree its own samples ({args.seeds} seeds, "
         f"{int(b[0]['own_cases'])} and {int(t[0]['own_cases'])} checked cases with "
         f"{int(b[0]['host_steps'])} and {int(t[0]['host_steps'])} host program steps, "
         "no workgroups)", "own_per_s", max, "")
    print(f"compiled instructions per checked case, each tree its own samples: "
          f"{b[0]['own_instructions'] / b[0]['own_cases']:.0f} -> "
          f"{t[0]['own_instructions'] / t[0]['own_cases']:.0f}")
    print(f"loop trips run per case (summed over its workitems, by the oracle; cases "
          f"without host programs), each tree its own samples: "
          f"{b[0]['own_trips_per_case']:.0f} -> {t[0]['own_trips_per_case']:.0f}")
    line("thousands of compiled instructions checked per CPU-second, each tree its own "
         "samples (the same throughput, weighed by the size of each case's kernel)",
         "own_instructions_per_s", max, "", 1e-3)
    for stage, what in (("generation", "generation"), ("oracle", "the oracle's run"),
                        ("compile", "the compile"), ("run", "the target's runs"),
                        ("verdict", "the verdicts (a replay of returned values included)")):
        line(f"  of which {what}, CPU seconds (own samples)", f"own_{stage}_s", min, " s")
    line(f"checked cases per CPU-second, the same {int(t[0]['same_cases'])} checked cases "
         "(the first tree's samples; generation left out)", "same_per_s", max, "")
    for stage, what in (("oracle", "the oracle's run"), ("compile", "the compile"),
                        ("run", "the target's runs"),
                        ("verdict", "the verdicts (a replay of returned values included)")):
        line(f"  of which {what}, CPU seconds", f"same_{stage}_s", min, " s")


if __name__ == "__main__":
    main()
