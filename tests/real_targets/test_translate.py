"""The translations (targets/translate) as text, no device needed: every rule of the
semantics spelled out in each language, buffers bound statically where the flow allows,
callees before callers, and each mutant a change in its own part of the text."""

from __future__ import annotations

import pytest

from difftest.core.ir import parse
from targets.translate import Unsupported, translate
from targets.translate.emit import buffer_flow

LANGUAGES = ("opencl", "opencl-subgroups", "wgsl", "glsl")

ARITH = parse("def kernel(out: Buffer[i32], a: i32, b: i32):\n"
              "    out[0] = (a + b) * (-a) - (a // b) + (a % b) + (a << b) + (a >> b)\n")


def test_opencl_leaves_no_arithmetic_to_c() -> None:
    src = translate(ARITH, "kernel", "opencl", 1).source
    assert "((int)(((uint)(v_a)) + ((uint)(v_b))))" in src  # + - * unsigned: they wrap
    assert "((int)(((uint)((0))) - ((uint)(v_a))))" in src  # negation too
    assert "((int)(((uint)(v_a)) << (v_b & (31))))" in src  # never a signed shift
    assert "if (v_b == (0)) {" in src and "if (v_b == (-1)) {" in src
    assert "(v_b & (31))" in src                       # masked shift amounts


def test_wgsl_leaves_no_arithmetic_to_wgsl() -> None:
    src = translate(ARITH, "kernel", "wgsl", 8).source
    assert "bitcast<i32>(bitcast<u32>(v_a) + bitcast<u32>(v_b))" in src
    assert "if (v_b == 0i) {" in src and "if (v_b == -1i) {" in src
    assert "u32(v_b & 31i)" in src


def test_the_srem_variant_leaves_wgsl_no_remainder_and_sext_shift_no_sign_known() -> None:
    """avoid=srem (naga-srem-negative): `a % b` as `a - (a / b) * b`, so naga emits no
    OpSRem; avoid=sext-shift (nvidia-sext-shift): a widened value plus the run-time zero,
    as sext-compare, so no compiler knows its high word."""
    plain = translate(ARITH, "kernel", "wgsl", 8).source
    src = translate(ARITH, "kernel", "wgsl", 8, avoid=frozenset({"srem"})).source
    assert "v_a % v_b" in plain and "%" not in src
    assert "(v_a - (v_a / v_b) * v_b)" in src
    wide = parse("def kernel(out: Buffer[i64]):\n    out[0] = gid() * 2147483648\n")
    for language in ("wgsl", "glsl"):
        plain = translate(wide, "kernel", language, 1).source
        shift, compare = (translate(wide, "kernel", language, 1, avoid=frozenset({v})).source
                          for v in ("sext-shift", "sext-compare"))
        assert shift == compare != plain



def test_the_sext_variants_spell_every_sign_extension_to_64_bits_with_the_zero() -> None:
    """avoid=sext-compare: not only i32 to i64 but every signed value extended to 64
    bits (`u64(g)` of an i32, an i8 or i16 to i64 or u64) is that plus the run-time
    zero. One left bare lets a compiler learn the zero: a lavapipe-glsl campaign on Mesa
    22.3 met `if g == i64(u64(g)):` (sext(g) + zero == sext(g)), inside which `g <= 0`
    was again the sign-extended comparison with a constant the variant avoids."""
    glsl = parse("def kernel(out: Buffer[u64], x: i8, y: i16, z: i32):\n"
                 "    out[0] = u64(gid()) + u64(i64(x)) + u64(y) + u64(z)\n")
    wgsl = parse("def kernel(out: Buffer[u64], z: i32):\n"  # 32 and 64 bits only
                 "    out[0] = u64(gid()) + u64(z)\n")
    for language, program, names, wide, zero in (
            ("glsl", glsl, ("C.gid", "v_x", "v_y", "v_z"), "int64_t", "P.d[6]"),
            ("wgsl", wgsl, ("C.gid", "v_z"), "i64", "P[4]")):
        plain = translate(program, "kernel", language, 1).source
        src = translate(program, "kernel", language, 1,
                        avoid=frozenset({"sext-compare"})).source
        for name in names:
            assert f"({wide}({name}) + {zero})" in src, (name, src)
            assert f"({wide}({name}) + {zero})" not in plain, (name, plain)


def test_glsl_spells_out_truncating_division_on_magnitudes() -> None:
    """GLSL leaves `%` with a negative operand and MIN / -1 undefined: both are computed
    on unsigned magnitudes, with the signs put back."""
    src = translate(ARITH, "kernel", "glsl", 8).source
    assert "v_a < (0) ? uint((0)) - uint(v_a) : uint(v_a);" in src
    assert "((v_a < (0)) != (v_b < (0)))" in src
    assert "int(v_b & (31))" in src


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_function_reachable_is_defined_before_its_callers(language: str) -> None:
    program = parse(
        "def kernel(out: Buffer[i32]):\n    out[0] = f(1)\n\n\n"
        "def f(x: i32) -> i32:\n    return g(x) + 1\n\n\n"
        "def g(x: i32) -> i32:\n    return x\n\n\n"
        "def unused(x: i32) -> i32:\n    return x\n")
    src = translate(program, "kernel", language, 4).source
    assert src.index("f_g(") < src.index("f_f(") < src.index("f_kernel(")
    assert "f_unused" not in src


