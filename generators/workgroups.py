"""`workgroup_kernels()`: kernels made of the patterns GPU kernels build from workgroup
memory and barriers, race-free and barrier-uniform by construction.

    def kernel(inp: Buffer[i32], out: Buffer[T], [acc: Buffer[A],] s: i32):
        g = gid()
        l = local_id()
        tile: Local[i32, 256]
        [wide: Local[i64, 256]]      # with i64 values
        [hist: Local[i32, 16]]       # with atomics
        ...                          # patterns, with the barriers they need
        out[g * K + c] = out[g * K + c] + v

The patterns (each drawn from what the swarm enables):
- *store own*: `tile[l] = e` (the workitem's own slot); *read own*: `x = tile[l]`;
- *read across*: `x = tile[i]` at a slot of another workitem: a neighbour `(l + c) %
  group_size()`, the mirror `group_size() - 1 - l`, slot 0 (a broadcast), or any value
  wrapped in bounds;
- *histogram*: `atomic_add(hist, (e & 255) % len(hist), v)`;
- *ticket* (feature "returning"): `t = atomic_<op>(hist, i, v)`, an atomic that returns
  on the workgroup array (docs/semantics.md, "Atomics that return"): a ticket counter
  (`atomic_add(hist, 0, 1)`) or any operation, its old value a value like any other;
- *tree reduction*: halving strides `d`, `if l < d: tile[l] = tile[l] op tile[l + d]`,
  a barrier per step, the result in `tile[0]`;
- *scan*: Hillis-Steele doubling strides, each step's read and write separated by
  barriers (an inclusive prefix sum over the group);
- *broadcast*: `if l == 0: tile[0] = e`, then every workitem reads `tile[0]`;
- *uniform loops* (`for k in range(0, C)`, or up to `s`) and *uniform branches* (on `s`,
  `group_id()` or a broadcast slot) around patterns, barriers inside them;
- *divergent branches* (on `l`, `g`, `lane()`) around the patterns that need no barrier;
- wave operations inside the expressions (and under the divergent branches), faults of
  the enabled kinds (an index past a workgroup array for one workitem, a zero divisor, a
  `fail`), and a whole workgroup's early `return`.

Race freedom (docs/semantics.md, "Workgroups"): the generator tracks, per workgroup
array, which kinds of access the current epoch (since the last barrier) has made --
own-slot writes, own-slot reads, reads across, atomics -- and inserts `barrier()` before
an access of a kind that would conflict with one made since (a write and a read across,
an atomic and anything not atomic). Barrier uniformity: barriers stand only at the top
level, in uniform loops and under uniform branches, never under a divergent branch (a
pattern that would need one there is left out). The kernel's text does not depend on the
workgroup size: indices go through `local_id()` and `group_size()`, and the arrays hold
`TILE` elements, the largest workgroup its launches use; so a launch draws any wave size
W and any G = m * W up to `TILE` (`workgroup_size`).

Global memory is touched as in `kernels()`: `inp` loaded anywhere, `out` at the
workitem's private slots, `acc` by atomics only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from hypothesis import event
from hypothesis import strategies as st

from difftest.core.ir.types import I32, I64, Type
from difftest.core.options import DEFAULT_WORK_BUDGET
from difftest.core.reconvergence import MAXIMAL

from .kernels import (ENTRY, FAULT_FEATURES, BufferSpec, GeneratedKernel, ScalarSpec, _Fn,
                      _Gen, _checked, _defined_only)

#: the length of the kernels' workgroup arrays, and so the largest workgroup they run in
TILE = 256
HIST = 16
#: workgroups of m waves: m drawn from these (m * W capped at TILE)
GROUP_WAVES = (1, 2, 4, 3)
#: swarm features of workgroup kernels (each on with probability 1/2)
FEATURES = ("wave", "i64", "atomic", "loop", "branch", "diverge", "memory", "return",
            "returning")
#: kinds of access to a workgroup array within one epoch
OWN_W, OWN_R, ACROSS, ATOMIC = "own_w", "own_r", "across", "atomic"
_CONFLICTS = {OWN_W: {ACROSS, ATOMIC}, OWN_R: {ATOMIC}, ACROSS: {OWN_W, ATOMIC},
              ATOMIC: {OWN_W, OWN_R, ACROSS}}
_MAX_LOOP = 4


@dataclass
class _Epoch:
    """The kinds of access each workgroup array has seen since the last barrier."""

    kinds: dict[str, set[str]] = field(default_factory=dict)

    def allows(self, array: str, kind: str) -> bool:
        return not (self.kinds.get(array, set()) & _CONFLICTS[kind])

    def add(self, array: str, kind: str) -> None:
        self.kinds.setdefault(array, set()).add(kind)

    def dirty(self) -> bool:
        return any(self.kinds.values())

    def copy(self) -> _Epoch:
        return _Epoch({a: set(k) for a, k in self.kinds.items()})

    def join(self, other: _Epoch) -> _Epoch:
        out = self.copy()
        for a, k in other.kinds.items():
            out.kinds.setdefault(a, set()).update(k)
        return out


class _WGen:
    """Draws one workgroup kernel's text (`d`: Hypothesis's draw; `on`: the features)."""

    def __init__(self, d: Callable[[st.SearchStrategy[Any]], Any], on: frozenset[str],
                 budget: int) -> None:
        self.d = d
        self.on = on
        self.g = _Gen(d, on - {"helper", "loop", "while", "return", "alloc"}, budget)
        self.budget = budget
        self.fresh = 0
        self.arrays: list[tuple[str, Type]] = [("tile", I32)]
        if "i64" in on:
            self.arrays.append(("wide", I64))
        self.loops = 0
        self.lines: list[str] = []

    def pick(self, seq: tuple[Any, ...] | list[Any]) -> Any:
        return self.g.pick(seq)

    def name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    # -------------------------------------------------------------- helpers

    def value(self, fn: _Fn, ty: Type, depth: int = 2) -> str:
        text, got = self.g.int_expr(fn, ty, depth)
        return f"i32({text})" if ty is I32 and got is I64 else text

    def across(self, fn: _Fn) -> str:
        """A slot of another workitem of the group (always in bounds)."""
        k = self.pick(("neighbour", "mirror", "zero", "any", "half", "lane"))
        if k == "neighbour":
            return f"(l + {self.pick(('1', '2', '3', '7', 'group_size() - 1'))}) % group_size()"
        if k == "mirror":
            return "group_size() - 1 - l"
        if k == "zero":
            return "0"
        if k == "half":
            return "l // 2"
        if k == "lane":
            return "(l + lane()) % group_size()"
        return f"({self.value(fn, I32, 1)} & 255) % group_size()"

    def barrier(self, pad: str, epoch: _Epoch) -> _Epoch:
        self.lines.append(f"{pad}barrier()")
        return _Epoch()

    def need(self, pad: str, epoch: _Epoch, array: str, kind: str, divergent: bool
             ) -> _Epoch | None:
        """The epoch in which `array` may take an access of `kind`: this one, or a fresh
        one after a barrier; None where no barrier may stand (a divergent branch)."""
        if epoch.allows(array, kind):
            return epoch
        if divergent:
            return None
        return self.barrier(pad, epoch)

    def sink(self, fn: _Fn, pad: str, value: str) -> None:
        buf, ty = fn.outs[0]
        slot = self.g.slot(fn)
        v = value if ty is I64 else f"i32({value})"
        self.lines.append(f"{pad}{buf}[{slot}] = {buf}[{slot}] + {v}")

    def define(self, fn: _Fn, pad: str, value: str, ty: Type) -> str:
        x = self.name("x")
        self.lines.append(f"{pad}{x} = {value}")
        fn.vars[x] = ty
        return x

    # ------------------------------------------------------------- patterns

    def block(self, fn: _Fn, pad: str, epoch: _Epoch, count: int, divergent: bool,
              required: tuple[str, ...] = ()) -> _Epoch:
        saved = fn.scope()
        start = len(self.lines)
        todo = list(required)  # on the first array: a store, a read across it, ...
        for i in range(max(count, len(required))):
            if todo:
                epoch = self.emit(todo.pop(0), fn, pad, epoch, divergent, self.arrays[0])
            else:
                epoch = self.emit(self.pattern(), fn, pad, epoch, divergent)
        if len(self.lines) == start:
            self.lines.append(f"{pad}pass")
        fn.restore(saved)
        return epoch

    def pattern(self) -> str:
        menu = ["store", "read_across", "read_own", "store", "read_across", "broadcast",
                "tree"]
        on = self.on
        if "loop" in on:
            menu += ["scan", "uniform_loop"]
        if "branch" in on:
            menu += ["uniform_if", "uniform_if"]
        if "diverge" in on:
            menu += ["diverge"]
        if "atomic" in on:
            menu += ["histogram", "histogram"]
        if "returning" in on:
            menu += ["ticket", "ticket"]
        if "wave" in on:
            menu += ["wave_store", "wave_store"]
        if on & set(FAULT_FEATURES):
            menu += ["fault", "fault"]
        if "return" in on:
            menu.append("group_return")
        return self.pick(tuple(menu))

    def emit(self, k: str, fn: _Fn, pad: str, epoch: _Epoch, divergent: bool,
             on: tuple[str, Type] | None = None) -> _Epoch:
        if self.budget <= 0:
            k = "read_own"
        self.budget -= 1
        array, ty = on or self.pick(self.arrays)
        if k in ("store", "wave_store"):
            got = self.need(pad, epoch, array, OWN_W, divergent)
            if got is None:
                return epoch
            if k == "wave_store" and "wave" in self.on:
                op = self.pick(("wave_sum", "prefix_sum", "wave_max", "inclusive_sum",
                                "readfirstlane", "wave_min"))
                v = f"{op}({self.value(fn, ty, 1)})"
            else:
                v = self.value(fn, ty)
            self.lines.append(f"{pad}{array}[l] = {v}")
            got.add(array, OWN_W)
            return got
        if k == "read_own":
            got = self.need(pad, epoch, array, OWN_R, divergent)
            if got is None:
                return epoch
            self.define(fn, pad, f"{array}[l]", ty)
            got.add(array, OWN_R)
            return got
        if k == "read_across":
            got = self.need(pad, epoch, array, ACROSS, divergent)
            if got is None:
                return epoch
            x = self.define(fn, pad, f"{array}[{self.across(fn)}]", ty)
            got.add(array, ACROSS)
            if self.pick((False, True)):
                self.sink(fn, pad, x)
            return got
        if k == "histogram":
            got = self.need(pad, epoch, "hist", ATOMIC, divergent)
            if got is None:
                return epoch
            self.hist = True
            index = f"({self.value(fn, I32, 1)} & 255) % len(hist)"
            self.lines.append(f"{pad}atomic_add(hist, {index}, {self.value(fn, I32, 1)})")
            got.add("hist", ATOMIC)
            if not divergent and self.pick((False, True)):  # the counts, once all are in
                got = self.barrier(pad, got)
                x = self.define(fn, pad, "hist[l % len(hist)]", I32)
                got.add("hist", ACROSS)
                self.sink(fn, pad, x)
            return got
        if k == "ticket":
            got = self.need(pad, epoch, "hist", ATOMIC, divergent)
            if got is None:
                return epoch
            self.hist = True
            op = self.pick(("add", "max", "min", "or", "xor", "and", "exchange",
                            "compare_exchange"))
            if op == "add" and self.pick((True, False)):  # a ticket counter
                call = "atomic_add(hist, 0, 1)"
            else:
                index = f"({self.value(fn, I32, 1)} & 255) % len(hist)"
                args = [self.value(fn, I32, 1)
                        for _ in range(2 if op == "compare_exchange" else 1)]
                call = f"atomic_{op}(hist, {index}, {', '.join(args)})"
            t = self.define(fn, pad, call, I32)
            got.add("hist", ATOMIC)
            if self.pick((False, True)):
                self.sink(fn, pad, t)
            return got
        if k == "fault":
            return self.fault(fn, pad, epoch, divergent, array, ty)
        if divergent:  # the rest may meet barriers: not under a divergent branch
            return self.emit("read_own", fn, pad, epoch, divergent)
        if k == "broadcast":
            epoch = self.need(pad, epoch, array, OWN_W, False) or epoch
            self.lines.append(f"{pad}if l == 0:")
            self.lines.append(f"{pad}    {array}[l] = {self.value(fn, ty)}")
            epoch = self.barrier(pad, epoch)
            x = self.define(fn, pad, f"{array}[0]", ty)
            epoch.add(array, ACROSS)
            self.sink(fn, pad, x)
            return epoch
        if k == "tree":
            return self.tree(fn, pad, epoch, array, ty)
        if k == "scan":
            return self.scan(fn, pad, epoch, array, ty)
        if k == "uniform_loop":
            if self.loops >= 2:
                return self.emit("store", fn, pad, epoch, divergent)
            if epoch.dirty():
                epoch = self.barrier(pad, epoch)
            bound = self.pick(("2", "s", "3", str(_MAX_LOOP)))
            var = self.name("k")
            self.lines.append(f"{pad}for {var} in range(0, {bound}):")
            self.loops += 1
            fn.vars[var] = I32
            body = self.block(fn, pad + "    ", epoch, self.g.num(1, 3), False)
            fn.vars.pop(var, None)
            if body.dirty():
                self.barrier(pad + "    ", body)
            self.loops -= 1
            return _Epoch()
        if k == "uniform_if":
            cond = self.uniform_cond(fn, pad, epoch)
            if cond is None:
                return epoch
            text, epoch = cond
            self.lines.append(f"{pad}if {text}:")
            then = self.block(fn, pad + "    ", epoch.copy(), self.g.num(1, 2), False)
            if self.pick((False, True)):
                self.lines.append(f"{pad}else:")
                other = self.block(fn, pad + "    ", epoch.copy(), 1, False)
            else:
                other = epoch
            return then.join(other)
        if k == "diverge":
            cond = self.pick((f"l < {self.pick(('1', '3', 'group_size() // 2'))}",
                              "(l & 1) == 0", f"lane() >= {self.pick(('1', '2', '4'))}",
                              f"({self.value(fn, I32, 1)} & 3) == 0"))
            self.lines.append(f"{pad}if {cond}:")
            after = self.block(fn, pad + "    ", epoch.copy(), self.g.num(1, 2), True)
            return epoch.join(after)
        if k == "group_return":
            # the whole workgroup returns (uniform), or none of it
            if epoch.dirty():
                epoch = self.barrier(pad, epoch)
            self.lines.append(f"{pad}if group_id() == {self.pick(('1', '0', '2'))}:")
            self.lines.append(f"{pad}    return")
            return epoch
        raise AssertionError(f"unknown pattern {k}")

    def uniform_cond(self, fn: _Fn, pad: str, epoch: _Epoch) -> tuple[str, _Epoch] | None:
        k = self.pick(("s", "group", "slot"))
        if k == "s":
            return f"s > {self.pick(('1', '3', '0'))}", epoch
        if k == "group":
            return f"group_id() % {self.pick(('2', '3'))} == 0", epoch
        array, _ = self.arrays[0]
        epoch = self.need(pad, epoch, array, ACROSS, False) or epoch
        epoch.add(array, ACROSS)
        return f"{array}[0] > {self.pick(('0', '7', '-1'))}", epoch

    def tree(self, fn: _Fn, pad: str, epoch: _Epoch, array: str, ty: Type) -> _Epoch:
        """Halving strides: after the steps, slot 0 holds the group's combination."""
        if epoch.kinds.get(array):
            epoch = self.barrier(pad, epoch)
        self.lines.append(f"{pad}{array}[l] = {self.value(fn, ty)}")
        self.barrier(pad, epoch)
        d, k = self.name("d"), self.name("k")
        op = self.pick(("+", "max", "^", "|"))
        left, right = f"{array}[l]", f"{array}[l + {d}]"
        combined = (f"({left} if {left} > {right} else {right})" if op == "max"
                    else f"{left} {op} {right}")
        self.lines += [f"{pad}{d} = group_size() // 2",
                       f"{pad}for {k} in range(0, 9):",
                       f"{pad}    if {d} == 0:",
                       f"{pad}        break",
                       f"{pad}    if l < {d}:",
                       f"{pad}        {array}[l] = {combined}",
                       f"{pad}    barrier()",
                       f"{pad}    {d} = {d} // 2"]
        epoch = _Epoch()
        x = self.define(fn, pad, f"{array}[0]", ty)
        epoch.add(array, ACROSS)
        self.sink(fn, pad, x)
        return epoch

    def scan(self, fn: _Fn, pad: str, epoch: _Epoch, array: str, ty: Type) -> _Epoch:
        """Hillis-Steele doubling strides: an inclusive prefix sum over the workgroup."""
        if epoch.kinds.get(array):
            epoch = self.barrier(pad, epoch)
        self.lines.append(f"{pad}{array}[l] = {self.value(fn, ty)}")
        self.barrier(pad, epoch)
        d, k, v = self.name("d"), self.name("k"), self.name("v")
        self.lines += [f"{pad}{d} = 1",
                       f"{pad}for {k} in range(0, 9):",
                       f"{pad}    if {d} >= group_size():",
                       f"{pad}        break",
                       f"{pad}    {v} = {array}[l] + ({array}[l - {d}] if l >= {d} else 0)",
                       f"{pad}    barrier()",
                       f"{pad}    {array}[l] = {v}",
                       f"{pad}    barrier()",
                       f"{pad}    {d} = {d} * 2"]
        x = self.define(fn, pad, f"{array}[{self.across(fn)}]", ty)
        epoch = _Epoch()
        epoch.add(array, ACROSS)
        self.sink(fn, pad, x)
        return epoch

    def fault(self, fn: _Fn, pad: str, epoch: _Epoch, divergent: bool, array: str,
              ty: Type) -> _Epoch:
        """A fault for few workitems, of an enabled kind."""
        kinds = [f for f in FAULT_FEATURES if f in self.on]
        k = self.pick(tuple(kinds)) if kinds else "none"
        c = self.pick(("0", "1", "3", "5"))
        if k == "fault_oob":
            got = self.need(pad, epoch, array, OWN_W, divergent)
            if got is None:
                return epoch
            # past the end by len() or by the declared length: a target whose bounds
            # are wrong may get len() wrong the same way, but not the constant
            past = self.pick((len_of(array), str(TILE)))
            self.lines.append(f"{pad}{array}[l + ({past} if g == {c} else 0)] = "
                              f"{self.value(fn, ty, 1)}")
            got.add(array, OWN_W)
            return got
        if k == "fault_div":
            x = self.define(fn, pad, f"{self.value(fn, I32, 1)} // (g - {c})", I32)
            self.sink(fn, pad, x)
            return epoch
        if k == "fault_fail":
            self.lines.append(f"{pad}if g == {c}:")
            self.lines.append(f"{pad}    fail({self.pick(('7', '1', '-3'))})")
            return epoch
        return epoch

    # --------------------------------------------------------------- kernel

    def kernel(self) -> tuple[str, tuple[BufferSpec, ...], tuple[ScalarSpec, ...]]:
        on = self.on
        g = self.g
        out_ty = g.pick((I32, I64))
        bufs = [BufferSpec("inp", "i32", "in"), BufferSpec("out", str(out_ty), "out", g.K)]
        if "atomic" in on:
            bufs.append(BufferSpec("acc", str(g.pick((I64, I32))), "acc"))
        scalars = (ScalarSpec("s", "i32", -1, _MAX_LOOP),)
        _ty = {"i32": I32, "i64": I64}
        ins = [(b.name, _ty[b.dtype]) for b in bufs if b.role == "in"] if "memory" in on \
            else []
        outs = [(b.name, _ty[b.dtype]) for b in bufs if b.role == "out"]
        accs = [(b.name, _ty[b.dtype]) for b in bufs if b.role == "acc"]
        fn = _Fn(ENTRY, "g", {"g": I32, "l": I32, "s": I32}, [], ins, outs, accs, (), None,
                 True, 0, max_loops=0, max_nest=2)
        self.hist = False
        self.lines = []
        pad = "    "
        required: tuple[str, ...] = ("store", "read_across")
        if on & set(FAULT_FEATURES):  # an enabled fault kind is a used one
            required += ("fault",)
        if "returning" in on:
            required += ("ticket",)
        epoch = self.block(fn, pad, _Epoch(), g.num(2, 7), False, required)
        del epoch
        body = ["    g = gid()", "    l = local_id()"]
        body += [f"    {name}: Local[{ty}, {TILE}]" for name, ty in self.arrays]
        if self.hist:
            body.append(f"    hist: Local[i32, {HIST}]")
        body += self.lines
        slot = g.slot(fn)
        body.append(f"    out[{slot}] = out[{slot}] + {self.value(fn, out_ty, 1)}")
        params = ", ".join([f"{b.name}: Buffer[{b.dtype}]" for b in bufs]
                           + [f"{s.name}: {s.type}" for s in scalars])
        return "\n".join([f"def {ENTRY}({params}):"] + body) + "\n", tuple(bufs), scalars


