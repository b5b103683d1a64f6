"""The reference oracle: docs/semantics.md made executable, written to be obviously correct.

A tree-walking interpreter that runs one wave at a time, its lanes in lockstep, with
maximal reconvergence made structural: every statement and expression is evaluated for a
*list of active lanes* and returns the lanes that come out of it normally.

- if/else: the then-lanes run the then-block, then the else-lanes the else-block; both
  groups rejoin after it.
- loops: lanes are grouped by trip number; the lanes still iterating run trip j together
  (so a wave op in the body sees exactly them); `continue` parks a lane until the next
  trip, `break` until the loop's exit.
- helper calls: a `return` parks the lane until the whole call finishes (the rejoin at the
  call's return point); a kernel `return` ends the lane.
- `x if c else y`, `and`, `or`: each side is evaluated only for the lanes that take it.
- a fault removes its lane for good; the fault's stack is the chain of call sites plus the
  faulting node, innermost last.

Operator semantics live here and nowhere else (STYLE.md: the target must not share them).
Values are canonical Python ints of their type's width (bools for bool, `_Ref` for buffer
references); every arithmetic result goes through `_wrap`.

The oracle also enforces the race rule (a racy kernel is an `OracleError`: outside
the semantics) and the loop-trip budget (docs/semantics.md, "Budgets"): a workitem that
would start a trip past its share stops there, like a fault that is not one, and is listed
in `FullRun.exhausted`; the full run goes on, so it is still the whole truth the checker
needs, and it never runs more than `work_budget` trips in all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable

import numpy as np

from difftest.core.case import Case
from difftest.core.errors import OracleError
from difftest.core.options import describe_budget, trip_budget
from difftest.core.ir import nodes as n
from difftest.core.ir.types import Type
from difftest.core.outcome import (
    COMPLETED,
    FAULTED,
    ExceptionReport,
    Fault,
    Frame,
    Outcome,
)



@dataclass(frozen=True)
class Write:
    """One entry of a workitem's write log: a plain store or an atomic contribution."""

    buffer: str
    index: int
    value: int
    atomic: bool = False


@dataclass
class FullRun:
    """Every workitem run once, each faulting one stopped at its fault and each one past
    its trip budget stopped there (`exhausted`: their fate is None, but they neither
    completed nor faulted)."""

    n: int
    wave: int
    fates: list[Fault | None]  # None = completed (or exhausted)
    writes: list[list[Write]]
    initial: dict[str, np.ndarray]
    final: dict[str, np.ndarray]
    exhausted: list[int] = field(default_factory=list)  # ascending gids
    budget_text: str = ""
    trips: list[int] = field(default_factory=list)  # loop trips each workitem ran

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
        return Outcome(bufs, exc, status, faults)

    def budget_error(self) -> str:
        return (f"step_budget: workitem {self.exhausted[0]} ran out of its budget of "
                f"{self.budget_text}")


# ------------------------------------------------------------------ operators


def _wrap(v: int, bits: int) -> int:
    mask = (1 << bits) - 1
    v &= mask
    return v - (1 << bits) if v >> (bits - 1) else v


class _DivZero(Exception):
    pass


def _tdiv(a: int, b: int) -> int:
    """Division truncating toward zero, on unbounded ints (wrapped by the caller)."""
    if b == 0:
        raise _DivZero
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _trem(a: int, b: int) -> int:
    return a - b * _tdiv(a, b)


_ARITH: dict[str, Callable[[int, int, int], int]] = {
    "+": lambda a, b, bits: _wrap(a + b, bits),
    "-": lambda a, b, bits: _wrap(a - b, bits),
    "*": lambda a, b, bits: _wrap(a * b, bits),
    "//": lambda a, b, bits: _wrap(_tdiv(a, b), bits),
    "%": lambda a, b, bits: _wrap(_trem(a, b), bits),
    "&": lambda a, b, bits: _wrap(a & b, bits),
    "|": lambda a, b, bits: _wrap(a | b, bits),
    "^": lambda a, b, bits: _wrap(a ^ b, bits),
    "<<": lambda a, b, bits: _wrap(a << (b & (bits - 1)), bits),
    ">>": lambda a, b, bits: _wrap(a >> (b & (bits - 1)), bits),
}

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _bits(ty: Type | None) -> int:
    assert ty is not None and ty.is_int, f"expected an integer type, got {ty}"
    return ty.bits


# ---------------------------------------------------------------- run state


