"""Which language constructs a program uses, read off the checked IR (never trusted from
a generator), and which fault kinds an oracle run produced.

`ALL_CONSTRUCTS` names every construct a generated sample must cover (each in at least 5%
of kernels, asserted by `tests/generators/test_generators.py` over a fixed-seed sample):

- `stmt:<Kind>` / `expr:<Kind>`: each statement and expression node kind;
- `wave:<op>`: each wave operation;
- `rmw`: a store whose value loads the buffer it stores to; `atomic`: an `atomic_add`;
  `helper`: a call of a helper; `div`: `//` or `%`;
- `else`: an if with an else-block; `nested_loop`: a loop in a loop;
- `wave_op_diverged`: a wave operation under an if, a loop, an if-expression or the right
  side of `and`/`or` (where only some lanes may be active);
- `wave_after_return`: a wave operation after a `return` in the same function;
- `call_short_circuit`: a helper call on one side of an if-expression or the right side of
  `and`/`or`; `nested_call`: a helper that calls another (three-frame stacks);
- `buffer_local`: a local variable holding a buffer reference; `i64`: an i64 value;
  `narrow`: `i32(...)` of an i64 value; `declared`: an assignment `x: T = v`;
- `f32`: an f32 value; `f32_mul_add`: `a * b + c` on f32 (two roundings, the shape a
  contracting compiler fuses); `f32_to_int`: `i32(x)` / `i64(x)` of an f32;
  `f32_compare`: a comparison of f32s; `f32_wave`: a wave operation on an f32;
  `f32_loop_carried`: an f32 variable assigned inside a loop it was assigned before;
- `lane_bound`: a `for` bound that is an expression (trip counts may differ per lane);
  `loop_exit_value`: a variable a loop assigns, read after the loop (003's loop-exit
  form); `return_in_loop`: a `return` inside a loop; `deep_nesting`: control statements
  nested 4 deep; `loop_call_loop`: a call, inside a loop, of a helper with a loop;
- `int:<type>`: a value of each integer type besides i32 and i64; `int_convert`: a
  conversion between integer types other than i32 and i64 (an extension by the source's
  signedness, or a truncation); `wave_int`: a wave operation on one of those types;
  `unsigned_div`, `unsigned_shift`, `unsigned_compare`: `//` or `%`, `>>`, a comparison
  of unsigned integers;
- `private_diverged`: a store into a private array under an if, a loop or an
  if-expression; `private_dynamic`: a private array indexed with a value that is not a
  constant (what a compiler keeping the array in registers turns into selects);
- `int_fn:<name>`: each integer function (popcount, clz, ctz, bit_reverse, the
  rotations, mul_hi, min, max, abs of integers);
- `atomic:<op>`: each atomic that returns; `atomic_diverged`: one under an if, a loop or
  an if-expression (where an atomic optimizer must count only the active lanes).

`constructs()` also reports `wave_diverged:<op>` (each wave operation in a diverged
place), for the statistics only: they are not in `ALL_CONSTRUCTS` (each is about 4-9% of
kernels, too close to the bar to assert).
"""

from __future__ import annotations

from typing import Any

from difftest.core.ir import nodes as n
from difftest.core.ir.types import F32, F64, I8, I16, I32, I64, U8, U16, U32, U64
from difftest.core.ir.walk import children, names_read, walk

STMT_KINDS = ("Assign", "Store", "AtomicAdd", "If", "For", "While", "Break", "Continue",
              "Return", "Fail", "CallStmt", "PrivateArray")
EXPR_KINDS = ("Const", "Name", "WorkId", "Unary", "Binary", "Compare", "Logic", "Select",
              "Load", "Len", "Alloc", "Cast", "MathOp", "Call", "WaveOp", "AtomicOp")
FAULT_KINDS = ("out_of_bounds", "division_by_zero", "fail", "invalid_conversion")
EXTRA = ("rmw", "atomic", "helper", "div", "else", "nested_loop", "wave_op_diverged",
         "wave_after_return", "call_short_circuit", "nested_call", "buffer_local", "i64",
         "narrow", "declared", "lane_bound", "loop_exit_value", "return_in_loop",
         "deep_nesting", "loop_call_loop", "f32", "f32_mul_add", "f32_to_int",
         "f32_compare", "f32_wave", "f32_loop_carried", "private_diverged",
         "private_dynamic", "match", "atomic_diverged")
#: the integer types besides i32 and i64, each a construct `int:<type>`
EXTRA_INTS = (I8, U8, I16, U16, U32, U64)
INT_CONSTRUCTS = tuple(f"int:{t}" for t in EXTRA_INTS) + (
    "int_convert", "wave_int", "unsigned_div", "unsigned_shift", "unsigned_compare")
