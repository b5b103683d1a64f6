"""The memory a kernel with ordered atomics leaves, as the checker derives it
(`verdict._replayed_memory`), against a plain replay written from docs/semantics.md
("Atomics that return"): each location's entries in the logs' order, cut into segments
(the whole location where no one stores it, else each epoch); a segment of one workitem
replayed in its program order, each atomic having returned what the location held; a
segment of several put in an order by `find_order`, unless a plain store is among them (a
race, which only a replay without the race rule meets: not ordered, the location left at
its last entry's value). Drawn logs are small and their
values few, so orders, disorders and locations shared or alone all come up."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from difftest.core.atomic_order import Edge, find_order
from difftest.core.fullrun import FRESH, RETURNED, FullRun, WriteLog
from difftest.core.verdict import _Expect, _replayed_memory

NAMES = ["a", "w"]  # "a" is an argument (it has an initial value), "w" a workgroup array
SIZES = [3, 2]


def replay(full: FullRun, ran: list[bool]) -> _Expect:
    exp = _Expect({k: v.astype(np.int64) for k, v in full.initial.items()})
    rows = [r for r in zip(*(c.tolist() for c in full.writes.columns())) if ran[r[0]]]
    for g, b, i, _, _, _, order, _ in rows:
        if order == FRESH:
            exp.disorder = (f"workitem {g} ran an atomic on {NAMES[b]}[{i}] but reported "
                            "no value it returned", [g], False)
            break
    locations: dict[tuple[int, int], list[tuple[int, int, int, bool, int]]] = {}
    for g, b, i, v, a, old, _, epoch in rows:
        locations.setdefault((b, i), []).append((g, epoch, v, a, old))
    for (b, i), entries in locations.items():
        name = NAMES[b]
        stored = not all(a for _, _, _, a, _ in entries)
        segments: list[list[tuple[int, int, int, bool, int]]] = []
        for e in entries:
            if segments and (not stored or segments[-1][-1][1] == e[1]):
                segments[-1].append(e)
            else:
                segments.append([e])
        cur = int(full.initial[name][i]) if name in full.initial else 0
        for seg in segments:
            if len({g for g, *_ in seg}) > 1 and not all(a for *_, a, _ in seg):
                cur = seg[-1][2]  # a race (a plain store met): not ordered, the last's
                continue
            if len({g for g, *_ in seg}) > 1:
                found = find_order(cur, [Edge(g, g // full.group_size, ep, old, v)
                                         for g, ep, v, _, old in seg])
                if found.end is None:
                    exp.unordered.add((name, i))
                    if exp.disorder is None:
                        exp.disorder = (f"{name}[{i}]: {found.why}",
                                        sorted({g for g, *_ in seg})[:8], found.undecided)
                    break
                cur = found.end
                continue
            for g, _, v, a, old in seg:
                if a and old != cur and exp.disorder is None:
                    exp.disorder = (f"workitem {g}'s atomic on {name}[{i}] returned {old} "
                                    f"but the location held {cur}", [g], False)
                cur = v
        if name in exp.plain and stored:
            exp.plain[name][i] = cur
        elif name in exp.plain:
            exp.atomic[(name, i)] = cur
            exp.atomic_locations.add((name, i))
    return exp


@st.composite
def ordered_runs(draw: st.DrawFn) -> tuple[FullRun, list[bool]]:
    n = draw(st.integers(1, 6))
    group = draw(st.integers(1, 3))
    synchronises = draw(st.booleans())
    log = WriteLog(n, NAMES, epochs=synchronises)
    # few values, so orders and disorders both come up, and the int64 extremes
    small = st.one_of(st.integers(-1, 3), st.sampled_from((-(2**63), 2**63 - 1)))
    for g in range(n):
        epoch = 0
        for _ in range(draw(st.integers(0, 4))):
            b = draw(st.integers(0, 1))
            atomic = draw(st.booleans())
            order = (FRESH if draw(st.integers(0, 19)) == 0 else RETURNED) if atomic else 0
            if synchronises:
                epoch += draw(st.integers(0, 1))
            log.add(np.array([g]), np.array([b]), np.array([draw(st.integers(0, SIZES[b] - 1))]),
                    np.array([draw(small)]), atomic,
                    epochs=np.array([epoch]) if synchronises else None,
                    old=np.array([draw(small)]), order=np.array([order], dtype=np.int8))
    initial = {"a": np.array([draw(small) for _ in range(SIZES[0])], dtype=np.int64)}
    full = FullRun(n, group, [None] * n, log, initial, initial, group=group,
                   synchronises=synchronises, ordered=True)
    return full, draw(st.lists(st.booleans(), min_size=n, max_size=n))


@settings(max_examples=600, deadline=None)
@given(ordered_runs())
def test_ordered_memory_is_the_plain_replay(run: tuple[FullRun, list[bool]]) -> None:
    full, ran = run
    got, want = _replayed_memory(full, ran), replay(full, ran)
    assert got.disorder == want.disorder
    assert got.unordered == want.unordered
    assert got.atomic == want.atomic
    assert got.atomic_locations == want.atomic_locations
    assert {k: v.tolist() for k, v in got.plain.items()} == \
        {k: v.tolist() for k, v in want.plain.items()}


def test_a_location_shared_and_one_alone() -> None:
    """Written out: workitem 0 alone at a[0] (its atomic returned 5, where a[0] held 1),
    workitems 0 and 1 adding 1 at a[1] in an order (returned 0 then 1, from 0): the
    disorder named is a[0]'s, a[1] ends at 2."""
    log = WriteLog(2, NAMES)
    for g, i, v, old in [(0, 0, 6, 5), (0, 1, 1, 0), (1, 1, 2, 1)]:
        log.add(np.array([g]), np.array([0]), np.array([i]), np.array([v]), True,
                old=np.array([old]), order=np.array([RETURNED], dtype=np.int8))
    initial = {"a": np.array([1, 0, 7], dtype=np.int64)}
    exp = _replayed_memory(FullRun(2, 2, [None, None], log, initial, initial,
                                   ordered=True), [True, True])
    assert exp.disorder == ("workitem 0's atomic on a[0] returned 5 but the location held 1",
                            [0], False)
    assert exp.atomic == {("a", 0): 6, ("a", 1): 2}
