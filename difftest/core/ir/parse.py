"""Kernel source text -> checked IR, through Python's own `ast` module.

The text is only parsed, never compiled or executed. This module owns the syntax (which
Python constructs mean what); `check.py` owns typing and the language's static rules.
Desugarings: `elif` -> nested `If`, `x += v` -> `x = x + v`, `a and b and c` ->
`(a and b) and c`, `-<int literal>` -> a negative `Const`, `range(b)` -> `range(0, b)`,
`pass` -> nothing. The printer emits the desugared forms, so parse(print(ir)) == ir.
"""

from __future__ import annotations

import ast
import math

from ..errors import KernelError
from . import nodes as n
from .check import check
from .. import f32
from .types import BOOL, DTYPES, F64, Type, buffer_of

_BINOPS: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}
_CMPOPS: dict[type, str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
}
#: the element types by name (every number type), which are also the casts' names
_CASTS = dict(DTYPES)
_SCALAR_ANN = {**_CASTS, "bool": BOOL}
_BUFFER_ANN = {name: buffer_of(t) for name, t in _CASTS.items()}
_NUMBERS = ", ".join(_CASTS)
_STATEMENT_CALLS = ("fail", "atomic_add")


def parse(text: str) -> n.Program:
    """Parse and check kernel text; raises `KernelError` naming the line on bad input."""
    try:
        return check(parse_unchecked(text))
    except RecursionError:
        raise KernelError("nested too deeply to check (past Python's recursion limit)") \
            from None