_EXTRA_NAMES = {t: f"int:{t}" for t in EXTRA_INTS}
INT_FUNCTIONS = ("popcount", "clz", "ctz", "bit_reverse", "rotate_left", "rotate_right",
                 "mul_hi", "min", "max", "abs")

ALL_CONSTRUCTS: tuple[str, ...] = (
    tuple(f"stmt:{k}" for k in STMT_KINDS)
    + tuple(f"expr:{k}" for k in EXPR_KINDS)
    + tuple(f"wave:{op}" for op in n.WAVE_OPS)
    + EXTRA
    + INT_CONSTRUCTS
    + tuple(f"int_fn:{f}" for f in INT_FUNCTIONS)
    + tuple(f"atomic:{op}" for op in n.ATOMIC_OPS)
)

# Child fields of each node class, in source order (strings, types and lines skipped).
_STMT_NAMES = {cls: f"stmt:{cls.__name__}" for cls in n.STMT_NODES}
_EXPR_NAMES = {cls: f"expr:{cls.__name__}" for cls in n.EXPR_NODES}


class _Walk:
    def __init__(self, program: n.Program) -> None:
        self.found: set[str] = set()
        self.helpers = frozenset(f.name for f in program.functions)
        self.in_helper = False
        self.arrays: set[str] = set()  # the private arrays declared so far

    def block(self, stmts: tuple[n.Stmt, ...], ctx: tuple[int, int, bool, bool]) -> bool:
        """Visit a block; returns whether it contains a `return`. ctx = (loops,
        diverged, after_return, short_circuit)."""
        loops, diverged, after, short = ctx
        has_return = False
        for s in stmts:
            has_return |= self.node(s, (loops, diverged, after or has_return, short))
        return has_return

    def node(self, node: Any, ctx: tuple[int, int, bool, bool]) -> bool:
        if node is None:
            return False
        if isinstance(node, tuple):
            return any([self.node(c, ctx) for c in node])
        cls = type(node)
        found = self.found
        loops, diverged, after, short = ctx
        name = _STMT_NAMES.get(cls)
        if name is None:
            found.add(_EXPR_NAMES[cls])
            ty = node.ty
            if ty is I64:
                found.add("i64")
            elif ty is F32 or ty is F64:  # the float constructs count either width
                found.add("f32")
            elif ty in _EXTRA_NAMES:
                found.add(_EXTRA_NAMES[ty])
        else:
            found.add(name)
        if cls is n.WaveOp:
            found.add(f"wave:{node.op}")
            if node.ty is F32 or node.ty is F64:
                found.add("f32_wave")
            elif node.args and node.args[0].ty in _EXTRA_NAMES:
                found.add("wave_int")
            if diverged:
                found.add("wave_op_diverged")
                found.add(f"wave_diverged:{node.op}")
            if after:
                found.add("wave_after_return")
        elif cls is n.Call:
            found.add("helper")
            if short:
                found.add("call_short_circuit")
            if self.in_helper:
                found.add("nested_call")
        elif cls is n.Binary:
            if node.op in ("//", "%"):
                found.add("div")
                if node.ty is not None and node.ty.is_int and not node.ty.signed:
                    found.add("unsigned_div")
            elif node.op == ">>" and node.ty is not None and node.ty.is_int \
                    and not node.ty.signed:
                found.add("unsigned_shift")
            elif (node.ty is F32 or node.ty is F64) and node.op in ("+", "-") and any(
                    isinstance(x, n.Binary) and x.op == "*" for x in (node.left, node.right)):
                found.add("f32_mul_add")
        elif cls is n.Compare:
            if node.left.ty is F32 or node.left.ty is F64:
                found.add("f32_compare")
            elif node.left.ty is not None and node.left.ty.is_int \
                    and not node.left.ty.signed:
                found.add("unsigned_compare")
        elif cls is n.Cast:
            if node.to is I32 and node.operand.ty is I64:
                found.add("narrow")
            if node.operand.ty is not None and node.operand.ty.is_float and node.to.is_int:
                found.add("f32_to_int")
            have = node.operand.ty
            if have is not None and have.is_int and node.to.is_int and have is not node.to \
                    and not {have, node.to} <= {I32, I64}:
                found.add("int_convert")
        elif cls is n.Load and node.buffer in self.arrays \
                and not isinstance(node.index, n.Const):
            found.add("private_dynamic")
        elif cls is n.MathOp:
            if node.ty is not None and node.ty.is_int:
                found.add(f"int_fn:{node.op}")
        elif cls is n.AtomicAdd:
            found.add("atomic")
        elif cls is n.AtomicOp:
            found.add(f"atomic:{node.op}")
            if diverged:  # an atomic that returns, under divergence: the optimizer's case
                found.add("atomic_diverged")
        elif cls is n.PrivateArray:
            self.arrays.add(node.name)
        elif cls is n.Store:
            if _loads(node.value, node.buffer):
                found.add("rmw")
            if node.buffer in self.arrays:
                if diverged:
                    found.add("private_diverged")
                if not isinstance(node.index, n.Const):
                    found.add("private_dynamic")
        elif cls is n.Assign:
            if node.declared is not None:
                found.add("declared")
            if node.value.ty is not None and node.value.ty.is_buffer:
                found.add("buffer_local")
        elif cls is n.Return:
            self.node(node.value, ctx)
            return True
        elif cls is n.If:
            self.node(node.cond, ctx)
            if node.orelse:
                found.add("else")
            if n.switch_cases(node) is not None:
                found.add("match")
            inner = (loops, 1, after, short)
            return self.block(node.then, inner) | self.block(node.orelse, inner)
        elif cls is n.For or cls is n.While:
            if loops:
                found.add("nested_loop")
            if cls is n.For:
                self.node(node.start, ctx)
                self.node(node.stop, ctx)
            return self.block(node.body, (loops + 1, 1, after, short))
        elif cls is n.Select:
            self.node(node.cond, ctx)
            inner = (loops, 1, after, True)
            return self.node(node.then, inner) | self.node(node.orelse, inner)
        elif cls is n.Logic:
            self.node(node.left, ctx)
            return self.node(node.right, (loops, 1, after, True))
        ret = False
        for child in children(node):
            ret |= self.node(child, ctx)
        return ret


