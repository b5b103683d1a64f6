"""Reconvergence models (difftest/core/reconvergence.py): which wave operations lie on a
loop's exit path, the rewrite that removes them, and generated kernels that respect a
target's model."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from difftest.core.ir import parse, to_source
from difftest.core.reconvergence import (LOOP_EXITS_UNDEFINED, MAXIMAL, defined_only,
                                    undefined_wave_ops)
from generators.kernels import ENTRY, kernels

PROGRAM = '''def kernel(out: Buffer[i32], s: i32):
    x = wave_sum(1)
    for k in range(0, 4):
        y = wave_sum(2)
        if gid() == k:
            out[gid()] = i32(ballot(True))
            break
        if lane() == 1:
            z = wave_max(3)
            return
        else:
            z = 4
        w = wave_min(z)
        if lane() == 2:
            fail(readfirstlane(k))
        while True:
            c = wave_sum(1)
            if c > 3:
                out[0] = shuffle(c, 1) + h(2)
                break
        if lane() == 3:
            continue
        v = prefix_sum(1)
    out[gid()] = h(1)


def h(a: i32) -> i32:
    for j in range(0, 2):
        if a == 2:
            return inclusive_sum(a)
    return wave_sum(a)
'''


def undefined(text: str) -> list[tuple[str, int]]:
    return [(w.op, w.line) for w in undefined_wave_ops(parse(text), "kernel",
                                                       LOOP_EXITS_UNDEFINED)]


def test_the_exit_paths_of_loops_and_everything_called_from_them() -> None:
    # line 6: before a break; 9: before a return; 15: a fail's code; 19: before the inner
    # loop's break; h (called from there) entirely: 30 and 31. Defined: line 2 (no
    # loop), 4 and 13 (every lane's trip), 17 (the inner loop's own trip), 23 (after a
    # conditional continue)
    assert sorted(undefined(PROGRAM)) == [
        ("ballot", 6), ("inclusive_sum", 30), ("readfirstlane", 15), ("shuffle", 19),
        ("wave_max", 9), ("wave_sum", 31)]


def test_maximal_leaves_nothing_undefined() -> None:
    assert undefined_wave_ops(parse(PROGRAM), "kernel", MAXIMAL) == []


def test_an_unconditional_exit_makes_the_rest_of_the_body_an_exit_path() -> None:
    text = ("def kernel(out: Buffer[i32]):\n"
            "    for k in range(0, 4):\n"
            "        x = wave_sum(1)\n"
            "        if lane() == 0:\n"
            "            out[0] = x\n"
            "        break\n")
    assert undefined(text) == [("wave_sum", 3)]


def test_a_loop_inside_an_exit_path_is_undefined_too() -> None:
    text = ("def kernel(out: Buffer[i32]):\n"
            "    while True:\n"
            "        if lane() == 0:\n"
            "            for k in range(0, 2):\n"
            "                out[0] = wave_sum(k)\n"
            "            break\n")
    assert undefined(text) == [("wave_sum", 5)]


def test_defined_only_replaces_exactly_the_undefined_ones_and_stays_valid() -> None:
    program = parse(PROGRAM)
    fixed = defined_only(program, "kernel", LOOP_EXITS_UNDEFINED)
    assert fixed is not None
    assert undefined_wave_ops(fixed, "kernel", LOOP_EXITS_UNDEFINED) == []
    text = to_source(fixed)
    assert parse(text) == fixed  # a valid, checked program
    for kept in ("x = wave_sum(1)", "y = wave_sum(2)", "w = wave_min(z)", "c = wave_sum(1)",
                 "v = prefix_sum(1)"):
        assert kept in text
    assert defined_only(fixed, "kernel", LOOP_EXITS_UNDEFINED) is None


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(kernels(reconvergence=LOOP_EXITS_UNDEFINED))
def test_generated_kernels_keep_wave_operations_where_the_model_defines_them(k) -> None:  # type: ignore[no-untyped-def]
    assert undefined_wave_ops(k.program, ENTRY, LOOP_EXITS_UNDEFINED) == []
    assert parse(k.source) == k.program


def test_nested_undefined_wave_operations_are_all_replaced() -> None:
    """A replaced operation becomes its operand, which may be an undefined operation too
    (`wave_any(elect())`, `wave_sum(wave_sum(a))`): the generator's kernels once kept the
    inner one."""
    src = ("def kernel(out: Buffer[i32]):\n    for k in range(0, 4):\n"
           "        if gid() == k:\n            out[gid()] = h(k)\n            break\n\n\n"
           "def h(a: i32) -> i32:\n    return i32(wave_any(elect())) + wave_sum(wave_sum(a))\n")
    program = parse(src)
    assert len(undefined_wave_ops(program, "kernel", LOOP_EXITS_UNDEFINED)) == 4
    fixed = defined_only(program, "kernel", LOOP_EXITS_UNDEFINED)
    assert fixed is not None
    assert undefined_wave_ops(fixed, "kernel", LOOP_EXITS_UNDEFINED) == []


def test_an_i64_prefix_sum_replaced_stays_an_i64() -> None:
    """An undefined i64 `prefix_sum` becomes a zero of its type: a bare `0` would make
    the variable it first sets an i32, and a later i64 assignment to it invalid (a
    generated kernel once hit this)."""
    src = ("def kernel(out: Buffer[i64]):\n    for k in range(0, 4):\n"
           "        if gid() == k:\n            x = prefix_sum(gid() + 4294967296)\n"
           "            x = wave_sum(gid() + 4294967296)\n            out[0] = x\n"
           "            break\n")
    fixed = defined_only(parse(src), "kernel", LOOP_EXITS_UNDEFINED)
    assert fixed is not None
    text = to_source(fixed)
    assert "x = i64(0)" in text and parse(text) == fixed
