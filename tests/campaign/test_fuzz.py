"""The fuzz properties: generated cases on each target under test agree with the oracle.

Sharded (each shard its own seed) so `pytest -n auto` spreads them over every core; the
number of examples per shard comes from the difftest profile (`--difftest-profile`:
ci is small and fixed, dev larger, fuzz long).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, seed
from hypothesis import strategies as st

from difftest.campaign.findings import explain
from difftest.campaign.runner import (rerun_with, check_case, oracle_run, target_options,
                                      undefined_in_run)
from generators.cases import kernel_cases
from generators.schedules import schedule_by_number, schedule_numbers
from difftest.campaign.registry import load_target

SHARDS = 8  # numba-simt's (and the reference's); a real target gets REAL_SHARDS
REAL_SHARDS = 2


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "fuzz_target" not in metafunc.fixturenames:
        return
    from difftest.app.pytest_plugin import target_names

    names = [n for n in target_names(metafunc.config) if n != "reference"] or ["reference"]
    pairs = [(name, shard) for name in names
             for shard in range(SHARDS if name in ("numba-simt", "reference") else REAL_SHARDS)]
    metafunc.parametrize("fuzz_target,shard", pairs,
                         ids=[f"{name}-{shard}" for name, shard in pairs])


def test_target_agrees_with_oracle(fuzz_target: str, shard: int, difftest_settings: Any,
                                   difftest_known_findings: list[Any]) -> None:
    """Each target under test on cases drawn for it (its capabilities, wave sizes,
    reconvergence model and cases per kernel, as the fuzz loop draws them; a target that
    draws more cases per kernel draws fewer kernels, so every shard checks about as many
    cases). A real target may disagree only as one of its known bugs recorded in the
    corpus (difftest.campaign.findings) explains; anything else fails."""
    from hypothesis import settings

    target = load_target(fuzz_target)
    known = difftest_known_findings
    examples = max(2, difftest_settings.max_examples * 2 // target.cases_per_kernel)

    @settings(difftest_settings, max_examples=examples)
    @seed(1000 + shard)
    @given(kernel_cases(target.cases_per_kernel, capabilities=target.capabilities,
                        waves=target.wave_sizes, reconvergence=target.reconvergence,
                        one_wave=target.one_wave_per_kernel, int_types=target.int_types),
           st.lists(schedule_numbers(), max_size=target.schedules_per_case - 1))
    def prop(kc: Any, numbers: list[int]) -> None:
        kernel, cases = kc
        for case in cases:
            full, oracle_error = oracle_run(case)
            assert oracle_error is None, f"{oracle_error}\n{kernel.source}"
            if target.unsupported(case) or undefined_in_run(target, full):
                continue
            extra = [schedule_by_number(case, k) for k in numbers]
            for schedule in [case.schedule, *extra]:
                options = target_options(target, case.options)
                res = check_case(case, target, schedule, options, None, full, oracle_error)
                rerun = rerun_with(case, target, options, full, oracle_error)
                if res.verdict.agree or explain(known, target.name, case, res.verdict,
                                                options, target.compiler(options), rerun):
                    continue
                case.schedule = schedule
                raise AssertionError(
                    f"{target.name}: {res.verdict}\n{kernel.source}\n"
                    f"case: {json.dumps(case.to_json())}"
                )

    prop()


def test_collect_less_still_collects_cycles() -> None:
    """The fuzz loop's collector settings collect less often, never not at all: a cycle
    dropped in a fresh process is freed once enough new objects stay alive (the
    collector counts allocations net of deallocations) to run a young collection."""
    script = """
import gc, weakref
from difftest.campaign.fuzz import GC_THRESHOLDS, collect_less
collect_less()
assert gc.isenabled() and gc.get_threshold() == GC_THRESHOLDS
class Node:
    pass
a, b = Node(), Node()
a.other, b.other = b, a
gone = weakref.ref(a)
del a, b
junk = []
for i in range(2 * GC_THRESHOLDS[0]):
    junk.append([i])
    if gone() is None:
        break
