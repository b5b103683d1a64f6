"""The structured translation of a checked program into a C-like language, shared by the
OpenCL C, WGSL and GLSL dialects (each a `Dialect`: spelling, types, memory, subgroups).

What every dialect gets from here, so that nothing is left to the target's own rules:
- every operand is evaluated into a temporary in the language's order (Python's: left to
  right, `buf[i] = v` value first), so the first fault in that order is the one recorded;
- `+ - *` and negation are computed on the unsigned type of the width (they wrap), `//`
  and `%` truncate with `MIN // -1 == MIN`, `MIN % -1 == 0` and a zero divisor spelled
  out, shift amounts are masked to the width, mixed widths widened explicitly and `i32(x)`
  keeps the low 32 bits;
- faults are emulated: each workitem carries a context (fault kind, `fail` code, the
  stack of (function, line) frames as helpers are called, its loop-trip count) and a
  bounds check, a zero divisor or a `fail` fills it in and returns from every function
  the workitem is in (a call is followed by a check); at the end the entry point writes
  the context into the workitem's status row;
- the trip budget: a workitem that would start a loop trip past its budget stops the same
  way, with kind EXHAUSTED;
- wave operations: the arguments first (a lane that faults there has returned, so it is
  not active), then the dialect's subgroup operation over the lanes still here;
- f32 (a dialect with `has_f32`): each operation its own statement (no expression for a
  compiler to contract, and the dialect turns contraction off), literals spelled exactly
  (`flit`), `min`/`max`/`abs` on the bits (a NaN test that no float assumption can fold:
  the magnitude's bits past infinity's), `i32(x)` / `i64(x)` range-checked first (NaN
  and values past the type fault, so no target's undefined conversion runs), and the
  wave operations on the bits: a broadcast or shuffle moves them, `wave_min`/`wave_max`
  reduce an integer key that orders like the floats (-0.0 below +0.0, NaN past every
  number).

Workgroups (a launch with `group=G`, workgroup arrays, `barrier()`): the launch's
workgroups are the device's, G items each, whose G/W subgroups are its waves (wave =
group * G/W + the subgroup's index); a kernel's workgroup arrays are the language's
workgroup memory, zeroed by the group before its kernel runs. A kernel with barriers runs
its own body in *sync mode* (`SyncEmitter`), so that no workitem leaves a barrier short:
a workitem that faults, runs out of budget, returns from the kernel or is past n does
not return but turns into a *ghost*, which writes nothing and follows its group to each
barrier. The statements with a barrier inside (and the breaks and continues of a loop
with one) are run by every workitem; their decisions (a condition, a loop's next trip)
are put to a vote of the group's live workitems in workgroup memory, and every
workitem, ghosts included, takes the vote's way. The semantics lets live workitems
disagree there only where no barrier is reached differently; the translation cannot run
that exactly, so it counts such a vote in the status buffer's header and the host
reports the case as unsupported (docs/semantics.md, "Workgroups in the translations").
The statements between are run by the live workitems only, in a block a fault or a
return leaves (`do { } while (false)` or the dialect's equivalent).

The launch without `group`: one workgroup per wave of W lanes, whose lanes are one
subgroup of the device (the dialect asks for subgroups of S >= W lanes where the API
allows, and the entry point checks at run time that its workgroup is one subgroup whose
first W lanes are the wave's: a workitem that finds otherwise counts itself in the status
buffer's header, and the host reports the launch as an internal error rather than check
what it computed). gid = wave * W + the lane's subgroup index; lanes past n return at
once (inactive from launch).

The status buffer: i64, header word 0 (workitems whose subgroup was not their wave), word
1 (votes that found the live workitems of a group disagreeing), then
one row per workitem: kind (-1 until the workitem finishes: one that never writes its row
is a finding too), `fail` code, the depth of the recorded stack, then (function id, line)
per frame, outermost first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from difftest.core.ir import nodes as n
from difftest.core.floats import fmt
from difftest.core.ir.types import (BOOL, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Type,
                                    int_range, local_of, private_of, widest)
from difftest.core.ir.walk import f32_use, f64_use, reachable, walk

# the fault kinds in a status row (0: completed; -1: never written)
COMPLETED, OUT_OF_BOUNDS, DIVISION_BY_ZERO, FAIL, EXHAUSTED, INVALID_CONVERSION = range(6)
KINDS = {OUT_OF_BOUNDS: "out_of_bounds", DIVISION_BY_ZERO: "division_by_zero", FAIL: "fail",
         INVALID_CONVERSION: "invalid_conversion"}
#: an f32's bits with the sign bit cleared, and the bounds of the integer conversions
_MAGNITUDE = 0x7FFFFFFF
_INT_LIMITS = {32: 2.0 ** 31, 64: 2.0 ** 63}
#: per float type: the integer type of its bits, its magnitude's bits, infinity's bits
_WORD = {F32: I32, F64: I64}
_MAGNITUDES = {F32: _MAGNITUDE, F64: (1 << 63) - 1}
_INFINITIES = {F32: 0x7F800000, F64: 0x7FF0000000000000}
#: the value operations of a wave whose 8- or 16-bit operand a dialect without such
#: subgroup operations widens (by its signedness) and truncates back: the same result
_VALUE_WAVE_OPS = frozenset({"wave_sum", "prefix_sum", "inclusive_sum", "wave_min",
                             "wave_max", "readfirstlane", "shuffle", *n.RELATIVE_SHUFFLES,
                             *n.BITWISE_REDUCTIONS, *n.QUAD_OPS})
HEADER = 2  # i64 words before the first row of the status buffer


class Unsupported(Exception):
    """A construct the dialect does not translate (alloc(); wave operations where the
    device has no subgroups)."""


@dataclass(frozen=True)
class BufferParam:
    name: str
    bits: int       # element width
    atomic: bool    # some atomic_add may touch it
    element: Type = I32  # the element type


@dataclass(frozen=True)
class Translation:
    source: str
    entry_point: str               # the entry function's name in `source`
    functions: tuple[str, ...]     # function ids in status frames -> names
    row: int                       # i64 words per workitem in the status buffer
    buffers: tuple[BufferParam, ...]  # the kernel's buffer parameters, in order
    scalars: tuple[n.Param, ...]   # its scalar parameters, in order
    params: tuple[n.Param, ...]    # all its parameters, in order
    wave: int                      # W
    subgroup: int                  # S, the subgroup size asked for (0: no subgroups)
    group: int = 0                 # G, the workgroup size (W where the launch has none)
    workgroups: bool = False       # launched in workgroups of G (it uses them)


def _variables(fn: n.Function) -> dict[str, Type]:
    """Each local's type, fixed by its first assignment or declaration (the checker
    guarantees the later ones agree), parameters excluded."""
    params = {p.name for p in fn.params}
    out: dict[str, Type] = {}
    for node in walk(fn.body):
        if isinstance(node, n.Assign) and node.target not in params:
            assert node.value.ty is not None
            out.setdefault(node.target, node.declared or node.value.ty)
        elif isinstance(node, n.For) and node.var not in params:
            assert node.start.ty is not None and node.stop.ty is not None
            out.setdefault(node.var, widest(node.start.ty, node.stop.ty))
    return out


def buffer_flow(program: n.Program, entry: str) -> dict[tuple[str, str], frozenset[int]]:
    """Which of the kernel's buffer parameters (by position among them) each buffer
    variable of each reachable function may hold: buffer references only flow through
    assignments, selects and calls, so a fixed point over those is exact enough to bind
    every access statically where one parameter is possible."""
    kernel = program.function(entry)
    index = {p.name: i for i, p in enumerate(q for q in kernel.params if q.ty.is_buffer)}
    flow: dict[tuple[str, str], set[int]] = {(entry, name): {i} for name, i in index.items()}
    functions = reachable(program, entry)

    def of(fn: str, e: n.Expr) -> set[int]:
        if isinstance(e, n.Name):
            return flow.get((fn, e.id), set())
        if isinstance(e, n.Select):
            return of(fn, e.then) | of(fn, e.orelse)
        return set()

    changed = True
    while changed:
        changed = False
        for f in functions:
            for node in walk(f.body):
                pairs: list[tuple[tuple[str, str], set[int]]] = []
                if isinstance(node, n.Assign) and node.value.ty is not None \
                        and node.value.ty.is_buffer:
                    pairs.append(((f.name, node.target), of(f.name, node.value)))
                elif isinstance(node, n.Call):
                    callee = program.function(node.func)
                    for p, a in zip(callee.params, node.args):
                        if p.ty.is_buffer:
                            pairs.append(((callee.name, p.name), of(f.name, a)))
                for key, got in pairs:
                    have = flow.setdefault(key, set())
                    if not got <= have:
                        have |= got
                        changed = True
    return {k: frozenset(v) for k, v in flow.items()}


def uses_f32(program: n.Program, entry: str) -> bool:
    """Whether the kernel takes or computes a float (its translation then says how floats
    are to be computed: contraction off, the device's denormals checked)."""
    return f32_use(program, entry) is not None or uses_f64(program, entry)


def uses_f64(program: n.Program, entry: str) -> bool:
    """Whether the kernel takes or computes an f64 (its translation then asks for it)."""
    return f64_use(program, entry) is not None


def atomic_buffers(program: n.Program, entry: str,
                   flow: dict[tuple[str, str], frozenset[int]]) -> frozenset[int]:
    out: set[int] = set()
    for f in reachable(program, entry):
        for node in walk(f.body):
            if isinstance(node, (n.AtomicAdd, n.AtomicOp)):
                out |= flow.get((f.name, node.buffer), frozenset())
    return frozenset(out)


class Dialect:
    """A target language: how each piece of the translation is spelled. The defaults are
    C's (OpenCL C and GLSL share most of them); WGSL overrides more."""

    name = ""
    ctx = "C."           # how the context's fields are reached
    has_subgroups = True
    emitter: type[FunctionEmitter] | None = None  # a function's emitter, if not the usual
    #: a workitem that leaves the kernel counts as arrived at its group's later barriers
    #: (CUDA: PTX's `exit` releases the barriers the exiting threads hold up), so a
    #: kernel with barriers needs no sync mode
    exit_arrives = False
    #: a 64-bit integer constant is read through a `let` (naga's constant evaluator
    #: cannot convert an i64 or u64 constant to another type: `u32(4294967296li)`, an
    #: index or lane in code the checks make unreachable, does not build)
    binds_wide_constants = False

    # ----------------------------------------------------------------- types, values
    def ty(self, t: Type) -> str:
        raise NotImplementedError

    def uty(self, t: Type) -> str:
        raise NotImplementedError

    def lit(self, value: int | bool, t: Type) -> str:
        raise NotImplementedError

    def let(self, name: str, t: Type, value: str) -> str:
        return f"{self.ty(t)} {name} = {value};"

    def var(self, name: str, t: Type, value: str) -> str:
        return f"{self.ty(t)} {name} = {value};"

    def zero(self, t: Type) -> str:
        if t.is_float:
            return self.flit(0.0, t)
        return self.lit(False if t is BOOL else 0, t)

    # ------------------------------------------------------------------------ floats
    has_f32 = False  # docs/semantics.md, "32-bit floats": where a dialect keeps them exact
    has_f64 = False  # "64-bit floats"

    def flit(self, x: float, t: Type = F32) -> str:
        """A finite float constant of type t, spelled exactly."""
        raise Unsupported(f"{t}: {self.name} does not keep {t} arithmetic exact")

    def f2bits(self, x: str, t: Type = F32) -> str:
        """A float's bits as an integer of its width (i32 for an f32, i64 for an f64)."""
        raise NotImplementedError

    def bits2f(self, x: str, t: Type = F32) -> str:
        """The float of type t whose bits the integer `x` holds."""
        raise NotImplementedError

    def ffma(self, a: str, b: str, c: str, t: Type = F32) -> str:
        """`a * b + c` rounded once."""
        raise NotImplementedError

    def ballot_function(self, fe: FunctionEmitter, op: str, m: str) -> str | None:
        """The dialect's own subgroup function `op` (one of n.BALLOT_FUNCTIONS but
        inverse_ballot, whose argument the subgroup functions want uniform) of the u64
        wave-masked ballot `m`, as an i32 (None: composed of bit counts instead; a find
        of no bit is guarded by the caller)."""
        return None

    def i2f(self, x: str, t: Type, to: Type = F32) -> str:
        """An integer of type t (or the other float type) rounded to the nearest float
        of type `to`."""
        return f"(({self.ty(to)})({x}))"

    def f2i(self, x: str, t: Type) -> str:
        """An f32 (within the range of t) truncated to the integer type t."""
        return f"(({self.ty(t)})({x}))"

    def to_u(self, x: str, t: Type) -> str:
        return f"(({self.uty(t)})({x}))"

    def from_u(self, x: str, t: Type) -> str:
        return f"(({self.ty(t)})({x}))"

    def widen(self, x: str) -> str:
        return f"(({self.ty(I64)})({x}))"

    def int_cast(self, x: str, have: Type, want: Type) -> str:
        """An integer of type `have` converted to `want` as the semantics says: the
        source extended by its own signedness, or truncated (C's conversions, which
        every compiler here does modulo 2^N into a signed type too)."""
        return f"(({self.ty(want)})({x}))"

    #: the dialect's subgroup operations take 8- and 16-bit operands (else emit widens
    #: them to 32 bits and back)
    narrow_subgroups = False

    def bit_count(self, fe: FunctionEmitter, op: str, x: str, t: Type) -> str | None:
        """popcount, clz, ctz (of 0: the width) or bit_reverse of `x`, an unsigned
        integer of type `t` (u32 or u64), as a value of `t`: the dialect's builtin, or
        None where it has none for u64 (the translation composes it of two u32)."""
        raise Unsupported(f"{op}(): the {self.name} translation has no bit operations")

    def reverse32(self, fe: FunctionEmitter, x: str) -> str:
        """The bits of the u32 `x` reversed, by swapping ever larger groups (for a
        dialect without a builtin)."""
        for shift, mask in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F),
                            (8, 0x00FF00FF)):
            m, s = self.lit(mask, U32), self.shift_amount(self.lit(shift, U32), U32, 32)
            x = fe.temp(U32, f"((({x} >> {s}) & {m}) | (({x} & {m}) << {s}))")
        s = self.shift_amount(self.lit(16, U32), U32, 32)
        return fe.temp(U32, f"(({x} >> {s}) | ({x} << {s}))")

    def narrow(self, x: str) -> str:
        """The low 32 bits of an i64, as an i32."""
        raise NotImplementedError

    def b2i(self, x: str, t: Type) -> str:
        """A bool as 0 or 1 of integer type t."""
        raise NotImplementedError

    def i2b(self, x: str) -> str:
        return f"({x} != 0)"

    def select(self, c: str, a: str, b: str) -> str:
        return f"({c} ? {a} : {b})"

    def array_index(self, x: str, t: Type) -> str:
        """An index of type t already checked to be within a buffer."""
        return x

    def shift_amount(self, b: str, t: Type, bits: int) -> str:
        return f"({b} & {self.lit(bits - 1, t)})"

    def truncating(self, fe: FunctionEmitter, op: str, a: str, b: str, t: Type) -> str:
        """`a // b` or `a % b` truncated toward zero, for b not 0 nor -1 (C's `/` and
        `%` do exactly this)."""
        return f"{a} {'/' if op == '//' else '%'} {b}"

    # --------------------------------------------------------------------- control
    def for_head(self, k: str, start: str, bound: str, t: Type = I64) -> str:
        return f"for ({self.ty(t)} {k} = {start}; {k} < {bound}; {k}++) {{"

    def loop_head(self) -> str:
        return "for (;;) {"

    def sync_loop_head(self, k: str, t: Type = I64) -> str:
        """A loop whose every trip, `continue` included, ends by incrementing `k` (of
        type `t`)."""
        return f"for (;; {k} = {k} + 1) {{"

    # ------------------------------------------------------------------- functions
    def function(self, name: str, params: list[tuple[str, str]], returns: str | None,
                 body: list[str]) -> str:
        raise NotImplementedError

    def param_decls(self, fe: FunctionEmitter) -> list[tuple[str, str]]:
        """(name, spelled type) pairs of a function's parameters, in order."""
        raise NotImplementedError

    def param_prologue(self, fe: FunctionEmitter) -> list[str]:
        return []

    def call_args(self, args: list[str]) -> list[str]:
        return args

    # ---------------------------------------------------------------------- memory
    def buffer_decl(self, fe: FunctionEmitter, name: str, t: Type) -> list[str]:
        raise NotImplementedError

    def buffer_temp(self, fe: FunctionEmitter, t: Type) -> tuple[str, str]:
        raise NotImplementedError

    def load(self, fe: FunctionEmitter, var: str, ref: str, index: str, elem: Type) -> str:
        raise NotImplementedError

    def store(self, fe: FunctionEmitter, var: str, ref: str, index: str, value: str,
              elem: Type) -> None:
        raise NotImplementedError

    def atomic_add(self, fe: FunctionEmitter, var: str, ref: str, index: str, value: str,
                   elem: Type) -> None:
        raise NotImplementedError

    def atomic(self, fe: FunctionEmitter, op: str, var: str, ref: str, index: str,
               value: str, compare: str | None, elem: Type) -> str:
        """An atomic that returns (docs/semantics.md, "Atomics that return") on a buffer:
        an expression of its old value (lines it needs first go to `fe`)."""
        raise Unsupported(f"atomics that return: {self.name} here has none")

    def local_atomic(self, fe: FunctionEmitter, op: str, ref: str, index: str, value: str,
                     compare: str | None, elem: Type) -> str:
        """`atomic` on a workgroup array."""
        raise Unsupported(f"atomics that return: {self.name} here has none")

    # ------------------------------------------------------------------- subgroups
    def wave_op(self, fe: FunctionEmitter, e: n.WaveOp, args: list[str]) -> str:
        raise Unsupported(f"wave operations: {self.name} here has no subgroups "
                          f"({e.op} at line {e.line})")

    # ------------------------------------------------------------------ workgroups
    has_workgroups = False  # workgroup arrays, barrier(), group ids, launches of G > W

    def barrier(self) -> str:
        """`barrier()`: the group's execution and memory barrier (workgroup memory and
        buffers)."""
        raise NotImplementedError

    # ------------------------------------------------------------------- switches
    #: whether a `continue` inside a switch continues the loop around it (C, GLSL)
    switch_continues = True
    #: whether the lanes that reach one arm of a switch by different values may go on
    #: apart (SPIR-V's OpSwitch: SPV_KHR_maximal_reconvergence keeps together only the
    #: lanes of one selector value), so an arm whose lanes must run together -- one with
    #: wave operations, reached by several values or as the default -- is not written
    #: inside the switch
    switch_splits_values = False

    def switch_head(self, selector: str) -> str:
        return f"switch ({selector}) {{"

    def case_head(self, labels: list[str]) -> str:
        """The head of a switch's arm for these case labels (none: the default)."""
        if not labels:
            return "default: {"
        return " ".join(f"case {label}:" for label in labels) + " {"

    def case_close(self) -> str:
        return "} break;"

    def run_open(self) -> str:
        """The head of a block that a `break` leaves (sync mode's runs)."""
        return "do {"

    def run_close(self) -> str:
        return "} while (false);"

    def vote(self, choice: str) -> str:
        """A call of the translation's vote on an i32 `choice` (1: yes, 0: no, -1: a
        ghost's, which does not count): a bool, whether any live workitem said yes."""
        raise NotImplementedError

    def local_load(self, tr: Translator, name: str, at: str) -> str:
        return f"v_{name}[{at}]"

    def local_store(self, tr: Translator, name: str, at: str, value: str) -> str:
        return f"v_{name}[{at}] = {value};"

    def local_atomic_add(self, fe: FunctionEmitter, ref: str, index: str, value: str,
                         elem: Type) -> None:
        raise NotImplementedError

    # -------------------------------------------------------------- private arrays
    def private_decl(self, name: str, elem: Type, length: int) -> str:
        """A function's private array (zeroed where its declaration runs)."""
        return f"{self.ty(elem)} {name}[{length}];"

    def private_index(self, x: str, t: Type, length: int) -> str:
        """An index already checked to be within a private array of `length`."""
        return self.array_index(x, t)

    def opaque_zero(self, tr: Translator) -> str:
        """An i64 zero read at run time, which no compiler can fold (AVOIDABLE)."""
        raise Unsupported(f"{self.name} spells no known bug another way")

    # -------------------------------------------------------------------- program
    def program(self, tr: Translator, functions: list[str]) -> str:
        raise NotImplementedError


