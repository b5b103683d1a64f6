"""IR -> source text in the kernel language's one canonical form.

Form: 4-space indents, two blank lines between functions, `elif` for an else-block that
is exactly one `if`, `pass` for an empty block, `range(a, b)` always with both bounds,
`x: T = v` only where the assignment declares its type, and the fewest parentheses
Python's precedence allows. It prints the parser's desugared forms, so the text is a fixed
point: `parse(to_source(p)) == p` for every checked program `p` (lines aside) and
`to_source(parse(to_source(p))) == to_source(p)`.

Negative literals: the parser (and the checker, for hand-built trees) folds
`-<int literal>` into a negative `Const`, so a checked program never holds
`Unary('-', Const(c >= 0))`. A negative `Const` prints as `-5`; a negation of one as
`-(-5)`, which `ast` reads as a negation of the folded literal again.
"""

from __future__ import annotations

import math

from .. import f32
from . import nodes as n
from .types import F64

# Python's precedence, low to high; a child whose level is below the level its position
# needs is parenthesised.
_SELECT, _OR, _AND, _NOT, _CMP = 1, 2, 3, 4, 5
_BINARY = {"|": 6, "^": 7, "&": 8, "<<": 9, ">>": 9, "+": 10, "-": 10,
           "*": 11, "//": 11, "%": 11}
_UNARY, _ATOM = 12, 13
_LOGIC = {"or": _OR, "and": _AND}
_INDENT = "    "


def to_source(program: n.Program) -> str:
    """The program's canonical source text (ends with a newline)."""
    return "\n\n".join(_function(f) for f in program.functions)


def _function(f: n.Function) -> str:
    params = ", ".join(f"{p.name}: {p.ty}" for p in f.params)
    ret = f" -> {f.returns}" if f.returns is not None else ""
    return f"def {f.name}({params}){ret}:\n" + _block(f.body, 1)


def _block(stmts: tuple[n.Stmt, ...], depth: int) -> str:
    if not stmts:
        return _INDENT * depth + "pass\n"
    return "".join(_stmt(s, depth) for s in stmts)


def _stmt(s: n.Stmt, depth: int) -> str:
    pad = _INDENT * depth
    cases = n.switch_cases(s) if isinstance(s, n.If) else None
    if cases is not None:
        var, arms = cases
        out = f"{pad}match {var}:\n"
        for values, body in arms:
            spelled = " | ".join(str(v) for v in values) if values else "_"
            out += f"{pad}    case {spelled}:\n" + _block(body, depth + 2)
        return out
    if isinstance(s, n.If):
        out = f"{pad}if {_expr(s.cond)}:\n" + _block(s.then, depth + 1)
        orelse = s.orelse
        while len(orelse) == 1 and isinstance(orelse[0], n.If):  # the parser's `elif`
            inner = orelse[0]
            out += f"{pad}elif {_expr(inner.cond)}:\n" + _block(inner.then, depth + 1)
            orelse = inner.orelse
        if orelse:
            out += f"{pad}else:\n" + _block(orelse, depth + 1)
        return out
    if isinstance(s, n.For):
        return (f"{pad}for {s.var} in range({_expr(s.start)}, {_expr(s.stop)}):\n"
                + _block(s.body, depth + 1))
    if isinstance(s, n.While):
        return f"{pad}while True:\n" + _block(s.body, depth + 1)
    return f"{pad}{_simple(s)}\n"


def _simple(s: n.Stmt) -> str:
    if isinstance(s, n.Assign):
        ann = f": {s.declared}" if s.declared is not None else ""
        return f"{s.target}{ann} = {_expr(s.value)}"
    if isinstance(s, n.Store):
        return f"{s.buffer}[{_expr(s.index)}] = {_expr(s.value)}"
    if isinstance(s, n.AtomicAdd):
        return f"atomic_add({s.buffer}, {_expr(s.index)}, {_expr(s.value)})"
    if isinstance(s, n.Break):
        return "break"
    if isinstance(s, n.Continue):
        return "continue"
    if isinstance(s, n.Return):
        return "return" if s.value is None else f"return {_expr(s.value)}"
    if isinstance(s, n.Fail):
        return f"fail({_expr(s.code)})"
    if isinstance(s, n.LocalArray):
        return f"{s.name}: Local[{s.element}, {s.length}]"
    if isinstance(s, n.PrivateArray):
        return f"{s.name}: Array[{s.element}, {s.length}]"
    if isinstance(s, n.Barrier):
        return "barrier()"
    assert isinstance(s, n.CallStmt), f"unknown statement node {type(s).__name__}"
    return _expr(s.call)


