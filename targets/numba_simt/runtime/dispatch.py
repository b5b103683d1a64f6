"""Dispatch: one case on the device and the host, from the first wave to the outcome.

A run is a sequence of rounds. Each round launches its waves on the machine (all of them
in the schedule's `wave_order` at first) with a fresh save area; lanes that deopt leave
their frames there and, from then on, no new wave starts (each records itself
never-ran). After the launch every deopted workitem is resumed on the host from its
frame, in the schedule's `replay_order` (resumed, never restarted: start means finish or
fault). The first exception raised on the host is the reported one; the deopted
workitems that do not fault are still completed. The never-ran waves then run -- only if
no exception is being reported (or the schedule's `after_exception` is "finish") --
either relaunched on the machine (`never_ran` "device": the next round) or on the host
(`never_ran` "host"); otherwise they stay never-ran, in whole waves.

Memory is the pool's (pool.py): each round launches on its current storage, with a
buffer table and parameters made from its items' current bases, because a lane the host
finishes may `alloc()` -- and an allocation that does not fit moves every item (the host
relocates what it holds: trampoline.py). The allocated items are freed when the run ends.

Schedule keys read here: `wave_order` (with `order_seed`), `slots`, `quantum`,
`replay_order` (with `replay_seed`), `never_ran`, `after_exception`, `deopt_percent`
(with `deopt_seed`: DeoptimizeALot at eligible infopoints), `deopt_limit` (at most this
many forced deopts in the run, over all its rounds).

Workgroups: the schedule's orders and `slots` are over workgroups (of one wave each when
the case has no `launch.group`): the machine issues a workgroup's waves together, so
never-ran comes in whole workgroups. Each resident workgroup slot gets its own instance
of every workgroup array, an item of the pool made for the run. A kernel with barriers or
workgroup arrays runs its never-ran workgroups on the device even under `never_ran`
"host" (the host runs one wave at a time, alone).

The `replay-stops-at-exception`, `never-ran-rerun-completed` and
`workgroup-bounds-whole-region` mutants live here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from difftest.core import f32, f64
from difftest.core.ir.types import F64
from difftest.core.case import Case
from difftest.core.errors import DifftestError
from difftest.core.options import describe_budget, out_of_budget, trip_budget
from difftest.core.outcome import (COMPLETED, FAULTED, NEVER_RAN, ExceptionReport, Fault, Outcome,
                                   TargetError)

from . import deopt

from ..device import machine
from ..mutants import Mutants
from ..compiler.emit import Compiled
from .pool import Item, Pool
from .trampoline import Host, HostBudget, ResumeError

ORDERS = ("ascending", "descending", "shuffled")
TRACE_KEPT = 1024  # dispatch trace events kept in the diagnostics (all are counted)

# the schedule keys read here: the words each may be, or the least integer it may be
_WORDS = {"wave_order": ORDERS, "replay_order": ORDERS, "never_ran": ("host", "device"),
          "after_exception": ("stop", "finish")}
_LEAST = {"slots": 1, "quantum": 1, "deopt_percent": 0, "deopt_limit": 0,
          "order_seed": None, "replay_seed": None, "deopt_seed": None}


class ScheduleError(DifftestError):
    pass


def check_schedule(schedule: dict[str, Any]) -> None:
    """A clear error for a bad value of a key this target reads (other keys are other
    targets': a schedule is an open mapping)."""
    for key, value in schedule.items():
        if key in _WORDS and value not in _WORDS[key]:
            raise ScheduleError(f"schedule {key}={value!r}: expected one of "
                                f"{', '.join(_WORDS[key])}")
        if key in _LEAST:
            least = _LEAST[key]
            if (not isinstance(value, int) or isinstance(value, bool)
                    or (least is not None and value < least)
                    or (key == "deopt_percent" and value > 100) or abs(value) >= 2**62):
                want = ("0..100" if key == "deopt_percent" else
                        f"an integer >= {least}" if least is not None else "an integer")
                raise ScheduleError(f"schedule {key}={value!r}: expected {want}")


def wave_order(n_waves: int, schedule: dict[str, Any]) -> list[int]:
    kind = schedule.get("wave_order", "ascending")
    if kind == "descending":
        return list(range(n_waves - 1, -1, -1))
    if kind == "shuffled":
        rng = np.random.default_rng(int(schedule.get("order_seed", 0)) & 0xFFFFFFFF)
        return [int(w) for w in rng.permutation(n_waves)]
    return list(range(n_waves))


def _replay_order(gids: list[int], schedule: dict[str, Any]) -> list[int]:
    """Indices into the frames, in the order the host resumes them."""
    idx = list(range(len(gids)))
    kind = schedule.get("replay_order", "ascending")
    if kind == "shuffled":
        random.Random(int(schedule.get("replay_seed", 0))).shuffle(idx)
        return idx
    return sorted(idx, key=lambda i: gids[i], reverse=kind == "descending")


@dataclass
class _Run:
    """What the rounds found so far."""

    n: int
    status: list[str]
    faults: dict[int, Fault] = field(default_factory=dict)
    first: int | None = None  # the gid of the first exception raised
    deopts: dict[str, int] = field(default_factory=dict)
    deopted: set[int] = field(default_factory=set)
    sites: dict[int, int] = field(default_factory=dict)  # infopoint -> frames saved there
    never_ran_waves: int = 0
    host_waves: list[int] = field(default_factory=list)
    trace: list[list[Any]] = field(default_factory=list)  # the first TRACE_KEPT events
    trace_events: int = 0
    rounds: int = 0
    instructions: int = 0
    lane_instructions: int = 0
    save_area_bytes: int = 0
    never_ran_bytes: int = 0
    rerun: set[int] = field(default_factory=set)  # waves the rerun mutant ran again

    def take(self, fates: Any) -> None:
        for gid in fates.completed:
            self.status[gid] = COMPLETED
        for gid in fates.order:
            self.faulted(gid, fates.faults[gid])

    def faulted(self, gid: int, fault: Fault) -> None:
        self.status[gid] = FAULTED
        self.faults[gid] = fault
        if self.first is None:
            self.first = gid


class RunError(Exception):
    """The run ends with an error instead of an outcome (kind: message)."""


def kernel_params(case: Case, bound: dict[str, Item]) -> np.ndarray:
    """The machine's `params`: each buffer parameter a reference to its item (its base in
    the pool), each scalar its value."""
    fn = case.function
    params = np.zeros(max(1, len(fn.params)), dtype=np.int64)
    for i, p in enumerate(fn.params):
        value = case.args[p.name]
        params[i] = (bound[p.name].start if p.ty.is_buffer
                     else f64.to_bits(float(value)) if p.ty is F64  # type: ignore[arg-type]
                     else f32.to_bits(value) if isinstance(value, float) else int(value))
    return params


def run_case(compiled: Compiled, case: Case, schedule: dict[str, Any],
             options: dict[str, Any], pool: Pool, bound: dict[str, Item], mutants: Mutants
             ) -> tuple[Outcome | None, TargetError | None, dict[str, Any]]:
    """(outcome, None, diagnostics) or (None, error, diagnostics). `bound`: each buffer
    parameter's item, in the pool; the pool's storage is written."""
    try:
        return _run(compiled, case, schedule, options, pool, bound, mutants)
    finally:
        pool.release_allocations()  # alloc()'s buffers live until the launch ends


def _run(compiled: Compiled, case: Case, schedule: dict[str, Any], options: dict[str, Any],
         pool: Pool, bound: dict[str, Item], mutants: Mutants
         ) -> tuple[Outcome | None, TargetError | None, dict[str, Any]]:
    n, W, G = case.n, case.wave, case.group_size
    slots = int(schedule.get("slots", 1))
    n_waves = (n + W - 1) // W
    n_groups = (n_waves + G // W - 1) // (G // W)
    # each resident workgroup slot's workgroup memory: an item of its own holding the
    # arrays one after another, made before anything holds a reference (making it may
    # move the pool)
    words = sum(length for _, _, length in compiled.workgroup_arrays)
    instances = [pool.allocate(words, 64)[0]
                 for _ in range(min(slots, n_groups) if words else 0)]
    items = list(bound.values())

    def allocate(size: int) -> tuple[int, dict[int, int], np.ndarray]:
        item, moves = pool.allocate(size)
        return item.start, moves, pool.storage

    ref_params = frozenset(i for i, p in enumerate(case.function.params) if p.ty.is_buffer)
    budget = trip_budget(options, n)
    flags = mutants.machine_flags()
    run = _Run(n, [NEVER_RAN] * n)
    host = Host(compiled, pool.storage, _table(pool, items, instances, compiled, mutants),
                kernel_params(case, bound), n, W, budget, allocate, ref_params, mutants, G)
    pending = wave_order(n_groups, schedule)  # the workgroups (with G = W, the waves)
    finish = schedule.get("after_exception", "stop") == "finish"
    # the host runs whole waves, one after another: a workgroup that meets at barriers or
    # shares workgroup memory runs on the device only
    on_host = schedule.get("never_ran", "device") == "host" and not compiled.groupwise
    try:
        while pending:
            run.rounds += 1
            # the items' current bases: an alloc() on the host may have moved them
            never = _device_round(compiled, case, schedule, run, host, pool.storage,
                                  _table(pool, items, instances, compiled, mutants),
                                  kernel_params(case, bound), pending, slots, budget, flags,
                                  mutants, _bases(instances, compiled))
            if not never:
                break
            if len(never) >= len(pending) and not mutants.on("never-ran-rerun-completed"):
                raise RunError(f"dispatch made no progress: workgroups {never} never ran")
            if run.first is not None and not finish:
                break  # "pending new workitems will not run": they stay never-ran
            if on_host:
                for g in never:
                    for w in range(g * G // W, min((g + 1) * G // W, n_waves)):
                        run.host_waves.append(w)
                        run.take(host.run_wave(w))
                break
            pending = never
    except HostBudget as e:
        return (None, out_of_budget(e.gid, describe_budget(options, n)),
                _diagnostics(run, host))
    except (ResumeError, RunError) as e:
        return None, TargetError("internal", str(e)), _diagnostics(run, host)
    exc = None
    if run.first is not None:
        exc = ExceptionReport(run.first, run.faults[run.first])
    bufs: dict[str, Any] = {}  # filled by the caller
    return Outcome(bufs, exc, run.status, dict(run.faults)), None, _diagnostics(run, host)


def _layout(compiled: Compiled) -> list[tuple[int, int, int]]:
    """(offset, length, bits) of each workgroup array in a slot's workgroup memory: the
    arrays one after another."""
    lengths = [length for _, _, length in compiled.workgroup_arrays]
    offsets = np.cumsum([0] + lengths, dtype=np.int64).tolist()
    return [(offsets[k], length, bits)
            for k, (_, bits, length) in enumerate(compiled.workgroup_arrays)]


def _table(pool: Pool, items: list[Item], instances: list[Item], compiled: Compiled,
           mutants: Mutants) -> np.ndarray:
    """The buffer table: the bound buffers' rows, then each workgroup array's instance in
    each slot's workgroup memory (a buffer of its own)."""
    rows = [pool.table(items)] if items else []
    layout = _layout(compiled)
    total = sum(length for _, length, _ in layout)
    for memory in instances:
        for offset, length, bits in layout:
            # the bug: the array's bounds run to the end of its slot's workgroup memory
            if mutants.on("workgroup-bounds-whole-region"):
                length = total - offset
            rows.append(np.array([[memory.start + offset, length, bits]], dtype=np.int64))
    return np.concatenate(rows) if rows else pool.table([])


def _bases(instances: list[Item], compiled: Compiled) -> np.ndarray:
    """The machine's `local_bases`: each group slot's instance of each workgroup array."""
    layout = _layout(compiled)
    return np.array([[memory.start + offset for offset, _, _ in layout]
                     for memory in instances], dtype=np.int64).reshape(len(instances),
                                                                        len(layout))


def _device_round(compiled: Compiled, case: Case, schedule: dict[str, Any], run: _Run,
                  host: Host, mem: np.ndarray, buftab: np.ndarray, params: np.ndarray,
                  groups: list[int], slots: int, budget: int, flags: int, mutants: Mutants,
                  local_bases: np.ndarray) -> list[int]:
    """Launch the workgroups `groups`, resume the deopted workitems; returns the never-ran
    workgroups."""
    n, W, G = case.n, case.wave, case.group_size
    gw = G // W
    n_waves = (n + W - 1) // W
    waves = [w for g in groups for w in range(g * gw, min(g * gw + gw, n_waves))]
    area = deopt.make_area(compiled, n, W, G, slots, mutants)
    counters = np.zeros(4, dtype=np.int64)
    lens = np.array([length for _, _, length in compiled.workgroup_arrays], dtype=np.int64)
    rc = machine.run_launch(
        compiled.rows, n, W, compiled.nregs, compiled.nmasks, compiled.nslots, mem, buftab,
        params, np.array(groups, dtype=np.int64), slots, int(schedule.get("quantum", 64)),
        counters, area, max_wave_steps=_max_wave_steps(budget, W, len(compiled.rows)),
        trip_budget=budget, flags=flags, force_seed=int(schedule.get("deopt_seed", 0)),
        force_percent=int(schedule.get("deopt_percent", 0)),
        force_limit=_forced_left(schedule, run), group_waves=gw, local_bases=local_bases,
        local_lens=lens)
    run.instructions += int(counters[0])
    run.lane_instructions += int(counters[1])
    run.save_area_bytes = deopt.save_area_bytes(area)
    run.never_ran_bytes = deopt.never_ran_bytes(area)
    events = area.trace[area.trace[:, 0] != 0]
    run.trace_events += len(events)
    room = max(0, TRACE_KEPT - len(run.trace))
    run.trace += [[run.rounds, *row] for row in events[:room].tolist()]
    if rc == machine.ERR_BUDGET:
        raise HostBudget(int(counters[3]))
    if rc != machine.OK:
        raise RunError(f"machine error {rc}: {machine.error_message(rc)}")
    never = deopt.never_ran_waves(area, waves)
    run.never_ran_waves += len(never)
    never_groups = list(dict.fromkeys(w // gw for w in never))  # whole ones, in order
    rows = deopt.frames(area)
    gids = deopt.deopted_gids(rows)
    # every lane of a wave that ran completed on the device, unless it left a frame
    ran = np.zeros((n + W - 1) // W + 2, dtype=np.int8)  # a 0 either side of the waves
    ran[np.asarray(waves, dtype=np.int64) + 1] = 1
    ran[np.asarray(never, dtype=np.int64) + 1] = 0
    edges = np.flatnonzero(np.diff(ran)).tolist()  # each run of waves that ran: [lo, hi)
    for lo, hi in zip(edges[::2], edges[1::2]):
        stop = min(n, hi * W)
        run.status[lo * W:stop] = [COMPLETED] * (stop - lo * W)
    for row in rows:
        reason = machine.REASONS.get(int(row[machine.F_REASON]), "?")
        run.deopts[reason] = run.deopts.get(reason, 0) + 1
        ip = int(row[machine.F_IP])
        run.sites[ip] = run.sites.get(ip, 0) + 1
    run.deopted.update(gids)
    frames = rows[_replay_order(gids, schedule)]  # in the order they are resumed
    # the bug: after an exception, the other deopted workitems are never finished
    stops = mutants.on("replay-stops-at-exception")
    for gid, fault in host.resume_frames(frames, stops):
        if fault is None:
            run.status[gid] = COMPLETED
        else:
            run.faulted(gid, fault)
            if stops:
                break
    host.waiting = frames[:0]
    if mutants.on("never-ran-rerun-completed"):
        # the bug: a workgroup with a deopted lane counts as not done, and runs again whole
        extra = {g // G for g in gids} - set(never_groups) - run.rerun
        run.rerun |= extra
        never_groups = never_groups + [g for g in groups if g in extra]
    return never_groups


def _forced_left(schedule: dict[str, Any], run: _Run) -> int:
    """The forced deopts the schedule's `deopt_limit` leaves this round (-1: no limit)."""
    limit = schedule.get("deopt_limit")
    if limit is None:
        return -1
    return max(0, int(limit) - run.deopts.get("forced", 0))


def _max_wave_steps(budget: int, wave: int, ninstr: int) -> int:
    """A bound no correct wave reaches: every back edge passes a TRIP with a lane active,
    so a wave runs at most wave * budget + 1 stretches of at most ninstr instructions."""
    return min(2**62, (wave * budget + 1) * (ninstr + 1))


def _diagnostics(run: _Run, host: Host) -> dict[str, Any]:
    return {
        "allocations": host.allocations,
        "instructions": run.instructions,
        "lane_instructions": run.lane_instructions,
        "rounds": run.rounds,
        "deopts": dict(sorted(run.deopts.items())),
        "deopted": sorted(run.deopted),
        "deopt_sites": dict(sorted(run.sites.items())),
        "never_ran_waves": run.never_ran_waves,
        "host_waves": list(run.host_waves),
        "save_area_bytes": run.save_area_bytes,
        "never_ran_bytes": run.never_ran_bytes,
        "trace": run.trace,
        "trace_events": run.trace_events,
    }
