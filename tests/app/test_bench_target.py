"""benchmarks/bench_target.py's measurement of checked cases per CPU-second runs on a
small sample and reports the fuzz loop's own settings (two schedules per case)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_target.py"
_spec = importlib.util.spec_from_file_location("bench_target", _PATH)
assert _spec is not None and _spec.loader is not None
bench_target = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_target)


def test_bench_generation_measures_the_fuzz_loops_work() -> None:
    out = bench_target.bench_generation(12, 0, repeat=1)
    assert out["kernels_per_s"] > 0
    assert out["schedules_per_case"] == 2


def test_the_compile_time_probe_runs_in_a_fresh_process() -> None:
    """The cold / cached compile figure comes from a snippet run in fresh processes: it
    must import the machine where it lives (here with the warm cache: a fraction of a
    second)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", bench_target._COMPILE_SNIPPET],
                         capture_output=True, text=True, timeout=300,
                         cwd=str(_PATH.parents[1]))
    assert out.returncode == 0, out.stderr
    assert float(out.stdout.strip().splitlines()[-1]) > 0


def test_the_baseline_runs_under_any_module_name() -> None:
    """`difftest bench` runs the script as __main__, bench_trees.py imports it as
    bench_target: a baseline compiled under one name must not be loaded (from numba's
    cache) under the other, which imports the first by name and fails."""
    import subprocess
    import sys

    import numpy as np

    bench_target._baseline()(np.zeros(4, dtype=np.int32), 8)  # under "bench_target"
    snippet = ("import runpy, numpy as np\n"
               f"ns = runpy.run_path({str(_PATH)!r}, run_name='__main__x')\n"
               "print(ns['_baseline']()(np.zeros(4, dtype=np.int32), 8))\n")
    out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True,
                         timeout=300, cwd="/")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "0"