#: known target bugs a translation can spell around (`avoid` option): name -> what the
#: variant writes instead. A failure that goes away under the variant is that bug again
#: (difftest.campaign.findings), and a campaign with them avoided finds the next one.
AVOIDABLE = {
    "sext-compare": "every i32 value widened to i64 plus a zero read at run time, so no "
                    "comparison sees a sign-extended value as such (lavapipe-sext-compare: "
                    "Mesa 22.3's lavapipe compares a sign-extended value with a constant "
                    "wrongly)",
    "sext-shift": "the spelling of sext-compare: every i32 value widened to i64 plus a "
                  "zero read at run time, so that no compiler knows a 64-bit operand's "
                  "high word for the sign of its low one (nvidia-sext-shift: NVIDIA's "
                  "Vulkan driver multiplies a sign-extended value by 2^31, or shifts it "
                  "left by 31, in 32 bits)",
    "srem": "WGSL's signed `a % b` written as `a - (a / b) * b`, so that naga emits no "
            "OpSRem (naga-srem-negative: naga lowers `%` to OpSRem, whose result Vulkan "
            "leaves undefined for a negative operand unless VK_KHR_maintenance8 is "
            "enabled, and NVIDIA's driver returns the unsigned remainder)",
    "float-constants": "every f32 literal and every conversion to f32 passed through its "
                       "bits plus a zero read at run time, so that no f32 of the kernel is "
                       "a constant a compiler can fold (lavapipe-float-zero-fold: lavapipe "
                       "folds x + 0.0 into x and 0.0 - x into -x, which loses the sign of "
                       "a zero, though asked to keep it; lavapipe-select-negative-zero: it "
                       "selects -0.0's bits for c ? -1.0f's bits : 0 when c is false)",
    "ballot-bit-count": "`ballot_bit_count` counted from the ballot's bits (a popcount of "
                        "them masked to the wave) instead of by the subgroup function, so "
                        "that no `sub_group_ballot_bit_count` is built "
                        "(intel-ballot-bit-count-crash: Intel's OpenCL compiler aborts on "
                        "one of a value the same in every work-item)",
    "barrier-branch-tail": "each arm of an `if` that holds a barrier ends at a barrier of "
                           "its own (an else arm added), so that no branch around a "
                           "barrier joins again between two barriers "
                           "(pocl-guards-lost-after-conditional-barrier: PoCL's work-item "
                           "loops lose the work-items' own conditions after such a branch)",
}