def parse_unchecked(text: str) -> n.Program:
    """The syntax step alone (types not yet filled in)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        if "integer string conversion" in e.msg:
            raise KernelError("integer literal of more than 4,300 digits (an i64 fits in "
                              "19)", e.lineno or 0) from None
        raise KernelError(f"syntax error: {e.msg}", e.lineno or 0) from None
    except (RecursionError, MemoryError):  # Python's parser gives up (its own limit)
        raise KernelError("nested too deeply to parse (Python's parser gives up)") from None
    except ValueError as e:
        raise KernelError(f"cannot be parsed: {e or type(e).__name__}") from None
    functions = []
    for node in tree.body:
        if _is_docstring(node):
            continue
        if not isinstance(node, ast.FunctionDef):
            raise KernelError(
                f"unsupported top-level statement '{_describe(node)}' (only `def` is allowed)",
                node.lineno,
            )
        functions.append(_function(node))
    if not functions:
        raise KernelError("kernel text defines no function")
    return n.Program(tuple(functions))


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _describe(node: ast.AST) -> str:
    """What the user wrote, in the language's words (never Python's node names)."""
    named = {
        "While": "while", "Import": "import", "ImportFrom": "import", "With": "with",
        "Try": "try", "ClassDef": "class", "Global": "global", "Nonlocal": "nonlocal",
        "Delete": "del", "Raise": "raise", "Assert": "assert", "Lambda": "lambda",
        "AsyncFunctionDef": "async def",
        "FunctionDef": "def (a function inside a function)",
        "AugAssign": "augmented assignment", "AnnAssign": "annotated assignment",
        "AsyncFor": "async for", "AsyncWith": "async with", "TryStar": "try",
        "Expr": "expression statement", "TypeAlias": "type",
    }.get(type(node).__name__)
    if named is not None:
        return named
    try:  # the statement's first word: its keyword, or what it starts with
        return ast.unparse(node).split(None, 1)[0]
    except (ValueError, IndexError, AttributeError):
        return "statement"


def _annotation(node: ast.expr | None, what: str, line: int) -> Type:
    if node is None:
        raise KernelError(f"missing type annotation on {what}", line)
    if isinstance(node, ast.Name) and node.id in _SCALAR_ANN:
        return _SCALAR_ANN[node.id]
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Buffer"
        and isinstance(node.slice, ast.Name)
        and node.slice.id in _BUFFER_ANN
    ):
        return _BUFFER_ANN[node.slice.id]
    raise KernelError(
        f"unknown type annotation '{ast.unparse(node)}' on {what} "
        f"(expected a number type -- {_NUMBERS} --, bool, or Buffer[T] of a number type T)",
        node.lineno,
    )


def _function(fn: ast.FunctionDef) -> n.Function:
    a = fn.args
    if fn.decorator_list:
        raise KernelError(f"decorators are not supported (on '{fn.name}')", fn.lineno)
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
        raise KernelError(
            f"function '{fn.name}' may only have plain positional parameters", fn.lineno
        )
    params = tuple(
        n.Param(arg.arg, _annotation(arg.annotation, f"parameter '{arg.arg}'", arg.lineno),
                line=arg.lineno)
        for arg in a.args
    )
    returns: Type | None = None
    if fn.returns is not None and not (
        isinstance(fn.returns, ast.Constant) and fn.returns.value is None
    ):
        returns = _annotation(fn.returns, f"the return of '{fn.name}'", fn.lineno)
        if returns.is_buffer:
            raise KernelError(f"function '{fn.name}' may not return a buffer", fn.lineno)
    body = fn.body
    if body and _is_docstring(body[0]):
        body = body[1:]
    return n.Function(fn.name, params, returns, _block(body), line=fn.lineno)


def _block(stmts: list[ast.stmt]) -> tuple[n.Stmt, ...]:
    out: list[n.Stmt] = []
    for s in stmts:
        out.extend(_stmt(s))
    return tuple(out)


def _match(s: ast.Match) -> n.If:
    """`match x:` of a variable, its cases integer literals (`case 1 | 2:`) or the
    wildcard last (`case _:`), as the chain of `if x == ...` it means (nodes.If's
    `switch`): lanes take the first case their value matches, none where no case does."""
    line = s.lineno
    if not isinstance(s.subject, ast.Name):
        raise KernelError("match takes a variable (assign the value to one first: `v = "
                          "...` then `match v:`)", line)
    var = s.subject.id
    chain: tuple[n.Stmt, ...] = ()
    for k, case in reversed(list(enumerate(s.cases))):
        at = case.pattern.lineno
        if case.guard is not None:
            raise KernelError("a case with `if` (a guard) is not supported", at)
        values = _case_pattern(case.pattern, at)
        body = _block(case.body)
        if not values:
            if k != len(s.cases) - 1:
                raise KernelError("`case _:` must be the last case", at)
            chain = body
            continue
        cond: n.Expr = n.Compare("==", n.Name(var, line=at), n.Const(values[0], line=at),
                                 line=at)
        for v in values[1:]:
            cond = n.Logic("or", cond, n.Compare("==", n.Name(var, line=at),
                                                 n.Const(v, line=at), line=at), line=at)
        chain = (n.If(cond, body, chain, line=line if k == 0 else at, switch=True),)
    if not chain or not isinstance(chain[0], n.If):
        raise KernelError("a match needs a case with values (`case 0:`)", line)
    return chain[0]


def _case_pattern(p: ast.pattern, line: int) -> tuple[int, ...]:
    """A case's values: integer literals joined by `|`; () for the wildcard `_`."""
    if isinstance(p, ast.MatchAs) and p.pattern is None and p.name is None:
        return ()
    if isinstance(p, ast.MatchOr):
        out: tuple[int, ...] = ()
        for q in p.patterns:
            got = _case_pattern(q, line)
            if not got:
                raise KernelError("`_` cannot be one alternative of a case", line)
            out += got
        return out
    if isinstance(p, ast.MatchValue):
        v = p.value
        negative = isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub)
        lit = v.operand if negative else v  # type: ignore[attr-defined]
        if isinstance(lit, ast.Constant) and type(lit.value) is int:
            return (-lit.value if negative else lit.value,)
    raise KernelError("a case matches integer literals (`case 0:`, `case 1 | 2:`) or `_`",
                      line)


