"""The examples (examples/) behave as their headers say.

Expected numbers are copied from each example's header comment (hand-derived there), and
stack lines are found by searching the kernel text for the statement, never read back from
the oracle.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from difftest.core.case import case_from_json

from difftest.core.kernelfile import load_case
from difftest.core.ir import parse
from oracles.oracle import ReferenceTarget

from ..conftest import EXAMPLES, example_json

NAMES = ["divergent_wave_ops", "loop_exit_liveness", "payload_clobber", "simple_deopt",
         "workgroup_reduce", "float_rounding", "integer_types", "bit_ops", "private_arrays",
         "double_precision", "ballot_arithmetic", "relative_shuffles",
         "clustered_reductions", "quad_operations", "all_equal", "switch_cases",
         "returning_atomics"]


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), 1)
            if needle in line and not line.lstrip().startswith("#")]
    assert len(hits) == 1, f"{needle!r} found on lines {hits}"
    return hits[0]


def stack(outcome_exc: dict) -> list[tuple[str, int]]:
    return [(f["function"], f["line"]) for f in outcome_exc["stack"]]


@pytest.mark.parametrize("name", NAMES)
def test_example_is_a_kernel_file_whose_header_says_how_to_run_it(name: str,
                                                                   examples_dir: Path) -> None:
    text = (examples_dir / f"{name}.py").read_text()
    parse(text)
    case = example_json(name)
    assert case["kernel"] == text  # the whole file, header lines and all: lines match
    assert case["entry"] == name and case["launch"]["n"] >= 1
    assert "# difftest: launch n=" in text


def run_example(name: str, **changes: object) -> dict:
    obj = example_json(name)
    obj.update(changes)
    return ReferenceTarget().run(case_from_json(obj)).to_json()


def test_divergent_wave_ops() -> None:
    out = run_example("divergent_wave_ops")
    assert out["buffers"]["out"] == [120, -1, 121, -1, 90, 60, -1, 35]
    text = (EXAMPLES / "divergent_wave_ops.py").read_text()
    exc = out["exception"]
    assert (exc["kind"], exc["gid"]) == ("division_by_zero", 3)
    assert stack(exc) == [("divergent_wave_ops", line_of(text, "100 // (v - 2)"))]
    assert out["status"] == ["completed"] * 3 + ["faulted"] + ["completed"] * 4


def test_loop_exit_liveness() -> None:
    out = run_example("loop_exit_liveness")
    assert out["buffers"]["out"] == [100000, 102000, 104002, 106004]
    assert out["exception"] is None
    assert out["status"] == ["completed"] * 4


def test_payload_clobber() -> None:
    out = run_example("payload_clobber")
    assert out["buffers"]["out"] == [7, 0, 7, 0, 7, 0, 7, 0]
    assert out["buffers"]["used"] == [0, 3, 0, 9, 0, 15, 0, 21]
    assert out["exception"] is None


def test_alloc_relocation_on_the_oracle() -> None:
    out = run_example("alloc_relocation")
    inp = [1, 2, 3, 4, 5]
    expected = [sum(inp[:g % 5 + 1]) + 10 * g * (g % 5 + 1) for g in range(12)]
    assert out["buffers"]["out"] == expected
    assert out["buffers"]["inp"] == inp  # the private buffers are nobody's output
    assert out["exception"] is None and out["status"] == ["completed"] * 12


def test_alloc_size_out_of_range_faults_at_the_alloc() -> None:
    kernel = ("def kernel(out: Buffer[i32], s: i32):\n"
              "    p = alloc(s - gid())\n"
              "    out[gid()] = len(p)\n")
    obj = {"kernel": kernel, "entry": "kernel", "launch": {"n": 4, "wave": 2},
           "args": {"out": {"dtype": "i32", "data": [9] * 4}, "s": 1025}}
    out = ReferenceTarget().run(case_from_json(obj)).to_json()
    # sizes 1025, 1024, 1023, 1022: only gid 0 is past the limit (1024)
    assert out["exception"]["gid"] == 0 and out["exception"]["kind"] == "out_of_bounds"
    assert stack(out["exception"]) == [("kernel", 2)]
    assert out["buffers"]["out"] == [9, 1024, 1023, 1022]


@pytest.mark.parametrize("wave", [1, 2, 4, 8, 16, 32, 64])
def test_simple_deopt_any_wave_size(wave: int) -> None:
    out = run_example("simple_deopt", launch={"n": 20, "wave": wave})
    text = (EXAMPLES / "simple_deopt.py").read_text()
    expected = [p * p for p in range(20)]
    expected[10] = -1
    assert out["buffers"]["out"] == expected
    exc = out["exception"]
    assert (exc["kind"], exc["gid"]) == ("out_of_bounds", 10)
    assert stack(exc) == [
        ("simple_deopt", line_of(text, "write_int_array(out, out_index, p * p)")),
        ("write_int_array", line_of(text, "ary[index] = val")),
    ]
    assert out["status"][10] == "faulted"
    assert out["status"].count("completed") == 19


def test_workgroup_reduce() -> None:
    out = run_example("workgroup_reduce")
    text = (EXAMPLES / "workgroup_reduce.py").read_text()
    expected = [52] * 16 + [1055] * 16 + [2029] * 8  # the header's sums
    for g in (5, 21, 37):
        expected[g] = -1
    assert out["buffers"]["out"] == expected
    exc = out["exception"]
    assert (exc["kind"], exc["gid"]) == ("out_of_bounds", 5)
    assert stack(exc) == [("workgroup_reduce", line_of(text, "x = inp[100]"))]
    assert [g for g, s in enumerate(out["status"]) if s == "faulted"] == [5, 21, 37]


def _bits(x: float) -> int:
    """A binary32's bits as a signed integer (struct's, not difftest's)."""
    return struct.unpack("<i", struct.pack("<f", x))[0]


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_float_rounding(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("float_rounding")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    text = (EXAMPLES / "float_rounding.py").read_text()
    nan = float("nan")
    expected = [0.0, nan, -1.0, 30000001024.0,  # x * 10.0 - 1.0 (two roundings)
                2.0 ** -26, nan, -1.0, 29999998976.0,  # fma (one)
                0.0, 0.0, -0.0, 0.0]  # min(x, 0.0)
    got = out["buffers"]["out"]
    for i, want in enumerate(expected):
        if want != want:
            assert (got[i] & 0x7FFFFFFF) > 0x7F800000, i  # a NaN (any)
        else:
            assert got[i] == _bits(want), i
    assert out["buffers"]["small"] == [1, 0, 1, 0]
    assert out["buffers"]["conv"] == [0, 0, 0, 0]
    assert [g for g, s in enumerate(out["status"]) if s == "faulted"] == [1, 3]
    exc = out["exception"]
    assert exc["kind"] == "invalid_conversion" and exc["gid"] in (1, 3)
    assert stack(exc) == [("float_rounding", line_of(text, "conv[g] = i32(a)"))]


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_double_precision(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("double_precision")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    expected = [2.0 ** -54, 29.0, -1.0, -21474836486.0,  # fma: one rounding
                0.0, 29.0, -1.0, -21474836486.0,  # x * 10.0 - 1.0: two
                0.10000000149011612, 3.0, 0.0, -2147483648.0,  # through f32
                -2147483648.5, -2147483648.5, -2147483648.5, -2147483648.5]  # wave_min
    assert out["buffers"]["out"] == [struct.unpack("<q", struct.pack("<d", x))[0]
                                     for x in expected]
    assert out["buffers"]["ints"] == [0, 3, 0, -2147483648]
    assert out["status"] == ["completed"] * 4 and out["exception"] is None


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_ballot_arithmetic(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("ballot_arithmetic")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    assert out["buffers"]["out"] == ([3] * 8  # the header's values
                                     + [1, 1, 1, 2, 2, 2, 3, 3]
                                     + [0, 1, 1, 1, 2, 2, 2, 3]
                                     + [0, -1, 1, 0, -1, -1, 5, 0]
                                     + [7, -1, 2, 7, -1, -1, 6, 0]
                                     + [1, 0, 1, 1, 0, 0, 1, 0])


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_relative_shuffles(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("relative_shuffles")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    assert out["buffers"]["out"] == ([11, 1, 31, 21, 51, 41, 71, 61]  # the header's
                                     + [0, 0, 1, 11, 21, 31, 41, 51]
                                     + [31, 41, 51, 61, 71, 0, 0, 0]
                                     + [21, 0, 1, 0, 61, 0, 41, 0])


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_clustered_reductions(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("clustered_reductions")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    assert out["buffers"]["out"] == ([10] * 4 + [26] * 4  # the header's values
                                     + [2, 2, 4, 4, 6, 6, 8, 8]
                                     + [48] * 8
                                     + [8] * 8
                                     + [0, 2, 2, 0, 5, 5, 0, 5]
                                     + [36] * 8
                                     + [0, 48, 48, 0, 48, 48, 0, 48])


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_quad_operations(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("quad_operations")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    assert out["buffers"]["out"] == ([21] * 4 + [61] * 4  # the header's values
                                     + [11, 1, 31, 21, 51, 41, 71, 61]
                                     + [21, 31, 1, 11, 61, 71, 41, 51]
                                     + [31, 21, 11, 1, 71, 61, 51, 41]
                                     + [0, 0, 0, 0, 61, 0, 61, 61]
                                     + [31, 0, 0, 1, 71, 0, 0, 41])


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_all_equal(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("all_equal")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    assert out["buffers"]["out"] == ([1] * 8 + [0] * 8  # the header's values
                                     + [1, 1, 0, 0, 1, 1, 0, 0]
                                     + [1] * 8
                                     + [0, 0, 1, 1, 0, 0, 1, 1])


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
def test_switch_cases(target: str) -> None:
    from difftest.campaign.registry import load_target

    obj = example_json("switch_cases")
    out = (ReferenceTarget() if target == "reference" else load_target(target)).run(
        case_from_json(obj)).to_json()
    assert out["buffers"]["out"] == ([2, 40, 40, 2, 2, 40, 40, 2]  # the header's values
                                     + [0, 16, 16, 0, 0, 16, 16, 0]
                                     + [0, 6, 6, 6, 0, 6, 6, 6])


def test_numba_simts_switch_mutant_is_caught_by_the_example() -> None:
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    verdict = check_case(load_case(EXAMPLES / "switch_cases.py"), load_target("numba-simt"),
                         {}, {"mutants": ["switch-falls-through"]}).verdict
    assert not verdict.agree and "out[0] holds 20" in str(verdict), str(verdict)


def test_cli_run_json_prints_the_header_outcome(examples_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "difftest", "run", str(examples_dir / "simple_deopt.py"),
         "--target", "reference", "--json"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["exception"]["gid"] == 10
    assert out["buffers"]["out"][11] == 121


def test_every_example_case_loads() -> None:
    for name in NAMES:
        assert load_case(EXAMPLES / f"{name}.py").entry == name


def test_bit_ops() -> None:
    """The header's numbers."""
    out = run_example("bit_ops")["buffers"]
    assert out["c"] == [32, 31, 0, 0, 32, 0, 31, 0, 0, 1, 1, 32]
    assert out["r"] == [0, 2147483648, 1, 4294967295, 0, 2, 1, 4294967295]
    assert out["h"] == [0, 0, 2147483647, 4294967294, 0, 1, 2, 2]
    assert out["s"] == [-128, 1, 5, 127]


def test_private_arrays() -> None:
    """The header's numbers, and workitem 3's fault on the last line."""
    out = run_example("private_arrays")
    assert out["buffers"]["out"] == [2, 6, 12, 4, 5, 107, 15, 107, 388, 388, 388, 388,
                                     2, 6, 12, 0]
    from difftest.core import f32  # an outcome holds an f32's bits
    assert out["buffers"]["f"] == [f32.to_bits(x) for x in
                                   (0.5, -1.5, 3.0, 0.0, 1.0, -3.0, 6.0, 0.0)]
    text = (EXAMPLES / "private_arrays.py").read_text()
    exc = out["exception"]
    assert (exc["kind"], exc["gid"]) == ("out_of_bounds", 3)
    assert stack(exc) == [("private_arrays", line_of(text, "out[g + 12] = a[g + 1]"))]
    assert out["status"] == ["completed"] * 3 + ["faulted"]


def test_integer_types() -> None:
    """The header's numbers (u64 values as the outcome holds them: their bits as int64)."""
    out = run_example("integer_types")["buffers"]
    assert out["small"] == [4, 138, 137, 10, 249, 249, 249, 249]
    assert out["wide"] == [-6, -128, 127, 0, 250, 128, 127, 0, 1, 1, 1, 0]
    assert out["m"] == [50, 4294967224, 4294967223, 4294967096]
    u64 = [6148914691236517205, 3074457345618258602, 2, 0, 1, 1, 0, 0] + [2**64 - 1] * 4
    assert out["q"] == [v - 2**64 if v >= 2**63 else v for v in u64]


@pytest.mark.parametrize("target", ["reference", "numba-simt"])
@pytest.mark.parametrize("schedule", [{}, {"wave_order": "descending"},
                                      {"deopt_percent": 50, "deopt_seed": 7}])
def test_returning_atomics(target: str, schedule: dict) -> None:
    """What holds in every order (the header's facts); the checker accepts the order."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    case = case_from_json(example_json("returning_atomics"))
    res = check_case(case, ReferenceTarget() if target == "reference"
                     else load_target(target), schedule if target != "reference" else {})
    assert res.verdict.agree, res.verdict
    b = {k: v.tolist() for k, v in res.outcome.buffers.items()}
    assert b["cnt"][0] == 8
    assert sorted(b["lst"][:8]) == [1, 2, 4, 5, 7, 8, 10, 11] and b["lst"][8:] == [-1] * 4
    assert b["m"] == [11, 0]
    assert all(sorted(b["out"][k:k + 4]) == [0, 1, 2, 3] for k in (0, 4, 8))
    seen = b["out"][12:]
    [winner] = [g for g in range(12) if seen[g] == 0]
    assert b["cnt"][1] == winner + 100
    assert all(seen[g] == winner + 100 for g in range(12) if g != winner)