def test_wave_operations_need_subgroups_and_alloc_is_never_translated() -> None:
    wave = parse("def kernel(out: Buffer[i32]):\n    out[gid()] = wave_sum(1)\n")
    with pytest.raises(Unsupported, match="wave_sum at line 2"):
        translate(wave, "kernel", "opencl", 4)
    alloc = parse("def kernel(out: Buffer[i32]):\n    p = alloc(4)\n    out[0] = len(p)\n")
    for language in LANGUAGES:
        with pytest.raises(Unsupported, match="alloc"):
            translate(alloc, "kernel", language, 4)


SELECTS = parse("def kernel(out: Buffer[i32], inp: Buffer[i32], acc: Buffer[i32], "
                "f: bool):\n"
                "    b = out if f else inp\n"
                "    out[0] = b[1] + h(inp)\n"
                "    atomic_add(acc, 0, 1)\n\n\n"
                "def h(c: Buffer[i32]) -> i32:\n    return c[0]\n")


def test_buffer_flow_knows_which_parameter_each_variable_may_hold() -> None:
    flow = buffer_flow(SELECTS, "kernel")
    assert flow[("kernel", "b")] == {0, 1}
    assert flow[("h", "c")] == {1}
    assert flow[("kernel", "acc")] == {2}


def test_shaders_bind_accesses_statically_where_one_buffer_is_possible() -> None:
    src = translate(SELECTS, "kernel", "wgsl", 4).source
    assert "let t1: i32 = mem1[u32(max(0i, 0i))];" in src  # h's c is always inp
    assert "ld32(v_b, " in src                         # b may be out or inp: switched
    assert "var<storage, read_write> mem2: array<atomic<i32>>" in src
    assert "var<storage, read_write> mem0: array<i32>" in src  # no atomic touches out


def test_each_mutant_changes_its_own_part_of_the_translation() -> None:
    """The mutants' own output (the text), not a corruption of results."""
    loop = parse("def kernel(out: Buffer[i32], s: i32):\n"
                 "    for k in range(0, s):\n        s = 0\n    out[0] = s\n")
    plain = translate(loop, "kernel", "opencl", 1).source
    assert "long k1_stop = ((long)(v_s));" in plain
    assert "k1 < ((long)(v_s))" in translate(loop, "kernel", "opencl", 1,
                                           frozenset({"bound-per-trip"})).source
    call = parse("def kernel(out: Buffer[i32]):\n    out[0] = h(out)\n\n\n"
                 "def h(b: Buffer[i32]) -> i32:\n    return b[5]\n")
    plain = translate(call, "kernel", "opencl", 1).source
    mutated = translate(call, "kernel", "opencl", 1, frozenset({"call-no-check"})).source
    assert plain.count("if (C->kind != 0)") == mutated.count("if (C->kind != 0)") + 1
    waves = parse("def kernel(out: Buffer[i64]):\n"
                  "    out[gid()] = ballot(elect()) + readfirstlane(i64(1)) + "
                  "shuffle(i64(2), 1)\n")

    def text(language: str, *mutants: str) -> str:
        return translate(waves, "kernel", language, 64, frozenset(mutants)).source

    assert "b2.x | ((ulong)b2.y << 32)" in text("opencl-subgroups")
    assert "b2.y" not in text("opencl-subgroups", "ballot-low-word")
    assert "subgroupElect()" in text("glsl") and "subgroupElect()" not in text(
        "glsl", "elect-lane0")
    assert "subgroupBroadcast(" not in text("glsl")
    assert "subgroupBroadcast(" in text("glsl", "readfirstlane-lane0")
    assert "subgroupBallotBitExtract" in text("glsl")
    assert "subgroupBallotBitExtract" not in text("glsl", "shuffle-inactive-lane")
    assert "intel_reqd_sub_group_size(64)" in text("opencl-subgroups")
    assert "intel_reqd_sub_group_size" not in text("opencl-subgroups",
                                                   "subgroup-size-unrequested")
    assert "if (gid >= N) return;\n    C->gid" in text("opencl-subgroups")
    assert "if (gid >= N) return;\n    C->gid" not in text("opencl-subgroups",
                                                         "past-n-active")
    div = parse("def kernel(out: Buffer[i32], a: i32):\n    out[0] = 7 // a\n")
    assert "C.kind = 2" in translate(div, "kernel", "wgsl", 1).source
    assert "C.kind = 2" not in translate(div, "kernel", "wgsl", 1,
                                         frozenset({"div-unchecked"})).source