def _stmt(s: ast.stmt) -> list[n.Stmt]:
    line = s.lineno
    if isinstance(s, ast.Pass):
        return []
    if isinstance(s, ast.Assign):
        if len(s.targets) != 1:
            raise KernelError("chained assignment is not supported", line)
        return [_assign(s.targets[0], _expr(s.value), None, line)]
    if isinstance(s, ast.AnnAssign):
        local = _local_array(s)
        if local is not None:
            return [local]
        if s.value is None:
            raise KernelError("a declaration needs a value: write `x: i64 = 0`", line)
        if not isinstance(s.target, ast.Name):
            raise KernelError("only a variable can be declared with a type", line)
        ty = _annotation(s.annotation, f"variable '{s.target.id}'", line)
        return [n.Assign(s.target.id, _expr(s.value), ty, line=line)]
    if isinstance(s, ast.AugAssign):
        if not isinstance(s.target, ast.Name):
            raise KernelError(
                "augmented assignment is only supported on variables; write "
                "`buf[i] = buf[i] + v`",
                line,
            )
        op = _binop(s.op, line)
        target = s.target.id
        value = n.Binary(op, n.Name(target, line=line), _expr(s.value), line=line)
        return [n.Assign(target, value, None, line=line)]
    if isinstance(s, ast.If):
        return [n.If(_expr(s.test), _block(s.body), _block(s.orelse), line=line)]
    if isinstance(s, ast.Match):
        return [_match(s)]
    if isinstance(s, ast.For):
        return [_for(s)]
    if isinstance(s, ast.While):
        if not (isinstance(s.test, ast.Constant) and s.test.value is True):
            raise KernelError("only `while True:` loops are supported (left by `break`); "
                              "write other loops as `for k in range(a, b)`", line)
        if s.orelse:
            raise KernelError("`while ... else` is not supported", line)
        return [n.While(_block(s.body), line=line)]
    if isinstance(s, ast.Break):
        return [n.Break(line=line)]
    if isinstance(s, ast.Continue):
        return [n.Continue(line=line)]
    if isinstance(s, ast.Return):
        return [n.Return(None if s.value is None else _expr(s.value), line=line)]
    if isinstance(s, ast.Expr):
        if _is_docstring(s):
            return []
        return [_call_stmt(s.value, line)]
    raise KernelError(f"unsupported statement '{_describe(s)}'", line)


def _assign(target: ast.expr, value: n.Expr, declared: Type | None, line: int) -> n.Stmt:
    if isinstance(target, ast.Name):
        return n.Assign(target.id, value, declared, line=line)
    if isinstance(target, ast.Subscript):
        buf = _buffer_name(target.value, line)
        return n.Store(buf, _expr(target.slice), value, line=line)
    raise KernelError(
        f"cannot assign to '{ast.unparse(target)}' (only variables and buffer elements)", line
    )


def _for(s: ast.For) -> n.For:
    line = s.lineno
    if s.orelse:
        raise KernelError("`for ... else` is not supported", line)
    if not isinstance(s.target, ast.Name):
        raise KernelError("a loop variable must be a plain name", line)
    it = s.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
        raise KernelError(
            "unbounded loop: only `for k in range(a, b)` loops are supported", line
        )
    if it.keywords or not 1 <= len(it.args) <= 2 or any(
            isinstance(a, ast.Starred) for a in it.args):
        raise KernelError("range() takes one or two arguments (no step)", line)
    args = [_expr(a) for a in it.args]
    start, stop = (n.Const(0, line=line), args[0]) if len(args) == 1 else args
    return n.For(s.target.id, start, stop, _block(s.body), line=line)


def _call_stmt(e: ast.expr, line: int) -> n.Stmt:
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Name)):
        raise KernelError(
            f"expression statement '{ast.unparse(e)}' has no effect (only calls may stand alone)",
            line,
        )
    name = e.func.id
    if e.keywords:
        raise KernelError(f"keyword arguments are not supported in '{name}()'", line)
    if name == "fail":
        if len(e.args) != 1:
            raise KernelError("fail() takes exactly one argument (the code)", line)
        return n.Fail(_expr(e.args[0]), line=line)
    if name == "barrier":
        if e.args:
            raise KernelError("barrier() takes no arguments", line)
        return n.Barrier(line=line)
    if name == "atomic_add":
        if len(e.args) != 3:
            raise KernelError("atomic_add() takes three arguments (buffer, index, value)", line)
        buf = _buffer_name(e.args[0], line)
        return n.AtomicAdd(buf, _expr(e.args[1]), _expr(e.args[2]), line=line)
    if name.startswith("atomic_") and name[len("atomic_"):] in n.ATOMIC_OPS:
        raise KernelError(f"{name}() gives the location's old value: write "
                          f"`old = {name}(...)`", line)
    call = _expr(e)
    if not isinstance(call, n.Call):
        raise KernelError(f"the result of '{ast.unparse(e)}' is unused", line)
    return n.CallStmt(call, line=line)


