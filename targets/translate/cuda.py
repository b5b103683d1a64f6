"""CUDA C++ (built by NVRTC for an NVIDIA GPU, or by g++ against warpsim.h on the CPU):
the dialect of the `cuda` and `cuda-sim` targets.

A wave is a warp: one block of W <= 32 threads (W < 32 a partial warp), gid = block x W
+ the thread's index. Since Volta, the threads of a warp need not reconverge, and every
warp operation takes an explicit member mask: the threads that must execute it together
(CUDA C++ Programming Guide, "Warp Vote Functions", "Warp Shuffle Functions":
each calling thread is in the mask, and every non-exited thread named in it executes the
same intrinsic with the same mask, else the result is undefined). So the translation
computes, at every point, the lanes the kernel language's maximal reconvergence puts
there, and passes exactly them:

- The code is structured so that every lane entering a construct reaches its end: a
  `break`, `continue` or a helper's `return` sets a flag, and the statements after it
  run under a guard (`if (!flag)`), so the lanes that left wait, masked off, at the
  construct's end -- where maximal reconvergence has them wait. Only a lane that ends
  leaves for real: one that faults, runs out of its trip budget or returns from the
  kernel returns from every function and exits, executing no warp operation again
  (an exited thread named in a mask is allowed).
- Each branch (an `if`, a guard, `x if c else y`, `and`, `or`) computes the then-lanes
  with `__ballot_sync(M, c)` over the lanes M that reached it together; the then-side
  runs under that mask, the else-side under the rest of M.
- A loop runs as long as any of its lanes wants another trip: each round, the lanes that
  reached the loop ballot which of them go on (their trip count not done, no `break`,
  no `return`), the rest wait at the round's ballot, and the trip's body runs under the
  mask of the lanes going on -- the lanes in the same trip, as maximal reconvergence says.
- A helper takes the mask of the lanes that called it together.
- A warp operation first ballots the lanes actually there (`__ballot_sync(M, 1)`: the
  lanes of M that have not exited), and passes that: `__ballot_sync`, `__any_sync`,
  `__all_sync`, `__shfl_sync` (readfirstlane from the lowest such lane; shuffle only
  from a lane in it, else 0), `__reduce_{add,min,max}_sync` for 32 bits (sm_80 and
  later), and 64-bit sums, scans, minima and maxima over `__shfl_sync` of each lane.

Arithmetic, faults, bounds checks and the status rows are emit.py's, spelled in C++ (the
context is a struct every function reaches through a pointer, as in OpenCL C).
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

from difftest.core import f32, f64
from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Type
from difftest.core.ir.walk import walk

from .emit import HEADER, FunctionEmitter, Translator, counter_type, entry_checks
from .opencl_c import OpenCLC

#: the kernel's name in the built module: the entry, prefixed
ENTRY_PREFIX = "k_"


def _leaves(stmts: Any, loops: bool) -> tuple[bool, bool, bool]:
    """(break, continue, return) somewhere in `stmts`: break and continue only where
    they belong to the loop around `stmts` (not one inside them), when `loops`."""
    brk = cnt = ret = False
    stack = list(stmts) if isinstance(stmts, tuple) else [stmts]
    while stack:
        x = stack.pop()
        if isinstance(x, n.Return):
            ret = True
        elif isinstance(x, n.Break):
            brk = loops
        elif isinstance(x, n.Continue):
            cnt = loops
        elif isinstance(x, n.If):
            stack += list(x.then) + list(x.orelse)
        elif isinstance(x, (n.For, n.While)):
            ret = ret or any(isinstance(y, n.Return) for y in walk(x.body))
    return brk, cnt, ret


class CudaEmitter(FunctionEmitter):
    """One function, structured so that the lanes of every construct are known (the
    module docstring): `mask` names the member mask of the lanes at the point emitted."""

    def __init__(self, tr: Translator, fn: n.Function) -> None:
        super().__init__(tr, fn)
        self.mask = "m0"
        self.loops: list[tuple[str, str]] = []  # (break flag, continue flag), innermost last
        self.is_kernel = fn.name == tr.entry
        self.returns_early = not self.is_kernel and any(
            isinstance(x, n.Return) for x in walk(fn.body))

    def emit(self) -> str:
        self.block(self.fn.body)
        body = self.declarations()
        if self.returns_early:
            body.append("    bool ret = false;")
        returns = None if self.fn.returns is None else self.d.ty(self.fn.returns)
        tail = []
        if self.fn.returns is not None:
            body.append("    " + self.d.var("rv", self.fn.returns, self.d.zero(self.fn.returns)))
            tail = ["    return rv;"]
        return self.d.function(f"f_{self.fn.name}", self.d.param_decls(self), returns,
                               body + self.lines + tail)

    def temp_u(self, value: str) -> str:
        name = self.fresh("a")
        self.line(f"unsigned {name} = {value};")
        return name

    # ----------------------------------------------------------------- branching
    def branch(self, cond: str, then: Callable[[], None],
               orelse: Callable[[], None] | None = None) -> None:
        """`if (cond) then else orelse`, each side under the mask of its lanes (`cond`
        is a name or a side-effect-free expression: it is read twice). The ballot that
        makes the masks is left out where neither side uses them (no warp operation,
        call or loop below)."""
        outer = self.mask
        taken = self.fresh("m")
        at = len(self.lines)
        self.line(f"unsigned {taken} = {self.d.ballot(self, outer, cond)};")  # type: ignore[attr-defined]
        self.open(f"if ({cond}) {{")
        self.mask = taken
        then()
        self.close()
        if orelse is not None:
            self.open("else {")
            rest = self.fresh("m")
            self.line(f"unsigned {rest} = {outer} & ~{taken};")
            self.mask = rest
            orelse()
            self.close()
        self.mask = outer
        used = re.compile(rf"\b{taken}\b")
        if not any(used.search(x) for x in self.lines[at + 1:]):
            del self.lines[at]

    def block(self, stmts: tuple[n.Stmt, ...]) -> None:
        for i, s in enumerate(stmts):
            getattr(self, "s_" + type(s).__name__)(s)
            flags = self.flags_after(s)
            if flags and i + 1 < len(stmts):
                rest = stmts[i + 1:]
                self.branch(f"!({' || '.join(flags)})", lambda: self.block(rest))
                return

    def flags_after(self, s: n.Stmt) -> list[str]:
        """The flags a lane may have set in `s` that take it out of the statements after
        `s` in its block."""
        brk, cnt, ret = _leaves(s, bool(self.loops))
        out = []
        if brk:
            out.append(self.loops[-1][0])
        if cnt:
            out.append(self.loops[-1][1])
        if ret and self.returns_early:
            out.append("ret")
        return out

    # ---------------------------------------------------------------- statements
    def s_Barrier(self, s: n.Barrier) -> None:
        if "barrier-warp-only" in self.mutants:  # the bug: the warp waits, not the block
            self.line(f"__syncwarp({self.mask});")
        else:
            self.line(self.d.barrier())

    def s_If(self, s: n.If) -> None:
        cond = self.expr(s.cond)
        self.branch(cond, lambda: self.block(s.then),
                    (lambda: self.block(s.orelse)) if s.orelse else None)

    def s_Break(self, s: n.Break) -> None:
        self.line(f"{self.loops[-1][0]} = true;")

    def s_Continue(self, s: n.Continue) -> None:
        self.line(f"{self.loops[-1][1]} = true;")

    def s_Return(self, s: n.Return) -> None:
        if self.is_kernel:  # the lane ends: it exits
            if s.value is not None:
                self.expr(s.value)
            self.line("return;")
            return
        if s.value is not None:
            assert self.fn.returns is not None
            value = self.expr(s.value)
            self.line(f"rv = {self.widen(value, s.value.ty, self.fn.returns)};")
        self.line("ret = true;")

    def loop(self, var: str | None, start: str | None, bound: str | None,
             body: tuple[n.Stmt, ...]) -> None:
        """A loop (a `for` with its counter from `start` up to `bound`, else `while
        True`), run in rounds until none of its lanes goes on (the module docstring)."""
        k = self.fresh("k")
        brk, cnt = self.fresh("brk"), self.fresh("cnt")
        ct = counter_type(self.types[var]) if var is not None else I64
        if start is not None:
            self.line(self.d.var(k, ct, start))
        self.line(f"bool {brk} = false; bool {cnt} = false;")
        go = f"!{brk}" + (" && !ret" if self.returns_early else "") + \
            (f" && {k} < {bound}" if bound is not None else "")
        outer = self.mask
        self.open("for (;;) {")
        want = self.fresh("go")
        self.line(f"bool {want} = {go};")
        trip = self.fresh("m")
        self.line(f"unsigned {trip} = {self.d.ballot(self, outer, want)};")  # type: ignore[attr-defined]
        self.line(f"if ({trip} == 0u) break;")
        self.open(f"if ({want}) {{")
        self.mask = trip
        self.trip()
        if var is not None:
            self.line(f"v_{var} = {self.widen(k, ct, self.types[var])};")
        self.line(f"{cnt} = false;")
        self.loops.append((brk, cnt))
        self.block(body)
        self.loops.pop()
        if start is not None:
            self.line(f"{k} = {k} + 1;")
        self.close()
        self.close()
        self.mask = outer

    def s_For(self, s: n.For) -> None:
        ct = counter_type(self.types[s.var])
        start = self.widen(self.expr(s.start), s.start.ty, ct)
        stop = self.widen(self.expr(s.stop), s.stop.ty, ct)
        bound = self.fresh("b")
        self.line(self.d.let(bound, ct, stop))  # once, at entry
        self.loop(s.var, start, bound, s.body)

    def s_While(self, s: n.While) -> None:
        self.loop(None, None, None, s.body)

    # --------------------------------------------------------------- expressions
    def _branching(self, ty: Type, cond: n.Expr, then: n.Expr | None,
                   orelse: n.Expr | None, default: str) -> str:
        c = self.expr(cond)
        out = self.mutable(ty, default)

        def side(e: n.Expr) -> Callable[[], None]:
            return lambda: self.line(f"{out} = {self.widen(self.expr(e), e.ty, ty)};")

        if then is None:
            assert orelse is not None
            self.branch(f"!{c}", side(orelse))
        else:
            self.branch(c, side(then), side(orelse) if orelse is not None else None)
        return out

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
        call = f"f_{e.func}({', '.join(['C', self.mask] + args)})"
        result = None
        if callee.returns is None:
            self.line(call + ";")
        else:
            result = self.temp(callee.returns, call)
        self.line(f"{c}depth = {c}depth - 1;")
        if "call-no-check" not in self.mutants:
            self.check()
        return result


class CudaC(OpenCLC):
    name = "cuda"
    ctx = "C->"
    emitter = CudaEmitter
    has_workgroups = True
    exit_arrives = True  # PTX ISA, `exit`: an exited thread does not hold a barrier up

    def __init__(self) -> None:
        super().__init__(subgroups=True)

    TYPES = {I8: "signed char", U8: "unsigned char", I16: "short", U16: "unsigned short",
             I32: "int", U32: "unsigned int", I64: "long long", U64: "unsigned long long",
             BOOL: "bool", F32: "float", F64: "double"}
    SUFFIX = {I64: "LL", U32: "u", U64: "ULL"}

    # f32: NVRTC builds with --fmad=false --ftz=false (cuda_runner.OPTIONS: not CuPy's
    # compile path, which adds -ftz=true);
    # warpsim's g++ with contraction off
    def f2bits(self, x: str, t: Type = F32) -> str:
        return f"__float_as_int({x})" if t is F32 else f"__double_as_longlong({x})"

    def i2f(self, x: str, t: Type, to: Type = F32) -> str:
        # C++ leaves a double past float's range converted to float undefined
        # ([conv.double]); CUDA's intrinsic rounds it to nearest, an infinity past the range
        if t is F64 and to is F32:
            return f"__double2float_rn({x})"
        return super().i2f(x, t, to)

    def flit(self, x: float, t: Type = F32) -> str:
        """A float literal by its bits. C++ leaves a constant expression whose float
        result is past the type's range undefined ([expr.pre]; NVRTC's front end warns,
        #222, and then folds the comparisons after it as it likes: `FLT_MAX * 2.0f *
        0.0f != itself` was false); written so, no operation on literals is a constant
        expression to the front end, while NVVM still folds them, by IEEE's rules."""
        if t is F32:
            return f"__int_as_float({self.lit(f32.to_bits(x), I32)})"
        return f"__longlong_as_double({self.lit(f64.to_bits(x), I64)})"

    def bits2f(self, x: str, t: Type = F32) -> str:
        return f"__int_as_float({x})" if t is F32 else f"__longlong_as_double({x})"

    def ffma(self, a: str, b: str, c: str, t: Type = F32) -> str:
        return f"__fmaf_rn({a}, {b}, {c})" if t is F32 else f"__fma_rn({a}, {b}, {c})"

    def lit(self, value: int | bool, t: Type) -> str:
        if t is BOOL:
            return "true" if value else "false"
        return super().lit(value, t)

    def ballot_function(self, fe: FunctionEmitter, op: str, m: str) -> str | None:
        return None  # CUDA has none: __popcll and __ffsll of the masked ballot

    def bit_count(self, fe: FunctionEmitter, op: str, x: str, t: Type) -> str | None:
        # CUDA's intrinsics, 32- and 64-bit (warpsim.h defines them for the CPU)
        ll = "ll" if t is U64 else ""
        st, ut = ("long long", "unsigned long long") if t is U64 else ("int", "unsigned")
        if op == "popcount":
            return f"(({ut})__popc{ll}({x}))"
        if op == "clz":  # of 0: the width
            return f"(({ut})__clz{ll}(({st})({x})))"
        if op == "ctz":  # __ffs: one past the lowest set bit's index, 0 for 0
            width = 64 if t is U64 else 32
            return f"(({x}) == 0 ? ({ut}){width} : ({ut})(__ffs{ll}(({st})({x})) - 1))"
        return f"__brev{ll}({x})"

    def narrow(self, x: str) -> str:
        return f"((int)(unsigned int)(unsigned long long)({x}))"

    def b2i(self, x: str, t: Type) -> str:
        return f"(({self.ty(t)})(({x}) ? 1 : 0))"

    def i2b(self, x: str) -> str:
        return f"({x} != 0)"

    def param_decls(self, fe: FunctionEmitter) -> list[tuple[str, str]]:
        out = [("C", "Ctx*"), ("m0", "unsigned")]
        for p in fe.fn.params:
            if p.ty.is_buffer:
                out += [(f"v_{p.name}", f"{self.ty(p.ty.element)}*"),
                        (f"n_{p.name}", "long long")]
            else:
                out.append((f"v_{p.name}", self.ty(p.ty)))
        if fe.fn is fe.tr.kernel:
            out += [(f"v_{a.name}", f"{self.ty(a.element)}*") for a in fe.tr.local_arrays]
        return out

    def function(self, name: str, params: list[tuple[str, str]], returns: str | None,
                 body: list[str]) -> str:
        head = ", ".join(f"{t} {p}" for p, t in params)
        return (f"__device__ {returns or 'void'} {name}({head}) {{\n" + "\n".join(body)
                + "\n}\n")

    def buffer_decl(self, fe: FunctionEmitter, name: str, t: Type) -> list[str]:
        return [f"{self.ty(t.element)}* v_{name} = 0; long long n_{name} = 0;"]

    def buffer_temp(self, fe: FunctionEmitter, t: Type) -> tuple[str, str]:
        ref, length = fe.fresh("p"), fe.fresh("l")
        fe.line(f"{self.ty(t.element)}* {ref} = 0; long long {length} = 0;")
        return ref, length

    def atomic_add(self, fe: FunctionEmitter, var: str, ref: str, index: str, value: str,
                   elem: Type) -> None:
        u = self.uty(elem)
        fe.line(f"atomicAdd(({u}*)({ref} + {index}), ({u})({value}));")

    def atomic(self, fe: FunctionEmitter, op: str, var: str, ref: str, index: str,
               value: str, compare: str | None, elem: Type) -> str:
        """The CUDA C++ guide's atomic functions, by the types it gives each: a 64-bit
        signed add, bitwise op, exchange or compare-and-swap on the bits as unsigned long
        long (two's complement: the same bits), min and max on long long."""
        if elem.bits == 32:
            t = "int" if elem.signed else "unsigned"
        else:
            t = "long long" if elem.signed and op in ("min", "max") else "unsigned long long"
        name = {"add": "atomicAdd", "min": "atomicMin", "max": "atomicMax",
                "and": "atomicAnd", "or": "atomicOr", "xor": "atomicXor",
                "exchange": "atomicExch", "compare_exchange": "atomicCAS"}[op]
        args = [f"({t}*)({ref} + {index})"]
        if compare is not None:
            args.append(f"({t})({compare})")
        args.append(f"({t})({value})")
        return f"(({self.ty(elem)}){name}({', '.join(args)}))"

    def local_atomic(self, fe: FunctionEmitter, op: str, ref: str, index: str, value: str,
                     compare: str | None, elem: Type) -> str:
        return self.atomic(fe, op, "", ref, index, value, compare, elem)

    # -------------------------------------------------------------- workgroups
    def barrier(self) -> str:
        """`__syncthreads()`: the block's barrier, and its writes (shared and global)
        seen by the block after it."""
        return "__syncthreads();"

    def local_atomic_add(self, fe: FunctionEmitter, ref: str, index: str, value: str,
                         elem: Type) -> None:
        self.atomic_add(fe, "", ref, index, value, elem)

    # ------------------------------------------------------------------- warps
    def ballot(self, fe: FunctionEmitter, mask: str, pred: str) -> str:
        """The structural ballot of a branch or loop: always the exact mask."""
        return f"__ballot_sync({mask}, {pred})"

    def member_mask(self, fe: CudaEmitter) -> str:
        """The member mask a warp operation passes: the lanes of the current mask that
        are here (not exited)."""
        m = fe.mutants
        if "member-mask-full" in m:  # pre-Volta habit: every lane of the warp
            return f"0x{(1 << fe.tr.wave) - 1 if fe.tr.wave < 32 else 0xFFFFFFFF:x}u"
        if "member-mask-activemask" in m:  # the lanes the hardware happens to run together
            return fe.temp_u("__activemask()")
        return fe.temp_u(f"__ballot_sync({fe.mask}, 1)")

    def wave_op(self, fe: FunctionEmitter, e: n.WaveOp, args: list[str]) -> str:
        assert isinstance(fe, CudaEmitter)
        op, ty, m = e.op, e.ty, fe.mutants
        assert ty is not None
        a = self.member_mask(fe)
        lane = "C->lane"
        first = f"(__ffs((int){a}) - 1)"
        if op == "elect":
            return fe.temp(BOOL, f"({lane} == {first})")
        x = args[0]
        if op == "ballot":
            return fe.temp(I64, f"((long long)(unsigned long long)__ballot_sync({a}, {x}))")
        if op in ("wave_any", "wave_all"):
            return fe.temp(BOOL, f"(__{op[5:]}_sync({a}, {x}) != 0)")
        if op == "readfirstlane":
            return fe.temp(ty, self.shfl(a, x, first, ty))
        if op == "wave_all_equal":  # every lane's value the first one's
            same = fe.temp(BOOL, f"({x} == {self.shfl(a, x, first, e.args[0].ty or BOOL)})")
            return fe.temp(BOOL, f"(__all_sync({a}, {same}) != 0)")
        if n.clustered(e):
            cluster = n.cluster_of(e)
            return self.by_shuffles(fe, op, a, x, ty, cluster if cluster < fe.tr.wave else 0)
        if op == "shuffle" or op in n.RELATIVE_SHUFFLES or op in n.QUAD_OPS:
            src = fe.quad_source(op, e) if op in n.QUAD_OPS else args[1]
            st = I32 if op in n.QUAD_OPS else e.args[1].ty
            assert st is not None
            if op in n.RELATIVE_SHUFFLES:  # its source lane; read with __shfl_sync
                src, st = fe.relative_source(op, args[1], st), I64
            ok = fe.temp(BOOL, f"({src} >= {self.lit(0, st)} && {src} < "
                               f"{self.lit(fe.tr.wave, st)} && "
                               f"((({a}) >> (int)({src})) & 1u) != 0u)")
            got = fe.temp(ty, self.shfl(a, x, f"({ok} ? (int)({src}) : {lane})", ty))
            return fe.temp(ty, f"({ok} ? {got} : {self.zero(ty)})")
        if ty in (I32, U32) and op in ("wave_sum", "wave_min", "wave_max"):
            if op == "wave_sum":
                return fe.temp(ty, f"(({self.ty(ty)})__reduce_add_sync({a}, "
                                   f"(unsigned int)({x})))")
            # int or unsigned: the overload of the operand's type (a signed or
            # unsigned minimum)
            return fe.temp(ty, f"__reduce_{op[5:]}_sync({a}, {x})")
        if ty is I64 and op == "wave_sum" and "reduce-64-as-32" in m:
            # the mutant: the 32-bit reduction, as if it took any integer
            return fe.temp(ty, f"((long long)(int)__reduce_add_sync({a}, "
                               f"(unsigned int)({x})))")
        return self.by_shuffles(fe, op, a, x, ty)

    def shfl(self, mask: str, x: str, src: str, ty: Type) -> str:
        if ty is BOOL:
            return f"(__shfl_sync({mask}, (int)({x}), {src}) != 0)"
        return f"__shfl_sync({mask}, {x}, {src})"

    def by_shuffles(self, fe: CudaEmitter, op: str, a: str, x: str, ty: Type,
                    cluster: int = 0) -> str:
        """A reduction or scan over the lanes of `a` (of the lane's cluster of `cluster`
        lanes, where given), each lane's value fetched by `__shfl_sync` (every lane of
        `a` runs every fetch; a fetch from a lane not in `a` is undefined and left
        out)."""
        acc = fe.fresh("r")
        j = fe.fresh("j")
        u = self.uty(ty)
        if op in ("wave_sum", "prefix_sum", "inclusive_sum", "wave_xor"):
            fe.line(f"{u} {acc} = 0;")
        else:
            fe.line(f"{self.ty(ty)} {acc} = {x};")
        fe.open(f"for (int {j} = 0; {j} < {fe.tr.wave}; {j}++) {{")
        v = fe.fresh("v")
        fe.line(f"{self.ty(ty)} {v} = __shfl_sync({a}, {x}, {j});")
        inside = f"((({a}) >> {j}) & 1u) != 0u"
        if cluster:  # a lane of the same cluster
            inside += f" && ({j} & {-cluster}) == (C->lane & {-cluster})"
        if op in ("wave_and", "wave_or", "wave_xor"):
            spelled = {"wave_and": "&", "wave_or": "|", "wave_xor": "^"}[op]
            cast = u if op == "wave_xor" else self.ty(ty)
            fe.line(f"if ({inside}) {{ {acc} = {acc} {spelled} ({cast}){v}; }}")
        elif op == "wave_sum":
            fe.line(f"if ({inside}) {{ {acc} = {acc} + ({u}){v}; }}")
        elif op == "prefix_sum":
            fe.line(f"if ({inside} && {j} < C->lane) {{ {acc} = {acc} + ({u}){v}; }}")
        elif op == "inclusive_sum":
            fe.line(f"if ({inside} && {j} <= C->lane) {{ {acc} = {acc} + ({u}){v}; }}")
        elif op == "wave_min":
            fe.line(f"if ({inside} && {v} < {acc}) {{ {acc} = {v}; }}")
        else:
            assert op == "wave_max", op
            fe.line(f"if ({inside} && {v} > {acc}) {{ {acc} = {v}; }}")
        fe.close()
        if op in ("wave_sum", "prefix_sum", "inclusive_sum", "wave_xor"):
            return fe.temp(ty, self.from_u(acc, ty))
        return acc

    # -------------------------------------------------------------------- program
    def program(self, tr: Translator, functions: list[str]) -> str:
        prelude = [
            "struct Ctx {",
            "    int kind; long long code; int depth; int fdepth;",
            f"    int fns[{tr.depth}]; int lns[{tr.depth}];",
            "    int gid; int lane; int wave; long long trips; long long budget;",
            "    int local_id; int group_id; int group_size;",
            "};",
            "",
        ]
        return "\n".join(prelude) + "\n".join(functions) + "\n" + self.entry(tr)

    def entry(self, tr: Translator) -> str:
        checks = entry_checks(tr)
        w = tr.wave
        params = ["long long* ST", "long long N", "long long BUDGET"]
        args = []
        for p in tr.params:
            if p.ty.is_buffer:
                params += [f"{self.ty(p.ty.element)}* v_{p.name}", f"long long n_{p.name}"]
                args += [f"v_{p.name}", f"n_{p.name}"]
            else:
                params.append(f"{self.ty(p.ty)} v_{p.name}")
                args.append(f"v_{p.name}")
        full = "0xffffffffu" if w == 32 else f"0x{(1 << w) - 1:x}u"
        g = tr.group  # G > W only with W = 32: a wave is a warp (targets/cuda/target.py)
        body = ["    Ctx ctx = {};", "    Ctx* C = &ctx;"]
        body += [f"    __shared__ {self.ty(a.element)} l_{a.name}[{a.length}];"
                 for a in tr.local_arrays]
        args += [f"l_{a.name}" for a in tr.local_arrays]
        body += [f"    int lane = (int)(threadIdx.x % {w}u);",
                 f"    int wave = (int)blockIdx.x * {g // w} + (int)(threadIdx.x / {w}u);",
                 f"    if (blockDim.x != {g}u) {{ atomicAdd((unsigned long long*)ST, 1ull); "
                 "return; }",
                 f"    long long gid = (long long)wave * {w} + lane;"]
        if tr.workgroups:
            body.append(f"    C->local_id = (int)threadIdx.x; C->group_id = (int)blockIdx.x; "
                        f"C->group_size = {g};")
            if checks["zero_locals"]:
                body += [f"    for (int i = (int)threadIdx.x; i < {a.length}; i += {g}) "
                         f"l_{a.name}[i] = 0;" for a in tr.local_arrays]
            if tr.local_arrays:
                body.append("    __syncthreads();")
        if checks["retire_past_n"]:
            body += [f"    unsigned m0 = __ballot_sync({full}, gid < N);",
                     "    if (gid >= N) return;  // an exited thread holds no barrier up"]
        else:
            body.append(f"    unsigned m0 = {full};")
        body += ["    C->gid = (int)gid; C->lane = lane; C->wave = wave; C->budget = BUDGET;",
                 f"    f_{tr.entry}({', '.join(['C', 'm0'] + args)});",
                 "    if (gid >= N) return;",
                 f"    long long* r = ST + {HEADER} + gid * {tr.row};",
                 "    r[0] = C->kind; r[1] = C->code; r[2] = C->fdepth;",
                 "    for (int i = 0; i < C->fdepth; i++) "
                 "{ r[3 + 2 * i] = C->fns[i]; r[4 + 2 * i] = C->lns[i]; }"]
        return "\n".join([f'extern "C" __global__ void {ENTRY_PREFIX}{tr.entry}'
                          f'({", ".join(params)}) {{'] + body + ["}", ""])
