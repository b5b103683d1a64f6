"""Each IR node kind: the source that makes it, its type after checking, and its line."""

from __future__ import annotations

import pytest

from difftest.ir import nodes as n
from difftest.ir import parse
from difftest.ir.types import BOOL, BUF_I32, BUF_I64, I32, I64

HEAD = "def k(a: Buffer[i32], b: Buffer[i64], m: i32, q: i64, f: bool):\n"


def value_of(expr: str, prelude: str = "") -> n.Expr:
    """The checked expression assigned on the kernel's last line."""
    prog = parse(HEAD + prelude + f"    z = {expr}\n" + HELPER)
    stmt = prog.function("k").body[-1]
    assert isinstance(stmt, n.Assign)
    return stmt.value


HELPER = "\n\ndef h(x: i32) -> i64:\n    return x\n"


@pytest.mark.parametrize("expr, cls, ty", [
    ("7", n.Const, I32),
    ("2147483648", n.Const, I64),
    ("-2147483648", n.Const, I32),
    ("True", n.Const, BOOL),
    ("m", n.Name, I32),
    ("gid()", n.WorkId, I32),
    ("lane()", n.WorkId, I32),
    ("wave()", n.WorkId, I32),
    ("-m", n.Unary, I32),
    ("~q", n.Unary, I64),
    ("not f", n.Unary, BOOL),
    ("m + q", n.Binary, I64),
    ("m // 2", n.Binary, I32),
    ("m << 40", n.Binary, I32),
    ("m < q", n.Compare, BOOL),
    ("f == True", n.Compare, BOOL),
    ("f and m > 0", n.Logic, BOOL),
    ("f or f", n.Logic, BOOL),
    ("m if f else q", n.Select, I64),
    ("a[m]", n.Load, I32),
    ("b[0]", n.Load, I64),
    ("len(b)", n.Len, I32),
    ("i32(q)", n.Cast, I32),
    ("i64(f)", n.Cast, I64),
    ("h(m)", n.Call, I64),
    ("wave_sum(q)", n.WaveOp, I64),
    ("wave_min(m)", n.WaveOp, I32),
    ("wave_max(m)", n.WaveOp, I32),
    ("wave_any(f)", n.WaveOp, BOOL),
    ("wave_all(f)", n.WaveOp, BOOL),
    ("ballot(f)", n.WaveOp, I64),
    ("readfirstlane(f)", n.WaveOp, BOOL),
    ("shuffle(m, 3)", n.WaveOp, I32),
    ("prefix_sum(m)", n.WaveOp, I32),
    ("inclusive_sum(q)", n.WaveOp, I64),
])
def test_expression_nodes(expr: str, cls: type, ty: object) -> None:
    e = value_of(expr)
    assert isinstance(e, cls)
    assert e.ty is ty
    assert e.line == 2


def test_buffer_values() -> None:
    e = value_of("a if f else a")
    assert isinstance(e, n.Select) and e.ty is BUF_I32
    assert value_of("b").ty is BUF_I64


STATEMENTS = """\
def k(a: Buffer[i32], m: i32):
    x: i64 = 1
    a[0] = m
    atomic_add(a, 1, m)
    if m > 0:
        x = 2
    elif m < 0:
        pass
    else:
        x += 3
    for j in range(4):
        if j == 1:
            continue
        if j == 2:
            break
    g(a)
    if m == 9:
        fail(m)
    return


def g(a: Buffer[i32]):
    a[2] = 1
"""


def test_statement_nodes_and_desugarings() -> None:
    body = parse(STATEMENTS).function("k").body
    kinds = [type(s).__name__ for s in body]
    assert kinds == ["Assign", "Store", "AtomicAdd", "If", "For", "CallStmt", "If", "Return"]
    assign, store, atomic, if_, for_, call, fail_if, ret = body
    assert assign.declared is I64 and assign.line == 2
    assert (store.buffer, store.line) == ("a", 3)
    assert (atomic.buffer, atomic.line) == ("a", 4)
    # elif -> nested If in orelse; `pass` -> empty block; `x += 3` -> x = x + 3
    assert isinstance(if_.orelse[0], n.If) and if_.orelse[0].then == ()
    aug = if_.orelse[0].orelse[0]
    assert isinstance(aug, n.Assign) and isinstance(aug.value, n.Binary)
    assert aug.value.op == "+" and aug.value.left == n.Name("x", ty=I64)
    # range(4) -> range(0, 4); continue/break kinds and lines
    assert for_.start == n.Const(0, ty=I32) and for_.stop == n.Const(4, ty=I32)
    assert for_.line == 11
    assert isinstance(for_.body[0].then[0], n.Continue) and for_.body[0].then[0].line == 13
    assert isinstance(for_.body[1].then[0], n.Break)
    assert isinstance(call.call, n.Call) and call.call.func == "g" and call.line == 16
    assert isinstance(fail_if.then[0], n.Fail) and fail_if.then[0].line == 18
    assert isinstance(ret, n.Return) and ret.value is None and ret.line == 19


def test_chained_and_folds_left() -> None:
    e = value_of("f and f and m > 0")
    assert isinstance(e, n.Logic) and isinstance(e.left, n.Logic)
    assert isinstance(e.right, n.Compare)


def test_equality_ignores_lines() -> None:
    assert n.Const(1, line=3) == n.Const(1, line=9)
    assert n.Name("x", line=1) != n.Name("y", line=1)
