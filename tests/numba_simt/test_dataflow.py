"""The compiled liveness and allocation facts (targets/numba_simt/compiler/dataflow.py) against
the Python rules they replaced (tests/models/liveness_reference.py): the same live-in, live-out,
parked and whole-wave sets, and the same interference, for generated kernels lowered both
ways, under every mutant that changes a rule, before and after spilling."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from generators.kernels import kernels
from targets.numba_simt.compiler import dataflow
from targets.numba_simt.mutants import Mutants
from targets.numba_simt.compiler.lower import lower
from targets.numba_simt.compiler.regalloc import _across, _round_facts

from ..models import liveness_reference as reference

_SETTINGS = st.sampled_from([
    [], ["whole-wave-read-not-live"], ["wwm-then-else"], ["wwm-loop-exit"],
    ["wwm-call-return"], ["uniform-writemask-all"], ["wwm-ignores-inactive"],
    ["partial-def-no-reload", "masked-def-no-keep", "spill-under-mask"]])


def _compare(live: Any, regions: Any, m: Mutants) -> None:
    f = live.flow
    want = reference.liveness(f, regions, m)
    for name, sets in zip(("live_in", "live_out", "parked", "whole"), want):
        assert list(getattr(live, name)) == sets, name
    assert _across(live, m) == reference.across(f, want[1], want[2], want[3], m)
    vregs, firsts, lasts, _, parked_only = _round_facts(live, 0, "recent", m)
    first = {}
    for i, d in enumerate(f.defined):
        if d is not None:
            first.setdefault(d, i)
    assert vregs.tolist() == sorted(first)
    assert firsts.tolist() == [first[v] for v in sorted(first)]
    last = {}
    for i in range(len(want[0]) - 1, -1, -1):
        for v in range(want[0][i].bit_length()):
            if want[0][i] >> v & 1:
                last.setdefault(v, i)
    assert lasts.tolist() == [last.get(v, first[v]) for v in sorted(first)]
    for k, v in enumerate(sorted(first)):
        i = first[v]
        p = want[2][i] & ~want[1][i]
        expect = p if p and not reference.writes_all(f.instrs[i], m) else 0
        assert int.from_bytes(parked_only[k].tobytes(), "little") == expect


@settings(max_examples=60, deadline=None)
@given(kernels(), st.booleans(), _SETTINGS, st.data())
def test_liveness_and_interference_are_the_python_rules(kernel: Any, tree: bool,
                                                        names: list[str], data: Any) -> None:
    lowered = lower(kernel.program, kernel.entry, tree=tree)
    m = Mutants.of(names)
    for _, _, live in reference.spill_rounds(lowered, data, 2, 6, m):
        _compare(live, lowered.regions, m)

def test_sets_past_the_first_word() -> None:
    """Vregs 70 and 130: three words a row. v70 is defined at 0 and read at 2 by an
    all-lane instruction; v130 is defined at 1 and read at 2."""
    i = np.int64
    live_in, live_out, parked, whole = dataflow.solve(
        np.array([0, 1, 2, 2], dtype=i), np.array([1, 2], dtype=i),
        np.array([0, 1, 2, 2], dtype=i), np.array([1, 2], dtype=i),
        np.array([0, 0, 0, 2], dtype=i), np.array([70, 130], dtype=i),
        np.array([0, 0, 0, 2], dtype=i), np.array([70, 130], dtype=i),
        np.array([70, 130, -1], dtype=i), np.array([0, 0, dataflow.ALL_LANES], dtype=i),
        np.zeros((0, 3), dtype=i), 3, False)
    as_int = [int.from_bytes(r.tobytes(), "little") for r in live_in]
    assert as_int == [0, 1 << 70, 1 << 70 | 1 << 130]
    assert [int.from_bytes(r.tobytes(), "little") for r in whole] == [
        1 << 70, 1 << 70 | 1 << 130, 0]
    assert not parked.any() and live_out.shape == (3, 3)


def test_warm_up() -> None:
    dataflow.warm_up()