def _local_array(s: ast.AnnAssign) -> n.LocalArray | n.PrivateArray | None:
    """`name: Local[i32, 64]`, a workgroup array's declaration, or `name: Array[i32, 8]`,
    a private array's (None: another statement)."""
    ann = s.annotation
    if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name)
            and ann.value.id in ("Local", "Array")):
        return None
    line = s.lineno
    spelled, what, most, example = (
        ("Local", "a workgroup array", n.LOCAL_MAX, "tile: Local[i32, 64]")
        if ann.value.id == "Local" else
        ("Array", "a private array", n.PRIVATE_MAX, "a: Array[i32, 8]"))
    if s.value is not None:
        raise KernelError(f"{what} starts as zeros: declare it without a value, "
                          f"`{example}`", line)
    if not isinstance(s.target, ast.Name):
        raise KernelError(f"only a name can be declared {what}", line)
    parts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    if len(parts) != 2 or not (isinstance(parts[0], ast.Name) and parts[0].id in _CASTS):
        raise KernelError(f"{what} is {spelled}[T, LENGTH] of a number type T "
                          f"({_NUMBERS}), got '{ast.unparse(ann)}'", line)
    length = parts[1]
    if not (isinstance(length, ast.Constant) and type(length.value) is int
            and 1 <= length.value <= most):
        raise KernelError(f"{what}'s length is a constant in 1..{most}, "
                          f"got '{ast.unparse(length)}'", line)
    node = n.LocalArray if spelled == "Local" else n.PrivateArray
    return node(s.target.id, _CASTS[parts[0].id], length.value, line=line)


def _buffer_name(e: ast.expr, line: int) -> str:
    if isinstance(e, ast.Subscript):  # a[0][1]: an element is a scalar
        raise KernelError(f"'{ast.unparse(e)}' is one element, not a buffer or array",
                          line)
    if not isinstance(e, ast.Name):
        raise KernelError(f"'{ast.unparse(e)}' is not a buffer name", line)
    return e.id


def _binop(op: ast.operator, line: int) -> str:
    if type(op) in _BINOPS:
        return _BINOPS[type(op)]
    spelled = {ast.Div: "/ (there is no true division: // divides integers, truncating; "
                        "f32 has + - * and fma, min, max, abs)",
               ast.Pow: "**", ast.MatMult: "@"}
    raise KernelError(f"unsupported operator {spelled.get(type(op), type(op).__name__)}", line)


def _expr(e: ast.expr) -> n.Expr:
    line = e.lineno
    if isinstance(e, ast.Constant):
        if isinstance(e.value, bool) or type(e.value) is int:
            return n.Const(e.value, line=line)
        if type(e.value) is float:
            return _float_literal(e.value, line)
        raise KernelError(f"unsupported constant {e.value!r} (only integers, floats and "
                          "booleans)", line)
    if isinstance(e, ast.Name):
        return n.Name(e.id, line=line)
    if isinstance(e, ast.UnaryOp):
        if isinstance(e.op, ast.USub):
            if (
                isinstance(e.operand, ast.Constant)
                and type(e.operand.value) is int
            ):
                return n.Const(-e.operand.value, line=line)
            if isinstance(e.operand, ast.Constant) and type(e.operand.value) is float:
                return _float_literal(-e.operand.value, line)
            return n.Unary("-", _expr(e.operand), line=line)
        if isinstance(e.op, ast.Invert):
            return n.Unary("~", _expr(e.operand), line=line)
        if isinstance(e.op, ast.Not):
            return n.Unary("not", _expr(e.operand), line=line)
        raise KernelError("unsupported unary operator +", line)
    if isinstance(e, ast.BinOp):
        return n.Binary(_binop(e.op, line), _expr(e.left), _expr(e.right), line=line)
    if isinstance(e, ast.Compare):
        if len(e.ops) != 1:
            raise KernelError("chained comparisons are not supported; use `and`", line)
        op = _CMPOPS.get(type(e.ops[0]))
        if op is None:
            raise KernelError(
                f"unsupported comparison '{type(e.ops[0]).__name__}' (is/in are not allowed)", line
            )
        return n.Compare(op, _expr(e.left), _expr(e.comparators[0]), line=line)
    if isinstance(e, ast.BoolOp):
        op = "and" if isinstance(e.op, ast.And) else "or"
        acc = _expr(e.values[0])
        for v in e.values[1:]:
            acc = n.Logic(op, acc, _expr(v), line=line)
        return acc
    if isinstance(e, ast.IfExp):
        return n.Select(_expr(e.test), _expr(e.body), _expr(e.orelse), line=line)
    if isinstance(e, ast.Subscript):
        return n.Load(_buffer_name(e.value, line), _expr(e.slice), line=line)
    if isinstance(e, ast.Call):
        return _call(e)
    raise KernelError(f"unsupported expression '{ast.unparse(e)}'", line)


