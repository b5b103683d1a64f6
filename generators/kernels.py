"""`kernels()`: random kernels that are well-typed, race-free by construction, terminating,
and cover every construct of the language.

A kernel's signature is drawn with it (`GeneratedKernel.buffers` / `.scalars` say what
`inputs.arguments()` must pass)::

    def kernel(inp: Buffer[i32], [wide: Buffer[i64],] out: Buffer[T], [out2: Buffer[U],]
               [acc: Buffer[A],] s: i32, [t: i64,] [flag: bool]):
        g = gid()
        ...                      # statements drawn from the enabled features
        out[g * K + c] = out[g * K + c] + v     # the sink: a read-modify-write

plus the helpers it calls (`h0(b: Buffer[i32], a: i32, x: i32|i64) -> i32`, used inside
expressions; `hv(o: Buffer[T], v: i32, b: Buffer[i32][, r: Buffer[A]])`, a statement, which may
call `h0`). No recursion, by construction.

Race freedom by construction (the race rule of docs/semantics.md), per buffer *role*:
- "in" buffers (`inp`, `wide`, helper parameter `b`) are only loaded, at any computed
  index (wrapped into bounds with `(e & 255) % len(b)`, or raw when out-of-bounds faults
  are enabled);
- "out" buffers (`out`, `out2`, aliases `oN = out`, helper parameter `o`) are only touched
  at the workitem's private slots `gid * K + c`, c < K (one K for all of them, and the
  buffers are n*K long or shorter): plain stores, read-modify-writes, loads of those
  slots; a fault-enabled store adds `(len(out) if <cond> else 0)`, so it faults instead;
- "acc" buffers (`acc`, helper parameter `r`) are only touched by `atomic_add`, at any
  index.
`g` is never reassigned; the only assignment to a scalar parameter is `s = s - 1` at the
end of a loop body (a loop bound changing inside its loop: bounds are read once), which
only shrinks later loops.
Termination: loops are `range(a, b)` with b a constant <= 8, `s` (inputs keep it in
-1..8) or `len(acc)` (inputs keep it <= 8), nested at most twice in the kernel; a helper
gets a loop only when none of its call sites is inside a loop. So no path nests more than
two loops and a workitem runs a few thousand steps at most (the tests check a static
bound against the oracle's step budget).
Faults only where a fault feature is on: with `fault_rate=0` no kernel ever faults
(divisors are `(e | 1)`, indices are wrapped, out buffers have full length).

Generation policy (swarm testing, as YARPGen's generation policies): each kernel first
draws which features are enabled at all (one boolean each; fault features with
probability `fault_rate`), then draws every statement and expression only from the
productions those features enable. So rare combinations are not drowned out. An enabled
feature is also a used one: its main statement (a loop, an if/else, an early return, a
helper call, an atomic, a buffer alias, a `fail`) is placed in the kernel's top-level
block when the draws did not produce it; with `return` on, the valued helper `h0` gets
an early return, followed by whole-wave code when wave operations are on (seed 003's
call-return form: the lanes that returned wait with their value while the others run
all-lane writes). Every value shows: each exit folds every scalar into the checksum, and
a branch or loop body adds the values it assigned to the workitem's first slot before
they go out of scope (without it, a value computed there and read by nothing after
showed nowhere, and a compiler's mistake in computing it was never seen). With `dead`
on, values die where real code lets them (otherwise none is dead after a loop that
still needs it): some a loop assigned get new values right after it, a value is read only on
the way to a `break` or `continue`, and a `for` with a `continue` may hold 003's loop
form by `continue` (a value read each trip, redefined by whole-wave code after the
continue, dead after the loop: only the continue point keeps it for the lanes that
took it) or its form by `break` (a value from before the loop read only on the arm that
breaks, dead after the loop: only the back edge keeps it, for the lanes that break on a
later trip). Loops with an early exit often get a wave operation after it
(generators/pairs.py counts these pairs). Productions repeat in their lists as weights,
wave operations weigh more under divergence, and fault sites fire for few workitems (a
value equal to a small constant, `gid == C`, `gid - C` as divisor, `gid + C` as index),
so a faulting run still runs most of the kernel.

Cost and shrinking: each Hypothesis choice has a real cost, so every expression node and
every statement is exactly one choice (an index into a production list whose first entry
is the simplest), and nothing is drawn where only one option exists. Shrinking switches
features off first (they are drawn first), then shortens blocks (each block draws its
length first), then simplifies productions toward the first entry: leaves toward `0`,
statements toward plain assignments. Kernels are built as source text and parsed with
`difftest.core.ir.parse`: the text is what the case file stores, and the parse is the check
that the generator built a valid program.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from hypothesis import event
from hypothesis import strategies as st

from difftest.core.ir import nodes as n
from difftest.core.ir import parse, to_source, walk
from difftest.core.ir.check import RESERVED
from difftest.core.ir.types import BOOL, F32, F64, I32, I64, U32, U64, Type, int_range, private_of
from difftest.core.options import DEFAULT_WORK_BUDGET
from difftest.core.reconvergence import MAXIMAL, MODELS, UNIFORM, defined_only
from difftest.core.uniformity import analyse as uniformity

from .coverage import EXTRA_INTS, constructs
from .pairs import kernel_pairs
from .reproducible import pin

pin()  # a seed draws the same kernels whatever else this process imported

#: Swarm features: each kernel enables each with probability 1/2.
FEATURES = ("branch", "loop", "wave", "memory", "atomic", "helper", "return", "logic",
            "div", "i64", "while", "f32", "dead", "ints", "bits", "arrays", "returning")
#: feature "returning": atomics that return (docs/semantics.md, "Atomics that return") on
#: the "acc" buffers, their old values used like any value (under divergence, in loops
#: with breaks); a counter `ctr` bumped by the active lanes with each returned value the
#: index of a slot of `lst` that lane alone writes (the atomic optimizer's case: a
#: uniform or a divergent increment); and an unsigned `uacc` for unsigned min and max
#: feature "arrays": private arrays (`a: Array[T, N]`) of the integer types in use,
#: declared anywhere (again in loops: zero each trip), written and read with run-time
#: indices, under divergence
#: feature "bits": the integer functions (popcount, clz, ctz, bit_reverse, the rotations,
#: mul_hi, min, max, abs) in integer expressions of every type
#: feature "ints": one or two of these integer types (of those the target runs), each with
#: its own variables, a buffer, a scalar, arithmetic, comparisons, wave operations and
#: conversions to and from the others -- where sign and zero extension, unsigned
#: division, comparison and shifts, and narrow wrapping go wrong (docs/semantics.md):
#: coverage.EXTRA_INTS
#: Drawn with a low probability: deep nesting (loops 4 deep, control 6 deep, as the
#: Vulkan CTS reconvergence programs reach), with small trip counts.
RARE_FEATURES = ("deep",)
RARE_PERCENT = 15
#: `alloc()` in the kernel (a program that allocates has no wave operations: "wave" goes
#: off), with this probability; its workitems finish on numba-simt's host, one by one, so
#: such kernels launch at most ALLOC_MAX_N workitems
ALLOC_PERCENT = 20
ALLOC_MAX_N = 64
#: Fault features: each enabled with probability `fault_rate`.
FAULT_FEATURES = ("fault_oob", "fault_div", "fault_fail", "fault_convert")
DEFAULT_FAULT_RATE = 0.3

ENTRY = "kernel"
MAX_LOOP = 8  # the largest constant loop bound; inputs keep `s` and len(acc) within it

_I32_CONSTS = ("0", "1", "-1", "2", "3", "7", "100", "-7", "2147483647", "-2147483648")
_I64_CONSTS = ("2147483648", "-9223372036854775808", "9223372036854775807", "4294967296")
_ARITH = ("+", "-", "*", "&", "|", "^", "<<", ">>")
#: feature "bits": the integer functions of one operand, of two of its type, rotations
_BITS_1 = ("popcount", "clz", "ctz", "bit_reverse", "abs")
_BITS_2 = ("mul_hi", "min", "max")
_ROTATIONS = ("rotate_left", "rotate_right")
_BITS = _BITS_1 + _BITS_2 + _ROTATIONS
#: f32 literals: the values where float code goes wrong (signed zeros, subnormals, the
#: largest finite, ties, the edges of the integer conversions), and plain ones
_F32_CONSTS = ("0.0", "1.0", "-1.0", "0.5", "2.5", "-0.0", "1e-45", "1.1754942e-38",
               "1.1754944e-38", "3.4028235e+38", "2147483520.0", "2147483648.0",
               "-2147483648.0", "16777216.0", "0.1", "1e+30", "-2.5", "3.0", "1.5")
_F32_OPS = ("+", "-", "*")
#: the range integer conversions are clamped to where no fault may happen
_F32_CLAMP = "1000000000.0"
#: the limits of i32 and of i64 as f32 bounds: -MIN exactly, and the last f32 below MAX + 1
_F32_LIMITS = (("2147483648.0", "2147483520.0"), ("9.223372e+18", "9.2233715e+18"))
#: f64 literals (spelled f64(...) in the kernel): binary64's edges and binary32's (its
#: largest finite, the first double f32 rounds past it, a tie f32 must round), as above
_F64_CONSTS = ("0.0", "1.0", "-1.0", "0.5", "2.5", "-0.0", "5e-324", "2.2250738585072014e-308",
               "2.225073858507201e-308", "1.7976931348623157e+308", "2147483647.9999998",
               "2147483648.0", "-2147483648.5", "9007199254740992.0", "9007199254740993.0",
               "0.1", "1e+300", "-2.5", "3.0", "1.5", "3.4028235677973366e+38",
               "3.4028234663852886e+38", "16777217.0", "1e-40")
#: doubles whose narrowing to f32 is an edge: below f32's smallest normal (a subnormal
#: f32, or half the smallest: a tie that rounds to zero), past its largest finite, a tie
_NARROW_EDGES = ("1e-40", "-1e-40", "1.401298464324817e-45", "7.006492321624085e-46",
                 "1.1754942106924411e-38", "3.4028235677973366e+38", "16777217.0")
#: the limits of i32 and i64 as f64 bounds: MIN exactly, the last double below MAX + 1
_F64_LIMITS = (("2147483648.0", "2147483647.9999998"),
               ("9.223372036854776e+18", "9.223372036854775e+18"))
#: the largest finite of each float type (times 2: an infinity, times 0 then: NaN)
_FLOAT_MAX = {F32: "3.4028235e+38", F64: "1.7976931348623157e+308"}
_CMP = ("<", "==", "!=", ">", "<=", ">=")
#: a line that assigns a variable (`x = ...`, `x: i64 = ...`)
_ASSIGNED = re.compile(r"\s*([A-Za-z_]\w*)\s*(?::\s*\w+\s*)?=(?!=)")
_INT_WAVE = ("wave_sum", "wave_min", "wave_max", "readfirstlane", "prefix_sum",
             "inclusive_sum", "shuffle", "ballot")
_BOUNDS = (("0", "2"), ("0", "s"), ("0", "1"), ("0", "4"), ("1", "s"), ("0", "len"),
           ("0", "3"), ("0", str(MAX_LOOP)), ("2", "0"), ("0", "lane"), ("lane", "4"),
           ("lane", "lane"))
#: bounds where trips must stay small (deep nesting, loops in helpers called in loops)
_SMALL_BOUNDS = (("0", "2"), ("0", "1"), ("0", "3"), ("1", "3"), ("0", "lane"),
                 ("lane", "3"))
SMALL_LOOP = 3


@dataclass(frozen=True)
class BufferSpec:
    """One buffer parameter of a generated kernel.

    `role` says how the kernel touches it (and so what inputs may hold): "in" is only
    loaded, "out" only at private slots `gid * slots + c`, "acc" only by atomics, "list"
    at the slots the counter `ctr`'s atomics return (one workitem each)."""

    name: str
    dtype: str  # "i32" | "i64"
    role: str   # "in" | "out" | "acc" | "list" (written at slots a counter hands out)
    slots: int = 0  # K, for "out" buffers


@dataclass(frozen=True)
class ScalarSpec:
    """One scalar parameter; inputs draw it from lo..hi (bools: 0..1)."""

    name: str
    type: str  # "i32" | "i64" | "bool"
    lo: int
    hi: int


@dataclass(frozen=True)
class GeneratedKernel:
    source: str
    entry: str
    program: n.Program
    buffers: tuple[BufferSpec, ...]
    scalars: tuple[ScalarSpec, ...]
    features: frozenset[str]   # the swarm draw: what the generator was allowed to use
    constructs: frozenset[str]  # what it really contains (coverage.constructs, pairs)
    max_n: int = 1 << 22       # launches larger than this would exhaust the work budget

    @property
    def slots(self) -> int:
        """K, the private slots per workitem of every "out" buffer."""
        return next(b.slots for b in self.buffers if b.role == "out")

    @property
    def faults(self) -> frozenset[str]:
        """The enabled fault features (inputs make faults likelier only under these)."""
        return self.features & frozenset(FAULT_FEATURES)


