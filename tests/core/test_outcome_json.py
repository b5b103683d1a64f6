"""Outcome files (difftest/core/outcome.py): a u64 may be written either way, as its
storage form or as its value (docs/semantics.md, "Integer types": Storage), in a buffer,
in a `fail` fault's code and among the values atomics returned; past 64 bits is one clear error."""

from __future__ import annotations

from typing import Any

import pytest

from difftest.core.errors import CaseError
from difftest.core.outcome import Outcome


def _outcome(buffer: list[int], code: int = 3) -> Any:
    return Outcome.from_json({
        "buffers": {"q": buffer}, "status": ["faulted"],
        "exception": {"gid": 0, "kind": "fail", "code": code,
                      "stack": [{"function": "k", "line": 2}]}})


def test_a_u64_is_read_as_its_value_or_as_its_storage_form() -> None:
    by_value = _outcome([2**64 - 1, 2**63, 7], code=2**64 - 1)
    by_bits = _outcome([-1, -2**63, 7], code=-1)
    assert by_value.buffers["q"].tolist() == by_bits.buffers["q"].tolist() == [-1, -2**63, 7]
    assert by_value.exception is not None and by_bits.exception is not None
    assert by_value.exception.fault.code == by_bits.exception.fault.code == -1


def test_a_u64_an_atomic_returned_is_read_either_way_too() -> None:
    # a log slot holds the value's 64 bits: 2^64 - 1 and -1 are the same report
    obj = {"buffers": {}, "status": ["completed"] * 2, "exception": None,
           "returned": [[0, 2**64 - 1, 2**63], [-1, 5]]}
    assert Outcome.from_json(obj).returned == [[0, -1, -2**63], [-1, 5]]
    with pytest.raises(CaseError, match="returned: expected a list"):
        Outcome.from_json({**obj, "returned": [[2**64]]})


@pytest.mark.parametrize(("buffer", "code", "message"), [
    ([2**64], 0, "a value past 64 bits"),
    ([-2**63 - 1], 0, "a value past 64 bits"),
    ([0], 2**64, "past 64 bits"),
    ([0], -2**63 - 1, "past 64 bits"),
])
def test_past_64_bits_is_an_error(buffer: list[int], code: int, message: str) -> None:
    with pytest.raises(CaseError, match=message):
        _outcome(buffer, code)


def test_a_value_past_2_63_is_a_u64s_or_an_f64s_alone() -> None:
    """An i64 buffer written as [2^64 - 1] is read as -1 only to be refused by the
    checker (R3): only a u64's value, or an f64's bits, may be written so."""
    from difftest.core.case import case_from_json
    from difftest.core.verdict import check_outcome
    from oracles.reference import run_full

    def checked(dtype: str, value: int) -> str:
        case = case_from_json({
            "kernel": f"def k(a: Buffer[{dtype}]):\n    pass\n", "entry": "k",
            "launch": {"n": 1, "wave": 1},
            "args": {"a": {"dtype": dtype, "data": [{"u64": 2**64 - 1, "f64": "nan"}.get(
                dtype, -1)]}}})
        outcome = Outcome.from_json({"buffers": {"a": [value]}, "status": ["completed"],
                                     "exception": None})
        return str(check_outcome(case, run_full(case), outcome))

    assert checked("u64", 2**64 - 1) == checked("u64", -1) == "agree"
    assert checked("i64", -1) == "agree"
    assert checked("i64", 2**64 - 1).startswith(
        "disagree: R3 memory: buffer a (i64) is written with a value of 2^63 or more")
    assert checked("f64", 2**64 - 1) == "agree"  # an f64's bits: NaN either way


@pytest.mark.parametrize(("value", "verdict"), [
    (-2**31, "agree"),          # -0.0, its bits as an i32
    (2**31, "agree"),           # -0.0, its bits as a u32
    (2**32 + 2**31, "disagree: R3 memory: a[0] holds 6442450944, which is no f32's bits"),
    (-2**31 - 1, "disagree: R3 memory: a[0] holds -2147483649, which is no f32's bits"),
])
def test_an_f32_is_its_32_bits_never_wrapped(value: int, verdict: str) -> None:
    from difftest.core.case import case_from_json
    from difftest.core.verdict import check_outcome
    from oracles.reference import run_full

    case = case_from_json({
        "kernel": "def k(a: Buffer[f32]):\n    a[0] = -0.0\n", "entry": "k",
        "launch": {"n": 1, "wave": 1}, "args": {"a": {"dtype": "f32", "data": [1.0]}}})
    outcome = Outcome.from_json({"buffers": {"a": [value]}, "status": ["completed"],
                                 "exception": None})
    assert str(check_outcome(case, run_full(case), outcome)).startswith(verdict)


@pytest.mark.parametrize(("change", "message"), [
    ({"faults": {" 0": {"kind": "fail", "code": 1, "stack": []}}}, "key ' 0' is not"),
    ({"faults": {"1_0": {"kind": "fail", "code": 1, "stack": []}}}, "key '1_0' is not"),
    ({"exception": {"gid": 0, "kind": "fail", "code": 1,
                    "stack": [{"function": "k", "line": True}]}}, "stack[0]: expected"),
    ({"diagnostics": [1]}, "diagnostics: expected an object"),
])
def test_small_fields_are_read_strictly(change: dict[str, Any], message: str) -> None:
    obj = {"buffers": {}, "status": ["completed"], "exception": None, **change}
    with pytest.raises(CaseError, match=message.replace("[", r"\[")):
        Outcome.from_json(obj)


def test_a_report_shows_a_u64_as_its_value() -> None:
    """A disagreement names a u64 element by its value (0..2^64-1), as case files and
    `difftest run` write it, not by its storage form (the i64 of its bits); in a plain
    location (R3), an atomic one (R4) and `show`'s table alike."""
    from difftest.core.case import case_from_json
    from difftest.core.verdict import check_outcome, memory_differences
    from oracles.reference import run_full

    case = case_from_json({
        "kernel": "def k(a: Buffer[u64], s: Buffer[u64]):\n"
                  "    a[0] = u64(0) - u64(4)\n    atomic_add(s, 0, u64(0) - u64(1))\n",
        "entry": "k", "launch": {"n": 1, "wave": 1},
        "args": {"a": {"dtype": "u64", "data": [0]}, "s": {"dtype": "u64", "data": [0]}}})
    full = run_full(case)

    def verdict(a: int, s: int) -> str:
        outcome = Outcome.from_json({"buffers": {"a": [a], "s": [s]},
                                     "status": ["completed"], "exception": None})
        return str(check_outcome(case, full, outcome))

    assert verdict(2**64 - 4, 2**64 - 1) == "agree"
    assert verdict(2**64 - 1, 2**64 - 1) == ("disagree: R3 memory: a[0] holds "
                                             "18446744073709551615, expected "
                                             "18446744073709551612 [workitems 0]")
    assert verdict(2**64 - 4, 2**63).startswith(
        "disagree: R4 atomics: s[0] holds 9223372036854775808, expected "
        "18446744073709551615")
    outcome = Outcome.from_json({"buffers": {"a": [-1], "s": [-1]},
                                 "status": ["completed"], "exception": None})
    rows, total = memory_differences(full, outcome)
    assert total == 1 and rows == [("a", 0, 2**64 - 4, 2**64 - 1, [0])]