def _float_literal(value: float, line: int) -> n.Const:
    """An f32 literal: the nearest binary32 (as C's `0.1f`); one past the f32 range is a
    mistake, not an infinity."""
    rounded = f32.rounded(value)
    if rounded in (float("inf"), float("-inf")):  # (a decimal past binary64's too: inf)
        past = "" if math.isinf(value) else f" {value!r}"
        raise KernelError(f"float literal{past} is out of the f32 range (at most about "
                          "3.4e38)", line)
    return n.Const(rounded, line=line)


def _float_text(e: ast.expr) -> float | None:
    """The float a literal argument names (`0.1`, `-0.1`), or None."""
    if isinstance(e, ast.Constant) and type(e.value) is float:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) \
            and isinstance(e.operand, ast.Constant) and type(e.operand.value) is float:
        return -e.operand.value
    return None


def _f64_literal(value: float, line: int) -> n.Const:
    """`f64(0.1)`: an f64 literal, the binary64 nearest the decimal (as C's `0.1`), not
    the f32 literal 0.1 widened."""
    if math.isinf(value):  # (Python read the decimal as inf: its text is gone)
        raise KernelError("float literal is out of the f64 range (at most about 1.8e308)",
                          line)
    return n.Const(value, line=line, ty=F64)


def _call(e: ast.Call) -> n.Expr:
    line = e.lineno
    if not isinstance(e.func, ast.Name):
        raise KernelError(f"cannot call '{ast.unparse(e.func)}'", line)
    name = e.func.id
    if e.keywords and not (name in n.CLUSTERED_OPS and len(e.keywords) == 1
                           and e.keywords[0].arg == "cluster"):
        raise KernelError(f"keyword arguments are not supported in '{name}()'"
                          + (" but cluster=" if name in n.CLUSTERED_OPS else ""), line)
    if any(isinstance(a, ast.Starred) for a in e.args):
        raise KernelError(f"starred arguments are not supported in '{name}()'", line)
    nargs = len(e.args)

    def arity(k: int) -> None:
        if nargs != k:
            raise KernelError(
                f"{name}() takes {k} argument{'s' if k != 1 else ''}, got {nargs}", line)

    if name in n.WORK_IDS:
        arity(0)
        return n.WorkId(name, line=line)
    if name == "len":
        arity(1)
        return n.Len(_buffer_name(e.args[0], line), line=line)
    if name == "alloc":
        arity(1)
        return n.Alloc(_expr(e.args[0]), line=line)
    if name in _CASTS:
        arity(1)
        if name == "f64" and _float_text(e.args[0]) is not None:
            return _f64_literal(_float_text(e.args[0]), line)  # type: ignore[arg-type]
        return n.Cast(_CASTS[name], _expr(e.args[0]), line=line)
    if name in n.MATH_OPS:
        arity(n.MATH_OPS[name])
        return n.MathOp(name, tuple(_expr(a) for a in e.args), line=line)
    if name in n.WAVE_OPS:
        arity(n.WAVE_OPS[name])
        args = tuple(_expr(a) for a in e.args)
        if e.keywords:  # `cluster=C`: the IR's second argument, a constant (the checker's)
            args += (_expr(e.keywords[0].value),)
        return n.WaveOp(name, args, line=line)
    if name.startswith("atomic_") and name[len("atomic_"):] in n.ATOMIC_OPS:
        op = name[len("atomic_"):]
        arity(4 if op == "compare_exchange" else 3)
        buf = _buffer_name(e.args[0], line)
        return n.AtomicOp(op, buf, tuple(_expr(a) for a in e.args[1:]), line=line)
    if name in _STATEMENT_CALLS:
        raise KernelError(f"{name}() is a statement and has no value", line)
    if name == "range":
        raise KernelError("range() may only appear as a for loop's iterable", line)
    return n.Call(name, tuple(_expr(a) for a in e.args), line=line)
