"""A seeded campaign with an example budget keeps the same files on any machine: nothing
it decides is decided by the wall clock, and its workers' findings are merged in the
seed order, not in the order they arrived (docs/semantics.md, "Campaigns")."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest

from difftest.campaign import fuzz as fuzz_module
from difftest.campaign.fuzz import FuzzConfig, Found, fuzz, merge_findings
from difftest.campaign.signature import Signature


def _files(folder: Path) -> dict[str, str]:
    """Every file a campaign left, by its path in the folder (its journal aside)."""
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.json"))}


def _campaign(folder: Path, workers: int = 2, examples: int = 150) -> Any:
    return fuzz(FuzzConfig(target="numba-simt", examples=examples, workers=workers, seed=0,
                           options={"mutants": ["loop-var-before-check"]}, corpus=folder,
                           known=[folder]), out=io.StringIO())


@pytest.mark.slow
def test_a_busy_machine_and_a_slow_worker_change_no_file(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """The same seeded two-worker campaign, once as it comes and once on a machine whose
    wall clock runs a thousand times faster than its work (every wall-clock limit,
    Hypothesis's five-minute shrinking cut included, then falls after a few
    milliseconds of work) with worker 0 starting late (its findings arrive after worker
    1's): the same counterexamples, byte for byte, and the same failing case kept for
    each finding met again (in folders of different names). Both workers find the
    mutant's bug, so the merge in the seed order is exercised too."""
    quiet = _campaign(tmp_path / "quiet")
    assert quiet.found and quiet.repeats, "both workers should meet the mutant's bug"
    assert list((tmp_path / "quiet" / "seen-again").glob("*.json"))

    start = time.monotonic()
    real_monotonic, real_perf_counter = time.monotonic, time.perf_counter
    monkeypatch.setattr(time, "monotonic", lambda: start + (real_monotonic() - start) * 1000)
    monkeypatch.setattr(time, "perf_counter", lambda: real_perf_counter() * 1000)
    run = fuzz_module._Worker.run

    def late(self: Any) -> None:
        if self.index == 0:
            time.sleep(2)
        run(self)

    monkeypatch.setattr(fuzz_module._Worker, "run", late)
    busy = _campaign(tmp_path / "busy")
    assert _files(tmp_path / "busy") == _files(tmp_path / "quiet")
    assert [f.position for f in busy.found] == [f.position for f in quiet.found]
    assert busy.repeats == quiet.repeats


def _found(path: str, position: tuple[int, int, int], shape: set[str]) -> tuple[Found, Any]:
    sig = Signature("t", "R3 memory", frozenset(shape))
    return Found(path, "v", "R3 memory", 0.0, 0.0, 1, 1, key=path, position=position), sig


def test_the_merge_keeps_the_first_finding_of_a_bug_in_the_seed_order() -> None:
    """Whatever order findings arrive in, the one met first in the seed order (batch,
    then worker, then example) stands for its bug; findings of other bugs all stay."""
    a = _found("a", (3, 0, 5), {"If", "Store"})
    b = _found("b", (1, 1, 2), {"If", "Store", "Loop"})  # same bug as a, met earlier
    c = _found("c", (0, 1, 9), {"Atomic"})  # another bug
    for order in ([a, b, c], [c, b, a], [b, a, c]):
        kept, into = merge_findings(order)
        assert [f.path for f in kept] == ["c", "b"]
        assert into == {"a": "b", "b": "b", "c": "c"}
