"""`programs()`: arbitrary well-typed checked programs, for the syntax round trips.

Unlike `kernels()`, these need not be race-free, terminating in any useful sense, or
meaningful; they only have to pass `check()`, and they go out of their way to hit every
corner of the syntax: every expression and statement node kind and every operator and
wave operation; `for` loops whose bounds are constants (negative ones too), scalar
parameters or `len(buffer)`, with `break`/`continue` inside; `return` with and without a
value; helpers with and without a return value, called inside expressions and as
statements, defined before or after their callers (source order is shuffled; the call
graph stays acyclic); buffer-typed locals assigned from a select of two buffers;
declared assignments `x: T = v`; bool, i32, i64 and buffer parameters; the extreme
constants (-2**31, 2**31 - 1, -2**63, 2**63 - 1); empty blocks (`pass`), `elif` chains,
and arbitrarily nested operators for the printer's parentheses; one program in four allocates
(`alloc(size)` where a `Buffer[i32]` is wanted) and then has no wave operations.

Built type-directed, so no draw is ever rejected: every expression is drawn for a wanted
type from a typed environment of the variables definitely assigned at that point (the
checker's rules: a variable's type is fixed by its first assignment, a loop variable is
not assigned in its loop, loop bounds are constants, scalar parameters or lengths, a
valued function ends with a `return`). The result is `check()`ed, so it is typed.

Shrinking: each choice is drawn simplest-first (a constant before a name before a
compound expression; an assignment before control flow; fewer statements, fewer helpers,
smaller depths), so a failing program shrinks toward a kernel with one statement over
constants, with helpers dropped and functions back in dependency order.
"""

from __future__ import annotations

from typing import TypeVar
from collections.abc import Callable, Sequence

from hypothesis import strategies as st

from difftest.core.ir import check
from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, BUF_I32, BUF_I64, I32, I64, Type, int_range, widest

from .reproducible import pin

pin()  # a seed draws the same kernels whatever else this process imported

I32_CONSTS = (0, 1, -1, 7, -5, 100, 2**31 - 1, -(2**31))
I64_CONSTS = (2**31, -(2**31) - 1, 1 << 40, 2**63 - 1, -(2**63))
INT_WAVE_OPS = ("wave_sum", "wave_min", "wave_max", "readfirstlane", "prefix_sum",
                "inclusive_sum", "shuffle") + n.RELATIVE_SHUFFLES + n.BITWISE_REDUCTIONS \
    + n.QUAD_OPS
BOOL_WAVE_OPS = ("wave_any", "wave_all", "readfirstlane", "shuffle", "wave_all_equal") \
    + n.RELATIVE_SHUFFLES + n.QUAD_OPS
SCALARS = (I32, I64, BOOL)
KERNEL_PARAMS = (n.Param("a", BUF_I32), n.Param("c", BUF_I32), n.Param("b", BUF_I64),
                 n.Param("m", I32), n.Param("q", I64), n.Param("f", BOOL))

Env = dict[str, Type]
Typed = tuple[n.Expr, Type]

T = TypeVar("T")


def _fits(ty: Type, want: Type) -> bool:
    """Whether a `ty` value may go where a `want` is expected (i32 widens to i64)."""
    return ty == want or (ty is I32 and want is I64)


def _const(value: int | bool) -> Typed:
    if isinstance(value, bool):
        return n.Const(value), BOOL
    lo, hi = int_range(I32)
    return n.Const(value), (I32 if lo <= value <= hi else I64)