@dataclass(frozen=True)
class _Ref:
    """A buffer reference value (what a Buffer-typed variable holds)."""

    name: str


@dataclass
class _Loop:
    broken: set[int] = field(default_factory=set)
    continued: set[int] = field(default_factory=set)


@dataclass
class _Activation:
    """One function activation for a group of lanes (each lane its own variables)."""

    fn: n.Function
    env: dict[int, dict[str, Any]]
    callers: tuple[Frame, ...]
    returned: dict[int, Any] = field(default_factory=dict)
    loops: list[_Loop] = field(default_factory=list)


class _Memory:
    """Buffers plus the race rule and the per-workitem write logs."""

    def __init__(self, buffers: dict[str, np.ndarray], n_items: int) -> None:
        self.data = {k: [int(x) for x in v] for k, v in buffers.items()}
        self.bits = {k: 32 if v.dtype == np.int32 else 64 for k, v in buffers.items()}
        self.writes: list[list[Write]] = [[] for _ in range(n_items)]
        # location -> (plain writers, readers, atomic updaters), at most two gids each:
        # enough to name a second workitem whenever one exists.
        self.touched: dict[tuple[str, int], tuple[list[int], list[int], list[int]]] = {}

    def in_bounds(self, ref: _Ref, index: int) -> bool:
        return 0 <= index < len(self.data[ref.name])

    def _touch(self, gid: int, ref: _Ref, index: int, kind: int) -> None:
        rec = self.touched.setdefault((ref.name, index), ([], [], []))
        what = ("stores to", "loads", "atomically updates")
        # kind 0 (store) conflicts with everything; a load with stores and atomics; an
        # atomic with stores and loads.
        conflicts = {0: (0, 1, 2), 1: (0, 2), 2: (0, 1)}[kind]
        for c in conflicts:
            for other in rec[c]:
                if other != gid:
                    raise OracleError(
                        "race",
                        f"workitem {other} {what[c]} {ref.name}[{index}] and workitem {gid} "
                        f"{what[kind]} it",
                    )
        if gid not in rec[kind] and len(rec[kind]) < 2:
            rec[kind].append(gid)

    def load(self, gid: int, ref: _Ref, index: int) -> int:
        self._touch(gid, ref, index, 1)
        return self.data[ref.name][index]

    def store(self, gid: int, ref: _Ref, index: int, value: int) -> None:
        self._touch(gid, ref, index, 0)
        value = _wrap(value, self.bits[ref.name])
        self.data[ref.name][index] = value
        self.writes[gid].append(Write(ref.name, index, value))

    def atomic_add(self, gid: int, ref: _Ref, index: int, value: int) -> None:
        self._touch(gid, ref, index, 2)
        bits = self.bits[ref.name]
        self.data[ref.name][index] = _wrap(self.data[ref.name][index] + value, bits)
        self.writes[gid].append(Write(ref.name, index, _wrap(value, bits), atomic=True))


Values = dict[int, Any]  # lane -> value, for the lanes that evaluated without faulting


