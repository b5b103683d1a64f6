"""The validator and type checker: the language's static rules in one place.

`check(program)` returns the same program with every expression's `ty` filled in, or
raises `KernelError` naming the line and what is wrong. Both ways into the IR (source text
and JSON) go through it, so an oracle or target only ever sees checked programs.

Rules (docs/semantics.md has the prose):
- function names are unique and not builtins; calls form no cycle (no recursion);
- every variable has one type, fixed by its first assignment (or `x: T = v`); an integer
  widens implicitly to a wider one of the same signedness (assignments, arguments,
  stores, returns, operands), never the other way; integers of different signedness
  never mix implicitly (docs/semantics.md, "Integer types"); an integer literal takes
  the type of what it meets (the other operand, the variable, the element) where its
  value fits there, else i32, i64 or u64, the first that holds it;
- a variable is read only where it is assigned on every path before (Python's rule made
  static); a loop variable is not assigned in its own loop body; nothing first assigned
  inside a loop is definitely assigned after it;
- `for` bounds are any integer expressions; a `while True:` loop has a `break` of its own,
  a `return` or a `fail` in its body (termination is the step budget's business, on both
  sides, but a loop nothing can leave is a mistake worth naming);
- `break`/`continue` only inside a loop of the same function; a function with a return
  type returns a value on every path; kernels and void helpers `return` without one;
- a program that calls `alloc(size)` has no wave operations, barriers or workgroup arrays;
- workgroup arrays (`tile: Local[i32, 64]`) are declared at the top level of a kernel's
  body (a function nobody calls and that returns nothing), at most `LOCAL_BYTES` in all;
  they are read and written like buffers but are no values (never assigned or passed);
- helper calls nest at most `MAX_CALL_DEPTH` deep, and statements and expressions at most
  `MAX_NESTING` deep counting inlined helpers (every pass over the IR, the oracle's and
  the compiler's included, recurses along it: this keeps them far below Python's
  recursion limit).
The one rewrite it makes: `-(non-negative literal)` becomes a negative literal, as the
parser does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import KernelError
from . import nodes as n
from .. import f32
from .types import (BOOL, BUF_I32, DTYPES, ELEMENTS, F32, F64, I32, I64, U64, Type, int_range,
                    local_of, private_of, widest)
from .walk import CHILD_FIELDS, NODE_CLASSES

RESERVED = frozenset(
    {"len", "alloc", "bool", "fail", "atomic_add", "range", "barrier",
     *(f"atomic_{op}" for op in n.ATOMIC_OPS),
     "Buffer", "Local", "True", "False", "None"}
    | set(DTYPES) | set(n.WORK_IDS) | set(n.WAVE_OPS) | set(n.MATH_OPS)
)

MAX_CALL_DEPTH = 16
MAX_NESTING = 100
#: the most IR nodes a kernel may have with its helpers inlined at every call (each call
#: of a helper costs the helper's whole size): a target that inlines, as numba-simt's
#: compiler does, compiles that many; generated kernels stay under about 2,000
MAX_INLINED_SIZE = 50_000

# A block's "defined after" set, or None when control never falls out of the block.
_Defined = frozenset[str] | None


def check(program: n.Program) -> n.Program:
    seen: dict[str, n.Function] = {}
    for f in program.functions:
        if f.name in RESERVED:
            raise KernelError(f"'{f.name}' is a builtin and cannot be redefined", f.line)
        if f.name in seen:
            raise KernelError(f"function '{f.name}' is defined twice", f.line)
        seen[f.name] = f
    shapes = {f.name: _Shape(f) for f in program.functions}
    _check_no_recursion(program, seen, shapes)
    _check_depth(program, seen, shapes)
    _check_alloc_without_wave_ops(program, shapes)
    _check_workgroup_arrays(program, shapes)
    return n.Program(tuple(_FunctionChecker(f, seen).run() for f in program.functions))


class _Shape:
    """What the program-wide rules read off one function's body, in one walk (a walk
    per rule would cost more than the rules): its calls (in source order) with the depth
    of each, its `alloc()`s and wave operations, and its own nesting (statements and
    expressions, a body's top-level statements at depth 1), callees not counted."""

    def __init__(self, f: n.Function) -> None:
        self.calls: list[tuple[n.Call, int]] = []
        self.allocs: list[n.Alloc] = []
        self.waves: list[n.WaveOp] = []
        self.barriers: list[n.Barrier] = []
        self.locals: list[n.LocalArray] = []
        self.depth = 0
        self.size = 0  # nodes, callees not counted
        self._visit(f.body, 1)

    def _visit(self, node: object, depth: int) -> None:
        if node.__class__ is tuple:
            for child in node:  # type: ignore[attr-defined]
                self._visit(child, depth)
            return
        if node.__class__ not in NODE_CLASSES:
            return
        self.size += 1
        if depth > self.depth:
            self.depth = depth
        if isinstance(node, n.Call):
            self.calls.append((node, depth))
        elif isinstance(node, n.Alloc):
            self.allocs.append(node)
        elif isinstance(node, n.WaveOp):
            self.waves.append(node)
        elif isinstance(node, n.Barrier):
            self.barriers.append(node)
        elif isinstance(node, n.LocalArray):
            self.locals.append(node)
        for name in CHILD_FIELDS[node.__class__]:
            child = getattr(node, name)
            if child.__class__ is tuple or child.__class__ in NODE_CLASSES:
                self._visit(child, depth + 1)


def _check_depth(program: n.Program, funcs: dict[str, n.Function],
                 shapes: dict[str, _Shape]) -> None:
    """Helper call chains and nesting (inlined helpers counted) within their limits."""
    chain: dict[str, tuple[str, ...]] = {}  # longest call chain starting at a function
    nesting: dict[str, int] = {}  # nesting of a function's body with its callees inlined
    inlined: dict[str, int] = {}  # nodes of a function's body with its callees inlined

    def visit(name: str) -> None:
        if name in nesting:
            return
        f = funcs[name]
        longest: tuple[str, ...] = ()
        deepest = shapes[name].depth
        size = shapes[name].size
        for call, depth in shapes[name].calls:
            if call.func in funcs:
                visit(call.func)
                if len(chain[call.func]) > len(longest):
                    longest = chain[call.func]
                # the call's own level, then its callee's body inlined under it
                deepest = max(deepest, depth + nesting[call.func])
                size += inlined[call.func]
        chain[name] = (name,) + longest
        if len(chain[name]) - 1 > MAX_CALL_DEPTH:
            raise KernelError(
                f"helper calls nest {len(chain[name]) - 1} deep "
                f"({' -> '.join(chain[name][:4])} -> ...); the limit is {MAX_CALL_DEPTH}",
                f.line)
        nesting[name] = deepest
        inlined[name] = size
        if size > MAX_INLINED_SIZE:
            raise KernelError(
                f"'{name}' is {size} nodes with its helpers inlined at every call; the "
                f"limit is {MAX_INLINED_SIZE} (docs/semantics.md: a helper called twice "
                "in each of several levels doubles per level)", f.line)
        if nesting[name] > MAX_NESTING:
            raise KernelError(
                f"'{name}' nests statements and expressions {nesting[name]} deep, inlined "
                f"helpers counted; the limit is {MAX_NESTING}", f.line)

    for f in program.functions:
        visit(f.name)


def _check_alloc_without_wave_ops(program: n.Program, shapes: dict[str, _Shape]) -> None:
    """A program that allocates has no wave operations, barriers or workgroup arrays
    (docs/semantics.md: an allocating workitem finishes its run outside its wave, and
    outside its group)."""
    allocs = [a for f in program.functions for a in shapes[f.name].allocs]
    if not allocs:
        return
    for what, nodes in (("wave operations", [w for f in program.functions
                                             for w in shapes[f.name].waves]),
                        ("barriers", [b for f in program.functions
                                      for b in shapes[f.name].barriers]),
                        ("workgroup arrays", [x for f in program.functions
                                              for x in shapes[f.name].locals])):
        if nodes:
            raise KernelError(
                f"alloc() (line {allocs[0].line}) and {what} (line {nodes[0].line}) in one "
                f"program: a program that allocates has no {what}", nodes[0].line)


def _check_workgroup_arrays(program: n.Program, shapes: dict[str, _Shape]) -> None:
    """Workgroup arrays belong to a kernel: declared at its body's top level, in a
    function no one calls, within `LOCAL_BYTES` in all (what every GPU API promises a
    workgroup at least: Vulkan's maxComputeSharedMemorySize is 16 KiB or more)."""
    called = {call.func for f in program.functions for call, _ in shapes[f.name].calls}
    for f in program.functions:
        arrays = shapes[f.name].locals
        if not arrays:
            continue
        top = {id(s) for s in f.body if isinstance(s, n.LocalArray)}
        for a in arrays:
            if id(a) not in top:
                raise KernelError(f"workgroup array '{a.name}' is declared inside a block: "
                                  "declare it at the top level of the kernel's body", a.line)
        if f.name in called or f.returns is not None:
            raise KernelError(f"'{f.name}' declares workgroup arrays, so it is a kernel: "
                              "nothing may call it and it returns nothing", arrays[0].line)
        size = sum(a.length * a.element.bits // 8 for a in arrays)
        if size > n.LOCAL_BYTES:
            raise KernelError(f"'{f.name}' declares {size} bytes of workgroup arrays; the "
                              f"limit is {n.LOCAL_BYTES}", arrays[0].line)


def _check_no_recursion(program: n.Program, funcs: dict[str, n.Function],
                        shapes: dict[str, _Shape]) -> None:
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(name: str) -> None:
        state[name] = 1
        for call, _ in shapes[name].calls:
            if call.func not in funcs:
                continue  # reported with its line by the function checker
            if state.get(call.func) == 1:
                raise KernelError(
                    f"recursive call of '{call.func}' (helpers are inlined: no recursion)",
                    call.line,
                )
            if call.func not in state:
                visit(call.func)
        state[name] = 2

    for f in program.functions:
        if f.name not in state:
            visit(f.name)


def _has_break(stmts: tuple[n.Stmt, ...]) -> bool:
    """A `break` of this loop (not of a loop nested in it)."""
    for s in stmts:
        if isinstance(s, n.Break):
            return True
        if isinstance(s, n.If) and (_has_break(s.then) or _has_break(s.orelse)):
            return True
    return False


def _leaves(stmts: tuple[n.Stmt, ...], own_break: bool) -> bool:
    """Whether something in `stmts` leaves the enclosing `while True:` loop: its own
    `break`, or a `return` or `fail` at any depth."""
    for s in stmts:
        if isinstance(s, (n.Return, n.Fail)) or (own_break and isinstance(s, n.Break)):
            return True
        if isinstance(s, n.If) and (_leaves(s.then, own_break) or _leaves(s.orelse, own_break)):
            return True
        if isinstance(s, (n.For, n.While)) and _leaves(s.body, False):
            return True
    return False


def _a(ty: object) -> str:
    """The type with its article, as it is read: "an i32", "an f64", "a u8", "a bool"."""
    name = str(ty)
    return f"{'an' if name[0] in 'ifA' else 'a'} {name}"


def _fits(value: int, ty: Type) -> bool:
    lo, hi = int_range(ty)
    return lo <= value <= hi


def assignable(value: Type, target: Type) -> bool:
    """Whether a value of type `value` may be stored where `target` is expected: the same
    type, or an integer widening within its signedness (i32 to i64, u8 to u32)."""
    return value == target or (value.is_int and target.is_int and value.signed == target.signed
                               and value.bits <= target.bits)


def _literal(e: n.Expr) -> bool:
    """An integer literal (its type is where it is)."""
    return isinstance(e, n.Const) and type(e.value) is int


def adapted(e: n.Expr, ty: Type | None) -> n.Expr:
    """An integer literal as a value of integer type `ty` where its value fits there;
    anything else unchanged. A literal whose own type (i32, i64) already meets an i32 or
    i64 place keeps it, as it always has (`x + 1` with an i64 `x` widens an i32 literal):
    only narrow and unsigned places make a literal take their type."""
    if ty is None or not ty.is_int or not _literal(e) or e.ty is ty:
        return e
    assert isinstance(e, n.Const) and isinstance(e.value, int) and e.ty is not None
    if ty in (I32, I64) and assignable(e.ty, ty):
        return e
    return n.replace(e, ty=ty) if _fits(e.value, ty) else e


def _narrowing_hint(value: Type, target: Type) -> str:
    """How to write a conversion the language does not make implicitly."""
    if value.is_int and target.is_int:
        how = "narrow" if value.signed == target.signed else "convert"
        return f"; {how} it with {target}(...)"
    if target.is_float and (value.is_int or value.is_float):
        return f"; convert it with {target}(...)"
    if value.is_float and target.is_int:
        return f"; convert it with {target}(...)"
    return ""


class _FunctionChecker:
    def __init__(self, fn: n.Function, funcs: dict[str, n.Function]) -> None:
        self.fn = fn
        self.funcs = funcs
        self.vars: dict[str, Type] = {}
        self.lengths: dict[str, int] = {}  # each private array's length
        self.params = {p.name for p in fn.params}
        self.loop_vars: list[str] = []

    def error(self, message: str, line: int) -> KernelError:
        return KernelError(message, line or self.fn.line)

    def run(self) -> n.Function:
        fn = self.fn
        for p in fn.params:
            if p.name in RESERVED or p.name in self.funcs:
                raise self.error(f"parameter name '{p.name}' is reserved", p.line)
            if p.name in self.vars:
                raise self.error(f"parameter '{p.name}' appears twice", p.line)
            self.vars[p.name] = p.ty
        if fn.returns is not None and not (fn.returns.is_number or fn.returns is BOOL):
            raise self.error(f"function '{fn.name}' may not return {fn.returns}", fn.line)
        body, after = self.block(fn.body, frozenset(self.params))
        if after is not None and fn.returns is not None:
            raise self.error(
                f"function '{fn.name}' must return {_a(fn.returns)} value on every path", fn.line
            )
        return n.replace(fn, body=body)

    # ------------------------------------------------------------ statements

    def block(self, stmts: tuple[n.Stmt, ...], defined: frozenset[str]
              ) -> tuple[tuple[n.Stmt, ...], _Defined]:
        out = []
        cur: _Defined = defined
        seen = defined  # what was assigned before, for statements after a return/break
        for s in stmts:
            # Unreachable statements must still be well-typed: check them with what was
            # assigned before the return or break (they never run).
            checked, nxt = self.stmt(s, cur if cur is not None else seen)
            out.append(checked)
            if cur is not None:
                seen = cur
                cur = nxt
            elif nxt is not None:
                seen = nxt  # unreachable code still assigns for the code after it
        return tuple(out), cur

    def stmt(self, s: n.Stmt, defined: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        m: Callable[[n.Stmt, frozenset[str]], tuple[n.Stmt, _Defined]] = getattr(
            self, "s_" + type(s).__name__
        )
        return m(s, defined)

    def _taken(self, name: str) -> str:
        """Why `name` cannot be a variable: the builtin or the function it names."""
        if name in self.funcs:
            return f"it names the function '{name}'"
        return "it is a builtin"

    def s_Assign(self, s: n.Assign, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        name = s.target
        if name in RESERVED or name in self.funcs:
            raise self.error(f"cannot assign to '{name}': {self._taken(name)}", s.line)
        if name in self.loop_vars:
            raise self.error(f"cannot assign to loop variable '{name}' inside its loop", s.line)
        value = self._atomic(s.value, d) if isinstance(s.value, n.AtomicOp) else \
            self.expr(s.value, d)
        assert value.ty is not None
        declared = s.declared
        known = self.vars.get(name)
        if known is not None and (known.is_local or known.is_private):
            raise self.error(f"cannot assign to '{name}': it is {_array_kind(known)} (store "
                             f"into it: {name}[i] = v)", s.line)
        if declared is not None:
            if known is not None and known != declared:
                raise self.error(
                    f"variable '{name}' is {known}, cannot redeclare it as {declared}", s.line
                )
            known = declared
        if known is None:
            known = value.ty
        if isinstance(value, n.AtomicOp) and known != value.ty:
            raise self.error(f"atomic_{value.op}() gives {_a(value.ty)} (the element of "
                             f"'{value.buffer}'), but '{name}' is {known}", s.line)
        value = adapted(value, known)
        assert value.ty is not None
        if not assignable(value.ty, known):
            raise self.error(
                f"cannot assign {_a(value.ty)} value to '{name}', which is {known}"
                + self._fits_hint(value, known) + _narrowing_hint(value.ty, known), s.line)
        self.vars[name] = known
        return n.replace(s, value=value), d | {name}

    def _buffer(self, name: str, d: frozenset[str], line: int) -> Type:
        """A buffer's or an array's type (all are read and written alike)."""
        ty = self.name_type(name, d, line)
        if not (ty.is_buffer or ty.is_local or ty.is_private):
            raise self.error(f"'{name}' is {ty}, not a buffer", line)
        return ty

    def _memory(self, s: n.Store | n.AtomicAdd, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        what = "store" if isinstance(s, n.Store) else "atomic_add"
        # Evaluation order is part of the semantics, but typing order is not.
        value = self.expr(s.value, d)
        index = self.int_expr(s.index, d, f"{what} index")
        buf = self._buffer(s.buffer, d, s.line)
        assert value.ty is not None
        if what == "atomic_add" and buf.is_private:
            raise self.error(f"atomic_add() on '{s.buffer}', a private array: no other "
                             f"workitem sees it; add with {s.buffer}[i] = {s.buffer}[i] + v",
                             s.line)
        if what == "atomic_add" and buf.element.is_float:
            raise self.error(f"atomic_add() on '{s.buffer}' ({buf}): a float sum's rounding "
                             "depends on the order the workitems add in", s.line)
        value = adapted(value, buf.element)
        assert value.ty is not None
        if not assignable(value.ty, buf.element):
            raise self.error(f"cannot {what} {_a(value.ty)} value into '{s.buffer}' ({buf})"
                             + self._fits_hint(value, buf.element)
                             + _narrowing_hint(value.ty, buf.element), s.line)
        return n.replace(s, index=index, value=value), d

    s_Store = _memory
    s_AtomicAdd = _memory

    def s_If(self, s: n.If, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        cond = self._case(s.cond, d) if s.switch else \
            self.bool_expr(s.cond, d, "if condition")
        then, dt = self.block(s.then, d)
        orelse, de = self.block(s.orelse, d)
        if dt is None:
            after = de
        elif de is None:
            after = dt
        else:
            after = dt & de
        return n.replace(s, cond=cond, then=then, orelse=orelse), after

    def _case(self, e: n.Expr, d: frozenset[str]) -> n.Expr:
        """A `match` case's condition, `x == v or ...`: a value outside x's type's range
        never matches (docs/semantics.md), compared in the 64-bit type of x's signedness
        (exactly: false), not refused as the `==` of two signednesses the kernel never
        wrote; a negative value of an unsigned x, or one past i64 of a signed x, is
        refused (C's switch would convert it to x's type and match)."""
        if isinstance(e, n.Logic) and e.op == "or":
            return n.replace(e, left=self._case(e.left, d), right=self._case(e.right, d),
                             ty=BOOL)
        if isinstance(e, n.Compare) and e.op == "==" and isinstance(e.left, n.Name) \
                and _literal(e.right):
            assert isinstance(e.right, n.Const) and isinstance(e.right.value, int)
            var, value = self.expr(e.left, d), e.right.value
            ty = var.ty
            assert ty is not None
            if not ty.is_int:
                raise self.error(f"match takes an integer variable; '{e.left.id}' is "
                                 f"{ty}", e.left.line)
            if not _fits(value, ty):
                wide = I64 if ty.signed else U64
                if _fits(value, wide):
                    return n.replace(e, left=var, right=n.replace(e.right, ty=wide),
                                     ty=BOOL)
                if (value < 0) != ty.signed:  # (else no 64-bit type holds it: the
                    # literal's own error says so)
                    why = "is past every i64" if ty.signed else "is negative"
                    a = "an" if str(ty)[0] == "i" else "a"
                    raise self.error(
                        f"case {value} of the {ty} '{e.left.id}': the value {why}, so "
                        f"C's switch would convert it to {a} {ty} and match; write the "
                        f"{ty} value you mean, or leave the case out", e.right.line)
        return self.bool_expr(e, d, "case")

    def s_For(self, s: n.For, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        start = self.int_expr(s.start, d, "loop bound")
        stop = self.int_expr(s.stop, d, "loop bound")
        assert start.ty is not None and stop.ty is not None
        var = s.var
        if var in RESERVED or var in self.funcs:
            raise self.error(f"'{var}' cannot be a loop variable: {self._taken(var)}", s.line)
        if var in self.loop_vars:
            raise self.error(f"loop variable '{var}' is already used by an enclosing loop", s.line)
        start, stop = self._met(start, stop)
        ty = self._common(start, stop, "'range'", s.line)
        known = self.vars.get(var)
        if known is not None and known != ty:
            raise self.error(f"loop variable '{var}' is {ty} but was {known} before", s.line)
        self.vars[var] = ty
        self.loop_vars.append(var)
        body, _ = self.block(s.body, d | {var})
        self.loop_vars.pop()
        # The body may run zero times: nothing it assigns is definitely assigned after.
        return n.replace(s, start=start, stop=stop, body=body), d

    def s_While(self, s: n.While, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        if not _leaves(s.body, own_break=True):
            raise self.error("a `while True:` loop needs a `break`, `return` or `fail` in "
                             "its body", s.line)
        self.loop_vars.append("")  # not a variable: only makes break/continue legal
        body, _ = self.block(s.body, d)
        self.loop_vars.pop()
        # Left only by its own breaks: after it, what was assigned before it (as for a
        # `for`); without a break, control never falls out of it.
        return n.replace(s, body=body), (d if _has_break(s.body) else None)

    def s_Break(self, s: n.Break, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        if not self.loop_vars:
            raise self.error("'break' outside a loop", s.line)
        return s, None

    def s_Continue(self, s: n.Continue, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        if not self.loop_vars:
            raise self.error("'continue' outside a loop", s.line)
        return s, None

    def s_Return(self, s: n.Return, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        want = self.fn.returns
        if s.value is None:
            if want is not None:
                raise self.error(f"'{self.fn.name}' must return {_a(want)} value", s.line)
            return s, None
        if want is None:
            raise self.error(
                f"'{self.fn.name}' has no return type, so it cannot return a value", s.line
            )
        value = adapted(self.expr(s.value, d), want)
        assert value.ty is not None
        if not assignable(value.ty, want):
            raise self.error(
                f"'{self.fn.name}' returns {want}, not {value.ty}"
                + _narrowing_hint(value.ty, want), s.line
            )
        return n.replace(s, value=value), None

    def s_Fail(self, s: n.Fail, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        return n.replace(s, code=self.int_expr(s.code, d, "fail code")), None

    def s_LocalArray(self, s: n.LocalArray, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        if s.name in RESERVED or s.name in self.funcs:
            raise self.error(f"'{s.name}' cannot be a workgroup array: {self._taken(s.name)}",
                             s.line)
        if s.element not in ELEMENTS:
            raise self.error(f"a workgroup array holds numbers, not {s.element}", s.line)
        if s.name in self.vars:
            raise self.error(f"'{s.name}' is already {_a(self.vars[s.name])}: a workgroup "
                             "array needs a name of its own", s.line)
        self.vars[s.name] = local_of(s.element)
        return s, d | {s.name}

    def s_PrivateArray(self, s: n.PrivateArray, d: frozenset[str]
                       ) -> tuple[n.Stmt, _Defined]:
        """A private array may be declared again (in a loop, in both arms of an `if`):
        each declaration that runs makes it all zeros again; the name keeps one type and
        one length in its function."""
        if s.name in RESERVED or s.name in self.funcs:
            raise self.error(f"'{s.name}' cannot be a private array: {self._taken(s.name)}",
                             s.line)
        if s.element not in ELEMENTS:
            raise self.error(f"a private array holds numbers, not {s.element}", s.line)
        if not 1 <= s.length <= n.PRIVATE_MAX:
            raise self.error(f"a private array's length is a constant in "
                             f"1..{n.PRIVATE_MAX}, got {s.length}", s.line)
        if s.name in self.loop_vars:
            raise self.error(f"'{s.name}' is a loop variable inside its loop", s.line)
        ty = private_of(s.element)
        known = self.vars.get(s.name)
        if known is not None and (known is not ty or self.lengths[s.name] != s.length):
            now = (f"{known}" + (f" of {self.lengths[s.name]}" if known.is_private else "")
                   if known is not None else "")
            raise self.error(f"'{s.name}' is already {now}: a private array of another "
                             "type or length needs a name of its own", s.line)
        self.vars[s.name] = ty
        self.lengths[s.name] = s.length
        return s, d | {s.name}

    def s_Barrier(self, s: n.Barrier, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        return s, d

    def s_CallStmt(self, s: n.CallStmt, d: frozenset[str]) -> tuple[n.Stmt, _Defined]:
        call = self.call(s.call, d, want_value=False)
        assert isinstance(call, n.Call)
        return n.replace(s, call=call), d

    # ----------------------------------------------------------- expressions

    def name_type(self, name: str, d: frozenset[str], line: int) -> Type:
        if name not in self.vars and name not in d:
            if name in self.funcs:
                raise self.error(f"'{name}' is a function, not a value", line)
            raise self.error(f"unknown name '{name}'", line)
        if name not in d:
            raise self.error(f"variable '{name}' may be used before it is assigned", line)
        return self.vars[name]

    def int_expr(self, e: n.Expr, d: frozenset[str], what: str) -> n.Expr:
        out = self.expr(e, d)
        assert out.ty is not None
        if not out.ty.is_int:
            raise self.error(f"{what} must be an integer, got {out.ty}", e.line)
        return out

    def float_expr(self, e: n.Expr, d: frozenset[str], what: str, want: Type = F32) \
            -> n.Expr:
        out = self.expr(e, d)
        if out.ty is not want:
            raise self.error(f"{what} must be {want}, got {out.ty}"
                             + (f"; convert it with {want}(...)" if out.ty is not None
                                and out.ty.is_number else ""), e.line)
        return out

    def bool_expr(self, e: n.Expr, d: frozenset[str], what: str) -> n.Expr:
        out = self.expr(e, d)
        if out.ty is not BOOL:
            raise self.error(f"{what} must be bool, got {out.ty}", e.line)
        return out

    def expr(self, e: n.Expr, d: frozenset[str]) -> n.Expr:
        if not isinstance(e, n.EXPR_NODES):
            raise self.error(f"not an expression: {type(e).__name__}", getattr(e, "line", 0))
        m: Callable[[n.Expr, frozenset[str]], n.Expr] = getattr(self, "e_" + type(e).__name__)
        return m(e, d)

    def e_Const(self, e: n.Const, d: frozenset[str]) -> n.Expr:
        if isinstance(e.value, bool):
            return n.replace(e, ty=BOOL)
        if isinstance(e.value, float):
            if e.ty is F64:  # `f64(0.1)`: the parser typed it (binary64 holds any float)
                if not math.isfinite(e.value):
                    raise self.error(f"constant {e.value!r} is no finite f64", e.line)
                return e
            if not (f32.is_f32(e.value) and abs(e.value) != float("inf")) \
                    or e.value != e.value:
                raise self.error(f"constant {e.value!r} is no finite f32", e.line)
            return n.replace(e, ty=F32)
        if not isinstance(e.value, int):
            raise self.error(f"constant {e.value!r} is not an integer or bool", e.line)
        if e.ty is not None and e.ty.is_int and _fits(e.value, e.ty):
            return e  # a literal whose type its place gave it (checked again: the same)
        for ty in (I32, I64, U64):
            if _fits(e.value, ty):
                return n.replace(e, ty=ty)
        raise self.error(f"integer constant {e.value} does not fit in i64 or u64", e.line)

    def e_Name(self, e: n.Name, d: frozenset[str]) -> n.Expr:
        ty = self.name_type(e.id, d, e.line)
        if ty.is_local or ty.is_private:
            raise self.error(f"'{e.id}' is {_array_kind(ty)}, not a value: index it "
                             f"({e.id}[i]) or take len({e.id})", e.line)
        return n.replace(e, ty=ty)

    def e_WorkId(self, e: n.WorkId, d: frozenset[str]) -> n.Expr:
        if e.which not in n.WORK_IDS:
            raise self.error(f"unknown work id '{e.which}'", e.line)
        return n.replace(e, ty=I32)

    def e_Unary(self, e: n.Unary, d: frozenset[str]) -> n.Expr:
        if e.op == "not":
            operand = self.bool_expr(e.operand, d, "operand of 'not'")
            return n.replace(e, operand=operand, ty=BOOL)
        if e.op not in ("-", "~"):
            raise self.error(f"unknown unary operator '{e.op}'", e.line)
        if (e.op == "-" and isinstance(e.operand, n.Const)
                and not isinstance(e.operand.value, bool)
                and math.copysign(1, e.operand.value) > 0):
            # Canonical form, exactly the parser's: `-<literal>` is a negative literal (so
            # every checked program prints and re-parses to itself). `-(-5)` stays a
            # negation: folding it could change its width. (-0.0 counts as negative.)
            return self.e_Const(n.Const(-e.operand.value, line=e.line,
                                        ty=F64 if e.operand.ty is F64 else None), d)
        operand = self.expr(e.operand, d)
        if not (operand.ty is not None and operand.ty.is_int
                or (e.op == "-" and operand.ty is not None and operand.ty.is_float)):
            raise self.error(f"operand of unary '{e.op}' must be an integer"
                             + (" or a float" if e.op == "-" else "") + f", got {operand.ty}",
                             e.line)
        return n.replace(e, operand=operand, ty=operand.ty)

    def e_Binary(self, e: n.Binary, d: frozenset[str]) -> n.Expr:
        if e.op not in n.ARITH_OPS:
            raise self.error(f"unknown operator '{e.op}'", e.line)
        left = self.expr(e.left, d)
        right = self.expr(e.right, d)
        assert left.ty is not None and right.ty is not None
        if left.ty.is_float or right.ty.is_float:
            if e.op not in ("+", "-", "*"):  # (said first: no conversion would help)
                fl = left.ty if left.ty.is_float else right.ty
                raise self.error(f"'{e.op}' does not take {fl} operands (floats have "
                                 "+ - * and fma, min, max, abs)", e.line)
            self._float_operands(e.op, left.ty, right.ty, e.line)
            return n.replace(e, left=left, right=right, ty=left.ty)
        for side, what in ((left, "left"), (right, "right")):
            if not side.ty.is_int:  # type: ignore[union-attr]
                raise self.error(f"{what} operand of '{e.op}' must be an integer, got "
                                 f"{side.ty}", side.line)
        left, right = self._met(left, right)
        ty = self._common(left, right, f"'{e.op}'", e.line)
        return n.replace(e, left=left, right=right, ty=ty)

    @staticmethod
    def _met(a: n.Expr, b: n.Expr) -> tuple[n.Expr, n.Expr]:
        """Two integer operands where they meet: a literal takes the other's type where
        its value fits there (`x + 1` with x a u8 is u8 arithmetic)."""
        if _literal(a) and not _literal(b):
            return adapted(a, b.ty), b
        if _literal(b) and not _literal(a):
            return a, adapted(b, a.ty)
        if _literal(a) and _literal(b):  # a literal past i64 is a u64 value (i32, i64, u64)
            if b.ty is U64:
                return adapted(a, U64), b
            if a.ty is U64:
                return a, adapted(b, U64)
        return a, b

    def _common(self, x: n.Expr, y: n.Expr, what: str, line: int) -> Type:
        """The type two integers of one signedness meet in: the wider. A literal that did
        not take the other's type is named: its value does not fit there."""
        a, b = x.ty, y.ty
        assert a is not None and b is not None
        if a.signed != b.signed:
            hint = self._fits_hint(x, b) if _literal(x) and not _literal(y) else \
                self._fits_hint(y, a) if _literal(y) and not _literal(x) else ""
            raise self.error(f"{what} mixes {a} and {b}{hint}: integers of different "
                             f"signedness meet only through a conversion you write, "
                             f"{a}(...) or {b}(...)", line)
        return widest(a, b)

    def _fits_hint(self, value: n.Expr, target: Type) -> str:
        if _literal(value) and target.is_int:
            assert isinstance(value, n.Const)
            lo, hi = int_range(target)
            return f" ({value.value} is outside {target}'s {lo}..{hi})"
        return ""

    def _float_operands(self, op: str, left: Type, right: Type, line: int) -> None:
        """A float meets only its own type: a conversion is always written, never
        implied."""
        if left is not right:
            fl, other = (left, right) if left.is_float else (right, left)
            raise self.error(f"'{op}' mixes {fl} and {other}: convert with {fl}(...) or "
                             f"{other}(...)", line)

    def e_Compare(self, e: n.Compare, d: frozenset[str]) -> n.Expr:
        if e.op not in n.COMPARE_OPS:
            raise self.error(f"unknown comparison '{e.op}'", e.line)
        left = self.expr(e.left, d)
        right = self.expr(e.right, d)
        assert left.ty is not None and right.ty is not None
        both_int = left.ty.is_int and right.ty.is_int
        both_bool = left.ty is BOOL and right.ty is BOOL
        if left.ty.is_float or right.ty.is_float:
            self._float_operands(e.op, left.ty, right.ty, e.line)
        elif both_int:
            left, right = self._met(left, right)
            self._common(left, right, f"'{e.op}'", e.line)
        elif not (both_bool and e.op in ("==", "!=")):
            raise self.error(f"cannot compare {left.ty} {e.op} {right.ty}", e.line)
        return n.replace(e, left=left, right=right, ty=BOOL)

    def e_Logic(self, e: n.Logic, d: frozenset[str]) -> n.Expr:
        if e.op not in n.LOGIC_OPS:
            raise self.error(f"unknown logic operator '{e.op}'", e.line)
        left = self.bool_expr(e.left, d, f"left operand of '{e.op}'")
        right = self.bool_expr(e.right, d, f"right operand of '{e.op}'")
        return n.replace(e, left=left, right=right, ty=BOOL)

    def e_Select(self, e: n.Select, d: frozenset[str]) -> n.Expr:
        cond = self.bool_expr(e.cond, d, "condition of an if-expression")
        then = self.expr(e.then, d)
        orelse = self.expr(e.orelse, d)
        assert then.ty is not None and orelse.ty is not None
        ty: Type
        if then.ty.is_int and orelse.ty.is_int:
            then, orelse = self._met(then, orelse)
            ty = self._common(then, orelse, "an if-expression", e.line)
        elif then.ty == orelse.ty and orelse.ty is not None:
            ty = orelse.ty
        else:
            raise self.error(
                f"the two sides of an if-expression differ: {then.ty} and {orelse.ty}", e.line
            )
        return n.replace(e, cond=cond, then=then, orelse=orelse, ty=ty)

    def e_Load(self, e: n.Load, d: frozenset[str]) -> n.Expr:
        buf = self._buffer(e.buffer, d, e.line)
        index = self.int_expr(e.index, d, "an index")  # a buffer's, a workgroup or private array's
        return n.replace(e, index=index, ty=buf.element)

    def _atomic(self, e: n.AtomicOp, d: frozenset[str]) -> n.Expr:
        """An atomic that returns, as an assignment's value (docs/semantics.md, "Atomics
        that return"): the arguments typed like a store's, the result the element."""
        what = f"atomic_{e.op}()"
        buf = self._buffer(e.buffer, d, e.line)
        if buf.is_private:
            raise self.error(f"{what} on '{e.buffer}', a private array: no other workitem "
                             "sees it", e.line)
        if not buf.element.is_int:
            raise self.error(f"{what} on '{e.buffer}' ({buf}): atomics that return take "
                             "integer buffers", e.line)
        args = [self.int_expr(e.args[0], d, f"{what} index")]
        for a in e.args[1:]:
            v = adapted(self.expr(a, d), buf.element)
            assert v.ty is not None
            if not assignable(v.ty, buf.element):
                raise self.error(f"{what} of {_a(v.ty)} value on '{e.buffer}' ({buf})"
                                 + self._fits_hint(v, buf.element)
                                 + _narrowing_hint(v.ty, buf.element), e.line)
            args.append(v)
        return n.replace(e, args=tuple(args), ty=buf.element)

    def e_AtomicOp(self, e: n.AtomicOp, d: frozenset[str]) -> n.Expr:
        raise self.error(f"atomic_{e.op}() is only an assignment's whole value: write "
                         f"`old = atomic_{e.op}(...)` and use `old`", e.line)

    def e_Len(self, e: n.Len, d: frozenset[str]) -> n.Expr:
        self._buffer(e.buffer, d, e.line)
        return n.replace(e, ty=I32)

    def e_Alloc(self, e: n.Alloc, d: frozenset[str]) -> n.Expr:
        size = self.int_expr(e.size, d, "size of alloc()")
        return n.replace(e, size=size, ty=BUF_I32)

    def e_Cast(self, e: n.Cast, d: frozenset[str]) -> n.Expr:
        if e.to not in ELEMENTS:
            raise self.error(f"cannot cast to {e.to}", e.line)
        if e.to is F64 and isinstance(e.operand, n.Const) and type(e.operand.value) is float:
            # `f64(0.1)` is an f64 literal (the JSON form of one): the binary64 nearest
            # the decimal; for a value binary32 holds, the f32 literal widened, the same
            return self.e_Const(n.Const(e.operand.value, line=e.line, ty=F64), d)
        operand = self.expr(e.operand, d)
        assert operand.ty is not None
        if not (operand.ty.is_number or operand.ty is BOOL):
            raise self.error(f"cannot convert {operand.ty} to {e.to}", e.line)
        return n.replace(e, operand=operand, ty=e.to)

    def e_MathOp(self, e: n.MathOp, d: frozenset[str]) -> n.Expr:
        arity = n.MATH_OPS.get(e.op)
        if arity is None:
            raise self.error(f"unknown function '{e.op}'", e.line)
        if len(e.args) != arity:
            raise self.error(f"{e.op}() takes {arity} argument(s), got {len(e.args)}", e.line)
        if e.op == "fma":
            first_arg = self.expr(e.args[0], d)
            want = F64 if first_arg.ty is F64 else F32
            args = tuple(self.float_expr(a, d, f"argument of {e.op}()", want)
                         for a in e.args)
            return n.replace(e, args=args, ty=want)
        args = tuple(self.expr(a, d) for a in e.args)
        first = args[0].ty
        assert first is not None
        if e.op in n.BALLOT_FUNCTIONS:
            ballot = adapted(args[0], I64)
            if ballot.ty is None or not assignable(ballot.ty, I64):
                raise self.error(f"argument of {e.op}() must be a ballot (i64), got "
                                 f"{ballot.ty}" + _narrowing_hint(first, I64), e.line)
            return n.replace(e, args=(ballot,), ty=BOOL if e.op == "inverse_ballot" else I32)
        if e.op in ("min", "max", "abs") and first.is_float:
            args = (args[0],) + tuple(self.float_expr(a, d, f"argument of {e.op}()", first)
                                      for a in e.args[1:])
            return n.replace(e, args=args, ty=first)
        for a in args:
            assert a.ty is not None
            if not a.ty.is_int:
                if e.op in ("min", "max") and a.ty.is_float:  # an integer first
                    raise self.error(f"{e.op}() of {first} and {a.ty}: an integer and a "
                                     f"float do not mix; convert one (`{a.ty}(x)` or "
                                     f"`{first}(y)`)", a.line)
                float_ok = " or a float" if e.op in ("min", "max", "abs") else ""
                raise self.error(f"argument of {e.op}() must be an integer{float_ok}, got "
                                 f"{a.ty}", a.line)
        if e.op in n.ROTATE_OPS:  # the amount's type is its own (it is masked)
            return n.replace(e, args=args, ty=first)
        if len(args) == 2:  # min, max, mul_hi: the two meet as a binary operator's do
            a, b = self._met(*args)
            ty = self._common(a, b, f"{e.op}()", e.line)
            return n.replace(e, args=(a, b), ty=ty)
        return n.replace(e, args=args, ty=first)

    def e_Call(self, e: n.Call, d: frozenset[str]) -> n.Expr:
        return self.call(e, d, want_value=True)

    def call(self, e: n.Call, d: frozenset[str], want_value: bool) -> n.Expr:
        callee = self.funcs.get(e.func)
        if callee is None:
            if e.func in self.vars:
                raise self.error(f"'{e.func}' is a variable, not a function", e.line)
            raise self.error(f"unknown function '{e.func}'", e.line)
        if callee.name == self.fn.name:
            raise self.error(f"recursive call of '{e.func}'", e.line)
        if len(e.args) != len(callee.params):
            raise self.error(
                f"'{e.func}' takes {len(callee.params)} arguments, got {len(e.args)}", e.line
            )
        args = []
        for a, p in zip(e.args, callee.params):
            checked = adapted(self.expr(a, d), p.ty)
            assert checked.ty is not None
            if not assignable(checked.ty, p.ty):
                raise self.error(
                    f"argument '{p.name}' of '{e.func}' must be {p.ty}, got {checked.ty}"
                    + _narrowing_hint(checked.ty, p.ty), a.line
                )
            args.append(checked)
        if want_value and callee.returns is None:
            raise self.error(f"'{e.func}' returns no value", e.line)
        return n.replace(e, args=tuple(args), ty=callee.returns)

    def _constant(self, e: n.Expr, allowed: range, what: str, line: int) -> int:
        """The value of an integer literal in `allowed` (a cluster size, a quad lane: the
        languages want a constant there)."""
        if not (isinstance(e, n.Const) and type(e.value) is int
                and e.ty in (None, I32) and e.value in allowed):
            raise self.error(f"{what} must be an integer literal {allowed.start} to "
                             f"{allowed.stop - 1}", line)
        return e.value

    def e_WaveOp(self, e: n.WaveOp, d: frozenset[str]) -> n.Expr:
        arity = n.WAVE_OPS.get(e.op)
        if arity is None:
            raise self.error(f"unknown wave operation '{e.op}'", e.line)
        clustered = e.op in n.CLUSTERED_OPS and len(e.args) == arity + 1
        if len(e.args) != arity and not clustered:
            raise self.error(f"{e.op}() takes {arity} argument(s), got {len(e.args)}", e.line)
        if clustered:  # `cluster=C`, its second argument
            cluster = self._constant(e.args[1], range(1, 65), f"cluster of {e.op}()", e.line)
            if cluster & (cluster - 1):
                raise self.error(f"cluster of {e.op}() must be a power of two (1 to 64), "
                                 f"got {cluster}", e.line)
            inner = self.e_WaveOp(n.replace(e, args=e.args[:1]), d)
            assert isinstance(inner, n.WaveOp)
            if inner.ty is None or not inner.ty.is_int:
                raise self.error(f"{e.op}() over clusters takes an integer, got {inner.ty}",
                                 e.line)
            return n.replace(inner, args=inner.args + (n.Const(cluster, line=e.line, ty=I32),))
        args: tuple[n.Expr, ...]
        ty: Type | None
        if e.op in n.BITWISE_REDUCTIONS or e.op == "wave_all_equal":
            first = self.expr(e.args[0], d)
            allowed = first.ty is not None and (
                first.ty.is_int or first.ty is BOOL and e.op == "wave_all_equal")
            if not allowed:
                raise self.error(f"argument of {e.op}() must be an integer"
                                 f"{' or a bool' if e.op == 'wave_all_equal' else ''}, got "
                                 f"{first.ty}", e.line)
            return n.replace(e, args=(first,), ty=BOOL if e.op == "wave_all_equal" else first.ty)
        if e.op in n.QUAD_OPS:
            first = self.expr(e.args[0], d)
            assert first.ty is not None
            if not (first.ty.is_number or first.ty is BOOL):
                raise self.error(f"{e.op}() cannot move {_a(first.ty)}", e.line)
            args = (first,)
            if e.op == "quad_broadcast":
                i = self._constant(e.args[1], range(4), "quad lane of quad_broadcast()",
                                   e.line)
                args += (n.Const(i, line=e.line, ty=I32),)
            return n.replace(e, args=args, ty=first.ty)
        if e.op == "elect":
            args, ty = (), BOOL
        elif e.op in ("wave_any", "wave_all", "ballot"):
            args = (self.bool_expr(e.args[0], d, f"argument of {e.op}()"),)
            ty = I64 if e.op == "ballot" else BOOL
        elif e.op in ("readfirstlane", "shuffle") + n.RELATIVE_SHUFFLES:
            first = self.expr(e.args[0], d)
            assert first.ty is not None
            if not (first.ty.is_number or first.ty is BOOL):
                raise self.error(f"{e.op}() cannot move {_a(first.ty)}", e.line)
            what = {"shuffle": "source lane of shuffle()",
                    "shuffle_xor": "lane mask of shuffle_xor()"}.get(
                e.op, f"delta of {e.op}()")
            args = (first,) + tuple(self.int_expr(a, d, what) for a in e.args[1:])
            ty = first.ty
        else:
            first = self.expr(e.args[0], d)
            if first.ty is not None and first.ty.is_float and e.op not in n.FLOAT_WAVE_OPS:
                raise self.error(f"{e.op}() does not take {first.ty}: a float sum's rounding "
                                 "depends on the order of the lanes", e.line)
            if not (first.ty is not None and (first.ty.is_float or first.ty.is_int)):
                raise self.error(f"argument of {e.op}() must be an integer or a float, got "
                                 f"{first.ty}", e.line)
            args = (first,)
            ty = args[0].ty
        return n.replace(e, args=args, ty=ty)


def _array_kind(ty: Type) -> str:
    return "a workgroup array" if ty.is_local else "a private array"
