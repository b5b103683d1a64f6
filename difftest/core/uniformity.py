"""Where a wave's control flow is uniform: the static half of the `uniform` reconvergence
model (docs/semantics.md, "Reconvergence models").

Vulkan without VK_KHR_shader_maximal_reconvergence (and WGSL) promises a subgroup
operation's result only in *uniform control flow*: every invocation of the workgroup (one
wave here) executes it together. Control flow is uniform at the kernel's entry; lanes that
split at a branch reconverge at the merge of a construct (if/else, loop) that they entered
together and all leave through its merge. Nothing is promised about lanes that left a
construct another way and come back: a lane that `continue`s rejoins the others at the next
trip, a lane that returns early from a helper rejoins them after the call, and no rule
says that either is a reconvergence.

Most of this is dynamic, and the oracle checks it (a wave operation evaluated while some
lane of its wave is not active: `FullRun.partial_wave_op`): a divergent condition, a
`break`, a trip count that differs between lanes, a fault, a kernel `return`, lanes past
n all leave some lane out where the operation runs. What the oracle cannot see is the
return of a lane that left without a merge, since all lanes are then active again. That
is this module's: a wave operation is *scarred* when it lies in the body of a loop that
some lanes may `continue` while others go on (every trip after such a one), or after a
call of a helper that some lanes may leave early by `return` (up to the merge of the
construct around the call, or to the end of the caller, whose own callers then carry the
scar), or in a helper called from a scarred place.

Whether some lanes may go one way while others go another is a divergence analysis of the
usual kind (a value is uniform when every lane evaluating it together gets the same: a
constant, a scalar parameter, `wave()`, `len()` of a uniform buffer, a load at a uniform
index, the results of `wave_sum/min/max/and/or/xor/any/all` over the whole wave (not a
cluster of it), `wave_all_equal`, `ballot`, `readfirstlane`, a `shuffle` from a uniform
lane, a variable every assignment of which gives a uniform value in
uniform control flow). It is conservative: a position it calls divergent may be reached
by all lanes at run time. `divergent` lists the wave operations at such positions (the
generators replace them, since most runs would leave them undefined) and
`divergent_conditions` the branch conditions and loop bounds that may differ between
lanes (the generators make them uniform with `wave_any`, `wave_all` or `readfirstlane`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from difftest.core.ir import nodes as n
from difftest.core.ir.walk import reachable, walk

#: the ballot functions relative to the lane: lanes differ however uniform the ballot
_LANE_RELATIVE = ("ballot_inclusive_bit_count", "ballot_exclusive_bit_count",
                  "inverse_ballot")
#: wave operations whose result is the same in every lane that evaluates them together
_UNIFORM_RESULTS = ("wave_sum", "wave_min", "wave_max", "wave_any", "wave_all", "ballot",
                    "readfirstlane", "wave_and", "wave_or", "wave_xor", "wave_all_equal")


@dataclass(frozen=True)
class Uniformity:
    """The analysis of one program from one entry (nodes by identity)."""

    divergent: frozenset[int]             # wave operations at possibly divergent places
    scarred: frozenset[int]               # wave operations the oracle cannot vouch for
    divergent_conditions: frozenset[int]  # conditions and loop bounds lanes may disagree on


def analyse(program: n.Program, entry: str) -> Uniformity:
    a = _Analysis(program, entry)
    a.run()
    return Uniformity(frozenset(a.div_ops), frozenset(a.scar_ops), frozenset(a.div_conds))


class _Analysis:
    """A fixed point over sets that only grow: divergent variables per function, helpers
    entered divergently, helpers whose value may differ between lanes, helpers that leave
    their callers scarred, helpers called from scarred places, divergent and scarred
    loops. Each round walks every function once with the sets so far."""

    def __init__(self, program: n.Program, entry: str) -> None:
        self.program = program
        self.entry = entry
        self.functions = reachable(program, entry)
        self.div_vars: dict[str, set[str]] = {f.name: set() for f in self.functions}
        self.entered_div: set[str] = set()
        self.value_div: set[str] = set()
        self.scars_callers: set[str] = set()
        self.tainted: set[str] = set()
        self.div_loops: set[int] = set()
        self.scar_loops: set[int] = set()
        self.div_ops: set[int] = set()
        self.scar_ops: set[int] = set()
        self.div_conds: set[int] = set()

    def _state(self) -> tuple[int, ...]:
        return (sum(len(v) for v in self.div_vars.values()), len(self.entered_div),
                len(self.value_div), len(self.scars_callers), len(self.tainted),
                len(self.div_loops), len(self.scar_loops))

    def run(self) -> None:
        while True:
            before = self._state()
            self.div_ops.clear()
            self.scar_ops.clear()
            self.div_conds.clear()
            for f in self.functions:
                self.fn = f
                self.loops: list[int] = []
                scar = [False]
                self.block(f.body, f.name in self.entered_div, scar)
                if scar[0] and f.name != self.entry:
                    self.scars_callers.add(f.name)  # its callers go on scarred
                if f.name in self.tainted:  # called from a scarred place: all of it is
                    for x in walk(f.body):
                        if isinstance(x, n.WaveOp):
                            self.scar_ops.add(id(x))
                        elif isinstance(x, n.Call):
                            self.tainted.add(x.func)
            if self._state() == before:
                return

    # -------------------------------------------------------------------- values
    def uniform(self, e: Any) -> bool:
        """Whether every lane evaluating `e` together gets the same value."""
        if isinstance(e, (n.Const, n.Len)):
            return not isinstance(e, n.Len) or e.buffer not in self.div_vars[self.fn.name]
        if isinstance(e, n.Name):
            return e.id not in self.div_vars[self.fn.name]
        if isinstance(e, n.WorkId):  # a wave lies in one workgroup (G is a multiple of W)
            return e.which in ("wave", "group_id", "group_size")
        if isinstance(e, n.WaveOp):
            if e.op in _UNIFORM_RESULTS:
                return not (e.op in n.CLUSTERED_OPS and len(e.args) == 2)  # a cluster's
            return e.op == "shuffle" and self.uniform(e.args[1])
        if isinstance(e, n.Load):
            return e.buffer not in self.div_vars[self.fn.name] and self.uniform(e.index)
        if isinstance(e, n.Call):
            return e.func not in self.value_div and all(self.uniform(x) for x in e.args)
        if isinstance(e, (n.Alloc, n.AtomicOp)):  # (an atomic's old value is each lane's)
            return False
        if isinstance(e, n.MathOp) and e.op in _LANE_RELATIVE:
            return False
        parts = [getattr(e, k) for k in ("operand", "left", "right", "cond", "then", "orelse")
                 if hasattr(e, k)]
        parts += getattr(e, "args", ())  # a MathOp's (fma, min, max, abs)
        return all(self.uniform(x) for x in parts)

    # ----------------------------------------------------------------- positions
    def expr(self, e: Any, d: bool, scar: list[bool]) -> None:
        """Record what `e` holds, evaluated at a place of divergence `d`; `scar[0]`
        turns on after a call of a helper that leaves its callers scarred."""
        if isinstance(e, n.WaveOp):
            for x in e.args:
                self.expr(x, d, scar)
            if d:
                self.div_ops.add(id(e))
            if scar[0]:
                self.scar_ops.add(id(e))
        elif isinstance(e, n.Call):
            for x in e.args:
                self.expr(x, d, scar)
            self.call(e, d, scar)
        elif isinstance(e, n.Select):
            self.expr(e.cond, d, scar)
            inner = self.condition(e.cond) or d
            self.expr(e.then, inner, scar)
            self.expr(e.orelse, inner, scar)
        elif isinstance(e, n.Logic):
            self.expr(e.left, d, scar)
            self.expr(e.right, self.condition(e.left) or d, scar)
        else:
            for k in ("operand", "left", "right", "index", "size"):
                if hasattr(e, k):
                    self.expr(getattr(e, k), d, scar)
            for x in getattr(e, "args", ()):  # a MathOp's (fma, min, max, abs)
                self.expr(x, d, scar)

    def condition(self, c: n.Expr) -> bool:
        """Whether lanes may disagree on the condition `c` (recorded if so)."""
        if self.uniform(c):
            return False
        self.div_conds.add(id(c))
        return True

    def call(self, c: n.Call, d: bool, scar: list[bool]) -> None:
        callee = self.program.function(c.func)
        if d:
            self.entered_div.add(callee.name)
        if scar[0]:
            self.tainted.add(callee.name)
        for p, a in zip(callee.params, c.args):
            if d or not self.uniform(a):
                self.div_vars[callee.name].add(p.name)
        if callee.name in self.scars_callers:
            scar[0] = True

    def block(self, stmts: tuple[n.Stmt, ...], d: bool, scar: list[bool]) -> set[str]:
        """Walk `stmts` reached with divergence `d`; returns how some lanes may have left
        (to come back later: "break", "continue", "return" from a helper) while others
        went on. After such a statement, the rest of the block is divergent."""
        gone: set[str] = set()
        for s in stmts:
            gone |= self.stmt(s, d or bool(gone), scar)
        return gone

    def stmt(self, s: n.Stmt, d: bool, scar: list[bool]) -> set[str]:
        fn = self.fn
        if isinstance(s, n.Assign):
            self.expr(s.value, d, scar)
            if d or not self.uniform(s.value):
                self.div_vars[fn.name].add(s.target)
            return set()
        if isinstance(s, (n.Store, n.AtomicAdd)):
            first, second = (s.value, s.index) if isinstance(s, n.Store) else (s.index, s.value)
            self.expr(first, d, scar)
            self.expr(second, d, scar)
            return set()
        if isinstance(s, n.If):
            self.expr(s.cond, d, scar)
            inner = self.condition(s.cond) or d
            entered = scar[0]
            then_scar, else_scar = [entered], [entered]
            gone = self.block(s.then, inner, then_scar) | self.block(s.orelse, inner, else_scar)
            # entered unscarred and left through the merge: reconverged there
            scar[0] = entered
            return gone
        if isinstance(s, (n.For, n.While)):
            return self.loop(s, d, scar)
        if isinstance(s, (n.Break, n.Continue)):
            if not d:
                return set()  # every lane here leaves together
            self.div_loops.add(self.loops[-1])
            if isinstance(s, n.Continue):
                self.scar_loops.add(self.loops[-1])
                return {"continue"}
            return {"break"}
        if isinstance(s, n.Return):
            if s.value is not None:
                self.expr(s.value, d, scar)
                if d or not self.uniform(s.value):
                    self.value_div.add(fn.name)
            if fn.name == self.entry or not d:
                return set()  # the lane ends (it never comes back), or all leave together
            self.scars_callers.add(fn.name)
            self.div_loops.update(self.loops)
            return {"return"}
        if isinstance(s, n.Fail):
            self.expr(s.code, d, scar)
            return set()  # a faulted lane never comes back
        if isinstance(s, n.CallStmt):
            self.expr(s.call, d, scar)
            return set()
        if isinstance(s, (n.LocalArray, n.PrivateArray, n.Barrier)):
            return set()  # a declaration; a barrier moves no lane of a wave
        raise AssertionError(f"unknown statement {type(s).__name__}")

    def loop(self, s: n.For | n.While, d: bool, scar: list[bool]) -> set[str]:
        key = id(s)
        if isinstance(s, n.For):
            self.expr(s.start, d, scar)
            self.expr(s.stop, d, scar)
            if self.condition(s.start) | self.condition(s.stop):
                self.div_loops.add(key)
        body_d = d or key in self.div_loops
        if isinstance(s, n.For) and body_d:
            self.div_vars[self.fn.name].add(s.var)
        entered = scar[0]
        inner = [entered or key in self.scar_loops]
        self.loops.append(key)
        gone = self.block(s.body, body_d, inner)
        self.loops.pop()
        if inner[0] and not entered:
            self.scar_loops.add(key)  # a scar in one trip is still there in the next
        # break and continue end at the loop's exit, where its lanes reconverge
        return gone & {"return"}
