"""What is installed and how fast: targets, bench."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from difftest.core.errors import DifftestError

from .common import CASE_FORMAT, EXIT_OK


def cmd_targets(args: argparse.Namespace) -> int:
    from difftest.campaign.registry import capabilities, load_target, target_names
    from difftest.core.options import COMMON

    common = {"step_budget": "loop trips one workitem may run (default 100000)",
              "work_budget": "loop trips the whole launch may run, shared out evenly "
                             "(default 1000000)",
              "mutants": "injected bugs to switch on: --opt mutants=a,b",
              "avoid": "known bugs of the target's compilers to spell around (names, or "
                       "all; a target with none takes all too)"}
    assert set(common) == set(COMMON)
    print("common options (every target and the oracle): " + ", ".join(COMMON))
    for key, text in common.items():
        print(f"    {key:<16} {text}")
    for name in target_names():
        print()
        try:
            t = load_target(name)
        except DifftestError as e:
            print(f"{name}: cannot be loaded: {e}")
            continue
        print(f"{name}: {t.description}")
        caps = sorted(capabilities(t))
        gran = t.never_ran_granularity
        print(f"  capabilities: {', '.join(caps) or 'none'}"
              + (f"; never-ran comes in whole {gran}s" if gran else ""))
        device = t.device_summary()
        if device:
            print(f"  device: {device}")
        print(f"  wave sizes: {', '.join(map(str, t.wave_sizes))}; reconvergence: "
              f"{t.reconvergence}")
        for title, names, helps in (
                ("options", t.option_names, t.option_help),
                ("schedule keys", t.schedule_keys, t.schedule_help),
                ("mutants", t.mutant_names, t.mutant_help)):
            if not names:
                print(f"  {title}: none")
                continue
            print(f"  {title}:")
            width = max(len(k) for k in names)
            for key in names:
                print(f"    {key:<{width}}  {helps.get(key, '')}".rstrip())
    print()
    print(CASE_FORMAT)
    return EXIT_OK


def bench_script() -> Path:
    """The benchmark, in the source tree beside the difftest package (a clone's)."""
    import difftest

    return Path(difftest.__file__).resolve().parents[1] / "benchmarks" / "bench_target.py"


def cmd_bench(args: argparse.Namespace) -> int:
    script = bench_script()
    if not script.is_file():
        raise DifftestError(f"{script}: the benchmarks ship with the source repository; "
                            "run `difftest bench` from a clone")
    import runpy

    sys.argv = [str(script)] + (["--json", args.json] if args.json else []) + (
        ["--quick"] if args.quick else [])
    runpy.run_path(str(script), run_name="__main__")
    return EXIT_OK
