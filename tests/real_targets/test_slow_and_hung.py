"""A case past its limit is run again with PATIENCE times it before it counts: one that
then answers was only slow and is not checked (never a wrong answer); one that does not
is a hang, reported as such (targets/translated.py); a campaign's reduction checks its
candidates without the rerun and confirms the case it keeps (difftest.campaign.runner). A translated target whose device is
a fake runner module plays a slow compiler, a hung one and a busy machine."""

from __future__ import annotations

import json
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


def test_patience_is_how_many_times_its_limits_the_rerun_gets(fake: Any,
                                                             tmp_path: Path) -> None:
    """A 1 CPU s build past a 0.2 s limit: slow on a rerun with 10 times it, a hang on one
    with 3 times it, and with patience 1 a hang at once, never run again."""
    t = fake("compiler", 1.0)
    c = _case(tmp_path, 4)
    assert t.run(c, {}, {"build_timeout": 0.2}).error.kind == "slow"  # type: ignore
    three = t.run(c, {}, {"build_timeout": 0.2, "patience": 3}).error
    assert three is not None and three.kind == "timeout"
    assert "allowed 3 times its limits" in three.message
    once = t.run(c, {}, {"build_timeout": 0.2, "patience": 1}).error
    assert once is not None and once.kind == "timeout"
    assert "not run again (patience=1)" in once.message


@pytest.mark.parametrize("value", [0, 0.5, 101, "x", True])
def test_a_patience_out_of_range_is_refused(fake: Any, value: Any) -> None:
    from targets.translated import OptionError

    with pytest.raises(OptionError, match=r"option patience=.*expected a number in \[1, 100\]"):
        fake("compiler").validate_options({"patience": value})


class _Shaped(_Fake):
    """A build that never ends for a kernel of two stores or more, one of 1 CPU s for a
    smaller kernel: what a reduction meets when a smaller candidate is only slow."""

    def request(self, tr: Any, case: Any, options: Any, status: np.ndarray, mutants: Any
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        mode = "endless" if case.kernel.count("out[") >= 2 else "compiler"
        return {"mode": mode, "seconds": 1.0}, [status], []


def test_a_hangs_reduction_checks_without_rerunning_and_keeps_a_confirmed_hang(
        tmp_path: Path) -> None:
    """The reduction checks candidates with patience 1 (a candidate past its limit is the
    hang it is reduced for, at the cost of one limit), spends a bounded number of
    timeouts, and the case it keeps is checked once more with the full patience: the
    smaller candidates, only slow there, give way to the shrunk case, which hangs."""
    import dataclasses

    from difftest.campaign.fuzz import FuzzConfig, _Known, _reduce_and_keep
    from difftest.campaign.runner import Recheck, check_case, confirmed, still_fails

    (tmp_path / "fake_slow_runner.py").write_text(RUNNER)
    t = _Shaped(tmp_path, "", 0.0)
    path = tmp_path / "two.py"
    path.write_text("# difftest: launch n=1 wave=1\n# difftest: arg out = i32[0]\n"
                    "def kernel(out: Buffer[i32]):\n    out[0] = 1\n    out[0] = out[0] + 2\n")
    case = dataclasses.replace(load_case(path), options={"build_timeout": 0.2})
    first = check_case(case, t)
    assert "a hang" in str(first.verdict), first.verdict
    failure = "R0 error: timeout"
    recheck = Recheck(t, timeouts=4)
    assert recheck.options == {"patience": 1}
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    config = FuzzConfig(target="fake-device", corpus=corpus)
    known = _Known([corpus], corpus)
    found, _, _ = _reduce_and_keep(case.to_json(), str(first.verdict), "R0 error", failure,
                                   0.0, 0.0, config, t, known, recheck=recheck,
                                   first_case=case.to_json())
    assert found is not None
    assert recheck.left < 4  # the reduction's candidates were checked by it
    kept = json.loads(Path(found.path).read_text())
    assert kept["kernel"].count("out[") >= 2, kept["kernel"]  # the smaller were only slow
    assert "a hang" in kept["note"]
    # confirmed: the first case that fails the same way under its own options
    one = tmp_path / "one.py"
    one.write_text("# difftest: launch n=1 wave=1\n# difftest: arg out = i32[0]\n"
                   "def kernel(out: Buffer[i32]):\n    out[0] = 1\n")
    small = dataclasses.replace(load_case(one), options={"build_timeout": 0.2})
    chosen, res = confirmed([small, case], t, failure)
    assert chosen is case and "a hang" in str(res.verdict)
    chosen, res = confirmed([small], t, failure)
    assert chosen is small and res.verdict.slow
    # with its timeouts spent, a candidate is not run: it no longer counts as failing
    assert still_fails(t, case, "R0 error", failure, Recheck(t, timeouts=1))(case)
    assert not still_fails(t, case, "R0 error", failure, Recheck(t, timeouts=0))(case)
