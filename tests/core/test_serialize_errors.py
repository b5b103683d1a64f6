"""Malformed JSON IR: each mistake gets one `KernelError` naming the node path and what
was expected (golden messages), and the checker still runs on well-formed JSON."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from difftest.core.errors import KernelError
from difftest.core.ir import FORMAT_VERSION, from_json, parse, to_json

SOURCE = """\
def k(out: Buffer[i32], m: i32):
    x = m + 1 * m
    out[0] = x
    h()


def h():
    return
"""
GOOD = to_json(parse(SOURCE))
Key = str | int
DELETE = object()


def mutated(path: tuple[Key, ...], value: Any) -> Any:
    """GOOD with the value at `path` replaced (or deleted, for `DELETE`)."""
    obj = copy.deepcopy(GOOD)
    if not path:
        return value
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    if value is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return obj


F0 = ("functions", 0)
ASSIGN = (*F0, "body", 0)
SUM = (*ASSIGN, "value")


def test_good_json_reads_back() -> None:
    assert GOOD["format"] == "difftest-ir" and GOOD["version"] == FORMAT_VERSION == 6
    assert from_json(copy.deepcopy(GOOD)) == parse(SOURCE)


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_document_still_reads(version: int) -> None:
    """Versions 2 and 3 only added to the language: an older file is read as it always
    was."""
    old = copy.deepcopy(GOOD)
    old["version"] = version
    assert from_json(old) == parse(SOURCE)


@pytest.mark.parametrize("path, value, error", [
    # the envelope
    ((), [], "ir: expected a JSON object, got a list"),
    (("format",), "difftest-case", "format: expected 'difftest-ir', got 'difftest-case'"),
    (("format",), DELETE, "format: expected 'difftest-ir', got None"),
    (("version",), 7, "version: unsupported version 7 (this reader knows versions 1 to 6)"),
    (("version",), 0, "version: unsupported version 0 (this reader knows versions 1 to 6)"),
    (("version",), True,
     "version: unsupported version True (this reader knows versions 1 to 6)"),
    (("version",), "1",
     "version: unsupported version '1' (this reader knows versions 1 to 6)"),
    (("extra",), 1, "ir: unknown field 'extra'"),
    (("functions",), [], "functions: expected a non-empty list of functions"),
    (("functions",), {}, "functions: expected a non-empty list of functions"),
    # unknown or misplaced kinds
    ((*SUM, "right", "kind"), "Pow", "functions[0].body[0].value.right: unknown node kind 'Pow'"),
    ((*SUM, "left", "kind"), DELETE, "functions[0].body[0].value.left: unknown node kind None"),
    ((*SUM, "left", "kind"), ["Name"],
     "functions[0].body[0].value.left: unknown node kind ['Name']"),
    ((*F0, "kind"), "Program", "functions[0]: unknown node kind 'Program'"),
    ((*ASSIGN, "kind"), "Name", "functions[0].body[0]: a Name node is not allowed here"),
    ((*SUM, "left"), {"kind": "Break", "line": 2},
     "functions[0].body[0].value.left: a Break node is not allowed here"),
    ((*F0, "body", 2, "call", "kind"), "WaveOp",
     "functions[0].body[2].call: a WaveOp node is not allowed here"),
    ((*F0, "params", 0, "kind"), "Function",
     "functions[0].params[0]: a Function node is not allowed here"),
    # missing and extra fields
    ((*SUM, "right", "right", "id"), DELETE,
     "functions[0].body[0].value.right.right: Name is missing field 'id'"),
    ((*ASSIGN, "declared"), DELETE, "functions[0].body[0]: Assign is missing field 'declared'"),
    ((*ASSIGN, "line"), DELETE, "functions[0].body[0]: Assign is missing field 'line'"),
    ((*ASSIGN, "ty"), "i32", "functions[0].body[0]: Assign has unknown field 'ty'"),
    ((*SUM, "ty"), "i32", "functions[0].body[0].value: Binary has unknown field 'ty'"),
    # non-node values where a node belongs
    ((*F0, "body", 1), "out[0] = x",
     "functions[0].body[1]: expected a node object, got a string"),
    ((*F0, "body", 1, "index"), 0,
     "functions[0].body[1].index: expected a node object, got an integer"),
    ((*F0, "body", 1, "value"), None,
     "functions[0].body[1].value: expected a node object, got null"),
    ((*F0, "body"), {"kind": "Store"}, "functions[0].body: expected a list, got an object"),
    (("functions", 1), [], "functions[1]: expected a node object, got a list"),
    # wrong field types and values
    ((*F0, "params", 1, "ty"), "f16",
     "functions[0].params[1].ty: unknown type 'f16' (expected one of i8, i16, i32, i64, u8, "
     "u16, u32, u64, f32, f64, bool, or Buffer[T] of a number type T)"),
    ((*ASSIGN, "declared"), "Buffer[bool]",
     "functions[0].body[0].declared: unknown type 'Buffer[bool]' (expected one of i8, i16, "
     "i32, i64, u8, u16, u32, u64, f32, f64, bool, or Buffer[T] of a number type T)"),
    ((*F0, "returns"), "int", "functions[0].returns: unknown type 'int' (expected one of "
     "i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, bool, or Buffer[T] of a number type T)"),
    ((*SUM, "right", "left", "value"), "1",
     "functions[0].body[0].value.right.left.value: a constant must be an integer, a number "
     "or a boolean, got '1'"),
    ((*SUM, "op"), "**", "functions[0].body[0].value.op: unknown op '**' (expected one of "
     "+, -, *, //, %, &, |, ^, <<, >>)"),
    ((*ASSIGN, "target"), 7, "functions[0].body[0].target: expected a name (a string), got "
     "an integer"),
    ((*ASSIGN, "target"), "x y", "functions[0].body[0].target: 'x y' is not a valid name"),
    ((*F0, "name"), "lambda", "functions[0].name: 'lambda' is not a valid name"),
    ((*ASSIGN, "line"), -1, "functions[0].body[0].line: line must be a non-negative integer, "
     "got -1"),
    ((*ASSIGN, "line"), True, "functions[0].body[0].line: line must be a non-negative "
     "integer, got True"),
])
def test_malformed_json_names_the_node(path: tuple[Key, ...], value: Any, error: str
                                       ) -> None:
    with pytest.raises(KernelError) as info:
        from_json(mutated(path, value))
    assert str(info.value) == error
    assert info.value.where == error.split(": ", 1)[0]


def test_checker_errors_carry_the_line() -> None:
    """Well-formed JSON of an ill-typed program: the checker's error, with the node's line."""
    obj = mutated((*F0, "body", 1, "value"), {"kind": "Name", "id": "ghost", "line": 3})
    with pytest.raises(KernelError, match=r"^line 3: unknown name 'ghost'$"):
        from_json(obj)
    obj = mutated((*F0, "body", 2, "call", "func"), "nowhere")
    with pytest.raises(KernelError, match=r"^line 4: unknown function 'nowhere'$"):
        from_json(obj)
    obj = mutated((*SUM, "right", "left"),
                  {"kind": "Cast", "to": "bool", "operand": {"kind": "Const", "value": 1,
                                                            "line": 2}, "line": 2})
    with pytest.raises(KernelError, match=r"^line 2: cannot cast to bool$"):
        from_json(obj)


def test_deep_nesting_is_a_kernel_error() -> None:
    deep: dict[str, Any] = {"kind": "Name", "id": "m", "line": 2}
    for _ in range(5000):
        deep = {"kind": "Unary", "op": "-", "operand": deep, "line": 2}
    with pytest.raises(KernelError, match=r"^functions: the IR is nested too deeply$"):
        from_json(mutated((*ASSIGN, "value"), deep))


def test_from_json_does_not_modify_its_input() -> None:
    obj = copy.deepcopy(GOOD)
    from_json(obj)
    assert obj == GOOD
