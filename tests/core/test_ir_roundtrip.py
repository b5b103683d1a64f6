"""Round trips of the kernel language through source text and JSON: properties over
`generators.ir.programs()`, the examples, and what the generator covers."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from difftest.core.ir import from_json, parse, to_json, to_source
from difftest.core.errors import KernelError
from difftest.core.ir import nodes as n
from difftest.core.ir.parse import parse_unchecked
from difftest.core.ir.types import BOOL, I32, I64
from generators.ir import programs
from generators.kernels import GeneratedKernel, kernels
from generators.sampling import draw

from ..conftest import EXAMPLES

SETTINGS = settings(max_examples=100, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def walk(node: object) -> Iterator[object]:
    """Every node of a tree, parents first."""
    if isinstance(node, tuple):
        for c in node:
            yield from walk(c)
    elif dataclasses.is_dataclass(node):
        yield node
        for f in dataclasses.fields(node):
            yield from walk(getattr(node, f.name))


def lines(node: object) -> list[int]:
    """Every `line` in a tree (equality ignores them, so they are compared separately)."""
    return [x.line for x in walk(node) if hasattr(x, "line")]  # type: ignore[attr-defined]


def json_round_trip(p: n.Program) -> n.Program:
    return from_json(json.loads(json.dumps(to_json(p))))


@SETTINGS
@given(programs())
def test_print_then_parse_is_identity(p: n.Program) -> None:
    text = to_source(p)
    assert parse(text) == p, text


@SETTINGS
@given(programs())
def test_printing_is_idempotent(p: n.Program) -> None:
    text = to_source(p)
    assert to_source(parse(text)) == text


@SETTINGS
@given(programs())
def test_json_round_trip_is_identity_including_lines(p: n.Program) -> None:
    assert from_json(to_json(p)) == p
    p = parse(to_source(p))  # give every node a real line
    back = json_round_trip(p)
    assert back == p
    assert lines(back) == lines(p)
    assert [e.ty for e in walk(back) if isinstance(e, n.EXPR_NODES)] == \
        [e.ty for e in walk(p) if isinstance(e, n.EXPR_NODES)]


def redundant_parens(text: str) -> Iterator[str]:
    """Each variant of `text` with one grouping pair of parentheses removed (call
    parentheses and the deliberate ones of `-(-5)` kept)."""
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch == "(":
            stack.append(i)
        elif ch == ")":
            j = stack.pop()
            before = text[j - 1] if j else " "
            if not (before.isalnum() or before in "_-"):
                yield text[:j] + text[j + 1:i] + text[i + 1:]


@SETTINGS
@given(programs())
def test_printer_parentheses_are_all_needed(p: n.Program) -> None:
    text = to_source(p)
    want = parse_unchecked(text)
    for variant in redundant_parens(text):
        try:
            same = parse_unchecked(variant) == want
        except KernelError:
            continue
        assert not same, f"needless parentheses: {text!r}"


def test_examples_dir_exists() -> None:
    assert sorted(EXAMPLES.glob("*.py")), f"no examples at {EXAMPLES}"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_examples_round_trip(path: Path) -> None:
    p = parse(path.read_text())
    text = to_source(p)
    assert parse(text) == p
    assert to_source(parse(text)) == text
    back = json_round_trip(p)
    assert back == p
    assert lines(back) == lines(p)


# ------------------------------------------------------------ generator coverage


def features(p: n.Program) -> set[str]:
    """What a program exercises, read off the checked IR."""
    out: set[str] = set()
    order = {f.name: i for i, f in enumerate(p.functions)}
    for i, fn in enumerate(p.functions):
        out |= {f"param:{q.ty}" for q in fn.params}
        for x in walk(fn.body):
            name = type(x).__name__
            out.add(name)
            if isinstance(x, (n.Unary, n.Binary, n.Compare, n.Logic, n.WaveOp)):
                out.add(f"{name}:{x.op}")
            if isinstance(x, n.WorkId):
                out.add(f"WorkId:{x.which}")
            if isinstance(x, n.Cast):
                out.add(f"Cast:{x.to}")
            if isinstance(x, n.Const) and x.value in (-(2**31), -(2**63), 2**63 - 1):
                out.add(f"Const:{x.value}")
            if isinstance(x, n.Unary) and x.op == "-" and isinstance(x.operand, n.Const):
                out.add("negated literal")
            if isinstance(x, n.Return):
                out.add("Return:value" if x.value is not None else "Return:bare")
            if isinstance(x, n.Call):
                out.add("call later function" if order[x.func] > i else "call earlier function")
            if isinstance(x, n.CallStmt) and p.function(x.call.func).returns is not None:
                out.add("CallStmt:valued")
            if isinstance(x, n.Assign) and x.declared is not None:
                out.add(f"declared:{x.declared}")
            if isinstance(x, n.Assign) and isinstance(x.value, n.Select) \
                    and x.value.ty is not None and x.value.ty.is_buffer:
                out.add("buffer local from select")
            if isinstance(x, n.For):
                out |= {f"bound:{type(b).__name__}" for b in (x.start, x.stop)}
            if isinstance(x, (n.For, n.While)):
                inner = set(map(type, walk(x.body)))
                kind = "loop" if isinstance(x, n.For) else "while"
                out |= {f"{c.__name__} in {kind}" for c in (n.Break, n.Continue) if c in inner}
            if isinstance(x, n.If):
                if len(x.orelse) == 1 and isinstance(x.orelse[0], n.If):
                    out.add("elif")
                if not x.then:
                    out.add("empty block")
    return out


#: what `programs()` leaves to the workgroup kernels' generator, and to `kernels()`'s
#: f32 statements and private arrays (whose round trip `test_generated_kernels_round_trip`
#: checks)
WORKGROUP_FEATURES = {"LocalArray", "Barrier"} | {f"WorkId:{w}" for w in n.GROUP_IDS}
F32_FEATURES = {"MathOp", "PrivateArray"}


def test_programs_cover_the_language() -> None:
    sample = draw(programs(), 500, 0)  # (the wave operations are 26: a sample of 300 missed one)
    seen = set().union(*map(features, sample))
    wanted = (
        {c.__name__ for c in (*n.EXPR_NODES, *n.STMT_NODES)}
        | {f"Binary:{op}" for op in n.ARITH_OPS} | {f"Compare:{op}" for op in n.COMPARE_OPS}
        | {f"Logic:{op}" for op in n.LOGIC_OPS} | {f"Unary:{op}" for op in n.UNARY_OPS}
        | {f"WaveOp:{op}" for op in n.WAVE_OPS} | {f"WorkId:{w}" for w in n.WORK_IDS}
        | {f"Cast:{t}" for t in (I32, I64)} | {f"param:{t}" for t in (I32, I64, BOOL)}
        | {f"Const:{v}" for v in (-(2**31), -(2**63), 2**63 - 1)}
        | {f"declared:{t}" for t in (I32, I64, BOOL)}
        | {"negated literal", "Return:value", "Return:bare", "call later function",
           "call earlier function", "CallStmt:valued", "buffer local from select",
           "bound:Const", "bound:Name", "bound:Len", "bound:Binary", "Break in loop",
           "Continue in loop", "Break in while", "Continue in while", "elif", "empty block"}
    ) - WORKGROUP_FEATURES - F32_FEATURES
    assert wanted <= seen, sorted(wanted - seen)


@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_generated_kernels_round_trip(k: GeneratedKernel) -> None:
    assert parse(to_source(k.program)) == k.program
    assert json_round_trip(k.program) == k.program
