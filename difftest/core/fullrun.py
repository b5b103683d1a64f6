"""What the oracle's full run holds: the contract between the oracle, which makes it, and
the checker (verdict.py), which reads it -- every workitem's fate, its write log, the
memory before and after, and who ran out of budget. Plain data with no oracle logic, so
the checker names its input's type without importing an oracle. A host program's run
(`HostRun`) holds the full run of the launch that ended it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

import numpy as np

from difftest.core.case import Case
from difftest.core.ir.types import Type
from difftest.core.options import out_of_budget
from difftest.core.outcome import (COMPLETED, FAULTED, ExceptionReport, Fault, Outcome,
                                   TargetError)


#: an entry's `order`: a store or a contribution to a sum (0); an atomic of a kernel
#: whose atomics are ordered (docs/semantics.md, "Atomics that return"), with the old
#: value the target reported (RETURNED) or none reported (FRESH: the oracle's own)
UNORDERED, RETURNED, FRESH = 0, 1, 2


class Write(NamedTuple):
    """One entry of a workitem's write log: a plain store or an atomic contribution (a
    named tuple: the oracle makes one per lane per store). An ordered atomic's `value`
    is what it leaves in the location given `old`, the value it returned."""

    buffer: str
    index: int  # type: ignore[assignment]  # shadows tuple.index, which no one calls
    value: int
    atomic: bool = False
    old: int = 0
    order: int = UNORDERED


class WriteLog(Sequence[list[Write]]):
    """The workitems' write logs: entry g is workitem g's `Write`s, in program order. The
    oracle keeps them as columns, one chunk per logged store or atomic (a `Write` per lane
    per store was the oracle's largest cost in the fuzz loop); the checker replays the
    columns (`columns`), and the lists are made only when something reads them.

    In a kernel that synchronises (`epochs`), a location may see plain stores of several
    workitems of a group, ordered by the barriers between them: each entry carries its
    group's epoch (barriers passed), and the columns come epoch by epoch, so replaying
    them in order is exact."""

    def __init__(self, n_items: int, names: list[str], epochs: bool = False) -> None:
        self.n = n_items
        self.names = names  # a buffer's number in the columns -> its name
        self.epochs = epochs
        self._chunks: list[tuple[np.ndarray, ...]] = []
        self._columns: tuple[np.ndarray, ...] | None = None
        self._lists: list[list[Write]] | None = None

    def add(self, gids: np.ndarray, buffers: np.ndarray, index: np.ndarray,
            values: np.ndarray, atomic: bool, epochs: np.ndarray | None = None,
            old: np.ndarray | None = None, order: np.ndarray | None = None) -> None:
        """One access's entries (arrays over its lanes; not changed afterwards), with each
        lane's epoch in a kernel that synchronises, and an ordered atomic's old values and
        orders (`Write`)."""
        assert (epochs is not None) == self.epochs, "epochs go with a synchronising kernel"
        k = len(gids)
        chunk = (gids, buffers, index, values, np.full(k, atomic, dtype=bool),
                 np.zeros(k, dtype=np.int64) if old is None else old,
                 np.zeros(k, dtype=np.int8) if order is None else order,
                 np.zeros(k, dtype=np.int64) if epochs is None else epochs)
        self._chunks.append(chunk)
        self._columns = self._lists = None

    def columns(self) -> tuple[np.ndarray, ...]:
        """(gid, buffer number, index, value, atomic, old, order, epoch) of every entry:
        epoch by epoch (in a kernel that synchronises), workitems ascending, each one's
        entries in program order."""
        if self._columns is None:
            if not self._chunks:
                empty = np.zeros(0, dtype=np.int64)
                return (empty, empty, empty, empty, np.zeros(0, dtype=bool), empty,
                        np.zeros(0, dtype=np.int8), empty)
            cols = [np.concatenate(c) for c in zip(*self._chunks)]
            if self.epochs:
                order = np.lexsort((cols[0], cols[7]))  # stable: program order kept
            else:
                order = np.argsort(cols[0], kind="stable")
            self._columns = tuple(c[order] for c in cols)
        return self._columns

    def reported(self) -> WriteLog:
        """The log with every ordered atomic's old value marked as reported (RETURNED):
        what a replay of exactly the values this run's atomics returned logs."""
        log = WriteLog(self.n, self.names, self.epochs)
        log._chunks = [(*c[:6], np.where(c[6] == FRESH, RETURNED, c[6]).astype(np.int8), c[7])
                       for c in self._chunks]
        return log

    def _made(self) -> list[list[Write]]:
        if self._lists is None:
            lists: list[list[Write]] = [[] for _ in range(self.n)]
            names = self.names
            for g, b, i, v, a, old, o, _ in zip(*(c.tolist() for c in self.columns())):
                lists[g].append(Write(names[b], i, v, a, old, o))
            self._lists = lists
        return self._lists

    @overload
    def __getitem__(self, g: int) -> list[Write]: ...

    @overload
    def __getitem__(self, g: slice) -> list[list[Write]]: ...

    def __getitem__(self, g: int | slice) -> list[Write] | list[list[Write]]:
        return self._made()[g]

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[list[Write]]:
        return iter(self._made())


@dataclass
class FullRun:
    """Every workitem run once, each faulting one stopped at its fault and each one past
    its trip budget stopped there (`exhausted`: their fate is None, but they neither
    completed nor faulted)."""

    n: int
    wave: int
    fates: list[Fault | None]  # None = completed (or exhausted)
    writes: WriteLog
    initial: dict[str, np.ndarray]
    final: dict[str, np.ndarray]
    exhausted: list[int] = field(default_factory=list)  # ascending gids
    budget_text: str = ""
    trips: list[int] = field(default_factory=list)  # loop trips each workitem ran
    # the first wave operation some wave ran with part of its lanes (diverged, returned,
    # faulted, out of budget or past n), as text: where the `uniform` reconvergence
    # model promises nothing (difftest.core.uniformity); None when there was none
    partial_wave_op: str | None = None
    group: int = 0  # the workgroup size G (0: one wave, as a run made before workgroups)
    synchronises: bool = False  # the kernel has barriers: a group runs whole or not at all
    # the first subnormal f32 the run computed, loaded or took, as text: where a target
    # that may flush subnormals promises nothing (docs/semantics.md, "32-bit floats")
    subnormal: str | None = None
    # the (operation, edge value) pairs the run's operations met (difftest.core.edges)
    edges: frozenset[str] = frozenset()
    # a kernel whose atomics are ordered (docs/semantics.md, "Atomics that return"): each
    # workitem's returned values, in program order (the target's, where the run replayed
    # them; else the oracle's own), and the workitems whose reported values the run did
    # not all use (it ran fewer atomics than the target said)
    ordered: bool = False
    returned: list[list[int]] = field(default_factory=list)
    unused_returns: list[int] = field(default_factory=list)
    # the race or barrier error a replay of the target's values met (the replay then ran
    # without the race rule): the kernel's fault only if those values form an order
    replay_error: str | None = None
    # each buffer's element type (what an atomic's sum wraps to; a run made before this
    # field: its storage width, i32 or i64)
    elements: dict[str, Type] = field(default_factory=dict)
    # what a checker derives from this run, kept with it: one oracle run is checked
    # against several schedules
    derived: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def group_size(self) -> int:
        return self.group or self.wave

    def as_replayed(self) -> FullRun:
        """This run as the replay of its own returned values would be, every workitem
        replayed: the same steps, each atomic's old value now a reported one (kept, for
        the schedules checked against it)."""
        again = self.derived.get("as_replayed")
        if again is None:
            again = self.derived["as_replayed"] = dataclasses.replace(
                self, writes=self.writes.reported(), derived={})
        return again  # type: ignore[no-any-return]

    @property
    def faulting(self) -> list[int]:
        return [g for g, f in enumerate(self.fates) if f is not None]

    def outcome(self) -> Outcome:
        """The outcome of running everything, reporting the lowest faulting gid (or the
        `step_budget` error when a workitem ran out of budget)."""
        if self.exhausted:
            return Outcome({k: v.copy() for k, v in self.initial.items()}, None, [],
                           error=self.budget_error())
        faults = {g: f for g, f in enumerate(self.fates) if f is not None}
        exc = None
        if faults:
            g = min(faults)
            exc = ExceptionReport(g, faults[g])
        status = [COMPLETED if f is None else FAULTED for f in self.fates]
        bufs = {k: v.copy() for k, v in self.final.items()}
        return Outcome(bufs, exc, status, faults,
                       returned=[list(r) for r in self.returned] if self.ordered else None)

    def budget_error(self) -> TargetError:
        return out_of_budget(self.exhausted[0], self.budget_text)


@dataclass
class HostRun:
    """What the program did: its observations (step, contents), the host error that ended
    it, and either the model's final buffers (no launch ended it) or the launch that did
    (an exception, or a workitem out of budget): its case and full run, for the checker's
    per-launch rules."""

    observations: list[tuple[int, list[int]]] = field(default_factory=list)
    error: tuple[int, str] | None = None
    final: dict[str, np.ndarray] = field(default_factory=dict)
    launches: int = 0
    ended_by: Case | None = None  # the launch case that ended the program
    full: FullRun | None = None
    binding: dict[str, str] = field(default_factory=dict)  # its parameter -> buffer

    trips: list[int] = field(default_factory=list)  # the most any workitem ran, per launch

    @property
    def exhausted(self) -> list[int]:
        return list(self.full.exhausted) if self.full is not None else []

    @property
    def fates(self) -> list[Any]:
        """The ending launch's fates (what statistics of faults count)."""
        return list(self.full.fates) if self.full is not None else []


#: what the oracle hands the checker: a launch's full run, or a host program's run
OracleRun = FullRun | HostRun