class _WaveRun:
    """Executes one wave. Lane lists are always in ascending lane order."""

    def __init__(self, prog: n.Program, mem: _Memory, wave_index: int, wave: int,
                 fates: list[Fault | None], steps: list[int], budget: int,
                 exhausted: list[int]) -> None:
        self.prog = prog
        self.mem = mem
        self.wave_index = wave_index
        self.base = wave_index * wave
        self.fates = fates
        self.steps = steps
        self.budget = budget
        self.exhausted = exhausted
        self.dead: set[int] = set()

    # --------------------------------------------------------------- helpers

    def gid(self, lane: int) -> int:
        return self.base + lane

    def fault(self, act: _Activation, lane: int, kind: str, line: int,
              code: int | None = None) -> None:
        stack = act.callers + (Frame(act.fn.name, line),)
        self.fates[self.gid(lane)] = Fault(kind, stack, code)
        self.dead.add(lane)

    def trip(self, lanes: list[int]) -> list[int]:
        """Count a loop trip for each lane; a lane past its budget stops for good (it
        neither completes nor faults). Returns the lanes that go on."""
        going = []
        for lane in lanes:
            g = self.gid(lane)
            self.steps[g] += 1
            if self.steps[g] > self.budget:
                self.exhausted.append(g)
                self.dead.add(lane)
            else:
                going.append(lane)
        return going

    def live(self, lanes: Iterable[int]) -> list[int]:
        return sorted(lane for lane in lanes if lane not in self.dead)

    # ------------------------------------------------------------- functions

    def call(self, fn: n.Function, lanes: list[int], args: dict[int, list[Any]],
             callers: tuple[Frame, ...]) -> Values:
        env = {lane: {p.name: a for p, a in zip(fn.params, args[lane])} for lane in lanes}
        act = _Activation(fn, env, callers)
        fell_through = self.block(act, fn.body, lanes)
        out: Values = {lane: None for lane in fell_through}
        out.update(act.returned)
        return {lane: out[lane] for lane in self.live(out)}

    # ------------------------------------------------------------ statements

    def block(self, act: _Activation, stmts: tuple[n.Stmt, ...], lanes: list[int]) -> list[int]:
        for s in stmts:
            if not lanes:
                break
            lanes = getattr(self, "s_" + type(s).__name__)(act, s, lanes)
        return lanes

    def s_Assign(self, act: _Activation, s: n.Assign, lanes: list[int]) -> list[int]:
        vals = self.evaluate(act, s.value, lanes)
        for lane, v in vals.items():
            act.env[lane][s.target] = v
        return list(vals)

    def s_Store(self, act: _Activation, s: n.Store, lanes: list[int]) -> list[int]:
        vals = self.evaluate(act, s.value, lanes)
        idx = self.evaluate(act, s.index, list(vals))
        out = []
        for lane, i in idx.items():
            ref = act.env[lane][s.buffer]
            if not self.mem.in_bounds(ref, i):
                self.fault(act, lane, "out_of_bounds", s.line)
                continue
            self.mem.store(self.gid(lane), ref, i, vals[lane])
            out.append(lane)
        return out

    def s_AtomicAdd(self, act: _Activation, s: n.AtomicAdd, lanes: list[int]) -> list[int]:
        # Arguments left to right (buffer, index, value), then the bounds check.
        idx = self.evaluate(act, s.index, lanes)
        vals = self.evaluate(act, s.value, list(idx))
        out = []
        for lane, v in vals.items():
            ref = act.env[lane][s.buffer]
            if not self.mem.in_bounds(ref, idx[lane]):
                self.fault(act, lane, "out_of_bounds", s.line)
                continue
            self.mem.atomic_add(self.gid(lane), ref, idx[lane], v)
            out.append(lane)
        return out

    def s_If(self, act: _Activation, s: n.If, lanes: list[int]) -> list[int]:
        cond = self.evaluate(act, s.cond, lanes)
        then = [lane for lane, c in cond.items() if c]
        orelse = [lane for lane, c in cond.items() if not c]
        out = self.block(act, s.then, then) if then else []
        out += self.block(act, s.orelse, orelse) if orelse else []
        return self.live(out)

    def s_For(self, act: _Activation, s: n.For, lanes: list[int]) -> list[int]:
        start = self.evaluate(act, s.start, lanes)
        stop = self.evaluate(act, s.stop, list(start))
        iterating = list(stop)
        left: set[int] = set()  # lanes that finished the range or broke out
        trip = 0
        while True:
            active = [lane for lane in iterating if start[lane] + trip < stop[lane]]
            left.update(lane for lane in iterating if start[lane] + trip >= stop[lane])
            active = self.trip(active)  # a step is a loop trip (empty bodies included)
            if not active:
                break
            for lane in active:
                act.env[lane][s.var] = start[lane] + trip
            loop = _Loop()
            act.loops.append(loop)
            done = self.block(act, s.body, active)
            act.loops.pop()
            left |= loop.broken
            iterating = self.live(set(done) | loop.continued)
            trip += 1
        return self.live(left)

    def s_While(self, act: _Activation, s: n.While, lanes: list[int]) -> list[int]:
        iterating = lanes
        left: set[int] = set()  # lanes that broke out
        while True:
            active = self.trip(iterating)  # every trip is a step of each lane making it
            if not active:
                break
            loop = _Loop()
            act.loops.append(loop)
            done = self.block(act, s.body, active)
            act.loops.pop()
            left |= loop.broken
            iterating = self.live(set(done) | loop.continued)
        return self.live(left)

    def s_Break(self, act: _Activation, s: n.Break, lanes: list[int]) -> list[int]:
        act.loops[-1].broken.update(lanes)
        return []

    def s_Continue(self, act: _Activation, s: n.Continue, lanes: list[int]) -> list[int]:
        act.loops[-1].continued.update(lanes)
        return []

    def s_Return(self, act: _Activation, s: n.Return, lanes: list[int]) -> list[int]:
        if s.value is None:
            act.returned.update({lane: None for lane in lanes})
        else:
            act.returned.update(self.evaluate(act, s.value, lanes))
        return []

    def s_Fail(self, act: _Activation, s: n.Fail, lanes: list[int]) -> list[int]:
        for lane, code in self.evaluate(act, s.code, lanes).items():
            self.fault(act, lane, "fail", s.line, code)
        return []

    def s_CallStmt(self, act: _Activation, s: n.CallStmt, lanes: list[int]) -> list[int]:
        return list(self.evaluate(act, s.call, lanes))

    # ----------------------------------------------------------- expressions

    def evaluate(self, act: _Activation, e: n.Expr, lanes: list[int]) -> Values:
        if not lanes:
            return {}
        result: Values = getattr(self, "e_" + type(e).__name__)(act, e, lanes)
        return result

    def e_Const(self, act: _Activation, e: n.Const, lanes: list[int]) -> Values:
        return {lane: e.value for lane in lanes}

    def e_Name(self, act: _Activation, e: n.Name, lanes: list[int]) -> Values:
        return {lane: act.env[lane][e.id] for lane in lanes}

    def e_WorkId(self, act: _Activation, e: n.WorkId, lanes: list[int]) -> Values:
        if e.which == "gid":
            return {lane: self.gid(lane) for lane in lanes}
        if e.which == "lane":
            return {lane: lane for lane in lanes}
        return {lane: self.wave_index for lane in lanes}

    def e_Unary(self, act: _Activation, e: n.Unary, lanes: list[int]) -> Values:
        vals = self.evaluate(act, e.operand, lanes)
        if e.op == "not":
            return {lane: not v for lane, v in vals.items()}
        bits = _bits(e.ty)
        if e.op == "-":
            return {lane: _wrap(-v, bits) for lane, v in vals.items()}
        return {lane: _wrap(~v, bits) for lane, v in vals.items()}

    def e_Binary(self, act: _Activation, e: n.Binary, lanes: list[int]) -> Values:
        left = self.evaluate(act, e.left, lanes)
        right = self.evaluate(act, e.right, list(left))
        op, bits = _ARITH[e.op], _bits(e.ty)
        out: Values = {}
        for lane, b in right.items():
            try:
                out[lane] = op(left[lane], b, bits)
            except _DivZero:
                self.fault(act, lane, "division_by_zero", e.line)
        return out

    def e_Compare(self, act: _Activation, e: n.Compare, lanes: list[int]) -> Values:
        left = self.evaluate(act, e.left, lanes)
        right = self.evaluate(act, e.right, list(left))
        op = _COMPARE[e.op]
        return {lane: op(left[lane], b) for lane, b in right.items()}

    def e_Logic(self, act: _Activation, e: n.Logic, lanes: list[int]) -> Values:
        left = self.evaluate(act, e.left, lanes)
        short = e.op == "or"  # the left value that decides without the right side
        out = {lane: short for lane, v in left.items() if v is short}
        out.update(self.evaluate(act, e.right, [lane for lane, v in left.items() if v is not short]))
        return {lane: out[lane] for lane in sorted(out)}

    def e_Select(self, act: _Activation, e: n.Select, lanes: list[int]) -> Values:
        cond = self.evaluate(act, e.cond, lanes)
        out = self.evaluate(act, e.then, [lane for lane, c in cond.items() if c])
        out.update(self.evaluate(act, e.orelse, [lane for lane, c in cond.items() if not c]))
        return {lane: out[lane] for lane in sorted(out)}

    def e_Load(self, act: _Activation, e: n.Load, lanes: list[int]) -> Values:
        idx = self.evaluate(act, e.index, lanes)
        out: Values = {}
        for lane, i in idx.items():
            ref = act.env[lane][e.buffer]
            if not self.mem.in_bounds(ref, i):
                self.fault(act, lane, "out_of_bounds", e.line)
                continue
            out[lane] = self.mem.load(self.gid(lane), ref, i)
        return out

    def e_Len(self, act: _Activation, e: n.Len, lanes: list[int]) -> Values:
        return {lane: len(self.mem.data[act.env[lane][e.buffer].name]) for lane in lanes}

    def e_Cast(self, act: _Activation, e: n.Cast, lanes: list[int]) -> Values:
        bits = _bits(e.ty)
        return {lane: _wrap(int(v), bits) for lane, v in self.evaluate(act, e.operand, lanes).items()}

    def _args(self, act: _Activation, args: tuple[n.Expr, ...], lanes: list[int]
              ) -> dict[int, list[Any]]:
        """Arguments left to right; a lane faulting in one evaluates no later one."""
        got: dict[int, list[Any]] = {lane: [] for lane in lanes}
        for a in args:
            vals = self.evaluate(act, a, lanes)
            lanes = list(vals)
            for lane in lanes:
                got[lane].append(vals[lane])
        return {lane: got[lane] for lane in lanes}

    def e_Call(self, act: _Activation, e: n.Call, lanes: list[int]) -> Values:
        args = self._args(act, e.args, lanes)
        callers = act.callers + (Frame(act.fn.name, e.line),)
        return self.call(self.prog.function(e.func), list(args), args, callers)

    def e_WaveOp(self, act: _Activation, e: n.WaveOp, lanes: list[int]) -> Values:
        args = self._args(act, e.args, lanes)
        active = list(args)  # the lanes that reached the operation
        if not active:
            return {}
        if e.op == "elect":
            return {lane: lane == active[0] for lane in active}
        x = {lane: args[lane][0] for lane in active}
        op = e.op
        if op == "wave_any":
            return dict.fromkeys(active, any(x.values()))
        if op == "wave_all":
            return dict.fromkeys(active, all(x.values()))
        if op == "ballot":
            return dict.fromkeys(active, _wrap(sum(1 << lane for lane in active if x[lane]), 64))
        if op == "readfirstlane":
            return dict.fromkeys(active, x[active[0]])
        if op == "shuffle":
            zero = False if e.ty is not None and not e.ty.is_int else 0
            return {lane: x.get(args[lane][1], zero) for lane in active}
        bits = _bits(e.ty)
        if op == "wave_sum":
            return dict.fromkeys(active, _wrap(sum(x.values()), bits))
        if op == "wave_min":
            return dict.fromkeys(active, min(x.values()))
        if op == "wave_max":
            return dict.fromkeys(active, max(x.values()))
        out: Values = {}
        running = 0
        for lane in active:
            if op == "prefix_sum":
                out[lane] = _wrap(running, bits)
                running += x[lane]
            else:
                assert op == "inclusive_sum", op
                running += x[lane]
                out[lane] = _wrap(running, bits)
        return out


