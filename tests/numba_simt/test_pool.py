"""numba-simt's buffer pool (seed 004): each mechanism on its own output (offsets, the
mapping's backing, the items' states), a stateful test of the whole API against a plain
model, and host programs through the public target."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from difftest.core.case import case_from_json
from difftest.campaign.runner import check_case
from generators.schedules import schedule_by_number
from targets.numba_simt import mutants
from targets.numba_simt.runtime.pool import FOR_PROMOTING, MAPPED_WRITE, Pool
from targets.numba_simt.target import NumbaSimtTarget
from targets.numba_simt.runtime.trampoline import relocate_waiting

from ..conftest import EXAMPLES


def _pool_with(*lengths: int, on: tuple[str, ...] = ()) -> tuple[Pool, list[Any]]:
    pool = Pool(mutants=mutants.Mutants.of(on))
    items = [pool.create(n, 64) for n in lengths]
    for k, item in enumerate(items):
        pool.write(item, 0, np.arange(item.length) + 100 * (k + 1))
    pool.promote(items)
    return pool, items


# ------------------------------------------------------------------- the mechanisms


def test_growth_moves_items_already_in_the_pool() -> None:
    pool, (a, b) = _pool_with(8, 8)
    storage, b_start, grown = pool.storage, b.start, pool.grown
    pool.free(a)
    c = pool.create(40, 64)
    pool.promote([b, c])
    assert pool.storage is not storage and pool.grown == grown + 1
    assert b.start != b_start  # moved: growth compacts, never only appends
    assert pool.read(b).tolist() == list(range(200, 208))
    assert pool.read(c).tolist() == [0] * 40


def test_allocating_past_the_end_grows_and_moves_every_item() -> None:
    pool, items = _pool_with(5, 7)
    before = [i.start for i in items]
    size = len(pool.storage)
    fresh, moves = pool.allocate(len(pool.storage))  # cannot fit: the pool grows
    assert len(pool.storage) > size and fresh.start == 0
    assert all(i.start != b for i, b in zip(items, before))  # every old item moved
    assert moves == {b: i.start for i, b in zip(items, before)}
    pool.release_allocations()
    assert fresh not in pool.items


def test_relocating_a_frame_touches_only_its_reference_slots() -> None:
    # frame: gid, reason, ip, trips, one reference-bitmap word (slots 0 and 2), 3 values
    frame = np.array([0, 6, 0, 0, 0b101, 16, 16, 32], dtype=np.int64)
    relocate_waiting(frame[None], {16: 48, 32: 64}, 0, 3)
    assert frame.tolist() == [0, 6, 0, 0, 0b101, 48, 16, 64]  # slot 1: a plain 16, kept
    relocate_waiting(frame[None], {48: 80}, 0, 3,
                     mutants.Mutants.of(["stale-frame-reference"]))
    assert frame[5] == 48  # the mutant leaves saved frames alone


def test_defragmenting_in_place_moves_items_down() -> None:
    pool, (a, b, c) = _pool_with(4, 4, 4)
    size = len(pool.storage)
    pool.free(a)
    assert pool.fragmented
    d = pool.create(2, 64)
    pool.promote([d])
    assert len(pool.storage) == size and not pool.fragmented
    assert (b.start, c.start, d.start) == (0, 4, 8)
    assert pool.read(c).tolist() == [300, 301, 302, 303]


def test_a_mapping_points_at_the_items_own_buffer_never_the_pool() -> None:
    pool, (a, b) = _pool_with(4, 4)
    m = pool.map(a, "read")
    assert not np.shares_memory(m.view, pool.storage)
    assert a.in_pool  # a read mapping keeps the item in the pool, with a copy
    w = pool.map(b, "write")
    assert not np.shares_memory(w.view, pool.storage)
    pool2, (x,) = _pool_with(4, on=("map-without-demote",))
    assert np.shares_memory(pool2.map(x, "read").view, pool2.storage)


def test_a_read_mapping_shows_what_a_launch_wrote() -> None:
    pool, (a,) = _pool_with(4)
    m = pool.map(a, "read")
    pool.promote([a])
    pool.storage[a.start:a.start + 4] += 1  # the launch
    pool.after_launch()
    assert m.view.tolist() == [101, 102, 103, 104]


def test_write_mapping_demotes_and_unmap_marks_for_promoting() -> None:
    pool, (a, b) = _pool_with(4, 4)
    m = pool.map(a, "write")
    assert not a.in_pool and a.status & MAPPED_WRITE and pool.fragmented
    m.view[0] = 7
    pool.unmap(m)
    assert a.status & FOR_PROMOTING
    pool.promote([b])  # not bound, but marked: promoted too
    assert a.in_pool and pool.read(a).tolist() == [7, 101, 102, 103]


def test_grow_loses_item_drops_a_bound_item_already_in_the_pool() -> None:
    pool, (a,) = _pool_with(16, on=("grow-loses-item",))
    c = pool.create(40, 64)
    pool.promote([a, c])
    assert pool.read(a).tolist() == [0] * 16


def test_promote_before_unmap_puts_a_write_mapped_item_in_the_pool() -> None:
    for on in ((), ("promote-before-unmap",)):
        pool, (a, b) = _pool_with(4, 4, on=on)
        m = pool.map(a, "write")
        pool.promote([b])
        assert a.in_pool == bool(on)
        m.view[1] = 9
        pool.unmap(m)
        pool.promote([b])
        assert (pool.read(a)[1] == 9) == (not on)


def test_fragmented_flag_stale_places_an_item_over_another() -> None:
    pool, (a, b) = _pool_with(4, 4, on=("fragmented-flag-stale",))
    pool.free(a)
    assert not pool.fragmented
    c = pool.create(4, 64)
    pool.promote([c])
    assert c.start == b.start  # on top of b
    assert pool.read(b).tolist() == [0] * 4


def test_free_wrong_item_unlinks_the_next_one() -> None:
    pool, (a, b) = _pool_with(4, 4, on=("free-wrong-item",))
    pool.free(a)
    assert not b.in_pool and pool.read(b).tolist() == [0] * 4


# -------------------------------------------------------------- the API, stateful


#: element kinds (isa.kind: a width, plus 256 for unsigned), 64-bit ones first
_KINDS = st.sampled_from((64, 32, 64 + 256, 32 + 256, 16, 16 + 256, 8, 8 + 256))
#: host values: small ones, and some past a narrower kind's range
_HOST_VALUES = st.one_of(st.integers(-50, 50),
                         st.sampled_from((200, -129, 40000, -40000, 2**31, 2**32 + 5)))


def _stored(value: int, kind: int) -> int:
    """A host value as an element of `kind` holds it (its storage form), worked out in
    plain integers: the low bits, sign- or zero-extended (a 64-bit kind, u64 too, as
    its int64 bits: the value itself here)."""
    width = kind & 255
    if width == 64:
        return value
    low = value % (1 << width)
    return low - (1 << width) if not kind & 256 and low >> (width - 1) else low


class PoolAgainstModel(RuleBasedStateMachine):
    """The pool's host API in any order against a dict of arrays; a launch adds 1 to every
    element of its bound buffers (what the machine would write through the table)."""

    switched_on = mutants.NONE  # a subclass switches some on

    def __init__(self) -> None:
        super().__init__()
        self.pool = Pool(mutants=self.switched_on)
        self.items: dict[str, Any] = {}
        self.model: dict[str, np.ndarray] = {}
        self.maps: dict[str, Any] = {}  # mapping name -> (buffer, Mapping)
        self.count = 0

    def _mode(self, name: str) -> str | None:
        for buf, m in self.maps.values():
            if buf == name:
                return str(m.mode)
        return None

    @rule(length=st.integers(1, 24), data=st.data())
    def create(self, length: int, data: st.DataObject) -> None:
        self.count += 1
        name = f"b{self.count}"
        self.items[name] = self.pool.create(length, data.draw(_KINDS))
        self.model[name] = np.zeros(length, dtype=np.int64)
        if data.draw(st.booleans()):
            vals = np.arange(length) + 10 * self.count
            self.pool.write(self.items[name], 0, vals)
            self.model[name][:] = [_stored(int(v), self.items[name].kind) for v in vals]

    @precondition(lambda self: self.items)
    @rule(data=st.data())
    def map(self, data: st.DataObject) -> None:
        free = sorted(n for n in self.items if self._mode(n) is None)
        if free:
            name = data.draw(st.sampled_from(free))
            mode = data.draw(st.sampled_from(["read", "write"]))
            self.count += 1
            m = self.pool.map(self.items[name], mode)
            self.maps[f"m{self.count}"] = (name, m)
            assert m.read().tolist() == self.model[name].tolist(), "a new mapping is stale"

    @precondition(lambda self: self.maps)
    @rule(data=st.data())
    def through_mapping(self, data: st.DataObject) -> None:
        key = data.draw(st.sampled_from(sorted(self.maps)))
        name, m = self.maps[key]
        assert m.read().tolist() == self.model[name].tolist(), "a stale mapping"
        if m.mode == "write":
            i = data.draw(st.integers(0, len(m.view) - 1))
            value = data.draw(st.integers(-50, 50))
            m.write(i, np.array([value]))
            self.model[name][i] = value

    @precondition(lambda self: self.items)
    @rule(data=st.data())
    def write(self, data: st.DataObject) -> None:
        """A host write (not through a mapping) to a buffer not mapped for writing: a
        read mapping of it shows the new contents too."""
        ok = sorted(n for n in self.items if self._mode(n) != "write")
        if ok:
            name = data.draw(st.sampled_from(ok))
            i = data.draw(st.integers(0, len(self.model[name]) - 1))
            value = data.draw(_HOST_VALUES)
            self.pool.write(self.items[name], i, np.array([value]))
            self.model[name][i] = _stored(value, self.items[name].kind)

    @precondition(lambda self: self.maps)
    @rule(data=st.data())
    def unmap(self, data: st.DataObject) -> None:
        key = data.draw(st.sampled_from(sorted(self.maps)))
        self.pool.unmap(self.maps.pop(key)[1])

    @precondition(lambda self: self.maps)
    @rule(data=st.data())
    def unmap_and_free(self, data: st.DataObject) -> None:
        """A buffer unmapped and freed with no launch between: never back in the pool."""
        key = data.draw(st.sampled_from(sorted(self.maps)))
        name, m = self.maps.pop(key)
        self.pool.unmap(m)
        self.pool.free(self.items.pop(name))
        del self.model[name]

    @precondition(lambda self: self.items)
    @rule(data=st.data())
    def launch(self, data: st.DataObject) -> None:
        ok = sorted(n for n in self.items if self._mode(n) != "write")
        bound = data.draw(st.lists(st.sampled_from(ok), unique=True)) if ok else []
        items = [self.items[n] for n in bound]
        self.pool.promote(items)
        for (start, length, _), n in zip(self.pool.table(items), bound):
            self.pool.storage[start:start + length] += 1  # through the launch's table
            self.model[n] += 1
        self.pool.after_launch(items)

    @precondition(lambda self: len(self.pool.storage) < 512)  # each growth doubles it
    @rule(extra=st.integers(1, 8))
    def grow(self, extra: int) -> None:
        """A buffer bigger than the free space, promoted: the pool grows and moves."""
        self.count += 1
        name = f"g{self.count}"
        self.items[name] = self.pool.create(len(self.pool.storage) + extra, 64)
        self.model[name] = np.zeros(self.items[name].length, dtype=np.int64)
        grown = self.pool.grown
        self.pool.promote([self.items[name]])
        assert self.pool.grown == grown + 1

    @precondition(lambda self: self.items)
    @rule(data=st.data())
    def launch_that_allocates(self, data: st.DataObject) -> None:
        """A launch whose lanes alloc() on the host while other lanes' saved frames wait,
        holding references to bound items (and plain values) at the positions their
        reference bitmaps mark: after every allocation each frame's references name the
        items' current bases, its other values unchanged."""
        ok = sorted(n for n in self.items if self._mode(n) != "write")
        bound = data.draw(st.lists(st.sampled_from(ok), min_size=1, unique=True)) if ok else []
        if not bound:
            return
        self.pool.promote([self.items[n] for n in bound])
        frames, expect = [], []
        for _ in range(data.draw(st.integers(1, 3))):
            slots = data.draw(st.lists(st.one_of(st.sampled_from(bound),
                                                 st.integers(0, 40)), min_size=1, max_size=5))
            bitmap = sum(1 << p for p, s in enumerate(slots) if isinstance(s, str))
            values = [self.items[s].start if isinstance(s, str) else s for s in slots]
            frames.append(np.array([0, 0, 0, 0, bitmap] + values, dtype=np.int64))
            expect.append(slots)
        for size in data.draw(st.lists(st.integers(0, 40), min_size=1, max_size=3)):
            _, moves = self.pool.allocate(size)
            for frame, slots in zip(frames, expect):
                relocate_waiting(frame[None], moves, 0, len(slots), self.switched_on)
                want = [self.items[s].start if isinstance(s, str) else s for s in slots]
                assert frame[5:].tolist() == want, "a stale reference in a saved frame"
        self.pool.release_allocations()

    @precondition(lambda self: self.items)
    @rule(data=st.data())
    def read_or_free(self, data: st.DataObject) -> None:
        ok = sorted(n for n in self.items if self._mode(n) != "write")
        if ok:
            name = data.draw(st.sampled_from(ok))
            # freed unread (a read makes its base current); a read mapping's buffer is read
            if self._mode(name) is None and data.draw(st.booleans()):
                self.pool.free(self.items.pop(name))
                del self.model[name]
                return
            assert self.pool.read(self.items[name]).tolist() == self.model[name].tolist(), \
                "a lost write"

    @invariant()
    def items_do_not_overlap(self) -> None:
        spans = sorted((i.start, i.start + i.length) for i in self.pool.items)
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert end <= start, "two items overlap in the pool"
        assert all(e <= len(self.pool.storage) for _, e in spans)


