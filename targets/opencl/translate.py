"""A checked kernel program as OpenCL C, with difftest's semantics spelled out.

C leaves much of what the kernel language defines undefined, so nothing is left to it:
- `+ - *` and negation wrap: computed on the unsigned type of the width, then converted
  back (LLVM, like every two's-complement compiler, keeps the low bits);
- `//` and `%` truncate (C's `/` and `%` do), `MIN // -1 == MIN` and `MIN % -1 == 0`
  are written out, a zero divisor faults;
- shift amounts are masked to the width; a left shift is done unsigned;
- mixed widths are widened explicitly, `i32(x)` keeps the low 32 bits.

Faults are emulated: each workitem carries a private context (`Ctx`) with its fault kind,
`fail` code and the stack of (function, line) frames; a bounds check, a zero divisor or a
`fail` fills it in and the workitem leaves every function it is in (each operation that
may fault is followed by a check). A workitem that would start a loop trip past its
budget stops the same way, with kind EXHAUSTED. At the kernel's end each workitem writes
its context into its row of the status buffer, which the host reads back. So every
workitem runs to its fate, as the `stream` policy allows (nothing is never-ran).

Evaluation order is the language's: every operand is evaluated into a temporary in
Python's order, so the first fault in that order is the one recorded. Buffer references
are (pointer, length) pairs; helpers become functions taking the context first.
"""

from __future__ import annotations

from dataclasses import dataclass

from difftest.ir import nodes as n
from difftest.ir.types import BOOL, I32, I64, Type, widest

# the fault kinds in the status buffer (0: completed)
OUT_OF_BOUNDS, DIVISION_BY_ZERO, FAIL, EXHAUSTED = 1, 2, 3, 4
KINDS = {OUT_OF_BOUNDS: "out_of_bounds", DIVISION_BY_ZERO: "division_by_zero", FAIL: "fail"}

#: the translation's injectable bugs (`--opt mutants=NAME`): name -> (seed, description)
MUTANTS = {
    "bound-per-trip": ("this target's own history",
                       "a `for` loop's stop bound is read again at every trip instead of "
                       "once at entry (the body may assign what it reads)"),
    "call-no-check": ("NOTES: exception stacks",
                      "no fault check after a helper call: a workitem that faulted inside "
                      "the helper goes on running its caller"),
}


@dataclass(frozen=True)
class Translation:
    source: str
    kernel: str                    # the __kernel function's name
    functions: tuple[str, ...]     # function ids in status frames -> names
    row: int                       # longs per workitem in the status buffer
    params: tuple[n.Param, ...]    # the kernel's parameters, in argument order


class Unsupported(Exception):
    """A construct the OpenCL target does not run (wave operations, alloc)."""


def unsupported(program: n.Program) -> str | None:
    """Why this target cannot run `program` (None when it can)."""
    for fn in program.functions:
        for node in _walk(fn.body):
            if isinstance(node, n.WaveOp):
                return ("wave operations: PoCL's CPU device has no subgroups "
                        f"({node.op} at line {node.line})")
            if isinstance(node, n.Alloc):
                return f"alloc(): no allocation inside a kernel (line {node.line})"
    return None


def translate(program: n.Program, entry: str,
              mutants: frozenset[str] = frozenset()) -> Translation:
    why = unsupported(program)
    if why is not None:
        raise Unsupported(why)
    names = tuple(f.name for f in program.functions)
    fid = {name: i for i, name in enumerate(names)}
    depth = len(names)  # no recursion: a stack is at most one frame per function
    row = 3 + 2 * depth
    out = [_PRELUDE.format(depth=depth)]
    # helpers first, callees before callers (C needs a declaration before a call)
    for fn in _call_order(program, entry):
        if fn.name != entry:
            out.append(_Function(fn, fid, program, mutants).helper())
    kernel_fn = program.function(entry)
    out.append(_Function(kernel_fn, fid, program, mutants).kernel(row))
    return Translation("\n".join(out), f"k_{entry}", names, row, kernel_fn.params)


_PRELUDE = """\
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef struct {{
    int kind;      /* 0 completed, 1 out of bounds, 2 division by zero, 3 fail, 4 exhausted */
    long code;
    int depth;     /* frames of the callers now active */
    int fdepth;    /* frames recorded at the fault */
    int fn[{depth}];
    int line[{depth}];
    int gid;
    int wave_size;
    long trips;
    long budget;
}} Ctx;
"""