class _Function:
    """Draws one function's body; `callees` are the functions it may call."""

    def __init__(self, draw: st.DrawFn, fn: n.Function, callees: list[n.Function],
                 allocates: bool = False) -> None:
        self.draw = draw
        self.allocates = allocates  # alloc() instead of wave operations (the checker's rule)
        self.fn = fn
        self.callees = callees
        self.count = 0
        self.int_params = [p.name for p in fn.params if p.ty.is_int]

    def pick(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(options))

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def depth(self) -> int:
        return self.draw(st.integers(0, 3))

    # ------------------------------------------------------------ expressions

    def expr(self, want: Type, env: Env, depth: int) -> Typed:
        """An expression whose type may go where `want` is expected, and that type."""
        if want.is_buffer:
            return self.buffer(want, env, depth)
        names = [v for v, t in env.items() if _fits(t, want)]
        kinds = ["const"] + (["name"] if names else []) + (["workid"] if want.is_int else [])
        if depth > 0:
            kinds += ["select"] + (self.int_kinds(want, env) if want.is_int else
                                   ["compare", "logic", "not"] + self.wave_kinds())
            if self.valued(env, want):
                kinds.append("call")
        k = self.pick(kinds)
        sub = depth - 1
        if k == "const":
            if want is BOOL:
                return _const(self.draw(st.booleans()))
            return _const(self.pick(I32_CONSTS + (I64_CONSTS if want is I64 else ())))
        if k == "name":
            name = self.pick(names)
            return n.Name(name), env[name]
        if k == "workid":
            return n.WorkId(self.pick(n.WAVE_IDS)), I32
        if k == "select":
            cond, _ = self.expr(BOOL, env, sub)
            (then, t1), (orelse, t2) = self.expr(want, env, sub), self.expr(want, env, sub)
            return n.Select(cond, then, orelse), (t1 if t1 == t2 else widest(t1, t2))
        if k == "call":
            f = self.draw(st.sampled_from(self.valued(env, want)))
            assert f.returns is not None
            return self.call(f, env, sub), f.returns
        if k == "compare":
            if self.draw(st.booleans()):
                (left, _), (right, _) = self.expr(I64, env, sub), self.expr(I64, env, sub)
                return n.Compare(self.pick(n.COMPARE_OPS), left, right), BOOL
            (left, _), (right, _) = self.expr(BOOL, env, sub), self.expr(BOOL, env, sub)
            return n.Compare(self.pick(("==", "!=")), left, right), BOOL
        if k == "logic":
            (left, _), (right, _) = self.expr(BOOL, env, sub), self.expr(BOOL, env, sub)
            return n.Logic(self.pick(n.LOGIC_OPS), left, right), BOOL
        if k == "not":
            return n.Unary("not", self.expr(BOOL, env, sub)[0]), BOOL
        if k == "wave":
            op = self.pick(INT_WAVE_OPS if want.is_int else BOOL_WAVE_OPS + ("elect",))
            if op == "elect":
                return n.WaveOp("elect", ()), BOOL
            arg_ty = BOOL if op in ("wave_any", "wave_all") else want
            if op == "wave_all_equal":
                arg_ty = self.pick((BOOL, I32, I64))
            arg, ty = self.expr(arg_ty, env, sub)
            if op in ("wave_any", "wave_all", "wave_all_equal"):
                ty = BOOL
            args: tuple[n.Expr, ...] = (arg,)
            if op == "shuffle" or op in n.RELATIVE_SHUFFLES:
                args += (self.expr(I64, env, sub)[0],)
            elif op == "quad_broadcast":
                args += (n.Const(self.pick((0, 1, 2, 3))),)
            elif op in n.CLUSTERED_OPS and self.pick((False, True)):
                args += (n.Const(self.pick((1, 2, 4, 8, 16, 32, 64))),)
            return n.WaveOp(op, args), ty
        if k == "ballot":
            return n.WaveOp("ballot", (self.expr(BOOL, env, sub)[0],)), I64
        if k == "unary":
            op = self.pick(("-", "~"))
            operand, ty = self.expr(want, env, sub)
            if op == "-" and isinstance(operand, n.Const) and isinstance(operand.value, int) \
                    and operand.value >= 0:
                # The parser and checker fold `-<literal>`, which may also narrow its type.
                return _const(-operand.value)
            return n.Unary(op, operand), ty
        if k == "binary":
            (left, t1), (right, t2) = self.expr(want, env, sub), self.expr(want, env, sub)
            return n.Binary(self.pick(n.ARITH_OPS), left, right), widest(t1, t2)
        if k == "load":
            buf = self.pick(self.buffers(env, lambda t: _fits(t.element, want)))
            return n.Load(buf, self.expr(I64, env, sub)[0]), env[buf].element
        if k == "len":
            return n.Len(self.pick(self.buffers(env))), I32
        assert k == "cast", k
        to = want if want is I32 else self.draw(st.sampled_from((I64, I32)))
        return n.Cast(to, self.expr(self.draw(st.sampled_from(SCALARS)), env, sub)[0]), to

    def int_kinds(self, want: Type, env: Env) -> list[str]:
        kinds = ["unary", "binary", "cast"] + self.wave_kinds()
        if self.buffers(env, lambda t: _fits(t.element, want)):
            kinds.append("load")
        if self.buffers(env):
            kinds.append("len")
        if want is I64 and not self.allocates:
            kinds.append("ballot")
        return kinds

    def wave_kinds(self) -> list[str]:
        return [] if self.allocates else ["wave"]

    def buffer(self, want: Type, env: Env, depth: int) -> Typed:
        names = self.buffers(env, lambda t: t == want)
        if self.allocates and want is BUF_I32 and depth > 0 and self.draw(st.booleans()):
            return n.Alloc(self.expr(I32, env, depth - 1)[0]), want
        if depth > 0 and self.draw(st.booleans()):
            cond = self.expr(BOOL, env, depth - 1)[0]
            return n.Select(cond, n.Name(self.pick(names)), n.Name(self.pick(names))), want
        return n.Name(self.pick(names)), want

    def buffers(self, env: Env, ok: Callable[[Type], bool] = lambda t: True) -> list[str]:
        return [v for v, t in env.items() if t.is_buffer and ok(t)]

    def callable(self, env: Env) -> list[n.Function]:
        """Callees whose buffer parameters this environment can fill."""
        have = {t for t in env.values() if t.is_buffer}
        return [f for f in self.callees if all(p.ty in have for p in f.params if p.ty.is_buffer)]

    def valued(self, env: Env, want: Type) -> list[n.Function]:
        return [f for f in self.callable(env) if f.returns is not None and _fits(f.returns, want)]

    def call(self, f: n.Function, env: Env, depth: int) -> n.Call:
        return n.Call(f.name, tuple(self.expr(p.ty, env, depth)[0] for p in f.params))

    # ------------------------------------------------------------- statements

    def block(self, env: Env, depth: int, frozen: frozenset[str], max_size: int = 3
              ) -> tuple[n.Stmt, ...]:
        env = dict(env)  # what a nested block assigns is not definitely assigned after it
        size = self.draw(st.integers(0, max_size))
        return tuple(self.stmt(env, depth, frozen) for _ in range(size))

    def stmt(self, env: Env, depth: int, frozen: frozenset[str]) -> n.Stmt:
        """One statement; adds what it assigns to `env`."""
        assignable = [v for v in env if v not in frozen]
        kinds = ["assign", "declare", "fail", "return"]
        if assignable:
            kinds.append("reassign")
        if self.buffers(env):
            kinds += ["store", "atomic", "bufvar"]
        if self.buffers(env, lambda t: t.element.is_int):
            kinds.append("ratomic")
        if self.callable(env):
            kinds.append("call")
        if depth > 0:
            kinds += ["if", "for", "while"]
        if frozen:  # inside a loop
            kinds += ["break", "continue"]
        k = self.pick(kinds)
        if k == "assign":
            name = self.fresh("v")
            value, ty = self.expr(self.draw(st.sampled_from(SCALARS)), env, self.depth())
            env[name] = ty
            return n.Assign(name, value)
        if k == "reassign":
            name = self.pick(assignable)
            return n.Assign(name, self.expr(env[name], env, self.depth())[0])
        if k == "declare":
            types = SCALARS + tuple(sorted({t for t in env.values() if t.is_buffer}, key=str))
            ty = self.draw(st.sampled_from(types))
            same = [v for v in assignable if env[v] == ty]
            reuse = self.draw(st.booleans()) if same else False
            name = self.pick(same) if reuse else self.fresh("x")
            value = self.expr(ty, env, self.depth())[0]
            env[name] = ty
            return n.Assign(name, value, ty)
        if k == "bufvar":
            ty = self.draw(st.sampled_from(sorted({t for t in env.values() if t.is_buffer},
                                                  key=str)))
            names = self.buffers(env, lambda t: t == ty)
            cond = self.expr(BOOL, env, self.depth())[0]
            value = n.Select(cond, n.Name(self.pick(names)), n.Name(self.pick(names)))
            name = self.fresh("r")
            env[name] = ty
            return n.Assign(name, value)
        if k in ("store", "atomic"):
            buf = self.pick(self.buffers(env))
            index = self.expr(I64, env, self.depth())[0]
            value = self.expr(env[buf].element, env, self.depth())[0]
            return (n.Store if k == "store" else n.AtomicAdd)(buf, index, value)
        if k == "ratomic":  # an atomic that returns: its old value a new variable
            buf = self.pick(self.buffers(env, lambda t: t.element.is_int))
            op = self.pick(n.ATOMIC_OPS)
            ty = env[buf].element
            args = [self.expr(I64, env, self.depth())[0]] + [
                self.expr(ty, env, self.depth())[0]
                for _ in range(2 if op == "compare_exchange" else 1)]
            name = self.fresh("o")
            env[name] = ty
            return n.Assign(name, n.AtomicOp(op, buf, tuple(args)))
        if k == "fail":
            return n.Fail(self.expr(I64, env, self.depth())[0])
        if k == "return":
            want = self.fn.returns
            return n.Return(None if want is None else self.expr(want, env, self.depth())[0])
        if k == "break":
            return n.Break()
        if k == "continue":
            return n.Continue()
        if k == "call":
            f = self.draw(st.sampled_from(self.callable(env)))
            return n.CallStmt(self.call(f, env, self.depth()))
        if k == "if":
            return self.if_(env, depth, frozen)
        if k == "while":  # left by a break: first, last, or under a condition
            body = self.block(dict(env), depth - 1, frozen | {""})
            cond = self.expr(BOOL, env, self.depth())[0]
            exit_: tuple[n.Stmt, ...] = self.pick(((n.Break(),), (n.If(cond, (n.Break(),)),)))
            first = self.draw(st.booleans())
            return n.While(exit_ + body if first else body + (n.Break(),))
        assert k == "for", k
        (start, t1), (stop, t2) = self.bound(env), self.bound(env)
        var = self.fresh("k")
        inner = dict(env)
        inner[var] = widest(t1, t2)
        return n.For(var, start, stop, self.block(inner, depth - 1, frozen | {var}))

    def if_(self, env: Env, depth: int, frozen: frozenset[str]) -> n.If:
        cond = self.expr(BOOL, env, self.depth())[0]
        then = self.block(env, depth - 1, frozen)
        shape = self.pick(("none", "else", "elif") if depth > 1 else ("none", "else"))
        if shape == "none":
            return n.If(cond, then)
        if shape == "elif":  # an else-block that is exactly one `if`
            return n.If(cond, then, (self.if_(env, depth - 1, frozen),))
        return n.If(cond, then, self.block(env, depth - 1, frozen))

    def bound(self, env: Env) -> Typed:
        kinds = ["const", "expr"] + (["param"] if self.int_params else []) + (
            ["len"] if self.buffers(env) else [])
        k = self.pick(kinds)
        if k == "const":
            return _const(self.draw(st.integers(-2, 5)))
        if k == "expr":  # any integer expression: trip counts may differ per lane
            return self.expr(self.pick((I32, I64)), env, 1)
        if k == "param":
            name = self.pick(self.int_params)
            return n.Name(name), env[name]
        return n.Len(self.pick(self.buffers(env))), I32

    def body(self) -> tuple[n.Stmt, ...]:
        env = {p.name: p.ty for p in self.fn.params}
        stmts = self.block(env, 2, frozenset(), max_size=4)
        if self.fn.returns is not None:  # a valued function returns on every path
            stmts += (n.Return(self.expr(self.fn.returns, env, self.depth())[0]),)
        return stmts


