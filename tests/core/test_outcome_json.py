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
