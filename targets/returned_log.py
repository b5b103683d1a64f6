"""How a target reports the values its atomics returned (docs/semantics.md, "Atomics that
return"): the kernel itself writes them down.

In a kernel whose atomics are ordered, `logged` adds two buffers to the launch -- a log
of K slots per workitem and a count per workitem -- and after each atomic the statements
that append the value it returned to the workitem's slots. Every target runs the rewritten
kernel as it runs any other (numba-simt compiles it, the translations translate it), so
the log is written by the code under test, in the order the target's own atomics took;
`split` takes the two buffers off the outcome and hands the values over as
`Outcome.returned`. A workitem that ran more than K atomics overflows: `run_logged` runs
the launch again with room for the most any workitem reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from difftest.core.case import Case
from difftest.core.ir import check, to_source
from difftest.core.ir import nodes as n
from difftest.core.ir.types import BUF_I32, I32, I64, Type, buffer_of
from difftest.core.ir.walk import (has_ordered_atomics, kinds_reached, reachable, rewrite,
                                   walk, wide_atomics)
from difftest.core.outcome import Outcome, TargetError

#: the log's first room per workitem, and the most it grows to (the room is a scalar
#: argument of the kernel, so that a run with more is the same build)
FIRST_SLOTS, MOST_SLOTS = 64, 4096
#: the most log slots a launch may have in all
MOST_ENTRIES = 1 << 22


@dataclasses.dataclass(frozen=True)
class Names:
    log: str
    count: str
    slot: str
    room: str  # the scalar parameter holding `slots`
    slots: int


def ordered(case: Case) -> bool:
    return has_ordered_atomics(case.program, case.entry)


def _taken(program: n.Program) -> set[str]:
    """Every name the program uses (functions, parameters, variables, buffers)."""
    taken = {f.name for f in program.functions}
    for fn in program.functions:
        taken |= {p.name for p in fn.params}
        for node in walk(fn.body):
            for attr in ("target", "var", "id", "name", "buffer"):
                v = getattr(node, attr, None)
                if isinstance(v, str):
                    taken.add(v)
    return taken


def _fresh(taken: set[str], base: str) -> str:
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}{k}"
    return name


def _log_type(program: n.Program, entry: str) -> Type:
    """i32 slots where every atomic is on 32 bits or fewer (WGSL has no i64), else i64."""
    return I64 if wide_atomics(program, entry) else I32


def logged(case: Case, slots: int) -> tuple[Case, Names]:
    """`case` with its atomics' returned values written to a log of `slots` per
    workitem (module docstring)."""
    program, text, names, log_ty = _rewritten(case.program, case.entry)
    args = dict(case.args)
    args[names.log] = np.zeros(case.n * slots, dtype=np.int64 if log_ty is I64 else np.int32)
    args[names.count] = np.zeros(case.n, dtype=np.int32)
    args[names.room] = slots
    # (the text too: targets key what they compile by it)
    return dataclasses.replace(case, kernel=text, program=program, args=args), \
        dataclasses.replace(names, slots=slots)


_REWRITTEN: dict[tuple[int, str], tuple[n.Program, tuple[n.Program, str, Names, Type]]] = {}


def _rewritten(prog: n.Program, entry: str) -> tuple[n.Program, str, Names, Type]:
    """The logging program, its text, its names and its log's type: once per program
    (cached while the program lives; every schedule of a case runs it)."""
    key = (id(prog), entry)
    hit = _REWRITTEN.get(key)
    if hit is not None and hit[0] is prog:
        return hit[1]
    taken = _taken(prog)
    names = Names(_fresh(taken, "atomics_log"), _fresh(taken, "atomics_count"),
                  _fresh(taken, "atomics_slot"), _fresh(taken, "atomics_room"), 0)
    log_ty = _log_type(prog, entry)
    logging = {fn.name for fn in reachable(prog, entry) if _calls_atomics(prog, fn)}
    extra = (n.Param(names.log, buffer_of(log_ty)), n.Param(names.count, BUF_I32),
             n.Param(names.room, I32))
    functions = []
    for fn in prog.functions:
        if fn.name not in logging:
            functions.append(fn)
            continue
        body = _with_calls(_log_block(fn.body, names, log_ty, [0]), logging, names)
        functions.append(n.replace(fn, params=fn.params + extra, body=body))
    program = check(n.replace(prog, functions=tuple(functions)))
    if len(_REWRITTEN) >= 64:
        _REWRITTEN.clear()
    _REWRITTEN[key] = (prog, (program, to_source(program), names, log_ty))
    return _REWRITTEN[key][1]


def _calls_atomics(prog: n.Program, fn: n.Function) -> bool:
    kinds = kinds_reached(prog, fn.name)
    return n.AtomicOp in kinds or n.AtomicAdd in kinds


def _with_calls(body: tuple[n.Stmt, ...], logging: set[str], names: Names
                ) -> tuple[n.Stmt, ...]:
    """Calls of functions that log pass the two buffers on."""
    def fix(node: object) -> object:
        if isinstance(node, n.Call) and node.func in logging:
            return n.replace(node, args=node.args + (n.Name(names.log, line=node.line),
                                                     n.Name(names.count, line=node.line),
                                                     n.Name(names.room, line=node.line)))
        return node
    return rewrite(body, fix)


def _log_block(block: tuple[n.Stmt, ...], names: Names, log_ty: Type, adds: list[int]
               ) -> tuple[n.Stmt, ...]:
    out: list[n.Stmt] = []
    for s in block:
        if isinstance(s, n.AtomicAdd):  # an add among ordered atomics returns too
            adds[0] += 1  # each its own variable: adds to buffers of different types
            s = n.Assign(f"{names.slot}_add{adds[0]}", n.AtomicOp(
                "add", s.buffer, (s.index, s.value), line=s.line), line=s.line)
        if isinstance(s, n.Assign) and isinstance(s.value, n.AtomicOp):
            out.append(s)
            out += _append(s.target, s.line, names, log_ty)
            continue
        fields = {}
        for f in dataclasses.fields(s):
            if f.type == "tuple[Stmt, ...]":
                fields[f.name] = _log_block(getattr(s, f.name), names, log_ty, adds)
        out.append(n.replace(s, **fields) if fields else s)
    return tuple(out)


def _append(var: str, line: int, names: Names, log_ty: Type) -> list[n.Stmt]:
    """k = count[gid()]; count[gid()] = k + 1; log[gid() * K + min(k, K - 1)] = var."""
    gid = n.WorkId("gid", line=line)
    k = n.Name(names.slot, line=line)
    room = n.Name(names.room, line=line)
    last = n.Binary("-", room, n.Const(1, line=line), line=line)
    slot = n.Select(n.Compare("<", k, last, line=line), k, last, line=line)
    where = n.Binary("+", n.Binary("*", gid, room, line=line), slot, line=line)
    return [
        n.Assign(names.slot, n.Load(names.count, gid, line=line), I32, line=line),
        n.Store(names.count, gid, n.Binary("+", k, n.Const(1, line=line), line=line),
                line=line),
        n.Store(names.log, where, n.Cast(log_ty, n.Name(var, line=line), line=line),
                line=line),
    ]


def split(case: Case, outcome: Outcome, names: Names) -> tuple[Outcome, int]:
    """The outcome without the two buffers, its `returned` filled in; and the most
    atomics a workitem reported (more than `names.slots`: the log overflowed)."""
    bufs = dict(outcome.buffers)
    bufs.pop(names.room, None)
    log = bufs.pop(names.log, None)
    count = bufs.pop(names.count, None)
    if outcome.error is not None or log is None or count is None:
        return dataclasses.replace(outcome, buffers=bufs), 0
    k = names.slots
    counts = [int(c) for c in count]
    returned = [[int(x) for x in log[g * k: g * k + min(c, k)]] for g, c in enumerate(counts)]
    return dataclasses.replace(outcome, buffers=bufs, returned=returned), max(counts, default=0)


def run_logged(case: Case, run: Callable[[Case], Outcome]) -> Outcome:
    """`run` on the logged case, again with more room while the log overflows; a case
    without ordered atomics runs as it is."""
    if not ordered(case):
        return run(case)
    if case.host is not None:
        return Outcome(case.buffers(), None, [], error=TargetError(
            "unsupported", "a host program's kernel has atomics that return (the checker "
            "orders one launch's atomics, not a program's)"))
    slots = FIRST_SLOTS
    while True:
        rewritten, names = logged(case, slots)
        outcome, most = split(case, run(rewritten), names)
        if most <= slots:
            return outcome
        slots = 1 << (most - 1).bit_length()
        if slots > MOST_SLOTS or slots * case.n > MOST_ENTRIES:
            return Outcome(case.buffers(), None, [], error=TargetError(
                "unsupported", f"a workitem ran {most} atomics that return: past the "
                f"{min(MOST_SLOTS, MOST_ENTRIES // case.n)} the log holds per workitem"))
