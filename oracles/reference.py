"""The reference oracle: docs/semantics.md made executable, written to be obviously correct.

A tree-walking interpreter with maximal reconvergence made structural: every statement and
expression is evaluated for a *set of active workitems* and returns the workitems that
come out of it normally (with their values, for an expression).

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

**Representation.** A set of active workitems is a NumPy array of their gids, ascending
(`Lanes`); an expression's values are an array aligned with it: int64 for both integer
types (each value canonical for its type's width, so widening is free), bool for bool,
and a buffer's index in `_Memory.names` for a buffer reference. Each operation is written
once over whole arrays; code runs lane by lane only where lanes genuinely differ in what
happens to them: creating their faults and their write-log entries (and, in the exact
mode below, applying the race rule one access at a time).

**All waves at once.** The semantics runs waves one after another. This interpreter runs
every wave of the launch in the same lockstep pass (a wave operation still reduces over
each wave's own active lanes: `_Waves`), which changes nothing a kernel can observe unless
two different workitems conflict under the race rule: a workitem's values depend on other
workitems only through wave operations (same wave, same structural point either way) and
through memory, and by the race rule a location that workitem A loads is written by no
other workitem, so A reads the same values in either order; plain-stored locations have a
single writer, and atomic-only locations end as the initial value plus every contribution,
in any order. (Conversely, the same argument applied to the wave-after-wave run shows that
it is racy exactly when the lockstep pass is.) So `run_full` runs the lockstep pass and
checks the race rule over all its accesses at the end; only when a race shows up does it
run the case again wave by wave, in exactly the semantics' order, applying the race rule
access by access (`exact_races`) to name the same pair of workitems in the same words as
the first conflicting access in that order. A racy kernel is outside the semantics: that
error is the whole result.

**Arithmetic.** Every integer value is held in its storage form (types.py: the value,
but a u64 of 2^63 or more as its bits read as an int64). NumPy arithmetic on int64
arrays is arithmetic modulo 2^64 (integer array operations wrap silently), which is the
wrapping of both 64-bit types; a narrower operation is exact in int64 (|a * b| < 2^62)
and is then reduced to its type's width by `_wrap`, sign-extended for a signed type,
zero-extended for an unsigned one. Unsigned division, remainder, right shift and u64
comparison work on the uint64 view of the bits. Operator semantics live here and nowhere
else (STYLE.md: the target must not share them).

The oracle also enforces the race rule (a racy kernel is an `OracleError`: outside
the semantics) and the loop-trip budget (docs/semantics.md, "Budgets"): a workitem that
would start a trip past its share stops there, like a fault that is not one, and is listed
in `FullRun.exhausted`; the full run goes on, so it is still the whole truth the checker
needs, and it never runs more than `work_budget` trips in all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from difftest.core.atomic_order import Edge, trail_end
from difftest.core.case import Case
from difftest.core.errors import OracleError
from difftest.core.edges import Edges, Unnoted
from difftest.core.fullrun import FRESH, RETURNED, FullRun, WriteLog
from difftest.core.options import describe_budget, trip_budget
from difftest.core.ir import nodes as n
from difftest.core.ir.walk import has_barriers, has_ordered_atomics
from difftest.core import f32, f64
from difftest.core.floats import fmt
from difftest.core.ir.types import (BOOL, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Type,
                                    int_range, storage, value_of)
from difftest.core.outcome import (
    Fault,
    Frame,
)

#: statements and expressions the reference evaluates in one launch at most, each counted
#: once per lockstep group of lanes (its cost, a few µs each, hardly depends on the number
#: of lanes): a kernel past it would hold a check for many seconds. Generated kernels stay
#: under about 10,000 (docs/semantics.md, "Size limits")
MAX_WORK = 2_000_000


# ------------------------------------------------------------------ arrays

Array = npt.NDArray[Any]    # values of one expression, aligned with its Lanes
Lanes = npt.NDArray[np.int64]  # gids of active workitems, ascending, no repeats
Vals = tuple[Lanes, Array]  # the lanes that evaluated without faulting, and their values


def _dtype(ty: Type | None) -> type[np.generic]:
    """The array type holding values of `ty` (buffer references are buffer numbers)."""
    return np.bool_ if ty is BOOL else np.float32 if ty is F32 else \
        np.float64 if ty is F64 else np.int64


# f32 (docs/semantics.md, "32-bit floats"): lanes hold np.float32, whose + - * are
# binary32's, correctly rounded; memory holds the bits. The rest is spelled out here.

_F32_SMALLEST_NORMAL = np.float32(2.0 ** -126)
#: the types a store wraps its value to, numbered (a buffer's number is in
#: `_Memory.wraps`): 0 for none (i64, u64's bits, an f64's bits), 1 for i32 and f32's bits
_WRAPS: tuple[Type | None, ...] = (None, I32, I8, U8, I16, U16, U32)


def _wraps(element: Type) -> int:
    """The number in `_WRAPS` of what a store to `element`s wraps to."""
    element = I32 if element is F32 else element
    return _WRAPS.index(element) if element in _WRAPS else 0


def _float_bits(v: Array) -> Array:
    """Values as memory holds them: their bits as int64, every NaN the one quiet NaN
    (of f32s or of f64s, by the array's type)."""
    if v.dtype == np.float64:
        return np.where(np.isnan(v), f64.NAN_BITS, v.view(np.int64))
    bits = v.astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(np.isnan(v), f32.NAN_BITS, bits)


def _float_values(bits: Array, ty: Type = F32) -> Array:
    if ty is F64:
        return bits.astype(np.int64).view(np.float64)
    return bits.astype(np.int32).view(np.float32)


def _float_from_int(v: Array, ty: Type, to: Type = F32) -> Array:
    """`f32(i)` / `f64(i)` of storage-form values of integer type `ty`: the value rounded
    to nearest even, once (binary64 holds |i| < 2^53 exactly; the rest exactly by
    f32.from_int / f64.from_int)."""
    small = (v >= 0) & (v < 2 ** 53) if ty is U64 else np.abs(v) < 2 ** 53
    out = np.where(small, v, 0).astype(np.float64).astype(_dtype(to))
    for k in np.flatnonzero(~small).tolist():
        out[k] = fmt(to).from_int(value_of(int(v[k]), ty))
    return out


def _float_pick(a: Array, b: Array, smaller: bool) -> Array:
    """`min` / `max`: a NaN loses to a number; -0.0 is below +0.0."""
    with np.errstate(invalid="ignore"):
        better = (a < b) if smaller else (a > b)
    tie = (a == b) & (np.signbit(a) == smaller)  # the zero of the wanted sign
    take_a = np.isnan(b) | better | tie
    return np.where(np.isnan(a), b, np.where(take_a, a, b)).astype(a.dtype)


def _float_reduce(waves: _Waves, x: Array, smaller: bool) -> Array:
    """`wave_min` / `wave_max` of f32: NaNs left out unless all are; of equal zeros,
    -0.0 is the smaller."""
    r = waves.reduce(np.fmin if smaller else np.fmax, x)
    wanted, other = (-0.0, 0.0) if smaller else (0.0, -0.0)
    has_wanted = waves.reduce(np.logical_or, (x == 0) & (np.signbit(x) == smaller))
    return np.where(r == 0, np.where(has_wanted, wanted, other), r).astype(x.dtype)


def _at(lanes: Lanes, values: Array, keep: Lanes) -> Array:
    """The values (aligned with `lanes`) of the lanes `keep`, a subset of `lanes`."""
    if len(keep) == len(lanes):  # the same set: nothing faulted in between
        return values
    return values[np.searchsorted(lanes, keep)]


def _union(parts: list[Lanes]) -> Lanes:
    """The lanes of disjoint groups, ascending."""
    parts = [p for p in parts if len(p)]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.sort(np.concatenate(parts))


def _merge(parts: list[Vals], dtype: type[np.generic]) -> Vals:
    """The values of disjoint groups of lanes (the two sides of `x if c else y`, say),
    ascending by lane."""
    parts = [p for p in parts if len(p[0])]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=dtype)
    lanes = np.concatenate([p[0] for p in parts])
    values = np.concatenate([p[1] for p in parts])
    order = np.argsort(lanes, kind="stable")
    return lanes[order], values[order]


# ------------------------------------------------------------------ operators
# Whole-array forms of the operators; every function maps lane i of its operands to lane i
# of its result and never modifies an operand.


def _wrap(v: Array, ty: Type) -> Array:
    """Canonical values of integer type `ty` (its storage form; an f32's bits as an
    i32's): int64 arithmetic already is arithmetic mod 2^64; a narrower type keeps its
    low bits, sign-extended (two's complement) or zero-extended by its signedness."""
    narrow = _NARROW.get(ty)
    return v if narrow is None else v.astype(narrow).astype(np.int64)


#: the numpy type of each integer type below 64 bits (and of an f32's bits): a cast to it
#: keeps the low bits (numpy's integer casts wrap), the cast back extends them by the
#: type's signedness
_NARROW: dict[Type, type[np.generic]] = {
    I8: np.int8, U8: np.uint8, I16: np.int16, U16: np.uint16, I32: np.int32, U32: np.uint32,
    F32: np.int32}


