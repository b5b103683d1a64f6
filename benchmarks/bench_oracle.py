"""`python benchmarks/bench_oracle.py [--kernels K] [--seed S] [--repeat R] [--deopt-n N]`:
the reference oracle (`oracles/reference.py`) against the frozen tree-walking oracle it
replaced (`tests/models/oracle_legacy.py`), side by side in one process.

- Generated cases: `generators.sampling.draw(kernel_cases(), K, seed)` flattened to cases
  (the same sample every run for a given K and seed); each oracle's total CPU time
  (`time.process_time()`) over the whole sample, best of R runs, and the ratio. Before
  timing, both oracles' full runs are checked to be equal on every case (a speed-up that
  changes results would be worthless).
- SimpleDeopt (`benchmarks/bench_target.py`'s case, length = 2n, W = 32) at n = N
  (default 65536): both oracles' CPU time, best of R, and the ratio.
- `--by-wave`: the generated sample's times split by wave size (where the time goes).
- `--edges`: instead, what noting edge values costs the reference on the generated
  sample (`difftest/core/edges.py`): its runs as they are (the operands held, tested
  once a run), with the operands tested at each operation, and with nothing noted;
  best of R each, interleaved, and the ratios. The first two are checked to meet the
  same pairs on every case first.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "tests" / "models"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import oracle_legacy  # noqa: E402  (tests/models/oracle_legacy.py: the frozen old oracle)

from difftest.core.errors import OracleError  # noqa: E402
from oracles import reference  # noqa: E402


def sample_cases(kernels: int, seed: int) -> list[Any]:
    from generators.cases import kernel_cases
    from generators.sampling import draw

    return [case for _, cases in draw(kernel_cases(), kernels, seed) for case in cases]


def _result(run_full: Callable[..., Any], case: Any) -> Any:
    """The full run, or the OracleError's text (a racy case is a result too)."""
    try:
        return run_full(case)
    except OracleError as e:
        return str(e)


def _cpu(fn: Callable[[], Any]) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _best(fn: Callable[[], Any], repeat: int) -> float:
    return min(_cpu(fn) for _ in range(repeat))


def _log(writes: list[list[Any]]) -> list[list[tuple[str, int, int, bool]]]:
    """Write logs as plain tuples: each oracle module has its own `Write` class."""
    return [[(w.buffer, w.index, w.value, w.atomic) for w in log] for log in writes]


def same(a: Any, b: Any) -> bool:
    """Field-by-field equality of two full runs (or of two error texts)."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return (a.n == b.n and a.wave == b.wave and a.fates == b.fates
            and _log(a.writes) == _log(b.writes)
            and a.exhausted == b.exhausted and a.budget_text == b.budget_text
            and a.trips == b.trips
            and a.initial.keys() == b.initial.keys() and a.final.keys() == b.final.keys()
            and all(a.final[k].dtype == b.final[k].dtype
                    and (a.final[k] == b.final[k]).all() for k in a.final)
            and all((a.initial[k] == b.initial[k]).all() for k in a.initial))


def bench_sample(kernels: int, seed: int, repeat: int, by_wave: bool) -> dict[str, float]:
    cases = sample_cases(kernels, seed)
    for i, case in enumerate(cases):
        assert same(_result(oracle_legacy.run_full, case), _result(reference.run_full, case)), \
            f"case {i} (n={case.n}, wave={case.wave}): the oracles disagree"

    def run_all(run_full: Callable[..., Any]) -> Callable[[], None]:
        def run() -> None:
            for c in cases:
                _result(run_full, c)
        return run

    old = new = float("inf")
    for _ in range(repeat):  # interleaved, so machine noise hits both sides alike
        old = min(old, _cpu(run_all(oracle_legacy.run_full)))
        new = min(new, _cpu(run_all(reference.run_full)))
    print(f"generated sample: {kernels} kernels, seed {seed}, {len(cases)} cases, "
          f"sum n = {sum(c.n for c in cases)}")
    print(f"  old oracle {old:8.3f} s   new oracle {new:8.3f} s   ratio {old / new:6.2f}x")
    if by_wave:
        for w in sorted({c.wave for c in cases}):
            group = [c for c in cases if c.wave == w]
            o = _cpu(lambda: [_result(oracle_legacy.run_full, c) for c in group])
            nw = _cpu(lambda: [_result(reference.run_full, c) for c in group])
            print(f"  W = {w:2d}: {len(group):3d} cases  old {o:7.3f} s  new {nw:7.3f} s  "
                  f"ratio {o / max(nw, 1e-9):6.2f}x")
    return {"old_s": old, "new_s": new, "ratio": old / new}


def bench_edges(kernels: int, seed: int, repeat: int) -> dict[str, float]:
    from unittest.mock import patch

    from difftest.core import edges

    cases = sample_cases(kernels, seed)

    def met(case: Any) -> Any:
        run = _result(reference.run_full, case)
        return run if isinstance(run, str) else run.edges

    at_once = patch.object(edges, "_HOLD", 0)
    noted = {k: v for k, v in vars(edges.Edges).items() if k.startswith("note_")}
    nothing = patch.multiple(edges.Edges, **{k: lambda *_a, **_k: None for k in noted})
    for i, case in enumerate(cases):
        with at_once:
            each = met(case)
        assert met(case) == each, f"case {i}: held operands meet other pairs"

    def run_all() -> None:
        for c in cases:
            _result(reference.run_full, c)

    held = each_op = none = float("inf")
    for _ in range(repeat):  # interleaved, so machine noise hits all three alike
        held = min(held, _cpu(run_all))
        with at_once:
            each_op = min(each_op, _cpu(run_all))
        with nothing:
            none = min(none, _cpu(run_all))
    print(f"generated sample: {kernels} kernels, seed {seed}, {len(cases)} cases")
    print(f"  edge values noted as runs do (held) {held:7.3f} s, tested at each operation "
          f"{each_op:7.3f} s, not noted {none:7.3f} s")
    print(f"  noting costs the reference {held / none - 1:.1%} held, "
          f"{each_op / none - 1:.1%} tested at each operation")
    return {"held_s": held, "each_s": each_op, "none_s": none}


def bench_deopt(n: int, repeat: int) -> dict[str, float]:
    from bench_target import _case  # benchmarks/ is this script's own folder

    case = _case(n, 32)
    assert same(oracle_legacy.run_full(case), reference.run_full(case))
    old = new = float("inf")
    for _ in range(repeat):
        old = min(old, _cpu(lambda: oracle_legacy.run_full(case)))
        new = min(new, _cpu(lambda: reference.run_full(case)))
    print(f"SimpleDeopt n = {n}, W = 32: old oracle {old:7.3f} s   new oracle {new:7.3f} s"
          f"   ratio {old / new:6.2f}x")
    return {"old_s": old, "new_s": new, "ratio": old / new}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--deopt-n", type=int, default=65536)
    parser.add_argument("--by-wave", action="store_true")
    parser.add_argument("--edges", action="store_true",
                        help="what noting edge values costs the reference, instead")
    args = parser.parse_args()
    if args.edges:
        bench_edges(args.kernels, args.seed, args.repeat)
        return 0
    bench_sample(args.kernels, args.seed, args.repeat, args.by_wave)
    if args.deopt_n:
        bench_deopt(args.deopt_n, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
