"""Coverage of pairs: what a bug needs two of at once, read off a case (never trusted
from a generator). `coverage.constructs` counts constructs one at a time; the bugs that
escape such counting sit where an action meets a state (docs/semantics.md, "Coverage of
pairs", has the list and why each is there):

- `host:<step>@<state>`: a host program's step acting on a buffer in a state -- created
  (never bound to a launch), bound (in the pool since a launch), mapped for reading or
  writing, unmapped (mapped, then unmapped, not bound since), moved (in the pool after a
  hole -- a buffer freed or mapped for writing -- when a later launch took a buffer in
  and the pool closed its holes; until a step acts on the buffer again). `BufferStates` is that
  model, shared with the host generator, which draws a step given its buffer's state;
- `live:<where>`: for each scalar a loop reads or assigns, where its last use falls:
  `after_loop` (live at the loop's exit), and for one dead there: `never` (assigned in
  the loop, not read in it), `before_break` (read only on arms that end in the loop's
  `break`), `across_continue` (the loop has a `continue` and the value is read in the
  body before it is assigned there: live at the continue point, for the next trip),
  `in_body` (the rest);
- `wave@<divergence>:<op>`: a wave operation after a `break` or a `continue` of its loop
  (the lanes that took it wait) or after a helper's early `return`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from difftest.core.host import HostError, HostRules, binding
from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, F32, I32, I64
from difftest.core.ir.walk import names_read, walk

_PLAIN = ("created", "bound", "moved", "unmapped")
#: each step and the states of its buffer in which it breaks no rule
HOST_STEPS: dict[str, tuple[str, ...]] = {
    "launch": _PLAIN + ("mapped_read",),
    "write": _PLAIN + ("mapped_read",),
    "read": _PLAIN + ("mapped_read",),
    "map": _PLAIN,
    "free": _PLAIN,
    "map_read": ("mapped_read", "mapped_write", "moved"),
    "map_write": ("mapped_write",),  # a write mapping's buffer is out of the pool: not moved
    "unmap": ("mapped_read", "mapped_write", "moved"),
}
HOST_PAIRS: tuple[str, ...] = tuple(f"host:{op}@{s}" for op, states in HOST_STEPS.items()
                                    for s in states)

LIVE = ("after_loop", "never", "before_break", "across_continue", "in_body")
DIVERGENCE = ("break", "continue", "return")
#: the wave operations the generators draw (wave_any, wave_all and elect only in
#: conditions, which count too)
KERNEL_PAIRS: tuple[str, ...] = (
    tuple(f"live:{w}" for w in LIVE)
    + tuple(f"wave@{d}:{op}" for d in DIVERGENCE for op in n.PAIRED_WAVE_OPS))
ALL_PAIRS = KERNEL_PAIRS + HOST_PAIRS


def unreachable_pairs(capabilities: frozenset[str]) -> frozenset[str]:
    """The pairs a target with `capabilities` is never given (the generators draw only
    what it declares): host steps without host programs, wave operations without them."""
    out = set() if "host_programs" in capabilities else set(HOST_PAIRS)
    if "wave_ops" not in capabilities:
        out |= {p for p in KERNEL_PAIRS if p.startswith("wave@")}
    return frozenset(out)


# ------------------------------------------------------------------ host programs

@dataclass
class BufferStates:
    """Each buffer's state as a host program runs (the states of the module docstring).
    `step` applies one step and returns the pairs it made; a step that breaks a rule
    makes none (the program ends there).

    *moved* follows the pool (numba-simt's, as r600g's): the buffers in it by base
    (`order`), the ones out of it in the order a launch takes them in (`outside`). A
    buffer leaving the pool (freed, or mapped for writing) leaves a hole; a launch that
    takes any buffer in closes the holes, and every buffer after the first hole moves.
    A kernel that allocates in the pool (`alloc()`, its workgroup arrays) may leave a hole
    anywhere, so after its launch every buffer may move."""

    rules: HostRules
    base: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # in the pool, by base
    outside: list[str] = field(default_factory=list)  # not in it, as a launch takes them
    hole: int | None = None  # where the first hole is in `order` (None: no hole)
    moved: set[str] = field(default_factory=set)
    mapped: dict[str, str] = field(default_factory=dict)  # mapping -> buffer
    pending: set[str] = field(default_factory=set)  # unmapped after writing: any launch
                                                    # takes it in
    allocates: bool = False  # its launches allocate (alloc(), workgroup arrays)

    @staticmethod
    def for_case(case: Any) -> BufferStates:
        rules = HostRules.for_case(case.args, case.function)
        allocates = any(isinstance(x, (n.Alloc, n.LocalArray)) for f in case.program.functions
                        for x in walk(f.body))
        return BufferStates(rules, {b: "created" for b in rules.buffers},
                            outside=list(rules.buffers), allocates=allocates)

    def state(self, buffer: str) -> str:
        return "moved" if buffer in self.moved else self.base[buffer]

    def in_state(self, state: str) -> list[str]:
        return sorted(b for b in self.base if self.state(b) == state)

    def before_a_hole(self) -> list[str]:
        """Buffers in the pool with another after them: a hole where one is moves those."""
        return self.order[:-1]

    def step(self, step: dict[str, Any], fn: n.Function) -> list[str]:
        """Apply `step` (HostError when it breaks a rule); the pairs it made."""
        op = step["op"]
        if op in ("map_read", "map_write", "unmap"):
            acted = [self.mapped.get(step["mapping"], "")]
        elif op == "launch":
            acted = sorted(set(binding(step, fn).values()))
        else:
            acted = [step["buffer"]]
        before = {b: self.state(b) for b in acted if b in self.base}
        self.rules.check(step, fn)
        pairs = [f"host:{op}@{s}" for s in before.values()]
        if op == "create":
            self.base[step["buffer"]] = "created"
            self.outside.append(step["buffer"])
        elif op == "free":
            b = step["buffer"]
            del self.base[b]
            self._leave(b)
            if b in self.outside:
                self.outside.remove(b)
            self.pending.discard(b)
        elif op == "map":
            b = step["buffer"]
            self.base[b] = f"mapped_{step['mode']}"
            self.mapped[step["as"]] = b
            if step["mode"] == "write":  # it leaves the pool until a launch takes it in
                self.pending.discard(b)
                if b in self.order:
                    self._leave(b)
                    self.outside.append(b)
        elif op == "unmap":
            if self.base[acted[0]] == "mapped_write":  # the pool takes it in at a launch
                self.pending.add(acted[0])
            self.base[acted[0]] = "unmapped"
            del self.mapped[step["mapping"]]
        elif op == "launch":
            self._launch(acted)
        for b in acted:
            self.moved.discard(b)
        return pairs

    def _leave(self, buffer: str) -> None:
        if buffer in self.order:
            i = self.order.index(buffer)
            self.order.pop(i)
            self.hole = i if self.hole is None else min(self.hole, i)

    def _launch(self, acted: list[str]) -> None:
        # taken in: its buffers not in the pool, and every one unmapped after writing (a
        # buffer mapped for writing waits for its unmap); taking any in closes the holes
        taken = [b for b in self.outside if (b in acted or b in self.pending)
                 and self.base.get(b) != "mapped_write"]
        if taken and self.hole is not None:
            self.moved |= set(self.order[self.hole:]) - set(acted)
            self.hole = None
        self.order += taken
        self.outside = [b for b in self.outside if b not in taken]
        self.pending -= set(taken)
        for b in acted:
            if not self.base[b].startswith("mapped"):
                self.base[b] = "bound"
        if self.allocates:
            self.hole = 0  # its allocations may grow the pool and leave a hole first


def host_pairs(case: Any) -> frozenset[str]:
    """The `host:` pairs a case's host program makes (none without one)."""
    if not case.host:
        return frozenset()
    states = BufferStates.for_case(case)
    found: set[str] = set()
    for step in case.host:
        try:
            found.update(states.step(step, case.function))
        except HostError:
            break
    return frozenset(found)


