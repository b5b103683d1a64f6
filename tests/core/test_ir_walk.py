"""The IR's one walk / rewrite API (difftest/core/ir/walk.py) on generated kernels: paths
lead where they say, replacing a node changes that node alone, blocks cover every
statement once, and identity rewrites share the tree."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings

from difftest.core.ir import nodes as n
from difftest.core.ir import parse
from difftest.core.ir import walk as walk_module
from difftest.core.ir.walk import (at, blocks, calls, names_read, replace_at, rewrite, sites,
                                   substitute, walk)
from generators.kernels import kernels

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _program(k: Any) -> n.Program:
    return k.program  # type: ignore[no-any-return]


@SETTINGS
@given(kernels())
def test_every_site_path_leads_to_its_node_in_walk_order(k: Any) -> None:
    program = _program(k)
    found = list(sites(program))
    assert [x for _, x in found] == list(walk(program))
    for path, node in found:
        assert at(program, path) is node
        assert replace_at(program, path, node) == program


def _apart(p: tuple[Any, ...], q: tuple[Any, ...]) -> bool:
    """Neither path leads through the other (no ancestor, no descendant)."""
    return p[:len(q)] != q and q[:len(p)] != p


@SETTINGS
@given(kernels())
def test_replacing_at_a_path_changes_that_node_alone(k: Any) -> None:
    program = _program(k)
    marker = n.Const(123456789)
    for path, node in sites(program):
        if isinstance(node, n.EXPR_NODES):
            changed = replace_at(program, path, marker)
            assert at(changed, path) is marker
            assert [id(x) for p, x in sites(changed) if _apart(p, path)] == [
                id(x) for p, x in sites(program) if _apart(p, path)]  # shared, not copied
            assert at(program, path) is node  # the original is untouched


@SETTINGS
@given(kernels())
def test_blocks_hold_every_statement_once(k: Any) -> None:
    program = _program(k)
    for f in program.functions:
        found = list(blocks(f.body))
        assert found[0] == ((), f.body)
        for path, block in found:
            assert at(f.body, path) is block
        held = [id(s) for _, block in found for s in block]
        statements = [id(x) for x in walk(f.body) if isinstance(x, n.STMT_NODES)]
        assert sorted(held) == sorted(statements) and len(set(held)) == len(held)


@SETTINGS
@given(kernels())
def test_identity_rewrites_share_the_tree(k: Any) -> None:
    program = _program(k)
    assert rewrite(program, lambda x: x) is program
    assert substitute(program, lambda x: None) is program


def test_blocks_come_depth_first_with_empty_arms() -> None:
    program = parse("""def k(out: Buffer[i32]):
    for i in range(2):
        if i == 0:
            out[0] = 1
    out[1] = 2
""")
    paths = [p for p, _ in blocks(program.functions[0].body)]
    assert paths == [(), (0, "body"), (0, "body", 0, "then"), (0, "body", 0, "orelse")]


def test_calls_are_found_inside_arguments() -> None:
    program = parse("""def h(x: i32) -> i32:
    return x + 1

def k(out: Buffer[i32]):
    out[0] = h(h(1)) + h(2)
""")
    assert [c.args[0].__class__.__name__ for c in calls(program.function("k"))] == [
        "Call", "Const", "Const"]


@SETTINGS
@given(kernels())
def test_names_read_are_the_names_below_each_statement_asked_twice(k: Any) -> None:
    program = _program(k)
    for f in program.functions:
        for _, block in blocks(f.body):
            for s in block:
                below = {x.id for x in walk(s) if isinstance(x, n.Name)}
                assert names_read(s) == below
                assert names_read(s) == below  # the cached answer
            assert names_read(block) == {x.id for x in walk(block) if isinstance(x, n.Name)}


def test_names_read_of_a_rewritten_statement_are_its_own() -> None:
    a = parse("def k(x: Buffer[i32]):\n    y = 1\n    x[0] = y\n")
    s = a.functions[0].body[1]
    renamed = rewrite(s, lambda x: n.replace(x, id="z") if isinstance(x, n.Name) else x)
    assert names_read(s) == {"y"} and names_read(renamed) == {"z"}


def _preorder(node: Any) -> list[Any]:
    """The walk's order written out recursively (the reference for the cached walk)."""
    if isinstance(node, tuple):
        return [x for item in node for x in _preorder(item)]
    if not dataclasses.is_dataclass(node):
        return []
    out = [node]
    for f in dataclasses.fields(node):
        if f.name not in ("line", "ty", "declared", "to", "returns"):
            out += _preorder(getattr(node, f.name))
    return out


@SETTINGS
@given(kernels())
def test_walk_is_preorder_asked_again_and_after_its_memory_empties(k: Any) -> None:
    program = _program(k)
    statements = [s for f in program.functions for _, block in blocks(f.body) for s in block]
    for _ in range(2):  # the second time from what the walk kept
        for node in [program, *program.functions, *statements]:
            assert [id(x) for x in walk(node)] == [id(x) for x in _preorder(node)]
    held = walk_module._FLAT_LIMIT
    walk_module._FLAT_LIMIT = 0  # every answer empties what it kept before
    try:
        for s in statements:
            assert [id(x) for x in walk(s)] == [id(x) for x in _preorder(s)]
    finally:
        walk_module._FLAT_LIMIT = held


def test_walk_of_a_rewritten_tree_is_its_own() -> None:
    a = parse("def k(x: Buffer[i32]):\n    y = 1\n    x[0] = y\n")
    before = [type(x).__name__ for x in walk(a)]
    renamed = rewrite(a, lambda x: n.replace(x, value=7) if isinstance(x, n.Const) else x)
    assert [type(x).__name__ for x in walk(renamed)] == before
    assert [x.value for x in walk(renamed) if isinstance(x, n.Const)] == [7, 7]
    assert [x.value for x in walk(a) if isinstance(x, n.Const)] == [1, 0]