_SEXT = frozenset({"sext-compare", "sext-shift"})  # one spelling, two targets' bugs


class Translator:
    """One translation: the program, its entry, W and S, the mutants, the buffer facts."""

    def __init__(self, dialect: Dialect, program: n.Program, entry: str, wave: int,
                 subgroup: int, mutants: frozenset[str],
                 avoid: frozenset[str] = frozenset(), group: int = 0) -> None:
        self.d = dialect
        self.group = group or wave
        self.program = program
        self.entry = entry
        self.wave = wave
        self.subgroup = subgroup
        self.mutants = mutants
        self.avoid = avoid  # known target bugs to spell around (AVOIDABLE)
        self.functions = reachable(program, entry)
        self.names = tuple(f.name for f in program.functions)
        self.fid = {name: i for i, name in enumerate(self.names)}
        self.depth = len(self.names)  # no recursion: at most one frame per function
        self.row = 3 + 2 * self.depth
        self.kernel = program.function(entry)
        self.flow = buffer_flow(program, entry)
        atomic = atomic_buffers(program, entry, self.flow)
        buffer_params = [p for p in self.kernel.params if p.ty.is_buffer]
        self.buffers = tuple(BufferParam(p.name, p.ty.element.bits, i in atomic,
                                         p.ty.element)
                             for i, p in enumerate(buffer_params))
        self.scalars = tuple(p for p in self.kernel.params if not p.ty.is_buffer)
        self.params = self.kernel.params
        self.local_arrays = tuple(s for s in self.kernel.body if isinstance(s, n.LocalArray))
        self.synchronising = any(isinstance(x, n.Barrier) for x in walk(self.kernel.body))
        self.atomic_locals = frozenset(x.buffer for x in walk(self.kernel.body)
                                       if isinstance(x, (n.AtomicAdd, n.AtomicOp))
                                       and x.buffer in {a.name for a in self.local_arrays})
        self.workgroups = bool(self.group != wave or self.local_arrays or self.synchronising
                               or any(isinstance(x, n.WorkId) and x.which in n.GROUP_IDS
                                      for f in self.functions for x in walk(f.body)))

    def run(self) -> Translation:
        for f in self.functions:
            for node in walk(f.body):
                if isinstance(node, n.Alloc):
                    raise Unsupported(f"alloc(): no allocation inside a kernel "
                                      f"(line {node.line})")
                if isinstance(node, n.Barrier) and f is not self.kernel:
                    raise Unsupported(f"barrier() in a helper function (line {node.line}): "
                                      "the translation runs barriers of the kernel's own "
                                      "body only")
        if self.workgroups and not self.d.has_workgroups:
            raise Unsupported(f"workgroups: the {self.d.name} translation has none")
        if self.group > self.wave and self.subgroup and self.subgroup != self.wave:
            raise Unsupported(f"a workgroup of several waves of {self.wave} needs "
                              f"subgroups of exactly {self.wave} lanes (asked for "
                              f"{self.subgroup})")
        emitter = self.d.emitter or FunctionEmitter
        sync = self.synchronising and not self.d.exit_arrives
        bodies = [(SyncEmitter if f is self.kernel and sync else emitter)(
            self, f).emit() for f in self.functions]
        source = self.d.program(self, bodies)
        return Translation(source, self.entry_point(), self.names, self.row, self.buffers,
                           self.scalars, self.kernel.params, self.wave, self.subgroup,
                           self.group, self.workgroups)

    def entry_point(self) -> str:
        return f"k_{self.entry}" if self.d.name in ("opencl", "cuda") else "main"


def _no_narrow_atomics(op: str, elem: Type) -> None:
    if elem.bits < 32:  # OpenCL C, CUDA, GLSL and WGSL have no 8- or 16-bit atomics
        raise Unsupported(f"atomic_{op}() on {elem} elements: the language has no 8- or "
                          "16-bit atomics")


