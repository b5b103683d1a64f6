"""The agreement checker: docs/semantics.md's agreement rules made executable.

`check_outcome(case, full, outcome)` compares a target's `Outcome` with the oracle's
`FullRun` and returns a `Verdict`: agree, or the first rule that fails in the semantics'
order (R0 error, R1 exception, R2 fates, R3 memory, R4 atomics, R5 granularity), the
workitems involved, and expected vs actual.

Nothing here runs a kernel: the full run's fates and write logs are the whole truth, and
every legal outcome is derived from them (any set of never-ran workitems the policy
allows, with exactly the ran workitems' writes applied).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable

import numpy as np

from difftest.core import f32, f64
from difftest.core.case import Case
from difftest.core.ir.types import F32, F64, I32, I64, U64, Type
from difftest.core.ir.walk import wide_atomics
from difftest.core.fullrun import FullRun, HostRun, OracleRun
from difftest.core.outcome import COMPLETED, FAULTED, NEVER_RAN, Fault, Outcome, TargetError

RULES = ("R0 error", "R1 exception", "R2 fates", "R3 memory", "R4 atomics", "R5 granularity",
         "R6 host")
POLICIES = ("stream", "sequential")


@dataclass(frozen=True)
class Verdict:
    agree: bool
    rule: str | None = None
    message: str = ""
    workitems: tuple[int, ...] = ()
    expected: Any = None
    actual: Any = None

    def to_json(self) -> dict[str, Any]:
        if self.agree:
            return {"agree": True}
        return {
            "agree": False,
            "rule": self.rule,
            "message": self.message,
            "workitems": list(self.workitems),
            "expected": _jsonable(self.expected),
            "actual": _jsonable(self.actual),
        }

    @property
    def unchecked(self) -> bool:
        """The target found at run time that it cannot run the case (an outcome error
        `unsupported`), or ran it only past its limits (`slow`): nothing was compared, so
        nothing disagrees, and campaigns count the case as skipped (a slow one as slow),
        like one the target declares it cannot run."""
        return self.rule == UNCHECKED

    @property
    def unordered(self) -> bool:
        """Not checked because the checker could not decide, in its step budget, whether
        the values the target's atomics returned form an order."""
        return self.unchecked and self.message.startswith(_UNORDERED)

    @property
    def slow(self) -> bool:
        """Not checked because the target answered only past its limits."""
        return self.unchecked and isinstance(self.actual, TargetError) \
            and self.actual.kind == "slow"

    def __str__(self) -> str:
        if self.unchecked:
            return f"not checked: {self.message}"
        if self.agree:
            return "agree"
        who = f" [workitems {', '.join(map(str, self.workitems))}]" if self.workitems else ""
        return f"disagree: {self.rule}: {self.message}{who}"


AGREE = Verdict(True)
UNCHECKED = "unchecked"
_UNORDERED = "the checker could not order the atomics"


def unordered(why: str) -> Verdict:
    """Not checked: the checker could not tell whether the target's returned values form
    an order (`why`)."""
    return Verdict(True, UNCHECKED, f"{_UNORDERED}: {why}")


