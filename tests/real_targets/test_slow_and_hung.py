"""A case past its limit is run again with PATIENCE times it before it counts: one that
then answers was only slow and is not checked (never a wrong answer); one that does not
is a hang, reported as such (targets/translated.py). A translated target whose device is
a fake runner module plays a slow compiler, a hung one and a busy machine."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from difftest.core.kernelfile import load_case
from difftest.core.verdict import check_outcome
from oracles.reference import run_full as oracle
from targets.translated import PATIENCE, TranslatedTarget

RUNNER = '''
import time

def handle(header, arrays, built):
    mode, seconds = header["mode"], header["seconds"]
    if mode == "compiler":  # works `seconds` of CPU time, then is built
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass
    elif mode == "busy-machine":  # `seconds` of wall clock, next to no CPU
        time.sleep(seconds)
    elif mode == "endless":
        while True:
            pass
    built()
    return {"error": "build", "message": "error: the fake compiler says no"}, []
'''

KERNEL = "def kernel(out: Buffer[i32]):\n    out[0] = {}\n"


class _Fake(TranslatedTarget):
    name = "fake-device"
    language = "opencl"
    runner = "fake_slow_runner"

    def __init__(self, root: Path, mode: str, seconds: float) -> None:
        super().__init__()
        self.root, self.mode, self.seconds = root, mode, seconds

    def process_env(self, case: Any, mutants: Any, options: Any) -> dict[str, str]:
        repo = str(Path(__file__).resolve().parents[2])
        return {"PYTHONPATH": os.pathsep.join([str(self.root), repo])}

    def request(self, tr: Any, case: Any, options: Any, status: np.ndarray, mutants: Any
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        return {"mode": self.mode, "seconds": self.seconds}, [status], []


@pytest.fixture
def fake(tmp_path: Path) -> Any:
    (tmp_path / "fake_slow_runner.py").write_text(RUNNER)
    return lambda mode, seconds=0.0: _Fake(tmp_path, mode, seconds)


def _case(tmp_path: Path, value: int) -> Any:
    path = tmp_path / f"k{value}.py"
    path.write_text("# difftest: launch n=1 wave=1\n# difftest: arg out = i32[0]\n"
                    + KERNEL.format(value))
    return load_case(path)


def test_a_slow_build_is_not_checked_with_its_cpu_seconds(fake: Any, tmp_path: Path) -> None:
    t = fake("compiler", 1.0)
    c = _case(tmp_path, 1)
    outcome = t.run(c, {}, {"build_timeout": 0.3})
    assert outcome.error is not None and outcome.error.kind == "slow", outcome.error
    assert "its build took" in outcome.error.message and "not checked" in outcome.error.message
    assert outcome.diagnostics["slow"]["build_cpu"] >= 0.9  # it spun 1 CPU s (timed from
    # a little later than the spin began)
    verdict = check_outcome(c, oracle(c), outcome)
    assert verdict.agree and verdict.unchecked and verdict.slow  # never a wrong answer


def test_a_build_that_never_ends_is_a_hang_and_is_not_waited_for_again(
        fake: Any, tmp_path: Path) -> None:
    t = fake("endless")
    c = _case(tmp_path, 2)
    outcome = t.run(c, {}, {"build_timeout": 0.2})
    assert outcome.error is not None and outcome.error.kind == "timeout"
    assert f"allowed {PATIENCE} times its limits" in outcome.error.message
    assert "a hang" in outcome.error.message
    verdict = check_outcome(c, oracle(c), outcome)
    assert not verdict.agree and verdict.rule == "R0 error"
    start = time.monotonic()
    assert t.run(c, {}, {"build_timeout": 0.2}).error == outcome.error
    assert time.monotonic() - start < 1.0  # the same build: known to hang


def test_a_busy_machine_gives_the_same_answer_as_a_quiet_one(fake: Any,
                                                            tmp_path: Path) -> None:
    """A build that takes 2 s of wall clock but no CPU to speak of -- what a loaded
    machine does to a quick compiler -- is within a limit of 0.5 CPU s: the answer is
    the compiler's own (here its rejection), not a timeout."""
    t = fake("busy-machine", 2.0)
    outcome = t.run(_case(tmp_path, 3), {}, {"build_timeout": 0.5})
    assert outcome.error is not None and outcome.error.kind == "internal"
    assert "the fake compiler says no" in outcome.error.message
