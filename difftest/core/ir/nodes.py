"""IR nodes of the kernel language: frozen dataclasses, children as tuples.

Invariants every node keeps:
- `line` is the 1-based source line in the kernel text (0 when built by hand); it is
  excluded from equality, so two programs are equal "up to source locations".
- Expressions carry `ty`, their value type. Nodes built by the parser or by hand start with
  `ty=None`; `difftest.core.ir.check()` returns the same tree with every `ty` filled in, and
  only a checked program is handed to an oracle or a target.
- Nodes never change after construction; passes build new trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from .types import Type

_N = TypeVar("_N")

# Operator spellings, as in the source syntax.
ARITH_OPS = ("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>")
COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")
LOGIC_OPS = ("and", "or")
UNARY_OPS = ("-", "~", "not")
WAVE_IDS = ("gid", "lane", "wave")
GROUP_IDS = ("local_id", "group_id", "group_size")  # docs/semantics.md, "Workgroups"
WORK_IDS = WAVE_IDS + GROUP_IDS
#: the most elements a workgroup array holds, and the most bytes a kernel's workgroup
#: arrays hold in all (docs/semantics.md, "Workgroups")
LOCAL_MAX = 4096
#: the largest private array (`Array[T, N]`): small, as what compilers keep in registers
PRIVATE_MAX = 32
LOCAL_BYTES = 16384
#: wave operations: name -> number of arguments.
WAVE_OPS = {
    "wave_sum": 1,
    "wave_min": 1,
    "wave_max": 1,
    "wave_any": 1,
    "wave_all": 1,
    "ballot": 1,
    "readfirstlane": 1,
    "shuffle": 2,
    "prefix_sum": 1,
    "inclusive_sum": 1,
    "elect": 0,
    "shuffle_xor": 2,
    "shuffle_up": 2,
    "shuffle_down": 2,
    "wave_and": 1,
    "wave_or": 1,
    "wave_xor": 1,
    "wave_all_equal": 1,
    "quad_broadcast": 2,
    "quad_swap_horizontal": 1,
    "quad_swap_vertical": 1,
    "quad_swap_diagonal": 1,
}
#: the shuffles relative to the lane: the source is lane ^ mask, lane - delta, lane + delta
#: (docs/semantics.md: then as `shuffle` from that lane)
RELATIVE_SHUFFLES = ("shuffle_xor", "shuffle_up", "shuffle_down")
#: the bitwise reductions of a wave's integers (docs/semantics.md, "Bitwise and clustered
#: reductions")
BITWISE_REDUCTIONS = ("wave_and", "wave_or", "wave_xor")
#: the reductions that take `cluster=C` (written as a second argument, an i32 constant:
#: a power of two 1..64): each cluster of C consecutive lanes reduced on its own
CLUSTERED_OPS = ("wave_sum", "wave_min", "wave_max") + BITWISE_REDUCTIONS
#: the quad operations: a shuffle within the lane's quad (lanes 4q..4q+3) from the quad's
#: lane i (`quad_broadcast(x, i)`, i an i32 constant 0..3) or from the lane across
QUAD_OPS = ("quad_broadcast", "quad_swap_horizontal", "quad_swap_vertical",
            "quad_swap_diagonal")
#: a quad swap's source: the lane ^ this
QUAD_SWAPS = {"quad_swap_horizontal": 1, "quad_swap_vertical": 2, "quad_swap_diagonal": 3}
#: the wave operations whose pairs (`wave@KIND:OP`) a campaign counts: the first eleven
#: (the relative shuffles are shuffles, whose pairs stand for them; the later vocabulary
#: is counted by its own coverage, not by pairs)
PAIRED_WAVE_OPS = ("wave_sum", "wave_min", "wave_max", "wave_any", "wave_all", "ballot",
                   "readfirstlane", "shuffle", "prefix_sum", "inclusive_sum", "elect")
#: the wave operations a float may go through: their results are exact in any lane order
#: (a float sum is not: its rounding depends on the order)
FLOAT_WAVE_OPS = ("readfirstlane", "shuffle", "wave_min", "wave_max") + RELATIVE_SHUFFLES \
    + QUAD_OPS
#: functions of numbers: name -> number of arguments. `fma` takes floats of one type,
#: `min`, `max` and `abs` floats or integers (docs/semantics.md, "32-bit floats"), the
#: bit operations integers ("Bit operations")
MATH_OPS = {"fma": 3, "min": 2, "max": 2, "abs": 1, "popcount": 1, "clz": 1, "ctz": 1,
            "bit_reverse": 1, "rotate_left": 2, "rotate_right": 2, "mul_hi": 2,
            "ballot_bit_count": 1, "ballot_inclusive_bit_count": 1,
            "ballot_exclusive_bit_count": 1, "ballot_find_lsb": 1, "ballot_find_msb": 1,
            "inverse_ballot": 1}
#: the ballot functions: of a ballot (an i64 of lane bits), the wave's bits of it only
#: (lanes 0..W-1), the counts and the lane test relative to the workitem's own lane
#: (docs/semantics.md, "Ballot arithmetic"): lane-local, no other lane is read
BALLOT_FUNCTIONS = ("ballot_bit_count", "ballot_inclusive_bit_count",
                    "ballot_exclusive_bit_count", "ballot_find_lsb", "ballot_find_msb",
                    "inverse_ballot")
#: the bit operations: of one integer, its type's result
BIT_OPS = ("popcount", "clz", "ctz", "bit_reverse")
#: the rotations: of an integer by an amount of any integer type (masked to the width)
ROTATE_OPS = ("rotate_left", "rotate_right")


def _line() -> int:
    return field(default=0, compare=False, kw_only=True)  # type: ignore[return-value]


def _ty() -> Type | None:
    return field(default=None, kw_only=True)  # type: ignore[return-value]


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Const:
    """An integer, boolean or float literal (negative literals are folded in by the
    parser; an f32 one is a finite float that binary32 holds exactly; an f64 one, spelled
    `f64(0.1)`, comes typed F64 from the parser or the IR's JSON)."""

    value: int | bool | float
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Name:
    """A read of a local variable or parameter."""

    id: str
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class WorkId:
    """`gid()`, `lane()` or `wave()`."""

    which: str
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Binary:
    """Arithmetic and bitwise operators; mixed widths widen to i64."""

    op: str
    left: Expr
    right: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Compare:
    """One comparison (chains are not part of the language)."""

    op: str
    left: Expr
    right: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Logic:
    """Short-circuit `and`/`or` on bools: the right side is control flow."""

    op: str
    left: Expr
    right: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Select:
    """`then if cond else orelse`: only the chosen side is evaluated."""

    cond: Expr
    then: Expr
    orelse: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Load:
    """`buffer[index]`; `buffer` names a variable of buffer type."""

    buffer: str
    index: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class AtomicOp:
    """`atomic_<op>(buffer, index, value)` or `atomic_compare_exchange(buffer, index,
    compare, value)`: updates the location and gives its old value. Only an assignment's
    whole value (`old = atomic_max(buf, i, v)`), so that one statement does one atomic and
    every language evaluates it in the same place (docs/semantics.md, "Atomics that
    return")."""

    op: str
    buffer: str
    args: tuple[Expr, ...]  # (index, value) or, for compare_exchange, (index, compare, value)
    line: int = _line()
    ty: Type | None = _ty()


#: the atomics that return, by their name's suffix (`atomic_min`): min and max compare
#: by the element type's signedness
ATOMIC_OPS = ("add", "min", "max", "and", "or", "xor", "exchange", "compare_exchange")


def atomic_parts(e: AtomicOp) -> tuple[Expr, Expr | None, Expr]:
    """(index, compare or None, value)."""
    if e.op == "compare_exchange":
        return e.args[0], e.args[1], e.args[2]
    return e.args[0], None, e.args[1]


@dataclass(frozen=True)
class Len:
    buffer: str
    line: int = _line()
    ty: Type | None = _ty()


#: the largest `alloc(size)`; a size outside 0..ALLOC_MAX faults (out of bounds)
ALLOC_MAX = 1024


@dataclass(frozen=True)
class Alloc:
    """`alloc(size)`: a fresh zeroed `Buffer[i32]` of `size` elements, private to the
    workitem that evaluated it, alive until the launch ends (docs/semantics.md)."""

    size: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Cast:
    """`i32(x)` / `i64(x)`: wraps on narrowing; a bool converts to 0/1; an f32 truncates
    (and faults where the integer type cannot hold it). `f32(x)`: rounds to nearest."""

    to: Type
    operand: Expr
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class MathOp:
    """`fma(a, b, c)` on f32s; `min(a, b)`, `max(a, b)`, `abs(a)` on f32s or integers;
    the bit operations `popcount`, `clz`, `ctz`, `bit_reverse`, `rotate_left(x, n)`,
    `rotate_right(x, n)`, `mul_hi(a, b)` on integers (docs/semantics.md)."""

    op: str
    args: tuple[Expr, ...]
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class Call:
    """A call of a helper function; one stack frame in exception reports."""

    func: str
    args: tuple[Expr, ...]
    line: int = _line()
    ty: Type | None = _ty()


@dataclass(frozen=True)
class WaveOp:
    """A wave operation over the lanes active where it is evaluated."""

    op: str
    args: tuple[Expr, ...]
    line: int = _line()
    ty: Type | None = _ty()


Expr = (Const | Name | WorkId | Unary | Binary | Compare | Logic | Select | Load | Len | Alloc
        | Cast | MathOp | Call | WaveOp | AtomicOp)
EXPR_NODES = (Const, Name, WorkId, Unary, Binary, Compare, Logic, Select, Load, Len, Alloc, Cast,
              MathOp, Call, WaveOp, AtomicOp)

def clustered(e: WaveOp) -> bool:
    """Whether `e` is a reduction over clusters or a bitwise one (both reduce each
    cluster of C lanes: the bitwise ones without `cluster=` the whole wave)."""
    return e.op in BITWISE_REDUCTIONS or e.op in CLUSTERED_OPS and len(e.args) == 2


def cluster_of(e: WaveOp) -> int:
    """A reduction's cluster size: its `cluster=`, else 64 (the whole wave)."""
    return _literal(e.args[1]) if e.op in CLUSTERED_OPS and len(e.args) == 2 else 64


def quad_lane(e: WaveOp) -> int:
    """quad_broadcast's lane of the quad (0..3)."""
    return _literal(e.args[1])


def _literal(c: Expr) -> int:
    assert isinstance(c, Const) and type(c.value) is int, c  # the checker's rule
    return c.value


# ----------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assign:
    """`x = v` or `x: T = v`; the first assignment fixes the variable's type."""

    target: str
    value: Expr
    declared: Type | None = None
    line: int = _line()


@dataclass(frozen=True)
class Store:
    """`buffer[index] = value`: value first, then index, then the bounds check."""

    buffer: str
    index: Expr
    value: Expr
    line: int = _line()


@dataclass(frozen=True)
class AtomicAdd:
    """`atomic_add(buffer, index, value)`: a statement, its old value is not available."""

    buffer: str
    index: Expr
    value: Expr
    line: int = _line()


@dataclass(frozen=True)
class If:
    """`if`/`elif`/`else`; also a `match` statement's chain of cases (`switch`: the parser
    writes `match x: case 1 | 2: A case _: B` as `if x == 1 or x == 2: A else: B`, and
    the printer and the translations read it back as one where it still has that form:
    `switch_cases`)."""

    cond: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()
    line: int = _line()
    switch: bool = field(default=False, kw_only=True)


@dataclass(frozen=True)
class For:
    """`for var in range(start, stop)`: the bounds are integer expressions, evaluated once
    per lane at entry (so trip counts may differ between lanes)."""

    var: str
    start: Expr
    stop: Expr
    body: tuple[Stmt, ...]
    line: int = _line()


@dataclass(frozen=True)
class While:
    """`while True:`: left only by `break` (or `return`, or a fault); the step budget
    bounds it."""

    body: tuple[Stmt, ...]
    line: int = _line()


@dataclass(frozen=True)
class Break:
    line: int = _line()


@dataclass(frozen=True)
class Continue:
    line: int = _line()


@dataclass(frozen=True)
class Return:
    value: Expr | None = None
    line: int = _line()


@dataclass(frozen=True)
class Fail:
    """`fail(code)`: a fault of kind "fail" carrying `code`."""

    code: Expr
    line: int = _line()


@dataclass(frozen=True)
class CallStmt:
    """A helper call whose result (if any) is discarded."""

    call: Call
    line: int = _line()


@dataclass(frozen=True)
class LocalArray:
    """`name: Local[i32, length]`: a workgroup array, one per group, zero at its start;
    declared in the kernel function, which alone reads and writes it."""

    name: str
    element: Type
    length: int
    line: int = _line()


@dataclass(frozen=True)
class PrivateArray:
    """`name: Array[i32, length]`: an array private to the workitem, all zeros each time
    the declaration runs; indexed with run-time values, bounds faulted as a buffer's."""

    name: str
    element: Type
    length: int
    line: int = _line()


@dataclass(frozen=True)
class Barrier:
    """`barrier()`: every workitem of the group waits here, and every write made before
    it is visible after it (docs/semantics.md, "Workgroups")."""

    line: int = _line()


Stmt = (Assign | Store | AtomicAdd | If | For | While | Break | Continue | Return | Fail
        | CallStmt | LocalArray | PrivateArray | Barrier)
STMT_NODES = (Assign, Store, AtomicAdd, If, For, While, Break, Continue, Return, Fail, CallStmt,
              LocalArray, PrivateArray, Barrier)

def switch_cases(s: If) -> tuple[str, list[tuple[tuple[int, ...], tuple[Stmt, ...]]]] | None:
    """A `match` chain as (its variable, [(values, body), ...]; a default's values ()),
    or None where `s` is no longer one (a reduction changed a condition, values repeat):
    then it is the plain `if` chain it always meant."""
    if not s.switch:
        return None
    var: str | None = None
    cases: list[tuple[tuple[int, ...], tuple[Stmt, ...]]] = []
    seen: set[int] = set()
    cur: If | None = s
    while cur is not None:
        values = _case_values(cur.cond)
        if values is None or var is not None and values[0] != var:
            return None
        var = values[0]
        if seen & set(values[1]) or len(set(values[1])) != len(values[1]):
            return None
        seen |= set(values[1])
        cases.append((values[1], cur.then))
        rest = cur.orelse
        cur = None
        if len(rest) == 1 and isinstance(rest[0], If) and rest[0].switch:
            cur = rest[0]
        elif rest:
            cases.append(((), rest))
    assert var is not None
    return var, cases


def _case_values(cond: Expr) -> tuple[str, tuple[int, ...]] | None:
    """`x == 1 or x == 2` as ("x", (1, 2))."""
    if isinstance(cond, Logic) and cond.op == "or":
        left, right = _case_values(cond.left), _case_values(cond.right)
        if left is None or right is None or left[0] != right[0]:
            return None
        return left[0], left[1] + right[1]
    if isinstance(cond, Compare) and cond.op == "==" and isinstance(cond.left, Name) \
            and isinstance(cond.right, Const) and type(cond.right.value) is int:
        return cond.left.id, (cond.right.value,)
    return None


# -------------------------------------------------------------------- program


@dataclass(frozen=True)
class Param:
    name: str
    ty: Type
    line: int = _line()


@dataclass(frozen=True)
class Function:
    """A kernel or helper; `returns` is None for functions without a value."""

    name: str
    params: tuple[Param, ...]
    returns: Type | None
    body: tuple[Stmt, ...]
    line: int = _line()


@dataclass(frozen=True)
class Program:
    """All functions of one kernel text, in source order. Which one is the kernel is the
    case's `entry`; the others are helpers."""

    functions: tuple[Function, ...]

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.functions)


def replace(node: _N, **changes: Any) -> _N:
    """`dataclasses.replace` for these nodes, without its per-call field inspection:
    every field is an `__init__` argument and none has a `__post_init__`, so a copy of
    the fields with `changes` over them is the node `__init__` would build. (The checker
    rebuilds each node of a kernel this way.)"""
    new = object.__new__(node.__class__)
    fields = new.__dict__
    fields.update(node.__dict__)
    fields.update(changes)
    return new