def _jsonable(v: Any) -> Any:
    if isinstance(v, Fault):
        return v.to_json()
    if isinstance(v, TargetError):
        return str(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return v


def _fail(rule: str, message: str, workitems: tuple[int, ...] | list[int] = (),
          expected: Any = None, actual: Any = None) -> Verdict:
    assert rule in RULES, rule
    return Verdict(False, rule, message, tuple(workitems), expected, actual)


def _fate_name(f: Fault | None) -> str:
    return COMPLETED if f is None else FAULTED


@dataclass
class _Expect:
    """What a run of exactly the `ran` workitems leaves in memory."""

    plain: dict[str, np.ndarray]
    atomic: dict[tuple[str, int], int] = field(default_factory=dict)
    atomic_locations: set[tuple[str, int]] = field(default_factory=set)
    # ordered atomics (docs/semantics.md, "Atomics that return"): the first location whose
    # returned values form no order, as (message, workitems, undecided)
    disorder: tuple[str, list[int], bool] | None = None
    unordered: set[tuple[str, int]] = field(default_factory=set)  # no value to expect


def _wrap(v: int, ty: Type) -> int:
    """`v` wrapped to integer type `ty`, in storage form (a u64's bits as an int64)."""
    bits = ty.bits
    v &= (1 << bits) - 1
    if ty.signed or bits == 64:
        return v - (1 << bits) if v >> (bits - 1) else v
    return v


def _element(full: FullRun, name: str) -> Type:
    """A buffer's element type (a run that does not say: its storage's, i32 or i64)."""
    ty = full.elements.get(name)
    if ty is None:
        ty = I32 if full.initial[name].dtype == np.int32 else I64
    return ty


def _expected_memory(full: FullRun, ran: list[bool]) -> _Expect:
    """`_replayed_memory`, kept in the full run for each set of ran workitems: the fuzz
    loop checks several schedules against one oracle run, and most of them run every
    workitem (the result is only read)."""
    key = ("expected memory", bytes(ran))
    if key not in full.derived:
        full.derived[key] = _replayed_memory(full, ran)
    exp: _Expect = full.derived[key]
    return exp


def _replayed_memory(full: FullRun, ran: list[bool]) -> _Expect:
    """Atomic-only locations are summed (R4); every other location is replayed from the
    ran workitems' logs (by the race rule, at most one workitem touches a location that
    sees a plain store -- in a kernel that synchronises, at most one per epoch of one
    workgroup, and the logs come epoch by epoch -- so replaying them in order is
    exact). The replay works on the log's columns at once (a case logs thousands of
    entries): a location's last ran store, then the adds logged after it."""
    plain = {k: v.astype(np.int64) for k, v in full.initial.items()}
    exp = _Expect(plain)
    if full.ordered:
        return _ordered_memory(full, ran, exp)
    gid, buffer, index, value, atomic = full.writes.columns()[:5]
    names = full.writes.names
    types = [_element(full, name) for name in names]
    where = buffer.astype(np.int64) << 32 | index.astype(np.int64)  # a location as one number
    atomic_only = np.setdiff1d(where[atomic], where[~atomic])  # sorted, unique
    exp.atomic_locations = {(names[w >> 32], w & _LOW) for w in atomic_only.tolist()}
    took = np.asarray(ran, dtype=bool)[gid]
    alone = np.isin(where, atomic_only)
    # an atomic-only location holds its initial value plus the ran workitems' adds
    # (wrapping is modular: one wrap of the sum is each add's wrap in turn)
    added = _sums(atomic_only, where[took & alone], value[took & alone])
    for w, total in zip(atomic_only.tolist(), added.tolist()):
        name, i = names[w >> 32], w & _LOW
        exp.atomic[(name, i)] = _wrap(int(full.initial[name][i]) + total, types[w >> 32])
    # every other location: its last ran store, plus the ran adds logged after it (the
    # initial value plus all of them where no ran workitem stores there)
    rest = took & ~alone
    at, val, add = where[rest], value[rest], atomic[rest]
    stores = np.flatnonzero(~add)
    stored, back = np.unique(at[stores][::-1], return_index=True)  # the last of each
    last = stores[len(stores) - 1 - back]
    _put(plain, names, stored, val[last])
    after = np.flatnonzero(add)
    if len(stored):  # an add its location's last store overwrites is left out
        k = np.minimum(np.searchsorted(stored, at[after]), len(stored) - 1)
        after = after[(stored[k] != at[after]) | (after > last[k])]
    summed = np.unique(at[after])
    for w, total in zip(summed.tolist(), _sums(summed, at[after], val[after]).tolist()):
        buf = plain[names[w >> 32]]
        buf[w & _LOW] = _wrap(int(buf[w & _LOW]) + total, types[w >> 32])
    return exp


_LOW = (1 << 32) - 1


def _sums(locations: np.ndarray, at: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per location of `locations` (sorted), the sum of `values` logged at it (`at`),
    wrapped at 64 bits (the types' own wrap is applied after: modular either way)."""
    out = np.zeros(len(locations), dtype=np.int64)
    np.add.at(out, np.searchsorted(locations, at), values)
    return out


def _put(plain: dict[str, np.ndarray], names: list[str], locations: np.ndarray,
         values: np.ndarray) -> None:
    """Write `values` at `locations` (buffer number << 32 | index) of the buffers."""
    numbers = locations >> 32
    for b in np.unique(numbers).tolist():
        mine = numbers == b
        plain[names[b]][locations[mine] & _LOW] = values[mine]


def _ordered_memory(full: FullRun, ran: list[bool], exp: _Expect) -> _Expect:
    """`_replayed_memory` in a kernel whose atomics are ordered: each location's entries
    replayed epoch by epoch; where several workitems' atomics meet (between the same two
    barriers, or anywhere in a location no one plainly stores) they are put in an order
    their returned values allow (`find_order`), which gives the value they leave. Most
    locations are one workitem's alone (its output, its own counter): those are replayed
    in its program order as arrays, the others one by one (`_met`)."""
    from difftest.core.fullrun import FRESH

    names = full.writes.names
    cols = full.writes.columns()
    keep = np.asarray(ran, dtype=bool)[cols[0]]
    gid, buf, index, value, atomic, old, order, epoch = (c[keep] for c in cols)
    fresh = np.flatnonzero(order == FRESH)
    if fresh.size and exp.disorder is None:
        k = int(fresh[0])
        exp.disorder = (f"workitem {gid[k]} ran an atomic on {names[buf[k]]}[{index[k]}] "
                        "but reported no value it returned", [int(gid[k])], False)
    if not gid.size:
        return exp
    # the locations numbered in the order they first appear; each one's entries together,
    # in the logs' order (epoch by epoch, a workitem's in its program order)
    sort = np.lexsort((index, buf))  # by location, each one's entries in the logs' order
    new = np.r_[True, (buf[sort][1:] != buf[sort][:-1]) | (index[sort][1:] != index[sort][:-1])]
    first = sort[new]  # each location's first entry
    number = np.empty_like(first)
    number[np.argsort(first, kind="stable")] = np.arange(first.size)
    by = sort[np.argsort(number[np.cumsum(new) - 1], kind="stable")]
    gid, buf, index, value, atomic, old, epoch = (c[by] for c in (gid, buf, index, value,
                                                                   atomic, old, epoch))
    starts = np.flatnonzero(np.r_[True, (buf[1:] != buf[:-1]) | (index[1:] != index[:-1])])
    ends = np.r_[starts[1:], gid.size]
    alone = np.minimum.reduceat(gid, starts) == np.maximum.reduceat(gid, starts)
    stored = np.logical_or.reduceat(~atomic, starts)
    at_buf, at_index = buf[starts], index[starts]
    buffers = np.unique(at_buf).tolist()
    held = np.zeros(starts.size, dtype=np.int64)  # each location's value before the kernel
    for b in buffers:
        if names[b] in full.initial:
            mine = at_buf == b
            held[mine] = full.initial[names[b]][at_index[mine]]
    # in one workitem's location, each atomic returned what the entry before it left
    before = np.r_[np.int64(0), value[:-1]]
    before[starts] = held
    wrong = atomic & (old != before) & np.repeat(alone, ends - starts)
    problems: list[tuple[int, tuple[str, list[int], bool]]] = []
    if wrong.any():
        k = int(np.flatnonzero(wrong)[0])
        problems.append((int(np.searchsorted(starts, k, side="right")) - 1,
                         (f"workitem {gid[k]}'s atomic on {names[buf[k]]}[{index[k]}] "
                          f"returned {old[k]} but the location held {before[k]}",
                          [int(gid[k])], False)))
    ending = value[ends - 1]
    met_problem = None
    for loc in np.flatnonzero(~alone).tolist():
        s, e = int(starts[loc]), int(ends[loc])
        name, i = names[buf[s]], int(index[s])
        rows = zip(*(c[s:e].tolist() for c in (gid, epoch, value, atomic, old)))
        ending[loc], problem, unordered = _met(name, i, int(held[loc]), bool(stored[loc]),
                                               full.group_size, rows, full.wave)
        if unordered:
            exp.unordered.add((name, i))
        if problem is not None and met_problem is None:
            met_problem = (loc, problem)
    if met_problem is not None:
        problems.append(met_problem)
    if problems and exp.disorder is None:
        exp.disorder = min(problems)[1]
    for b in buffers:
        name = names[b]
        if name not in exp.plain:
            continue
        mine = at_buf == b
        plain = mine & stored
        exp.plain[name][at_index[plain]] = ending[plain]
        for i, v in zip(at_index[mine & ~stored].tolist(), ending[mine & ~stored].tolist()):
            exp.atomic[(name, i)] = v
            exp.atomic_locations.add((name, i))
    return exp


def _met(name: str, i: int, cur: int, stored: bool, group: int,
         entries: Iterable[tuple[int, int, int, bool, int]], wave: int = 0
         ) -> tuple[int, tuple[str, list[int], bool] | None, bool]:
    """A location several workitems touch: the value its (gid, epoch, value, atomic, old)
    entries leave, segment by segment (the whole location where no one stores it, else
    each epoch), the first problem met there (None where none), and whether a segment's
    atomics formed no order (which ends the replay there)."""
    from difftest.core.atomic_order import Edge, find_order

    segments: list[list[tuple[int, int, int, bool, int]]] = []
    for e in entries:
        if segments and (not stored or segments[-1][0][1] == e[1]):
            segments[-1].append(e)
        else:
            segments.append([e])
    problem = None
    for seg in segments:
        shared = len({e[0] for e in seg}) > 1
        if shared and not all(e[3] for e in seg):
            # a plain store meets another workitem's access: a race, which only the replay
            # of a racy kernel without its race check has (runner.replayed); no order to
            # find, and once the atomics pass, the race is the kernel's (R0)
            cur = seg[-1][2]
            continue
        if not shared:  # one workitem: its program order
            for g, _, v, a, old in seg:
                if a and old != cur and problem is None:
                    problem = (f"workitem {g}'s atomic on {name}[{i}] returned {old} but "
                               f"the location held {cur}", [g], False)
                cur = v
            continue
        found = find_order(cur, [Edge(g, g // group, epoch, old, v)
                                 for g, epoch, v, _, old in seg], wave=wave)
        if found.end is None:
            return cur, problem or (f"{name}[{i}]: {found.why}",
                                    sorted({e[0] for e in seg})[:8], found.undecided), True
        cur = found.end
    return cur, problem, False


def check_outcome(case: Case, full: OracleRun | None, outcome: Outcome, policy: str | None = None,
                  wave_granularity: bool = False, oracle_error: TargetError | None = None
                  ) -> Verdict:
    """The verdict on `outcome`: the first of the rules, in their order, that fails (one
    function each below). `full` is the oracle's FullRun (None with `oracle_error` when
    the oracle itself failed); `wave_granularity` turns on R5 for targets that check the
    deopt flag at wave start."""
    policy = policy or case.policy
    assert policy in POLICIES, f"unknown policy {policy}"
    if case.host is not None and oracle_error is None:
        assert isinstance(full, HostRun), "a host program's case takes its HostRun"
        return _check_host(case, full, outcome, policy, wave_granularity)
    assert full is None or isinstance(full, FullRun), "a launch's case takes its FullRun"
    floats = float_buffers(case)
    decided = _r0_error(full, outcome, oracle_error)
    if decided is not None:
        return decided
    assert full is not None, "the oracle's run, or the error it failed with"
    run = full
    if len(outcome.status) != case.n:
        return _fail("R2 fates", f"status has {len(outcome.status)} entries for {case.n} "
                     "workitems", expected=case.n, actual=len(outcome.status))
    decided = _storage_forms(full, outcome)
    if decided is not None:
        return decided
    outcome = canonical_floats(outcome, floats)
    rules: list[Callable[[], Verdict | None]] = []
    if run.ordered:  # the rules below replay the order the returned values give
        rules.append(lambda: _r4_order(run, outcome, wide_atomics(case.program, case.entry)))
    rules += [
        lambda: _r1_exception(case, run, outcome, policy),
        lambda: _r2_fates(case, run, outcome),
        lambda: _r3_memory(run, outcome, floats),
        lambda: _r4_atomics(run, outcome),
    ]
    if wave_granularity:
        rules.append(lambda: _r5_granularity(case, outcome))
    for rule in rules:
        failed = rule()
        if failed is not None:
            return failed
    return AGREE


def _r0_error(full: FullRun | None, outcome: Outcome, oracle_error: TargetError | None
              ) -> Verdict | None:
    """R0: a target error agrees only when the oracle's run fails the same way (a race, or
    a workitem out of budget); without one, the other rules decide (None)."""
    kind = None if outcome.error is None else outcome.error.kind
    if kind in ("unsupported", "slow"):  # nothing to compare: not checked, never wrong
        assert outcome.error is not None
        return Verdict(True, UNCHECKED, str(outcome.error) if kind == "slow"
                       else outcome.error.message, actual=outcome.error)
    if oracle_error is not None:  # a racy kernel: only the same error agrees
        if kind == oracle_error.kind:
            return AGREE
        return _fail("R0 error", f"oracle error: {oracle_error}", expected=oracle_error,
                     actual=outcome.error)
    assert full is not None, "the oracle's run, or the error it failed with"
    exhausted: list[int] = full.exhausted
    if kind == "step_budget" and exhausted:
        return AGREE  # the target ran a workitem that runs out of budget
    if outcome.error is not None:
        return _fail("R0 error", f"target error: {outcome.error}",
                     exhausted[:8], full.budget_error() if exhausted else None, outcome.error)
    return None


def _r1_exception(case: Case, full: FullRun, outcome: Outcome, policy: str) -> Verdict | None:
    """R1: an exception is reported exactly when a workitem faults, and it is a faulting
    workitem's fault (under `sequential`, the lowest's, with every earlier wave ran and
    every later wave never-ran)."""
    n, wave, fates, status = case.n, case.wave, full.fates, outcome.status
    faulting = [g for g in range(n) if fates[g] is not None]
    exc = outcome.exception
    if exc is not None and 0 <= exc.gid < n and status[exc.gid] == NEVER_RAN:
        # (before its fate is asked: the replay of a target's returned values does not
        # run the waves it never ran, so there a never-ran workitem has no fate)
        return _fail("R1 exception", f"workitem {exc.gid} is reported but marked never-ran",
                     [exc.gid], FAULTED, NEVER_RAN)
    if not faulting:
        if exc is not None:
            return _fail("R1 exception", "an exception is reported but no workitem faults",
                         [exc.gid], None, exc.to_json())
        return None
    if exc is None:
        first = fates[faulting[0]]
        assert first is not None
        return _fail("R1 exception",
                     f"no exception reported, but {len(faulting)} workitem(s) fault",
                     faulting[:8], first.to_json(), None)
    g = exc.gid
    if not 0 <= g < n or fates[g] is None:
        return _fail("R1 exception", f"workitem {g} is reported but does not fault",
                     [g], None, exc.to_json())
    if exc.fault != fates[g]:
        return _fail("R1 exception", f"workitem {g}'s reported fault differs from its fate",
                     [g], fates[g], exc.fault)
    if policy == "sequential":
        if g != faulting[0]:
            return _fail("R1 exception",
                         f"policy sequential reports the lowest faulting workitem "
                         f"{faulting[0]}, not {g}", [faulting[0], g], faulting[0], g)
        # one wave at a time; in a kernel that synchronises, one workgroup at a time: the
        # ones before the fault's ran (and none of them faulted: the replay of a target's
        # returned values, which leaves out what never ran, cannot tell that of a wave it
        # did not run), the ones after it did not
        unit, what = (full.group_size, "workgroup") if full.synchronises else (wave, "wave")
        earlier = [h for h in range(g // unit * unit) if status[h] == NEVER_RAN]
        if earlier:
            return _fail("R1 exception",
                         f"policy sequential: workitem {earlier[0]} never ran, in a {what} "
                         "before the reported fault's", earlier[:8], COMPLETED, NEVER_RAN)
        later = [h for h in range((g // unit + 1) * unit, n) if status[h] != NEVER_RAN]
        if later:
            return _fail("R1 exception",
                         f"policy sequential: workitem {later[0]} ran in a {what} after "
                         f"the reported fault's", later[:8], NEVER_RAN, status[later[0]])
    return None


def _r2_fates(case: Case, full: FullRun, outcome: Outcome) -> Verdict | None:
    """R2: each workitem's status is its fate or never-ran (never-ran only with an
    exception reported; an exhausted workitem only never-ran), and a `faults` list names
    exactly the faulted workitems, each with its fate."""
    n, fates, status = case.n, full.fates, outcome.status
    for g in full.exhausted:  # it can neither complete nor fault: only never-ran is legal
        if status[g] != NEVER_RAN:
            return _fail("R2 fates", f"workitem {g} runs out of its loop-trip budget, so a "
                         "target that runs it reports the step_budget error; it is "
                         f"{status[g]}", [g], "step_budget error or never_ran", status[g])
    for g in range(n):
        want = _fate_name(fates[g])
        if status[g] not in (want, NEVER_RAN):
            return _fail("R2 fates", f"workitem {g} is {status[g]}, its fate is {want}",
                         [g], want, status[g])
    if outcome.exception is None:
        never = [g for g in range(n) if status[g] == NEVER_RAN]
        if never:
            return _fail("R2 fates", "workitems never ran although no exception was reported",
                         never[:8], COMPLETED, NEVER_RAN)
    if full.synchronises:
        partial = _partly_never_ran(n, full.group_size, status)
        if partial is not None:
            group, unrun, size = partial
            return _fail("R2 fates", f"workgroup {group} is partly never-ran, but its "
                         "workitems meet at barriers: a workgroup runs whole or not at all",
                         unrun[:8], "whole workgroup", f"{len(unrun)} of {size} workitems")
    if outcome.faults is None:
        return None
    for g, f in sorted(outcome.faults.items()):  # the target lists every one it saw fault
        if not 0 <= g < n:
            return _fail("R2 fates", f"faults entry for workitem {g}, which does not "
                         "exist", [g], None, f)
        if status[g] != FAULTED:
            return _fail("R2 fates", f"faults entry for workitem {g}, whose status is "
                         f"{status[g]}", [g], FAULTED, status[g])
        if fates[g] != f:
            return _fail("R2 fates", f"faults entry for workitem {g} differs from its "
                         "fate", [g], fates[g], f)
    missing = [g for g in range(n) if status[g] == FAULTED and g not in outcome.faults]
    if missing:
        return _fail("R2 fates", f"workitem {missing[0]} is faulted but has no faults "
                     "entry", missing[:8], fates[missing[0]], None)
    return None


class FloatBuffers(frozenset[str]):
    """The names of a case's float buffers (their elements are bits: compared as such,
    shown as floats); `wide` names those of f64."""

    wide: frozenset[str] = frozenset()


def float_buffers(case: Case) -> FloatBuffers:
    """The case's buffers of f32 and f64."""
    out = FloatBuffers(p.name for p in case.function.params
                       if p.ty.is_buffer and p.ty.element.is_float)
    out.wide = frozenset(p.name for p in case.function.params
                         if p.ty.is_buffer and p.ty.element is F64)
    return out


def _storage_forms(full: FullRun, outcome: Outcome) -> Verdict | None:
    """R3: each buffer holds values of its element type as outcomes write them (its
    storage form: an integer's value; a float's bits as a signed integer of its width),
    where an f32's bits may also come as a u32 and a value of 2^63 or more, read as its 64
    bits, is a u64's value or an f64's bits (docs/case-format.md) -- not wrapped into
    one a buffer of another type could hold."""
    for name, ty in full.elements.items():
        got = outcome.buffers.get(name)
        if got is None:
            continue
        if name in outcome.unsigned and ty not in (U64, F64):
            return _fail("R3 memory", f"buffer {name} ({ty}) is written with a value of 2^63 "
                         "or more, which only a u64's value or an f64's bits can be",
                         expected=str(ty))
        if ty is F32:
            bits = np.asarray(got, dtype=np.int64)
            wrong = np.flatnonzero((bits < -2**31) | (bits >= 2**32))
            if wrong.size:
                i = int(wrong[0])
                return _fail("R3 memory", f"{name}[{i}] holds {int(bits[i])}, which is no "
                             "f32's bits (32 bits, written as an i32 or a u32)",
                             expected="32 bits", actual=int(bits[i]))
    return None


def canonical_floats(outcome: Outcome, floats: frozenset[str]) -> Outcome:
    """`outcome` with every NaN of its float buffers the one quiet NaN of its width: any
    NaN equals any NaN (docs/semantics.md, "32-bit floats"), whatever sign or payload a
    target left."""
    if not floats or not any(name in outcome.buffers for name in floats):
        return outcome
    wide: frozenset[str] = getattr(floats, "wide", frozenset())
    buffers = dict(outcome.buffers)
    for name in floats & set(buffers):
        bits = np.asarray(buffers[name], dtype=np.int64)
        if name in wide:
            exponent, fraction = (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
            buffers[name] = np.where((exponent == 0x7FF) & (fraction != 0), f64.NAN_BITS,
                                     bits)
            continue
        exponent, fraction = (bits >> 23) & 0xFF, bits & 0x7FFFFF
        buffers[name] = np.where((exponent == 0xFF) & (fraction != 0), f32.NAN_BITS,
                                 bits).astype(np.int32)
    return dataclasses.replace(outcome, buffers=buffers)


def shown(name: str, value: int, floats: frozenset[str]) -> int | float:
    """An element as a report shows it: a float buffer's as its float."""
    if name in getattr(floats, "wide", ()):
        return f64.from_bits(value)
    return f32.from_bits(value) if name in floats else value


def _value(full: FullRun, name: str, value: int, floats: frozenset[str] = frozenset()
           ) -> int | float:
    """An element of a kernel's buffer as a report shows it (`shown`), a u64's as its
    value: its storage form is the i64 of its bits (docs/semantics.md, "Integer types")."""
    if _element(full, name) is U64:
        return value % (1 << 64)
    return shown(name, value, floats)


def _r3_memory(full: FullRun, outcome: Outcome, floats: frozenset[str] = frozenset()
               ) -> Verdict | None:
    """R3: every plain location holds what the ran workitems' write logs leave there."""
    exp = _expected_memory(full, [s != NEVER_RAN for s in outcome.status])
    if set(outcome.buffers) != set(exp.plain):
        return _fail("R3 memory", "the outcome's buffers are not the case's buffers",
                     expected=sorted(exp.plain), actual=sorted(outcome.buffers))
    for name, want_buf in exp.plain.items():
        got = np.asarray(outcome.buffers[name], dtype=np.int64)
        if got.shape != want_buf.shape:
            return _fail("R3 memory", f"buffer {name} has {got.size} values, not {want_buf.size}",
                         expected=want_buf.size, actual=got.size)
        for i in np.nonzero(got != want_buf)[0]:
            if (name, int(i)) in exp.atomic_locations:
                continue
            return _memory_mismatch(full, outcome.status, name, int(i), int(want_buf[i]),
                                    int(got[i]), floats)
    return None


def _r4_atomics(full: FullRun, outcome: Outcome) -> Verdict | None:
    """R4: each atomic location holds its initial value plus the ran workitems' adds; in a
    kernel whose atomics are ordered, the values they returned form an order, and the
    location holds the value it ends at."""
    exp = _expected_memory(full, [s != NEVER_RAN for s in outcome.status])
    for (buf, index), want_v in sorted(exp.atomic.items()):
        got_v = int(outcome.buffers[buf][index])
        if got_v != want_v and full.ordered:
            who = sorted({g for g, _ in _writers(full, buf, index, True)
                          if outcome.status[g] != NEVER_RAN})
            return _fail("R4 atomics", f"{buf}[{index}] holds {_value(full, buf, got_v)}, "
                         "but its atomics, in the order the values they returned give, "
                         f"leave {_value(full, buf, want_v)}", who[:8], want_v, got_v)
        if got_v != want_v:
            return _atomic_mismatch(full, outcome.status, buf, index, want_v, got_v)
    return None


def _r4_order(full: FullRun, outcome: Outcome, wide: bool) -> Verdict | None:
    """R4's first half for ordered atomics, checked first (R1-R3 replay the order it
    finds): each ran workitem reported exactly the values its atomics returned, and they
    form an order at every location; then a race the replay met is the kernel's. `wide`:
    the kernel has atomics on 64 bits (its log slots are 64-bit)."""
    failed = _r4_returned(full, outcome, wide)
    if failed is None and full.replay_error is not None:
        return _fail("R0 error", f"oracle error: {full.replay_error} (in the order the "
                     "target's atomics took, which their returned values show is one)")
    return failed


def _r4_returned(full: FullRun, outcome: Outcome, wide: bool) -> Verdict | None:
    reported = outcome.returned
    if reported is None:
        return _fail("R4 atomics", "the kernel's atomics return values, but the target "
                     "reported none")
    if len(reported) != full.n:
        return _fail("R4 atomics", f"returned values for {len(reported)} workitems, not "
                     f"{full.n}", expected=full.n, actual=len(reported))
    for g in full.unused_returns:
        if outcome.status[g] != NEVER_RAN:
            return _fail("R4 atomics", f"workitem {g} reported {len(reported[g])} returned "
                         f"values but ran {len(full.returned[g])} atomics", [g],
                         len(full.returned[g]), len(reported[g]))
    for g, r in enumerate(reported):
        if r and outcome.status[g] == NEVER_RAN:
            return _fail("R4 atomics", f"workitem {g} is never-ran but reported values its "
                         "atomics returned", [g], [], r[:8])
    for g, (r, replayed) in enumerate(zip(reported, full.returned)):
        # the replay took each reported value as its atomic's type holds it: a value
        # that changed on the way is none of that type's (a u8's 259), unless it is a
        # u32's as an i32 log slot holds it (docs/semantics.md, "What a target reports")
        if r[:len(replayed)] != replayed:
            for k, (v, held) in enumerate(zip(r, replayed)):
                if v != held and (wide or not (v < 0 and v + 2**32 == held)):
                    return _fail("R4 atomics", f"workitem {g}'s atomic #{k + 1} returned "
                                 f"{v}, which is no value of the atomic's type (as that "
                                 f"type holds it: {held})", [g], held, v)
    exp = _expected_memory(full, [s != NEVER_RAN for s in outcome.status])
    if exp.disorder is not None:
        message, who, undecided = exp.disorder
        if undecided:
            return unordered(message)
        return _fail("R4 atomics", message, who)
    return None


def _r5_granularity(case: Case, outcome: Outcome) -> Verdict | None:
    """R5: never-ran comes in whole waves."""
    partial = _partly_never_ran(case.n, case.wave, outcome.status)
    if partial is None:
        return None
    wave, unrun, size = partial
    return _fail("R5 granularity", f"wave {wave} is partly never-ran", unrun[:8],
                 "whole wave", f"{len(unrun)} of {size} lanes")


def _partly_never_ran(n: int, unit: int, status: list[str]
                      ) -> tuple[int, list[int], int] | None:
    """The first run of `unit` consecutive workitems (a wave, a workgroup) of which some
    but not all are never-ran: its number, those workitems and its size; or None."""
    for start in range(0, n, unit):
        members = range(start, min(start + unit, n))
        unrun = [g for g in members if status[g] == NEVER_RAN]
        if unrun and len(unrun) != len(members):
            return start // unit, unrun, len(members)
    return None


def memory_differences(full: OracleRun | None, outcome: Outcome, limit: int = 20,
                       floats: frozenset[str] = frozenset()
                       ) -> tuple[list[tuple[str, int, Any, Any, list[int]]], int]:
    """Where the outcome's memory differs from what a run of its ran workitems leaves:
    up to `limit` (buffer, index, expected, actual, writers) rows, and how many differ
    in all. A location only atomics touch is compared with its sum (R4). The values of
    the buffers in `floats` (`float_buffers`) are compared as bits and given as floats.
    A host program's memory is checked per launch and at its end (its verdict says
    where): no rows."""
    if not isinstance(full, FullRun) or outcome.error is not None \
            or len(outcome.status) != len(full.writes):
        return [], 0
    outcome = canonical_floats(outcome, floats)
    exp = _expected_memory(full, [s != NEVER_RAN for s in outcome.status])
    rows: list[tuple[str, int, Any, Any, list[int]]] = []
    total = 0
    for name, want_buf in exp.plain.items():
        if name not in outcome.buffers:
            continue
        got = np.asarray(outcome.buffers[name], dtype=np.int64)
        if got.shape != want_buf.shape:
            continue
        want = want_buf.copy()
        for (buf, i), v in exp.atomic.items():
            if buf == name:
                want[i] = v
        for i in np.nonzero(got != want)[0].tolist():
            if (name, i) in exp.unordered:
                continue  # (R4 says why: no order of its atomics)
            total += 1
            if len(rows) < limit:
                atomic = (name, i) in exp.atomic_locations
                who = sorted({g for g, _ in _writers(full, name, i, atomic)})
                rows.append((name, i, _value(full, name, int(want[i]), floats),
                             _value(full, name, int(got[i]), floats), who))
    return rows, total


def _writers(full: FullRun, name: str, i: int, atomic: bool) -> list[tuple[int, int]]:
    return [(g, w.value) for g, log in enumerate(full.writes) for w in log
            if w.buffer == name and w.index == i and w.atomic == atomic]


def _memory_mismatch(full: FullRun, status: list[str], name: str, i: int,
                     want: int, got: int, floats: frozenset[str] = frozenset()) -> Verdict:
    writers = _writers(full, name, i, atomic=False)
    who = sorted({g for g, _ in writers})
    loc = f"{name}[{i}]"
    for g, value in writers:
        if status[g] == NEVER_RAN and got == value:
            return _fail("R3 memory", f"workitem {g} is never-ran but its write to {loc} is "
                         "visible", [g], want, got)
    ran_writers = [g for g in who if status[g] != NEVER_RAN]
    if ran_writers and got == int(full.initial[name][i]):
        g = ran_writers[-1]
        return _fail("R3 memory", f"workitem {g} ran ({status[g]}) but its write to {loc} is "
                     "missing (half-done?)", [g], want, got)
    if not who:
        return _fail("R3 memory", f"{loc} changed although no workitem writes it", [],
                     want, got)
    return _fail("R3 memory", f"{loc} holds {_value(full, name, got, floats)!r}, expected "
                 f"{_value(full, name, want, floats)!r}", who[:8], want, got)


def _atomic_mismatch(full: FullRun, status: list[str], name: str, i: int,
                     want: int, got: int) -> Verdict:
    loc = f"{name}[{i}]"
    ty = _element(full, name)
    diff = _wrap(got - want, ty)
    for g, value in _writers(full, name, i, atomic=True):
        if diff == value and status[g] != NEVER_RAN:
            return _fail("R4 atomics", f"workitem {g}'s contribution {value} to {loc} is "
                         "counted twice", [g], want, got)
        if diff == value:
            return _fail("R4 atomics", f"never-ran workitem {g}'s contribution {value} to "
                         f"{loc} is visible", [g], want, got)
        if diff == _wrap(-value, ty) and status[g] != NEVER_RAN:
            return _fail("R4 atomics", f"workitem {g}'s contribution {value} to {loc} is "
                         "missing", [g], want, got)
    who = sorted({g for g, _ in _writers(full, name, i, atomic=True)})
    return _fail("R4 atomics", f"{loc} holds {_value(full, name, got)}, expected "
                 f"{_value(full, name, want)}", who[:8], want, got)


def _check_host(case: Case, run: HostRun, outcome: Outcome, policy: str,
                wave_granularity: bool) -> Verdict:
    """A host program (docs/semantics.md, "Host programs"): R6 host -- the same host error
    at the same step and the same observations -- then, when a launch ended the program,
    that launch by the rules above (its buffers under their parameter names; the others
    exactly as the model has them), else every buffer exactly and no exception."""
    if outcome.error is not None and outcome.error.kind != "step_budget":
        # only a launch out of budget can end both sides with an error: any other target
        # error is the cause, and the observations it cut short only its consequence
        return _fail("R0 error", f"target error: {outcome.error}", actual=outcome.error)
    got = outcome.host or {"observations": [], "error": None}
    want_err = None if run.error is None else [run.error[0], run.error[1]]
    if outcome.error is None and got.get("error") != want_err:
        return _fail("R6 host", "the host program's error differs", expected=want_err,
                     actual=got.get("error"))
    want_obs = [[i, list(v)] for i, v in run.observations]
    got_obs = [[i, list(v)] for i, v in got.get("observations", [])]
    if outcome.error is None or run.ended_by is not None:
        for k, (w, g) in enumerate(zip(want_obs, got_obs)):
            if w != g:
                return _fail("R6 host", f"observation {k} (host step {w[0]}) differs",
                             expected=w, actual=g)
        if len(want_obs) != len(got_obs):
            return _fail("R6 host", "the host program made another number of observations",
                         expected=len(want_obs), actual=len(got_obs))
    if run.ended_by is None:
        if outcome.error is not None:
            return _fail("R0 error", f"target error: {outcome.error}", actual=outcome.error)
        if outcome.exception is not None:
            return _fail("R1 exception", "an exception is reported but no launch faults",
                         [outcome.exception.gid], None, outcome.exception.to_json())
        # the last launch (whose fates the outcome holds) ran every workitem to its end
        items = case.n if run.launches else 0
        if len(outcome.status) != items:
            return _fail("R2 fates", f"status has {len(outcome.status)} entries for {items} "
                         "workitems (of the last launch)", expected=items,
                         actual=len(outcome.status))
        unfinished = [g for g, s in enumerate(outcome.status) if s != COMPLETED]
        if unfinished:
            first = unfinished[0]
            return _fail("R2 fates", f"workitem {first} of the last launch is "
                         f"{outcome.status[first]}, but no launch faults", unfinished[:8],
                         COMPLETED, outcome.status[first])
        if outcome.faults:
            first = min(outcome.faults)
            return _fail("R2 fates", f"a fault is listed for workitem {first}, but no "
                         "launch faults", [first], None, outcome.faults[first].to_json())
        return _same_buffers(run.final, outcome.buffers, "R6 host")
    bound = set(run.binding.values())
    missing = sorted(p for p, b in run.binding.items() if b not in outcome.buffers)
    if missing:
        p = missing[0]
        return _fail("R3 memory", f"the outcome has no buffer {run.binding[p]}, bound to "
                     f"parameter {p} of the launch that ended the program",
                     expected=run.binding[p], actual=None)
    launch_bufs = {p: outcome.buffers.get(b, np.zeros(0, np.int64))
                   for p, b in run.binding.items()}
    verdict = check_outcome(run.ended_by, run.full, Outcome(
        launch_bufs, outcome.exception, outcome.status, outcome.faults, outcome.error,
        unsigned=frozenset(p for p, b in run.binding.items() if b in outcome.unsigned)),
        policy, wave_granularity)
    if not verdict.agree or outcome.error is not None:
        return verdict
    rest = {k: v for k, v in outcome.buffers.items() if k not in bound}
    return _same_buffers({k: v for k, v in run.final.items() if k not in bound}, rest,
                         "R6 host")


def _same_buffers(want: dict[str, np.ndarray], got: dict[str, np.ndarray],
                  rule: str) -> Verdict:
    """Every buffer exactly. A host program's end observes every buffer alive (R6: a
    trailing `read` and the end show the same difference, so a reduction may drop it)."""
    where = " at the program's end" if rule == "R6 host" else ""
    if set(want) != set(got):
        return _fail(rule, f"the outcome's buffers are not the program's buffers{where}",
                     expected=sorted(want), actual=sorted(got))
    for name, w in want.items():
        g = np.asarray(got[name], dtype=np.int64)
        if g.shape != w.shape:
            return _fail(rule, f"buffer {name} has {g.size} values, not {w.size}{where}",
                         expected=w.size, actual=g.size)
        differ = np.nonzero(g != w.astype(np.int64))[0]
        if differ.size:
            i = int(differ[0])
            return _fail(rule, f"buffer {name}[{i}] is {int(g[i])}, not {int(w[i])}{where}",
                         expected=int(w[i]), actual=int(g[i]))
    return AGREE