def _function(draw: st.DrawFn, name: str, params: tuple[n.Param, ...], returns: Type | None,
              callees: list[n.Function], allocates: bool) -> n.Function:
    shell = n.Function(name, params, returns, ())
    return n.Function(name, params, returns,
                      _Function(draw, shell, callees, allocates).body())


@st.composite
def programs(draw: st.DrawFn) -> n.Program:
    """A checked `Program`: up to three helpers (`h0`, `h1`, ...; each may call the ones
    drawn before it) and `kernel(a, c: Buffer[i32], b: Buffer[i64], m: i32, q: i64,
    f: bool)`, which may call any helper, in a shuffled source order."""
    helpers: list[n.Function] = []
    allocates = draw(st.integers(0, 3)) == 3  # then no wave operations anywhere
    for i in range(draw(st.integers(0, 3))):
        types = draw(st.lists(st.sampled_from(SCALARS + (BUF_I32, BUF_I64)), max_size=3))
        params = tuple(n.Param(f"p{j}", t) for j, t in enumerate(types))
        returns = draw(st.sampled_from((None, I32, I64, BOOL)))
        helpers.append(_function(draw, f"h{i}", params, returns, list(helpers), allocates))
    kernel = _function(draw, "kernel", KERNEL_PARAMS, None, helpers, allocates)
    order = draw(st.permutations([*helpers, kernel]))
    return check(n.Program(tuple(order)))