# ------------------------------------------------------------------- entry


def run_full(case: Case, options: dict[str, Any] | None = None) -> FullRun:
    """Run every workitem of the case once, wave after wave, under the budgets of
    `options` (default: the case's); raises OracleError for a race."""
    options = case.options if options is None else options
    budget = trip_budget(options, case.n)
    exhausted: list[int] = []
    fn = case.function
    initial = case.buffers()
    mem = _Memory(initial, case.n)
    fates: list[Fault | None] = [None] * case.n
    steps = [0] * case.n
    args = [
        _Ref(p.name) if p.ty.is_buffer else case.args[p.name] for p in fn.params
    ]
    n_waves = (case.n + case.wave - 1) // case.wave
    for w in range(n_waves):
        lanes = [lane for lane in range(case.wave) if w * case.wave + lane < case.n]
        run = _WaveRun(case.program, mem, w, case.wave, fates, steps, budget, exhausted)
        run.call(fn, lanes, {lane: list(args) for lane in lanes}, ())
    final = {
        k: np.array(mem.data[k], dtype=v.dtype) for k, v in initial.items()
    }
    return FullRun(case.n, case.wave, fates, mem.writes, initial, final, sorted(exhausted),
                   describe_budget(options, case.n), steps)


class ReferenceOracle:
    """The oracle, as the registry finds it (entry-point group `difftest.oracles`)."""

    name = "reference"

    def run_full(self, case: Case, options: dict[str, Any] | None = None) -> FullRun:
        return run_full(case, options)


class ReferenceTarget:
    """The oracle as a target (`--target reference`): runs everything, reports the
    lowest faulting workitem's exception; a race or budget overrun is an `error`."""

    name = "reference"
    description = "the reference oracle run as a target: every workitem, in wave order"
    capabilities = frozenset({"wave_ops", "faults"})
    option_names: tuple[str, ...] = ()  # only the common ones (difftest.core.options)
    mutant_names: tuple[str, ...] = ()

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome:
        try:
            return run_full(case, options).outcome()
        except OracleError as e:
            return Outcome(case.buffers(), None, [], None, error=str(e))
