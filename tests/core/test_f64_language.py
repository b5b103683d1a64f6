"""f64 in the language (docs/semantics.md, "64-bit floats"): its literals through the
parser, the printer and the IR's JSON; the checker's rules; case files and kernel-file
headers; the checker's NaN rule at 64 bits."""

from __future__ import annotations

import json
import math
import struct

import numpy as np
import pytest

from difftest.core.case import case_from_json
from difftest.core.errors import CaseError, KernelError
from difftest.core.ir import nodes as n
from difftest.core.ir.parse import parse
from difftest.core.ir.printer import to_source
from difftest.core.ir.serialize import from_json, to_json
from difftest.core.ir.types import F64
from difftest.core.ir.walk import walk
from difftest.core.outcome import Outcome
from difftest.core.verdict import canonical_floats, float_buffers

SOURCE = """def k(out: Buffer[f64], a: Buffer[f64], s: f64):
    x = a[0] * f64(0.1) + f64(-1e+300)
    y: f64 = fma(x, s, f64(-0.0))
    out[0] = min(x, y) + f64(f32(x)) + f64(gid())
"""


def _consts(src: str) -> list[n.Const]:
    return [c for c in walk(parse(src).functions[0].body) if isinstance(c, n.Const)]


def test_an_f64_literal_is_the_double_nearest_its_decimal() -> None:
    values = {c.value: c.ty for c in _consts(SOURCE) if isinstance(c.value, float)}
    assert values == {0.1: F64, -1e300: F64, -0.0: F64}
    assert 0.1 != struct.unpack("<f", struct.pack("<f", 0.1))[0]  # not f32's 0.1


def test_f64_prints_parses_and_round_trips_through_json() -> None:
    program = parse(SOURCE)
    assert to_source(program) == SOURCE
    doc = json.loads(json.dumps(to_json(program)))
    assert doc["version"] == 6
    assert to_source(from_json(doc)) == SOURCE
    spelled = json.dumps(doc)  # an f64 literal is a Cast to f64 of a float Const
    assert '"kind": "Cast", "to": "f64", "operand": {"kind": "Const", "value": 0.1' in spelled


@pytest.mark.parametrize("body, message", [
    ("out[0] = a[0] + 1.5", "'+' mixes f64 and f32: convert with f64(...) or f32(...)"),
    ("out[0] = a[0] * 2", "'*' mixes f64 and i32: convert with f64(...) or i32(...)"),
    ("out[0] = f64(1e999)", "float literal is out of the f64 range"),
    ("out[0] = wave_sum(a[0])", "wave_sum() does not take f64"),
    ("atomic_add(out, 0, a[0])", "a float sum's rounding depends"),
    ("out[0] = fma(a[0], a[0], 1.0)", "argument of fma() must be f64, got f32"),
    ("i: i32 = a[0]", "convert it with i32(...)"),
    ("out[0] = a[0] // a[0]", "'//' does not take f64 operands"),
])
def test_f64_mistakes_are_named(body: str, message: str) -> None:
    src = f"def k(out: Buffer[f64], a: Buffer[f64]):\n    {body}\n"
    with pytest.raises(KernelError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("*", r"\*").replace("+", r"\+")):
        parse(src)


CASE = {"kernel": "def k(out: Buffer[f64], s: f64):\n    out[0] = s\n", "entry": "k",
        "launch": {"n": 1, "wave": 1},
        "args": {"out": {"dtype": "f64", "data": [0.1, "nan", "-inf", -0.0, 5e-324]},
                 "s": 1e300}}


def test_a_case_file_holds_f64_as_bits_and_writes_it_back_as_it_read() -> None:
    case = case_from_json(CASE)
    out = case.args["out"]
    assert out.dtype == np.int64
    assert out[0] == struct.unpack("<q", struct.pack("<d", 0.1))[0]
    assert case.args["s"] == 1e300
    back = case.to_json()["args"]
    assert back["out"]["data"][0] == 0.1 and back["out"]["data"][1:3] == ["nan", "-inf"]
    assert math.copysign(1.0, back["out"]["data"][3]) < 0
    assert back["out"]["data"][4] == 5e-324 and back["s"] == 1e300


def test_a_bad_f64_in_a_case_file_is_named() -> None:
    bad = json.loads(json.dumps(CASE))
    bad["args"]["out"]["data"][1] = "NaN!"
    with pytest.raises(CaseError, match=r"args.out.data\[1\]: expected an f64"):
        case_from_json(bad)
    bad = json.loads(json.dumps(CASE))
    bad["args"]["s"] = 10 ** 400
    with pytest.raises(CaseError, match="past the f64 range"):
        case_from_json(bad)


def test_any_f64_nan_equals_any_other() -> None:
    case = case_from_json(CASE)
    floats = float_buffers(case)
    assert floats == {"out"} and floats.wide == {"out"}
    payload = np.array([0x7FF0000000000001, -1, 0x7FF0000000000000], dtype=np.int64)
    outcome = canonical_floats(Outcome(status=["completed"], exception=None,
                                       buffers={"out": payload}),
                               floats)
    assert outcome.buffers["out"].tolist() == [0x7FF8000000000000, 0x7FF8000000000000,
                                               0x7FF0000000000000]  # inf stays