assert gone() is None, "a dropped cycle outlived a young collection's allocations"
"""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_seeded_campaign_writes_the_same_counterexample_under_any_load(tmp_path) -> None:
    """Shrinking and reduction count work, not time: the same seeded campaign, run three
    times -- once with another process keeping a core busy -- writes the same
    counterexample (the file name is a hash of its kernel, launch, arguments, schedule
    and options). With wall-clock budgets, a loaded machine cut them elsewhere."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}

    def campaign(folder: str) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "difftest", "fuzz", "--seed", "0",
                               "--examples", "40", "--workers", "1", "--opt",
                               "mutants=loop-var-before-check", "--corpus", folder],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 1, done.stdout + done.stderr
        return sorted(p.name for p in (tmp_path / folder).glob("*.json"))

    first = campaign("a")
    assert first
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = campaign("b")
    finally:
        hog.kill()
        hog.wait()
    assert campaign("c") == loaded == first
    for name in first:
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()


def test_a_rerun_adds_a_known_bugs_variant_to_those_on_and_never_swaps_them() -> None:
    """By-cause recognition asks whether a failure goes away with a finding's `avoid`
    variant: added to the campaign's own (a failure under avoid=all that went away with
    one variant alone, the others off, was taken for that known bug)."""
    from difftest.campaign.runner import _joined
    from difftest.core.kernelfile import load_case

    from ..conftest import EXAMPLES

    seen: list[dict] = []

    class Stub:
        def validate_options(self, options: dict) -> None:
            seen.append(dict(options))

        def run(self, *args: object) -> None:
            raise RuntimeError("ran")  # check_case reports it as the target's error

        never_ran_granularity = "workitem"

    case = load_case(EXAMPLES / "simple_deopt.py")
    again = rerun_with(case, Stub(), {"avoid": "all"}, None, None)
    assert again({"avoid": "float-constants"}) is False and seen == []  # nothing to add
    added = rerun_with(case, Stub(), {"avoid": "sext-compare"}, None, None)
    assert added({"avoid": "float-constants"}) is False
    assert seen == [{"avoid": "sext-compare,float-constants"}]
    assert _joined(["a", "b"], "b") == "a,b" and _joined("a", "all") == "all"


def test_a_compilers_releases_are_one_compiler_to_recognition_by_cause() -> None:
    """By cause, a finding recorded on one release of a compiler is known on the others
    (its name with the version numbers left out), never on another compiler."""
    from difftest.campaign.signature import Signature, unversioned

    mesa22 = "glsl on llvmpipe Mesa 22.3.6 (LLVM 15.0.6)"
    mesa25 = "glsl on llvmpipe Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)"
    assert unversioned(mesa22) == unversioned(mesa25) == "glsl on llvmpipe Mesa # (LLVM #)"
    sig = Signature("lavapipe-glsl", "R3 memory", frozenset({"Store"}), "", mesa22)
    assert sig.on_any_version("vulkan-glsl", mesa25)
    assert not sig.on("vulkan-glsl", mesa25)  # the shape rule stays with its release
    assert not sig.on_any_version("vulkan-glsl", "glsl on NVIDIA 580.159.04")
    assert not sig.on_any_version("vulkan-glsl", "wgsl on llvmpipe Mesa 25.0.7 (LLVM 15.0.6)")


def test_a_lead_is_recognised_and_named_a_lead(tmp_path) -> None:
    """A lead recorded in a known-bugs folder (`record --lead`) explains the failures it
    covers, and the campaign names it "ID (a lead)" among what it saw again."""
    import io
    from pathlib import Path

    from difftest.campaign.fuzz import FuzzConfig, fuzz

    from ..conftest import example_json

    known = tmp_path / "known"
    known.mkdir()
    entry = dict(example_json("simple_deopt"))
    entry.update({"target": "numba-simt", "finding": "numba-everything-wrong", "lead": True,
                  "expected": {"verdict": "disagree", "rule": "R3 memory"},
                  "signature": {"target": "numba-simt", "failure": "R3 memory",
                                "shape": []}})
    (known / "lead.json").write_text(json.dumps(entry))
    summary = fuzz(FuzzConfig(target="numba-simt", examples=50, workers=1, seed=0,
                              options={"mutants": ["loop-var-before-check"]},
                              corpus=tmp_path / "c", known=[known]), out=io.StringIO())
    names = [r.name for r in summary.seen_again]
    assert "numba-everything-wrong (a lead)" in names, names
    [lead] = [r for r in summary.seen_again if r.name.startswith("numba-everything")]
    assert lead.count >= 1 and Path(lead.case).is_file()


