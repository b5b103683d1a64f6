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
