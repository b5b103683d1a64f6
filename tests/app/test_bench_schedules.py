"""The detection model of benchmarks/bench_schedules.py, on rows made by hand: it decides
the fuzz loop's cases per kernel and schedules per case, so its arithmetic is tested."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_schedules.py"
_spec = importlib.util.spec_from_file_location("bench_schedules", _PATH)
assert _spec is not None and _spec.loader is not None
bench_schedules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_schedules)


def _row(kernel: int, first: dict[str, int]) -> dict[str, Any]:
    return {"kernel": kernel, "fixed": 1.0, "runs": [0.5] * bench_schedules.SCHEDULES,
            "first": first}


def test_the_cases_of_one_kernel_count_as_one_detection() -> None:
    # kernel 0: both cases catch "m" at their first schedule; kernel 1 at its fourth
    rows = [_row(0, {"m": 0}), _row(0, {"m": 0}), _row(1, {"m": 3})]
    table = bench_schedules.summarize(rows, ["m"])
    one, four = table[0], table[3]
    assert one["schedules"] == 1 and four["schedules"] == 4
    # S = 1: 3 x (1 + 0.5) CPU seconds spent, one kernel caught it (not two cases)
    assert math.isclose(one["median_ttd_cpu_s"], 4.5)
    assert math.isclose(one["detections_per_cpu_s"], 1 / 4.5)
    assert math.isclose(one["checked_per_cpu_s"], 3 / 4.5)
    # S = 4: 3 x (1 + 2) spent, both kernels caught it
    assert math.isclose(four["median_ttd_cpu_s"], 9 / 2)
    assert four["never_caught"] == 0


def test_a_mutant_no_case_catches_is_never_caught() -> None:
    rows = [_row(0, {"m": 1}), _row(1, {})]
    table = bench_schedules.summarize(rows, ["m", "other"])
    assert table[0]["never_caught"] == 2  # S = 1: "m" needs the second schedule
    assert table[1]["never_caught"] == 1
    assert math.isclose(table[1]["detections_per_cpu_s"], 1 / (2 * (1 + 1.0)))