def constructs(program: n.Program) -> frozenset[str]:
    """The constructs (names of `ALL_CONSTRUCTS`) that a checked program contains."""
    walk = _Walk(program)
    called = [_called(f) for f in program.functions]
    for f in program.functions:
        # called by another function: calls inside it nest
        walk.in_helper = any(f.name in c for g, c in zip(program.functions, called)
                             if g is not f)
        walk.block(f.body, (0, 0, False, False))
    looping = {f.name for f in program.functions if _has_loop(f.body)}
    for f in program.functions:
        _shapes(f.body, 0, 0, looping, walk.found)
    return frozenset(walk.found)


_CONTROL = (n.If, n.For, n.While)


def _has_loop(node: Any) -> bool:
    if isinstance(node, tuple):
        return any(_has_loop(c) for c in node)
    if isinstance(node, (n.For, n.While)):
        return True
    if isinstance(node, n.If):
        return _has_loop(node.then) or _has_loop(node.orelse)
    return False


def _shapes(stmts: tuple[n.Stmt, ...], loops: int, depth: int, looping: set[str],
            found: set[str]) -> None:
    """The statement-shape constructs of a block (see the module docstring)."""
    for i, s in enumerate(stmts):
        if isinstance(s, _CONTROL) and depth + 1 >= 4:
            found.add("deep_nesting")
        if isinstance(s, n.Return) and loops:
            found.add("return_in_loop")
        if loops and _calls_any(s, looping):
            found.add("loop_call_loop")
        if isinstance(s, n.For) and not all(
                isinstance(b, (n.Const, n.Name, n.Len)) for b in (s.start, s.stop)):
            found.add("lane_bound")
        if isinstance(s, (n.For, n.While)):
            if _assigned(s.body) & names_read(stmts[i + 1:]):
                found.add("loop_exit_value")
            before = {x.target for x in walk(stmts[:i]) if isinstance(x, n.Assign)
                      and x.value.ty is not None and x.value.ty.is_float}
            if before & _assigned(s.body):
                found.add("f32_loop_carried")
            _shapes(s.body, loops + 1, depth + 1, looping, found)
        elif isinstance(s, n.If):
            _shapes(s.then, loops, depth + 1, looping, found)
            _shapes(s.orelse, loops, depth + 1, looping, found)


def _assigned(stmts: tuple[n.Stmt, ...]) -> set[str]:
    return {x.target for x in walk(stmts) if isinstance(x, n.Assign)}


def _calls_any(s: n.Stmt, names: set[str]) -> bool:
    """A call of one of `names` in `s` itself (not in the bodies of nested statements,
    which `_shapes` visits on their own)."""
    if isinstance(s, (n.For, n.While, n.If)):
        parts: tuple[Any, ...] = (s.cond,) if isinstance(s, n.If) else (
            (s.start, s.stop) if isinstance(s, n.For) else ())
    else:
        parts = (s,)
    return any(isinstance(x, n.Call) and x.func in names for x in walk(parts))


def _called(f: n.Function) -> set[str]:
    return {x.func for x in walk(f.body) if type(x) is n.Call}


def _loads(e: Any, buffer: str) -> bool:
    return any(type(x) is n.Load and x.buffer == buffer for x in walk(e))


def fault_kinds(full: Any) -> frozenset[str]:
    """Fault kinds that occurred in an oracle `FullRun` (from its per-workitem fates)."""
    return frozenset(f.kind for f in full.fates if f is not None)
