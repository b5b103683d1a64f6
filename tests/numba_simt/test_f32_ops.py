"""numba-simt's f32 operations, the machine's (device/machine.py) and the host loop's
(runtime/host_loop.py, an implementation of its own), each against difftest/core/f32.py on
any bits: every F op's result is the semantics' value, NaN written as the one quiet NaN."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from difftest.core import f32
from targets.numba_simt.device import machine
from targets.numba_simt.runtime import host_loop

BITS = st.integers(-(2**31), 2**31 - 1)
#: values near the interesting places more often than uniform bits would give them
SPECIAL = st.sampled_from([0, -(2**31), 1, 0x7FFFFF, 0x800000, 0x7F7FFFFF, 0x7F800000,
                           -8388608, f32.NAN_BITS, 0x3F800000, 0x3F800001, 0x4F000000,
                           -822083584, 0x5F000000, 0x33800000])
OPERAND = st.one_of(BITS, SPECIAL)


def semantics(op: str, a: int, b: int, c: int = 0) -> int:
    x, y, z = f32.from_bits(a), f32.from_bits(b), f32.from_bits(c)
    value = {"add": f32.add, "sub": f32.sub, "mul": f32.mul, "min": f32.minimum,
             "max": f32.maximum}[op](x, y) if op != "fma" else f32.fma(x, y, z)
    return f32.to_bits(value)


def on_machine(op: str, a: int, b: int, c: int = 0) -> int:
    x, y, z = (machine._fv(np.int64(v), False) for v in (a, b, c))
    if op == "fma":
        r = machine._ffma(x, y, z)
    elif op in ("min", "max"):
        r = machine._fpick(x, y, op == "min", False)
    else:
        r = {"add": x + y, "sub": x - y, "mul": x * y}[op]
    return int(machine._fb(r, False))


def on_host(op: str, a: int, b: int, c: int = 0) -> int:
    if op == "fma":
        return int(host_loop._bits(host_loop._fma(host_loop._f(a), host_loop._f(b),
                                                  host_loop._f(c))))
    code = {"add": host_loop.A_FADD, "sub": host_loop.A_FSUB, "mul": host_loop.A_FMUL,
            "min": host_loop.A_FMIN, "max": host_loop.A_FMAX}[op]
    return int(host_loop.arith(code, np.int64(a), np.int64(b), 64))


@given(st.sampled_from(["add", "sub", "mul", "min", "max", "fma"]), OPERAND, OPERAND,
       OPERAND)
@settings(max_examples=600, deadline=None)
def test_each_op_gives_the_semantics_value(op: str, a: int, b: int, c: int) -> None:
    want = semantics(op, a, b, c)
    assert on_machine(op, a, b, c) == want, "machine"
    assert on_host(op, a, b, c) == want, "host"


def test_fma_where_binary64_alone_rounds_twice() -> None:
    a = f32.to_bits(1.0 + 2.0 ** -12)
    c = f32.to_bits(2.0 ** -80)
    want = f32.to_bits(1.0 + 2.0 ** -11 + 2.0 ** -23)
    assert on_machine("fma", a, a, c) == want == on_host("fma", a, a, c)
    # and toward zero: the exact value below a tie, binary64's sum on it
    m = f32.to_bits(-(2.0 ** -80))
    assert on_machine("fma", a, a, m) == f32.to_bits(1.0 + 2.0 ** -11) == on_host("fma", a, a, m)


@given(st.one_of(st.integers(-(2**63), 2**63 - 1),
                 st.sampled_from([2**24 + 1, 2**24 + 3, 2**53 + 1, 2**60 + 2**36 + 1,
                                  -(2**63), 2**63 - 1, -(2**31)])))
@settings(max_examples=300, deadline=None)
def test_int_to_f32_rounds_once(i: int) -> None:
    want = f32.to_bits(f32.from_int(i))
    assert int(machine._fb(machine._ffrom_int(np.int64(i)), False)) == want
    assert int(host_loop.arith(host_loop.A_CVT_IF, np.int64(i), np.int64(0), 64)) == want


@given(OPERAND, OPERAND, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
@settings(max_examples=300, deadline=None)
def test_comparisons_are_ieee(a: int, b: int, op: str) -> None:
    x, y = f32.from_bits(a), f32.from_bits(b)
    want = {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y,
            ">=": x >= y}[op]
    code = {"==": host_loop.A_FEQ, "!=": host_loop.A_FNE, "<": host_loop.A_FLT,
            "<=": host_loop.A_FLE, ">": host_loop.A_FGT, ">=": host_loop.A_FGE}[op]
    assert int(host_loop.arith(code, np.int64(a), np.int64(b), 64)) == int(want)


def test_the_denormal_flush_mutant_reads_and_writes_subnormals_as_zero() -> None:
    tiny = f32.to_bits(2.0 ** -149)
    assert machine._fv(np.int64(tiny), True) == 0.0
    assert machine._fv(np.int64(tiny), False) == 2.0 ** -149
    assert int(machine._fb(2.0 ** -140, True)) == 0
    assert int(machine._fb(-(2.0 ** -140), True)) == -(2**31)  # a zero of its sign