def len_of(array: str) -> str:
    return f"len({array})"


def workgroup_kernels(fault_rate: float = 0.3, max_patterns: int = 8,
                      without: frozenset[str] = frozenset(), reconvergence: str = MAXIMAL
                      ) -> st.SearchStrategy[GeneratedKernel]:
    """Workgroup kernels (the module docstring says their shape and guarantees), as
    `GeneratedKernel`s with `workgroups` set: their cases take a workgroup size
    (`workgroup_size`). `without` names features never enabled ("wave": a target
    without wave operations); `reconvergence`, `fault_rate` as `kernels()`'s."""
    return _workgroup_kernels(round(fault_rate * 100), max_patterns, frozenset(without),
                              reconvergence)


_PERCENT = st.integers(0, 99)
_BOOL = st.booleans()


@st.composite
def _workgroup_kernels(draw: st.DrawFn, pct: int, max_patterns: int,
                       without: frozenset[str], reconvergence: str) -> GeneratedKernel:
    on = {f for f in FEATURES if draw(_BOOL)} - without
    for f in FAULT_FEATURES:
        if pct >= 100 or (pct > 0 and draw(_PERCENT) >= 100 - pct):
            on.add(f)
    features = frozenset(on)
    gen = _WGen(draw, features, max_patterns)
    source, bufs, scalars = gen.kernel()
    program, found, trips = _checked(source)
    # (no `_uniform_control` here: a guard such as a tree's `l < d` made `wave_any(...)`
    # lets every lane of a wave with one lane below `d` write, which races, and a bound
    # made `readfirstlane(...)` gives the waves of a group different trips round their
    # barriers; under `uniform` the undefined wave operations are taken out instead)
    if reconvergence != MAXIMAL and "wave" in features:
        source = _defined_only(source, reconvergence)
        program, found, trips = _checked(source)
    for name in sorted(features):
        event(f"workgroup swarm: {name}")
    max_n = max(1, DEFAULT_WORK_BUDGET // (trips + 1))
    return GeneratedKernel(source, ENTRY, program, bufs, scalars, features | {"workgroups"},
                           found, max_n)


def workgroup_size(wave: int) -> st.SearchStrategy[int]:
    """G for a launch of waves of `wave` lanes: m waves, m drawn from GROUP_WAVES (the
    first, one wave, is what shrinking goes to), at most TILE."""
    fits = tuple(m for m in GROUP_WAVES if m * wave <= TILE) or (1,)
    return st.sampled_from(fits).map(lambda m: m * wave)


__all__ = ["TILE", "workgroup_kernels", "workgroup_size"]
