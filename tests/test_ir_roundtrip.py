"""Round trips of the kernel language: source text and JSON (properties and examples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from difftest.ir import from_json, parse, to_json, to_source
from difftest.ir import nodes as n
from generators.ir import programs
from generators.kernels import kernels

from .conftest import EXAMPLES

SETTINGS = settings(max_examples=150, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def lines(node: object) -> list[int]:
    """Every `line` in a tree (equality ignores them, so compare them separately)."""
    out: list[int] = []

    def visit(x: object) -> None:
        if isinstance(x, tuple):
            for c in x:
                visit(c)
        elif hasattr(x, "__dataclass_fields__"):
            if hasattr(x, "line"):
                out.append(x.line)  # type: ignore[attr-defined]
            for f in x.__dataclass_fields__:  # type: ignore[attr-defined]
                visit(getattr(x, f))

    visit(node)
    return out


@SETTINGS
@given(programs())
def test_print_then_parse_is_identity(p: n.Program) -> None:
    text = to_source(p)
    assert parse(text) == p, text
    assert to_source(parse(text)) == text  # the printer's form is a fixed point


@SETTINGS
@given(programs())
def test_json_round_trip_is_identity_including_lines(p: n.Program) -> None:
    p = parse(to_source(p))  # give every node a real line
    obj = to_json(p)
    back = from_json(json.loads(json.dumps(obj)))
    assert back == p
    assert lines(back) == lines(p)


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_generated_kernels_round_trip(k) -> None:  # type: ignore[no-untyped-def]
    assert parse(to_source(k.program)) == k.program
    assert from_json(to_json(k.program)) == k.program


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_examples_round_trip(path: Path) -> None:
    p = parse(path.read_text())
    assert parse(to_source(p)) == p
    assert from_json(to_json(p)) == p
    assert lines(from_json(to_json(p))) == lines(p)


def test_printer_golden() -> None:
    src = (
        "def k(out: Buffer[i32], n: i64, f: bool):\n"
        "    x: i64 = -2147483648\n"
        "    if f and not (x < n or f):\n"
        "        out[0] = i32(x - (n - 1)) if f else -(-5)\n"
        "    elif x == 0:\n"
        "        pass\n"
        "    else:\n"
        "        for j in range(n):\n"
        "            x += wave_sum(j) * (2 + 3)\n"
    )
    assert to_source(parse(src)) == (
        "def k(out: Buffer[i32], n: i64, f: bool):\n"
        "    x: i64 = -2147483648\n"
        "    if f and not (x < n or f):\n"
        "        out[0] = i32(x - (n - 1)) if f else -(-5)\n"
        "    elif x == 0:\n"
        "        pass\n"
        "    else:\n"
        "        for j in range(0, n):\n"
        "            x = x + wave_sum(j) * (2 + 3)\n"
    )


@pytest.mark.parametrize("obj, where, message", [
    ({"format": "x", "version": 1, "functions": []}, "ir", "format must be 'difftest-ir'"),
    ({"format": "difftest-ir", "version": 9, "functions": []}, "ir", "unsupported version 9"),
    ({"format": "difftest-ir", "version": 1, "functions": [{"kind": "Nope"}]},
     "functions[0]", "unknown node kind 'Nope'"),
    ({"format": "difftest-ir", "version": 1, "functions": [
        {"kind": "Function", "name": "k", "params": [], "returns": None,
         "body": [{"kind": "Fail", "code": {"kind": "Const"}}]}]},
     "functions[0].body[0].code", "Const is missing field 'value'"),
    ({"format": "difftest-ir", "version": 1, "functions": [
        {"kind": "Function", "name": "k", "params": [{"kind": "Param", "name": "a",
                                                        "ty": "f32"}],
         "returns": None, "body": []}]},
     "functions[0].params[0].ty", "unknown type 'f32'"),
    ({"format": "difftest-ir", "version": 1, "functions": [
        {"kind": "Function", "name": "k", "params": [], "returns": None,
         "body": [{"kind": "Break", "extra": 1}]}]},
     "functions[0].body[0]", "Break has unknown field 'extra'"),
    ({"format": "difftest-ir", "version": 1, "functions": [
        {"kind": "Function", "name": "k", "params": [], "returns": None,
         "body": [{"kind": "Name", "id": "x"}]}]},
     "functions[0].body[0]", "a Name node is not allowed here"),
])
def test_malformed_json_names_the_node(obj: dict, where: str, message: str) -> None:
    from difftest.errors import KernelError

    with pytest.raises(KernelError) as info:
        from_json(obj)
    assert str(info.value).startswith(f"{where}: ") and message in str(info.value), str(info.value)


def test_json_from_an_invalid_program_runs_the_checker() -> None:
    from difftest.errors import KernelError

    p = parse("def k(out: Buffer[i32]):\n    out[0] = 1\n")
    obj = to_json(p)
    obj["functions"][0]["body"][0]["value"] = {"kind": "Name", "id": "ghost", "line": 2}
    with pytest.raises(KernelError, match="line 2: unknown name 'ghost'"):
        from_json(obj)