_STATEFUL = settings(max_examples=150, stateful_step_count=30, deadline=None,
                     database=None, suppress_health_check=list(HealthCheck),
                     report_multiple_bugs=False)


def test_the_pool_keeps_every_write_and_no_mapping_goes_stale() -> None:
    run_state_machine_as_test(PoolAgainstModel, settings=_STATEFUL)


# free-stale-base is left out: this machine's runs find it or not by seed (a free must
# follow a compaction with no read between); host_program.py and its corpus entry flip it
@pytest.mark.parametrize("mutant", [m for m in mutants.NAMES
                                    if mutants.REGISTRY[m].mechanism == "pool"
                                    and m != "free-stale-base"]
                         + ["stale-frame-reference"])
def test_the_stateful_test_finds_each_pool_mutant(mutant: str) -> None:
    class Mutated(PoolAgainstModel):
        switched_on = mutants.Mutants.of([mutant])

    with pytest.raises(AssertionError):
        run_state_machine_as_test(Mutated, settings=settings(
            _STATEFUL, max_examples=3000, derandomize=True,
            phases=[Phase.generate]))  # found is enough: no shrinking


# ------------------------------------------------------------ through the target


def test_the_host_program_examples_agree_and_each_pool_mutant_flips_one() -> None:
    """host_program.py and host_program_pairs.py (the states the first leaves out)."""
    from difftest.core.kernelfile import load_case

    cases = [load_case(EXAMPLES / f) for f in ("host_program.py", "host_program_pairs.py")]
    target = NumbaSimtTarget()
    assert all(check_case(c, target).verdict.agree for c in cases)
    for m in mutants.NAMES:
        if mutants.REGISTRY[m].mechanism == "pool":
            assert any(not check_case(c, target, options={"mutants": [m]}).verdict.agree
                       for c in cases), m


