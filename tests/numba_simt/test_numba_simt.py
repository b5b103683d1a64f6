"""numba-simt against the oracle on the examples (examples/), across register budgets,
uniform-write modes, wave sizes and schedules; plus `difftest check`/`run` end to end."""

from __future__ import annotations

import json

import pytest

from difftest.core.case import Case, case_from_json
from difftest.app.cli import main
from difftest.campaign.runner import check_case
from targets.numba_simt.target import NumbaSimtTarget, compile_case

from ..conftest import EXAMPLES, example_json

NAMES = ["divergent_wave_ops", "loop_exit_liveness", "payload_clobber", "simple_deopt"]
TARGET = NumbaSimtTarget()


def example(name: str, **changes: object):
    obj = example_json(name)
    obj.update(changes)
    return case_from_json(obj)


def barely_enough(case) -> int:
    """The smallest register budget that still compiles (spilling)."""
    for regs in range(4, 64):
        try:
            compile_case(case, {"registers": regs})
            return regs
        except Exception:  # noqa: BLE001 - AllocationError: try one more register
            continue
    raise AssertionError("nothing compiles")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("uniform", ["all_lanes", "active"])
def test_examples_agree_from_barely_enough_registers_to_plenty(name: str, uniform: str) -> None:
    case = example(name)
    low = barely_enough(case)
    for regs in sorted({low, low + 1, low + 3, 32, 128}):
        options = {"registers": regs, "uniform_writes": uniform}
        res = check_case(case, TARGET, options=options)
        assert res.verdict.agree, f"registers={regs}: {res.verdict}"


def test_spilling_really_happens_at_barely_enough() -> None:
    case = example("loop_exit_liveness")
    low = barely_enough(case)
    assert compile_case(case, {"registers": low}).slot, "no spill at the smallest budget"


@pytest.mark.parametrize("wave", [1, 2, 4, 8, 16, 32, 64])
@pytest.mark.parametrize("schedule", [
    {}, {"wave_order": "descending"}, {"wave_order": "shuffled", "order_seed": 7, "slots": 3,
                                       "quantum": 1},
    {"slots": 2, "quantum": 5, "stop_on_fault": False},
])
def test_simple_deopt_every_wave_size_and_schedule(wave: int, schedule: dict) -> None:
    case = example("simple_deopt", launch={"n": 20, "wave": wave})
    res = check_case(case, TARGET, schedule=schedule)
    assert res.verdict.agree, str(res.verdict)
    exc = res.outcome.exception
    assert exc is not None and exc.gid == 10
    assert [(f.function, f.line) for f in exc.fault.stack] == [("simple_deopt", 15),
                                                              ("write_int_array", 19)]


def test_payload_clobber_exact_buffers() -> None:
    out = TARGET.run(example("payload_clobber"))
    assert out.buffers["out"].tolist() == [7, 0, 7, 0, 7, 0, 7, 0]
    assert out.buffers["used"].tolist() == [0, 3, 0, 9, 0, 15, 0, 21]


def test_cli_run_and_check_on_numba_simt(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "loop_exit_liveness.py")
    assert main(["run", path, "--target", "numba-simt", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["buffers"]["out"] == [100000, 102000, 104002, 106004]
    assert main(["check", path, "--target", "numba-simt", "--opt", "registers=6",
                 "--schedules", "3"]) == 0
    assert "3 of 3 schedules agree" in capsys.readouterr().out
    assert main(["check", path, "--target", "numba-simt", "--opt", "registers=1"]) == 2
    assert "registers=1: expected an integer in 4..256" in capsys.readouterr().err
    assert main(["compile", path, "--opt", "registers=6"]) == 0
    listing = capsys.readouterr().out
    assert "spill" in listing and "[all lanes]" in listing and "ip0 out_of_bounds" in listing


def test_a_kernel_without_buffers_runs() -> None:
    """Its buffer table is one empty row, not an invalid one (machine error 2 before)."""
    from difftest.core.ir import parse
    from difftest.campaign.runner import check_case

    text = "def k(s: i32):\n    t = s + wave_sum(1)\n"
    case = Case(text, "k", 4, 4, {"s": 3}, parse(text))
    res = check_case(case, NumbaSimtTarget())
    assert res.outcome.error is None and res.verdict.agree, res.verdict


def test_a_slow_first_compile_says_it_is_still_going(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """The machine's first compile can take many minutes on a busy machine: it says so
    every EVERY seconds instead of leaving the screen silent."""
    import time

    import difftest.core.heartbeat as heartbeat
    from targets.numba_simt.device import machine
    from targets.numba_simt.target import NumbaSimtTarget

    monkeypatch.setattr(heartbeat, "EVERY", 0.05)
    monkeypatch.setattr(machine, "warm_up", lambda: time.sleep(0.3))
    NumbaSimtTarget().warm_up()
    lines = [x for x in capsys.readouterr().err.splitlines()
             if x.startswith("still compiling the numba-simt machine: ")]
    assert len(lines) >= 3 and "CPU s" in lines[0], lines
