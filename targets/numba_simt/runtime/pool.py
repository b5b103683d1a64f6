"""numba-simt's device memory: one pool that grows by moving (seed 004, r600g's compute
memory pool; docs/semantics.md, "Host programs", has why this design).

The machine sees one int64 array (`storage`) and a table of (base, length, kind) rows; a
buffer is an `Item` whose `start` is its base in the pool, or -1 when it is not in the
pool. Every item also has an intermediate buffer of its own (`host`), where it lives
while out of the pool and where every mapping points -- never into the pool, whose storage
growth replaces (the mapping bug r600g's fix removed).

Item states as in the driver: in the pool or not; mapped for reading / writing; marked
for promoting (bound to the next launch) / demoting. A launch promotes the items bound
to it: the pool grows when they do not fit (new storage, every item copied in,
compacted: bases after a hole change) or, when it has holes, defragments in place (the
same), then copies each promoted item in; a launch that takes nothing in moves nothing.
Mapping demotes: for writing, the item leaves the pool (the pool becomes fragmented);
for reading, it stays, with a copy in its own buffer that every launch refreshes, so the
mapping keeps showing the current contents. Unmapping a write mapping marks the item for
promoting; its own buffer is the truth until then.

The pool's mutants (`mutants.py`, mechanism "pool") live here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..mutants import NONE, Mutants
from ..isa import UNSIGNED

MAPPED_READ, MAPPED_WRITE, FOR_PROMOTING, FOR_DEMOTING = 1, 2, 4, 8
MIN_SIZE = 16
ALIGN = 16  # words


@dataclass(eq=False)
class Item:
    id: int
    length: int
    kind: int  # of its elements (isa.kind: width, plus UNSIGNED)
    start: int = -1  # base in the pool, -1: not in the pool
    host: np.ndarray | None = None  # its own buffer (int64), None: only in the pool
    status: int = 0
    # what the pair mutants (docs/hunt.md, "Pairs") get wrong: whether it was ever in the
    # pool or mapped (a buffer only created and written), and its base as the last
    # launch that bound it saw it (a growth or compaction since moves it elsewhere)
    placed: bool = False
    mapped_ever: bool = False
    base_seen: int = -1
    # its pool words before the launch that last bound it ran, while no host step has
    # acted on it since: what a step that does not wait for that launch would see
    before_launch: np.ndarray | None = None

    @property
    def in_pool(self) -> bool:
        return self.start != -1

    @property
    def span(self) -> int:
        """Words it takes in the pool: at least one, so no two items share a base (a
        buffer reference is its base)."""
        return max(1, self.length)


@dataclass(eq=False)
class Mapping:
    """What a host mapping holds: the item, and the array the host reads and writes."""

    item: Item
    mode: str
    view: np.ndarray
    # write-mapping-reads-zeros: the words written through it (a write-only staging area)
    written: np.ndarray | None = None

    def read(self) -> np.ndarray:
        """What reading through the mapping shows."""
        if self.written is not None:  # the bug: words not written through it read as 0
            return np.where(self.written, self.view, 0)
        return self.view.copy()

    def write(self, offset: int, data: np.ndarray) -> None:
        self.view[offset:offset + len(data)] = data
        if self.written is not None:
            self.written[offset:offset + len(data)] = True


class Pool:
    def __init__(self, size: int = MIN_SIZE, mutants: Mutants = NONE) -> None:
        self.mutants = mutants
        self.storage = np.zeros(size, dtype=np.int64)
        self.items: list[Item] = []  # in the pool, by start
        self.outside: list[Item] = []  # not in the pool
        self.fragmented = False
        self.grown = 0  # how many times the storage was replaced
        self.allocated: list[Item] = []  # made by alloc() in the launch in progress
        self.stale_rows: dict[int, int] = {}  # launch-stale-base: item id -> the base it gets
        self.late: list[tuple[int, np.ndarray]] = []  # free-without-fence: (base, words)
        self._next_id = 0

    # ------------------------------------------------------------------ host API

    def create(self, length: int, kind: int) -> Item:
        item = Item(self._next_id, length, kind, host=np.zeros(length, dtype=np.int64))
        self._next_id += 1
        self.outside.append(item)
        return item

    def create_from(self, arrays: dict[str, np.ndarray],
                    kinds: dict[str, int] | None = None) -> dict[str, Item]:
        """An item per array (a case's buffer arguments), holding its contents; `kinds`
        gives each one's element kind (default: 32 for an int32 array, else 64)."""
        items = {}
        for name, data in arrays.items():
            kind = (kinds or {}).get(name, 32 if data.dtype == np.int32 else 64)
            items[name] = item = self.create(len(data), kind)
            assert item.host is not None  # its contents as made, not a host step's write
            item.host[:] = _wrap(data.astype(np.int64), item.kind)
        return items

    def contents(self, item: Item) -> np.ndarray:
        """What the item holds, read as the harness reads a run's result (not a host
        step: a host read's bugs show only where a program reads)."""
        if item.in_pool:
            return self.storage[item.start:item.start + item.length].copy()
        assert item.host is not None
        return item.host.copy()

    def write(self, item: Item, offset: int, data: np.ndarray) -> None:
        """A host write (not through a mapping): into wherever the item lives now."""
        data = np.asarray(data, dtype=np.int64)
        if not self.mutants.on("host-write-unwrapped"):
            data = _wrap(data, item.kind)
        if self.mutants.on("write-unplaced-dropped") and _fresh(item):
            return  # the bug: written to a device copy that does not exist yet
        if self.mutants.on("write-pending-dropped") and _pending(item):
            return  # the bug: written to the pool copy it is about to get, not its own
        if self.mutants.on("write-without-fence") and _unfenced(item):
            return  # the bug: the launch's results, landing after it, overwrite it
        item.before_launch = None
        if item.in_pool:
            start = self._base(item, "write-stale-base")
            self.touch(item)
            self.storage[start + offset:start + offset + len(data)] = data
            # a read mapping's copy shows it too (the mutant: straight into the pool,
            # as a direct transfer, and the open read mapping keeps the old contents)
            if item.host is not None and not self.mutants.on("write-misses-read-copy"):
                item.host[offset:offset + len(data)] = data
        else:
            assert item.host is not None
            item.host[offset:offset + len(data)] = data

    def read(self, item: Item) -> np.ndarray:
        if self.mutants.on("read-unplaced-zeros") and _fresh(item):
            return np.zeros(item.length, dtype=np.int64)  # "a buffer never launched: 0s"
        if self.mutants.on("read-pending-zeros") and _pending(item):
            return np.zeros(item.length, dtype=np.int64)  # "in flight to the pool: 0s"
        if self.mutants.on("read-without-fence") and _unfenced(item):
            assert item.before_launch is not None
            return item.before_launch.copy()  # the bug: read before the launch ended
        item.before_launch = None  # a read waits for the launch: a fence
        if item.in_pool:
            start = self._base(item, "read-stale-base")
            self.touch(item)
            if self.mutants.on("read-drops-read-copy") and item.status & MAPPED_READ:
                # the bug: the read maps and unmaps the buffer, and that unmap releases the
                # copy an open read mapping shows: no launch or write refreshes it again
                item.host = None
            return self.storage[start:start + item.length].copy()
        assert item.host is not None
        return item.host.copy()

    def map(self, item: Item, mode: str) -> Mapping:
        if self.mutants.on("map-without-demote") and item.in_pool:
            # the bug: the mapping points into the pool's current storage
            item.status |= MAPPED_READ if mode == "read" else MAPPED_WRITE
            return Mapping(item, mode, self.storage[item.start:item.start + item.length])
        if self.mutants.on("map-unplaced-fresh") and _fresh(item):
            item.host = np.zeros(item.length, dtype=np.int64)  # the bug: a fresh buffer
        item.mapped_ever = True
        if self.mutants.on("map-without-fence") and _unfenced(item):
            assert item.before_launch is not None  # the bug: copied out before it ended
            self.storage[item.start:item.start + item.length] = item.before_launch
        item.before_launch = None
        if item.in_pool:
            item.status |= FOR_DEMOTING
            # the bug of unmap-read-keeps-copy: a copy kept from an earlier read mapping is
            # taken for current, though launches since may have written the buffer
            kept = self.mutants.on("unmap-read-keeps-copy") and item.host is not None
            self._demote(item, keep_in_pool=(mode == "read"), copy=not kept)
        self.touch(item)
        item.status |= MAPPED_READ if mode == "read" else MAPPED_WRITE
        assert item.host is not None
        if self.mutants.on("map-after-unmap-stale") and item.status & FOR_PROMOTING:
            # the bug: what the last mapping wrote has not reached the buffer yet (it
            # waits for the next launch to promote it), and the new mapping does not
            # see it: it gets a fresh buffer of zeros
            return Mapping(item, mode, np.zeros(item.length, dtype=np.int64))
        if mode == "write" and self.mutants.on("write-mapping-not-flushed"):
            return Mapping(item, mode, item.host.copy())  # the bug: a copy never written back
        if mode == "write" and self.mutants.on("write-mapping-reads-zeros"):
            return Mapping(item, mode, item.host, np.zeros(item.length, dtype=bool))
        return Mapping(item, mode, item.host)

    def unmap(self, mapping: Mapping) -> None:
        item = mapping.item
        item.before_launch = None
        if mapping.mode == "write":
            item.status &= ~MAPPED_WRITE
            if self.mutants.on("unmap-write-releases-copy"):
                # the bug: its own buffer released as a read mapping's copy is, though it
                # holds the only contents: the item comes back as a fresh one
                item.host = np.zeros(item.length, dtype=np.int64)
            if not item.in_pool:
                item.status |= FOR_PROMOTING  # its own buffer is the truth until then
        else:
            item.status &= ~MAPPED_READ
            if item.in_pool:
                if self.mutants.on("unmap-stale-base") and item.host is not None:
                    # the bug: the copy is written back where the item was when seen
                    at = self._base(item, "unmap-stale-base")
                    self.storage[at:at + item.length] = item.host
                if not self.mutants.on("unmap-read-keeps-copy"):
                    item.host = None  # the copy that served the mapping
        self.touch(item)

    def free(self, item: Item) -> None:
        if (self.mutants.on("free-unplaced-last") and _fresh(item)
                or self.mutants.on("free-pending-last") and _pending(item)) and self.items:
            # the bug: the pool's list looked up by the item's base, -1: its last entry
            self._lose(self.items[-1])
        if self.mutants.on("free-without-fence") and _unfenced(item):
            # the bug: freed before the launch that bound it ended; its results land at
            # the next launch, after the pool has moved other items into those words
            self.late.append((item.start, self.contents(item)))
        if item.in_pool and self.mutants.on("free-stale-base"):
            at = self._base(item, "free-stale-base")  # scrubbed where it was last seen
            self.storage[at:at + item.length] = 0
        if item.in_pool:
            k = self.items.index(item)
            if self.mutants.on("free-wrong-item") and k + 1 < len(self.items):
                self._lose(self.items[k + 1])  # the bug: its successor unlinked instead
            else:
                self.items.pop(k)
                item.start = -1
                self._set_fragmented()
        if item in self.outside:
            self.outside.remove(item)
        item.host = None

    def _lose(self, victim: Item) -> None:
        """A free mutant's victim: unlinked from the pool's list, its contents gone."""
        self.items.remove(victim)
        victim.start, victim.host = -1, np.zeros(victim.length, dtype=np.int64)
        victim.before_launch = None
        self.outside.append(victim)
        self._set_fragmented()

    # ------------------------------------------------------------------ launches

    def promote(self, bound: list[Item]) -> None:
        """Before a launch: every bound item in the pool, at its (possibly new) base."""
        # the bug of launch-pending-zeros: a bound item already marked (by an unmap) is
        # taken for one in the pool, so its contents are never copied in
        marked = {i for i in bound if _pending(i)} \
            if self.mutants.on("launch-pending-zeros") else set()
        # the bug of launch-stale-base: a buffer's table row is cached from the last
        # launch that bound it, so one the pool moved since gets its old base
        self.stale_rows = {i.id: i.base_seen for i in bound if i.in_pool
                           and 0 <= i.base_seen != i.start} \
            if self.mutants.on("launch-stale-base") else {}
        for item in bound:
            item.status |= FOR_PROMOTING
        waited = {i.id: i.before_launch for i in bound} \
            if self.mutants.on("launch-without-fence") else {}
        # an item mapped for writing waits for its unmap, even if marked (unmapped, then
        # mapped again before a launch): its own buffer is the truth until then
        promote = [i for i in self.outside
                   if i.status & FOR_PROMOTING and not i.status & MAPPED_WRITE]
        if self.mutants.on("promote-before-unmap"):
            promote += [i for i in self.outside
                        if i.status & MAPPED_WRITE and i not in promote]
        used = sum(i.span for i in self.items)
        need = used + sum(i.span for i in promote)
        if need > len(self.storage):
            self._grow(-(-need // ALIGN) * ALIGN)  # as r600g: what is needed, aligned
        elif self.fragmented and promote:  # as r600g: nothing to take in, nothing moves
            self._defragment()
        end = self.items[-1].start + self.items[-1].span if self.items else 0
        if self.mutants.on("fragmented-flag-stale") and not self.fragmented:
            end = used  # trusts the flag: no holes, so the items end at their total size
        for item in promote:
            assert item.host is not None
            item.start = end
            if self.mutants.on("launch-uploads-zeros") and _fresh(item) or item in marked:
                self.storage[end:end + item.length] = 0  # the bug: lazy allocation
            else:
                self.storage[end:end + item.length] = item.host
            item.placed, item.base_seen = True, end
            end += item.span
            self.outside.remove(item)
            self.items.append(item)
            if not item.status & (MAPPED_READ | MAPPED_WRITE):
                item.host = None
        self.items.sort(key=lambda i: i.start)
        for at, words in self.late:
            self.storage[at:at + len(words)] = words
        self.late = []
        for item in self.items:
            item.status &= ~FOR_PROMOTING
        for item in self.items + self.outside:
            item.before_launch = None
        for item in bound:
            if item.in_pool:
                item.base_seen = item.start
                snap = waited.get(item.id)
                if snap is not None:  # the bug: runs before the last launch's writes land
                    self.storage[item.start:item.start + item.length] = snap
                item.before_launch = self.storage[item.start:item.start + item.length].copy()

    def allocate(self, length: int, kind: int = 32) -> tuple[Item, dict[int, int]]:
        """A kernel's `alloc()` (the host serving a deopted lane, mid-launch): a fresh
        zeroed item in the pool at once. When it does not fit, the pool grows: new storage
        with the new item at its bottom and the old contents copied above it, so *every*
        item moves (as a copying collector moves every survivor). Returns the item and
        the moves {old base: new base}: every reference held anywhere -- the launch's
        parameters, registers, saved frames -- must be relocated by them."""
        item = Item(self._next_id, length, kind, placed=True)
        self._next_id += 1
        end = self.items[-1].start + self.items[-1].span if self.items else 0
        moves: dict[int, int] = {}
        if end + item.span <= len(self.storage):
            item.start = end
        else:
            shift = -(-item.span // ALIGN) * ALIGN
            new = np.zeros(-(-(shift + end) // ALIGN) * ALIGN, dtype=np.int64)
            new[shift:shift + end] = self.storage[:end]
            for other in self.items:
                moves[other.start] = other.start + shift
                if other.base_seen == other.start:  # relocated as every reference is
                    other.base_seen += shift
                other.start += shift
            self.storage = new
            self.grown += 1
            item.start = 0
            if item.span < shift:
                self._set_fragmented()  # the hole between the new item and the old ones
        self.storage[item.start:item.start + item.span] = 0
        item.base_seen = item.start
        if moves:  # at 0, below every item it moved: `items` stays by start
            self.items.insert(0, item)
        else:
            self.items.append(item)
        self.allocated.append(item)
        return item, moves

    def release_allocations(self) -> None:
        """At the end of a launch: alloc()'s items are garbage."""
        for item in self.allocated:
            self.free(item)
        self.allocated = []

    def after_launch(self, bound: list[Item] | None = None) -> None:
        """A read mapping shows the current contents: refresh its copy (in place: the
        mapping holds that array)."""
        for item in self.items:
            if self.mutants.on("read-copy-not-refreshed") and item in (bound or []):
                continue  # the bug: a launch that wrote it leaves its mapping's copy as was
            if item.status & MAPPED_READ and item.host is not None:
                at = self._base(item, "refresh-stale-base")
                if self.mutants.on("read-copy-written-back") and item in (bound or []):
                    # the bug: the copy taken for the truth, written over what it ran
                    self.storage[item.start:item.start + item.length] = item.host
                    continue
                item.host[:] = self.storage[at:at + item.length]

    def table(self, items: list[Item]) -> np.ndarray:
        """The machine's buffer table for `items` (all in the pool). A kernel without
        buffers gets one empty row (a table is never empty), a valid one: length 0,
        32-bit, so no reference can reach anything through it."""
        rows = np.zeros((max(1, len(items)), 3), dtype=np.int64)
        rows[:, 2] = 32
        for k, item in enumerate(items):
            assert item.in_pool
            rows[k] = (self.stale_rows.get(item.id, item.start), item.length, item.kind)
        return rows

    # ------------------------------------------------------------------ internals

    def touch(self, item: Item) -> None:
        """A host step acted on the item: the base it saw is current again (the stale-base
        mutants' window is from a move to the next step on the item, as its pair's)."""
        item.base_seen = item.start

    def _base(self, item: Item, mutant: str) -> int:
        """Where the item is; with `mutant` on, where the last launch that bound it saw
        it (a relocation not propagated: r600g's stale addresses)."""
        if self.mutants.on(mutant) and item.base_seen >= 0:
            return item.base_seen
        return item.start

    def _demote(self, item: Item, keep_in_pool: bool, copy: bool = True) -> None:
        if copy:
            at = self._base(item, "map-stale-base")
            item.host = self.storage[at:at + item.length].copy()
        if not keep_in_pool:
            self.items.remove(item)
            item.start = -1
            self.outside.append(item)
            self._set_fragmented()
        item.status &= ~FOR_DEMOTING

    def _set_fragmented(self) -> None:
        if not self.mutants.on("fragmented-flag-stale"):
            self.fragmented = True

    def _grow(self, size: int) -> None:
        """New storage, every item copied in, compacted: bases change."""
        new = np.zeros(size, dtype=np.int64)
        at = 0
        for item in self.items:
            if not (self.mutants.on("grow-loses-item") and item.status & FOR_PROMOTING):
                new[at:at + item.length] = self.storage[item.start:item.start + item.length]
            item.start = at
            at += item.span
        self.storage = new
        self.fragmented = False
        self.grown += 1

    def _defragment(self) -> None:
        at = 0
        for item in self.items:  # by start: moving down never overwrites what follows
            self.storage[at:at + item.length] = self.storage[
                item.start:item.start + item.length].copy()
            item.start = at
            at += item.span
        self.storage[at:] = 0
        self.fragmented = False


def _unfenced(item: Item) -> bool:
    """Bound to the latest launch, no host step on it since, in the pool, not mapped."""
    return item.before_launch is not None and item.in_pool \
        and not item.status & (MAPPED_READ | MAPPED_WRITE)


def _pending(item: Item) -> bool:
    """Unmapped after writing, waiting for the next launch to take it into the pool (and
    not mapped again)."""
    return bool(item.status & FOR_PROMOTING) and not item.in_pool and not item.status & (
        MAPPED_READ | MAPPED_WRITE)


def _fresh(item: Item) -> bool:
    """Only created (and written): never in the pool, never mapped."""
    return not item.placed and not item.mapped_ever


def wrap(data: np.ndarray, kind: int) -> np.ndarray:
    """int64 values wrapped to an element kind: their low bits, sign- or zero-extended."""
    width = kind & 255
    if width == 64:
        return data
    if kind & UNSIGNED:
        return data & ((1 << width) - 1)
    sign = 1 << (width - 1)
    return ((data & ((1 << width) - 1)) ^ sign) - sign


_wrap = wrap