def _unsigned(v: Array) -> Array:
    """The bits of storage-form values as uint64 (a u64's value)."""
    return v.view(np.uint64)


def _tdivmod(a: Array, b: Array) -> tuple[Array, Array]:
    """Quotient truncated toward zero and its remainder, for divisors that are never 0.
    b == -1 is taken apart because MIN / -1 overflows: its quotient is -a (so MIN // -1
    wraps to MIN) and its remainder 0. Otherwise `np.fmod` is C's `%` on integers (the
    remainder has the sign of `a` and |r| < |b|), and a - r is an exact multiple of b."""
    minus_one = b == -1
    d = np.where(minus_one, 1, b)
    r = np.fmod(a, d)
    q = (a - r) // d
    return np.where(minus_one, -a, q), np.where(minus_one, 0, r)


def _shl(a: Array, amount: Array) -> Array:
    """a << amount modulo 2^64 (0 <= amount < 64), on the unsigned view of the bits."""
    return (a.view(np.uint64) << amount.astype(np.uint64)).view(np.int64)


def _divmod(a: Array, b: Array, ty: Type, which: int) -> Array:
    """Truncating quotient (`which` 0) or remainder (1) of nonzero divisors: signed as
    C's, unsigned on the values (non-negative in int64 below 64 bits; a u64's uint64)."""
    if ty.signed:
        return _wrap(_tdivmod(a, b)[which], ty)
    if ty.bits == 64:
        ua, ub = _unsigned(a), _unsigned(b)
        return (ua // ub if which == 0 else ua % ub).view(np.int64)
    return a // b if which == 0 else a % b


def _shr(a: Array, amount: Array, ty: Type) -> Array:
    """a >> amount: arithmetic for a signed type, logical for an unsigned one."""
    if ty.signed or ty.bits < 64:  # an unsigned value below 64 bits is non-negative
        return _wrap(a >> amount, ty)
    return (_unsigned(a) >> amount.astype(np.uint64)).view(np.int64)


def _each(f: Callable[[int], int], v: Array, ty: Type) -> Array:
    """f of each value's bits (the low `ty.bits` of its storage, as an unsigned int),
    wrapped back to `ty`: the bit operations, one Python int at a time (exact at every
    width, and a kernel has few lanes)."""
    mask = (1 << ty.bits) - 1
    out = [f(int(x) & mask) for x in v.tolist()]
    return _wrap(np.array(out, dtype=np.uint64).view(np.int64), ty)


def _bit_op(op: str, v: Array, ty: Type) -> Array:
    """popcount, clz, ctz (of 0: the width), bit_reverse on values of `ty`."""
    bits = ty.bits
    if op == "popcount":
        return _each(lambda x: x.bit_count(), v, ty)
    if op == "clz":
        return _each(lambda x: bits - x.bit_length(), v, ty)
    if op == "ctz":
        return _each(lambda x: bits if x == 0 else (x & -x).bit_length() - 1, v, ty)
    assert op == "bit_reverse", op
    return _each(lambda x: int(format(x, f"0{bits}b")[::-1], 2), v, ty)


def _rotate(v: Array, amount: Array, ty: Type, left: bool) -> Array:
    """v rotated by amount mod the width (the amount's low bits: any integer type)."""
    bits = ty.bits
    mask = (1 << bits) - 1
    out = []
    for x, a in zip(v.tolist(), amount.tolist()):
        x, r = int(x) & mask, int(a) & (bits - 1)
        if not left:
            r = (bits - r) % bits
        out.append(((x << r) | (x >> (bits - r))) & mask)
    return _wrap(np.array(out, dtype=np.uint64).view(np.int64), ty)


def _mul_hi(a: Array, b: Array, ty: Type) -> Array:
    """The high half of the full product of two values of `ty` (signed: of the signed
    values, the high half floor-shifted; unsigned: of the unsigned ones)."""
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        if not ty.signed:
            x, y = value_of(int(x), ty), value_of(int(y), ty)
        out.append(((x * y) >> ty.bits) & ((1 << 64) - 1))
    return _wrap(np.array(out, dtype=np.uint64).view(np.int64), ty)


def _int_pick(a: Array, b: Array, ty: Type, smaller: bool) -> Array:
    """min or max of integer values (a u64's by its unsigned value)."""
    pick = np.minimum if smaller else np.maximum
    if ty is U64:
        return pick(_unsigned(a), _unsigned(b)).view(np.int64)
    return pick(a, b)


#: the atomics whose effect on memory is one whatever their order, as numpy's unbuffered
#: in-place operations
_COMMUTING = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}


def _atomic_result(op: str, old: Array, v: Array, compare: Array | None, ty: Type) -> Array:
    """What an ordered atomic leaves in a location that held `old`."""
    if op == "add":
        return _wrap(old + v, ty)
    if op in ("min", "max"):
        return _int_pick(old, v, ty, smaller=op == "min")
    if op in ("and", "or", "xor"):
        return _wrap({"and": old & v, "or": old | v, "xor": old ^ v}[op], ty)
    if op == "exchange":
        return v
    assert op == "compare_exchange" and compare is not None, op
    return np.where(old == compare, v, old)


_ARITH: dict[str, Callable[[Array, Array, Type], Array]] = {
    "+": lambda a, b, ty: _wrap(a + b, ty),
    "-": lambda a, b, ty: _wrap(a - b, ty),
    "*": lambda a, b, ty: _wrap(a * b, ty),
    "//": lambda a, b, ty: _divmod(a, b, ty, 0),
    "%": lambda a, b, ty: _divmod(a, b, ty, 1),
    "&": lambda a, b, ty: _wrap(a & b, ty),
    "|": lambda a, b, ty: _wrap(a | b, ty),
    "^": lambda a, b, ty: _wrap(a ^ b, ty),
    # the amount masked to the width (of the result's type, the left operand's)
    "<<": lambda a, b, ty: _wrap(_shl(a, b & (ty.bits - 1)), ty),
    ">>": lambda a, b, ty: _shr(a, b & (ty.bits - 1), ty),
}

_COMPARE: dict[str, Callable[[Array, Array], Array]] = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def _int_type(ty: Type | None) -> Type:
    assert ty is not None and ty.is_int, f"expected an integer type, got {ty}"
    return ty


class _Waves:
    """The active lanes of an evaluation point split into their waves: the lanes are
    ascending, so each wave's active lanes are one contiguous run of positions."""

    def __init__(self, lanes: Lanes, wave: int) -> None:
        self.lane = lanes % wave  # lane index within its wave
        which = lanes // wave
        starts = np.ones(len(lanes), dtype=bool)
        starts[1:] = which[1:] != which[:-1]
        self.first = np.flatnonzero(starts)  # position of each wave's lowest active lane
        self.index = np.cumsum(starts) - 1  # each lane's wave, as an index into `first`

    def each(self, per_wave: Array) -> Array:
        """One value per wave, handed to every active lane of that wave."""
        return per_wave[self.index]

    def reduce(self, op: np.ufunc, x: Array) -> Array:
        """`op` folded over each wave's active lanes, handed to each of them."""
        return self.each(op.reduceat(x, self.first))

    def inclusive_sums(self, x: Array) -> Array:
        """Each lane's sum of its wave's active lanes up to and including it (mod 2^64):
        the running sum over all lanes, less the running sum before its wave's first."""
        running = np.cumsum(x)
        before = running[self.first] - x[self.first]
        return running - self.each(before)


# ---------------------------------------------------------------- run state


@dataclass
class _Loop:
    broken: list[Lanes] = field(default_factory=list)
    continued: list[Lanes] = field(default_factory=list)


@dataclass
class _Activation:
    """One function activation for a group of lanes. Each variable is an array over all
    workitems of the launch (indexed by gid) of which only the lanes that assigned it are
    meaningful: the checker's definite-assignment rule means no lane reads another's."""

    fn: n.Function
    callers: tuple[Frame, ...]
    n_items: int
    env: dict[str, Array] = field(default_factory=dict)
    returned: list[tuple[Lanes, Array | None]] = field(default_factory=list)
    loops: list[_Loop] = field(default_factory=list)
    #: per private array, the lanes that already hold an instance of it here (a
    #: declaration that runs again -- in a loop -- zeroes that one: no new memory)
    privates: dict[str, Array] = field(default_factory=dict)

    def get(self, name: str, lanes: Lanes) -> Array:
        return self.env[name][lanes]

    def set(self, name: str, lanes: Lanes, values: Array) -> None:
        if not len(lanes):
            return
        var = self.env.get(name)
        if var is None:
            var = self.env[name] = np.zeros(self.n_items, dtype=values.dtype)
        var[lanes] = values


STORE, LOAD, ATOMIC = 0, 1, 2  # kinds of memory access, for the race rule