class FunctionEmitter:
    """Emits one function: statements as statements, every expression through
    temporaries in evaluation order."""

    def __init__(self, tr: Translator, fn: n.Function) -> None:
        self.tr = tr
        self.d = tr.d
        self.c = tr.d.ctx
        self.fn = fn
        self.mutants = tr.mutants
        self.lines: list[str] = []
        self.indent = 1
        self.temps = 0
        self.locals = _variables(fn)
        self.types = {p.name: p.ty for p in fn.params} | self.locals
        self.local_lengths: dict[str, int] = {}
        if fn is tr.kernel:
            self.types |= {a.name: local_of(a.element) for a in tr.local_arrays}
            self.local_lengths = {a.name: a.length for a in tr.local_arrays}
        # private arrays: each name has one type and length in its function (the checker)
        self.private_arrays = {s.name: s for s in walk(fn.body)
                               if isinstance(s, n.PrivateArray)}
        self.types |= {a.name: private_of(a.element) for a in self.private_arrays.values()}
        self.local_lengths |= {a.name: a.length for a in self.private_arrays.values()}

    def emit(self) -> str:
        self.block(self.fn.body)
        returns = None if self.fn.returns is None else self.d.ty(self.fn.returns)
        return self.d.function(f"f_{self.fn.name}", self.d.param_decls(self), returns,
                               self.declarations() + self.lines)

    def declarations(self) -> list[str]:
        """What the function's body starts with: the parameters' prologue, the lengths
        of the workgroup arrays, the private arrays and every local variable."""
        body = self.d.param_prologue(self)
        if self.fn is self.tr.kernel:
            body += ["    " + self.d.let(f"n_{a.name}", I64, self.d.lit(a.length, I64))
                     for a in self.tr.local_arrays]
        body += ["    " + self.d.private_decl(f"p_{a.name}", a.element, a.length)
                 for a in self.private_arrays.values()]
        for name, ty in self.locals.items():
            if ty.is_buffer:
                body += ["    " + x for x in self.d.buffer_decl(self, name, ty)]
            else:
                body.append("    " + self.d.var(f"v_{name}", ty, self.d.zero(ty)))
        return body

    # ---------------------------------------------------------------- helpers
    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def fresh(self, prefix: str = "t") -> str:
        self.temps += 1
        return f"{prefix}{self.temps}"

    def temp(self, ty: Type, value: str) -> str:
        name = self.fresh()
        self.line(self.d.let(name, ty, value))
        return name

    def mutable(self, ty: Type, value: str) -> str:
        name = self.fresh("s")
        self.line(self.d.var(name, ty, value))
        return name

    def leave(self) -> str:
        """Leaving the function because the workitem stopped (a fault, or its budget)."""
        if self.fn.returns is None:
            return "return;"
        return f"return {self.d.zero(self.fn.returns)};"

    def check(self) -> None:
        self.line(f"if ({self.c}kind != 0) {{ {self.leave()} }}")

    def fault(self, kind: int, line: int, code: str | None = None) -> None:
        c = self.c
        code = code if code is not None else self.d.lit(0, I64)
        self.line(f"{c}kind = {kind}; {c}code = {code}; "
                  f"{c}fns[{c}depth] = {self.tr.fid[self.fn.name]}; "
                  f"{c}lns[{c}depth] = {line}; {c}fdepth = {c}depth + 1; {self.leave()}")

    def open(self, head: str) -> None:
        self.line(head)
        self.indent += 1

    def close(self) -> None:
        self.indent -= 1
        self.line("}")

    def widen(self, value: str, have: Type | None, want: Type) -> str:
        """`value` of type `have` as a `want`: the checker's implicit widening (within a
        signedness), and every conversion between integer types the program asks for."""
        if have is want or have is None or not have.is_int or not want.is_int:
            return value
        if self.tr.avoid & _SEXT and have.signed and have.bits < 64 and want.bits == 64:
            # no sign-extended value seen as such: every extension to 64 bits plus the
            # run-time zero, `u64(x)` of an i32 too (one left bare, `u64(g) == i64(g) +
            # zero`, tells a compiler that the zero is 0)
            wide = f"({self.d.int_cast(value, have, I64)} + {self.d.opaque_zero(self.tr)})"
            return wide if want is I64 else self.d.int_cast(wide, I64, want)
        if have is I32 and want is I64:
            return self.d.widen(value)
        if have is I64 and want is I32:
            return self.d.narrow(value)
        if "zext-as-sext" in self.mutants and not have.signed and have.bits < want.bits:
            signed = _SAME_S[have.bits]  # the mutant: extended by the sign bit
            return self.d.int_cast(self.d.int_cast(value, have, signed), signed, want)
        return self.d.int_cast(value, have, want)

    # ------------------------------------------------------------- statements
    def block(self, stmts: tuple[n.Stmt, ...]) -> None:
        for s in stmts:
            getattr(self, "s_" + type(s).__name__)(s)

    def s_Assign(self, s: n.Assign) -> None:
        want = self.types[s.target]
        if want.is_buffer:
            ref, length = self.buffer(s.value)
            self.line(f"v_{s.target} = {ref}; n_{s.target} = {length};")
            return
        value = self.expr(s.value)
        self.line(f"v_{s.target} = {self.widen(value, s.value.ty, want)};")

    def s_Store(self, s: n.Store) -> None:
        value = self.expr(s.value)
        index = self.expr(s.index)
        self.bounds(index, s.index.ty, s.buffer, s.line)
        elem = self.types[s.buffer].element
        at, stored = self.index(index, s.index.ty), self.widen(value, s.value.ty, elem)
        if self.types[s.buffer].is_private:
            at = self.d.private_index(index, s.index.ty or I32,
                                      self.local_lengths[s.buffer])
            self.line(f"p_{s.buffer}[{at}] = {stored};")
        elif self.types[s.buffer].is_local:
            self.line(self.d.local_store(self.tr, s.buffer, at, stored))
        else:
            self.d.store(self, s.buffer, f"v_{s.buffer}", at, stored, elem)

    def s_AtomicAdd(self, s: n.AtomicAdd) -> None:
        index = self.expr(s.index)
        value = self.expr(s.value)
        self.bounds(index, s.index.ty, s.buffer, s.line)
        elem = self.types[s.buffer].element
        _no_narrow_atomics("add", elem)
        at, added = self.index(index, s.index.ty), self.widen(value, s.value.ty, elem)
        if self.types[s.buffer].is_local:
            self.d.local_atomic_add(self, f"v_{s.buffer}", at, added, elem)
        else:
            self.d.atomic_add(self, s.buffer, f"v_{s.buffer}", at, added, elem)

    def e_AtomicOp(self, e: n.AtomicOp) -> str:
        """Arguments left to right (index, compare, value), the bounds, then the atomic;
        its old value in a temporary."""
        index_e, compare_e, value_e = n.atomic_parts(e)
        index = self.expr(index_e)
        compare = None if compare_e is None else self.expr(compare_e)
        value = self.expr(value_e)
        self.bounds(index, index_e.ty, e.buffer, e.line)
        elem = self.types[e.buffer].element
        at = self.index(index, index_e.ty)
        value = self.widen(value, value_e.ty, elem)
        if compare is not None and compare_e is not None:
            compare = self.widen(compare, compare_e.ty, elem)
        _no_narrow_atomics(e.op, elem)
        if self.types[e.buffer].is_local:
            old = self.d.local_atomic(self, e.op, f"v_{e.buffer}", at, value, compare, elem)
        else:
            old = self.d.atomic(self, e.op, e.buffer, f"v_{e.buffer}", at, value, compare,
                                elem)
        return self.temp(elem, old)

    def s_LocalArray(self, s: n.LocalArray) -> None:
        pass  # declared by the entry point (workgroup memory), zeroed there

    def s_PrivateArray(self, s: n.PrivateArray) -> None:
        """Zero, each time the declaration runs (declared at the function's start)."""
        k = self.fresh("k")
        self.open(self.d.for_head(k, self.d.lit(0, I32), self.d.lit(s.length, I32), I32))
        self.line(f"p_{s.name}[{self.d.private_index(k, I32, s.length)}] = "
                  f"{self.d.zero(s.element)};")
        self.close()

    def s_Barrier(self, s: n.Barrier) -> None:
        self.line(self.d.barrier())

    def s_If(self, s: n.If) -> None:
        cases = n.switch_cases(s)
        if cases is not None and self.switchable(s, cases[1]):
            if self.d.switch_splits_values and any(
                    len(values) != 1 and _tangles(body) for values, body in cases[1]):
                self.switch_then_chain(s, cases[1])
            else:
                self.switch(s, cases[1])
            return
        self.arms(self.expr(s.cond), s)

    def switchable(self, s: n.If, arms: list[tuple[tuple[int, ...], tuple[n.Stmt, ...]]]
                   ) -> bool:
        """Whether a `match` chain is written as the language's `switch`: its variable
        of 32 bits or fewer (GLSL and WGSL switch on 32-bit integers only), no `break`
        of the loop around it in a case (it would leave the switch; nor `continue` in
        WGSL), and no barrier synchronisation, whose runs leave blocks by `break`; else
        as the `if` chain it means."""
        ty = _case_variable(s).ty
        if ty is None or not ty.is_int or ty.bits > 32 or self.tr.synchronising:
            return False
        jumps = (n.Break,) if self.d.switch_continues else (n.Break, n.Continue)
        return not any(_jumps_out(body, jumps) for _, body in arms)

    def switch_then_chain(self, s: n.If,
                          arms: list[tuple[tuple[int, ...], tuple[n.Stmt, ...]]]) -> None:
        """A `match` chain whose arms must keep their lanes together where the switch
        does not (`Dialect.switch_splits_values`): the switch picks the arm's number, an
        `if` chain on the number runs the arms (as one arm's lanes take one side of each
        `if`, they go on together)."""
        picked = self.mutable(I32, self.d.lit(len(arms), I32))
        numbered = [(values, (k,)) for k, (values, _) in enumerate(arms)]
        self.switch(s, numbered, lambda k: self.line(f"{picked} = {self.d.lit(k[0], I32)};"))
        for k, (values, body) in enumerate(arms):
            self.open(("if" if k == 0 else "else if")
                      + f" ({picked} == {self.d.lit(k, I32)}) {{")
            self.block(body)
            self.close()

    def switch(self, s: n.If, arms: list[tuple[tuple[int, ...], Any]],
               arm: Callable[[Any], None] | None = None) -> None:
        """A `match` chain as the language's `switch` on its variable (as an i32: a u32's
        values by their bits), one arm per case, a default arm always (WGSL wants one);
        `arm` writes an arm (default: its body)."""
        var = _case_variable(s)
        ty = var.ty
        assert ty is not None
        d = self.d
        selector = self.widen(self.expr(var), ty, I32) if ty is not U32 else \
            d.int_cast(self.expr(var), U32, I32)
        self.open(d.switch_head(selector))
        # a case value the variable's type cannot hold never matches (`v == value` is
        # false in every lane): no label (an arm left without one is never taken)
        lo, hi = int_range(ty)
        if "switch-label-wraps" in self.mutants:  # (the mutant: every value a label)
            lo, hi = -2**63, 2**64
        arms = [(held, body) for values, body in arms
                if (held := tuple(v for v in values if lo <= v <= hi)) or not values]
        if not any(not values for values, _ in arms):
            arms = arms + [((), ())]
        for k, (values, body) in enumerate(arms):
            labels = [d.lit((v + 2**31) % 2**32 - 2**31, I32) for v in values]
            self.open(d.case_head(labels))
            if arm is None:
                self.block(body)
            elif body:
                arm(body)
            self.indent -= 1
            falls = "switch-falls-through" in self.mutants and k < len(arms) - 1
            self.line("}" if falls else d.case_close())  # (the mutant: no `break`)
        self.close()

    def arms(self, cond: str, s: n.If, tail: str | None = None) -> None:
        """An `if` statement's arms, on the condition `cond` (an expression); `tail`, a
        line each arm ends with (an else arm written for it where there is none)."""
        self.open(f"if ({cond}) {{")
        self.block(s.then)
        if tail is not None:
            self.line(tail)
        self.close()
        if s.orelse or tail is not None:
            self.open("else {")
            self.block(s.orelse)
            if tail is not None:
                self.line(tail)
            self.close()

    def trip(self) -> None:
        c = self.c
        self.line(f"{c}trips = {c}trips + {self.d.lit(1, I64)};")
        self.line(f"if ({c}trips > {c}budget) {{ {c}kind = {EXHAUSTED}; {self.leave()} }}")

    def s_For(self, s: n.For) -> None:
        ty = self.types[s.var]
        ct = counter_type(ty)
        start = self.widen(self.expr(s.start), s.start.ty, ct)
        stop = self.widen(self.expr(s.stop), s.stop.ty, ct)
        k = self.fresh("k")
        if "bound-per-trip" in self.mutants:
            bound = stop  # the bug: a variable bound is read again at every trip
        else:
            bound = f"{k}_stop"  # the bounds once, at entry (the body may assign them)
            self.line(self.d.let(bound, ct, stop))
        self.open(self.d.for_head(k, start, bound, ct))
        self.trip()
        self.line(f"v_{s.var} = {self.widen(k, ct, ty)};")
        self.block(s.body)
        self.close()

    def s_While(self, s: n.While) -> None:
        self.open(self.d.loop_head())
        self.trip()
        self.block(s.body)
        self.close()

    def s_Break(self, s: n.Break) -> None:
        self.line("break;")

    def s_Continue(self, s: n.Continue) -> None:
        self.line("continue;")

    def s_Return(self, s: n.Return) -> None:
        if s.value is None:
            self.line("return;")
            return
        assert self.fn.returns is not None
        value = self.expr(s.value)
        self.line(f"return {self.widen(value, s.value.ty, self.fn.returns)};")

    def s_Fail(self, s: n.Fail) -> None:
        code = self.widen(self.expr(s.code), s.code.ty, I64)
        self.fault(FAIL, s.line, code)

    def s_CallStmt(self, s: n.CallStmt) -> None:
        self.call(s.call)

    # ------------------------------------------------------------- expressions
    def index(self, index: str, ty: Type | None) -> str:
        """An index already checked to be within a buffer, as the dialect indexes."""
        return self.d.array_index(index, ty if ty is not None else I32)

    def buffer(self, e: n.Expr) -> tuple[str, str]:
        """A buffer-valued expression as (reference, length)."""
        if isinstance(e, n.Name):
            return f"v_{e.id}", f"n_{e.id}"
        assert e.ty is not None and e.ty.is_buffer, e
        if isinstance(e, n.Select):
            ref, length = self.d.buffer_temp(self, e.ty)
            cond = self.expr(e.cond)
            for head, side in ((f"if ({cond}) {{", e.then), ("else {", e.orelse)):
                self.open(head)
                r, ln = self.buffer(side)
                self.line(f"{ref} = {r}; {length} = {ln};")
                self.close()
            return ref, length
        raise Unsupported(f"a buffer value of kind {type(e).__name__}")

    def bounds(self, index: str, ty: Type | None, buffer: str, line: int) -> None:
        """The bounds check before an access to `buffer`: the sign in the index's own
        width; a buffer's length (an i64 read at run time) against the index widened, a
        workgroup array's (a constant below 2^31) in the index's width."""
        t = ty if ty is not None and ty.is_int else I64
        length = self.local_lengths.get(buffer)
        if length is not None:
            # an index type too narrow to reach the length is never past it
            past = f"{index} >= {self.d.lit(length, t)}" if length <= int_range(t)[1] \
                else None
        elif t is U64:  # compared as unsigned: the length (below 2^63) widened
            past = f"{index} >= {self.d.int_cast(f'n_{buffer}', I64, U64)}"
        else:
            past = f"{self.widen(index, t, I64)} >= n_{buffer}"
        # an unsigned index is never below 0
        below = f"{index} < {self.d.lit(0, t)}" if t.signed else None
        tests = [x for x in (below, past) if x is not None]
        if not tests:
            return
        self.open(f"if ({' || '.join(tests)}) {{")
        self.fault(OUT_OF_BOUNDS, line)
        self.close()

    def expr(self, e: n.Expr) -> str:
        """Emits what `e` needs and returns an expression (a temporary, a variable or a
        literal) of its value, in the dialect's type for `e.ty`."""
        return getattr(self, "e_" + type(e).__name__)(e)  # type: ignore[no-any-return]

    def e_Const(self, e: n.Const) -> str:
        assert e.ty is not None
        if isinstance(e.value, float):
            if "float-constants" in self.tr.avoid:
                return self._opaque_float(self.d.flit(e.value, e.ty), e.ty)
            return self.d.flit(e.value, e.ty)
        if self.d.binds_wide_constants and e.ty.bits == 64:
            return self.temp(e.ty, self.d.lit(e.value, e.ty))
        return self.d.lit(e.value, e.ty)

    def e_Name(self, e: n.Name) -> str:
        return f"v_{e.id}"

    def e_WorkId(self, e: n.WorkId) -> str:
        return f"{self.c}{e.which}"

    def e_Unary(self, e: n.Unary) -> str:
        assert e.ty is not None
        operand = self.expr(e.operand)
        d = self.d
        if e.op == "not":
            return self.temp(BOOL, f"!{operand}")
        if e.op == "~":
            return self.temp(e.ty, f"~{operand}")
        if e.ty.is_float:  # the sign flipped, a NaN's too
            return self.temp(e.ty, f"(-{operand})")
        negated = f"{d.to_u(d.lit(0, e.ty), e.ty)} - {d.to_u(operand, e.ty)}"
        return self.temp(e.ty, d.from_u(negated, e.ty))

    def e_Binary(self, e: n.Binary) -> str:
        ty = e.ty
        assert ty is not None
        d = self.d
        a = self.widen(self.expr(e.left), e.left.ty, ty)
        b = self.widen(self.expr(e.right), e.right.ty, ty)
        if ty.is_float:  # one operation, one rounding
            if "f64-rounded-through-f32" in self.mutants and ty is F64:
                return self.temp(F64, d.i2f(d.i2f(f"({a} {e.op} {b})", F64, F32), F32, F64))
            return self.temp(ty, f"{a} {e.op} {b}")
        if e.op in ("+", "-") and ty.bits < 32 and "narrow-add-unwrapped" in self.mutants:
            wide = I32 if ty.signed else U32  # the mutant: the promoted sum kept
            return self.temp(wide, f"{self.widen(a, ty, wide)} {e.op} {self.widen(b, ty, wide)}")
        if e.op in ("+", "-", "*"):
            return self.temp(ty, d.from_u(f"{d.to_u(a, ty)} {e.op} {d.to_u(b, ty)}", ty))
        if e.op in ("&", "|", "^"):
            return self.temp(ty, f"{a} {e.op} {b}")
        if e.op == "<<":
            return self.temp(ty, d.from_u(
                f"{d.to_u(a, ty)} << {d.shift_amount(b, ty, ty.bits)}", ty))
        if e.op == ">>":
            if "shr-arithmetic-unsigned" in self.mutants and not ty.signed:
                signed = _SAME_S[ty.bits]  # the mutant: the sign bit shifted in
                shifted = f"{d.int_cast(a, ty, signed)} >> {d.shift_amount(b, ty, ty.bits)}"
                return self.temp(ty, d.int_cast(shifted, signed, ty))
            return self.temp(ty, f"{a} >> {d.shift_amount(b, ty, ty.bits)}")
        # // and %: a zero divisor faults at this node's line; MIN // -1 wraps to MIN
        zero = d.lit(0, ty)
        minus = d.lit(-1, ty) if ty.signed else ""
        if isinstance(e.right, n.Const) and int(e.right.value) == 0:
            # a constant zero divisor: no division is written at all (a compiler may
            # reject one even where it cannot run: naga evaluates `5i / 0i` and fails)
            if "div-unchecked" in self.mutants:  # what WGSL gives: x / 0 == x, x % 0 == 0
                return self.temp(ty, a if e.op == "//" else zero)
            self.fault(DIVISION_BY_ZERO, e.line)
            return zero
        divisor = int(e.right.value) if isinstance(e.right, n.Const) else None
        if divisor is not None and not (ty.signed and divisor == -1):
            # a literal divisor, neither 0 nor -1: no test written (in C++ the branch
            # that never runs would be a constant expression it leaves undefined)
            return self.temp(ty, d.truncating(self, e.op, a, b, ty))
        if "div-unchecked" not in self.mutants and divisor is None:
            self.open(f"if ({b} == {zero}) {{")
            self.fault(DIVISION_BY_ZERO, e.line)
            self.close()
        if divisor == -1:  # x // -1 is -x (MIN wraps to MIN), x % -1 is 0
            return self.temp(ty, d.from_u(f"{d.to_u(zero, ty)} - {d.to_u(a, ty)}", ty)
                             if e.op == "//" else zero)
        out = self.mutable(ty, zero)
        if not ty.signed:  # no MIN // -1
            self.line(f"{out} = {d.truncating(self, e.op, a, b, ty)};")
            return out
        self.open(f"if ({b} == {minus}) {{")
        if e.op == "//":
            self.line(f"{out} = {d.from_u(f'{d.to_u(zero, ty)} - {d.to_u(a, ty)}', ty)};")
        else:
            self.line(f"{out} = {zero};")
        self.close()
        self.open("else {")
        self.line(f"{out} = {d.truncating(self, e.op, a, b, ty)};")
        self.close()
        return out

    def e_Compare(self, e: n.Compare) -> str:
        assert e.left.ty is not None and e.right.ty is not None
        a, b = self.expr(e.left), self.expr(e.right)
        if e.left.ty.is_int:
            ty = widest(e.left.ty, e.right.ty)
            a, b = self.widen(a, e.left.ty, ty), self.widen(b, e.right.ty, ty)
            if "unsigned-compare-signed" in self.mutants and not ty.signed:
                signed = _SAME_S[ty.bits]  # the mutant: the signed comparison
                a, b = (self.d.int_cast(x, ty, signed) for x in (a, b))
        return self.temp(BOOL, f"({a} {e.op} {b})")

    def _branching(self, ty: Type, cond: n.Expr, then: n.Expr | None,
                   orelse: n.Expr | None, default: str) -> str:
        """`cond ? then : orelse` where each side is evaluated only when chosen (None:
        the side's value is `default`)."""
        c = self.expr(cond)
        out = self.mutable(ty, default)
        if then is None:
            arms = [(f"if (!{c}) {{", orelse)]
        else:
            arms = [(f"if ({c}) {{", then), ("else {", orelse)]
        for head, side in arms:
            if side is None:
                continue
            self.open(head)
            self.line(f"{out} = {self.widen(self.expr(side), side.ty, ty)};")
            self.close()
        return out

    def e_Logic(self, e: n.Logic) -> str:
        true, false = self.d.lit(True, BOOL), self.d.lit(False, BOOL)
        if e.op == "and":  # the right side only when the left is true
            return self._branching(BOOL, e.left, e.right, None, false)
        return self._branching(BOOL, e.left, None, e.right, true)

    def e_Select(self, e: n.Select) -> str:
        assert e.ty is not None
        return self._branching(e.ty, e.cond, e.then, e.orelse, self.d.zero(e.ty))

    def e_Load(self, e: n.Load) -> str:
        assert e.ty is not None
        index = self.expr(e.index)
        self.bounds(index, e.index.ty, e.buffer, e.line)
        elem = self.types[e.buffer].element
        at = self.index(index, e.index.ty)
        if self.types[e.buffer].is_private:
            at = self.d.private_index(index, e.index.ty or I32,
                                      self.local_lengths[e.buffer])
            return self.temp(e.ty, f"p_{e.buffer}[{at}]")
        if self.types[e.buffer].is_local:
            return self.temp(e.ty, self.d.local_load(self.tr, e.buffer, at))
        return self.temp(e.ty, self.d.load(self, e.buffer, f"v_{e.buffer}", at, elem))

    def e_Len(self, e: n.Len) -> str:
        if e.buffer in self.private_arrays:
            return self.d.lit(self.private_arrays[e.buffer].length, I32)
        return self.d.narrow(f"n_{e.buffer}")

    def e_Cast(self, e: n.Cast) -> str:
        operand = self.expr(e.operand)
        have = e.operand.ty
        d = self.d
        if e.to.is_float:
            if have is e.to:
                return operand
            if have is BOOL:
                got = self.temp(e.to, d.select(operand, d.flit(1.0, e.to), d.flit(0.0, e.to)))
            else:
                got = self.temp(e.to, d.i2f(operand, have, e.to))  # type: ignore[arg-type]
            return self._opaque_float(got, e.to) if "float-constants" in self.tr.avoid else got
        if have is not None and have.is_float:  # truncation where the type holds the
            # value; else a fault
            self.open(f"if (!({self._in_range(operand, e.to, have)})) {{")
            self.fault(INVALID_CONVERSION, e.line)
            self.close()
            return self.temp(e.to, d.f2i(operand, e.to))
        if have is BOOL:
            return self.temp(e.to, self.d.b2i(operand, e.to))
        assert have is not None
        if have is e.to:
            return operand
        return self.temp(e.to, self.widen(operand, have, e.to))

    def _in_range(self, x: str, to: Type, have: Type = F32) -> str:
        """Whether the float `x` (of type `have`) truncates to a value of the integer
        type `to` (false for NaN): above lo - 1 and below hi + 1, each bound a float
        exactly (lo itself where lo - 1 is none: then no float lies between them)."""
        d = self.d
        lo, hi = int_range(to)
        if fmt(have).rounded(float(lo - 1)) != lo - 1:  # i32 for an f32, i64
            limit = d.flit(_INT_LIMITS[to.bits], have)
            return f"{x} >= -{limit} && {x} < {limit}"
        return f"{x} > {d.flit(float(lo - 1), have)} && {x} < {d.flit(float(hi + 1), have)}"

    def e_MathOp(self, e: n.MathOp) -> str:
        d = self.d
        args = [self.expr(a) for a in e.args]
        if e.op in n.BALLOT_FUNCTIONS:  # its argument an i64 (or a narrower signed int)
            at = e.args[0].ty
            assert at is not None
            return self._ballot_function(e.op, self.widen(args[0], at, I64))
        if e.ty is not None and e.ty.is_int:
            return self._int_function(e, args, e.ty)
        fl = e.ty
        assert fl is not None
        word = _WORD[fl]  # the integer type of the float's bits
        if e.op == "fma":
            got = d.ffma(args[0], args[1], args[2], fl)
            if "f64-rounded-through-f32" in self.mutants and fl is F64:
                got = d.i2f(d.i2f(got, F64, F32), F32, F64)
            return self.temp(fl, got)
        bits = [self.temp(word, d.f2bits(a, fl)) for a in args]
        if e.op == "abs":  # the sign bit cleared
            return self.temp(fl, d.bits2f(f"({bits[0]} & {d.lit(_MAGNITUDES[fl], word)})",
                                          fl))
        # min / max: a NaN loses to a number; of equal values (zeros of either sign) the
        # one with the sign bit for min, without it for max
        a, b = args
        nan_a, nan_b = (self.temp(BOOL, self._is_nan(x, fl)) for x in bits)
        smaller = e.op == "min"
        better = f"({a} < {b})" if smaller else f"({a} > {b})"
        tie = f"({a} == {b} && {bits[0]} {'<' if smaller else '>='} {d.lit(0, word)})"
        take_a = self.temp(BOOL, f"({nan_b} || {better} || {tie})")
        return self.temp(fl, d.select(nan_a, b, d.select(take_a, a, b)))

    # ------------------------------------------------------- the integer functions
    def _int_function(self, e: n.MathOp, args: list[str], ty: Type) -> str:
        """popcount, clz, ctz, bit_reverse, the rotations, mul_hi, min, max, abs of
        integers (docs/semantics.md, "Bit operations"): each on the type's bits, in the
        unsigned type of its width (`d.same_u`), through the dialect's bit counts of
        32- and 64-bit values (`d.bit_count`), a 64-bit one composed of its halves where
        the dialect has none."""
        d = self.d
        op = e.op
        if op in ("min", "max", "mul_hi"):  # the two operands meet in the result's type
            args = [self.widen(x, a.ty, ty) for x, a in zip(args, e.args)]
        if op in ("min", "max"):  # the comparison of the type's values
            a, b = args
            pick = self.temp(BOOL, f"({a} < {b})" if op == "min" else f"({a} > {b})")
            return self.temp(ty, d.select(pick, a, b))
        if op == "abs":
            if not ty.signed:
                return args[0]
            x = args[0]
            negated = d.from_u(f"{d.to_u(d.lit(0, ty), ty)} - {d.to_u(x, ty)}", ty)
            return self.temp(ty, d.select(f"({x} < {d.lit(0, ty)})", negated, x))
        if op == "mul_hi":
            return self._mul_hi(args[0], args[1], ty)
        ut = _SAME_U[ty.bits]
        u = self.temp(ut, self.widen(args[0], ty, ut))  # the type's bits
        w = ty.bits
        if op in ("rotate_left", "rotate_right"):
            at = e.args[1].ty
            assert at is not None
            s = self.temp(ut, self.widen(f"({args[1]} & {d.lit(w - 1, at)})", at, ut))
            if op == "rotate_right":
                s = self.temp(ut, f"(({d.lit(w, ut)} - {s}) & {d.lit(w - 1, ut)})")
            back = self.temp(ut, f"(({d.lit(w, ut)} - {s}) & {d.lit(w - 1, ut)})")
            # (s = 0: back = 0, and u | u is u: no shift by the width); a C dialect
            # computes a narrower type's in int: truncated back
            rotated = (f"(({u} << {d.shift_amount(s, ut, w)}) | "
                       f"({u} >> {d.shift_amount(back, ut, w)}))")
            got = self.temp(ut, rotated if w >= 32 else d.int_cast(rotated, U32, ut))
            return self.temp(ty, self.widen(got, ut, ty))
        if w == 64:
            counted = self._bits64(op, u)
        else:  # zero-extended to 32 bits
            v = u if w == 32 else self.temp(U32, self.widen(u, ut, U32))
            count = self.d.bit_count(self, op, v, U32)
            assert count is not None, "every dialect counts the bits of a u32"
            got = count
            if op == "clz":
                got = f"({got} - {d.lit(32 - w, U32)})"
            elif op == "ctz":
                got = d.select(f"({v} == {d.lit(0, U32)})", d.lit(w, U32), got)
            elif op == "bit_reverse":
                got = f"({got} >> {d.shift_amount(d.lit(32 - w, U32), U32, 32)})"
            counted = self.temp(U32, got)
            counted = self.temp(ut, self.widen(counted, U32, ut))
        if op in ("clz", "ctz") and "clz-ctz-zero" in self.mutants:
            counted = self.temp(ut, d.select(f"({u} == {d.lit(0, ut)})", d.lit(w - 1, ut),
                                             counted))  # the mutant: of 0, width - 1
        return self.temp(ty, self.widen(counted, ut, ty))

    def _ballot_function(self, op: str, ballot: str) -> str:
        """A ballot function (docs/semantics.md, "Ballot arithmetic") of the wave's W bits
        of `ballot`: the dialect's own subgroup function where it has one
        (`d.ballot_function`; the value masked to the wave first, a find of no bit
        guarded), else composed of the bit counts; relative to the workitem's lane."""
        d = self.d
        w = self.tr.wave
        mask = d.lit((1 << w) - 1 if w < 64 else (1 << 64) - 1, U64)
        m = self.temp(U64, f"({self.widen(ballot, I64, U64)} & {mask})")
        lane = self.temp(U64, self.widen(f"{self.c}lane", I32, U64))
        if op == "ballot_exclusive_bit_count" and "ballot-exclusive-includes-lane" \
                in self.mutants:
            op = "ballot_inclusive_bit_count"  # the mutant: the lane's own bit counted
        one = d.lit(1, U64)
        if op == "inverse_ballot":
            return self.temp(BOOL, f"((({m} >> {d.shift_amount(lane, U64, 64)}) & {one}) "
                                   f"!= {d.lit(0, U64)})")
        none = f"({m} == {d.lit(0, U64)})"
        own = None if op == "ballot_bit_count" and "ballot-bit-count" in self.tr.avoid \
            else d.ballot_function(self, op, m)
        if own is not None:
            got = self.temp(I32, own)
            if op in ("ballot_find_lsb", "ballot_find_msb"):
                got = self.temp(I32, d.select(none, d.lit(-1, I32), got))
            return got
        if op in ("ballot_inclusive_bit_count", "ballot_exclusive_bit_count"):
            top = lane if op == "ballot_exclusive_bit_count" else \
                self.temp(U64, f"({lane} + {one})")
            # the lanes below `top` (all 64 where top is 64: no shift by the width)
            below = self.temp(U64, d.select(f"({top} == {d.lit(64, U64)})",
                                            d.lit((1 << 64) - 1, U64),
                                            f"(({one} << {d.shift_amount(top, U64, 64)}) "
                                            f"- {one})"))
            m = self.temp(U64, f"({m} & {below})")
        if op in ("ballot_bit_count", "ballot_inclusive_bit_count",
                  "ballot_exclusive_bit_count"):
            return self.temp(I32, d.int_cast(self._bits64("popcount", m), U64, I32))
        if op == "ballot_find_lsb":
            found = d.int_cast(self._bits64("ctz", m), U64, I32)
        else:
            found = f"({d.lit(63, I32)} - {d.int_cast(self._bits64('clz', m), U64, I32)})"
        return self.temp(I32, d.select(none, d.lit(-1, I32), found))

    def _bits64(self, op: str, u: str) -> str:
        """popcount, clz, ctz, bit_reverse of the u64 `u`: the dialect's own, else from
        its halves."""
        d = self.d
        own = d.bit_count(self, op, u, U64)
        if op == "popcount" and "popcount-low-word" in self.mutants:
            own = None  # the mutant: of the low half only, below
        if own is not None:
            return self.temp(U64, own)
        lo = self.temp(U32, d.int_cast(u, U64, U32))
        hi = self.temp(U32, d.int_cast(f"({u} >> {d.shift_amount(d.lit(32, U64), U64, 64)})",
                                       U64, U32))
        of_lo, of_hi = self._count32(op, lo), self._count32(op, hi)
        if op == "popcount":
            got = of_lo if "popcount-low-word" in self.mutants else f"({of_lo} + {of_hi})"
        elif op == "clz":
            got = d.select(f"({hi} == {d.lit(0, U32)})", f"({d.lit(32, U64)} + {of_lo})",
                           of_hi)
        elif op == "ctz":
            got = d.select(f"({lo} == {d.lit(0, U32)})", f"({d.lit(32, U64)} + {of_hi})",
                           of_lo)
        else:  # the halves reversed, and swapped
            got = f"(({of_lo} << {d.shift_amount(d.lit(32, U64), U64, 64)}) | {of_hi})"
        return self.temp(U64, got)

    def _count32(self, op: str, x: str) -> str:
        """A bit count of the u32 `x`, as a u64."""
        got = self.d.bit_count(self, op, x, U32)
        assert got is not None, "every dialect counts the bits of a u32"
        return self.temp(U64, self.widen(got, U32, U64))

    def _mul_hi(self, a: str, b: str, ty: Type) -> str:
        """The high half of the full product: a narrower type's in the 64-bit product of
        the values; a 64-bit one's from 32-bit halves (no partial sum overflows), signed
        by subtracting b for a < 0 and a for b < 0."""
        d = self.d
        w = ty.bits
        mistaken = "mul-hi-signed" in self.mutants and not ty.signed
        if mistaken:  # the mutant: the signed product's high half, read back unsigned
            signed = _SAME_S[w]
            high = self._mul_hi(d.int_cast(a, ty, signed), d.int_cast(b, ty, signed),
                                signed)
            return self.temp(ty, d.int_cast(high, signed, ty))
        if w < 64:
            wide = I64 if ty.signed else U64
            product = self.temp(wide, f"({self.widen(a, ty, wide)} * {self.widen(b, ty, wide)})")
            high = self.temp(wide, f"({product} >> {d.shift_amount(d.lit(w, wide), wide, 64)})")
            return self.temp(ty, self.widen(high, wide, ty))
        ua = self.temp(U64, self.widen(a, ty, U64))
        ub = self.temp(U64, self.widen(b, ty, U64))
        mask, sh = d.lit(0xFFFFFFFF, U64), d.shift_amount(d.lit(32, U64), U64, 64)
        alo, ahi = self.temp(U64, f"({ua} & {mask})"), self.temp(U64, f"({ua} >> {sh})")
        blo, bhi = self.temp(U64, f"({ub} & {mask})"), self.temp(U64, f"({ub} >> {sh})")
        lolo = self.temp(U64, f"({alo} * {blo})")
        hilo = self.temp(U64, f"({ahi} * {blo})")
        lohi = self.temp(U64, f"({alo} * {bhi})")
        cross = self.temp(U64, f"(({lolo} >> {sh}) + ({hilo} & {mask}) + {lohi})")
        high = self.temp(U64, f"(({ahi} * {bhi}) + ({hilo} >> {sh}) + ({cross} >> {sh}))")
        if not ty.signed:
            return high
        zero = d.lit(0, U64)
        fix_a = self.temp(U64, d.select(f"({a} < {d.lit(0, I64)})", ub, zero))
        fix_b = self.temp(U64, d.select(f"({b} < {d.lit(0, I64)})", ua, zero))
        return self.temp(I64, self.widen(f"({high} - {fix_a} - {fix_b})", U64, I64))

    def _opaque_float(self, x: str, fl: Type = F32) -> str:
        """`x` through its bits plus a zero read at run time: the same float, which no
        compiler can take for a constant (AVOIDABLE "float-constants": with every
        literal and conversion so, no float of the kernel is one)."""
        d = self.d
        zero = d.opaque_zero(self.tr)
        zero = d.narrow(zero) if fl is F32 else zero
        return self.temp(fl, d.bits2f(f"({d.f2bits(x, fl)} + {zero})", fl))

    def _is_nan(self, bits: str, fl: Type = F32) -> str:
        """Whether the float of these bits is a NaN: its magnitude's bits past
        infinity's."""
        d = self.d
        word = _WORD[fl]
        return (f"(({bits} & {d.lit(_MAGNITUDES[fl], word)}) > "
                f"{d.lit(_INFINITIES[fl], word)})")

    def _float_wave_op(self, e: n.WaveOp, args: list[str], fl: Type = F32) -> str:
        """A float through a wave operation, on its bits: moved as an integer of its
        width, or reduced as such a key that orders like the floats (sign-magnitude made
        two's complement: negative values' low bits flipped), a NaN's key past every
        number's."""
        d = self.d
        word = _WORD[fl]
        bits = self.temp(word, d.f2bits(args[0], fl))
        as_int = n.replace(e, args=(n.replace(e.args[0], ty=word),) + e.args[1:], ty=word)
        if e.op in ("readfirstlane", "shuffle") + n.RELATIVE_SHUFFLES + n.QUAD_OPS:
            moved = d.wave_op(self, as_int, [bits] + args[1:])
            return self.temp(fl, d.bits2f(moved, fl))
        zero, magnitude = d.lit(0, word), d.lit(_MAGNITUDES[fl], word)
        flip = d.select(f"({bits} < {zero})", magnitude, zero)
        lo, hi = int_range(word)
        worst = d.lit(hi if e.op == "wave_min" else lo, word)
        key = self.temp(word, d.select(self._is_nan(bits, fl), worst, f"({bits} ^ {flip})"))
        best = self.temp(word, d.wave_op(self, as_int, [key]))
        unflip = d.select(f"({best} < {zero})", magnitude, zero)
        return self.temp(fl, d.bits2f(f"({best} ^ {unflip})", fl))

    def e_Call(self, e: n.Call) -> str:
        result = self.call(e)
        assert result is not None
        return result

    def call(self, e: n.Call) -> str | None:
        callee = self.tr.program.function(e.func)
        args: list[str] = []
        for p, a in zip(callee.params, e.args):
            if p.ty.is_buffer:
                args += list(self.buffer(a))
            else:
                args.append(self.widen(self.expr(a), a.ty, p.ty))
        c = self.c
        self.line(f"{c}fns[{c}depth] = {self.tr.fid[self.fn.name]}; "
                  f"{c}lns[{c}depth] = {e.line}; {c}depth = {c}depth + 1;")
        call = f"f_{e.func}({', '.join(self.d.call_args(args))})"
        result = None
        if callee.returns is None:
            self.line(call + ";")
        else:
            result = self.temp(callee.returns, call)
        self.line(f"{c}depth = {c}depth - 1;")
        if "call-no-check" not in self.mutants:
            self.check()
        return result

    def e_Alloc(self, e: n.Alloc) -> str:
        raise Unsupported(f"alloc(): no allocation inside a kernel (line {e.line})")

    def e_WaveOp(self, e: n.WaveOp) -> str:
        args = [self.expr(a) for a in e.args]  # a lane faulting here returns: not active
        ty = e.args[0].ty if e.args else None
        if ty is not None and ty.is_float:
            return self._float_wave_op(e, args, ty)
        if ty is not None and ty.is_int and ty.bits < 32 and not self.d.narrow_subgroups:
            if e.op in _VALUE_WAVE_OPS:
                return self._narrow_wave_op(e, args, ty)
            if e.op == "wave_all_equal":  # the same values, widened
                wide = I32 if ty.signed else U32
                x = self.temp(wide, self.widen(args[0], ty, wide))
                return self.d.wave_op(self, n.replace(e, args=(n.replace(e.args[0], ty=wide),)),
                                      [x])
        return self.d.wave_op(self, e, args)

    def relative_source(self, op: str, amount: str, at: Type) -> str:
        """The source lane of a relative shuffle (`lane ^ mask`, `lane - delta`, `lane +
        delta`) as an i64, computed in u64 so that no amount overflows: outside the wave,
        whatever it is, for an amount past it."""
        d = self.d
        lane = d.to_u(self.widen(f"{self.c}lane", I32, I64), I64)
        amount = d.to_u(self.widen(amount, at, I64), I64)  # i64(amount): u64's bits
        spelled = {"shuffle_xor": "^", "shuffle_up": "-", "shuffle_down": "+"}[op]
        source = d.from_u(f"({lane} {spelled} {amount})", I64)
        if self.tr.avoid & _SEXT:  # (lane + zero) - (0 + zero) is the bare extension of
            # the lane again, which the bounds check compares: the zero once more
            source = f"({source} + {d.opaque_zero(self.tr)})"
        return self.temp(I64, source)

    def quad_source(self, op: str, e: n.WaveOp) -> str:
        """The source lane of a quad operation as an i32: the quad's lane i (`(lane &
        ~3) | i`) or the lane across (`lane ^ 1`, `^ 2`, `^ 3`)."""
        d, lane = self.d, f"{self.c}lane"
        if op == "quad_broadcast":
            i = n.quad_lane(e)
            return self.temp(I32, f"(({lane} & {d.lit(-4, I32)}) | {d.lit(i, I32)})")
        return self.temp(I32, f"({lane} ^ {d.lit(n.QUAD_SWAPS[op], I32)})")

    def _narrow_wave_op(self, e: n.WaveOp, args: list[str], ty: Type) -> str:
        """An 8- or 16-bit operand through a 32-bit wave operation: extended by its
        signedness, and the result truncated back (a sum wraps the same way, a minimum
        or a moved value is the same value)."""
        wide = I32 if ty.signed else U32
        x = self.temp(wide, self.widen(args[0], ty, wide))
        as_wide = n.replace(e, args=(n.replace(e.args[0], ty=wide),) + e.args[1:], ty=wide)
        got = self.temp(wide, self.d.wave_op(self, as_wide, [x] + args[1:]))
        return self.temp(ty, self.widen(got, wide, ty))