def test_the_alloc_example_agrees_and_stale_frame_reference_flips_it() -> None:
    from difftest.core.kernelfile import load_case
    case = load_case(EXAMPLES / "alloc_relocation.py")
    target = NumbaSimtTarget()
    diag = target.run(case, {}, {}).diagnostics
    assert diag["allocations"] == 12 and diag["pool_grown"] >= 1
    flipped = 0
    for number in range(12):
        schedule = schedule_by_number(case, number)
        assert check_case(case, target, schedule).verdict.agree, schedule
        mutant = check_case(case, target, schedule, {"mutants": ["stale-frame-reference"]})
        flipped += not mutant.verdict.agree
    assert flipped >= 6  # a move with frames waiting is the common case here


def test_binding_a_buffer_mapped_for_writing_is_an_error_on_both_sides() -> None:
    case = case_from_json({
        "kernel": "def k(out: Buffer[i32]):\n    out[gid()] = 1\n", "entry": "k",
        "launch": {"n": 2, "wave": 2}, "args": {"out": {"dtype": "i32", "data": [0, 0]}},
        "host": [{"op": "map", "buffer": "out", "mode": "write", "as": "w"},
                 {"op": "launch"}, {"op": "read", "buffer": "out"}]})
    res = check_case(case, NumbaSimtTarget())
    assert res.verdict.agree
    assert res.outcome.host == {"observations": [], "error": [1, "mapped_for_writing"]}