_BOOL = st.booleans()


_INTEGERS: dict[tuple[int, int], st.SearchStrategy[int]] = {}


def integers(lo: int, hi: int) -> st.SearchStrategy[int]:
    """`st.integers(lo, hi)`, one object per range, for the generators' many small draws
    (a few hundred a kernel): Hypothesis's own strategy cache costs microseconds a call."""
    s = _INTEGERS.get((lo, hi))
    if s is None:
        s = _INTEGERS[lo, hi] = st.integers(lo, hi)
    return s


def _index(k: int) -> st.SearchStrategy[int]:
    return integers(0, k - 1)


@dataclass
class _Fn:
    """What the function being generated may touch; copied at block entry, so names
    assigned inside a block are out of scope after it (the checker's rule)."""

    name: str
    gid: str                       # "g" in the kernel, "gid()" in helpers
    vars: dict[str, Type]          # readable variables (params included)
    locals: list[str]              # reassignable variables (never g, params, loop vars)
    ins: list[tuple[str, Type]]    # (buffer, element type) by role
    outs: list[tuple[str, Type]]
    accs: list[tuple[str, Type]]
    calls: tuple[str, ...]         # helpers this function may call: "h0", "hv"
    returns: Type | None = None
    is_kernel: bool = False
    loops: int = 0                 # enclosing loops
    max_loops: int = 0
    nest: int = 0                  # enclosing compound statements
    max_nest: int = 3
    small: bool = False            # loops of at most SMALL_LOOP trips only
    no_continue: int = 0           # enclosing loops whose exit check is at the bottom
    menus: dict[Any, tuple[str, ...]] = field(default_factory=dict)

    lengths: dict[str, int] = field(default_factory=dict)  # each private array's
    fins: tuple[str, ...] = ()     # f32 buffers: loaded anywhere (wrapped indices)
    fouts: tuple[str, ...] = ()    # f32 buffers: touched at the private slots only

    def scope(self) -> tuple[Any, ...]:
        return dict(self.vars), list(self.locals), list(self.ins), list(self.outs)

    def floats(self) -> list[str]:
        """The f32 variables readable here."""
        return [v for v, t in self.vars.items() if t.is_float]

    def restore(self, saved: tuple[Any, ...]) -> None:
        self.vars, self.locals, self.ins, self.outs = saved[0], saved[1], saved[2], saved[3]