def _case_variable(s: n.If) -> n.Name:
    """The variable a `match` chain's first case compares (its typed read)."""
    cond = s.cond
    while isinstance(cond, n.Logic):
        cond = cond.left
    assert isinstance(cond, n.Compare) and isinstance(cond.left, n.Name)
    return cond.left


def _tangles(body: tuple[n.Stmt, ...]) -> bool:
    """Whether `body` holds a wave operation, or a call (whose function may hold one)."""
    return any(isinstance(x, (n.WaveOp, n.Call)) for x in walk(body))


def _jumps_out(body: tuple[n.Stmt, ...], kinds: tuple[type, ...]) -> bool:
    """Whether `body` holds a statement of `kinds` (break, continue) of a loop around it
    (not one inside a loop of its own)."""
    for s in body:
        if isinstance(s, kinds):
            return True
        if isinstance(s, n.If) and (_jumps_out(s.then, kinds) or _jumps_out(s.orelse, kinds)):
            return True
    return False


#: the unsigned and the signed type of each width
_SAME_U = {8: U8, 16: U16, 32: U32, 64: U64}
_SAME_S = {8: I8, 16: I16, 32: I32, 64: I64}


def counter_type(var: Type) -> Type:
    """The type of a `for` loop's counter, for a loop variable of type `var`: i64 holds
    every value of every type but u64 (the counter runs from start up to the bound, both
    the variable's values, so it never wraps)."""
    return U64 if var is U64 else I64