# ------------------------------------------------------------------ kernels

_SCALARS = (I32, I64, BOOL, F32)


def kernel_pairs(program: n.Program) -> frozenset[str]:
    """The `live:` and `wave@` pairs of a checked program."""
    found: set[str] = set()
    called = {x.func for f in program.functions for x in walk(f.body) if isinstance(x, n.Call)}
    for f in program.functions:
        _loops(f.body, (), found)
        _waves(f.body, frozenset(), f.name in called, found)
    return frozenset(found)


def _reads(node: Any, name: str) -> bool:
    if node.__class__ is tuple:
        return any(_reads(x, name) for x in node)
    return name in names_read(node)


def _kills(s: n.Stmt, name: str) -> bool:
    """`s` assigns `name` in every lane that runs it, without reading it first."""
    return isinstance(s, n.Assign) and s.target == name and not _reads(s.value, name)


def _live_in(seq: tuple[n.Stmt, ...], name: str) -> bool | None:
    """Whether `name` is read in `seq` before a kill (True), killed first (False), or
    neither (None: the answer lies after `seq`)."""
    for s in seq:
        if _reads(s, name):
            return True
        if _kills(s, name) or isinstance(s, n.Return):
            return False
    return None


def _after(rest: tuple[tuple[n.Stmt, ...], ...], name: str) -> bool:
    """Live after a statement whose following statements are `rest` (innermost block's
    first; an enclosing loop's whole body stands for its next trip)."""
    for seq in rest:
        live = _live_in(seq, name)
        if live is not None:
            return live
    return False


