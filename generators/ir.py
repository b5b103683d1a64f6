"""`programs()`: arbitrary well-typed checked programs, for the syntax round trips.

Unlike `kernels()`, these need not be race-free or meaningful, only valid: they exercise
every node kind, operator, type and the odd corners of the syntax (declared assignments,
bool and i64 parameters, buffer-typed locals, MIN constants, nested selects and logic).
Built type-directed (each expression is drawn for a wanted type from a typed
environment), so `check()` accepts every draw. Shrinks toward a kernel with one
statement and constant operands.
"""

from __future__ import annotations

from hypothesis import strategies as st

from difftest.ir import check
from difftest.ir import nodes as n
from difftest.ir.types import BOOL, BUF_I32, BUF_I64, I32, I64, Type

INTS = (0, 1, -1, 7, 2**31 - 1, -(2**31), 2**31, -(2**63), 2**63 - 1, 100)
ARITH = ("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>")
INT_WAVE = ("wave_sum", "wave_min", "wave_max", "readfirstlane", "prefix_sum", "inclusive_sum")


class _Draw:
    def __init__(self, draw: st.DrawFn, helpers: list[n.Function]) -> None:
        self.d = draw
        self.helpers = helpers
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def names(self, env: dict[str, Type], want: Type) -> list[str]:
        return [k for k, t in env.items() if t == want or (want is I64 and t is I32)]

    def expr(self, want: Type, env: dict[str, Type], depth: int) -> n.Expr:
        d = self.d
        if want.is_buffer:
            bufs = self.names(env, want)
            if len(bufs) > 1 and depth > 0 and d(st.booleans()):
                return n.Select(self.expr(BOOL, env, depth - 1), n.Name(d(st.sampled_from(bufs))),
                                n.Name(d(st.sampled_from(bufs))))
            return n.Name(d(st.sampled_from(bufs)))
        leaves = ["const"] + (["name"] if self.names(env, want) else [])
        if want.is_int:
            leaves.append("workid")
        kinds = leaves if depth <= 0 else leaves + self.compound_kinds(want, env)
        k = d(st.sampled_from(kinds))
        sub = depth - 1
        if k == "const":
            if want is BOOL:
                return n.Const(d(st.booleans()))
            value = d(st.sampled_from(INTS))
            lo, hi = (-(2**31), 2**31 - 1) if want is I32 else (-(2**63), 2**63 - 1)
            return n.Const(value if lo <= value <= hi else 3)
        if k == "name":
            return n.Name(d(st.sampled_from(self.names(env, want))))
        if k == "workid":
            return n.WorkId(d(st.sampled_from(n.WORK_IDS)))
        if k == "arith":
            return n.Binary(d(st.sampled_from(ARITH)), self.expr(want, env, sub),
                            self.expr(d(st.sampled_from((I32, want))), env, sub))
        if k == "neg":
            return n.Unary(d(st.sampled_from(("-", "~"))), self.expr(want, env, sub))
        if k == "select":
            return n.Select(self.expr(BOOL, env, sub), self.expr(want, env, sub),
                            self.expr(want, env, sub))
        if k == "load":
            buf = d(st.sampled_from(self.bufs(env, want)))
            return n.Load(buf, self.expr(I32, env, sub))
        if k == "len":
            return n.Len(d(st.sampled_from(self.all_bufs(env))))
        if k == "cast":
            return n.Cast(want, self.expr(d(st.sampled_from((I64, I32, BOOL))), env, sub))
        if k == "call":
            f = d(st.sampled_from(self.callable(env, want)))
            return n.Call(f.name, tuple(self.expr(p.ty, env, sub) for p in f.params))
        if k == "wave":
            op = d(st.sampled_from(INT_WAVE + ("shuffle",) if want.is_int else
                                   ("wave_any", "wave_all", "readfirstlane", "shuffle")))
            if op == "shuffle":
                return n.WaveOp(op, (self.expr(want, env, sub), self.expr(I32, env, sub)))
            arg = BOOL if op in ("wave_any", "wave_all") else want
            return n.WaveOp(op, (self.expr(arg, env, sub),))
        if k == "ballot":
            return n.WaveOp("ballot", (self.expr(BOOL, env, sub),))
        if k == "compare":
            if d(st.booleans()):
                return n.Compare(d(st.sampled_from(n.COMPARE_OPS)), self.expr(I64, env, sub),
                                 self.expr(I32, env, sub))
            return n.Compare(d(st.sampled_from(("==", "!="))), self.expr(BOOL, env, sub),
                             self.expr(BOOL, env, sub))
        if k == "logic":
            return n.Logic(d(st.sampled_from(n.LOGIC_OPS)), self.expr(BOOL, env, sub),
                           self.expr(BOOL, env, sub))
        assert k == "not", k
        return n.Unary("not", self.expr(BOOL, env, sub))

    def callable(self, env: dict[str, Type], returns: object = "any") -> list[n.Function]:
        """Helpers whose buffer parameters this environment can supply."""
        have = {t for t in env.values() if t.is_buffer}
        return [h for h in self.helpers
                if (returns == "any" or h.returns == returns)
                and all(p.ty in have for p in h.params if p.ty.is_buffer)]

    def bufs(self, env: dict[str, Type], element: Type) -> list[str]:
        want = BUF_I32 if element is I32 else BUF_I64
        return [k for k, t in env.items() if t == want]

    def all_bufs(self, env: dict[str, Type]) -> list[str]:
        return [k for k, t in env.items() if t.is_buffer]

    def compound_kinds(self, want: Type, env: dict[str, Type]) -> list[str]:
        kinds = ["select"]
        if want.is_int:
            kinds += ["arith", "neg", "cast", "wave"]
            if self.bufs(env, want):
                kinds.append("load")
            if want is I32 and self.all_bufs(env):
                kinds.append("len")
            if want is I64:
                kinds.append("ballot")
        else:
            kinds += ["compare", "logic", "not", "wave"]
        if self.callable(env, want):
            kinds.append("call")
        return kinds

    def block(self, env: dict[str, Type], depth: int, in_loop: bool, returns: Type | None,
              loop_vars: frozenset[str]) -> tuple[n.Stmt, ...]:
        env = dict(env)
        out: list[n.Stmt] = []
        for _ in range(self.d(st.integers(1, 3))):
            out.append(self.stmt(env, depth, in_loop, returns, loop_vars))
        return tuple(out)

    def stmt(self, env: dict[str, Type], depth: int, in_loop: bool, returns: Type | None,
             loop_vars: frozenset[str]) -> n.Stmt:
        d = self.d
        kinds = ["assign", "declare", "fail", "return"]
        if self.all_bufs(env):
            kinds += ["store", "atomic", "bufvar"]
        if depth > 0:
            kinds += ["if", "for"]
        if in_loop:
            kinds += ["break", "continue"]
        if self.callable(env):
            kinds.append("call")
        k = d(st.sampled_from(kinds))
        if k == "assign":
            ty = d(st.sampled_from((I32, I64, BOOL)))
            targets = [v for v, t in env.items() if t == ty and v not in loop_vars]
            fresh = not (targets and d(st.booleans()))
            name = self.fresh("v") if fresh else d(st.sampled_from(targets))
            value = self.expr(ty, env, 2)
            env[name] = ty
            # An i64 variable's first value may be an i32 expression: declare its type.
            return n.Assign(name, value, I64 if fresh and ty is I64 else None)
        if k == "declare":
            name = self.fresh("w")
            value = self.expr(I32, env, 1)
            env[name] = I64
            return n.Assign(name, value, I64)
        if k == "bufvar":
            ty = d(st.sampled_from(sorted({t for t in env.values() if t.is_buffer}, key=str)))
            name = self.fresh("b")
            value = self.expr(ty, env, 1)
            env[name] = ty
            return n.Assign(name, value)
        if k in ("store", "atomic"):
            buf = d(st.sampled_from(self.all_bufs(env)))
            elem = I32 if env[buf] is BUF_I32 else I64
            cls = n.Store if k == "store" else n.AtomicAdd
            return cls(buf, self.expr(I32, env, 1), self.expr(elem, env, 1))
        if k == "if":
            return n.If(self.expr(BOOL, env, 1),
                        self.block(env, depth - 1, in_loop, returns, loop_vars),
                        self.block(env, depth - 1, in_loop, returns, loop_vars)
                        if d(st.booleans()) else ())
        if k == "for":
            var = self.fresh("k")
            bound = d(st.sampled_from(["const"] + [p for p, t in env.items() if t.is_int
                                                   and p in self.params]))
            stop = n.Const(d(st.integers(0, 4))) if bound == "const" else n.Name(bound)
            inner = dict(env)
            inner[var] = I64 if bound != "const" and env[bound] is I64 else I32
            return n.For(var, n.Const(0), stop,
                         self.block(inner, depth - 1, True, returns, loop_vars | {var}))
        if k == "break":
            return n.Break()
        if k == "continue":
            return n.Continue()
        if k == "fail":
            return n.Fail(self.expr(I32, env, 1))
        if k == "return":
            return n.Return(None if returns is None else self.expr(returns, env, 1))
        f = d(st.sampled_from(self.callable(env)))
        return n.CallStmt(n.Call(f.name, tuple(self.expr(p.ty, env, 1) for p in f.params)))

    def function(self, name: str, params: tuple[n.Param, ...], returns: Type | None
                 ) -> n.Function:
        env = {p.name: p.ty for p in params}
        self.params = {p.name for p in params}
        body = self.block(env, 2, False, returns, frozenset())
        if returns is not None:
            body += (n.Return(self.expr(returns, env, 1)),)
        return n.Function(name, params, returns, body)


@st.composite
def programs(draw: st.DrawFn) -> n.Program:
    helpers: list[n.Function] = []
    gen = _Draw(draw, helpers)
    for i in range(draw(st.integers(0, 2))):
        types = draw(st.lists(st.sampled_from((I32, I64, BOOL, BUF_I32)), max_size=3))
        params = tuple(n.Param(f"p{j}", t) for j, t in enumerate(types))
        returns = draw(st.sampled_from((None, I32, I64, BOOL)))
        helpers.append(gen.function(f"helper{i}", params, returns))
    kparams = (n.Param("a", BUF_I32), n.Param("b", BUF_I64), n.Param("m", I32),
               n.Param("q", I64), n.Param("flag", BOOL))
    kernel = gen.function("kernel", kparams, None)
    return check(n.Program(tuple(helpers) + (kernel,)))