def barrier_bearing(body: tuple[n.Stmt, ...]) -> set[int]:
    """The ids of the statements sync mode runs with every workitem: those with a
    barrier inside, and the breaks and continues of a loop with one (with the
    statements around them)."""
    out: set[int] = set()

    def mark(stmts: tuple[n.Stmt, ...], loop_bears: bool) -> bool:
        found = False
        for st in stmts:
            if isinstance(st, n.Barrier):
                bears = True
            elif isinstance(st, (n.Break, n.Continue)):
                bears = loop_bears
            elif isinstance(st, n.If):
                then, orelse = mark(st.then, loop_bears), mark(st.orelse, loop_bears)
                bears = then or orelse
            elif isinstance(st, (n.For, n.While)):
                bears = any(isinstance(x, n.Barrier) for x in walk(st.body))
                mark(st.body, bears)
            else:
                bears = False
            if bears:
                out.add(id(st))
                found = True
        return found

    mark(body, False)
    return out


class SyncEmitter(FunctionEmitter):
    """The body of a kernel with barriers, in sync mode (the module's docstring): the
    statements `barrier_bearing` names run with every workitem, their decisions voted;
    the runs of other statements with the live ones only, in a block that a fault, the
    budget or a return leaves by `break` (the loops inside a run pass it on)."""

    def __init__(self, tr: Translator, fn: n.Function) -> None:
        super().__init__(tr, fn)
        self.bearing = barrier_bearing(fn.body)
        self.in_run = False
        self.live = f"({self.c}kind == 0 && {self.c}done == 0)"

    def leave(self) -> str:
        if "ghost-returns" in self.mutants:
            return "return;"  # the bug: the workitem leaves its group short
        return "break;"  # only ever written inside a run

    def block(self, stmts: tuple[n.Stmt, ...]) -> None:
        if self.in_run:
            super().block(stmts)
            return
        run: list[n.Stmt] = []
        for st in stmts:
            if id(st) in self.bearing:
                self.run(tuple(run))
                run = []
                getattr(self, "b_" + type(st).__name__)(st)
            else:
                run.append(st)
        self.run(tuple(run))

    def run(self, stmts: tuple[n.Stmt, ...]) -> None:
        if stmts:
            with self.live_block():
                super().block(stmts)

    @contextmanager
    def live_block(self) -> Iterator[None]:
        """What is written inside runs with the live workitems only; a fault, the budget
        or a return leaves it by `break`."""
        self.open(f"if ({self.live}) {{")
        self.open(self.d.run_open())
        self.in_run = True
        yield
        self.in_run = False
        self.indent -= 1
        self.line(self.d.run_close())
        self.close()

    def choice(self) -> str:
        """A vote's variable, -1 (a ghost's) until a live workitem sets it."""
        name = self.fresh("c")
        self.line(self.d.var(name, I32, self.d.lit(-1, I32)))
        return name

    def yes_no(self, cond: str) -> str:
        return self.d.select(cond, self.d.lit(1, I32), self.d.lit(0, I32))

    # a run's statements, where they differ from the usual
    def s_Return(self, s: n.Return) -> None:
        if "ghost-returns" in self.mutants:
            self.line("return;")
            return
        self.line(f"{self.c}done = 1; break;")  # the kernel ends here: a ghost from now

    def s_For(self, s: n.For) -> None:
        super().s_For(s)
        self.line(f"if (!{self.live}) {{ break; }}")  # a fault inside: leave the run

    def s_While(self, s: n.While) -> None:
        super().s_While(s)
        self.line(f"if (!{self.live}) {{ break; }}")

    # the statements every workitem runs
    b_Barrier = FunctionEmitter.s_Barrier

    def b_Break(self, s: n.Break) -> None:
        self.line("break;")

    def b_Continue(self, s: n.Continue) -> None:
        self.line("continue;")

    def b_If(self, s: n.If) -> None:
        v = self.choice()
        with self.live_block():
            self.line(f"{v} = {self.yes_no(self.expr(s.cond))};")
        # the variant: both arms end at a barrier (every workitem is here: the vote's)
        tail = self.d.barrier() if "barrier-branch-tail" in self.tr.avoid else None
        self.arms(self.d.vote(v), s, tail)

    def b_For(self, s: n.For) -> None:
        ty = self.types[s.var]
        ct = counter_type(ty)
        k = self.fresh("k")
        self.line(self.d.var(k, ct, self.d.lit(0, ct)))
        self.line(self.d.var(f"{k}_stop", ct, self.d.lit(0, ct)))
        with self.live_block():
            start = self.widen(self.expr(s.start), s.start.ty, ct)
            stop = self.widen(self.expr(s.stop), s.stop.ty, ct)
            self.line(f"{k} = {start}; {k}_stop = {stop};")
        self.open(self.d.sync_loop_head(k, ct))
        v = self.choice()
        self.line(f"if ({self.live}) {{ {v} = {self.yes_no(f'({k} < {k}_stop)')}; }}")
        self.line(f"if (!{self.d.vote(v)}) {{ break; }}")
        with self.live_block():
            self.trip()
            self.line(f"v_{s.var} = {self.widen(k, ct, ty)};")
        self.block(s.body)
        self.close()

    def b_While(self, s: n.While) -> None:
        self.open(self.d.loop_head())
        v = self.choice()
        self.line(f"if ({self.live}) {{ {v} = {self.d.lit(1, I32)}; }}")
        self.line(f"if (!{self.d.vote(v)}) {{ break; }}")  # no live workitem is left
        with self.live_block():
            self.trip()
        self.block(s.body)
        self.close()


def entry_checks(tr: Translator) -> dict[str, Any]:
    """What every entry point decides the same way: whether lanes past n run (the
    `past-n-active` mutant), whether those that do not are ghosts rather than gone (a
    kernel with barriers, unless `ghost-returns`), whether the subgroup is asked for and
    checked, and whether the group zeroes its workgroup arrays (`workgroup-memory-
    unzeroed` leaves that out)."""
    return {"retire_past_n": "past-n-active" not in tr.mutants,
            "past_n_ghosts": tr.synchronising and "ghost-returns" not in tr.mutants,
            "subgroups_checked": not UNCHECKED_SUBGROUPS & tr.mutants,
            "zero_locals": "workgroup-memory-unzeroed" not in tr.mutants}


#: the mutants whose kernels neither ask for nor check their subgroups (lane = the
#: workitem's index in its workgroup)
UNCHECKED_SUBGROUPS = frozenset({"subgroup-size-unrequested", "subgroup-size-assumed-32"})
