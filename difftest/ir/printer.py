"""IR -> source text in the kernel language's canonical form.

One printer, so there is one text form: 4-space indents, two blank lines between
functions, `elif` for an else-block that is a single `if`, `pass` for an empty block,
`range(a, b)` always with both bounds, minimal parentheses by Python's precedence.
Contract: `parse(to_source(p)) == p` for every checked program `p` (lines aside).
"""

from __future__ import annotations

from . import nodes as n

# Python precedence, low to high.
_PREC = {
    "select": 1, "or": 2, "and": 3, "not": 4, "cmp": 5, "|": 6, "^": 7, "&": 8,
    "<<": 9, ">>": 9, "+": 10, "-": 10, "*": 11, "//": 11, "%": 11, "unary": 12, "atom": 14,
}


def to_source(program: n.Program) -> str:
    return "\n\n".join(_function(f) for f in program.functions)


def _function(f: n.Function) -> str:
    params = ", ".join(f"{p.name}: {p.ty}" for p in f.params)
    ret = f" -> {f.returns}" if f.returns is not None else ""
    return f"def {f.name}({params}){ret}:\n" + _block(f.body, 1)


def _block(stmts: tuple[n.Stmt, ...], depth: int) -> str:
    if not stmts:
        return "    " * depth + "pass\n"
    return "".join(_stmt(s, depth) for s in stmts)


def _stmt(s: n.Stmt, depth: int) -> str:
    pad = "    " * depth
    if isinstance(s, n.Assign):
        ann = f": {s.declared}" if s.declared is not None else ""
        return f"{pad}{s.target}{ann} = {expr(s.value)}\n"
    if isinstance(s, n.Store):
        return f"{pad}{s.buffer}[{expr(s.index)}] = {expr(s.value)}\n"
    if isinstance(s, n.AtomicAdd):
        return f"{pad}atomic_add({s.buffer}, {expr(s.index)}, {expr(s.value)})\n"
    if isinstance(s, n.If):
        out = f"{pad}if {expr(s.cond)}:\n" + _block(s.then, depth + 1)
        orelse = s.orelse
        while len(orelse) == 1 and isinstance(orelse[0], n.If):
            inner = orelse[0]
            out += f"{pad}elif {expr(inner.cond)}:\n" + _block(inner.then, depth + 1)
            orelse = inner.orelse
        if orelse:
            out += f"{pad}else:\n" + _block(orelse, depth + 1)
        return out
    if isinstance(s, n.For):
        return (f"{pad}for {s.var} in range({expr(s.start)}, {expr(s.stop)}):\n"
                + _block(s.body, depth + 1))
    if isinstance(s, n.Break):
        return f"{pad}break\n"
    if isinstance(s, n.Continue):
        return f"{pad}continue\n"
    if isinstance(s, n.Return):
        return f"{pad}return\n" if s.value is None else f"{pad}return {expr(s.value)}\n"
    if isinstance(s, n.Fail):
        return f"{pad}fail({expr(s.code)})\n"
    assert isinstance(s, n.CallStmt), f"unknown statement {type(s).__name__}"
    return f"{pad}{expr(s.call)}\n"


def _prec(e: n.Expr) -> int:
    if isinstance(e, n.Select):
        return _PREC["select"]
    if isinstance(e, n.Logic):
        return _PREC[e.op]
    if isinstance(e, n.Unary):
        return _PREC["not"] if e.op == "not" else _PREC["unary"]
    if isinstance(e, n.Compare):
        return _PREC["cmp"]
    if isinstance(e, n.Binary):
        return _PREC[e.op]
    if isinstance(e, n.Const) and not isinstance(e.value, bool) and e.value < 0:
        return _PREC["unary"]  # prints as `-5`
    return _PREC["atom"]


def _wrap(e: n.Expr, minimum: int) -> str:
    text = expr(e)
    return f"({text})" if _prec(e) < minimum else text


def expr(e: n.Expr) -> str:
    """One expression in source syntax, parenthesised only where precedence needs it."""
    if isinstance(e, n.Const):
        return repr(e.value) if isinstance(e.value, bool) else str(e.value)
    if isinstance(e, n.Name):
        return e.id
    if isinstance(e, n.WorkId):
        return f"{e.which}()"
    if isinstance(e, n.Unary):
        if e.op == "not":
            return f"not {_wrap(e.operand, _PREC['not'])}"
        operand = e.operand
        # `-5` would re-parse as a folded constant: keep a unary minus of a non-negative
        # literal visible as such.
        if e.op == "-" and isinstance(operand, n.Const) and not isinstance(operand.value, bool):
            return f"-({expr(operand)})"
        text = _wrap(operand, _PREC["unary"])
        if e.op == "-" and text.startswith("-"):
            text = f"({text})"
        return f"{e.op}{text}"
    if isinstance(e, n.Binary):
        p = _PREC[e.op]
        return f"{_wrap(e.left, p)} {e.op} {_wrap(e.right, p + 1)}"
    if isinstance(e, n.Compare):
        p = _PREC["cmp"]
        return f"{_wrap(e.left, p + 1)} {e.op} {_wrap(e.right, p + 1)}"
    if isinstance(e, n.Logic):
        p = _PREC[e.op]
        return f"{_wrap(e.left, p)} {e.op} {_wrap(e.right, p + 1)}"
    if isinstance(e, n.Select):
        p = _PREC["select"]
        return f"{_wrap(e.then, p + 1)} if {_wrap(e.cond, p + 1)} else {_wrap(e.orelse, p)}"
    if isinstance(e, n.Load):
        return f"{e.buffer}[{expr(e.index)}]"
    if isinstance(e, n.Len):
        return f"len({e.buffer})"
    if isinstance(e, n.Cast):
        return f"{e.to}({expr(e.operand)})"
    if isinstance(e, (n.Call, n.WaveOp)):
        name = e.func if isinstance(e, n.Call) else e.op
        return f"{name}({', '.join(expr(a) for a in e.args)})"
    raise AssertionError(f"unknown expression {type(e).__name__}")