def _level(e: n.Expr) -> int:
    if isinstance(e, n.Select):
        return _SELECT
    if isinstance(e, n.Logic):
        return _LOGIC[e.op]
    if isinstance(e, n.Unary):
        return _NOT if e.op == "not" else _UNARY
    if isinstance(e, n.Compare):
        return _CMP
    if isinstance(e, n.Binary):
        return _BINARY[e.op]
    if isinstance(e, n.Const) and not isinstance(e.value, bool) and e.ty is not F64 \
            and math.copysign(1, e.value) < 0:
        return _UNARY  # `-5` is a unary minus to `ast`
    return _ATOM


def _sub(e: n.Expr, needs: int) -> str:
    """`e` in a position that needs at least precedence level `needs`."""
    text = _expr(e)
    return f"({text})" if _level(e) < needs else text


def expr_source(e: n.Expr) -> str:
    """One expression in the source syntax (for reports and compiler metadata)."""
    return _expr(e)


def _expr(e: n.Expr) -> str:
    if isinstance(e, n.Const):
        if isinstance(e.value, float) and e.ty is F64:  # `f64(0.1)`: an f64 literal
            return f"f64({e.value!r})"
        if isinstance(e.value, float):  # the shortest decimal that reads back as it
            return f32.shortest(e.value)
        return repr(e.value)  # True/False, or the integer with its sign
    if isinstance(e, n.Name):
        return e.id
    if isinstance(e, n.WorkId):
        return f"{e.which}()"
    if isinstance(e, n.Unary):
        if e.op == "not":
            return f"not {_sub(e.operand, _NOT)}"
        text = _sub(e.operand, _UNARY)
        # `-(-5)`, `-(-x)`: keep a negated literal or negation visibly one (`--5` parses
        # the same, but reads like a typo).
        if e.op == "-" and (isinstance(e.operand, n.Const) or text.startswith("-")):
            text = f"({text})"
        return f"{e.op}{text}"
    if isinstance(e, n.Binary):
        level = _BINARY[e.op]  # left-associative: an equal-level right operand needs ()
        return f"{_sub(e.left, level)} {e.op} {_sub(e.right, level + 1)}"
    if isinstance(e, n.Compare):  # non-associative: a comparison operand needs ()
        return f"{_sub(e.left, _CMP + 1)} {e.op} {_sub(e.right, _CMP + 1)}"
    if isinstance(e, n.Logic):
        level = _LOGIC[e.op]
        return f"{_sub(e.left, level)} {e.op} {_sub(e.right, level + 1)}"
    if isinstance(e, n.Select):
        # `then if cond else orelse`: only the else side may itself be an if-expression.
        return (f"{_sub(e.then, _SELECT + 1)} if {_sub(e.cond, _SELECT + 1)} "
                f"else {_sub(e.orelse, _SELECT)}")
    if isinstance(e, n.Load):
        return f"{e.buffer}[{_expr(e.index)}]"
    if isinstance(e, n.Len):
        return f"len({e.buffer})"
    if isinstance(e, n.Alloc):
        return f"alloc({_expr(e.size)})"
    if isinstance(e, n.Cast):
        return f"{e.to}({_expr(e.operand)})"
    if isinstance(e, n.Call):
        return f"{e.func}({', '.join(_expr(a) for a in e.args)})"
    if isinstance(e, n.MathOp):
        return f"{e.op}({', '.join(_expr(a) for a in e.args)})"
    if isinstance(e, n.AtomicOp):
        return f"atomic_{e.op}({', '.join([e.buffer] + [_expr(a) for a in e.args])})"
    assert isinstance(e, n.WaveOp), f"unknown expression node {type(e).__name__}"
    if e.op in n.CLUSTERED_OPS and len(e.args) == 2:
        return f"{e.op}({_expr(e.args[0])}, cluster={_expr(e.args[1])})"
    return f"{e.op}({', '.join(_expr(a) for a in e.args)})"
