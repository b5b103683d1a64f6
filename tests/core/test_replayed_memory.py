"""The memory a kernel without ordered atomics leaves, as the checker derives it
(`verdict._replayed_memory`, which works on the log's columns at once), against a replay
entry by entry written from docs/semantics.md ("Agreement", R3 and R4): the ran
workitems' entries in the logs' order; a location no one stores is atomic-only, its
initial value plus every ran add, wrapped at its element type; any other location takes
each store as it comes and each add wrapped. Logs are drawn small, over two buffers of a
few locations, so locations stored, added, both, and touched only by workitems that did
not run all come up; values include the int64 extremes, so sums wrap."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from difftest.core.fullrun import FullRun, WriteLog
from difftest.core.ir.types import INTS, Type
from difftest.core.verdict import _Expect, _replayed_memory

NAMES = ["a", "b"]
SIZES = [3, 2]


def wrapped(v: int, ty: Type) -> int:
    """`v` at `ty`'s width, in storage form (a u64 as the int64 of its bits)."""
    v %= 1 << ty.bits
    if (ty.signed or ty.bits == 64) and v >= 1 << (ty.bits - 1):
        v -= 1 << ty.bits
    return v


def replay(full: FullRun, ran: list[bool]) -> _Expect:
    exp = _Expect({k: v.astype(np.int64) for k, v in full.initial.items()})
    rows = list(zip(*(c.tolist() for c in full.writes.columns()[:5])))
    stored = {(b, i) for _, b, i, _, a in rows if not a}
    for g, b, i, v, a in rows:
        if (b, i) not in stored:
            exp.atomic_locations.add((NAMES[b], i))
            exp.atomic.setdefault((NAMES[b], i), int(full.initial[NAMES[b]][i]))
    for g, b, i, v, a in rows:
        if not ran[g]:
            continue
        ty = full.elements[NAMES[b]]
        if (b, i) not in stored:
            exp.atomic[(NAMES[b], i)] = wrapped(exp.atomic[(NAMES[b], i)] + v, ty)
        elif a:
            exp.plain[NAMES[b]][i] = wrapped(int(exp.plain[NAMES[b]][i]) + v, ty)
        else:
            exp.plain[NAMES[b]][i] = v
    return exp


@st.composite
def runs(draw: st.DrawFn) -> tuple[FullRun, list[bool]]:
    n = draw(st.integers(1, 5))
    log = WriteLog(n, NAMES)
    small = st.one_of(st.integers(-2, 3), st.sampled_from((-(2**63), 2**63 - 1)))
    elements = {name: draw(st.sampled_from(INTS)) for name in NAMES}
    for _ in range(draw(st.integers(0, 12))):  # one access over some lanes each
        gids = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1)))
        b = draw(st.integers(0, 1))
        k = len(gids)
        index = [draw(st.integers(0, SIZES[b] - 1)) for _ in range(k)]
        values = [wrapped(draw(small), elements[NAMES[b]]) for _ in range(k)]
        log.add(np.array(gids), np.full(k, b), np.array(index), np.array(values),
                draw(st.booleans()))
    initial = {name: np.array([wrapped(draw(small), elements[name]) for _ in range(size)],
                              dtype=np.int64) for name, size in zip(NAMES, SIZES)}
    full = FullRun(n, n, [None] * n, log, initial, initial, elements=elements)
    return full, draw(st.lists(st.booleans(), min_size=n, max_size=n))


@settings(max_examples=800, deadline=None)
@given(runs())
def test_the_replayed_memory_is_the_replay_entry_by_entry(run: tuple[FullRun, list[bool]]
                                                         ) -> None:
    full, ran = run
    got, want = _replayed_memory(full, ran), replay(full, ran)
    assert got.atomic == want.atomic
    assert got.atomic_locations == want.atomic_locations
    assert {k: v.tolist() for k, v in got.plain.items()} == \
        {k: v.tolist() for k, v in want.plain.items()}


def test_a_location_stored_then_added_and_one_only_added() -> None:
    """Written out: workitem 0 adds 9 at a[0], stores 5 there (the add before it is
    overwritten), adds 3 and 255 (a u8 buffer: 263 wraps to 7); a[1] is only added to:
    4 by workitem 0, 2 by workitem 1, 6 by workitem 2, which did not run (10 + 6)."""
    log = WriteLog(3, ["a"])
    for g, i, v, atomic in [(0, 0, 9, True), (0, 0, 5, False), (0, 0, 3, True),
                            (0, 0, 255, True), (0, 1, 4, True), (1, 1, 2, True),
                            (2, 1, 6, True)]:
        log.add(np.array([g]), np.array([0]), np.array([i]), np.array([v]), atomic)
    initial = {"a": np.array([1, 10], dtype=np.int64)}
    exp = _replayed_memory(FullRun(3, 3, [None] * 3, log, initial, initial,
                                   elements={"a": Type.U8}), [True, True, False])
    assert exp.plain["a"].tolist() == [7, 10]
    assert exp.atomic == {("a", 1): 16}
    assert exp.atomic_locations == {("a", 1)}
