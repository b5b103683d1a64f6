"""Reconvergence models: where a target's wave operations are defined.

The core semantics is maximal reconvergence (docs/semantics.md). A real target may promise
less, so each target declares the model it is checked against (`Target.reconvergence`):

- `maximal`: every wave operation is defined (the oracle's model);
- `uniform`: only uniform control flow is promised (Vulkan without
  VK_KHR_shader_maximal_reconvergence, WGSL): a wave operation is defined where every lane
  of its wave runs it together and no lane left a construct other than through its merge
  and came back (difftest.core.uniformity has the rule; the oracle checks the part it
  sees at run time, `FullRun.partial_wave_op`);
- `loop-exits-undefined`: maximal, except a wave operation on a loop's *exit path*, which
  the model leaves undefined. A position inside a loop is on its exit path when every way
  on from it leaves the loop -- by `break`, `return` or `fail` -- before the loop's
  continue point (the end of its body, or a `continue`). Such a block is what a compiler
  may move out of the loop and run once, after it, for every lane that took that exit
  (Intel's OpenCL CPU compiler does). Inside a loop nested in an exit path, and inside
  any helper called from one, every wave operation is undefined too.

Generators never place a wave operation where the model leaves it undefined
(`defined_only` rewrites a generated kernel), a target declares a case with one
unsupported (`undefined_wave_ops`), and the checker never excuses anything: a wave
operation the model defines must agree with the oracle.
"""

from __future__ import annotations

from typing import Any

from difftest.core import ir
from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, I32, I64
from difftest.core import uniformity
from difftest.core.ir.walk import reachable, substitute, walk

MAXIMAL = "maximal"
LOOP_EXITS_UNDEFINED = "loop-exits-undefined"
UNIFORM = "uniform"
MODELS = (MAXIMAL, LOOP_EXITS_UNDEFINED, UNIFORM)

#: why a model leaves the wave operations `undefined_wave_ops` lists undefined
WHY_UNDEFINED = {
    LOOP_EXITS_UNDEFINED: "is on a loop's exit path",
    UNIFORM: "runs where lanes that left without a merge (a `continue` some lanes take, "
             "a helper's `return` some take) may be back, which is not uniform control flow",
}


def _while_falls_through(s: n.While) -> bool:
    """Whether a `while True:` loop can be left by its own `break` (else only by a
    `return`, a `fail` or the budget: it never falls through)."""
    def own_break(stmts: tuple[n.Stmt, ...]) -> bool:
        for x in stmts:
            if isinstance(x, n.Break):
                return True
            if isinstance(x, n.If) and (own_break(x.then) or own_break(x.orelse)):
                return True
        return False
    return own_break(s.body)


class _ExitPaths:
    """One function's wave operations and calls on a loop's exit path."""

    def __init__(self) -> None:
        self.waves: list[n.WaveOp] = []
        self.calls: list[n.Call] = []

    def mark(self, node: object) -> None:
        for x in walk(node):
            if isinstance(x, n.WaveOp):
                self.waves.append(x)
            elif isinstance(x, n.Call):
                self.calls.append(x)

    def block(self, stmts: tuple[n.Stmt, ...], in_loop: bool, tail: bool,
              inherited: bool) -> bool:
        """Scan `stmts`; `tail` says whether falling out of the block leaves the innermost
        enclosing loop, `inherited` whether the block is on an outer loop's exit path.
        Returns whether entering the block leaves the innermost loop on every path."""
        exits = [False] * (len(stmts) + 1)
        exits[-1] = tail
        for i in range(len(stmts) - 1, -1, -1):
            exits[i] = self._exits(stmts[i], exits[i + 1])
        for i, s in enumerate(stmts):
            undefined = inherited or (in_loop and exits[i])
            after = exits[i + 1]
            if isinstance(s, n.If):
                if undefined:
                    self.mark(s.cond)
                self.block(s.then, in_loop, after, inherited)
                self.block(s.orelse, in_loop, after, inherited)
            elif isinstance(s, n.For):
                if undefined:
                    self.mark((s.start, s.stop))
                self.block(s.body, True, False, undefined)
            elif isinstance(s, n.While):
                self.block(s.body, True, False, undefined)
            elif isinstance(s, (n.Return, n.Fail)):
                # the lane leaves right after evaluating the value: inside a loop, an exit
                if in_loop or inherited:
                    self.mark(s)
            elif undefined:
                self.mark(s)
        return exits[0]

    @staticmethod
    def _exits(s: n.Stmt, rest: bool) -> bool:
        """Whether every path from the start of `s` leaves the innermost loop, given
        whether the code after `s` does (`rest`)."""
        if isinstance(s, (n.Break, n.Return, n.Fail)):
            return True
        if isinstance(s, n.Continue):
            return False
        if isinstance(s, n.If):
            return _ExitPaths._block_exits(s.then, rest) and \
                _ExitPaths._block_exits(s.orelse, rest)
        if isinstance(s, n.While) and not _while_falls_through(s):
            return True
        return rest

    @staticmethod
    def _block_exits(stmts: tuple[n.Stmt, ...], tail: bool) -> bool:
        exits = tail
        for s in reversed(stmts):
            exits = _ExitPaths._exits(s, exits)
        return exits


