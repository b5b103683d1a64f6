"""Lowering: checked IR -> linear machine code over virtual registers, with exec masks.

Contract: the input is a checked `Program` (types filled in); the output `Lowered` holds
instructions whose vector operands are *virtual* registers (mask registers are assigned
here directly: they are the compiler's SGPR-like scalars and never spilled), labels not
yet resolved, and the structure register allocation needs:

- `logical`: per-instruction overrides of control flow as one lane sees it (the program's
  own CFG): an if's head goes to both arms, the then-arm's end goes to the join (not into
  the else-arm, which is where the wave falls through), `break` goes to the loop exit,
  `continue` to the continue point, a kernel `return` or `fail` ends the lane.
- `regions`: spans of code during which some lanes are parked somewhere else, with the
  label where they wait (the else-arm start while the then-arm runs, the join while the
  else-arm runs, the loop exit and continue point while the loop runs, a helper call's
  return point while its body runs). Values live at a parking point are live *in inactive
  lanes* throughout the span: the physical edges of the liveness rule (docs/semantics.md).
- infopoints: every instruction that can fault carries the source stack (one frame per
  inlined call, innermost last) and the variables in scope.

Exec-mask scheme (AMDGPU-like, see isa.py): if/else saves EXEC, runs the then-arm under
EXEC & cond and the else-arm under the rest, and rejoins with EXEC |= (lanes that left
the then-arm normally). Loops keep the iterating lanes, an exit mask (finished or broken
lanes) and a continue mask; `return` in a helper collects lanes in the call's return mask.
Helpers are inlined; each inlined call gets fresh virtual registers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from difftest.core.ir import nodes as n
from difftest.core.ir.printer import expr_source
from difftest.core import f32, f64
from difftest.core.ir.types import (BOOL, BUF_I32, BY_WIDTH, F32, F64, I32, I64, U64, Type,
                                    int_range, local_of, storage, widest)
from difftest.core.outcome import Frame

from ..mutants import NONE, Mutants
from ..isa import (ALIVE, ALWAYS_ALL_LANES, EXEC, FAULT_ALLOC, FAULT_CONVERT, FAULT_DIV0,
                  FAULT_FAIL, FAULT_OOB, NAN_BITS, NAN64_BITS, UNIFORM_VALUES, UNSIGNED,
                  WRITES_VREG, Op, kind)

_INT_FUNCTIONS = {"popcount": Op.POPCOUNT, "clz": Op.CLZ, "ctz": Op.CTZ,
                  "bit_reverse": Op.BIT_REVERSE, "rotate_left": Op.ROTATE_LEFT,
                  "rotate_right": Op.ROTATE_RIGHT, "mul_hi": Op.MUL_HI, "min": Op.MIN,
                  "max": Op.MAX, "abs": Op.ABS}
_ARITH = {"+": Op.ADD, "-": Op.SUB, "*": Op.MUL, "//": Op.DIV, "%": Op.REM, "&": Op.AND,
          "|": Op.OR, "^": Op.XOR, "<<": Op.SHL, ">>": Op.SHR}
_CMP = {"==": Op.CMP_EQ, "!=": Op.CMP_NE, "<": Op.CMP_LT, "<=": Op.CMP_LE, ">": Op.CMP_GT,
        ">=": Op.CMP_GE}
_FARITH = {"+": Op.FADD, "-": Op.FSUB, "*": Op.FMUL}
_FCMP = {"==": Op.FCMP_EQ, "!=": Op.FCMP_NE, "<": Op.FCMP_LT, "<=": Op.FCMP_LE,
         ">": Op.FCMP_GT, ">=": Op.FCMP_GE}
#: an f32's sign bit as its register holds it (sign-extended), and the other 31
_SIGN, _MAGNITUDE = -(1 << 31), (1 << 31) - 1
#: an f64's sign bit (its magnitude: the other 63, ~_MIN64)
_MIN64 = -(1 << 63)


@dataclass(eq=False)  # compared and hashed by identity: each is one place in the code
class Label:
    name: str
    index: int = -1  # instruction index once placed


@dataclass(eq=False)  # compared and hashed by identity, as Label
class Instr:
    """One machine instruction over virtual registers (`d`/`a`/`b`/`c` are vreg numbers,
    mask numbers or slots depending on the opcode; `target` a Label for jumps)."""

    op: Op
    d: int = 0
    a: int = 0
    b: int = 0
    c: int = 0
    imm: int = 0
    wm: int = 0
    ip: int = -1
    target: Label | None = None
    # A masked write whose register's *inactive* lanes are read later (by an all-lane
    # spill): the write does not kill the old value, so it counts as a use too.
    keeps: bool = False
    # A DEOPT's frame state: the vregs the host needs to resume the lanes (they must be
    # alive in some register or slot when the lanes leave), so uses for liveness.
    deopt_uses: tuple[int, ...] = ()

    def clone(self) -> Instr:
        """A shallow copy (register allocation copies an instruction before spill code
        changes it; `copy.copy` of a dataclass was a twentieth of the compiler's time)."""
        out = object.__new__(Instr)
        out.__dict__.update(self.__dict__)
        return out


@dataclass
class Infopoint:
    """Where a lane can leave the machine: what faults there, the source stack, the
    variables in scope (name -> vreg) of every frame, innermost last, and where the
    innermost source statement containing it starts (a label)."""

    kind: int
    stack: tuple[Frame, ...]
    frames: tuple[tuple[str, dict[str, int]], ...]
    statement: Label | None = None


@dataclass
class ColdIf:
    """An `if` statement whose then-arm speculation may assume cold: the arm's code spans
    [start, end); lanes entering it would deopt there."""

    start: Label
    end: Label
    line: int


#: where the lanes of a region wait: an if's else-arm start while its then-arm runs
#: ("then"), its join while the else-arm runs ("else"), a loop's exit ("loop_exit") or
#: continue point ("loop_continue") while the loop runs, an inlined call's return point
#: ("call")
PARKING_KINDS = ("then", "else", "loop_exit", "loop_continue", "call")
#: and "exit_arm", which parks no lanes: an if-arm that ends in its loop's `break`
#: (`parked`: the loop's exit label), which only the liveness pair mutants read
REGION_KINDS = PARKING_KINDS + ("exit_arm",)


@dataclass
class Region:
    """Instructions [start, end) run while some lanes wait at `parked` (a label)."""

    start: Label
    end: Label
    parked: Label
    why: str
    kind: str = ""


class Meanings(Mapping[int, str]):
    """vreg -> what it holds, in words. An expression's value is described by its source
    text, printed when first asked for: only listings and reports read most of them, and
    printing every expression would cost more than lowering it."""

    def __init__(self, raw: dict[int, str | n.Expr]) -> None:
        self._raw = raw

    def __getitem__(self, v: int) -> str:
        got = self._raw[v]
        if not isinstance(got, str):
            got = self._raw[v] = f"`{expr_source(got)}` (line {got.line})"
        return got

    def __iter__(self) -> Iterator[int]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


@dataclass
class Lowered:
    code: list[Instr | Label]
    nvregs: int
    nmasks: int
    vreg_types: dict[int, Type]
    vreg_names: dict[int, str]
    vreg_meanings: Meanings
    infopoints: list[Infopoint]
    regions: list[Region]
    # logical successors that differ from the physical ones: instruction -> labels (or
    # [] = the lane ends here)
    logical: dict[Instr, list[Label]]
    params: list[str]
    cold_ifs: list[ColdIf] = field(default_factory=list)
    # the kernel's workgroup arrays, in LOCALBASE's numbering: (name, element bits, length)
    workgroup_arrays: list[tuple[str, int, int]] = field(default_factory=list)
    # device code only (speculate.py): a DEOPT's infopoint -> the host's resume label
    speculated: dict[int, Label] = field(default_factory=dict)

    def scalar_variables(self) -> frozenset[int]:
        """The vregs of source variables holding scalars (not buffer references): the
        values whose deaths generators/pairs.py counts."""
        return frozenset(v for v in self.vreg_names
                         if not (self.vreg_types[v].is_buffer or self.vreg_types[v].is_local))


@dataclass
class _Frame:
    fn: n.Function
    vars: dict[str, int]
    callers: tuple[Frame, ...]
    ret_mask: int = -1
    ret_vreg: int = -1
    ret_label: Label | None = None
    # (exit mask, continue mask, exit label, continue label) of each enclosing loop
    loops: list[tuple[int, int, Label, Label]] = field(default_factory=list)
    # each private array's elements: one vreg each (kept in registers, as compilers keep
    # small arrays, read and written by selects on the index)
    arrays: dict[str, list[int]] = field(default_factory=dict)


class _Lowerer:
    def __init__(self, program: n.Program, uniform_all_lanes: bool, tree: bool,
                 mutants: Mutants) -> None:
        self.program = program
        self.mutants = mutants
        self.uniform_wm = 1 if uniform_all_lanes else 0
        self.tree = tree  # wave_sum / wave_any as shuffle trees (`reduce=tree`)
        self.lane_all = -1  # under `tree`: the prologue's all-lane lane id
        self.code: list[Instr | Label] = []
        self.nvregs = 0
        self.nmasks = 2  # EXEC, ALIVE
        self.types: dict[int, Type] = {}
        self.names: dict[int, str] = {}
        self.meanings: dict[int, str | n.Expr] = {}
        self.cold_ifs: list[ColdIf] = []
        self.statement: Label | None = None
        self.infopoints: list[Infopoint] = []
        self.regions: list[Region] = []
        self.logical: dict[Instr, list[Label]] = {}
        self.frames: list[_Frame] = []
        self.nlabels = 0
        self.loop_depth = 0  # loops around the statement being lowered, inlined calls' too
        self.sunk_barrier = False  # the barrier-sunk-out-of-loop mutant's barrier to place
        self.broken: dict[Any, int] = {}  # wave-sees-broken-lanes: loop exit -> this trip's

    # ---------------------------------------------------------------- basics

    def vreg(self, ty: Type, name: str = "", meaning: str = "") -> int:
        """A fresh vreg; `name` for a source variable, `meaning` says what else it holds
        (deopt metadata and listings name every value by what it is, not `$tN`)."""
        v = self.nvregs
        self.nvregs += 1
        self.types[v] = ty
        if name:
            self.names[v] = name
            fn = self.frames[-1].fn.name if self.frames else ""
            self.meanings[v] = f"{fn}.{name}" if fn and "." not in name else name
        elif meaning:
            self.meanings[v] = meaning
        return v

    def mask(self) -> int:
        m = self.nmasks
        self.nmasks += 1
        return m

    def label(self, name: str) -> Label:
        self.nlabels += 1
        return Label(f"{name}{self.nlabels}")

    def emit(self, op: Op, d: int = 0, a: int = 0, b: int = 0, c: int = 0, imm: int = 0,
             wm: int = 0, target: Label | None = None) -> Instr:
        ins = Instr(op, d, a, b, c, imm, wm, -1, target)
        self.code.append(ins)
        return ins

    def place(self, lab: Label) -> None:
        self.code.append(lab)

    def infopoint(self, ins: Instr, kind: int, line: int) -> None:
        fr = self.frames[-1]
        stack = fr.callers + (Frame(fr.fn.name, line),)
        if self.mutants.on("stack-drops-inlined-frame") and fr.callers:
            stack = fr.callers  # the caller's call line becomes the innermost frame
        frames = tuple((f.fn.name, dict(f.vars)) for f in self.frames)
        ins.ip = len(self.infopoints)
        self.infopoints.append(Infopoint(kind, stack, frames, self.statement))

    def region(self, start: Label, end: Label, parked: Label, why: str, kind: str) -> None:
        assert kind in REGION_KINDS, kind
        self.regions.append(Region(start, end, parked, why, kind))

    def set_logical(self, ins: Instr, succs: list[Label]) -> None:
        self.logical[ins] = succs

    # -------------------------------------------------------------- program

    def kernel(self, entry: str) -> Lowered:
        fn = self.program.function(entry)
        frame = _Frame(fn, {}, ())
        self.frames.append(frame)
        for i, p in enumerate(fn.params):
            v = self.vreg(p.ty, p.name)
            self.emit(Op.PARAM, d=v, imm=i, wm=self.uniform_wm)
            frame.vars[p.name] = v
        # a workgroup array's reference is the kernel's from its start, like a buffer
        # parameter's (nothing before it can deopt, so the host never needs LOCALBASE)
        arrays = [s for s in fn.body if isinstance(s, n.LocalArray)]
        for j, a in enumerate(arrays):
            v = self.vreg(local_of(a.element), a.name)
            self.emit(Op.LOCALBASE, d=v, imm=j, wm=self.uniform_wm)
            frame.vars[a.name] = v
        if self.tree:
            # the lane id, computed once in the prologue in every lane, as compilers keep
            # it in a register for the whole kernel: a long-lived whole-wave value
            self.lane_all = self.vreg(I32, meaning="lane id (all lanes)")
            self.emit(Op.LANEID, d=self.lane_all, wm=1)
        self.block(fn.body)
        self.emit(Op.HALT)
        return Lowered(self.code, self.nvregs, self.nmasks, self.types, self.names,
                       Meanings(self.meanings), self.infopoints, self.regions, self.logical,
                       [p.name for p in fn.params], self.cold_ifs,
                       [(a.name, kind(a.element), a.length) for a in arrays])

    # ------------------------------------------------------------ statements

    def block(self, stmts: tuple[n.Stmt, ...]) -> None:
        outer = self.statement  # an inlined body ends inside its caller's statement
        if self.mutants.on("store-past-barrier"):
            stmts = _stores_past_barriers(stmts)
        for s in stmts:
            start = self.label(f"stmt_line{s.line}_")
            self.place(start)
            self.statement = start
            getattr(self, "s_" + type(s).__name__)(s)
        self.statement = outer

    def var(self, name: str, ty: Type) -> int:
        fr = self.frames[-1]
        if name not in fr.vars:
            fr.vars[name] = self.vreg(ty, name)
        return fr.vars[name]

    def s_Assign(self, s: n.Assign) -> None:
        v = self.expr(s.value)
        fr = self.frames[-1]
        if s.target in fr.vars:
            target = fr.vars[s.target]
        else:
            ty = s.declared or s.value.ty
            assert ty is not None
            target = self.var(s.target, ty)
        last = self.code[-1] if self.code else None
        if (isinstance(last, Instr) and last.op in WRITES_VREG and last.d == v
                and v not in self.names and last.wm == 0 and last.op not in ALWAYS_ALL_LANES
                and last.op not in (Op.READFIRST, Op.SHUFFLE) and not last.keeps):
            # (not where it reads its destination too: compare_exchange's compare)
            # The value's own (masked) instruction writes the variable: no copy. Never for
            # an all-lane write: that would clobber the variable in inactive lanes.
            last.d = target
            return
        self.emit(Op.MOV, d=target, a=v)

    def s_Store(self, s: n.Store) -> None:
        val = self.expr(s.value)
        idx = self.expr(s.index)
        if s.buffer in self.frames[-1].arrays:
            self._array_store(s, val, idx)
            return
        buf = self.frames[-1].vars[s.buffer]
        ins = self.emit(Op.STORE, a=buf, b=idx, c=val)
        self.infopoint(ins, FAULT_OOB, s.line)

    def s_AtomicAdd(self, s: n.AtomicAdd) -> None:
        idx = self.expr(s.index)
        val = self.expr(s.value)
        buf = self.frames[-1].vars[s.buffer]
        ins = self.emit(Op.ATOMIC_ADD, a=buf, b=idx, c=val)
        self.infopoint(ins, FAULT_OOB, s.line)

    def _two_way(self, cond: int, then: Any, orelse: Any, what: str,
                 breaks: tuple[bool, bool] = (False, False)) -> None:
        """if/else over masks; `then`/`orelse` are callables emitting the arms, `breaks`
        whether each ends in its loop's `break`."""
        saved, t, e, tout = self.mask(), self.mask(), self.mask(), self.mask()
        then_start, then_end = self.label(f"{what}_then"), self.label(f"{what}_then_end")
        else_start, join = self.label(f"{what}_else"), self.label(f"{what}_join")
        self.emit(Op.M_GETEXEC, d=saved)
        self.emit(Op.M_FROMCOND, d=t, a=cond)
        self.emit(Op.M_ANDN, d=e, a=saved, b=t)
        self.emit(Op.M_SETEXEC, a=t)
        head = self.emit(Op.JZ_EXEC, target=then_end)
        self.set_logical(head, [then_start, else_start])
        self.place(then_start)
        then()
        self.place(then_end)
        end = self.emit(Op.M_GETEXEC, d=tout)
        self.set_logical(end, [join])
        self.place(else_start)
        self.emit(Op.M_SETEXEC, a=e)
        skip = self.emit(Op.JZ_EXEC, target=join)
        else_body = self.label(f"{what}_else_body")
        self.set_logical(skip, [else_body])  # the skip is the wave's, never a lane's path
        self.place(else_body)
        orelse()
        self.place(join)
        if self.mutants.on("join-restores-saved-exec"):
            self.emit(Op.M_SETEXEC, a=saved)  # lanes that left an arm come back
        else:
            self.emit(Op.M_OR, d=EXEC, a=EXEC, b=tout)
        self.region(then_start, else_start, else_start, f"{what}: else-lanes wait", "then")
        self.region(else_start, join, join, f"{what}: finished then-lanes wait", "else")
        for (first, past), ends in zip(((then_start, then_end), (else_body, join)), breaks):
            if ends:
                exit_label = self.frames[-1].loops[-1][2]
                self.region(first, past, exit_label, f"{what}: an arm that breaks", "exit_arm")

    def s_If(self, s: n.If) -> None:
        if s.switch and self.mutants.on("switch-falls-through") and n.switch_cases(s):
            # the mutant: a case's lanes run the next case's arm too (no `break`)
            nxt = s.orelse[0].then if len(s.orelse) == 1 and isinstance(s.orelse[0], n.If) \
                and s.orelse[0].switch else s.orelse
            s = n.replace(s, then=s.then + nxt)
        early = s.switch and self.mutants.on("switch-reconverges-early") \
            and n.switch_cases(s) is not None
        if early:  # the mutant: the lanes the switch started with rejoin after it
            entry = self.mask()
            self.emit(Op.M_GETEXEC, d=entry)
        cond = self.expr(s.cond)
        start, end = self.label("cold_start"), self.label("cold_end")

        def then() -> None:
            self.place(start)
            self.block(s.then)
            self.place(end)

        breaks = (bool(s.then) and isinstance(s.then[-1], n.Break),
                  bool(s.orelse) and isinstance(s.orelse[-1], n.Break))
        self._two_way(cond, then, lambda: self.block(s.orelse), "if", breaks)
        self.cold_ifs.append(ColdIf(start, end, s.line))
        if early:
            self.emit(Op.M_SETEXEC, a=entry)

    def s_For(self, s: n.For) -> None:
        start = self.expr(s.start)
        bound = self.expr(s.stop)
        assert s.start.ty is not None and s.stop.ty is not None
        ty = widest(s.start.ty, s.stop.ty)  # the checker's type of the loop variable
        stop = self.vreg(ty, meaning=f"loop `{s.var}` bound, read once at entry (line {s.line})")
        self.emit(Op.MOV, d=stop, a=bound)
        k = self.var(s.var, ty)
        # A hidden trip counter: the loop variable is only written at the start of a trip
        # (Python: an empty range leaves it alone, and after the loop it holds the last
        # trip's value, not one past it).
        ctr = self.vreg(ty, meaning=f"loop `{s.var}` trip counter (line {s.line})")
        self.emit(Op.MOV, d=ctr, a=start)
        iterating, exitm, cont, act = self.mask(), self.mask(), self.mask(), self.mask()
        top, body = self.label("loop_top"), self.label("loop_body")
        cont_label = self.label("loop_continue")
        exit_label, after = self.label("loop_exit"), self.label("loop_after")
        self.emit(Op.M_GETEXEC, d=iterating)
        self.emit(Op.M_CLEAR, d=exitm)
        self.place(top)
        self.emit(Op.M_CLEAR, d=cont)
        self._trip_breaks(exit_label)
        self.emit(Op.M_SETEXEC, a=iterating)
        if self.mutants.on("loop-var-before-check"):
            self.emit(Op.MOV, d=k, a=ctr)  # also in the lanes about to leave the loop
        t = self.vreg(BOOL)
        unsigned = ty is U64 and not self.mutants.on("loop-bound-signed")
        self.emit(Op.CMP_LT, d=t, a=ctr, b=stop, imm=64 + (UNSIGNED if unsigned else 0))
        self.emit(Op.M_FROMCOND, d=act, a=t)
        fin = self.mask()
        self.emit(Op.M_ANDN, d=fin, a=iterating, b=act)
        self.emit(Op.M_OR, d=exitm, a=exitm, b=fin)
        self.emit(Op.M_SETEXEC, a=act)
        self.emit(Op.JZ_EXEC, target=exit_label)
        self.place(body)
        self.emit(Op.TRIP)  # the active lanes start a trip: the step budget's unit
        if not self.mutants.on("loop-var-before-check"):
            self.emit(Op.MOV, d=k, a=ctr)
        self.frames[-1].loops.append((exitm, cont, exit_label, cont_label))
        self._loop_body(s.body)
        self.frames[-1].loops.pop()
        self.place(cont_label)
        self.emit(Op.M_OR, d=EXEC, a=EXEC, b=cont)
        one = self.vreg(ty)
        self.emit(Op.MOVI, d=one, imm=1, wm=self.uniform_wm)
        self.emit(Op.ADD, d=ctr, a=ctr, b=one, imm=kind(ty))
        self.emit(Op.M_GETEXEC, d=iterating)
        self.emit(Op.JMP, target=top)
        self.place(exit_label)
        self.emit(Op.M_SETEXEC, a=exitm)
        self.place(after)
        self._after_loop()
        self.region(top, exit_label, exit_label, "loop: exited lanes wait", "loop_exit")
        self.region(body, cont_label, cont_label, "loop: continued lanes wait",
                    "loop_continue")

    def s_While(self, s: n.While) -> None:
        """`while True:` as a `for` without the range check: every iterating lane starts
        each trip; the exit mask collects the lanes that break."""
        iterating, exitm, cont = self.mask(), self.mask(), self.mask()
        top, body = self.label("while_top"), self.label("while_body")
        cont_label = self.label("while_continue")
        exit_label = self.label("while_exit")
        self.emit(Op.M_GETEXEC, d=iterating)
        self.emit(Op.M_CLEAR, d=exitm)
        self.place(top)
        self.emit(Op.M_CLEAR, d=cont)
        self._trip_breaks(exit_label)
        self.emit(Op.M_SETEXEC, a=iterating)
        skip = self.emit(Op.JZ_EXEC, target=exit_label)
        # the wave's skip once no lane iterates: a lane leaves only by `break`, so a
        # value the body redefines before its breaks is dead at the top (003's loop-exit
        # form: only the exit region keeps it for the lanes that already left)
        self.set_logical(skip, [body])
        self.place(body)
        self.emit(Op.TRIP)
        self.frames[-1].loops.append((exitm, cont, exit_label, cont_label))
        self._loop_body(s.body)
        self.frames[-1].loops.pop()
        self.place(cont_label)
        self.emit(Op.M_OR, d=EXEC, a=EXEC, b=cont)
        self.emit(Op.M_GETEXEC, d=iterating)
        self.emit(Op.JMP, target=top)
        self.place(exit_label)
        self.emit(Op.M_SETEXEC, a=exitm)
        self._after_loop()
        self.region(top, exit_label, exit_label, "while: broken lanes wait", "loop_exit")
        self.region(body, cont_label, cont_label, "while: continued lanes wait",
                    "loop_continue")

    def s_Break(self, s: n.Break) -> None:
        exitm, cont, exit_label, _ = self.frames[-1].loops[-1]
        if self.mutants.on("break-mask-lost"):
            exitm = cont  # the lane waits at the continue point: it iterates again
        self.emit(Op.M_OR, d=exitm, a=exitm, b=EXEC)
        if exit_label in self.broken:
            brk = self.broken[exit_label]
            self.emit(Op.M_OR, d=brk, a=brk, b=EXEC)
        ins = self.emit(Op.M_CLEAR, d=EXEC)
        self.set_logical(ins, [exit_label])

    def s_Continue(self, s: n.Continue) -> None:
        _, cont, _, cont_label = self.frames[-1].loops[-1]
        self.emit(Op.M_OR, d=cont, a=cont, b=EXEC)
        ins = self.emit(Op.M_CLEAR, d=EXEC)
        self.set_logical(ins, [cont_label])

    def s_Return(self, s: n.Return) -> None:
        fr = self.frames[-1]
        if len(self.frames) == 1:
            ins = self.emit(Op.KILL)
            self.set_logical(ins, [])
            return
        if s.value is not None:
            v = self.expr(s.value)
            self.emit(Op.MOV, d=fr.ret_vreg, a=v)
        self.emit(Op.M_OR, d=fr.ret_mask, a=fr.ret_mask, b=EXEC)
        ins = self.emit(Op.M_CLEAR, d=EXEC)
        assert fr.ret_label is not None
        self.set_logical(ins, [fr.ret_label])

    def s_Fail(self, s: n.Fail) -> None:
        code = self.expr(s.code)
        ins = self.emit(Op.FAIL, a=code)
        self.infopoint(ins, FAULT_FAIL, s.line)
        self.set_logical(ins, [])

    def s_CallStmt(self, s: n.CallStmt) -> None:
        self.call(s.call)

    def s_LocalArray(self, s: n.LocalArray) -> None:
        """Nothing here: the prologue gave the array its reference (`kernel`)."""

    # ---------------------------------------------------------- private arrays

    def s_PrivateArray(self, s: n.PrivateArray) -> None:
        """Every element zeroed (in the lanes here), each time the declaration runs; a
        declaration again (a loop's next trip, the other arm) reuses the registers."""
        fr = self.frames[-1]
        elems = fr.arrays.get(s.name)
        if elems is None:
            elems = fr.arrays[s.name] = [
                self.vreg(s.element, meaning=f"{fr.fn.name}.{s.name}[{k}]")
                for k in range(s.length)]
        for v in elems:
            self.emit(Op.MOVI, d=v, imm=0)

    def _array_index(self, name: str, idx: int, line: int) -> tuple[list[int], int]:
        """The array's elements, and the index checked against its length."""
        elems = self.frames[-1].arrays[name]
        ins = self.emit(Op.CHECK_INDEX, a=idx, imm=len(elems))
        self.infopoint(ins, FAULT_OOB, line)
        return elems, idx

    def _is(self, idx: int, k: int) -> int:
        """A 0/1 vreg: whether the index is `k`."""
        kv = self.vreg(I64, meaning=str(k))
        self.emit(Op.MOVI, d=kv, imm=k)
        c = self.vreg(BOOL)
        self.emit(Op.CMP_EQ, d=c, a=idx, b=kv, imm=64)
        return c

    def _array_load(self, e: n.Load, idx: int) -> int:
        if self.mutants.on("private-index-first-lane"):
            # the mutant: the index taken as one value for the wave (its first lane's)
            first = self.vreg(I64, meaning="index (first lane)")
            self.emit(Op.READFIRST, d=first, a=idx)
            idx = first
        elems, idx = self._array_index(e.buffer, idx, e.line)
        assert e.ty is not None
        v = self.vreg(e.ty)
        self.emit(Op.MOV, d=v, a=elems[0])
        for k in range(1, len(elems)):
            self.emit(Op.SELECT, d=v, a=self._is(idx, k), b=elems[k], c=v)
        return v

    def _array_store(self, s: n.Store, val: int, idx: int) -> None:
        elems, idx = self._array_index(s.buffer, idx, s.line)
        wm = 0
        if self.mutants.on("private-array-uniform"):
            # the mutant: one array for the wave, as if uniform: the first active lane's
            # index and value written into every lane's copy
            first_i, first_v = self.vreg(I64), self.vreg(self.types[val])
            self.emit(Op.READFIRST, d=first_i, a=idx)
            self.emit(Op.READFIRST, d=first_v, a=val)
            idx, val, wm = first_i, first_v, 1
        for k, v in enumerate(elems):
            self.emit(Op.SELECT, d=v, a=self._is(idx, k), b=val, c=v, wm=wm)

    def s_Barrier(self, s: n.Barrier) -> None:
        if self.loop_depth and self.mutants.on("barrier-sunk-out-of-loop"):
            self.sunk_barrier = True  # the bug: once, after the outermost loop
            return
        self.emit(Op.BARRIER)

    def _loop_body(self, body: tuple[n.Stmt, ...]) -> None:
        self.loop_depth += 1
        self.block(body)
        self.loop_depth -= 1

    def _after_loop(self) -> None:
        if self.sunk_barrier and not self.loop_depth:
            self.sunk_barrier = False
            self.emit(Op.BARRIER)

    # ----------------------------------------------------------- expressions

    def expr(self, e: n.Expr) -> int:
        v: int = getattr(self, "e_" + type(e).__name__)(e)
        if v not in self.meanings:
            self.meanings[v] = e  # printed when asked for (`Meanings`)
        return v

    def e_Const(self, e: n.Const) -> int:
        assert e.ty is not None
        return self.constant(f32.to_bits(e.value) if e.ty is F32
                             else f64.to_bits(e.value) if e.ty is F64
                             else storage(int(e.value), e.ty), e.ty)

    def constant(self, value: int, ty: Type) -> int:
        v = self.vreg(ty)
        self.emit(Op.MOVI, d=v, imm=value, wm=self.uniform_wm)
        return v

    def e_Name(self, e: n.Name) -> int:
        return self.frames[-1].vars[e.id]

    def e_WorkId(self, e: n.WorkId) -> int:
        v = self.vreg(e.ty or BOOL)
        op = {"gid": Op.GID, "lane": Op.LANEID, "wave": Op.WAVEID, "local_id": Op.LOCALID,
              "group_id": Op.GROUPID, "group_size": Op.GROUPSIZE}[e.which]
        self.emit(op, d=v, wm=self.uniform_wm if op in UNIFORM_VALUES else 0)
        return v

    def e_Unary(self, e: n.Unary) -> int:
        a = self.expr(e.operand)
        assert e.ty is not None
        v = self.vreg(e.ty)
        if e.op == "not":
            self.emit(Op.LNOT, d=v, a=a)
        elif e.ty.is_float:
            return self._negated(a, e.ty)
        else:
            self.emit(Op.NEG if e.op == "-" else Op.NOT, d=v, a=a, imm=kind(e.ty))
        return v

    def e_Binary(self, e: n.Binary) -> int:
        assert e.ty is not None
        if e.ty.is_float:
            return self._float_binary(e)
        a = self.expr(e.left)
        b = self.expr(e.right)
        v = self.vreg(e.ty)
        imm = kind(e.ty)
        signed_for_unsigned = (
            e.op in ("//", "%") and self._mistaken("unsigned-div-signed", e.ty)
            or e.op == ">>" and self._mistaken("shr-arithmetic-unsigned", e.ty))
        if signed_for_unsigned:  # the mutants: the signed operation of the width
            a, imm = self._as_signed(a, e.ty), e.ty.bits
            if e.op != ">>":
                b = self._as_signed(b, e.ty)
        elif e.op in ("+", "-") and e.ty.bits < 32 and self.mutants.on("narrow-add-unwrapped"):
            imm = 64  # the mutant: the sum of a narrow type left unwrapped
        ins = self.emit(_ARITH[e.op], d=v, a=a, b=b, imm=imm)
        if e.op in ("//", "%"):
            self.infopoint(ins, FAULT_DIV0, e.line)
        return self._as_unsigned(v, e.ty) if signed_for_unsigned else v

    def _float_binary(self, e: n.Binary) -> int:
        assert e.ty is not None
        v = self.vreg(e.ty)
        left_mul = isinstance(e.left, n.Binary) and e.left.op == "*"
        right_mul = isinstance(e.right, n.Binary) and e.right.op == "*"
        if e.ty is F64:
            a, b = self.expr(e.left), self.expr(e.right)
            self.emit(_FARITH[e.op], d=v, a=a, b=b, imm=64)
            return v
        if e.op in ("+", "-") and (left_mul or right_mul) \
                and self.mutants.on("f32-contract-mul-add"):
            # the mutant contracts a * b +- c (and c +- a * b) into one fma: one rounding
            if left_mul:
                a, b = self.expr(e.left.left), self.expr(e.left.right)  # type: ignore[union-attr]
                c = self.expr(e.right)
                if e.op == "-":
                    c = self._negated(c)
            else:
                c = self.expr(e.left)
                a, b = self.expr(e.right.left), self.expr(e.right.right)  # type: ignore[union-attr]
                if e.op == "-":
                    a = self._negated(a)
            self.emit(Op.FFMA, d=v, a=a, b=b, c=c)
            return v
        a = self.expr(e.left)
        b = self.expr(e.right)
        self.emit(_FARITH[e.op], d=v, a=a, b=b)
        return v

    def _negated(self, x: int, ty: Type = F32) -> int:
        """A float with its sign bit flipped (`-x`)."""
        v = self.vreg(ty)
        self.emit(Op.XOR, d=v, a=x, b=self.constant(_SIGN if ty is F32 else _MIN64, I64))
        return v

    def e_Compare(self, e: n.Compare) -> int:
        a = self.expr(e.left)
        b = self.expr(e.right)
        v = self.vreg(BOOL)
        if e.left.ty is not None and e.left.ty.is_float:
            self.emit(_FCMP[e.op], d=v, a=a, b=b, imm=e.left.ty.bits)
        elif self._mistaken("unsigned-compare-signed", e.left.ty):
            self.emit(_CMP[e.op], d=v, a=self._as_signed(a, e.left.ty),
                      b=self._as_signed(b, e.right.ty), imm=64)
        else:
            unsigned64 = U64 in (e.left.ty, e.right.ty)  # a u64 compares unsigned
            self.emit(_CMP[e.op], d=v, a=a, b=b, imm=64 + (UNSIGNED if unsigned64 else 0))
        return v

    def _mistaken(self, mutant: str, ty: Type | None) -> bool:
        """Whether the integer-type mutant `mutant`, on, applies to a value of `ty` (an
        unsigned type: the signed-for-unsigned mistakes)."""
        return ty is not None and ty.is_int and not ty.signed and self.mutants.on(mutant)

    def _as_signed(self, x: int, ty: Type | None) -> int:
        """The mutants' mistake: an unsigned value's bits read as the signed type of its
        width (sign-extended from it)."""
        assert ty is not None
        v = self.vreg(BY_WIDTH[(ty.bits, True)])
        self.emit(Op.WRAP, d=v, a=x, imm=ty.bits)
        return v

    def _as_unsigned(self, x: int, ty: Type) -> int:
        """x wrapped to the kind of `ty` (the mutants' way back to a type's storage)."""
        v = self.vreg(ty)
        self.emit(Op.WRAP, d=v, a=x, imm=kind(ty))
        return v

    def e_Logic(self, e: n.Logic) -> int:
        left = self.expr(e.left)
        out = self.vreg(BOOL)
        self.emit(Op.MOV, d=out, a=left)
        flip = out
        if e.op == "or":  # evaluate the right side where the left is false
            flip = self.vreg(BOOL)
            self.emit(Op.LNOT, d=flip, a=left)

        def right() -> None:
            self.emit(Op.MOV, d=out, a=self.expr(e.right))

        self._two_way(flip, right, lambda: None, e.op)
        return out

    def e_Select(self, e: n.Select) -> int:
        cond = self.expr(e.cond)
        assert e.ty is not None
        out = self.vreg(e.ty)
        self._two_way(cond, lambda: self.emit(Op.MOV, d=out, a=self.expr(e.then)),
                      lambda: self.emit(Op.MOV, d=out, a=self.expr(e.orelse)), "select")
        return out

    def e_Load(self, e: n.Load) -> int:
        idx = self.expr(e.index)
        if e.buffer in self.frames[-1].arrays:
            return self._array_load(e, idx)
        assert e.ty is not None
        v = self.vreg(e.ty)
        ins = self.emit(Op.LOAD, d=v, a=self.frames[-1].vars[e.buffer], b=idx)
        self.infopoint(ins, FAULT_OOB, e.line)
        return v

    def e_AtomicOp(self, e: n.AtomicOp) -> int:
        """An atomic that returns: ATOMIC writes the old value into its EXEC lanes;
        compare_exchange's compare goes in first (the instruction reads it there)."""
        index, compare, value = n.atomic_parts(e)
        idx = self.expr(index)
        cmp = None if compare is None else self.expr(compare)
        val = self.expr(value)
        assert e.ty is not None
        v = self.vreg(e.ty)
        if cmp is not None:
            self.emit(Op.MOV, d=v, a=cmp)
        ins = self.emit(Op.ATOMIC, d=v, a=self.frames[-1].vars[e.buffer], b=idx, c=val,
                        imm=n.ATOMIC_OPS.index(e.op))
        ins.keeps = cmp is not None
        self.infopoint(ins, FAULT_OOB, e.line)
        return v

    def e_Len(self, e: n.Len) -> int:
        v = self.vreg(e.ty or I64)
        if e.buffer in self.frames[-1].arrays:
            self.emit(Op.MOVI, d=v, imm=len(self.frames[-1].arrays[e.buffer]))
            return v
        self.emit(Op.LEN, d=v, a=self.frames[-1].vars[e.buffer])
        return v

    def e_Alloc(self, e: n.Alloc) -> int:
        """Device code cannot allocate: every lane that gets here deopts (ALLOC), and the
        host allocates in the pool -- possibly moving it -- and finishes the lane."""
        size = self.expr(e.size)
        v = self.vreg(BUF_I32)
        ins = self.emit(Op.ALLOC, d=v, a=size)
        self.infopoint(ins, FAULT_ALLOC, e.line)
        return v

    def e_Cast(self, e: n.Cast) -> int:
        a = self.expr(e.operand)
        assert e.ty is not None and e.operand.ty is not None
        if e.ty is e.operand.ty and e.ty.is_float:
            return a
        if e.ty.is_float and e.operand.ty.is_float:  # f32 <-> f64
            v = self.vreg(e.ty)
            self.emit(Op.CVT_FD if e.ty is F64 else Op.CVT_DF, d=v, a=a)
            return v
        if e.ty.is_float:
            v = self.vreg(e.ty)
            source = e.operand.ty if e.operand.ty.is_int else I32  # a bool is 0 or 1
            self.emit(Op.CVT_IF if e.ty is F32 else Op.CVT_ID, d=v, a=a, imm=kind(source))
            return v
        if e.operand.ty.is_float:
            v = self.vreg(e.ty)
            ins = self.emit(Op.CVT_FI if e.operand.ty is F32 else Op.CVT_DI, d=v, a=a,
                            imm=kind(e.ty))
            self.infopoint(ins, FAULT_CONVERT, e.line)
            return v
        source = e.operand.ty
        if source.is_int and e.ty.is_int and source.bits < e.ty.bits and (
                self.mutants.on("zext-as-sext") and not source.signed
                or self.mutants.on("sext-as-zext") and source.signed):
            # the mutants: a widening extends by the other signedness
            a = self._as_signed(a, source) if not source.signed else \
                self._as_unsigned(a, BY_WIDTH[(source.bits, False)])
            return self._as_unsigned(a, e.ty)  # (a WRAP to the target's kind)
        if e.operand.ty.is_int and _changes(e.operand.ty, e.ty):
            v = self.vreg(e.ty)
            self.emit(Op.WRAP, d=v, a=a, imm=kind(e.ty))
            return v
        return a  # the storage form holds the value already (widening, bool -> int)

    def e_MathOp(self, e: n.MathOp) -> int:
        args = [self.expr(a) for a in e.args]
        if e.op in n.BALLOT_FUNCTIONS:  # lane-local: one machine op, the lane its own
            assert e.ty is not None
            v = self.vreg(e.ty)
            fn = n.BALLOT_FUNCTIONS.index(e.op)
            if e.op == "ballot_exclusive_bit_count" \
                    and self.mutants.on("ballot-exclusive-includes-lane"):
                fn = n.BALLOT_FUNCTIONS.index("ballot_inclusive_bit_count")
            self.emit(Op.BALLOT_FN, d=v, a=args[0], imm=fn)
            return v
        if e.ty is not None and e.ty.is_int:  # an integer function of the result's kind
            v = self.vreg(e.ty)
            if e.op == "mul_hi" and self._mistaken("mul-hi-signed", e.ty):
                # the mutant: the signed product's high half for unsigned operands
                a, b = (self._as_signed(x, e.ty) for x in args)
                self.emit(Op.MUL_HI, d=v, a=a, b=b, imm=e.ty.bits)
                return self._as_unsigned(v, e.ty)
            self.emit(_INT_FUNCTIONS[e.op], d=v, a=args[0], b=args[1] if len(args) > 1 else 0,
                      imm=kind(e.ty))
            return v
        assert e.ty is not None
        v = self.vreg(e.ty)
        wide = 64 if e.ty is F64 else 0
        if e.op == "abs":  # the sign bit cleared
            self.emit(Op.AND, d=v, a=args[0],
                      b=self.constant(_MAGNITUDE if e.ty is F32 else ~_MIN64, I64))
        elif e.op == "fma":
            self.emit(Op.FFMA, d=v, a=args[0], b=args[1], c=args[2], imm=wide)
        else:
            self.emit(Op.FMIN if e.op == "min" else Op.FMAX, d=v, a=args[0], b=args[1],
                      imm=wide)
        return v

    def e_Call(self, e: n.Call) -> int:
        return self.call(e)

    def call(self, e: n.Call) -> int:
        args = [self.expr(a) for a in e.args]
        fn = self.program.function(e.func)
        caller = self.frames[-1]
        frame = _Frame(fn, {}, caller.callers + (Frame(caller.fn.name, e.line),))
        for p, a in zip(fn.params, args):
            v = self.vreg(p.ty, p.name)
            self.meanings[v] = f"{fn.name}.{p.name} (inlined at line {e.line})"
            self.emit(Op.MOV, d=v, a=a)
            frame.vars[p.name] = v
        frame.ret_mask = self.mask()
        frame.ret_vreg = self.vreg(fn.returns or BOOL, f"{fn.name}.return")
        ret_label, body = self.label(f"ret_{fn.name}_"), self.label(f"call_{fn.name}_")
        frame.ret_label = ret_label
        self.emit(Op.M_CLEAR, d=frame.ret_mask)
        self.place(body)
        self.frames.append(frame)
        self.block(fn.body)
        self.frames.pop()
        self.place(ret_label)
        self.emit(Op.M_OR, d=EXEC, a=EXEC, b=frame.ret_mask)
        self.region(body, ret_label, ret_label, f"call {fn.name}: returned lanes wait", "call")
        return frame.ret_vreg

    def e_WaveOp(self, e: n.WaveOp) -> int:
        args = [self.expr(a) for a in e.args]
        rejoined = self._rejoined_early()
        if rejoined is None:
            return self._wave_op(e, args)
        # the mutants: lanes that wait (at the loop's continue point, at the call's return
        # point) counted in as if they had rejoined already
        saved = self.mask()
        self.emit(Op.M_GETEXEC, d=saved)
        self.emit(Op.M_OR, d=EXEC, a=EXEC, b=rejoined)
        out = self._wave_op(e, args)
        self.emit(Op.M_SETEXEC, a=saved)
        return out

    def _trip_breaks(self, exit_label: Any) -> None:
        """Under wave-sees-broken-lanes: a mask of the lanes that take this loop's `break`
        in the trip starting here (the mutant's; no code otherwise)."""
        if self.mutants.on("wave-sees-broken-lanes"):
            if exit_label not in self.broken:
                self.broken[exit_label] = self.mask()
            self.emit(Op.M_CLEAR, d=self.broken[exit_label])

    def _rejoined_early(self) -> int | None:
        """The mask of waiting lanes a wave operation wrongly counts in, under the mutants
        `wave-sees-continued-lanes` (those that took the innermost loop's `continue` this
        trip), `wave-sees-broken-lanes` (those that took its `break` this trip) and
        `wave-sees-returned-lanes` (those that returned from the helper)."""
        fr = self.frames[-1]
        if self.mutants.on("wave-sees-broken-lanes") and fr.loops:
            return self.broken[fr.loops[-1][2]]
        if self.mutants.on("wave-sees-continued-lanes") and fr.loops:
            return fr.loops[-1][1]
        if self.mutants.on("wave-sees-returned-lanes") and len(self.frames) > 1:
            return fr.ret_mask
        return None

    def _wave_op(self, e: n.WaveOp, args: list[int]) -> int:
        assert e.ty is not None
        ty = e.ty
        out = self.vreg(ty)
        if e.op == "elect":  # the lowest active lane: lane() == readfirstlane(lane())
            lane, first = self.vreg(BOOL), self.vreg(BOOL)
            self.emit(Op.LANEID, d=lane)
            self.emit(Op.READFIRST, d=first, a=lane)
            self.emit(Op.CMP_EQ, d=out, a=lane, b=first, imm=64)
            return out
        x = args[0]
        if e.op == "readfirstlane":
            self.emit(Op.READFIRST, d=out, a=x)
            return out
        xty = e.args[0].ty
        assert xty is not None
        if n.clustered(e) or (self.tree and e.op in ("wave_min", "wave_max") and xty.is_int):
            # (under `tree` every integer reduction is built from shuffles)
            self._butterfly(e.op, x, xty, n.cluster_of(e), out)
            return out
        if e.op == "wave_all_equal":
            return self._all_equal(x, out)
        if e.op in n.QUAD_OPS:  # a shuffle from lane (lane & ~3) | i, or lane ^ k
            lane, src = self.vreg(I64), self.vreg(I64)
            self.emit(Op.LANEID, d=lane)
            if e.op == "quad_broadcast":
                i = n.quad_lane(e)
                if self.mutants.on("quad-lanes-across-quads"):
                    self.emit(Op.MOVI, d=src, imm=i)  # the mutant: lane i of the wave
                else:
                    base = self.vreg(I64)
                    self.emit(Op.AND, d=base, a=lane, b=self.constant(~3, I64), imm=64)
                    self.emit(Op.OR, d=src, a=base, b=self.constant(i, I64), imm=64)
            else:
                self.emit(Op.XOR, d=src, a=lane, b=self.constant(n.QUAD_SWAPS[e.op], I64),
                          imm=64)
            args = [x, src]
        relative = e.op in n.RELATIVE_SHUFFLES
        if relative:  # the source lane: lane ^ mask, lane - delta, lane + delta (64-bit)
            lane, src = self.vreg(I64), self.vreg(I64)
            self.emit(Op.LANEID, d=lane)
            self.emit({"shuffle_xor": Op.XOR, "shuffle_up": Op.SUB,
                       "shuffle_down": Op.ADD}[e.op], d=src, a=lane, b=args[1], imm=64)
            args = [x, src]
        bits = kind(xty) if xty.is_int else 64  # the kind the reduction wraps to
        identity = 0
        if xty.is_float and e.op in ("wave_min", "wave_max"):
            identity = NAN_BITS if xty is F32 else NAN64_BITS  # NaN loses to any number
        elif e.op == "wave_min":
            identity = storage(int_range(xty)[1], xty)
        elif e.op == "wave_max":
            identity = storage(int_range(xty)[0], xty)
        elif e.op == "wave_all":
            identity = 1
        staged = self.vreg(xty)
        self.emit(Op.SET_INACTIVE, d=staged, a=x, imm=identity, wm=1)
        if e.op == "shuffle" or relative or e.op in n.QUAD_OPS:
            src = x if self.mutants.on("shuffle-reads-inactive") else staged
            # imm 1: a relative shuffle (the machine's shuffle-relative-keeps-own mutant)
            self.emit(Op.SHUFFLE, d=out, a=src, b=args[1], imm=int(relative))
            return out
        if self.tree and e.op in _TREE:
            if e.op == "ballot":  # each lane's bit in place, then OR them together
                placed = self.vreg(ty)
                self.emit(Op.SHL, d=placed, a=staged, b=self.lane_all, imm=64, wm=1)
                staged, bits = placed, 64
            whole = self._tree(staged, _TREE[e.op], bits, ty, scan=e.op in _SCANS)
            if e.op == "prefix_sum":  # exclusive: the inclusive sum of the lane below
                one, below, shifted = self.vreg(I32), self.vreg(I32), self.vreg(ty)
                self.emit(Op.MOVI, d=one, imm=1, wm=1)
                self.emit(Op.SUB, d=below, a=self.lane_all, b=one, imm=32, wm=1)
                self.emit(Op.SHUFFLE, d=shifted, a=whole, b=below, wm=1)
                whole = shifted
            self.emit(Op.MOV, d=out, a=whole)
            return out
        whole = self.vreg(ty)
        if xty.is_float:
            assert e.op in ("wave_min", "wave_max"), e.op
            self.emit(Op.WWM_FMIN if e.op == "wave_min" else Op.WWM_FMAX, d=whole, a=staged,
                      wm=1, imm=64 if xty is F64 else 0)
            self.emit(Op.MOV, d=out, a=whole)
            return out
        op = {"wave_sum": Op.WWM_SUM, "wave_min": Op.WWM_MIN, "wave_max": Op.WWM_MAX,
              "wave_any": Op.WWM_OR, "wave_all": Op.WWM_AND, "ballot": Op.WWM_BALLOT,
              "prefix_sum": Op.WWM_SCAN_EXCL, "inclusive_sum": Op.WWM_SCAN_INCL}[e.op]
        self.emit(op, d=whole, a=staged, imm=bits, wm=1)
        self.emit(Op.MOV, d=out, a=whole)
        return out

    def _butterfly(self, op: str, x: int, xty: Type | None, cluster: int, out: int) -> None:
        """A reduction over each cluster of `cluster` lanes (64: the whole wave) as GPUs
        build the clustered and bitwise ones: shuffle-xor steps of distance 1, 2, ...
        below the cluster in whole-wave mode, on values recoded so that 0 -- what a lane
        past the wave or inactive reads -- is the identity (min, max and `and` by
        flipping bits into u64's order or into `or`), and decoded into the active lanes.
        Under `tree` the steps read the prologue's lane id, as `_tree`'s do."""
        assert xty is not None and xty.is_int
        signed = xty.signed
        flip = {"wave_and": -1, "wave_min": ~_MIN64 if signed else -1,
                "wave_max": _MIN64 if signed else 0}.get(op, 0)
        combine = {"wave_sum": Op.ADD, "wave_or": Op.OR, "wave_xor": Op.XOR,
                   "wave_and": Op.OR}.get(op, Op.MAX)
        imm = kind(xty) if op == "wave_sum" else 64 + UNSIGNED if combine is Op.MAX else 64
        coded = x
        if flip:
            coded = self.vreg(I64)
            self.emit(Op.XOR, d=coded, a=x, b=self.constant(flip, I64), imm=64)
        staged = self.vreg(I64)
        identity = -1 if op == "wave_and" and self.mutants.on("wave-and-identity-zero") else 0
        self.emit(Op.SET_INACTIVE, d=staged, a=coded, imm=identity, wm=1)
        if self.mutants.on("cluster-whole-wave"):
            cluster = 64  # the mutant: the cluster size ignored
        steps = [k for k in (1, 2, 4, 8, 16, 32) if k < cluster]
        if self.mutants.on("cluster-step-past") and cluster < 64:
            steps.append(cluster)  # the mutant: one shuffle-xor past the cluster
        if self.tree:
            lane = self.lane_all
        else:
            lane = self.vreg(I64)
            self.emit(Op.LANEID, d=lane, wm=1)
        acc = staged
        for k in steps:
            dist, idx, got, nxt = (self.vreg(I64) for _ in range(4))
            self.emit(Op.MOVI, d=dist, imm=k, wm=1)
            self.emit(Op.XOR, d=idx, a=lane, b=dist, imm=64, wm=1)
            self.emit(Op.SHUFFLE, d=got, a=acc, b=idx, wm=1)
            self.emit(combine, d=nxt, a=acc, b=got, imm=imm, wm=1)
            acc = nxt
        if flip:
            self.emit(Op.XOR, d=out, a=acc, b=self.constant(flip, I64), imm=64)
        else:
            self.emit(Op.MOV, d=out, a=acc)

    def _all_equal(self, x: int, out: int) -> int:
        """wave_all_equal: whether every active lane's value is the lowest one's (its
        comparison set to true in the inactive lanes, then all of them)."""
        first, same, staged, whole = (self.vreg(BOOL) for _ in range(4))
        if self.mutants.on("all-equal-lane0"):  # the mutant: lane 0's value, active or not
            self.emit(Op.SHUFFLE, d=first, a=x, b=self.constant(0, I64))
        else:
            self.emit(Op.READFIRST, d=first, a=x)
        self.emit(Op.CMP_EQ, d=same, a=x, b=first, imm=64)
        self.emit(Op.SET_INACTIVE, d=staged, a=same, imm=1, wm=1)
        self.emit(Op.WWM_AND, d=whole, a=staged, wm=1)
        self.emit(Op.MOV, d=out, a=whole)
        return out

    def _tree(self, staged: int, op: Op, bits: int, ty: Type, scan: bool) -> int:
        """A butterfly over the whole wave, as GPUs without a native reduction do it
        (shuffle-xor steps in whole-wave mode): after the step with distance k every lane
        holds the combination of its 2k-lane group. Every step writes all lanes and reads
        the lane id the prologue computed in all lanes, a whole-wave value live from the
        kernel's start: where the native op keeps one whole-wave value for one
        instruction, this keeps one for the whole kernel, which spills under pressure.
        A `scan` reads the lane k below instead (Hillis-Steele): an inclusive sum. A
        distance past the wave (or below lane 0) reads a lane that does not exist, which
        gives 0: the identity of `+` and `|`, so one code serves every wave size."""
        acc = staged
        for k in (1, 2, 4, 8, 16, 32):
            dist, idx = self.vreg(I32), self.vreg(I32)
            got, nxt = self.vreg(ty), self.vreg(ty)
            self.emit(Op.MOVI, d=dist, imm=k, wm=1)
            self.emit(Op.SUB if scan else Op.XOR, d=idx, a=self.lane_all, b=dist, imm=32,
                      wm=1)
            self.emit(Op.SHUFFLE, d=got, a=acc, b=idx, wm=1)
            self.emit(op, d=nxt, a=acc, b=got, imm=bits, wm=1)
            acc = nxt
        return acc


#: the wave operations `reduce=tree` builds from shuffles, and how each step combines
#: (0, what a lane past the wave reads, is the identity of both)
_TREE = {"wave_sum": Op.ADD, "wave_any": Op.OR, "ballot": Op.OR, "inclusive_sum": Op.ADD,
         "prefix_sum": Op.ADD}
_SCANS = ("inclusive_sum", "prefix_sum")


def _changes(source: Type, target: Type) -> bool:
    """Whether converting an integer of type `source` to `target` can change its storage
    form (so a WRAP must make it): narrowing, a signed value becoming unsigned (its
    negatives re-extended), an unsigned one becoming signed no wider. Every 64-bit
    storage form is its type's own bits: i64 <-> u64 and widening change nothing."""
    if target.bits == 64:
        return False
    if source.signed == target.signed:
        return target.bits < source.bits
    return source.signed or target.bits <= source.bits


def _stores_past_barriers(stmts: tuple[n.Stmt, ...]) -> tuple[n.Stmt, ...]:
    """The store-past-barrier mutant's scheduling: a store right before a barrier is
    placed after it (as a pass that takes the barrier for a plain call with no memory
    effects would)."""
    out = list(stmts)
    for i in range(len(out) - 1):
        if isinstance(out[i], n.Store) and isinstance(out[i + 1], n.Barrier):
            out[i], out[i + 1] = out[i + 1], out[i]
    return tuple(out)


def lower(program: n.Program, entry: str, uniform_all_lanes: bool = True,
          tree: bool = False, mutants: Mutants = NONE) -> Lowered:
    """Lower the kernel `entry` (helpers inlined). Pure: the program is not changed.
    `tree`: sums, scans, wave_any and ballot as shuffle trees instead of one native
    instruction."""
    return _Lowerer(program, uniform_all_lanes, tree, mutants).kernel(entry)


__all__ = ["ALIVE", "EXEC", "Infopoint", "Instr", "Label", "Lowered", "Region", "lower"]