class _Gen:
    """Draws one kernel's text. `d` is Hypothesis's draw; `on` the enabled features."""

    def __init__(self, d: Callable[[st.SearchStrategy[Any]], Any], on: frozenset[str],
                 budget: int, ints: tuple[Type, ...] = ()) -> None:
        self.d = d
        self.on = on
        #: the kernel's float type: f64 where feature "f64" rides on "f32"
        self.fl = F64 if "f64" in on else F32
        self.allowed_ints = ints  # the target's, of EXTRA_INTS
        self.extra: tuple[Type, ...] = ()  # feature "ints": the ones this kernel uses
        self.K = self.num(1, 3)  # private slots per workitem in "out" buffers
        self.budget = budget  # statements left to draw (bounds the kernel's size)
        self.fresh = 0
        self.used: set[str] = set()  # helpers called somewhere
        self.loop_calls: set[str] = set()  # helpers called inside a loop somewhere
        self.h0_x = I64 if "i64" in on else I32

    # ----------------------------------------------------------------- draws

    def pick(self, seq: tuple[Any, ...] | list[Any]) -> Any:
        return seq[0] if len(seq) == 1 else seq[self.d(_index(len(seq)))]

    def num(self, lo: int, hi: int) -> int:
        return lo if lo == hi else lo + self.d(_index(hi - lo + 1))

    def name(self, prefix: str) -> str:
        self.fresh += 1
        if f"{prefix}{self.fresh}" in RESERVED:  # f32, f64, u8, ...: a type's name
            self.fresh += 1
        return f"{prefix}{self.fresh}"

    # ----------------------------------------------------------- expressions

    def int_menu(self, fn: _Fn, want: Type) -> tuple[str, ...]:
        """Integer productions the enabled features allow, simplest first; repeats are
        weights (one feature's productions should not drown out another's)."""
        arrays = bool(_arrays(fn, (I32,) if want is I32 else (I32, I64)))
        key = ("int", want, fn.nest > 0, arrays)
        menu = fn.menus.get(key)
        if menu is not None:
            return menu
        on = self.on
        m = ["leaf", "+", "-", "*", "leaf", "&", "^", "|", "<<", ">>", "neg", "~"]
        if "i64" in on:
            m += ["narrow"] if want is I32 else ["widen", "narrow"]
        if self.extra:
            m += ["from_t"] * 3
        if self._unsigned_of(want) is not None:
            m += ["ushr"]  # a logical shift of the value's bits, as GPU code writes it
        if "memory" in on and fn.ins:
            m += ["load"] * 3
        if fn.outs:
            m.append("load_out")
        if "branch" in on:
            m += ["select", "select", "boolcast"]
        if "wave" in on:
            # a shuffle twice: it has five forms to spread over (shuffled)
            m += list(_INT_WAVE + ("shuffle",)) * (3 if fn.nest else 2) \
                + ["wave_any", "wave_all"] + ["quad"] * 3
        if "div" in on or "fault_div" in on:
            m += ["//", "%"]
        if fn.fins:
            m += ["f2i"] * 3
        if "bits" in on:
            m += list(_BITS)
            if self._unsigned_of(want) is not None:
                m += ["umul_hi"]  # the high half of an unsigned product
            m += ["count64"] * 2  # a count of 64 bits whose high word is not all zeros
        if arrays:
            m += ["array_load"] * 3
        if "h0" in fn.calls:
            m += ["call", "call"]
            if "branch" in on:
                m += ["select_call"] * 3
        menu = fn.menus[key] = tuple(m)
        return menu

    def _unsigned_of(self, want: Type) -> Type | None:
        """The unsigned type of `want`'s width, where the target runs it."""
        u = U64 if want is I64 else U32
        return u if u in self.allowed_ints else None

    def leaf(self, fn: _Fn, want: Type, mode: str = "") -> tuple[str, Type]:
        """A constant, id, variable or length. Comparisons use `mode` "dyn" (no constant)
        on the left and "small" (only small constants) on the right, so that conditions
        mostly differ between lanes instead of being constant."""
        names = [v for v, t in fn.vars.items() if t is I32 or (t is I64 and want is I64)]
        if mode == "dyn":
            menu = [fn.gid, *names, *names, "lane()", "wave()", "len"]
        elif mode == "small":
            menu = ["0", "1", fn.gid, *names, "lane()", "2", "3", "-1", "7", "len"]
        else:
            menu = ["0", "1", fn.gid, *names, *names, "lane()", "-1", "7", "wave()", "100",
                    "const", "len"]
        k = self.pick(menu)
        if k == "const":
            consts = _I32_CONSTS + (_I64_CONSTS if want is I64 else ())
            k = self.pick(consts)
            return k, (I32 if k in _I32_CONSTS else I64)
        if k == "len":
            bufs = fn.ins + fn.outs + fn.accs
            return f"len({self.pick(bufs)[0]})", I32
        return k, fn.vars.get(k, I32)

    def int_expr(self, fn: _Fn, want: Type, depth: int, mode: str = ""
                 ) -> tuple[str, Type]:
        """An expression whose type is assignable to `want` (i32 widens to i64); `mode`
        applies to its leftmost leaf (see `leaf`). A type of EXTRA_INTS: exactly it."""
        if want is not I32 and want is not I64:
            return self.t_expr(fn, want, depth), want
        if depth <= 0:
            return self.leaf(fn, want, mode)
        k = self.pick(self.int_menu(fn, want))
        sub = depth - 1
        if k == "leaf":
            return self.leaf(fn, want, mode)
        if k in _ARITH:
            a, ta = self.int_expr(fn, want, sub, mode)
            b, tb = self.int_expr(fn, want, sub)
            return f"({a} {k} {b})", _widest(ta, tb)
        if k in ("neg", "~"):
            a, ta = self.int_expr(fn, want, sub)
            if _is_literal(a):
                return a, ta  # `-<literal>` folds into a literal of its own width
            return f"({'-' if k == 'neg' else '~'}{a})", ta
        if k == "narrow":
            a, _ = self.int_expr(fn, I64, sub)
            return f"i32({a})", I32
        if k == "widen":
            a, _ = self.int_expr(fn, I32, sub)
            return f"i64({a})", I64
        if k == "boolcast":
            c = self.cond(fn, sub)
            return f"i32({c})", I32
        if k == "load":
            return self.load(fn, want, sub)
        if k == "load_out":
            buf, ty = self.pick(fn.outs)
            text = f"{buf}[{self.slot(fn)}]"
            if ty is not I32 and ty is not I64:
                return f"{want}({text})", want  # another integer type: converted
            return (f"i32({text})", I32) if ty is I64 and want is I32 else (text, ty)
        if k == "select":
            c = self.cond(fn, sub)
            a, ta = self.int_expr(fn, want, sub)
            b, tb = self.int_expr(fn, want, sub)
            return f"({a} if {c} else {b})", _widest(ta, tb)
        if k in _INT_WAVE:
            return self.wave(fn, k, want, sub)
        if k in ("wave_any", "wave_all"):
            return f"i32({k}({self.cond(fn, sub)}))", I32
        if k == "quad":  # a value from the lane's quad (lanes 4q..4q+3)
            x, tx = self.int_expr(fn, want, sub, "dyn")
            q = self.pick(n.QUAD_OPS)
            return (f"quad_broadcast({x}, {self.num(0, 3)})" if q == "quad_broadcast"
                    else f"{q}({x})"), tx
        if k in ("//", "%"):
            if self.pick((False, False, False, True)):  # MIN // -1 wraps; MIN % -1 is 0
                low = "-2147483648" if want is I32 else "-9223372036854775808"
                a, ta = (low, want) if self.pick((False, True)) else self.int_expr(fn, want, sub)
                return f"({a} {k} -1)", ta
            a, ta = self.int_expr(fn, want, sub)
            b, tb = self.divisor(fn, want, sub)
            return f"({a} {k} {b})", _widest(ta, tb)
        if k == "select_call":
            return self.select_call(fn, want, sub)
        if k == "f2i":
            return self.to_int(fn, want, sub), want
        if k == "array_load":
            a = self.pick(_arrays(fn, (I32,) if want is I32 else (I32, I64)))
            return f"{a}[{self.array_index(fn, a, sub)}]", fn.vars[a].element
        if k == "from_t":  # another integer type, converted (extended or truncated)
            ty = self.pick(self.extra)
            x = self.t_expr(fn, ty, sub)
            if ty.bits < 32 and self.pick((False, True)):
                # a narrow sum widened at once: where C's promotion must be wrapped back
                x = f"({x} {self.pick(('+', '-'))} {self.t_literal(ty)})"
            return f"{want}({x})", want
        if k in _BITS_1:
            a, ta = self.int_expr(fn, want, sub)
            if self.pick((False, False, False, True)):
                a, ta = self.bits_edge(want), want
            if ta is I32 and k in ("popcount", "clz", "ctz") and self.pick((False, True)):
                # a count of 64 bits, with its high word set: a negative value's sign
                # extension, or a small value less 2^32
                shift = self.pick(("", " - 4294967296"))
                text = f"{k}(i64({a}){shift})"
                return (text, I64) if want is I64 else (f"i32({text})", I32)
            return f"{k}({a})", ta
        if k in _BITS_2:
            a, ta = self.int_expr(fn, want, sub)
            b, tb = self.int_expr(fn, want, sub)
            return f"{k}({a}, {b})", _widest(ta, tb)
        if k == "count64":  # an i32 widened, its high word flipped or 2^32 taken off
            a, _ = self.int_expr(fn, I32, sub)
            high = self.pick((" ^ -4294967296", " - 4294967296"))
            text = f"{self.pick(('popcount', 'popcount', 'clz', 'ctz'))}(i64({a}){high})"
            return (text, I64) if want is I64 else (f"i32({text})", I32)
        if k == "ushr":  # the bits shifted logically: a negative value's top bit comes down
            u = self._unsigned_of(want)
            a, _ = self.int_expr(fn, want, sub, "dyn")
            if self.pick((False, True)):
                a = f"(~{a})"  # the top bit set where `a` is small and not negative
            b, _ = self.int_expr(fn, want, sub)
            return f"{want}({u}({a}) >> {u}({b}))", want
        if k == "umul_hi":  # operands reinterpreted as unsigned: a negative one is large
            u = self._unsigned_of(want)
            a, b = self.int_expr(fn, want, sub)[0], self.int_expr(fn, want, sub)[0]
            return f"{want}(mul_hi({u}({a}), {u}({b})))", want
        if k in _ROTATIONS:
            a, ta = self.int_expr(fn, want, sub)
            return f"{k}({a}, {self.rotation(fn, sub)})", ta
        assert k == "call", k
        return self.call(fn, sub)

    def lane_bound(self, fn: _Fn) -> str:
        """A loop bound that differs between lanes, kept in 0..7 (0..3 where trips must
        stay small): evaluated once per lane at entry, so lanes run different trips."""
        e, _ = self.int_expr(fn, I32, 1, "dyn")
        varying = self.pick(("lane()", fn.gid, "lane()"))  # differs between lanes for sure
        return f"(({varying} + {e}) & {SMALL_LOOP if fn.small else MAX_LOOP - 1})"

    def while_loop(self, fn: _Fn, pad: str) -> list[str]:
        """`while True:` that terminates by construction: a counter assigned before it
        (readable after it: lanes leave with different counts) and a `break` once it
        passes a limit -- checked first in the body, or last (then nothing in the body
        may `continue`, which would skip the check)."""
        cnt = self.name("c")
        bottom = self.pick((False, True))
        exit_form = bottom and self.pick((True, False))
        lines = []
        outer = [v for v in fn.locals if v in fn.vars]  # locals from before the loop
        if exit_form and not outer:
            value, ty = self.int_expr(fn, I32, 1)
            var = self.new_var(fn, ty)
            lines.append(f"{pad}{var} = {value}")
            outer = [var]
        limits = ("lane", "const", "s", "lane") if not fn.small else ("lane", "const")
        limit = "lane" if exit_form else self.pick(limits)
        if limit == "const":
            limit = str(self.num(1, SMALL_LOOP if fn.small else MAX_LOOP))
        elif limit == "lane" or "s" not in fn.vars:
            limit = self.lane_bound(fn)  # lanes leave at different trips
        inner = pad + "    "
        lines += [f"{pad}{cnt} = 0", f"{pad}while True:"]
        fn.nest += 1
        fn.loops += 1
        saved = fn.scope()
        fn.vars[cnt] = I32  # readable, never reassigned by other statements
        step = [f"{inner}{cnt} = {cnt} + 1"]
        if not bottom:
            lines += step + [f"{inner}if {cnt} > {limit}:", f"{inner}    break"]
            lines += self.block(fn, inner, 1, 4)
        else:
            if exit_form:
                # 003's loop-exit form: each trip first redefines a value from before the
                # loop, without reading it, by whole-wave code (a wave operation, or a
                # uniform constant): the value is dead at the top for the lanes still
                # iterating, while the lanes that left at the bottom hold their last one
                var = self.pick(outer)
                ty = fn.vars.pop(var)
                if "wave" in self.on:
                    value, _ = self.wave(fn, self.pick(_INT_WAVE), ty, 1)
                else:
                    value = f"{self.int_expr(fn, ty, 1)[0]} + {self.pick(('7', '1', '100'))}"
                fn.vars[var] = ty
                lines.append(f"{inner}{var} = {value}")
            fn.no_continue += 1
            lines += self.block(fn, inner, 1, 4)
            fn.no_continue -= 1
            lines += step + [f"{inner}if {cnt} >= {limit}:", f"{inner}    break"]
        fn.restore(saved)
        fn.vars[cnt] = I32
        fn.loops -= 1
        fn.nest -= 1
        if bottom and fn.outs:
            lines += self.witness(fn, pad)  # what each lane left the loop with
        return lines + self.kill_after(fn, pad, lines, keep=(cnt,))

    def kill_after(self, fn: _Fn, pad: str, loop: list[str], keep: tuple[str, ...],
                   dead: str | None = None) -> list[str]:
        """Feature `dead`: some values the loop assigned, given new ones right after it
        (not read first), so they are dead at its exit while the loop still needs them
        -- across its `continue`, before its `break` -- as real code leaves them. (Every
        exit's checksum reads every value: without this, no value is dead after a
        loop.)"""
        if "dead" not in self.on or not (dead or self.pick((False, True, True))):
            return []
        assigned = {m.group(1) for m in map(_ASSIGNED.match, loop) if m}
        # not `s`: a loop's `s = s - 1` is the only assignment a scalar parameter gets (a
        # new value could be any size, and a later `range(..., s)` would run that long)
        names = [v for v in fn.vars if (v in assigned or v == dead) and v not in keep
                 and v != "s" and fn.vars[v] in (I32, I64)]
        lines = []
        for name in names:
            if name == dead or self.pick((False, True)):
                ty = fn.vars.pop(name)  # the new value does not read the old
                value, _ = self.int_expr(fn, ty, 1)
                fn.vars[name] = ty
                lines.append(f"{pad}{name} = {value}")
        return lines

    def checksum(self, fn: _Fn) -> str:
        """Every readable integer and bool local folded into one i32 (CLsmith's hash of
        all variables): a clobbered value anywhere shows in memory."""
        return _fold(fn.vars)

    def witness(self, fn: _Fn, pad: str) -> list[str]:
        """The workitem's witness at an exit of the kernel: its checksum added by
        read-modify-write into its own slot, so a workitem run twice, or run with a
        clobbered local, leaves a different trace."""
        buf, ty = fn.outs[0]
        slot = self.slot(fn)
        lines = [f"{pad}{buf}[{slot}] = {buf}[{slot}] + {self.checksum(fn)}"]
        fold = self.f32_checksum(fn)
        if fold and fn.fouts:
            out, slot = fn.fouts[0], self.slot(fn)
            lines.append(f"{pad}{out}[{slot}] = {out}[{slot}] * {self.flit('0.5')} + ({fold})")
        return lines

    def folded(self, fn: _Fn, value: str) -> str:
        """A helper's result with its locals' checksum folded in."""
        return f"{value} + ({self.checksum(fn)})"

    def select_call(self, fn: _Fn, want: Type, sub: int) -> tuple[str, Type]:
        """A helper call that only some lanes make: the if-expression is control flow."""
        c = self.cond(fn, sub)
        a, ta = self.int_expr(fn, want, sub)
        call, _ = self.call(fn, sub)
        return f"({a} if {c} else {call})", ta

    def called(self, fn: _Fn, helper: str) -> None:
        """Record a call site: a helper called inside a loop (directly or through a
        helper called inside one) gets no loop of its own, which keeps every workitem's
        steps far below the oracle's budget (at most two nested 8-trip loops on any
        path)."""
        self.used.add(helper)
        if fn.loops or fn.name in self.loop_calls:
            self.loop_calls.add(helper)

    def call(self, fn: _Fn, sub: int) -> tuple[str, Type]:
        self.called(fn, "h0")
        buf = self.pick([b for b, t in fn.ins if t is I32])
        a, _ = self.int_expr(fn, I32, sub)
        x, _ = self.int_expr(fn, self.h0_x, sub)
        return f"h0({buf}, {a}, {x})", I32

    def divisor(self, fn: _Fn, want: Type, sub: int) -> tuple[str, Type]:
        forms = ["safe"]
        if "fault_div" in self.on:
            forms += ["gid", "load", "load", "raw"]
        k = self.pick(forms)
        if k == "safe":
            b, tb = self.int_expr(fn, want, sub)
            return f"({b} | 1)", tb
        if k == "raw":
            return self.int_expr(fn, want, sub)
        if k == "load" and fn.ins:
            return self.load(fn, want, sub)
        return f"({fn.gid} - {self.num(0, 9)})", I32

    def load(self, fn: _Fn, want: Type, sub: int) -> tuple[str, Type]:
        buf, ty = self.pick(fn.ins)
        text = f"{buf}[{self.index(fn, buf, sub)}]"
        if ty is I64 and want is I32:
            return f"i32({text})", I32
        if ty is not I32 and ty is not I64 and ty is not want:
            return f"{want}({text})", want  # another integer type: converted
        return text, ty

    def index(self, fn: _Fn, buf: str, sub: int) -> str:
        """An index into an "in" or "acc" buffer: wrapped into bounds, or (with
        out-of-bounds faults on) one that runs off for some workitems: past the end for
        the last few, negative where a value is negative, or anything."""
        forms = ["gmod", "0", "wrap"]
        if "fault_oob" in self.on:
            forms += ["gplus", "signed", "raw"]
        k = self.pick(forms)
        if k == "gmod":
            return f"{fn.gid} % len({buf})"
        if k == "0":
            return "0"
        if k == "gplus":
            return f"{fn.gid} + {self.num(1, 3)}"
        e, _ = self.int_expr(fn, I32, max(0, sub - 1))
        if k == "wrap":
            return f"({e} & 255) % len({buf})"
        return f"{e} % len({buf})" if k == "signed" else e

    def rare_cond(self, fn: _Fn) -> str:
        """A condition that holds for few workitems (a value equal to a small constant),
        for faults: a fault that hits every workitem hides the rest of the kernel."""
        k = self.pick(("leaf", "load", "expr"))
        if k == "load" and fn.ins:
            a, _ = self.load(fn, I64, 0)  # fires where the input holds the value
        else:
            a, _ = self.int_expr(fn, I64, 0 if k == "leaf" else 1, "dyn")
        return f"({a} == {self.pick(('0', '1', '3', '-1', '7'))})"

    def slot(self, fn: _Fn) -> str:
        """A private slot of the workitem: `gid * K + c`, c < K."""
        c = self.num(0, self.K - 1)
        base = self.first_slot(fn)
        return base if c == 0 else f"{base} + {c}"

    def first_slot(self, fn: _Fn) -> str:
        """The workitem's first private slot, `gid * K`."""
        return fn.gid if self.K == 1 else f"{fn.gid} * {self.K}"

    def wave(self, fn: _Fn, op: str, want: Type, sub: int) -> tuple[str, Type]:
        if want is not I32 and want is not I64:  # another integer type: exactly it
            x = self.t_expr(fn, want, sub)
            if op == "shuffle":
                return self.shuffled(fn, x, sub), want
            return self.reduced(op if op != "ballot" else "wave_sum", x), want
        if op == "readfirstlane" and self.pick((False, False, False, True)):
            # whether a value is the same in every active lane (of an integer or a bool)
            arg = self.cond(fn, sub) if self.pick((False, True)) else \
                self.int_expr(fn, want, sub, "dyn")[0]
            return f"{want}(wave_all_equal({arg}))", want
        if op == "ballot":
            c = self.cond(fn, sub)
            k = self.pick(("plain", "plain", "function", "function", "of_value"))
            if k != "plain":  # a ballot function (n.BALLOT_FUNCTIONS): of a ballot, or
                # of any i64 (bits past the wave's lanes: masked off)
                f = self.pick(n.BALLOT_FUNCTIONS)
                arg = f"ballot({c})"
                if k == "of_value":  # bits in both words: lanes 32-63 of a 64-lane wave
                    arg, _ = self.int_expr(fn, I64, sub, "dyn")
                    arg = self.pick((arg, f"(i64({arg}) << 33)", f"(ballot({c}) | {arg})",
                                     "-1"))
                got = f"i32({f}({arg}))" if f == "inverse_ballot" else f"{f}({arg})"
                return (got, I32) if want is I32 else (f"i64({got})", I64)
            if want is I64:
                return f"ballot({c})", I64
            # an i32 keeps the low word (lanes 0-31) or the high one (lanes 32-63): both
            # halves of a 64-lane ballot are observable in an i32 kernel
            half = self.pick(("", " >> 32"))
            return f"i32(ballot({c}){half})", I32
        x, tx = self.int_expr(fn, want, sub, "dyn")
        if want is I64:
            # values past 32 bits, so that a 64-bit wave operation done on 32 shows
            wide = self.pick(("", " + 4294967296", " * 2147483648"))
            if wide:
                x, tx = f"({x}{wide})", I64
        if op == "shuffle":
            return self.shuffled(fn, x, sub), tx
        return self.reduced(op, x), tx

    def reduced(self, op: str, x: str) -> str:
        """`op` of `x`; a sum, minimum or maximum is sometimes a bitwise reduction
        instead, and either sometimes over clusters of C lanes (C a power of two up to
        64: past the wave too, which is the whole wave)."""
        if op not in ("wave_sum", "wave_min", "wave_max"):
            return f"{op}({x})"
        if self.pick((False, False, True)):
            op = self.pick(n.BITWISE_REDUCTIONS)
        if self.pick((False, True)):
            return f"{op}({x}, cluster={self.pick((1, 2, 4, 4, 8, 16, 64))})"
        return f"{op}({x})"

    def shuffled(self, fn: _Fn, x: str, sub: int) -> str:
        """`x` moved between lanes: `shuffle` from a lane, a shuffle relative to the lane
        (`shuffle_xor`, `shuffle_up`, `shuffle_down`) by a constant (past the wave too),
        by the lane, or by any expression, or a quad operation."""
        k = self.pick(("shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "quad"))
        if k == "quad":  # a broadcast from the quad's lane half the time
            q = self.pick(n.QUAD_OPS)
            return f"quad_broadcast({x}, {self.num(0, 3)})" if q == "quad_broadcast" \
                else f"{q}({x})"
        if k == "shuffle":
            src = self.pick(("lane() ^ 1", "0", "lane() + 1", "expr", "lane() - 1"))
            if src == "expr":
                src, _ = self.int_expr(fn, I32, sub)
            return f"shuffle({x}, {src})"
        amount = self.pick(("1", "2", "lane()", "expr", "3", "-1" if k != "shuffle_xor"
                            else "7", "63"))
        if amount == "expr":
            amount, _ = self.int_expr(fn, I32, sub)
        return f"{k}({x}, {amount})"

    # --------------------------------------------------- other integer types (ints)

    def t_literal(self, ty: Type) -> str:
        """A literal of `ty` at one of its edges -- 0, 1, its limits and their
        neighbours, an unsigned type's values either side of its sign bit (where zero
        and sign extension part) -- written as a conversion, so it is `ty` anywhere."""
        lo, hi = int_range(ty)
        values = [0, 1, hi, lo, 7, hi - 1, lo + 1, 2]
        if ty.signed:
            values.append(-1)
        else:
            half = 1 << (ty.bits - 1)
            values += [half, half - 1, half + 1]
        return f"{ty}({self.pick(tuple(dict.fromkeys(values)))})"

    def bits_edge(self, ty: Type) -> str:
        """An integer function's operand at its edges, a third of the time each: one of
        `t_literal`'s, MIN (abs's edge; for an unsigned type another of `t_literal`'s),
        all ones (popcount's)."""
        lo, hi = int_range(ty)
        k = self.pick(("edge", "min", "ones"))
        if k == "edge" or k == "min" and not ty.signed:
            return self.t_literal(ty)
        return f"{ty}({lo if k == 'min' else -1 if ty.signed else hi})"

    def t_menu(self, fn: _Fn, ty: Type) -> tuple[str, ...]:
        key = ("t", ty, fn.nest > 0, bool(fn.ins), bool(fn.outs), bool(_arrays(fn, (ty,))))
        menu = fn.menus.get(key)
        if menu is not None:
            return menu
        on = self.on
        m = ["leaf", "+", "-", "*", "leaf", "&", "|", "^", "<<", ">>", "neg", "~", "conv",
             "conv", "conv"]
        if not ty.signed:  # where zero and sign extension part: logical shift, division
            m += [">>", ">>", "//"]
        if any(t is ty for _, t in fn.ins + fn.outs):
            m += ["load"] * 2
        if "branch" in on:
            m += ["select"]
        if "wave" in on:
            m += ["wave_sum", "wave_min", "wave_max", "readfirstlane", "shuffle",
                  "prefix_sum", "inclusive_sum"] * (2 if fn.nest else 1)
        if "div" in on or "fault_div" in on:
            m += ["//", "%", "//", "%"]
        if "bits" in on:
            m += list(_BITS)
            if not ty.signed or ty.bits == 64:  # unsigned mul_hi, a 64-bit count
                m += ["mul_hi", "popcount", "clz"]
        if key[-1]:
            m += ["array_load"] * 2
        menu = fn.menus[key] = tuple(m)
        return menu

    def rotation(self, fn: _Fn, sub: int) -> str:
        """A rotation's amount: of any integer type, masked to the width, so its edges
        are the width, 0, and values past it and below 0."""
        k = self.pick(("edge", "expr", "lane"))
        if k == "edge":
            return self.pick(("0", "1", "7", "8", "15", "16", "31", "32", "33", "63", "64",
                              "-1"))
        if k == "lane":
            return "lane()"
        return self.int_expr(fn, I32, sub)[0]

    def t_leaf(self, fn: _Fn, ty: Type) -> str:
        names = [v for v, t in fn.vars.items() if t is ty]
        k = self.pick(["lit", *names, *names, "conv", "lit"])
        if k == "lit":
            return self.t_literal(ty)
        if k == "conv":  # an i32 or i64 leaf, converted
            return f"{ty}({self.leaf(fn, I64)[0]})"
        return str(k)

    def t_expr(self, fn: _Fn, ty: Type, depth: int) -> str:
        """An expression of exactly `ty` (one of EXTRA_INTS): its arithmetic wraps at its
        width, its comparisons, division and right shift are its signedness's."""
        if depth <= 0:
            return self.t_leaf(fn, ty)
        k = self.pick(self.t_menu(fn, ty))
        sub = depth - 1
        if k == "leaf":
            return self.t_leaf(fn, ty)
        if k in _ARITH:
            if k == ">>" and not ty.signed and self.pick((False, True, True)):
                # a logical shift of a value with its top bit set: an edge literal
                return f"({self.t_literal(ty)} >> {self.t_expr(fn, ty, sub)})"
            return f"({self.t_expr(fn, ty, sub)} {k} {self.t_expr(fn, ty, sub)})"
        if k in ("neg", "~"):
            return f"({'-' if k == 'neg' else '~'}{self.t_expr(fn, ty, sub)})"
        if k == "conv":  # from another integer type: truncated, or extended by its sign
            source = self.pick((I32, I64, *self.extra))
            inner = self.int_expr(fn, source, sub)[0] if source is not ty \
                else self.t_expr(fn, ty, sub)
            return f"{ty}({inner})"
        if k in ("//", "%"):
            a = self.t_expr(fn, ty, sub)
            b = self.t_expr(fn, ty, sub)
            if "fault_div" not in self.on or self.pick((True, False)):
                b = f"({b} | {ty}(1))"  # never zero
            return f"({a} {k} {b})"
        if k == "select":
            c = self.cond(fn, sub)
            return f"({self.t_expr(fn, ty, sub)} if {c} else {self.t_expr(fn, ty, sub)})"
        if k == "load":
            mine = [(b, t) for b, t in fn.ins + fn.outs if t is ty]
            buf, _ = self.pick(mine)
            if any(b == buf for b, _ in fn.outs):
                return f"{buf}[{self.slot(fn)}]"
            return f"{buf}[{self.index(fn, buf, sub)}]"
        if k == "array_load":
            a = self.pick(_arrays(fn, (ty,)))
            return f"{a}[{self.array_index(fn, a, sub)}]"
        if k in _BITS_2:
            a = self.t_expr(fn, ty, sub)
            if self.pick((False, True)):  # an edge: the top bit, MIN, MAX
                a = self.t_literal(ty)
            return f"{k}({a}, {self.t_expr(fn, ty, sub)})"
        if k in _ROTATIONS:
            return f"{k}({self.t_expr(fn, ty, sub)}, {self.rotation(fn, sub)})"
        x = self.t_expr(fn, ty, sub)
        if k in _BITS_1 and self.pick((False, False, False, True)):
            x = self.bits_edge(ty)
        if k == "shuffle":
            return self.shuffled(fn, x, 0)
        if k in ("wave_sum", "wave_min", "wave_max"):  # bitwise and clustered ones too
            return self.reduced(k, x)
        return f"{k}({x})"

    # ------------------------------------------------------------------ f32

    def f32_menu(self, fn: _Fn) -> tuple[str, ...]:
        menu = fn.menus.get("f32")
        if menu is not None:
            return menu
        m = ["leaf", "+", "-", "*", "leaf", "load", "load", "fma", "min", "max", "neg", "abs",
             "from_int", "mul_add", "mul_add"]
        if self.fl is F64:  # through f32 and back: the rounding of a narrowing
            m += ["narrow", "narrow"]
        if "branch" in self.on:
            m += ["select"]
        if "wave" in self.on:
            m += ["wave_min", "wave_max", "readfirstlane", "shuffle"] * (2 if fn.nest else 1)
        menu = fn.menus["f32"] = tuple(m)
        return menu

    def flit(self, text: str) -> str:
        """A float literal of the kernel's float type (`f64(0.5)` for an f64)."""
        return f"f64({text})" if self.fl is F64 else text

    def f32_leaf(self, fn: _Fn) -> str:
        menu = ["0.0", *fn.floats(), *fn.floats(), "load", "const", "1.0", "from_int"]
        k = self.pick(menu)
        if k == "const":
            return self.flit(self.pick(_F64_CONSTS if self.fl is F64 else _F32_CONSTS))
        if k == "load":
            return self.f32_load(fn, 0)
        if k == "from_int":
            return self.from_int(self.leaf(fn, I64)[0])
        if k in ("0.0", "1.0"):
            return self.flit(k)
        return k

    def f32_load(self, fn: _Fn, sub: int) -> str:
        buf = self.pick(fn.fins)
        if fn.fouts and self.pick(("in", "in", "out")) == "out":
            return f"{self.pick(fn.fouts)}[{self.slot(fn)}]"
        return f"{buf}[{self.index(fn, buf, sub)}]"

    def f32_expr(self, fn: _Fn, depth: int) -> str:
        """An f32 expression (the kernel's f32 buffers and variables, conversions of
        integers, fma/min/max/abs, the wave operations whose result is exact)."""
        if depth <= 0:
            return self.f32_leaf(fn)
        k = self.pick(self.f32_menu(fn))
        sub = depth - 1
        if k == "leaf":
            return self.f32_leaf(fn)
        if k in _F32_OPS:
            return f"({self.f32_expr(fn, sub)} {k} {self.f32_expr(fn, sub)})"
        if k == "mul_add":  # a * b + c: two roundings, the shape contraction changes
            a, b, c = (self.f32_expr(fn, sub) for _ in range(3))
            return f"({a} * {b} + {c})"
        if k == "load":
            return self.f32_load(fn, sub)
        if k == "fma":
            return f"fma({self.f32_expr(fn, sub)}, {self.f32_expr(fn, sub)}, " \
                   f"{self.f32_expr(fn, sub)})"
        if k in ("min", "max"):
            if self.pick((False, True)):  # NaN against a number, -0.0 against 0.0
                return "{}({}, {})".format(k, *self.special_pair(fn))
            return f"{k}({self.f32_expr(fn, sub)}, {self.f32_expr(fn, sub)})"
        if k == "neg":
            return f"(-{self.f32_expr(fn, sub)})"
        if k == "abs":
            return f"abs({self.f32_expr(fn, sub)})"
        if k == "from_int":
            return self.from_int(self.int_expr(fn, I64, sub)[0])
        if k == "narrow":
            return f"f64(f32({self.narrowed(fn, sub)}))"
        if k == "select":
            c = self.cond(fn, sub)
            return f"({self.f32_expr(fn, sub)} if {c} else {self.f32_expr(fn, sub)})"
        x = self.f32_expr(fn, sub)
        if k == "shuffle":
            return self.shuffled(fn, x, 0)
        return f"{k}({x})"

    def narrowed(self, fn: _Fn, sub: int) -> str:
        """The f64 operand of a narrowing to f32: often at f32's edges -- a constant
        there, or a loaded value scaled into f32's subnormal range -- since an f64
        drawn as usual lands below f32's smallest normal about once in 500 kernels."""
        k = self.pick(("expr", "expr", "edge", "scaled"))
        if k == "edge":
            return f"f64({self.pick(_NARROW_EDGES)})"
        if k == "scaled":
            return f"({self.f32_load(fn, sub)} * f64(1e-40))"
        return self.f32_expr(fn, sub)

    def from_int(self, x: str) -> str:
        """An i64 converted to the float type; one time in four with the bits just past
        the float's exact integers set (2^24 + 1, 2^53 + 1), so that the conversion
        rounds, which an i64 drawn as usual seldom needs."""
        if self.pick((False, False, False, True)):
            x = f"({x} | {'9007199254740993' if self.fl is F64 else '16777217'})"
        return f"{self.fl}({x})"

    def special_pair(self, fn: _Fn) -> tuple[str, str]:
        """Two operands for a comparison or min/max, each often an edge value; one time
        in four the two zeros of opposite signs and one in four a NaN against another,
        which two independent draws seldom are."""
        k = self.pick(("zeros", "nan", "any", "any"))
        if k == "any":
            return self.f32_special(fn), self.f32_special(fn)
        if k == "zeros":
            a, b = self.flit("0.0"), self.flit("-0.0")
        else:
            a, b = self.f32_special(fn, "nan"), self.f32_special(fn)
        return (a, b) if self.pick((False, True)) else (b, a)

    def f32_special(self, fn: _Fn, k: str = "") -> str:
        """An f32 operand that is often an edge value: an input element (the inputs carry
        NaN, the infinities, the zeros, subnormals), a signed zero, or an infinity or NaN
        computed from constants (what constant folding must get right too); `k` "nan":
        that NaN."""
        k = k or self.pick(("load", "load", "zero", "-zero", "inf", "nan", "leaf"))
        if k == "load":
            return self.f32_load(fn, 0)
        big, two, zero = self.flit(_FLOAT_MAX[self.fl]), self.flit("2.0"), self.flit("0.0")
        if k in ("zero", "-zero"):
            return self.flit("0.0" if k == "zero" else "-0.0")
        if k == "inf":
            return self.pick((f"({big} * {two})", f"(-{big} * {two})"))
        if k == "nan":
            return f"(({big} * {two}) * {zero})"
        return self.f32_leaf(fn)

    def to_int(self, fn: _Fn, want: Type, sub: int) -> str:
        """An f32 converted to an integer: raw (NaN and values past the type fault) only
        where conversion faults are on, else clamped first (a NaN loses to the bound),
        sometimes to the type's limits themselves (the last f32 that fits, and MIN)."""
        x = self.f32_expr(fn, sub)
        if "fault_convert" not in self.on:
            limits = _F64_LIMITS if self.fl is F64 else _F32_LIMITS
            lo, hi = ((_F32_CLAMP, _F32_CLAMP) if self.pick((False, True)) else
                      limits[want is I64])
            x = f"min(max({x}, {self.flit('-' + lo)}), {self.flit(hi)})"
        return f"{'i64' if want is I64 else 'i32'}({x})"

    def f32_checksum(self, fn: _Fn) -> str:
        """The readable f32 locals folded into one f32 (each scaled apart), or ''."""
        names = fn.floats()
        return " + ".join(v if i == 0 else f"{v} * {self.flit(f'{2 * i + 1}.0')}"
                          for i, v in enumerate(names))

    def bool_menu(self, fn: _Fn) -> tuple[str, ...]:
        menu = fn.menus.get("bool")
        if menu is not None:
            return menu
        m = list(_CMP)
        if "logic" in self.on:
            m += ["and", "or", "and", "or", "not", "flag"]
            if "h0" in fn.calls:
                m += ["and_call"] * 3
        if "wave" in self.on:
            m += ["wave_any", "wave_all"] * 3 + ["rfl"] * 2 + ["elect"] * 2 \
                + ["all_equal"] * 2
        if fn.fins:
            m += ["fcmp"] * 3
        if self.extra:
            m += ["tcmp"] * 3  # unsigned comparisons among them
        menu = fn.menus["bool"] = tuple(m)
        return menu

    def cond(self, fn: _Fn, depth: int) -> str:
        k = self.pick(self.bool_menu(fn))
        sub = max(0, depth - 1)
        if k in _CMP:
            a, _ = self.int_expr(fn, I64, sub, "dyn")
            b, _ = self.int_expr(fn, I64, sub, "small")
            return f"({a} {k} {b})"
        if k == "fcmp":  # IEEE: false with a NaN, except !=
            if self.pick((False, True)):  # edge against edge: NaN, infinities, two zeros
                a, b = self.special_pair(fn)
                return f"({a} {self.pick(_CMP)} {b})"
            a = self.f32_expr(fn, sub)
            return f"({a} {self.pick(_CMP)} {self.f32_expr(fn, 0)})"
        if k == "tcmp":
            ty = self.pick(self.extra)
            return f"({self.t_expr(fn, ty, sub)} {self.pick(_CMP)} {self.t_expr(fn, ty, 0)})"
        if depth <= 0 and k not in ("flag",):
            # no room for nesting: a comparison of two leaves
            a, _ = self.leaf(fn, I64, "dyn")
            return f"({a} {self.pick(_CMP)} {self.leaf(fn, I64, 'small')[0]})"
        if k in ("and", "or"):
            return f"({self.cond(fn, sub)} {k} {self.cond(fn, sub)})"
        if k == "not":
            return f"(not {self.cond(fn, sub)})"
        if k == "flag":
            bools = [v for v, t in fn.vars.items() if t is BOOL]
            return self.pick(bools) if bools else "True"
        if k == "rfl":
            return f"readfirstlane({self.cond(fn, sub)})"
        if k == "all_equal":  # whether a value is one value across the active lanes
            arg = self.int_expr(fn, I32, sub, "dyn")[0] if self.pick((True, True, False)) \
                else self.cond(fn, sub)
            return f"wave_all_equal({arg})"
        if k == "elect":
            return "elect()"
        if k == "and_call":
            call, _ = self.call(fn, sub)
            return f"({self.cond(fn, sub)} {self.pick(('and', 'or'))} ({call} > 0))"
        return f"{k}({self.cond(fn, sub)})"

    # ------------------------------------------------------------ statements

    def stmt_menu(self, fn: _Fn) -> tuple[str, ...]:
        """Statement productions for where `fn` is now, simplest first (repeats are
        weights)."""
        key = ("stmt", fn.loops > 0, fn.loops < fn.max_loops, fn.nest, bool(fn.locals),
               len(fn.outs), len(fn.ins), bool(_private(fn)), fn.no_continue > 0,
               bool(fn.floats()), any(fn.vars.get(v) in self.extra for v in fn.locals),
               bool(_arrays(fn)))
        menu = fn.menus.get(key)
        if menu is not None:
            return menu
        on = self.on
        m = ["assign", "assign"]
        if "i64" in on:
            m += ["assign64", "assign64"]
        if fn.locals:
            # more under divergence: a masked def of a value the other lanes still hold
            m += ["reassign"] * (4 if fn.nest else 2)
        if fn.outs:
            m += ["store", "rmw", "rmw"]
        if fn.accs:
            m += ["atomic", "atomic"]
        if "returning" in on and (fn.accs or fn.is_kernel):
            m += ["ratomic"] * 6
        if "branch" in on and fn.nest < fn.max_nest:
            m += ["if", "if", "ifelse", "ifelse", "match"]
            if fn.loops or not fn.is_kernel:  # where a case can leave: its loop, a helper
                m += ["match"] * 5
        if fn.loops < fn.max_loops and fn.nest < fn.max_nest:
            if "loop" in on:
                m += ["for"] * (7 if fn.loops else 5)
            if "while" in on:
                m += ["while"] * (5 if fn.loops else 4)
        if fn.loops:
            m += ["break"] * 2 + (["continue"] * 2 if not fn.no_continue else [])
        if "return" in on:
            m += ["return"] * 3
            if "wave" in on and (fn.returns is not None or fn.is_kernel):
                # 003's call-return form: whole-wave code after some lanes returned
                m += ["return_wave"] * 2
        if "wave" in on:
            # More under divergence: that is where wave operations go wrong.
            m += ["wave_assign"] * (5 if fn.nest else 3)
        if "logic" in on:
            m.append("assign_bool")
        if self.extra:
            m += ["tassign"] * 3
            if any(fn.vars.get(v) in self.extra for v in fn.locals):
                m += ["treassign"] * (3 if fn.loops else 1)
        if fn.fins:
            # a float carried round a loop: reassigned more inside loops
            m += ["fassign"] * 3 + (["freassign"] * (8 if fn.loops else 1) if fn.floats()
                                    else [])
            if "fault_convert" in on:
                m += ["plant_convert"] * 3
            if fn.fouts:
                m += ["fstore", "fstore"]
        if "arrays" in on:
            m += ["array_decl"] * (1 if key[-1] else 3)
            if key[-1]:
                m += ["array_store"] * (6 if fn.nest else 4) + ["array_fill", "array_decl"]
        if "fault_fail" in on:
            m += ["fail", "fail", "plant_fail", "plant_fail", "plant_fail"]
        if "fault_div" in on:
            m += ["plant_div"] * 2
        if "fault_oob" in on and fn.outs:
            m += ["oob_store", "plant_oob"]
        if "hv" in fn.calls:
            m += ["call_void"] * 5
        if "h0" in fn.calls:
            m += ["call_assign"] if fn.is_kernel else ["call_assign"] * 3
        if "memory" in on and fn.is_kernel:
            m += ["alias", "alias"]
        if "alloc" in on and fn.is_kernel and not fn.loops:
            # not in loops: every alloc() that does not fit moves the whole pool, so a
            # launch's cost grows with the square of its allocations
            m += ["alloc"] * 2
            if _private(fn):
                m += ["alloc_store"] * 3
        menu = fn.menus[key] = tuple(m)
        return menu

    def block(self, fn: _Fn, pad: str, lo: int, hi: int, scoped: bool = True,
              required: tuple[str, ...] = ()) -> list[str]:
        """lo..hi statements (down to lo when the budget runs out, then only simple
        ones). `required` statement kinds appear at least once: a required kind not
        drawn by the time only as many positions are left is put there without a draw.
        Names assigned in a `scoped` block go out of scope after it; a function's own
        body is not scoped, so what it computes stays readable by its final statement."""
        saved = fn.scope()
        lines: list[str] = []
        need = list(required)
        count = self.num(max(lo, len(need)), max(hi, len(need)))
        for i in range(count):
            if self.budget <= 0 and i >= lo and not need:
                break
            self.budget -= 1
            if need and count - i <= len(need):
                kind: str | None = need[0]
            elif self.budget <= 0:
                kind = "assign"  # a compound statement needs budget left for its body
            else:
                kind = None
            if kind is None:
                kind = self.pick(self.stmt_menu(fn))
            lines += self.stmt(fn, pad, kind)
            if kind in need:
                need.remove(kind)
        if scoped:
            lines += self.keep_scoped(fn, pad, saved[0])
            fn.restore(saved)
        return lines or [f"{pad}pass"]

    def keep_scoped(self, fn: _Fn, pad: str, before: dict[str, Type]) -> list[str]:
        """The integer values a scoped block computed, added to the workitem's first
        slot before they go out of scope. A value computed in a branch or a loop body
        and read by nothing after it shows nowhere: a compiler that gets it wrong there
        would not be seen (CLsmith's checksum reads every variable for this reason).
        Nothing is drawn: the fold is the block's, and the draws of every kernel stay
        what they were."""
        names = {v: t for v, t in fn.vars.items() if v not in before and _foldable(t)}
        if not names or not fn.outs or fn.outs[0][1] not in (I32, I64):
            return []
        buf, slot = fn.outs[0][0], self.first_slot(fn)
        return [f"{pad}{buf}[{slot}] = {buf}[{slot}] + {_fold(names)}"]

    def new_var(self, fn: _Fn, ty: Type) -> str:
        name = self.name("x")
        fn.vars[name] = ty
        if ty is not BOOL:
            fn.locals.append(name)
        return name

    def stmt(self, fn: _Fn, pad: str, kind: str | None = None) -> list[str]:
        """One statement of a kind `stmt_menu` offers (or `kind`), as source lines."""
        k = kind or self.pick(self.stmt_menu(fn))
        return _STATEMENTS[k](self, fn, pad, k)

    def _s_assign(self, fn: _Fn, pad: str, k: str) -> list[str]:
        want = I32 if k == "assign" else I64
        value, ty = self.int_expr(fn, want, 2)
        if k == "assign64" and (ty is I32 or self.fresh % 2):
            # declared: an i32 value widened into an i64 variable (or spelled out)
            return [f"{pad}{self.new_var(fn, I64)}: i64 = {value}"]
        return [f"{pad}{self.new_var(fn, ty)} = {value}"]

    def _s_reassign(self, fn: _Fn, pad: str, k: str) -> list[str]:
        name = self.pick(fn.locals)
        ty = fn.vars[name]
        others = [v for v, t in fn.vars.items()
                  if v != name and (t is I32 or (t is I64 and ty is I64)
                                    if ty is I32 or ty is I64 else t is ty)]
        if others and self.pick(("expr", "mix")) == "mix":
            # a masked def that does not read the old value, of other live values:
            # under register pressure its operands are reloaded between the reload
            # that carries the inactive lanes' old value and the def itself
            a, b = self.pick(others), self.pick(others)
            return [f"{pad}{name} = {a} {self.pick(_ARITH[:3] + _ARITH[4:6])} {b}"]
        value, _ = self.int_expr(fn, ty, 2)
        return [f"{pad}{name} = {value}"]

    def _s_tassign(self, fn: _Fn, pad: str, k: str) -> list[str]:
        """A variable of another integer type (declared: `x: u8 = ...`), or one
        reassigned (under divergence, a masked def of a narrow value)."""
        if k == "treassign":
            name = self.pick([v for v in fn.locals if fn.vars.get(v) in self.extra])
            return [f"{pad}{name} = {self.t_expr(fn, fn.vars[name], 2)}"]
        ty = self.pick(self.extra)
        value = self.t_expr(fn, ty, 2)
        return [f"{pad}{self.new_var(fn, ty)}: {ty} = {value}"]

    # --------------------------------------------------------- private arrays

    def array_index(self, fn: _Fn, a: str, sub: int) -> str:
        """An index into private array `a`: mostly within it and different per lane (a
        compiler keeping the array in registers selects by it), a constant, or (with
        fault_oob) anything."""
        length = fn.lengths[a]
        kinds = ["lane", "gid", "mask", "const", "mask"]
        if "fault_oob" in self.on:
            kinds += ["raw"]
        k = self.pick(tuple(kinds))
        if k == "lane":
            return f"(lane() + {self.num(0, length)}) % {length}"
        if k == "gid":
            return f"{fn.gid} % {length}"
        if k == "const":
            return str(self.num(0, length - 1))
        e = self.int_expr(fn, I32, sub)[0]
        if k == "raw":
            return e
        if length & (length - 1) == 0:  # a power of two: two's complement keeps it in
            return f"({e}) & {length - 1}"
        return f"(({e}) & 255) % {length}"

    def _element(self) -> Type:
        return self.pick((I32, I32) + ((I64,) if "i64" in self.on else ()) + self.extra)

    def _array_value(self, fn: _Fn, ty: Type) -> str:
        return self.int_expr(fn, ty, 2)[0] if ty in (I32, I64) else self.t_expr(fn, ty, 2)

    def _s_array(self, fn: _Fn, pad: str, k: str) -> list[str]:
        """A private array declared (or declared again: zero again), stored into, or
        filled by a loop over its length."""
        if k == "array_decl":
            mine = _arrays(fn)
            if mine and self.pick((False, True)):  # again, as it was
                a = self.pick(mine)
                return [f"{pad}{a}: Array[{fn.vars[a].element}, {fn.lengths[a]}]"]
            ty, length = self._element(), self.pick((4, 8, 2, 1, 3, 16, 5, 32))
            a = self.name("a")
            fn.vars[a] = private_of(ty)
            fn.lengths[a] = length
            return [f"{pad}{a}: Array[{ty}, {length}]"]
        a = self.pick(_arrays(fn))
        ty = fn.vars[a].element
        if k == "array_store":
            index = self.array_index(fn, a, 1)
            return [f"{pad}{a}[{index}] = {self._array_value(fn, ty)}"]
        var = self.name("k")  # array_fill
        saved = fn.scope()
        fn.vars[var] = I32
        value = self._array_value(fn, ty)
        fn.restore(saved)
        return [f"{pad}for {var} in range({fn.lengths[a]}):", f"{pad}    {a}[{var}] = {value}"]

    def _s_fassign(self, fn: _Fn, pad: str, k: str) -> list[str]:
        value = self.f32_expr(fn, 2)
        if k == "freassign":  # a loop-carried float, under divergence a masked def
            name = self.pick(fn.floats())
            return [f"{pad}{name} = {value}"]
        name = self.name("f")
        fn.vars[name] = self.fl
        return [f"{pad}{name} = {value}"]

    def _s_fstore(self, fn: _Fn, pad: str, k: str) -> list[str]:
        out, slot = self.pick(fn.fouts), self.slot(fn)
        return [f"{pad}{out}[{slot}] = {out}[{slot}] * {self.f32_expr(fn, 1)} + "
                f"{self.f32_expr(fn, 1)}"]

    def _s_assign_bool(self, fn: _Fn, pad: str, k: str) -> list[str]:
        c = self.cond(fn, 1)
        return [f"{pad}{self.new_var(fn, BOOL)} = {c}"]

    def _s_wave_assign(self, fn: _Fn, pad: str, k: str) -> list[str]:
        op = self.pick(_INT_WAVE)
        value, ty = self.wave(fn, op, I64 if "i64" in self.on else I32, 1)
        return [f"{pad}{self.new_var(fn, ty)} = {value}"]

    def _s_call_assign(self, fn: _Fn, pad: str, k: str) -> list[str]:
        if "branch" in self.on and self.pick(("plain", "select")) == "select":
            value, ty = self.select_call(fn, I32, 1)
        else:
            value, ty = self.call(fn, 1)
        return [f"{pad}{self.new_var(fn, ty)} = {value}"]

    def _s_store(self, fn: _Fn, pad: str, k: str) -> list[str]:
        buf, ty = self.pick(fn.outs)
        slot = self.slot(fn)
        value, _ = self.int_expr(fn, ty, 2 if k == "store" else 1)
        if k == "store":
            return [f"{pad}{buf}[{slot}] = {value}"]
        op = self.pick(("+", "^", "-", "*"))
        return [f"{pad}{buf}[{slot}] = {buf}[{slot}] {op} {value}"]

    def _s_atomic(self, fn: _Fn, pad: str, k: str) -> list[str]:
        buf, ty = self.pick(fn.accs)
        idx = self.index(fn, buf, 1)
        value, _ = self.int_expr(fn, ty, 1)
        return [f"{pad}atomic_add({buf}, {idx}, {value})"]

    def _s_ratomic(self, fn: _Fn, pad: str, k: str) -> list[str]:
        """An atomic that returns: on an "acc" buffer, any operation, its old value a new
        variable; the counter's add, its old value the slot of `lst` the lane writes;
        an unsigned one on `uacc`, its old value converted back."""
        shapes = (["op", "op", "op"] if fn.accs else []) + (
            ["counter", "unsigned"] if fn.is_kernel else [])
        shape = self.pick(tuple(shapes))
        if shape == "counter":
            # one lane's slot per returned value: every add to the counter is >= 1
            step = self.pick(("1", "1", "dyn"))
            if step == "dyn":
                step = f"(({self.int_expr(fn, I32, 1)[0]}) & 3) + 1"
            value = self.int_expr(fn, I32, 1)[0]
            v = self.new_var(fn, I32)
            return [f"{pad}{v} = atomic_add(ctr, 0, {step})",
                    f"{pad}if {v} >= 0 and {v} < len(lst):",
                    f"{pad}    lst[{v}] = {value}"]
        op = self.pick(_RETURNING_OPS)
        if shape == "unsigned":
            buf, ty = "uacc", U32
            op = self.pick(("min", "max", op))
        else:
            buf, ty = self.pick(fn.accs)
        idx = self.index(fn, buf, 1)
        args: list[str] = []
        for _ in range(2 if op == "compare_exchange" else 1):
            if op == "compare_exchange" and not args and self.pick((True, False)):
                args.append(self.pick(("0", "1")))  # what a location often holds
                continue
            e = self.int_expr(fn, I32 if shape == "unsigned" else ty, 1)[0]
            args.append(f"u32({e})" if shape == "unsigned" else e)
        call = f"atomic_{op}({buf}, {idx}, {', '.join(args)})"
        if shape == "unsigned":
            u = self.name("ru")
            v = self.new_var(fn, I32)
            return [f"{pad}{u} = {call}", f"{pad}{v} = i32({u})"]
        return [f"{pad}{self.new_var(fn, ty)} = {call}"]

    def _s_if(self, fn: _Fn, pad: str, k: str) -> list[str]:
        c = self.cond(fn, 2)
        fn.nest += 1
        lines = [f"{pad}if {c}:"] + self.block(fn, pad + "    ", 1, 3)
        if k == "ifelse":
            lines += [f"{pad}else:"] + self.block(fn, pad + "    ", 1, 3)
        fn.nest -= 1
        return lines

    def _s_match(self, fn: _Fn, pad: str, k: str) -> list[str]:
        """A `match` of a fresh variable holding a small value (per lane, per wave, or
        of anything), 2-4 cases of one or two values each, a default sometimes: the
        lanes split over several arms at once, as a switch splits them."""
        subject = self.pick((f"{fn.gid} % 4", "lane() % 3", "wave() % 2", "lane() // 2",
                             "expr"))
        if subject == "expr":
            subject = f"({self.int_expr(fn, I32, 1)[0]}) % 4"
        var = self.new_var(fn, I32)  # (after its value: which must not read it)
        lines = [f"{pad}{var} = {subject}", f"{pad}match {var}:"]
        values = [v for v in (0, 1, 2, 3, -1, 5) if self.pick((True, True, False))]
        values = values or [0]
        if self.pick((False, False, True)):
            # a value the i32 cannot hold, which never matches: one that wraps to a value
            # it does hold (the one it replaces) if a switch label is spelled in 32 bits
            at = self.num(0, len(values) - 1)
            values[at] += 1 << 32
        # a case some lanes leave (the loop, or their function): they rejoin where they
        # went, not after the match (SPV_KHR_maximal_reconvergence)
        exits = (["break"] if fn.loops else []) + (
            ["continue"] if fn.loops and not fn.no_continue else []) + (
            ["return"] if "return" in self.on or not fn.is_kernel else [])
        fn.nest += 1
        while values:
            take = values[:self.pick((1, 1, 2))]
            values = values[len(take):]
            lines += [f"{pad}    case {' | '.join(map(str, take))}:"] + self.block(
                fn, pad + "        ", 1, 3)
            if exits and self.pick((False, True)):
                # the case's lanes leave: all of them, or those a condition picks
                exit_lines = self.stmt(fn, pad + "        ", self.pick(tuple(exits)))
                if self.pick((True, False)) and exit_lines[0].lstrip().startswith("if "):
                    exit_lines = [line[4:] for line in exit_lines[1:]]
                lines += exit_lines
        if self.pick((False, True)):
            lines += [f"{pad}    case _:"] + self.block(fn, pad + "        ", 1, 2)
        fn.nest -= 1
        return lines

    def _s_while(self, fn: _Fn, pad: str, k: str) -> list[str]:
        return self.while_loop(fn, pad)

    def _s_for(self, fn: _Fn, pad: str, k: str) -> list[str]:
        var = self.name("k")
        start, stop = self.pick(_SMALL_BOUNDS if fn.small else _BOUNDS)
        if stop == "len":
            stop = f"len({fn.accs[0][0]})" if fn.accs else "3"
        if stop == "s" and "s" not in fn.vars:
            stop = "2"
        start = self.lane_bound(fn) if start == "lane" else start
        stop = self.lane_bound(fn) if stop == "lane" else stop
        vty = I32
        if U64 in self.extra and self.pick((False, False, True)):
            # u64 bounds on both sides of 2^63 (a few trips, by lane), or above it with a
            # small stop (none): compared as signed, the first run none, the second on
            vty, start = U64, f"u64({2**63 - 2}) + u64(lane() % 3)"
            stop = self.pick((f"{2**63} + u64(lane() % 2)", "u64(lane() % 3)"))
            if stop.startswith("u64"):
                start = f"{2**63} + u64(lane() % 3)"
        # Sometimes the loop variable exists before the loop and is read after it
        # (Python: an empty range keeps its value, otherwise it holds the last trip's).
        keep = vty is I32 and self.pick((False, True))
        before = [f"{pad}{var} = {self.int_expr(fn, I32, 0)[0]}"] if keep else []
        fn.nest += 1
        fn.loops += 1
        saved = fn.scope()
        fn.vars[var] = vty
        lines = before + [f"{pad}for {var} in range({start}, {stop}):"]
        # Most loops get an early exit under a condition first, so the rest of the
        # body (and its wave operations) runs for fewer lanes in later trips.
        exit_kind = self.pick(("none", "break", "continue", "break", "continue"))
        # and often a wave operation after that exit: the lanes that took it wait
        after: tuple[str, ...] = ()
        carried = [v for v in fn.locals if fn.vars.get(v) in (I32, I64)]
        redefined = None
        if exit_kind == "continue" and carried and fn.outs and "dead" in self.on \
                and self.pick((False, True, True)):
            # 003's loop form by `continue`: a value read each trip, then the lanes that
            # continue wait with it while the others redefine it by whole-wave code (a
            # wave operation, or a uniform constant: written to every lane); dead after
            # the loop (feature `dead`), only the continue point keeps it
            redefined = self.pick(carried)
            ty = fn.vars[redefined]
            buf, bty = self.pick(fn.outs)
            slot, inner = self.slot(fn), pad + "    "
            read = _fit(redefined, ty, bty)
            lines += [f"{inner}{buf}[{slot}] = {buf}[{slot}] + {read}"]
            lines += self.stmt(fn, inner, "continue")
            fn.vars.pop(redefined)
            if "wave" in self.on and self.pick((False, True)):
                value, _ = self.wave(fn, self.pick(_INT_WAVE), ty, 1)
            else:
                value = self.pick(_I32_CONSTS[:7])
            fn.vars[redefined] = ty
            lines += [f"{inner}{redefined} = {value}"]
        elif exit_kind == "break" and fn.outs and "dead" in self.on \
                and self.pick((False, True, True)):
            # the same by `break`: a value from before the loop (a local, or one made for
            # it there, in scope nowhere else) read only on the arm that leaves it, so
            # live over the back edge for the lanes that break on a later trip, and dead
            # after the loop (feature `dead`); the rest of the body does not read it
            if carried:
                redefined = self.pick(carried)
                ty = fn.vars.pop(redefined)
                fn.locals = [v for v in fn.locals if v != redefined]
            else:
                fn.vars.pop(var)  # not the loop's variable: it is set only in the loop
                value, ty = self.int_expr(fn, I32, 1)
                fn.vars[var] = vty
                redefined = self.name("x")
                lines.insert(len(before), f"{pad}{redefined} = {value}")
            buf, bty = self.pick(fn.outs)
            slot, inner = self.slot(fn), pad + "    "
            read = _fit(redefined, ty, bty)
            lines += [f"{inner}if {self.cond(fn, 1)}:",
                      f"{inner}    {buf}[{slot}] = {buf}[{slot}] + {read}", f"{inner}    break"]
            if "wave" in self.on and self.pick((False, True)):
                after = ("wave_assign",)
        elif exit_kind != "none":
            lines += self.stmt(fn, pad + "    ", exit_kind)
            if "wave" in self.on and self.pick((False, True)):
                after = ("wave_assign",)
        lines += self.block(fn, pad + "    ", 1, 4, required=after)
        if (fn.is_kernel and "s" in fn.vars and not fn.small
                and self.pick((False, False, True))):
            lines.append(f"{pad}    s = s - 1")  # a bound changing inside its loop
        fn.restore(saved)
        if keep:
            fn.vars[var] = I32
        fn.loops -= 1
        fn.nest -= 1
        return lines + self.kill_after(fn, pad, lines, keep=(var,), dead=redefined)

    def _s_exit(self, fn: _Fn, pad: str, k: str) -> list[str]:
        c = self.rare_cond(fn) if k == "fail" else self.cond(fn, 1)
        if k == "fail":
            code = self.pick(("1", "2", fn.gid, "expr"))
            if code == "expr":
                code = self.int_expr(fn, I32, 1)[0]
            return [f"{pad}if {c}:", f"{pad}    fail({code})"]
        if k == "return" and fn.returns is not None:
            value, _ = self.int_expr(fn, fn.returns, 1)
            return [f"{pad}if {c}:", f"{pad}    return {self.folded(fn, value)}"]
        if k == "return" and fn.is_kernel:
            # every exit of the kernel leaves the workitem's witness
            return [f"{pad}if {c}:", *self.witness(fn, pad + "    "),
                    f"{pad}    return"]
        if "dead" in self.on and fn.outs and self.pick((False, True)):
            # a value whose last use is on the way out of the loop (or to its next
            # trip): read by no other statement (it is not put in scope)
            buf, ty = self.pick(fn.outs)
            value, vty = self.int_expr(fn, ty, 1)
            name, slot = self.name("x"), self.slot(fn)
            return [f"{pad}{name} = {value}", f"{pad}if {c}:",
                    f"{pad}    {buf}[{slot}] = {buf}[{slot}] + {name}", f"{pad}    {k}"]
        return [f"{pad}if {c}:", f"{pad}    {k}"]

    def _s_return_wave(self, fn: _Fn, pad: str, k: str) -> list[str]:
        # The lanes that return wait with their value at the call's return point (or,
        # in the kernel, are done) while the others run whole-wave code: a wave
        # operation's all-lane writes, and (reduce=tree) its all-lane reads of
        # registers the returned lanes' last statements may have reused
        lines = self.stmt(fn, pad, "return")
        if self.pick((False, False, True)):  # a vote after it: elect() is drawn in conditions
            fn.nest += 1
            body = self.block(fn, pad + "    ", 1, 1)
            fn.nest -= 1
            return lines + [f"{pad}if elect():"] + body
        return lines + self.stmt(fn, pad, "wave_assign")

    def _s_plant_fail(self, fn: _Fn, pad: str, k: str) -> list[str]:
        # SimpleDeopt-style: exactly one workitem faults, whatever the inputs.
        victim = self.num(0, 12)
        return [f"{pad}if {fn.gid} == {victim}:", f"{pad}    fail({victim + 100})"]

    def _s_plant_convert(self, fn: _Fn, pad: str, k: str) -> list[str]:
        """A conversion that faults for one workitem: of NaN (infinity times zero), of
        an infinity, or of a value past the integer type."""
        big, two = self.flit(_FLOAT_MAX[self.fl]), self.flit("2.0")
        bad = self.pick((f"{big} * {two} * {self.flit('0.0')}", self.flit("3000000000.0"),
                         f"-{big} * {two}", self.flit("-2147483904.0")))
        value = self.f32_expr(fn, 1)
        cond = f"{fn.gid} == {self.num(0, 12)}"
        return [f"{pad}{self.new_var(fn, I32)} = i32(({bad}) if {cond} else {value})"]

    def _s_plant_div(self, fn: _Fn, pad: str, k: str) -> list[str]:
        value, ty = self.int_expr(fn, I32, 1)
        return [f"{pad}{self.new_var(fn, ty)} = {value} // ({fn.gid} - {self.num(0, 12)})"]

    def _s_oob_store(self, fn: _Fn, pad: str, k: str) -> list[str]:
        buf, ty = self.pick(fn.outs)
        if k == "oob_store":
            c = self.rare_cond(fn)
        else:
            c = f"{fn.gid} == {self.num(0, 12)}"
        value, _ = self.int_expr(fn, ty, 1)
        return [f"{pad}{buf}[{self.slot(fn)} + (len({buf}) if {c} else 0)] = {value}"]

    def _s_call_void(self, fn: _Fn, pad: str, k: str) -> list[str]:
        self.called(fn, "hv")
        buf = self.pick([b for b, t in fn.outs if t is self.hv_out])
        v, _ = self.int_expr(fn, I32, 1)
        inbuf = self.pick([b for b, t in fn.ins if t is I32])
        acc = f", {fn.accs[0][0]}" if self.hv_acc else ""
        return [f"{pad}hv({buf}, {v}, {inbuf}{acc})"]

    def _s_alloc(self, fn: _Fn, pad: str, k: str) -> list[str]:
        # a private buffer, at least one element (so `% len(p)` never divides by 0);
        # readable like an input, writable by its owner alone
        size, _ = self.int_expr(fn, I32, 1, "dyn")
        name = self.name(_PRIVATE)
        fn.ins.append((name, I32))
        return [f"{pad}{name} = alloc(({size} & 7) + 1)"]

    def _s_alloc_store(self, fn: _Fn, pad: str, k: str) -> list[str]:
        buf = self.pick(_private(fn))
        value, _ = self.int_expr(fn, I32, 1)
        return [f"{pad}{buf}[{self.index(fn, buf, 1)}] = {value}"]

    def _s_alias(self, fn: _Fn, pad: str, k: str) -> list[str]:
        # A buffer reference in a local: the role (and privacy) goes with it.
        role = self.pick(("out", "in"))
        pool = fn.outs if role == "out" else fn.ins
        buf, ty = self.pick(pool)
        alias = self.name("o" if role == "out" else "b")
        pool.append((alias, ty))
        return [f"{pad}{alias} = {buf}"]

    # --------------------------------------------------------------- kernel

    def kernel(self, out_ty: Type, acc_ty: Type) -> tuple[str, tuple[BufferSpec, ...],
                                                          tuple[ScalarSpec, ...]]:
        on = self.on
        wide = "i64" in on
        bufs = [BufferSpec("inp", "i32", "in")]
        if wide:
            bufs.append(BufferSpec("wide", "i64", "in"))
        bufs.append(BufferSpec("out", str(out_ty), "out", self.K))
        if wide:
            bufs.append(BufferSpec("out2", "i64" if out_ty is I32 else "i32", "out", self.K))
        if "atomic" in on or "returning" in on:
            bufs.append(BufferSpec("acc", str(acc_ty), "acc"))
        if "returning" in on:
            bufs += [BufferSpec("ctr", "i32", "acc"), BufferSpec("lst", "i32", "list"),
                     BufferSpec("uacc", "u32", "acc")]
        if "f32" in on:
            bufs += [BufferSpec("fin", str(self.fl), "in"),
                     BufferSpec("fout", str(self.fl), "out", self.K)]
        scalars = [ScalarSpec("s", "i32", -1, MAX_LOOP)]
        if wide:
            scalars.append(ScalarSpec("t", "i64", -(2**63), 2**63 - 1))
        if "logic" in on:
            scalars.append(ScalarSpec("flag", "bool", 0, 1))
        if "ints" in on and self.allowed_ints:
            first = self.pick(self.allowed_ints)
            second = self.pick((None, *self.allowed_ints))
            self.extra = (first,) if second in (None, first) else (first, second)
            bufs += [BufferSpec("tin", str(first), "in"),
                     BufferSpec("tout", str(self.extra[-1]), "out", self.K)]
            scalars.append(ScalarSpec("tv", str(first), *int_range(first)))
        _ty = {"i32": I32, "i64": I64, str(acc_ty): acc_ty, **{str(t): t for t in self.extra}}
        ints = [b for b in bufs if b.dtype not in ("f32", "f64")]
        ins = [(b.name, _ty[b.dtype]) for b in ints if b.role == "in"]
        outs = [(b.name, _ty[b.dtype]) for b in ints if b.role == "out"]
        accs = [(b.name, _ty[b.dtype]) for b in ints if b.role == "acc"
                and b.name == "acc"]
        self.hv_out = out_ty
        self.hv_acc = accs[0] if accs else None
        calls = ("h0", "hv") if "helper" in on else ()
        variables: dict[str, Type] = {"g": I32, "s": I32}
        if wide:
            variables["t"] = I64
        if self.extra:
            variables["tv"] = self.extra[0]
        if "logic" in on:
            variables["flag"] = BOOL
        deep = "deep" in on
        fn = _Fn(ENTRY, "g", variables, [], ins, outs, accs, calls, None, True, 0,
                 max_loops=4 if deep else 2, max_nest=6 if deep else 3, small=deep,
                 fins=("fin",) if "f32" in on else (), fouts=("fout",) if "f32" in on else ())
        # Each enabled feature's main statement appears at least once (the last ones
        # drawn when not drawn before), so a feature switched on is a feature used.
        anchors = {"memory": "alias", "atomic": "atomic", "returning": "ratomic",
                   "loop": "for", "branch": "ifelse",
                   "helper": "call_void", "return": "return", "while": "while",
                   "alloc": "alloc"}
        if "wave" in on:
            anchors["return"] = "return_wave"
        required = tuple(s for f, s in anchors.items() if f in on)
        if "helper" in on:
            required += ("call_assign",)
        if "fault_fail" in on:
            required += ("fail",)
        if "returning" in on:  # two at least: one order of two kinds of atomic
            required += ("ratomic",)
        if "f32" in on:
            required += ("fassign", "fstore")
            if "fault_convert" in on:
                required += ("plant_convert",)
        if self.extra:
            required += ("tassign",)
        body = ["    g = gid()"]
        if "f32" in on:  # a float the statements after may carry through loops
            body += self._s_fassign(fn, "    ", "fassign")
        if "arrays" in on:  # first, so the statements after read and write it
            body += self._s_array(fn, "    ", "array_decl")
            if self.pick((False, True)):
                body += self._s_array(fn, "    ", "array_fill")
            required += ("array_store",)
        if "return_wave" in required and self.pick((False, True)):
            # first: few values are held for the other lanes yet, so the returned lanes'
            # temporaries take the registers of those few (whole-wave ones among them)
            body += self.stmt(fn, "    ", "return_wave")
            required = tuple(r for r in required if r != "return_wave")
        body += self.block(fn, "    ", 2, 7, False, required)
        body = [line for line in body if line != "    pass"]
        body += self.witness(fn, "    ")
        # The sink: a read-modify-write of the last values, so they are observable.
        buf, ty = outs[0]
        slot = self.slot(fn)
        if "wave" in self.on and self.pick(("expr", "wave", "wave")) == "wave":
            # A reduction at the end, after any early returns: the lanes still active.
            value, _ = self.wave(fn, self.pick(_INT_WAVE), ty, 1)
        else:
            value, _ = self.int_expr(fn, ty, 2)
        body.append(f"    {buf}[{slot}] = {buf}[{slot}] + {value}")
        params = ", ".join([f"{b.name}: Buffer[{b.dtype}]" for b in bufs]
                           + [f"{s.name}: {s.type}" for s in scalars])
        parts = ["\n".join([f"def {ENTRY}({params}):"] + body)]
        # Helpers after the kernel, only those called: hv first (it may call h0).
        if "hv" in self.used:
            parts.append(self.void_helper(out_ty))
        if "h0" in self.used:
            parts.append(self.valued_helper())
        return "\n\n\n".join(parts) + "\n", tuple(bufs), tuple(scalars)

    def helper_fn(self, name: str, variables: dict[str, Type], ins: list[Any],
                  outs: list[Any], accs: list[Any], calls: tuple[str, ...],
                  returns: Type | None) -> _Fn:
        """A helper gets one loop when loops are on; a helper called inside a loop (directly
        or through another helper) only a small one, so trips stay few on any path."""
        loops = 1 if self.on & {"loop", "while"} else 0
        return _Fn(name, "gid()", variables, [], ins, outs, accs, calls, returns, False, 0,
                   max_loops=loops, small=name in self.loop_calls or "deep" in self.on)

    def helper_loop(self, fn: _Fn) -> tuple[str, ...]:
        """Half the helpers called inside a loop get a (small) loop of their own for sure:
        a loop inside an inlined call inside a loop is a shape of its own."""
        if fn.max_loops and fn.name in self.loop_calls and self.pick((False, True)):
            return ("for",) if "loop" in self.on else ("while",)
        return ()

    def valued_helper(self) -> str:
        x_ty = self.h0_x
        fn = self.helper_fn("h0", {"a": I32, "x": x_ty}, [("b", I32)], [], [], (), I32)
        self.budget = max(self.budget, 3)  # its own statements, whatever the kernel used
        required = self.helper_loop(fn)
        if "return" in self.on:  # an early return: the feature used where it means most
            required += ("return_wave" if "wave" in self.on else "return",)
        body = self.block(fn, "    ", 0, 3, scoped=False, required=required)
        value, _ = self.int_expr(fn, I32, 2)
        body = [line for line in body if line != "    pass"]
        body.append(f"    return {self.folded(fn, value)}")
        return "\n".join([f"def h0(b: Buffer[i32], a: i32, x: {x_ty}) -> i32:"] + body)

    def void_helper(self, out_ty: Type) -> str:
        accs = [("r", self.hv_acc[1])] if self.hv_acc else []
        calls = ("h0",) if "helper" in self.on else ()
        fn = self.helper_fn("hv", {"v": I32}, [("b", I32)], [("o", out_ty)], accs, calls, None)
        self.budget = max(self.budget, 2)
        body = self.block(fn, "    ", 1, 3, scoped=False, required=self.helper_loop(fn))
        slot = self.slot(fn)
        value = "v"
        if self.pick(("v", "call")) == "call":
            value = self.call(fn, 1)[0]  # kernel -> hv -> h0: a three-frame stack
        body.append(f"    o[{slot}] = o[{slot}] + {self.folded(fn, value)}")
        head = f"def hv(o: Buffer[{out_ty}], v: i32, b: Buffer[i32]" + (
            f", r: Buffer[{accs[0][1]}]):" if accs else "):")
        return "\n".join([head] + [line for line in body if line != "    pass"])


#: the atomics that return by family, drawn family first (each family as likely; add,
#: the one optimisers rewrite, a family of its own)
#: an atomic that returns draws its operation from this (repeats are weights): the
#: compare-exchange, whose outcome depends most on the order, twice
_RETURNING_OPS = ("add", "min", "max", "and", "or", "xor", "exchange", "compare_exchange",
                  "compare_exchange")

#: a statement kind -> the _Gen method that writes it
_STATEMENTS: dict[str, Callable[[_Gen, _Fn, str, str], list[str]]] = {
    "assign": _Gen._s_assign,
    "assign64": _Gen._s_assign,
    "reassign": _Gen._s_reassign,
    "assign_bool": _Gen._s_assign_bool,
    "wave_assign": _Gen._s_wave_assign,
    "call_assign": _Gen._s_call_assign,
    "store": _Gen._s_store,
    "rmw": _Gen._s_store,
    "atomic": _Gen._s_atomic,
    "ratomic": _Gen._s_ratomic,
    "if": _Gen._s_if,
    "ifelse": _Gen._s_if,
    "match": _Gen._s_match,
    "while": _Gen._s_while,
    "for": _Gen._s_for,
    "break": _Gen._s_exit,
    "continue": _Gen._s_exit,
    "return": _Gen._s_exit,
    "fail": _Gen._s_exit,
    "return_wave": _Gen._s_return_wave,
    "plant_fail": _Gen._s_plant_fail,
    "plant_div": _Gen._s_plant_div,
    "oob_store": _Gen._s_oob_store,
    "plant_oob": _Gen._s_oob_store,
    "call_void": _Gen._s_call_void,
    "alloc": _Gen._s_alloc,
    "alloc_store": _Gen._s_alloc_store,
    "alias": _Gen._s_alias,
    "fassign": _Gen._s_fassign,
    "tassign": _Gen._s_tassign,
    "treassign": _Gen._s_tassign,
    "freassign": _Gen._s_fassign,
    "fstore": _Gen._s_fstore,
    "plant_convert": _Gen._s_plant_convert,
    "array_decl": _Gen._s_array,
    "array_store": _Gen._s_array,
    "array_fill": _Gen._s_array,
}


_PRIVATE = "p"  # the prefix of the names alloc() results get, and only they


def _arrays(fn: _Fn, elements: tuple[Type, ...] | None = None) -> list[str]:
    """The private arrays readable here (of those element types)."""
    return [v for v, t in fn.vars.items()
            if t.is_private and (elements is None or t.element in elements)]


def _private(fn: _Fn) -> list[str]:
    """The buffers `fn` allocated (readable like inputs, and writable by their owner)."""
    return [b for b, _ in fn.ins if b.startswith(_PRIVATE)]


def _fit(text: str, ty: Type, want: Type) -> str:
    """`text`, a value of `ty`, as one `want` takes (converted unless the language widens
    it: i32 to i64)."""
    return text if ty is want or (ty is I32 and want is I64) else f"{want}({text})"


def _widest(a: Type, b: Type) -> Type:
    return I64 if I64 in (a, b) else I32


def _foldable(ty: Type) -> bool:
    return ty is BOOL or ty.is_int


def _fold(names: dict[str, Type]) -> str:
    """The integer and bool values of `names` folded into one i32, each scaled apart."""
    terms = [name if ty is I32 else f"i32({name})" for name, ty in names.items()
             if _foldable(ty)]
    if not terms:
        return "0"
    return " + ".join(t if i == 0 else f"{t} * {2 * i + 1}" for i, t in enumerate(terms))


def _is_literal(text: str) -> bool:
    return text.lstrip("-").isdigit()


_PERCENT = st.integers(0, 99)


@functools.lru_cache(maxsize=512)
def _defined_only(source: str, model: str) -> str:
    """`source` with the wave operations `model` leaves undefined replaced (the canonical
    text of the rewritten program; `source` itself when there were none)."""
    fixed = defined_only(_checked(source)[0], ENTRY, model)
    return source if fixed is None else to_source(fixed)


#: under the `uniform` model, the share of kernels with wave operations whose control flow
#: is made uniform (`_uniform_control`); in the others, wave operations where lanes may
#: be apart are taken out, and their control flow stays divergent
UNIFORM_CONTROL_PERCENT = 70


@functools.lru_cache(maxsize=512)
def _uniform_control(source: str) -> str:
    """`source` with every branch condition and loop bound that lanes may disagree on
    made uniform: a condition `c` becomes `wave_any(c)` or `wave_all(c)` (by line
    parity), a bound `b` becomes `readfirstlane(b)` -- branches a GPU kernel makes
    uniform on purpose, so that the wave operations under them are ones a target
    promising only uniform control flow defines. A few rounds, since a variable
    assigned under a divergent branch stops being divergent once the branch is uniform."""
    from difftest.core.ir import check
    from difftest.core.ir.walk import substitute

    program = _checked(source)[0]
    for _ in range(4):
        conds = uniformity(program, ENTRY).divergent_conditions
        if not conds:
            break
        done: set[int] = set()

        def wrap(x: Any) -> Any:
            if id(x) not in conds or id(x) in done:
                return None
            done.add(id(x))
            if x.ty is BOOL:
                return n.WaveOp("wave_all" if x.line % 2 else "wave_any", (x,), line=x.line)
            return n.WaveOp("readfirstlane", (x,), line=x.line)

        program = check(substitute(program, wrap))
    return to_source(program)


@functools.lru_cache(maxsize=512)
def _checked(source: str) -> tuple[n.Program, frozenset[str], int]:
    """Parse (a generator defect surfaces here as a KernelError) and read off the
    constructs and the trip bound. Cached: Hypothesis's mutations replay the same kernel
    with other cases often, and IR programs are immutable, so sharing one is safe."""
    program = parse(source)
    return program, constructs(program) | kernel_pairs(program), trip_bound(program, ENTRY)


def kernels(fault_rate: float = DEFAULT_FAULT_RATE, max_statements: int = 14,
            without: frozenset[str] = frozenset(), reconvergence: str = MAXIMAL,
            int_types: frozenset[Type] = frozenset(EXTRA_INTS)
            ) -> st.SearchStrategy[GeneratedKernel]:
    """Kernels (see the module docstring for their shape and guarantees).

    `fault_rate` is the probability that each fault kind (out-of-bounds, division by
    zero, `fail`) is enabled for a kernel, in steps of 1%: 0 gives kernels that never
    fault, 1 kernels that may fault every way. `max_statements` bounds the statements
    drawn for the kernel (each helper called gets at least two more). `without` names
    features never enabled (`"wave"`, `"alloc"`: what a target cannot run; the draws are
    the same, so a seed's other choices do not move). `reconvergence` is a target's model
    (difftest.core.reconvergence): a wave operation it leaves undefined is replaced by a
    wave-free expression of its type. `int_types`: the integer types the target runs
    (feature "ints" draws from those of EXTRA_INTS; none: the feature is off).
    Shrinks toward: no features, one statement, the constant 0."""
    if reconvergence not in MODELS:
        raise ValueError(f"Invalid reconvergence={reconvergence!r}: expected one of "
                         f"{', '.join(MODELS)}")
    unknown = set(without) - set(FEATURES) - set(RARE_FEATURES) - {"alloc", "f64"}
    if unknown:
        raise ValueError(f"Invalid without={sorted(unknown)!r}: not generator features")
    if isinstance(fault_rate, bool) or not isinstance(fault_rate, (int, float)) or not (
            0.0 <= fault_rate <= 1.0):
        raise ValueError(f"Invalid fault_rate={fault_rate!r}: expected 0.0 <= fault_rate <= 1.0")
    if isinstance(max_statements, bool) or not isinstance(max_statements, int) or (
            max_statements < 1):
        raise ValueError(f"Invalid max_statements={max_statements!r} < 1")
    ints = tuple(t for t in EXTRA_INTS if t in int_types)
    if not ints:
        without = frozenset(without) | {"ints"}
    return _kernels(round(fault_rate * 100), max_statements, frozenset(without),
                    reconvergence, ints)


def trip_bound(program: n.Program, entry: str) -> int:
    """An upper bound on the loop trips (the budget's steps) one workitem of a generated
    kernel runs, from the loop shapes the generator writes: constant ranges exactly,
    per-lane bounds `(e & m)` at m, `s` and `len(acc)` at MAX_LOOP, a `while True:` at
    its counter's limit + 1 (MAX_LOOP + 1 at most)."""
    memo: dict[str, int] = {}

    def function(name: str) -> int:
        if name not in memo:
            memo[name] = block(program.function(name).body)
        return memo[name]

    def calls(e: Any) -> int:
        return sum(function(c.func) for c in walk.calls(e))

    def top(e: n.Expr) -> int:
        if isinstance(e, n.Const):
            return int(e.value)
        if isinstance(e, n.Binary) and e.op == "&" and isinstance(e.right, n.Const):
            return int(e.right.value)
        return MAX_LOOP

    def trips(s: n.For) -> int:
        start = int(s.start.value) if isinstance(s.start, n.Const) else 0
        return max(0, top(s.stop) - min(start, 0) if not isinstance(s.start, n.Const)
                   else top(s.stop) - start)

    def block(stmts: tuple[n.Stmt, ...]) -> int:
        return sum(stmt(s) for s in stmts)

    def stmt(s: n.Stmt) -> int:
        if isinstance(s, n.If):
            return calls(s.cond) + max(block(s.then), block(s.orelse))
        if isinstance(s, n.For):
            return calls(s.start) + calls(s.stop) + trips(s) * (1 + block(s.body))
        if isinstance(s, n.While):
            return (MAX_LOOP + 1) * (1 + block(s.body))
        if isinstance(s, n.CallStmt):
            return calls(s.call)
        return calls(s)  # a simple statement: the calls in its expressions

    return function(entry)


@st.composite
def _kernels(draw: st.DrawFn, pct: int, max_statements: int,
             without: frozenset[str], reconvergence: str = MAXIMAL,
             ints: tuple[Type, ...] = ()) -> GeneratedKernel:
    # One boolean per feature (not one bitmask) so the shrinker can switch each off.
    on = {f for f in FEATURES if draw(_BOOL)}
    for f in RARE_FEATURES:
        if draw(_PERCENT) >= 100 - RARE_PERCENT:  # shrinks to 0: off
            on.add(f)
    if draw(_PERCENT) >= 100 - ALLOC_PERCENT and "alloc" not in without:
        on.add("alloc")
        on.discard("wave")
    on -= without
    for f in FAULT_FEATURES:
        if pct >= 100 or (pct > 0 and draw(_PERCENT) >= 100 - pct):
            on.add(f)
    if "f32" not in on:
        on.discard("fault_convert")  # nothing to convert
    elif "f64" not in without and draw(_BOOL):  # half the float kernels: of f64
        on.add("f64")
    features = frozenset(on)
    gen = _Gen(draw, features, max_statements, ints)
    out_ty = gen.pick((I32, I64))
    # the atomics' buffer: of the target's unsigned 32- and 64-bit integers too where the
    # kernel draws more integer types (a sum that wraps at 2^32; 8- and 16-bit atomics no
    # language under test has)
    wide = tuple(t for t in ints if t.bits >= 32) if "ints" in features else ()
    acc_ty = gen.pick((I64, I32, *wide)) if "atomic" in features or "returning" in features \
        else I64
    source, bufs, scalars = gen.kernel(out_ty, acc_ty)
    program, found, trips = _checked(source)
    if reconvergence == UNIFORM and "wave" in features \
            and draw(_PERCENT) < UNIFORM_CONTROL_PERCENT:
        source = _uniform_control(source)
    if reconvergence != MAXIMAL and "wave" in features:
        source = _defined_only(source, reconvergence)
        program, found, trips = _checked(source)
    for name in sorted(features):
        event(f"swarm: {name}")
    for name in sorted(found):
        event(f"construct: {name}")
    max_n = max(1, DEFAULT_WORK_BUDGET // (trips + 1))
    if "alloc" in features:
        max_n = min(max_n, ALLOC_MAX_N)
    return GeneratedKernel(source, ENTRY, program, bufs, scalars, features, found, max_n)