def undefined_wave_ops(program: n.Program, entry: str, model: str) -> list[n.WaveOp]:
    """The wave operations of the functions `entry` reaches whose result `model` leaves
    undefined, in source order per function (none under `maximal`)."""
    if model == MAXIMAL:
        return []
    if model == UNIFORM:
        return _in_order(program, entry, uniformity.analyse(program, entry).scarred)
    assert model == LOOP_EXITS_UNDEFINED, f"unknown reconvergence model {model}"
    functions = {f.name: f for f in reachable(program, entry)}
    found: dict[int, n.WaveOp] = {}
    tainted: set[str] = set()  # helpers called from an exit path: all their code
    pending: list[str] = []
    for f in functions.values():
        scan = _ExitPaths()
        scan.block(f.body, False, False, False)
        for w in scan.waves:
            found[id(w)] = w
        pending += [c.func for c in scan.calls]
    while pending:
        name = pending.pop()
        if name in tainted:
            continue
        tainted.add(name)
        for x in walk(functions[name].body):
            if isinstance(x, n.WaveOp):
                found[id(x)] = x
            elif isinstance(x, n.Call):
                pending.append(x.func)
    return _in_order(program, entry, frozenset(found))


def _in_order(program: n.Program, entry: str, ids: frozenset[int]) -> list[n.WaveOp]:
    """The wave operations of the functions `entry` reaches whose ids are in `ids`, in
    source order per function."""
    return [x for x in walk(tuple(reachable(program, entry)))
            if isinstance(x, n.WaveOp) and id(x) in ids]


def describe(op: n.WaveOp) -> str:
    return f"{op.op}() at line {op.line}"


def _replacement(op: n.WaveOp) -> n.Expr:
    """A wave-free expression of the same type: the operand itself (a lane's own value
    is what a one-lane wave would give)."""
    if op.op in ("elect", "wave_all_equal"):  # (one lane: it is elected, it agrees)
        return n.Const(True, line=op.line, ty=BOOL)
    x = op.args[0]
    if op.op == "ballot":
        return n.Cast(I64, x, line=op.line, ty=I64)
    if op.op in ("prefix_sum",):
        zero = n.Const(0, line=op.line, ty=I32)
        # an i64 sum's zero stays an i64 when the program is checked again (a bare `0`
        # is an i32 literal, and would make the variable it first sets an i32)
        return n.Cast(I64, zero, line=op.line, ty=I64) if op.ty is I64 else zero
    return x


def defined_only(program: n.Program, entry: str, model: str) -> n.Program | None:
    """`program` with every wave operation `model` leaves undefined replaced by a
    wave-free expression of its type (None when there was none to replace); under
    `uniform`, also those at places lanes may reach apart (most runs would leave them
    undefined). The result is checked."""
    if model == UNIFORM:
        u = uniformity.analyse(program, entry)
        undefined = set(u.divergent | u.scarred)
    else:
        undefined = {id(w) for w in undefined_wave_ops(program, entry, model)}
    if not undefined:
        return None

    def replace(x: Any) -> Any:
        # the replacement is the operand, which may be an undefined operation itself
        # (`wave_any(elect())`): `substitute` visits the replacement's children only
        out = None
        while id(x) in undefined:
            x = out = _replacement(x)
        return out

    return ir.check(substitute(program, replace))