def test_an_allocation_relocates_only_the_running_lanes_references() -> None:
    """A resume owns one lane of the host's W rows of registers. When the pool moves,
    the references of that lane are relocated; the other rows are not references of
    this run (zeros, say, where an item's old base is 0) and stay as they are: a lane
    resumed later starts from them (its unrestored registers 0)."""
    from difftest.core.kernelfile import load_case
    from targets.numba_simt.runtime import host_loop
    from targets.numba_simt.runtime.trampoline import Host
    from targets.numba_simt.target import compile_case

    case = load_case(str(EXAMPLES / "alloc_relocation.py"))
    compiled = compile_case(case, {})
    W = 8
    host = Host(compiled, np.zeros(64, dtype=np.int64), np.array([[0, 8, 32]]),
                np.array([0, 0]), 16, W, 100,
                allocate=lambda size: (40, {0: 16}, np.zeros(64, dtype=np.int64)))
    refs = host.ref_vregs
    assert len(refs), "the kernel holds references in registers"
    host_loop.start(host.state, 0, 0, W, 1, 2, 0b10, 0b10)  # a resume of lane 1
    host.regs[:] = 0
    assert host.allocate(4) == 40
    assert (host.regs[1, refs] == 16).all()  # lane 1's references moved with the item
    others = np.delete(np.arange(W), 1)
    assert (host.regs[np.ix_(others, refs)] == 0).all()
