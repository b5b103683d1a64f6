"""Each IR node kind: the source that makes it, its type after checking and its line; the
parser's desugarings; and the printer's canonical form, golden."""

from __future__ import annotations

import pytest

from difftest.core.ir import check, parse, to_source
from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, BUF_I32, I32, I64

HEAD = "def k(a: Buffer[i32], b: Buffer[i64], m: i32, q: i64, f: bool):\n"
HELPER = "\n\ndef h(x: i32) -> i64:\n    return x\n"


def value_of(expr: str) -> n.Expr:
    """The checked expression assigned on line 3 of a kernel (after one blank line)."""
    prog = parse(HEAD + "    pass\n" + f"    z = {expr}\n" + HELPER)
    stmt = prog.function("k").body[-1]
    assert isinstance(stmt, n.Assign) and stmt.line == 3
    return stmt.value


@pytest.mark.parametrize("expr, cls, ty", [
    ("7", n.Const, I32),
    ("2147483648", n.Const, I64),
    ("-2147483648", n.Const, I32),
    ("-2147483649", n.Const, I64),
    ("-9223372036854775808", n.Const, I64),
    ("True", n.Const, BOOL),
    ("m", n.Name, I32),
    ("gid()", n.WorkId, I32),
    ("lane()", n.WorkId, I32),
    ("wave()", n.WorkId, I32),
    ("-m", n.Unary, I32),
    ("-(-5)", n.Unary, I32),
    ("~q", n.Unary, I64),
    ("not f", n.Unary, BOOL),
    ("m + q", n.Binary, I64),
    ("m - 1", n.Binary, I32),
    ("m * m", n.Binary, I32),
    ("m // 2", n.Binary, I32),
    ("q % m", n.Binary, I64),
    ("m & 3", n.Binary, I32),
    ("m | q", n.Binary, I64),
    ("m ^ m", n.Binary, I32),
    ("m << 40", n.Binary, I32),
    ("q >> 1", n.Binary, I64),
    ("m < q", n.Compare, BOOL),
    ("m <= 1", n.Compare, BOOL),
    ("m > 1", n.Compare, BOOL),
    ("m >= 1", n.Compare, BOOL),
    ("m != q", n.Compare, BOOL),
    ("f == True", n.Compare, BOOL),
    ("f and m > 0", n.Logic, BOOL),
    ("f or f", n.Logic, BOOL),
    ("m if f else q", n.Select, I64),
    ("a if f else a", n.Select, BUF_I32),
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
    assert e.line == 3


def test_expression_fields() -> None:
    assert value_of("a[m + 1]") == n.Load(
        "a", n.Binary("+", n.Name("m", ty=I32), n.Const(1, ty=I32), ty=I32), ty=I32)
    assert value_of("shuffle(f, lane())") == n.WaveOp(
        "shuffle", (n.Name("f", ty=BOOL), n.WorkId("lane", ty=I32)), ty=BOOL)
    assert value_of("i64(m) if not f else -q") == n.Select(
        n.Unary("not", n.Name("f", ty=BOOL), ty=BOOL),
        n.Cast(I64, n.Name("m", ty=I32), ty=I64),
        n.Unary("-", n.Name("q", ty=I64), ty=I64), ty=I64)
    assert value_of("h(7)") == n.Call("h", (n.Const(7, ty=I32),), ty=I64)


def test_negative_literals_fold() -> None:
    assert value_of("-5") == n.Const(-5, ty=I32)
    assert value_of("-(5)") == n.Const(-5, ty=I32)  # ast keeps no parentheses
    assert value_of("-(-5)") == n.Unary("-", n.Const(-5, ty=I32), ty=I32)
    assert value_of("--5") == value_of("-(-5)")
    assert value_of("-m") == n.Unary("-", n.Name("m", ty=I32), ty=I32)
    # A folded literal takes the type of its value: 2**31 is i64, -2**31 is i32.
    assert value_of("-2147483648").ty is I32 and value_of("2147483648").ty is I64
    # The checker folds hand-built trees the same way, so they print and re-parse.
    hand = n.Program((n.Function("k", (), None, (
        n.Assign("z", n.Unary("-", n.Const(2147483648))),)),))
    checked = check(hand)
    assert checked.functions[0].body[0] == n.Assign("z", n.Const(-2147483648, ty=I32))
    assert parse(to_source(checked)) == checked


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
    w = g2()
    for j in range(m, len(a)):
        pass
    return


def g(a: Buffer[i32]):
    a[2] = 1


def g2() -> bool:
    return True
"""


def test_statement_nodes_and_lines() -> None:
    prog = parse(STATEMENTS)
    assert [(f.name, f.line, f.returns) for f in prog.functions] == [
        ("k", 1, None), ("g", 25, None), ("g2", 29, BOOL)]
    k = prog.function("k")
    assert k.params == (n.Param("a", BUF_I32), n.Param("m", I32))
    assert [p.line for p in k.params] == [1, 1]
    body = k.body
    assert [type(s).__name__ for s in body] == [
        "Assign", "Store", "AtomicAdd", "If", "For", "CallStmt", "If", "Assign", "For",
        "Return"]
    assert [s.line for s in body] == [2, 3, 4, 5, 11, 16, 17, 19, 20, 22]
    assign, store, atomic, if_, for_, call, fail_if, w, for2, ret = body
    assert assign == n.Assign("x", n.Const(1, ty=I32), I64)
    assert store == n.Store("a", n.Const(0, ty=I32), n.Name("m", ty=I32))
    assert atomic == n.AtomicAdd("a", n.Const(1, ty=I32), n.Name("m", ty=I32))
    assert isinstance(for_.body[0], n.If) and isinstance(for_.body[1], n.If)
    assert for_.body[0].then == (n.Continue(),) and for_.body[0].then[0].line == 13
    assert for_.body[1].then == (n.Break(),) and for_.body[1].then[0].line == 15
    assert call == n.CallStmt(n.Call("g", (n.Name("a", ty=BUF_I32),)))
    assert fail_if.then == (n.Fail(n.Name("m", ty=I32)),) and fail_if.then[0].line == 18
    assert w == n.Assign("w", n.Call("g2", (), ty=BOOL))
    assert (for2.start, for2.stop) == (n.Name("m", ty=I32), n.Len("a", ty=I32))
    assert ret == n.Return(None)
    assert prog.function("g2").body == (n.Return(n.Const(True, ty=BOOL)),)


def test_desugarings() -> None:
    if_, for_ = parse(STATEMENTS).function("k").body[3:5]
    # elif -> an If alone in the else-block, with the elif's line; pass -> empty block
    assert isinstance(if_, n.If) and len(if_.orelse) == 1
    inner = if_.orelse[0]
    assert isinstance(inner, n.If) and inner.line == 7 and inner.then == ()
    # x += 3 -> x = x + 3
    assert inner.orelse == (n.Assign("x", n.Binary("+", n.Name("x", ty=I64),
                                                   n.Const(3, ty=I32), ty=I64)),)
    assert inner.orelse[0].line == 10
    # range(4) -> range(0, 4)
    assert isinstance(for_, n.For) and for_.var == "j"
    assert (for_.start, for_.stop) == (n.Const(0, ty=I32), n.Const(4, ty=I32))


def test_chained_logic_folds_left() -> None:
    c = n.Compare(">", n.Name("m", ty=I32), n.Const(0, ty=I32), ty=BOOL)
    f = n.Name("f", ty=BOOL)
    assert value_of("f and f and m > 0") == n.Logic(
        "and", n.Logic("and", f, f, ty=BOOL), c, ty=BOOL)
    assert value_of("f and (f and m > 0)") == n.Logic(
        "and", f, n.Logic("and", f, c, ty=BOOL), ty=BOOL)
    assert value_of("f or f and f") == n.Logic(
        "or", f, n.Logic("and", f, f, ty=BOOL), ty=BOOL)


def test_docstrings_are_skipped() -> None:
    prog = parse('"""module"""\ndef k(m: i32):\n    """doc"""\n    x = m\n')
    assert prog.function("k").body == (n.Assign("x", n.Name("m", ty=I32)),)


def test_equality_ignores_lines_but_not_types() -> None:
    assert n.Const(1, line=3) == n.Const(1, line=9)
    assert n.Name("x", line=1) != n.Name("y", line=1)
    assert n.Const(1, ty=I32) != n.Const(1, ty=I64)


# ---------------------------------------------------------------- printer, golden


def test_printer_golden_statements() -> None:
    src = (
        '"""A docstring, dropped."""\n'
        "def k(out: Buffer[i32], big: Buffer[i64], n: i64, f: bool):\n"
        "    x: i64 = -2147483648\n"
        "    if f and not (x < n or f):\n"
        "        out[0] = i32(x - (n - 1)) if f else -(-5)\n"
        "    elif x == 0:\n"
        "        pass\n"
        "    elif (x == 1) == f:\n"
        "        return\n"
        "    else:\n"
        "        for j in range(n):\n"
        "            x += wave_sum(j) * (2 + 3)\n"
        "            if j > 2: break\n"
        "            continue\n"
        "    sel = out if (f if f else f) else out\n"
        "    atomic_add(big, lane(), h(x) + -1)\n"
        "    h(1)\n"
        "    if not f:\n"
        "        fail(9223372036854775807)\n"
        "def h(v: i64) -> i64:\n"
        "    if v < 0:\n"
        "        return -v\n"
        "    else:\n"
        "        return v\n"
    )
    assert to_source(parse(src)) == (
        "def k(out: Buffer[i32], big: Buffer[i64], n: i64, f: bool):\n"
        "    x: i64 = -2147483648\n"
        "    if f and not (x < n or f):\n"
        "        out[0] = i32(x - (n - 1)) if f else -(-5)\n"
        "    elif x == 0:\n"
        "        pass\n"
        "    elif (x == 1) == f:\n"
        "        return\n"
        "    else:\n"
        "        for j in range(0, n):\n"
        "            x = x + wave_sum(j) * (2 + 3)\n"
        "            if j > 2:\n"
        "                break\n"
        "            continue\n"
        "    sel = out if (f if f else f) else out\n"
        "    atomic_add(big, lane(), h(x) + -1)\n"
        "    h(1)\n"
        "    if not f:\n"
        "        fail(9223372036854775807)\n"
        "\n"
        "\n"
        "def h(v: i64) -> i64:\n"
        "    if v < 0:\n"
        "        return -v\n"
        "    else:\n"
        "        return v\n"
    )


def test_printer_golden_precedence() -> None:
    src = (
        "def k(a: Buffer[i32], m: i32, f: bool):\n"
        "    v1 = ((m - 1) - (m - 1)) * (m // (2 * m)) % ~(m | 1)\n"
        "    v2 = (m << 1) + (m >> (1 + 1)) & (m ^ (m | m))\n"
        "    v3 = -(m + 1) - -m + ~-m - (-(-2147483648))\n"
        "    v4 = (not f) == (m < 1) or not (f or f) and (f and f)\n"
        "    v5 = (m if f else 0) if (f if f else f) else (1 if f else m)\n"
        "    v6 = a[(m if f else 1)] + len(a) + i32(ballot(not f)) + shuffle(m, -1)\n"
        "    v7 = (-1) * (((-9223372036854775808)))\n"
    )
    assert to_source(parse(src)) == (
        "def k(a: Buffer[i32], m: i32, f: bool):\n"
        "    v1 = (m - 1 - (m - 1)) * (m // (2 * m)) % ~(m | 1)\n"
        "    v2 = (m << 1) + (m >> 1 + 1) & (m ^ (m | m))\n"
        "    v3 = -(m + 1) - -m + ~-m - -(-2147483648)\n"
        "    v4 = (not f) == (m < 1) or not (f or f) and (f and f)\n"
        "    v5 = (m if f else 0) if (f if f else f) else 1 if f else m\n"
        "    v6 = a[m if f else 1] + len(a) + i32(ballot(not f)) + shuffle(m, -1)\n"
        "    v7 = -1 * -9223372036854775808\n"
    )


def test_printer_on_hand_built_trees() -> None:
    """Unchecked trees print too; `-(5)` is still a negation in the text, which the parser
    (like the checker) folds."""
    neg = n.Unary("-", n.Const(5))
    prog = n.Program((n.Function("k", (n.Param("m", I32),), I32, (
        n.If(n.Const(True), (), (n.If(n.Const(False), (n.Return(neg),)),)),
        n.Return(n.Unary("-", n.Unary("-", n.Name("m")))),
    )),))
    assert to_source(prog) == (
        "def k(m: i32) -> i32:\n"
        "    if True:\n"
        "        pass\n"
        "    elif False:\n"
        "        return -(5)\n"
        "    return -(-m)\n"
    )
    assert parse(to_source(prog)) == check(prog)


def test_replace_builds_what_dataclasses_replace_builds() -> None:
    """`nodes.replace` copies fields instead of calling `__init__`: right only while every
    field is an `__init__` argument and no node has a `__post_init__`."""
    import dataclasses
    classes = [c for c in vars(n).values()
               if isinstance(c, type) and dataclasses.is_dataclass(c)]
    assert len(classes) > 20
    for cls in classes:
        assert not hasattr(cls, "__post_init__"), cls
        assert all(f.init for f in dataclasses.fields(cls)), cls
    e = n.Binary("+", n.Const(1, line=2), n.Name("m"), line=2)
    for changes in ({"ty": I64}, {"left": n.Const(3), "ty": I32}, {"line": 9}):
        new, old = n.replace(e, **changes), dataclasses.replace(e, **changes)
        assert (new, hash(new), new.line, new.ty) == (old, hash(old), old.line, old.ty)
        assert type(new) is n.Binary and e.ty is None and e.left == n.Const(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        n.replace(e, ty=I32).op = "-"  # type: ignore[misc]