def test_a_failure_with_a_findings_variant_on_is_never_that_finding(tmp_path) -> None:
    """A finding that names a variant (`avoid`) is recognised by its cause alone: a case
    failing with the variant on already is not that bug, however much of its shape the
    reduced case holds (a reduction cut short keeps nearly every operation, and took a
    failure under avoid=sext-shift on NVIDIA's driver for nvidia-sext-shift by shape)."""
    import io

    from difftest.campaign.fuzz import FuzzConfig, fuzz

    from ..conftest import example_json

    known = tmp_path / "known"
    known.mkdir()
    entry = dict(example_json("simple_deopt"))
    entry.update({"target": "numba-simt", "finding": "numba-spelled-around", "avoid": "all",
                  "expected": {"verdict": "disagree", "rule": "R3 memory"},
                  "signature": {"target": "numba-simt", "failure": "R3 memory",
                                "shape": ["Store"]}})
    (known / "finding.json").write_text(json.dumps(entry))
    summary = fuzz(FuzzConfig(target="numba-simt", examples=50, workers=1, seed=0,
                              options={"mutants": ["loop-var-before-check"], "avoid": "all"},
                              corpus=tmp_path / "c", known=[known]), out=io.StringIO())
    assert summary.found, "the mutant's failures were taken for the finding"
    assert not [r for r in summary.seen_again if r.name == "numba-spelled-around"]


def test_a_case_past_the_oracles_work_limit_is_skipped_not_a_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel the oracle cannot judge (more than its 2,000,000 evaluations) gives no
    verdict: the campaign counts it as skipped and goes on. Raised out of the property,
    it was a failure for Hypothesis, which then met it as Flaky (its rerun came after the
    campaign's time, which returns at once) and stopped the worker."""
    import io

    from difftest.campaign import runner
    from difftest.campaign.fuzz import FuzzConfig, fuzz
    from difftest.core.errors import OracleError

    real = runner.oracle_run
    calls = []

    def heavy(case, options=None, *replay):  # type: ignore[no-untyped-def]
        if replay:  # (the checker's replay of a target's returned values: as it is)
            return real(case, options, *replay)
        calls.append(1)
        if len(calls) % 2:
            raise OracleError("work", "the kernel asks the reference for more than 2,000,000 "
                                      "evaluations")
        return real(case, options)

    monkeypatch.setattr(runner, "oracle_run", heavy)
    summary = fuzz(FuzzConfig(target="numba-simt", examples=30, workers=1, seed=0,
                              corpus=tmp_path / "c"), out=io.StringIO())
    assert summary.skipped >= 10 and summary.cases >= 10
    assert not summary.found and not summary.errors, summary.errors


def test_a_journal_that_stops_being_written_mid_campaign_is_told(tmp_path, monkeypatch) -> None:
    """A disk that fills during a campaign: the journal's record ends early, and the
    campaign says so (it goes on: the campaign matters more than its record)."""
    import errno
    import io
    import os
    import types

    from difftest.campaign import results
    from difftest.campaign.fuzz import FuzzConfig, fuzz

    writes = []

    def write(fd: int, data: bytes) -> int:
        writes.append(data)
        if len(writes) > 1:  # the campaign's first record only
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    faulty = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if k[0] != "_"})
    faulty.write = write
    monkeypatch.setattr(results, "os", faulty)
    out = io.StringIO()
    summary = fuzz(FuzzConfig(target="numba-simt", examples=4, workers=1, seed=0,
                              corpus=tmp_path / "c"), out=out)
    assert summary.cases > 0 and not summary.errors
    told = [line for line in out.getvalue().splitlines() if line.startswith("warning:")]
    assert len(told) == 1, out.getvalue()
    assert "cannot be written" in told[0] and "No space left" in told[0], told
    assert "ends there" in told[0]