def _walk(node: object):  # type: ignore[no-untyped-def]
    if isinstance(node, tuple):
        for x in node:
            yield from _walk(x)
        return
    if isinstance(node, n.EXPR_NODES + n.STMT_NODES):
        yield node
        for name in node.__dataclass_fields__:
            if name not in ("line", "ty"):
                yield from _walk(getattr(node, name))


def _call_order(program: n.Program, entry: str) -> list[n.Function]:
    """The functions reachable from `entry`, each after everything it calls."""
    seen: list[str] = []

    def visit(name: str) -> None:
        if name in seen:
            return
        for node in _walk(program.function(name).body):
            if isinstance(node, n.Call):
                visit(node.func)
        seen.append(name)

    visit(entry)
    return [program.function(name) for name in seen]


def _ctype(ty: Type) -> str:
    return {I32: "int", I64: "long", BOOL: "int"}[ty]


def _utype(ty: Type) -> str:
    return "uint" if ty is I32 else "ulong"


def _elem(ty: Type) -> str:
    return "int" if ty.element is I32 else "long"


def _literal(value: int | bool, ty: Type) -> str:
    if ty is BOOL:
        return "1" if value else "0"
    v = int(value)
    if ty is I32:
        return "(-2147483647 - 1)" if v == -(1 << 31) else f"({v})"
    return "(-9223372036854775807L - 1L)" if v == -(1 << 63) else f"({v}L)"


def _variables(fn: n.Function) -> dict[str, Type]:
    """Each local's type, fixed by its first assignment or declaration (the checker
    guarantees the later ones agree), parameters excluded."""
    params = {p.name for p in fn.params}
    out: dict[str, Type] = {}
    for node in _walk(fn.body):
        if isinstance(node, n.Assign) and node.target not in params:
            assert node.value.ty is not None
            out.setdefault(node.target, node.declared or node.value.ty)
        elif isinstance(node, n.For) and node.var not in params:
            assert node.start.ty is not None and node.stop.ty is not None
            out.setdefault(node.var, widest(node.start.ty, node.stop.ty))
    return out