def _own(stmts: tuple[n.Stmt, ...], kind: type) -> bool:
    """A `break`/`continue` of this loop (not of a loop nested in it) in `stmts`."""
    for s in stmts:
        if type(s) is kind:
            return True
        if isinstance(s, n.If) and (_own(s.then, kind) or _own(s.orelse, kind)):
            return True
    return False


def _outside_break_arms(stmts: tuple[n.Stmt, ...], name: str) -> bool:
    """`name` read somewhere other than on an arm that ends in this loop's `break`."""
    for s in stmts:
        if isinstance(s, n.If):
            if _reads(s.cond, name):
                return True
            for arm in (s.then, s.orelse):
                if not (arm and isinstance(arm[-1], n.Break)) and _outside_break_arms(arm, name):
                    return True
        elif _reads(s, name):
            return True
    return False


def _where(loop: n.For | n.While, name: str, rest: tuple[tuple[n.Stmt, ...], ...]) -> str:
    body = loop.body
    if _after(rest, name):
        return "after_loop"
    if not _reads(body, name) and not (isinstance(loop, n.For) and _reads(
            (loop.start, loop.stop), name)):
        return "never"
    if not _outside_break_arms(body, name):
        return "before_break"
    carried = not (isinstance(loop, n.For) and name == loop.var)  # the loop sets its var
    if carried and _own(body, n.Continue) and _live_in(body, name):
        return "across_continue"
    return "in_body"


def _loops(stmts: tuple[n.Stmt, ...], rest: tuple[tuple[n.Stmt, ...], ...],
           found: set[str]) -> None:
    for i, s in enumerate(stmts):
        after = (stmts[i + 1:], *rest)
        if isinstance(s, n.If):
            _loops(s.then, after, found)
            _loops(s.orelse, after, found)
        elif isinstance(s, (n.For, n.While)):
            names = {x.target for x in walk(s.body) if isinstance(x, n.Assign)
                     and x.value.ty in _SCALARS}
            names |= {x.id for x in walk(s.body) if isinstance(x, n.Name) and x.ty in _SCALARS}
            if isinstance(s, n.For):
                names.add(s.var)
            for name in names:
                found.add(f"live:{_where(s, name, after)}")
            _loops(s.body, (s.body, *after), found)  # its next trip follows its body


def _waves(stmts: tuple[n.Stmt, ...], ctx: frozenset[str], helper: bool,
           found: set[str]) -> set[str]:
    """Visit a block under the divergences `ctx`; returns the exits it takes (a lane that
    took one waits while the block's later statements run)."""
    taken: set[str] = set()
    for s in stmts:
        here = ctx | taken
        if isinstance(s, n.If):
            _record(s.cond, here, found)
            taken |= _waves(s.then, here, helper, found) | _waves(s.orelse, here, helper,
                                                                   found)
        elif isinstance(s, (n.For, n.While)):
            if isinstance(s, n.For):
                _record((s.start, s.stop), here, found)
            inner = _waves(s.body, here - {"break", "continue"}, helper, found)
            taken |= inner & {"return"}
        else:
            _record(s, here, found)
            if isinstance(s, n.Break):
                taken.add("break")
            elif isinstance(s, n.Continue):
                taken.add("continue")
            elif isinstance(s, n.Return) and helper:
                taken.add("return")
    return taken


def _record(node: Any, ctx: frozenset[str], found: set[str]) -> None:
    if not ctx:
        return
    for x in walk(node):
        if isinstance(x, n.WaveOp) and x.op in n.PAIRED_WAVE_OPS:
            found.update(f"wave@{d}:{x.op}" for d in ctx)
