"""The `opencl` target plugin: the translation (no device needed), hand-derived results on
PoCL's CPU device, and generated cases against the oracle.

The device tests need the `[opencl]` extra (the README's test command installs it); a
plain `pip install -e .[test]` skips them with that reason.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from difftest.case import Case
from difftest.ir import parse
from difftest.runner import check_case
from generators.cases import kernel_cases
from targets.opencl.translate import Unsupported, translate, unsupported


def case(text: str, n: int = 1, wave: int = 1, **args: object) -> Case:
    program = parse(text)
    arrays = {k: (np.array(v, dtype=np.int32) if isinstance(v, list) else v)
              for k, v in args.items()}
    return Case(text, "kernel", n, wave, arrays, program)


# ------------------------------------------------------------------ the translation


def test_wave_operations_and_alloc_are_unsupported_with_the_line() -> None:
    wave = parse("def kernel(out: Buffer[i32]):\n    out[gid()] = wave_sum(1)\n")
    assert "wave_sum at line 2" in (unsupported(wave) or "")
    alloc = parse("def kernel(out: Buffer[i32]):\n    p = alloc(4)\n    out[0] = len(p)\n")
    assert "alloc" in (unsupported(alloc) or "")
    with pytest.raises(Unsupported):
        translate(wave, "kernel")


def test_no_arithmetic_is_left_to_c() -> None:
    """Signed + - * and negation go through the unsigned type; // and % spell out the zero
    divisor and the -1 divisor; shift amounts are masked."""
    src = translate(parse(
        "def kernel(out: Buffer[i32], a: i32, b: i32):\n"
        "    out[0] = (a + b) * (-a) - (a // b) + (a % b) + (a << b) + (a >> b)\n"), "kernel").source
    assert "(int)((uint)" in src and "(uint)0 - (uint)" in src
    assert "== 0) {" in src and "== -1) ? (int)((uint)0 - (uint)" in src
    assert "& 31)" in src


def test_every_function_reachable_is_defined_before_its_callers() -> None:
    program = parse(
        "def kernel(out: Buffer[i32]):\n    out[0] = f(1)\n\n\n"
        "def f(x: i32) -> i32:\n    return g(x) + 1\n\n\n"
        "def g(x: i32) -> i32:\n    return x\n\n\n"
        "def unused(x: i32) -> i32:\n    return x\n")
    src = translate(program, "kernel").source
    assert src.index("int f_g(") < src.index("int f_f(") < src.index("void k_kernel(")
    assert "f_unused" not in src


# ------------------------------------------------------------------ on the device

cl = pytest.importorskip("pyopencl", reason="the [opencl] extra is not installed")

from targets.opencl.target import OpenCLTarget  # noqa: E402

TARGET = OpenCLTarget()


def run(c: Case, **options: object):  # type: ignore[no-untyped-def]
    return TARGET.run(c, {}, dict(options))


@pytest.mark.parametrize("opt", ["on", "off"])
def test_wrapping_truncating_and_masked_arithmetic(opt: str) -> None:
    # values derived by hand from the semantics (docs/semantics.md, "The core")
    c = case("def kernel(out: Buffer[i32], m: i32, k: i64):\n"
             "    out[0] = m + m\n"              # wraps: 2 * -2^31 == 0
             "    out[1] = m // -1\n"            # MIN // -1 == MIN
             "    out[2] = m % -1\n"             # 0
             "    out[3] = -7 // 2\n"            # truncates: -3
             "    out[4] = -7 % 2\n"             # -1
             "    out[5] = 1 << 33\n"            # masked to 1 << 1
             "    out[6] = -8 >> 34\n"           # arithmetic, masked: -8 >> 2 == -2
             "    out[7] = i32(k)\n"             # low 32 bits of 2^32 + 5
             "    out[8] = -m\n",                # -MIN == MIN
             out=[0] * 9, m=-(1 << 31), k=(1 << 32) + 5)
    got = run(c, opt=opt)
    assert got.error is None and got.status == ["completed"]
    assert got.buffers["out"].tolist() == [0, -(1 << 31), 0, -3, -1, 2, -2, 5, -(1 << 31)]


def test_a_fault_in_a_helper_reports_the_stack_and_stops_the_workitem() -> None:
    c = case("def kernel(out: Buffer[i32]):\n"
             "    out[gid()] = 1\n"
             "    x = h(out, gid())\n"
             "    out[gid()] = 2\n"
             "\n\n"
             "def h(b: Buffer[i32], g: i32) -> i32:\n"
             "    if g == 1:\n"
             "        fail(40 + g)\n"
             "    return b[g + 5]\n", n=3, out=[0, 0, 0])
    got = run(c)
    assert got.status == ["faulted", "faulted", "faulted"]
    assert got.buffers["out"].tolist() == [1, 1, 1]  # none reached line 4
    assert got.faults is not None
    assert got.faults[1].kind == "fail" and got.faults[1].code == 41
    assert [(f.function, f.line) for f in got.faults[1].stack] == [("kernel", 3), ("h", 9)]
    assert got.faults[0].kind == "out_of_bounds"
    assert [(f.function, f.line) for f in got.faults[0].stack] == [("kernel", 3), ("h", 10)]
    assert got.exception is not None and got.exception.gid == 0


def test_loop_bounds_are_evaluated_once_and_the_budget_stops_a_loop() -> None:
    c = case("def kernel(out: Buffer[i32], s: i32):\n"
             "    k = 0\n"
             "    for k in range(0, s):\n"
             "        s = 0\n"
             "    out[0] = k\n", out=[0], s=4)
    assert run(c).buffers["out"].tolist() == [3]
    spin = case("def kernel(out: Buffer[i32]):\n"
                "    while True:\n"
                "        out[0] = out[0] + 1\n"
                "        if out[0] < 0:\n"
                "            break\n", out=[0])
    got = run(spin, step_budget=50)
    assert got.error is not None and got.error.startswith("step_budget: workitem 0 ")


def test_bad_option_value_is_named() -> None:
    from difftest.options import OptionError, validate

    with pytest.raises(OptionError, match="opt"):
        validate(TARGET, {"opt": "fast"})


@settings(max_examples=25, deadline=None, database=None, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
@given(kernel_cases(per_kernel=2, capabilities=TARGET.capabilities))
def test_generated_cases_agree_with_the_oracle(kc) -> None:  # type: ignore[no-untyped-def]
    kernel, cases = kc
    assert "wave" not in kernel.features and "alloc" not in kernel.features
    for c in cases:
        assert c.host is None and TARGET.unsupported(c) is None
        for opt in ("on", "off"):
            result = check_case(c, TARGET, options={"opt": opt})
            assert result.verdict.agree, (opt, result.verdict, c.kernel)


def test_each_mutant_changes_its_own_part_of_the_translation() -> None:
    """The mutants' own output (the C text), not a corruption of results."""
    loop = parse("def kernel(out: Buffer[i32], s: i32):\n"
                 "    for k in range(0, s):\n        s = 0\n    out[0] = s\n")
    assert "_stop = (long)v_s;" in translate(loop, "kernel").source
    assert "< (long)v_s;" in translate(loop, "kernel", frozenset({"bound-per-trip"})).source
    call = parse("def kernel(out: Buffer[i32]):\n    out[0] = h(out)\n\n\n"
                 "def h(b: Buffer[i32]) -> i32:\n    return b[5]\n")
    plain = translate(call, "kernel").source
    mutated = translate(call, "kernel", frozenset({"call-no-check"})).source
    assert plain.count("if (C->kind)") == mutated.count("if (C->kind)") + 1


@pytest.mark.parametrize("mutant", ["bound-per-trip", "call-no-check"])
def test_each_mutant_is_caught_by_a_corpus_case(mutant: str) -> None:
    """Non-equivalent: its reduced hunt counterexample (kept in tests/data, not corpus/,
    so a checkout without the [opencl] extra replays no opencl entry) disagrees with it
    and agrees without."""
    import json
    from pathlib import Path

    from difftest.case import case_from_json

    kept = Path(__file__).parent / "data" / "opencl_mutants"
    entries = [json.loads(p.read_text()) for p in kept.glob("*.json")]
    mine = [e for e in entries if e.get("target") == "opencl" and e.get("mutants") == [mutant]]
    assert mine, f"no corpus entry for opencl mutant {mutant}"
    c = case_from_json(mine[0])
    assert not check_case(c, TARGET, options={"mutants": [mutant]}).verdict.agree
    assert check_case(c, TARGET, options={}).verdict.agree