class _Function:
    """Emits one function: statements as C statements, every expression through
    temporaries in evaluation order."""

    def __init__(self, fn: n.Function, fid: dict[str, int], program: n.Program,
                 mutants: frozenset[str] = frozenset()) -> None:
        self.fn = fn
        self.mutants = mutants
        self.fid = fid
        self.program = program
        self.lines: list[str] = []
        self.indent = 1
        self.temps = 0
        self.is_kernel = False
        self.locals = _variables(fn)
        self.types = {p.name: p.ty for p in fn.params} | self.locals

    # ------------------------------------------------------------------ functions

    def _declarations(self) -> list[str]:
        out = []
        for name, ty in self.locals.items():
            if ty.is_buffer:
                out.append(f"    __global {_elem(ty)}* v_{name} = 0; long n_{name} = 0;")
            else:
                out.append(f"    {_ctype(ty)} v_{name} = 0;")
        return out

    def _param_list(self) -> list[str]:
        out = []
        for p in self.fn.params:
            if p.ty.is_buffer:
                out.append(f"__global {_elem(p.ty)}* v_{p.name}")
                out.append(f"long n_{p.name}")
            else:
                out.append(f"{_ctype(p.ty)} v_{p.name}")
        return out

    def helper(self) -> str:
        ret = "void" if self.fn.returns is None else _ctype(self.fn.returns)
        params = ", ".join(["__private Ctx* C"] + self._param_list())
        self.block(self.fn.body)
        body = self._declarations() + self.lines
        return f"{ret} f_{self.fn.name}({params}) {{\n" + "\n".join(body) + "\n}\n"

    def kernel(self, row: int) -> str:
        self.is_kernel = True
        params = ", ".join(["__global long* ST", "int W", "long BUDGET"]
                           + self._param_list())
        self.block(self.fn.body)
        head = [
            "    Ctx ctx = {0};",
            "    __private Ctx* C = &ctx;",
            "    C->gid = (int)get_global_id(0);",
            "    C->wave_size = W;",
            "    C->budget = BUDGET;",
        ]
        tail = [
            "done:;",
            f"    __global long* r = ST + (long)C->gid * {row};",
            "    r[0] = C->kind; r[1] = C->code; r[2] = C->fdepth;",
            "    for (int i = 0; i < C->fdepth; i++) { r[3 + 2 * i] = C->fn[i]; "
            "r[4 + 2 * i] = C->line[i]; }",
        ]
        body = head + self._declarations() + self.lines + tail
        return (f"__kernel void k_{self.fn.name}({params}) {{\n" + "\n".join(body)
                + "\n}\n")

    # ------------------------------------------------------------------ helpers

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def temp(self, ty: Type, value: str) -> str:
        self.temps += 1
        name = f"t{self.temps}"
        self.emit(f"{_ctype(ty)} {name} = {value};")
        return name

    def leave(self) -> str:
        """Leaving the function because the workitem stopped (a fault, or its budget)."""
        if self.is_kernel:
            return "goto done;"
        if self.fn.returns is None:
            return "return;"
        return "return 0;"

    def check(self) -> None:
        self.emit(f"if (C->kind) {self.leave()}")

    def fault(self, kind: int, line: int, code: str = "0") -> None:
        self.emit(f"C->kind = {kind}; C->code = {code}; C->fn[C->depth] = "
                  f"{self.fid[self.fn.name]}; C->line[C->depth] = {line}; "
                  f"C->fdepth = C->depth + 1; {self.leave()}")

    def widen(self, value: str, have: Type | None, want: Type) -> str:
        if have is I32 and want is I64:
            return f"((long){value})"
        return value

    # ------------------------------------------------------------------ statements

    def block(self, stmts: tuple[n.Stmt, ...]) -> None:
        for s in stmts:
            getattr(self, "s_" + type(s).__name__)(s)

    def nested(self, head: str, stmts: tuple[n.Stmt, ...]) -> None:
        self.emit(head + " {")
        self.indent += 1
        self.block(stmts)
        self.indent -= 1
        self.emit("}")

    def s_Assign(self, s: n.Assign) -> None:
        want = self.types[s.target]
        if want.is_buffer:
            ptr, length = self.buffer(s.value)
            self.emit(f"v_{s.target} = {ptr}; n_{s.target} = {length};")
            return
        value = self.expr(s.value)
        self.emit(f"v_{s.target} = {self.widen(value, s.value.ty, want)};")

    def s_Store(self, s: n.Store) -> None:
        value = self.expr(s.value)
        index = self.expr(s.index)
        ptr, length = self.buffer_name(s.buffer)
        self.bounds(index, length, s.line)
        elem = self.types[s.buffer].element
        self.emit(f"{ptr}[{index}] = {self.widen(value, s.value.ty, elem)};")

    def s_AtomicAdd(self, s: n.AtomicAdd) -> None:
        index = self.expr(s.index)
        value = self.expr(s.value)
        ptr, length = self.buffer_name(s.buffer)
        self.bounds(index, length, s.line)
        elem = self.types[s.buffer].element
        if elem is I32:
            self.emit(f"atomic_add((volatile __global uint*)({ptr} + {index}), "
                      f"(uint){value});")
        else:
            v = self.widen(value, s.value.ty, I64)
            self.emit(f"atom_add((volatile __global ulong*)({ptr} + {index}), (ulong){v});")

    def s_If(self, s: n.If) -> None:
        cond = self.expr(s.cond)
        self.nested(f"if ({cond})", s.then)
        if s.orelse:
            self.nested("else", s.orelse)

    def trip(self) -> None:
        self.emit(f"if (++C->trips > C->budget) {{ C->kind = {EXHAUSTED}; {self.leave()} }}")

    def s_For(self, s: n.For) -> None:
        start = self.expr(s.start)
        stop = self.expr(s.stop)
        ty = self.types[s.var]
        self.temps += 1
        k = f"k{self.temps}"
        # the bounds once, at entry (the body may assign what they read)
        bound = f"{k}_stop"
        if "bound-per-trip" in self.mutants:
            bound = f"(long){stop}"  # the bug: a variable bound is read at every trip
        else:
            self.emit(f"long {k}_stop = (long){stop};")
        self.emit(f"for (long {k} = (long){start}; {k} < {bound}; {k}++) {{")
        self.indent += 1
        self.trip()
        self.emit(f"v_{s.var} = ({_ctype(ty)}){k};")
        self.block(s.body)
        self.indent -= 1
        self.emit("}")

    def s_While(self, s: n.While) -> None:
        self.emit("for (;;) {")
        self.indent += 1
        self.trip()
        self.block(s.body)
        self.indent -= 1
        self.emit("}")

    def s_Break(self, s: n.Break) -> None:
        self.emit("break;")

    def s_Continue(self, s: n.Continue) -> None:
        self.emit("continue;")

    def s_Return(self, s: n.Return) -> None:
        if self.is_kernel:
            self.emit("goto done;")
        elif s.value is None:
            self.emit("return;")
        else:
            assert self.fn.returns is not None
            value = self.expr(s.value)
            self.emit(f"return {self.widen(value, s.value.ty, self.fn.returns)};")

    def s_Fail(self, s: n.Fail) -> None:
        code = self.expr(s.code)
        self.fault(FAIL, s.line, f"(long){code}")

    def s_CallStmt(self, s: n.CallStmt) -> None:
        self.call(s.call)

    # ------------------------------------------------------------------ expressions

    def buffer_name(self, name: str) -> tuple[str, str]:
        return f"v_{name}", f"n_{name}"

    def buffer(self, e: n.Expr) -> tuple[str, str]:
        """A buffer-valued expression as (pointer, length) temporaries."""
        if isinstance(e, n.Name):
            return self.buffer_name(e.id)
        assert e.ty is not None and e.ty.is_buffer, e
        self.temps += 1
        ptr, length = f"p{self.temps}", f"l{self.temps}"
        self.emit(f"__global {_elem(e.ty)}* {ptr} = 0; long {length} = 0;")
        if isinstance(e, n.Select):
            cond = self.expr(e.cond)
            for head, side in ((f"if ({cond})", e.then), ("else", e.orelse)):
                self.emit(head + " {")
                self.indent += 1
                p, ln = self.buffer(side)
                self.emit(f"{ptr} = {p}; {length} = {ln};")
                self.indent -= 1
                self.emit("}")
            return ptr, length
        raise Unsupported(f"a buffer value of kind {type(e).__name__}")

    def bounds(self, index: str, length: str, line: int) -> None:
        self.emit(f"if ((long){index} < 0 || (long){index} >= {length}) {{")
        self.indent += 1
        self.fault(OUT_OF_BOUNDS, line)
        self.indent -= 1
        self.emit("}")

    def expr(self, e: n.Expr) -> str:
        """Emits what `e` needs and returns a C expression (a temporary or a literal) of
        its value, in the C type of `e.ty`."""
        return getattr(self, "e_" + type(e).__name__)(e)  # type: ignore[no-any-return]

    def e_Const(self, e: n.Const) -> str:
        assert e.ty is not None
        return _literal(e.value, e.ty)

    def e_Name(self, e: n.Name) -> str:
        return f"v_{e.id}"

    def e_WorkId(self, e: n.WorkId) -> str:
        return {"gid": "C->gid", "lane": "(C->gid % C->wave_size)",
                "wave": "(C->gid / C->wave_size)"}[e.which]

    def e_Unary(self, e: n.Unary) -> str:
        assert e.ty is not None
        operand = self.expr(e.operand)
        if e.op == "not":
            return self.temp(BOOL, f"!{operand}")
        if e.op == "~":
            return self.temp(e.ty, f"~{operand}")
        return self.temp(e.ty, f"({_ctype(e.ty)})(({_utype(e.ty)})0 - ({_utype(e.ty)}){operand})")

    def e_Binary(self, e: n.Binary) -> str:
        ty = e.ty
        assert ty is not None
        a = self.widen(self.expr(e.left), e.left.ty, ty)
        b = self.widen(self.expr(e.right), e.right.ty, ty)
        c, u = _ctype(ty), _utype(ty)
        if e.op in ("+", "-", "*"):
            return self.temp(ty, f"({c})(({u}){a} {e.op} ({u}){b})")
        if e.op in ("&", "|", "^"):
            return self.temp(ty, f"{a} {e.op} {b}")
        mask = ty.bits - 1
        if e.op == "<<":
            return self.temp(ty, f"({c})(({u}){a} << ({b} & {mask}))")
        if e.op == ">>":
            return self.temp(ty, f"{a} >> ({b} & {mask})")
        # // and %: a zero divisor faults at this node's line; MIN // -1 wraps to MIN
        self.emit(f"if ({b} == 0) {{")
        self.indent += 1
        self.fault(DIVISION_BY_ZERO, e.line)
        self.indent -= 1
        self.emit("}")
        if e.op == "//":
            return self.temp(ty, f"({b} == -1) ? ({c})(({u})0 - ({u}){a}) : {a} / {b}")
        return self.temp(ty, f"({b} == -1) ? 0 : {a} % {b}")

    def e_Compare(self, e: n.Compare) -> str:
        assert e.left.ty is not None and e.right.ty is not None
        a, b = self.expr(e.left), self.expr(e.right)
        if e.left.ty.is_int:
            ty = widest(e.left.ty, e.right.ty)
            a, b = self.widen(a, e.left.ty, ty), self.widen(b, e.right.ty, ty)
        return self.temp(BOOL, f"({a} {e.op} {b})")

    def _branching(self, ty: Type, cond: n.Expr, then: n.Expr | None, orelse: n.Expr | None,
                   default: str) -> str:
        """`cond ? then : orelse` where each side is evaluated only when chosen (None: the
        side's value is `default`)."""
        c = self.expr(cond)
        self.temps += 1
        out = f"s{self.temps}"
        self.emit(f"{_ctype(ty)} {out} = {default};")
        for head, side in ((f"if ({c})", then), ("else", orelse)):
            if side is None:
                continue
            self.emit(head + " {")
            self.indent += 1
            self.emit(f"{out} = {self.widen(self.expr(side), side.ty, ty)};")
            self.indent -= 1
            self.emit("}")
        return out

    def e_Logic(self, e: n.Logic) -> str:
        if e.op == "and":  # the right side only when the left is true
            return self._branching(BOOL, e.left, e.right, None, "0")
        # or: true when the left is, else the right side
        c = self.expr(e.left)
        self.temps += 1
        out = f"s{self.temps}"
        self.emit(f"int {out} = 1;")
        self.emit(f"if (!{c}) {{")
        self.indent += 1
        self.emit(f"{out} = {self.expr(e.right)};")
        self.indent -= 1
        self.emit("}")
        return out

    def e_Select(self, e: n.Select) -> str:
        assert e.ty is not None
        return self._branching(e.ty, e.cond, e.then, e.orelse, "0")

    def e_Load(self, e: n.Load) -> str:
        assert e.ty is not None
        index = self.expr(e.index)
        ptr, length = self.buffer_name(e.buffer)
        self.bounds(index, length, e.line)
        return self.temp(e.ty, f"{ptr}[{index}]")

    def e_Len(self, e: n.Len) -> str:
        return f"((int)n_{e.buffer})"

    def e_Cast(self, e: n.Cast) -> str:
        operand = self.expr(e.operand)
        if e.to is I32:
            return self.temp(I32, f"(int)(uint)(ulong){operand}")
        return self.temp(I64, f"(long){operand}")

    def e_Call(self, e: n.Call) -> str:
        result = self.call(e)
        assert result is not None
        return result

    def call(self, e: n.Call) -> str | None:
        callee = self.program.function(e.func)
        args: list[str] = []
        for p, a in zip(callee.params, e.args):
            if p.ty.is_buffer:
                args += list(self.buffer(a))
            else:
                args.append(self.widen(self.expr(a), a.ty, p.ty))
        self.emit(f"C->fn[C->depth] = {self.fid[self.fn.name]}; "
                  f"C->line[C->depth] = {e.line}; C->depth++;")
        call = f"f_{e.func}({', '.join(['C'] + args)})"
        result = None
        if callee.returns is None:
            self.emit(call + ";")
        else:
            result = self.temp(callee.returns, call)
        self.emit("C->depth--;")
        if "call-no-check" not in self.mutants:
            self.check()
        return result

    def e_Alloc(self, e: n.Alloc) -> str:
        raise Unsupported("alloc()")

    def e_WaveOp(self, e: n.WaveOp) -> str:
        raise Unsupported(e.op)