class _Touches:
    """Who touched which location how, over a whole run in any order: per kind of access,
    the lowest and the highest gid at each location (equal: one workitem; none: the
    lowest is above every gid). That is all the race rule needs (`racy`)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.lo: dict[int, Array] = {}
        self.hi: dict[int, Array] = {}

    def add(self, kind: int, where: Array, gids: Lanes) -> None:
        if kind not in self.lo:
            self.lo[kind] = np.full(self.size, np.iinfo(np.int64).max, dtype=np.int64)
            self.hi[kind] = np.full(self.size, -1, dtype=np.int64)
        np.minimum.at(self.lo[kind], where, gids)
        np.maximum.at(self.hi[kind], where, gids)

    def _span(self, kinds: tuple[int, ...]) -> tuple[Array, Array, Array]:
        """Over the accesses of `kinds`: whether any, the lowest and the highest gid."""
        none_lo = np.full(self.size, np.iinfo(np.int64).max, dtype=np.int64)
        none_hi = np.full(self.size, -1, dtype=np.int64)
        lo = np.minimum.reduce([self.lo.get(k, none_lo) for k in kinds])
        hi = np.maximum.reduce([self.hi.get(k, none_hi) for k in kinds])
        return hi >= 0, lo, hi

    def racy(self) -> bool:
        """Whether two *different* workitems conflict anywhere: a plain store by one to a
        location another touches in any way, or an atomic add by one to a location
        another loads (an atomic beside another's store is the first case)."""
        stored, _, _ = self._span((STORE,))
        _, lo, hi = self._span((STORE, LOAD, ATOMIC))
        if (stored & (lo != hi)).any():
            return True
        loaded, _, _ = self._span((LOAD,))
        added, _, _ = self._span((ATOMIC,))
        _, lo, hi = self._span((LOAD, ATOMIC))
        return bool((loaded & added & (lo != hi)).any())


@dataclass
class _Trail:
    """A location's atomics in a replay since the last barrier or store: the value before
    the first, each one's edge (old value returned, value left), and whether the target
    reported every old value (else there is no order of them to follow)."""

    start: int
    edges: list[Edge] = field(default_factory=list)
    reported: bool = True


class _Memory:
    """Buffers and workgroup arrays, plus the race rule and the per-workitem write logs.

    All buffers live in one int64 array, one after another (`flat`), so lanes holding
    references to different buffers are served by the same array operation; a lane's
    location is `offsets[buffer] + index`. The case's buffers come first, then one
    instance of each workgroup array per group (`add_workgroup_arrays`), then `alloc()`'s.
    With `exact_races` the race rule is applied access by access in execution order and
    the first conflict raises, naming the pair (the group-after-group run); without it
    every access is recorded and `racy()` answers at the end (the lockstep run).

    In a kernel that synchronises (`epochs`: each group's count of barriers passed) two
    accesses conflict only when they come from different groups or from the same group
    between the same two barriers (docs/semantics.md, "Workgroups")."""

    def __init__(self, buffers: dict[str, np.ndarray], n_items: int, exact_races: bool,
                 group: int, synchronises: bool, elements: dict[str, Type] | None = None,
                 ordered: bool = False) -> None:
        self.names = list(buffers)
        self.shared = len(self.names)  # the case's buffers: logged and race-checked
        self.checked = self.shared  # and up to here, workgroup arrays: race-checked
        # private arrays whose activation ended, by (element, length): a helper called
        # in a loop takes these instead of growing memory on every call
        self.dead_privates: dict[tuple[Type, int], list[int]] = {}
        arrays = list(buffers.values())
        self.dtypes = [v.dtype for v in arrays]
        self.sizes = np.array([len(v) for v in arrays], dtype=np.int64)
        self.offsets = np.cumsum(self.sizes) - self.sizes  # where each buffer starts
        # each buffer's element type, and what a store to it wraps to (`_WRAPS`):
        # `narrow` says whether any buffer's is a type other than i32
        elements = elements or {}
        self.elements = [elements.get(name, I32 if v.dtype == np.int32 else I64)
                         for name, v in zip(self.names, arrays)]
        self.wraps = np.array([_wraps(t) for t in self.elements], dtype=np.int8)
        self.narrow = bool((self.wraps > 1).any())
        self.flat = np.concatenate([v.astype(np.int64) for v in arrays] + [np.zeros(0, np.int64)])
        self.writes = WriteLog(n_items, self.names[:self.shared], epochs=synchronises)
        # a kernel whose atomics are ordered logs workgroup arrays too (per group's
        # instance, `name@group`): the checker orders their atomics as well
        self.ordered = ordered
        self.exact_races = exact_races
        # a replay's never-ran workitems (in waves that partly ran): the race rule leaves
        # their accesses out -- they did not happen, and their values are the oracle's own
        self.unrun = np.zeros(n_items, dtype=bool)
        self.group = group
        self.synchronises = synchronises
        self.epochs = np.zeros(-(-n_items // group), dtype=np.int64)
        # a replay of a synchronising kernel: per location, the atomics since the last
        # barrier or store (`_Trail`), whose order's end the next barrier puts there
        self.trails: dict[int, _Trail] = {}
        self.touches = _Touches(len(self.flat))
        # the accesses of a synchronising kernel: (kind, location, gid, epoch) columns
        self.accesses: list[tuple[int, Array, Lanes, Array]] = []
        # location -> per kind of access: the first two workitems per (group, epoch), and
        # the first workitem of each of the first two groups: enough to name a second
        # workitem whenever one conflicts (exact mode only)
        self.touched: dict[tuple[str, int],
                           list[tuple[dict[tuple[int, int], list[int]],
                                      list[tuple[int, int]]]]] = {}

    def add_workgroup_arrays(self, arrays: list[n.LocalArray], groups: int
                             ) -> dict[str, Array]:
        """A zeroed instance of each array per group; per array, its instances' buffer
        numbers by group. Shared by a group's workitems, so race-checked, but not logged:
        they end with the launch."""
        assert len(self.names) == self.shared, "workgroup arrays come before alloc()'s"
        refs: dict[str, Array] = {}
        for a in arrays:
            first = len(self.names)
            refs[a.name] = np.arange(first, first + groups, dtype=np.int64)
            self.names += [a.name] * groups
            self.dtypes += [np.dtype(np.int32 if a.element in (I32, F32) else np.int64)] * groups
            sizes = np.full(groups, a.length, dtype=np.int64)
            self.offsets = np.concatenate([self.offsets,
                                           len(self.flat) + np.cumsum(sizes) - sizes])
            self.sizes = np.concatenate([self.sizes, sizes])
            self.elements += [a.element] * groups
            self._wrapping(a.element, groups)
            self.flat = np.concatenate([self.flat, np.zeros(int(sizes.sum()), np.int64)])
        self.checked = len(self.names)
        self.touches = _Touches(len(self.flat))
        if self.ordered:
            self.writes.names = self.names[:self.shared] + [
                f"{a.name}@{g}" for a in arrays for g in range(groups)]
        return refs

    def allocate(self, gids: Lanes, sizes: Array, element: Type = I32) -> Array:
        """A fresh zeroed buffer of `element`s for each lane (alloc()'s, a private
        array's); returns their references. Private to the workitem (a reference cannot
        leave it), so neither the race rule nor the write logs (what the checker replays
        onto the case's buffers) see them."""
        refs = np.arange(len(self.names), len(self.names) + len(gids), dtype=np.int64)
        self.names += [f"<alloc {g}.{r}>" for g, r in zip(gids.tolist(), refs.tolist())]
        is32 = element in (I32, F32)
        self.dtypes += [np.dtype(np.int32 if is32 else np.int64)] * len(gids)
        self.offsets = np.concatenate([self.offsets, len(self.flat) + np.cumsum(sizes) - sizes])
        self.sizes = np.concatenate([self.sizes, sizes.astype(np.int64)])
        self.elements += [element] * len(gids)
        self._wrapping(element, len(gids))
        self.flat = np.concatenate([self.flat, np.zeros(int(sizes.sum()), np.int64)])
        return refs

    def _wrapping(self, element: Type, count: int) -> None:
        """`count` new buffers of `element`s: what their stores wrap to."""
        wraps = _wraps(element)
        self.wraps = np.concatenate([self.wraps, np.full(count, wraps, dtype=np.int8)])
        self.narrow = self.narrow or wraps > 1

    def private(self, gids: Lanes, length: int, element: Type) -> Array:
        """A zeroed private array of `length` `element`s for each lane: one whose
        activation ended where there is one (`release`), else a fresh one."""
        dead = self.dead_privates.get((element, length), [])
        reused = [dead.pop() for _ in range(min(len(dead), len(gids)))]
        for ref in reused:
            self.zero(ref)
        fresh = self.allocate(gids[len(reused):],
                              np.full(len(gids) - len(reused), length, np.int64), element)
        return np.concatenate([np.array(reused, dtype=np.int64), fresh])

    def release(self, refs: Array) -> None:
        """Private arrays whose activation ended (no reference to one can outlive it)."""
        for ref in refs.tolist():
            key = (self.elements[ref], int(self.sizes[ref]))
            self.dead_privates.setdefault(key, []).append(ref)

    def zero(self, ref: int) -> None:
        start = int(self.offsets[ref])
        self.flat[start:start + int(self.sizes[ref])] = 0

    def in_bounds(self, refs: Array, index: Array) -> Array:
        return (index >= 0) & (index < self.sizes[refs])

    def _wrap_to(self, refs: Array, values: Array) -> Array:
        """Values wrapped to the type of each lane's buffer's elements."""
        wraps = self.wraps[refs]
        if not self.narrow:
            return np.where(wraps != 0, _wrap(values, I32), values)
        out = values
        for k in set(wraps.tolist()):  # a few types among many lanes
            if k:
                out = np.where(wraps == k, _wrap(values, _WRAPS[k]), out)
        return out

    def _touch(self, gid: int, ref: int, index: int, kind: int) -> None:
        """The race rule for one access, against the accesses before it."""
        group = gid // self.group
        name = self.names[ref]
        if ref >= self.shared:  # a workgroup array: its group's own instance
            name = f"workgroup {group}'s {name}"
        rec = self.touched.setdefault((name, index), [({}, []), ({}, []), ({}, [])])
        what = ("stores to", "loads", "atomically updates")  # any atomic's kind
        key = (group, int(self.epochs[group]))
        # kind 0 (store) conflicts with everything; a load with stores and atomics; an
        # atomic with stores and loads.
        conflicts = {STORE: (STORE, LOAD, ATOMIC), LOAD: (STORE, ATOMIC),
                     ATOMIC: (STORE, LOAD)}[kind]
        for c in conflicts:
            same_epoch, groups = rec[c]
            others = [g for grp, g in groups if grp != group] + \
                [g for g in same_epoch.get(key, ()) if g != gid]
            if others:
                raise OracleError(
                    "race",
                    f"workitem {others[0]} {what[c]} {name}[{index}] and workitem {gid} "
                    f"{what[kind]} it" + self._between(others[0], gid),
                )
        same_epoch, groups = rec[kind]
        mine = same_epoch.setdefault(key, [])
        if gid not in mine and len(mine) < 2:
            mine.append(gid)
        if len(groups) < 2 and all(grp != group for grp, _ in groups):
            groups.append((group, gid))

    def _between(self, a: int, b: int) -> str:
        """Where two racing workitems of a synchronising kernel stand, when no barrier
        tells their accesses apart."""
        if not self.synchronises:
            return ""
        if a // self.group != b // self.group:
            return f" (workgroups {a // self.group} and {b // self.group}: no barrier orders them)"
        return (f" (workgroup {b // self.group}, between the same two barriers: after "
                f"barrier {int(self.epochs[b // self.group])})")

    def _access(self, kind: int, gids: Lanes, refs: Array, index: Array) -> Array:
        """Apply the race rule to in-bounds accesses (lanes ascending, as the semantics
        orders a statement's lanes); returns their locations in `flat`."""
        checked = (refs < self.checked) & ~self.unrun[gids]
        if self.exact_races:
            for g, r, i in zip(gids[checked].tolist(), refs[checked].tolist(),
                               index[checked].tolist()):
                self._touch(g, r, i, kind)
        where = self.offsets[refs] + index
        if not self.exact_races:
            if self.synchronises:
                lanes = gids[checked]
                self.accesses.append((kind, where[checked], lanes,
                                      self.epochs[lanes // self.group]))
            else:
                self.touches.add(kind, where[checked], gids[checked])
        return where

    def racy(self) -> bool:
        """Whether the lockstep run's accesses break the race rule (`_Touches.racy`):
        in a synchronising kernel, between workitems of two groups anywhere, and between
        two workitems of one group between the same two barriers."""
        if not self.synchronises:
            return self.touches.racy()
        if not self.accesses:
            return False
        kinds, where, gids, epochs = (np.concatenate(c) for c in zip(*(
            (np.full(len(w), k), w, g, e) for k, w, g, e in self.accesses)))
        if not len(where):
            return False
        across = _Touches(len(self.flat))  # group numbers stand for the workitems
        for k in (STORE, LOAD, ATOMIC):
            mask = kinds == k
            across.add(k, where[mask], gids[mask] // self.group)
        if across.racy():
            return True
        # one key per (location, group, epoch): a race within it is between workitems
        keys = np.stack([where, gids // self.group, epochs], axis=1)
        _, key = np.unique(keys, axis=0, return_inverse=True)
        key = key.reshape(-1)
        within = _Touches(int(key.max()) + 1)
        for k in (STORE, LOAD, ATOMIC):
            mask = kinds == k
            within.add(k, key[mask], gids[mask])
        return within.racy()

    def _log(self, gids: Lanes, refs: Array, index: Array, values: Array,
             atomic: bool, old: Array | None = None, order: Array | None = None) -> None:
        # workgroup arrays (but in a kernel whose atomics are ordered) and alloc()'s
        # buffers: not logged
        keep = refs < (self.checked if self.ordered else self.shared)
        if keep.any():
            lanes = gids[keep]
            epochs = self.epochs[lanes // self.group] if self.synchronises else None
            self.writes.add(lanes, refs[keep], index[keep], values[keep], atomic, epochs,
                            None if old is None else old[keep],
                            None if order is None else order[keep])

    def load(self, gids: Lanes, refs: Array, index: Array) -> Array:
        return self.flat[self._access(LOAD, gids, refs, index)]

    def store(self, gids: Lanes, refs: Array, index: Array, values: Array) -> None:
        where = self._access(STORE, gids, refs, index)
        values = self._wrap_to(refs, values)
        self.flat[where] = values
        if self.trails:
            for at in where.tolist():
                self.trails.pop(at, None)
        self._log(gids, refs, index, values, atomic=False)

    def atomic_add(self, gids: Lanes, refs: Array, index: Array, values: Array) -> None:
        where = self._access(ATOMIC, gids, refs, index)
        np.add.at(self.flat, where, values)  # lanes adding to one location each count
        self.flat[where] = self._wrap_to(refs, self.flat[where])
        self._log(gids, refs, index, self._wrap_to(refs, values), atomic=True)

    def atomic_op(self, op: str, gids: Lanes, refs: Array, index: Array, values: Array,
                  compare: Array | None,
                  returned: Callable[[list[int]], list[int | None]]) -> Array:
        """An ordered atomic (docs/semantics.md, "Atomics that return") of each lane in
        turn (lanes ascending); returns the old values. `returned(gids)` is, for each,
        the target's reported old value for the workitem's next atomic, or None: then
        the value the location holds here. Memory follows the oracle's own order (so that values not
        reported are some order's); the log holds each atomic's edge: the old value it
        returned and what it leaves given that value, which the checker orders."""
        where = self._access(ATOMIC, gids, refs, index)
        told = returned(gids.tolist())
        # a replay that synchronises follows each location's atomics (`_follow`)
        before = self.flat[where].copy() if self.synchronises and any(
            t is not None for t in told) else None
        types = {self.elements[r] for r in set(refs.tolist())}
        if len(types) == 1 and op in _COMMUTING and None not in told:
            # every lane replays a reported value, and the memory's own order does not
            # matter (add, min, max, and, or, xor): all lanes at once
            (ty,) = types
            olds = _wrap(np.array([(t or 0) % (1 << 64) for t in told], dtype=np.uint64)
                         .view(np.int64), ty)
            news = _atomic_result(op, olds, values, compare, ty)
            mem = self.flat.view(np.uint64) if ty is U64 and op in ("min", "max") \
                else self.flat
            _COMMUTING[op].at(mem, where, values.view(mem.dtype))
            self.flat[where] = _wrap(self.flat[where], ty)
            reported = np.full(len(gids), RETURNED, dtype=np.int8)
            self._log(gids, refs, index, news, True, olds, reported)
            self._follow(gids, where, before, olds, news, reported)
            return olds
        if len(types) == 1 and op in _COMMUTING and all(t is None for t in told):
            # the oracle's own order, lanes ascending: at each location, each lane's old
            # value is the fold of the lanes before it (one accumulate per location)
            (ty,) = types
            unsigned = ty is U64 and op in ("min", "max")
            ufunc = _COMMUTING[op]
            olds = np.zeros(len(gids), dtype=np.int64)
            order = np.argsort(where, kind="stable")
            at = where[order]
            starts = np.flatnonzero(np.r_[True, at[1:] != at[:-1]]).tolist() + [len(at)]
            for lo, hi in zip(starts, starts[1:]):
                lanes = order[lo:hi]
                run = np.concatenate([self.flat[at[lo]:at[lo] + 1], values[lanes]])
                if unsigned:
                    run = ufunc.accumulate(run.view(np.uint64)).view(np.int64)
                else:
                    run = ufunc.accumulate(run)
                run = _wrap(run, ty)
                olds[lanes] = run[:-1]
                self.flat[at[lo]] = run[-1]
            news = _atomic_result(op, olds, values, compare, ty)
            self._log(gids, refs, index, news, True, olds,
                      np.full(len(gids), FRESH, dtype=np.int8))
            return olds
        if len(types) == 1 and op in ("exchange", "compare_exchange"):
            # each lane in turn, in plain ints (a numpy call a lane cost the most here):
            # the memory takes the value, or keeps its own where the compare fails; each
            # lane's old value is the one it found, or the one reported
            (ty,) = types
            flat, vals = self.flat, values.tolist()
            swaps = [None] * len(vals) if compare is None else compare.tolist()
            found = []
            for at, v, c in zip(where.tolist(), vals, swaps):
                held = int(flat[at])
                found.append(held)
                if c is None or held == c:
                    flat[at] = v
            told_bits = np.array([(t or 0) % (1 << 64) for t in told], dtype=np.uint64)
            reported = np.array([t is not None for t in told], dtype=bool)
            olds = np.where(reported, _wrap(told_bits.view(np.int64), ty),
                            np.array(found, dtype=np.int64))
            news = _atomic_result(op, olds, values, compare, ty)
            order = np.where(reported, RETURNED, FRESH).astype(np.int8)
            self._log(gids, refs, index, news, True, olds, order)
            self._follow(gids, where, before, olds, news, order)
            return olds
        olds = np.zeros(len(gids), dtype=np.int64)
        news = np.zeros(len(gids), dtype=np.int64)
        order = np.zeros(len(gids), dtype=np.int8)
        for k, (g, r, at) in enumerate(zip(gids.tolist(), refs.tolist(), where.tolist())):
            ty = self.elements[r]
            cur = np.array([self.flat[at]], dtype=np.int64)
            v = values[k:k + 1]
            c = None if compare is None else compare[k:k + 1]
            self.flat[at] = _atomic_result(op, cur, v, c, ty)[0]
            t = told[k]
            old = cur if t is None else _wrap(np.array([t % (1 << 64)], dtype=np.uint64)
                                              .view(np.int64), ty)
            olds[k], order[k] = old[0], FRESH if t is None else RETURNED
            news[k] = _atomic_result(op, old, v, c, ty)[0]
        self._log(gids, refs, index, news, True, olds, order)
        self._follow(gids, where, before, olds, news, order)
        return olds

    def _follow(self, gids: Lanes, where: Array, before: Array | None, olds: Array,
                news: Array, order: Array) -> None:
        """Adds a replay's atomics to their locations' trails. Memory took them in the
        oracle's order, which for an exchange (or atomics of different kinds) leaves
        another value than the target's order: where the kernel reads the location after
        a barrier, that must be the end of the target's (`settle`)."""
        if before is None:
            return
        for k, (g, at) in enumerate(zip(gids.tolist(), where.tolist())):
            trail = self.trails.get(at)
            if trail is None:
                trail = self.trails[at] = _Trail(int(before[k]))
            trail.edges.append(Edge(g, g // self.group, 0, int(olds[k]), int(news[k])))
            trail.reported = trail.reported and order[k] == RETURNED

    def settle(self, groups: list[int]) -> None:
        """At a barrier of `groups`: each location that only their atomics took since
        the last barrier or store holds the end of the target's order of them (where
        the returned values allow one; else the checker's R4 fails the case anyway).
        Locations that several groups' atomics took are left: no barrier orders a read
        of them."""
        if not self.trails:
            return
        passing = set(groups)
        for at, trail in list(self.trails.items()):
            mine = {e.group for e in trail.edges}
            if len(mine) == 1 and mine <= passing:
                end = trail_end(trail.start, trail.edges) if trail.reported else None
                if end is not None:
                    self.flat[at] = end
                del self.trails[at]

    def final(self) -> dict[str, np.ndarray]:
        return {name: self.flat[off:off + size].astype(dtype)
                for name, off, size, dtype in zip(self.names[:self.shared],
                                                  self.offsets.tolist(), self.sizes.tolist(),
                                                  self.dtypes)}


class _Run:
    """Executes groups of workitems (the whole launch, or one wave) in lockstep."""

    def __init__(self, prog: n.Program, mem: _Memory, n_items: int, wave: int,
                 budget: int, group: int, workgroup_arrays: dict[str, Array],
                 returned: list[list[int]] | None = None) -> None:
        self.prog = prog
        # ordered atomics: the target's returned values to replay, how many of each
        # workitem's the run used, and the values the run's atomics returned
        self.reported = returned
        self.used = [0] * n_items
        self.returned: list[list[int]] = [[] for _ in range(n_items)] if mem.ordered else []
        self.mem = mem
        self.n_items = n_items
        self.wave = wave
        self.group = group
        self.workgroup_arrays = workgroup_arrays  # name -> its instances by group
        self.ended = np.zeros(n_items, dtype=bool)  # returned from the kernel
        self.budget = budget
        self.fates: list[Fault | None] = [None] * n_items
        self.steps = np.zeros(n_items, dtype=np.int64)
        self.exhausted: list[int] = []
        self.dead = np.zeros(n_items, dtype=bool)  # faulted or out of budget
        self.partial_wave_op: str | None = None  # FullRun.partial_wave_op
        self.subnormal: str | None = None  # FullRun.subnormal
        # FullRun.edges: the edge values operations met (a replay's are its first run's)
        self.edges = Edges() if returned is None else Unnoted()
        self.work = 0  # statements and expressions evaluated (once per lockstep group)

    # --------------------------------------------------------------- helpers

    def fault(self, act: _Activation, lanes: Lanes, kind: str, line: int,
              codes: list[int] | None = None) -> None:
        stack = act.callers + (Frame(act.fn.name, line),)
        for k, g in enumerate(lanes.tolist()):
            self.fates[g] = Fault(kind, stack, None if codes is None else codes[k])
        self.dead[lanes] = True

    def trip(self, lanes: Lanes) -> Lanes:
        """Count a loop trip for each lane; a lane past its budget stops for good (it
        neither completes nor faults). Returns the lanes that go on."""
        self.steps[lanes] += 1
        over = self.steps[lanes] > self.budget
        if over.any():
            self.exhausted += lanes[over].tolist()
            self.dead[lanes[over]] = True
            return lanes[~over]
        return lanes

    def live(self, lanes: Lanes) -> Lanes:
        return lanes[~self.dead[lanes]]

    def in_bounds(self, act: _Activation, lanes: Lanes, refs: Array, index: Array,
                  line: int) -> Array:
        """Which lanes' accesses are in bounds; the others fault at `line`."""
        ok = self.mem.in_bounds(refs, index)
        if not ok.all():
            self.fault(act, lanes[~ok], "out_of_bounds", line)
        return ok

    # ------------------------------------------------------------- functions

    def call(self, fn: n.Function, lanes: Lanes, args: list[Array],
             callers: tuple[Frame, ...]) -> tuple[Lanes, Array | None]:
        """Run `fn` for `lanes`; the lanes that come back and their return values (None
        for a function without a value)."""
        act = _Activation(fn, callers, self.n_items)
        for p, a in zip(fn.params, args):
            act.set(p.name, lanes, a)
        fell_through = self.block(act, fn.body, lanes)
        for name, held in act.privates.items():  # they die with the activation
            self.mem.release(act.env[name][held])
        if fn.returns is None:
            back = _union([fell_through] + [r for r, _ in act.returned])
            return self.live(back), None
        assert not len(fell_through), f"{fn.name} fell off its end"  # the checker's rule
        back, values = _merge([(r, v) for r, v in act.returned if v is not None],
                              _dtype(fn.returns))
        keep = ~self.dead[back]
        return back[keep], values[keep]

    def call_site(self, act: _Activation, c: n.Call, lanes: Lanes
                  ) -> tuple[Lanes, Array | None]:
        args_lanes, args = self._args(act, c.args, lanes)
        callers = act.callers + (Frame(act.fn.name, c.line),)
        return self.call(self.prog.function(c.func), args_lanes, args, callers)

    # ------------------------------------------------------------ statements

    def block(self, act: _Activation, stmts: tuple[n.Stmt, ...], lanes: Lanes) -> Lanes:
        for s in stmts:
            if not len(lanes):
                break
            self.work += 1
            if self.work > MAX_WORK:
                self._too_much(s.line)
            lanes = _STATEMENTS[type(s)](self, act, s, lanes)
        return lanes

    def s_Assign(self, act: _Activation, s: n.Assign, lanes: Lanes) -> Lanes:
        done, values = self.evaluate(act, s.value, lanes)
        act.set(s.target, done, values)
        return done

    def s_Store(self, act: _Activation, s: n.Store, lanes: Lanes) -> Lanes:
        # The value first, then the index, then the bounds check.
        got, values = self.evaluate(act, s.value, lanes)
        done, index = self.evaluate(act, s.index, got)
        values = _at(got, values, done)
        refs = act.get(s.buffer, done)
        ok = self.in_bounds(act, done, refs, index, s.line)
        values = values[ok]
        self.mem.store(done[ok], refs[ok], index[ok],
                       _float_bits(values) if values.dtype.kind == "f" else values)
        return done[ok]

    def s_AtomicAdd(self, act: _Activation, s: n.AtomicAdd, lanes: Lanes) -> Lanes:
        if self.mem.ordered:  # an add among ordered atomics is one of them
            return self.e_AtomicOp(act, n.AtomicOp("add", s.buffer, (s.index, s.value),
                                                   line=s.line, ty=I64), lanes)[0]
        # Arguments left to right (buffer, index, value), then the bounds check.
        got, index = self.evaluate(act, s.index, lanes)
        done, values = self.evaluate(act, s.value, got)
        index = _at(got, index, done)
        refs = act.get(s.buffer, done)
        ok = self.in_bounds(act, done, refs, index, s.line)
        self.mem.atomic_add(done[ok], refs[ok], index[ok], values[ok])
        return done[ok]

    def s_If(self, act: _Activation, s: n.If, lanes: Lanes) -> Lanes:
        done, cond = self.evaluate(act, s.cond, lanes)
        then, orelse = done[cond], done[~cond]
        out = self.block(act, s.then, then) if len(then) else then
        out_else = self.block(act, s.orelse, orelse) if len(orelse) else orelse
        return self.live(_union([out, out_else]))

    def s_For(self, act: _Activation, s: n.For, lanes: Lanes) -> Lanes:
        got, start_values = self.evaluate(act, s.start, lanes)
        iterating, stop_values = self.evaluate(act, s.stop, got)
        # Each lane's bounds, by gid (evaluated once, at entry).
        start = np.zeros(self.n_items, dtype=np.int64)
        stop = np.zeros(self.n_items, dtype=np.int64)
        start[iterating] = _at(got, start_values, iterating)
        stop[iterating] = stop_values
        if s.start.ty is U64:  # compared as the values they are (2^63 and up: negative)
            start, stop = start.view(np.uint64), stop.view(np.uint64)
        left: list[Lanes] = []  # lanes that finished the range or broke out
        trip = 0
        while True:
            # A lane iterating at this trip ran the trip before, so start + trip - 1 <
            # stop: start + trip cannot overflow.
            more = start[iterating] + trip < stop[iterating]
            left.append(iterating[~more])
            active = self.trip(iterating[more])  # a step is a loop trip (empty bodies too)
            if not len(active):
                break
            act.set(s.var, active, (start[active] + trip).view(np.int64))
            loop = _Loop()
            act.loops.append(loop)
            done = self.block(act, s.body, active)
            act.loops.pop()
            left += loop.broken
            iterating = self.live(_union([done] + loop.continued))
            trip += 1
        return self.live(_union(left))

    def s_While(self, act: _Activation, s: n.While, lanes: Lanes) -> Lanes:
        iterating = lanes
        left: list[Lanes] = []  # lanes that broke out
        while True:
            active = self.trip(iterating)  # every trip is a step of each lane making it
            if not len(active):
                break
            loop = _Loop()
            act.loops.append(loop)
            done = self.block(act, s.body, active)
            act.loops.pop()
            left += loop.broken
            iterating = self.live(_union([done] + loop.continued))
        return self.live(_union(left))

    def s_Break(self, act: _Activation, s: n.Break, lanes: Lanes) -> Lanes:
        act.loops[-1].broken.append(lanes)
        return lanes[:0]

    def s_Continue(self, act: _Activation, s: n.Continue, lanes: Lanes) -> Lanes:
        act.loops[-1].continued.append(lanes)
        return lanes[:0]

    def s_Return(self, act: _Activation, s: n.Return, lanes: Lanes) -> Lanes:
        if not act.callers:
            self.ended[lanes] = True  # for the barriers the rest of the group meets
        if s.value is None:
            act.returned.append((lanes, None))
        else:
            act.returned.append(self.evaluate(act, s.value, lanes))
        return lanes[:0]

    def s_Fail(self, act: _Activation, s: n.Fail, lanes: Lanes) -> Lanes:
        done, codes = self.evaluate(act, s.code, lanes)
        self.fault(act, done, "fail", s.line, codes.tolist())
        return lanes[:0]

    def s_CallStmt(self, act: _Activation, s: n.CallStmt, lanes: Lanes) -> Lanes:
        return self.call_site(act, s.call, lanes)[0]

    def s_LocalArray(self, act: _Activation, s: n.LocalArray, lanes: Lanes) -> Lanes:
        act.set(s.name, lanes, self.workgroup_arrays[s.name][lanes // self.group])
        return lanes

    def s_PrivateArray(self, act: _Activation, s: n.PrivateArray, lanes: Lanes) -> Lanes:
        """Each time the declaration runs: an array of zeros per lane -- a fresh one the
        first time in this activation, the lane's own zeroed again after (the same
        values: no other reference to it can be left)."""
        held = act.privates.get(s.name)
        if held is None:
            held = act.privates[s.name] = np.zeros(self.n_items, dtype=bool)
        again = lanes[held[lanes]]
        for ref in (act.get(s.name, again).tolist() if len(again) else ()):
            self.mem.zero(ref)
        fresh = lanes[~held[lanes]]
        if len(fresh):
            act.set(s.name, fresh, self.mem.private(fresh, s.length, s.element))
            held[fresh] = True
        return lanes

    def s_Barrier(self, act: _Activation, s: n.Barrier, lanes: Lanes) -> Lanes:
        """Every workitem of each group here that has neither faulted nor run out of
        budget must be here too (then all of them pass together, and their group's
        epoch advances); else the kernel is outside the semantics."""
        groups = lanes // self.group
        present = np.unique(groups)
        here = np.zeros(self.n_items, dtype=bool)
        here[lanes] = True
        for g in present.tolist():
            members = np.arange(g * self.group, min((g + 1) * self.group, self.n_items))
            missing = members[~self.dead[members] & ~here[members]]
            if len(missing):
                b = int(missing[0])
                a = int(lanes[np.searchsorted(groups, g)])
                why = ("returned from the kernel: a kernel returns before a barrier only "
                       "where its whole workgroup does" if self.ended[b] else
                       "is elsewhere: control flow that reaches a barrier is uniform over "
                       "the workgroup, the same iterations of the same loops")
                raise OracleError(
                    "barrier", f"workitem {a} of workgroup {g} reaches barrier() at line "
                    f"{s.line} but workitem {b} {why}")
        self.mem.settle(present.tolist())
        self.mem.epochs[present] += 1
        return lanes

    # ----------------------------------------------------------- expressions

    def evaluate(self, act: _Activation, e: n.Expr, lanes: Lanes) -> Vals:
        if not len(lanes):
            return lanes, np.zeros(0, dtype=_dtype(e.ty))
        self.work += 1
        if self.work > MAX_WORK:
            self._too_much(e.line)
        result: Vals = _EXPRESSIONS[type(e)](self, act, e, lanes)
        if (e.ty is F32 or e.ty is F64) and self.subnormal is None:
            values = result[1]
            smallest = _F32_SMALLEST_NORMAL if e.ty is F32 else 2.0 ** -1022
            tiny = (values != 0) & (np.abs(values) < smallest)
            if tiny.any():
                self.subnormal = (f"a subnormal {e.ty} "
                                  f"({fmt(e.ty).shortest(float(values[tiny][0]))}) "
                                  f"at line {e.line}")
        return result

    def _too_much(self, line: int) -> NoReturn:
        raise OracleError(
            "work", f"the kernel asks the reference for more than {MAX_WORK:,} "
            f"evaluations of statements and expressions (the limit was reached at line "
            f"{line}); the oracle cannot judge a kernel this long: lower its loop trips "
            "or the work in its loops")

    def e_Const(self, act: _Activation, e: n.Const, lanes: Lanes) -> Vals:
        value = storage(int(e.value), e.ty) if e.ty is U64 else e.value  # a u64 by its bits
        return lanes, np.full(len(lanes), value, dtype=_dtype(e.ty))

    def e_Name(self, act: _Activation, e: n.Name, lanes: Lanes) -> Vals:
        return lanes, act.get(e.id, lanes)

    def e_WorkId(self, act: _Activation, e: n.WorkId, lanes: Lanes) -> Vals:
        which = e.which
        if which == "gid":
            return lanes, lanes
        if which == "lane":
            return lanes, lanes % self.wave
        if which == "wave":
            return lanes, lanes // self.wave
        if which == "local_id":
            return lanes, lanes % self.group
        if which == "group_id":
            return lanes, lanes // self.group
        assert which == "group_size", which
        return lanes, np.full(len(lanes), self.group, dtype=np.int64)

    def e_Unary(self, act: _Activation, e: n.Unary, lanes: Lanes) -> Vals:
        done, v = self.evaluate(act, e.operand, lanes)
        if e.op == "not":
            return done, ~v
        if e.ty is F32 or e.ty is F64:  # flips the sign bit, of a zero or a NaN too
            return done, -v
        ty = _int_type(e.ty)
        if e.op == "-":
            return done, _wrap(-v, ty)
        return done, _wrap(~v, ty)

    def e_Binary(self, act: _Activation, e: n.Binary, lanes: Lanes) -> Vals:
        got, a = self.evaluate(act, e.left, lanes)
        done, b = self.evaluate(act, e.right, got)
        a = _at(got, a, done)
        if e.ty is F32 or e.ty is F64:
            self.edges.note_f32_arith([a, b])
            with np.errstate(all="ignore"):  # overflow to inf, inf - inf: IEEE's answers
                return done, (a + b if e.op == "+" else a - b if e.op == "-" else a * b)
        self.edges.note_int_binary(e.op, a, b, _int_type(e.ty))
        if e.op in ("//", "%"):
            zero = b == 0
            if zero.any():
                self.fault(act, done[zero], "division_by_zero", e.line)
                done, a, b = done[~zero], a[~zero], b[~zero]
        return done, _ARITH[e.op](a, b, _int_type(e.ty))

    def e_Compare(self, act: _Activation, e: n.Compare, lanes: Lanes) -> Vals:
        got, a = self.evaluate(act, e.left, lanes)
        done, b = self.evaluate(act, e.right, got)
        a = _at(got, a, done)
        if a.dtype.kind == "f":
            self.edges.note_f32_compare(a, b)
        elif e.left.ty is not None and e.left.ty.is_int:
            self.edges.note_int_compare(a, b, e.left.ty)
        if e.left.ty is U64 or e.right.ty is U64:  # a u64 compares as unsigned
            a, b = _unsigned(a), _unsigned(b)
        with np.errstate(invalid="ignore"):  # a NaN compares false (!= true)
            return done, _COMPARE[e.op](a, b)

    def e_Logic(self, act: _Activation, e: n.Logic, lanes: Lanes) -> Vals:
        done, left = self.evaluate(act, e.left, lanes)
        short = e.op == "or"  # the left value that decides without the right side
        decided = left == short
        settled = done[decided]
        return _merge([(settled, np.full(len(settled), short)),
                       self.evaluate(act, e.right, done[~decided])], np.bool_)

    def e_Select(self, act: _Activation, e: n.Select, lanes: Lanes) -> Vals:
        done, cond = self.evaluate(act, e.cond, lanes)
        return _merge([self.evaluate(act, e.then, done[cond]),
                       self.evaluate(act, e.orelse, done[~cond])], _dtype(e.ty))

    def e_Load(self, act: _Activation, e: n.Load, lanes: Lanes) -> Vals:
        done, index = self.evaluate(act, e.index, lanes)
        refs = act.get(e.buffer, done)
        ok = self.in_bounds(act, done, refs, index, e.line)
        loaded = self.mem.load(done[ok], refs[ok], index[ok])
        return done[ok], _float_values(loaded, e.ty) if e.ty is F32 or e.ty is F64 \
            else loaded

    def e_AtomicOp(self, act: _Activation, e: n.AtomicOp, lanes: Lanes) -> Vals:
        # Arguments left to right (buffer, index, compare, value), then the bounds check.
        done = lanes
        args: list[Array] = []
        for a in e.args:
            got, v = self.evaluate(act, a, done)
            args = [_at(done, x, got) for x in args] + [v]
            done = got
        refs = act.get(e.buffer, done)
        ok = self.in_bounds(act, done, refs, args[0], e.line)
        args = [x[ok] for x in args]
        lanes = done[ok]
        olds = self.mem.atomic_op(e.op, lanes, refs[ok], args[0], args[-1],
                                  args[1] if len(args) == 3 else None, self._reported)
        for g, old in zip(lanes.tolist(), olds.tolist()):
            self.returned[g].append(old)
        return lanes, olds

    def _reported(self, gids: list[int]) -> list[int | None]:
        """The target's returned value for each workitem's next atomic (None: none
        left); counts the atomic as taken. A call per atomic, not per lane: a launch's
        atomics are hundreds of lanes each."""
        used, rep = self.used, self.reported
        if rep is None:
            for g in gids:
                used[g] += 1
            return [None] * len(gids)
        told: list[int | None] = []
        items = len(rep)
        for g in gids:
            k = used[g]
            used[g] = k + 1
            mine = rep[g] if g < items else ()
            told.append(mine[k] if k < len(mine) else None)
        return told

    def e_Len(self, act: _Activation, e: n.Len, lanes: Lanes) -> Vals:
        return lanes, self.mem.sizes[act.get(e.buffer, lanes)]

    def e_Alloc(self, act: _Activation, e: n.Alloc, lanes: Lanes) -> Vals:
        done, size = self.evaluate(act, e.size, lanes)
        ok = (size >= 0) & (size <= n.ALLOC_MAX)
        if not ok.all():
            self.fault(act, done[~ok], "out_of_bounds", e.line)
        return done[ok], self.mem.allocate(done[ok], size[ok])

    def e_Cast(self, act: _Activation, e: n.Cast, lanes: Lanes) -> Vals:
        done, v = self.evaluate(act, e.operand, lanes)
        source = e.operand.ty
        if e.ty is F32 or e.ty is F64:
            if v.dtype.kind == "f":  # the same type; f64 to f32 rounds (once), the other
                if v.dtype == np.float64 and e.ty is F32:  # way is exact
                    self.edges.note_f64_to_f32(v)
                with np.errstate(over="ignore"):  # past f32's range: an infinity
                    return done, v.astype(_dtype(e.ty))
            if source is not None and source.is_int:
                self.edges.note_int_to_f32(v, source, wide=e.ty is F64)
            return done, _float_from_int(v.astype(np.int64), source if source is not None
                                       and source.is_int else I32, e.ty)
        ty = _int_type(e.ty)
        if v.dtype.kind == "f":  # truncation; NaN and what the type cannot hold fault
            self.edges.note_f32_to_int(v, ty)
            lo, hi = int_range(ty)
            t = np.trunc(v.astype(np.float64))  # exact: binary64 holds every binary32
            with np.errstate(invalid="ignore"):  # the bounds as powers of two: exact
                ok = (t >= float(lo)) & (t < float(hi + 1))  # false for NaN
            if not ok.all():
                self.fault(act, done[~ok], "invalid_conversion", e.line)
                done, t = done[ok], t[ok]
            if ty is U64:  # 2^63 and up: through the unsigned view
                return done, t.astype(np.uint64).view(np.int64)
            return done, t.astype(np.int64)
        if source is not None and source.is_int:
            self.edges.note_int_convert(v, source, ty)
        return done, _wrap(v.astype(np.int64), ty)

    def e_MathOp(self, act: _Activation, e: n.MathOp, lanes: Lanes) -> Vals:
        done, args = self._args(act, e.args, lanes)
        ty = e.ty
        assert ty is not None
        if e.op in n.BALLOT_FUNCTIONS:
            return done, self._ballot_function(e.op, args[0], done % self.wave)
        if ty.is_int:
            self.edges.note_int_function(e.op, args, ty)
            return done, self._int_math(e.op, args, ty)
        if e.op == "abs":
            return done, np.abs(args[0])
        if e.op == "fma":  # one rounding of the exact a * b + c
            self.edges.note_f32_arith(args)
            return done, fmt(ty).fma_lanes(*args)
        self.edges.note_f32_minmax(args[0], args[1])
        return done, _float_pick(args[0], args[1], smaller=e.op == "min")

    def _ballot_function(self, op: str, ballot: Array, lane: Array) -> Array:
        """The ballot functions (docs/semantics.md, "Ballot arithmetic"): of the wave's W
        bits of each lane's ballot, relative to the lane's own index; a find of no bit
        is -1."""
        mask = (1 << self.wave) - 1
        out = []
        for b, l in zip(ballot.tolist(), lane.tolist()):
            m = (b % (1 << 64)) & mask
            if op == "inverse_ballot":
                out.append((m >> l) & 1 == 1)
            elif op == "ballot_bit_count":
                out.append(m.bit_count())
            elif op == "ballot_inclusive_bit_count":
                out.append((m & ((2 << l) - 1)).bit_count())
            elif op == "ballot_exclusive_bit_count":
                out.append((m & ((1 << l) - 1)).bit_count())
            elif op == "ballot_find_lsb":
                out.append((m & -m).bit_length() - 1)
            else:
                assert op == "ballot_find_msb", op
                out.append(m.bit_length() - 1)
        return np.array(out, dtype=np.bool_ if op == "inverse_ballot" else np.int64)

    @staticmethod
    def _int_math(op: str, args: list[Array], ty: Type) -> Array:
        """The integer functions (docs/semantics.md, "Bit operations")."""
        if op in n.BIT_OPS:
            return _bit_op(op, args[0], ty)
        if op in n.ROTATE_OPS:
            return _rotate(args[0], args[1], ty, op == "rotate_left")
        if op == "mul_hi":
            return _mul_hi(args[0], args[1], ty)
        if op == "abs":  # of MIN: MIN (the negation wraps); an unsigned value itself
            return _wrap(np.abs(args[0]), ty) if ty.signed else args[0]
        return _int_pick(args[0], args[1], ty, op == "min")

    def _args(self, act: _Activation, args: tuple[n.Expr, ...], lanes: Lanes
              ) -> tuple[Lanes, list[Array]]:
        """Arguments left to right; a lane faulting in one evaluates no later one."""
        got: list[Array] = []
        for a in args:
            done, v = self.evaluate(act, a, lanes)
            got = [_at(lanes, g, done) for g in got] + [v]
            lanes = done
        return lanes, got

    def e_Call(self, act: _Activation, e: n.Call, lanes: Lanes) -> Vals:
        done, values = self.call_site(act, e, lanes)
        assert values is not None, f"{e.func} returns no value"
        return done, values

    def e_WaveOp(self, act: _Activation, e: n.WaveOp, lanes: Lanes) -> Vals:
        active, args = self._args(act, e.args, lanes)  # the lanes that reached the operation
        if not len(active):
            return active, np.zeros(0, dtype=_dtype(e.ty))
        waves = _Waves(active, self.wave)
        if self.partial_wave_op is None:
            self._note_partial(e, active, waves)
        op = e.op
        if op == "elect":
            return active, np.arange(len(active)) == waves.each(waves.first)
        x = args[0]
        if len(args) == 2 and op in n.CLUSTERED_OPS:  # the lanes of each cluster of C
            cluster = int(args[1][0]) if len(args[1]) else 1
            padded = -(-self.wave // cluster) * cluster  # a wave's clusters, whole
            waves = _Waves(active // self.wave * padded + active % self.wave, cluster)
        if op in n.QUAD_OPS:  # a shuffle from the quad's lane i, or the lane across
            lane = waves.lane.astype(np.int64)
            src = (lane & ~3) | args[1].astype(np.int64) if op == "quad_broadcast" \
                else lane ^ n.QUAD_SWAPS[op]
            return active, self._shuffle(active, waves, x, src, e.ty)
        if op == "wave_all_equal":  # every active lane's value the lowest one's
            return active, waves.reduce(np.logical_and, x == waves.each(x[waves.first]))
        if op == "wave_any":
            return active, waves.reduce(np.logical_or, x)
        if op == "wave_all":
            return active, waves.reduce(np.logical_and, x)
        if op == "ballot":  # bit = lane index; the sum of distinct bits is their OR
            bit = np.left_shift(np.uint64(1), waves.lane.astype(np.uint64))
            return active, waves.reduce(np.add, np.where(x, bit, np.uint64(0))).view(np.int64)
        if op == "readfirstlane":
            return active, waves.each(x[waves.first])
        if op == "shuffle":
            return active, self._shuffle(active, waves, x, args[1], e.ty)
        if op in n.RELATIVE_SHUFFLES:  # a shuffle from lane ^ m, lane - d, lane + d
            lane, amount = waves.lane.astype(np.int64), args[1].astype(np.int64)
            with np.errstate(over="ignore"):  # wraps past int64: far outside the wave
                src = lane ^ amount if op == "shuffle_xor" else \
                    lane - amount if op == "shuffle_up" else lane + amount
            return active, self._shuffle(active, waves, x, src, e.ty)
        if e.ty is F32 or e.ty is F64:
            assert op in ("wave_min", "wave_max"), f"{op} takes no float"
            return active, _float_reduce(waves, x, smaller=op == "wave_min")
        ty = _int_type(e.ty)
        if op == "wave_sum":
            return active, _wrap(waves.reduce(np.add, x), ty)
        if op in n.BITWISE_REDUCTIONS:
            fold = {"wave_and": np.bitwise_and, "wave_or": np.bitwise_or,
                    "wave_xor": np.bitwise_xor}[op]
            return active, waves.reduce(fold, x)
        if op in ("wave_min", "wave_max"):
            pick = np.minimum if op == "wave_min" else np.maximum
            if ty is U64:  # the unsigned order of the bits
                return active, waves.reduce(pick, _unsigned(x)).view(np.int64)
            return active, waves.reduce(pick, x)
        inclusive = waves.inclusive_sums(x)
        if op == "prefix_sum":
            return active, _wrap(inclusive - x, ty)
        assert op == "inclusive_sum", op
        return active, _wrap(inclusive, ty)

    def _note_partial(self, e: n.WaveOp, active: Lanes, waves: _Waves) -> None:
        """Record `e` if some wave runs it with fewer than all of its W lanes (lanes past
        n count as missing)."""
        counts = np.diff(np.append(waves.first, len(active)))
        short = np.flatnonzero(counts < self.wave)
        if len(short):
            k = int(short[0])
            wave = int(active[waves.first[k]]) // self.wave
            self.partial_wave_op = (f"{e.op}() at line {e.line} runs in wave {wave} with "
                                    f"{int(counts[k])} of its {self.wave} lanes")

    def _shuffle(self, active: Lanes, waves: _Waves, x: Array, src: Array,
                 ty: Type | None) -> Array:
        """Each lane reads `x` of lane `src` of its own wave, or 0 / False when `src` is
        outside the wave or not active here."""
        in_wave = (src >= 0) & (src < self.wave)
        source = active - waves.lane + np.where(in_wave, src, 0)  # the source's gid
        pos = np.minimum(np.searchsorted(active, source), len(active) - 1)
        found = in_wave & (active[pos] == source)
        zero = False if ty is not None and not ty.is_int else 0
        return np.where(found, x[pos], zero).astype(x.dtype)


#: each node type's method (`_Run.s_If` for an `n.If`): the interpreter's dispatch, a
#: dictionary lookup per node rather than a name built and looked up
_STATEMENTS: dict[type, Callable[..., Lanes]] = {
    getattr(n, name[2:]): f for name, f in vars(_Run).items() if name.startswith("s_")}
_EXPRESSIONS: dict[type, Callable[..., Vals]] = {
    getattr(n, name[2:]): f for name, f in vars(_Run).items() if name.startswith("e_")}


# ------------------------------------------------------------------- entry


def _launch(case: Case, options: dict[str, Any], exact_races: bool,
            returned: list[list[int]] | None = None, races: bool = True,
            skipped: frozenset[int] = frozenset()) -> FullRun:
    """One full run: every wave in one lockstep pass, or (`exact_races`) group after group
    (each group's waves in lockstep) with the race rule applied access by access."""
    budget = trip_budget(options, case.n)
    fn = case.function
    initial = case.buffers()
    group = case.group_size
    synchronises = has_barriers(case.program, case.entry)
    ordered = has_ordered_atomics(case.program, case.entry)
    mem = _Memory(initial, case.n, exact_races, group, synchronises,
                  {p.name: p.ty.element for p in fn.params if p.ty.is_buffer}, ordered)
    if skipped:
        mem.unrun[list(skipped)] = True
    arrays = [s for s in fn.body if isinstance(s, n.LocalArray)]
    refs = mem.add_workgroup_arrays(arrays, -(-case.n // group))
    run = _Run(case.program, mem, case.n, case.wave, budget, group, refs, returned)
    gids = np.arange(case.n, dtype=np.int64)
    if skipped:
        unit = group if synchronises else case.wave  # whole units only (module docstring)
        whole = [u for u in range(0, case.n, unit)
                 if all(g in skipped for g in range(u, min(u + unit, case.n)))]
        drop = np.zeros(case.n, dtype=bool)
        for u in whole:
            drop[u:u + unit] = True
        gids = gids[~drop]
    groups = [gids[(gids >= w) & (gids < w + group)] for w in range(0, case.n, group)] \
        if exact_races else [gids]
    for lanes in groups:
        if not len(lanes):
            continue
        args: list[Array] = []
        for p in fn.params:
            value = mem.names.index(p.name) if p.ty.is_buffer else case.args[p.name]
            args.append(np.full(len(lanes), value, dtype=_dtype(p.ty)))
        run.call(fn, lanes, args, ())
    if races and not exact_races and mem.racy():  # raises OracleError naming the race
        return _launch(case, options, exact_races=True, returned=returned, skipped=skipped)
    unused = [] if returned is None else [
        g for g, r in enumerate(returned[:case.n]) if len(r) > run.used[g]]
    return FullRun(case.n, case.wave, run.fates, mem.writes, initial, mem.final(),
                   sorted(run.exhausted), describe_budget(options, case.n),
                   run.steps.tolist(), run.partial_wave_op, case.group or 0, synchronises,
                   run.subnormal, run.edges.names(), ordered, run.returned, unused,
                   elements={name: mem.elements[b] for b, name in enumerate(mem.names)
                             if name in initial})


def run_full(case: Case, options: dict[str, Any] | None = None,
             returned: list[list[int]] | None = None, races: bool = True,
             skipped: frozenset[int] = frozenset()) -> FullRun:
    """Run every workitem of the case once, under the budgets of `options` (default: the
    case's); raises OracleError for a race. In a kernel whose atomics are ordered,
    `returned` (a target's outcome's) replays the old values the target's atomics
    returned (docs/semantics.md, "Atomics that return"); `races=False` leaves the race
    rule unchecked (a replay whose values may be wrong); the waves (in a kernel that
    synchronises, the workgroups) all of whose workitems are in `skipped` (the target
    never ran them) are not run at all, so that no value the target did not report
    enters the replay's memory."""
    options = case.options if options is None else options
    return _launch(case, options, exact_races=False, returned=returned, races=races,
                   skipped=skipped)
