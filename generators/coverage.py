"""Which language constructs a program uses, read off the IR (not trusted from a
generator), and which fault kinds an oracle run produced.

`ALL_CONSTRUCTS` is the list every generated sample must cover (in >= 5% of kernels).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from difftest.ir import nodes as n

STMT_KINDS = ("Assign", "Store", "AtomicAdd", "If", "For", "Break", "Continue", "Return",
              "Fail", "CallStmt")
EXPR_KINDS = ("Const", "Name", "WorkId", "Unary", "Binary", "Compare", "Logic", "Select",
              "Load", "Len", "Cast", "Call", "WaveOp")
FAULT_KINDS = ("out_of_bounds", "division_by_zero", "fail")

ALL_CONSTRUCTS: tuple[str, ...] = (
    tuple(f"stmt:{k}" for k in STMT_KINDS)
    + tuple(f"expr:{k}" for k in EXPR_KINDS)
    + tuple(f"wave:{op}" for op in n.WAVE_OPS)
    + ("rmw", "atomic", "helper", "div", "else", "nested_loop", "wave_op_diverged")
)


def constructs(program: n.Program) -> frozenset[str]:
    found: set[str] = set()
    if len(program.functions) > 1:
        found.add("helper")

    def visit(node: Any, depth_if: int, depth_loop: int) -> None:
        if isinstance(node, tuple):
            for c in node:
                visit(c, depth_if, depth_loop)
            return
        if not dataclasses.is_dataclass(node):
            return
        kind = type(node).__name__
        if isinstance(node, n.STMT_NODES):
            found.add(f"stmt:{kind}")
        elif isinstance(node, n.EXPR_NODES):
            found.add(f"expr:{kind}")
        if isinstance(node, n.WaveOp):
            found.add(f"wave:{node.op}")
            if depth_if or depth_loop:
                found.add("wave_op_diverged")
        if isinstance(node, n.Binary) and node.op in ("//", "%"):
            found.add("div")
        if isinstance(node, n.AtomicAdd):
            found.add("atomic")
        if isinstance(node, n.Store) and _reads(node.value, node.buffer):
            found.add("rmw")
        if isinstance(node, n.If) and node.orelse:
            found.add("else")
        if isinstance(node, n.For) and depth_loop:
            found.add("nested_loop")
        inner_if = depth_if + isinstance(node, (n.If, n.Select, n.Logic))
        inner_loop = depth_loop + isinstance(node, n.For)
        for fld in dataclasses.fields(node):
            visit(getattr(node, fld.name), inner_if, inner_loop)

    for f in program.functions:
        visit(f.body, 0, 0)
    return frozenset(found)


def _reads(e: Any, buffer: str) -> bool:
    if isinstance(e, n.Load) and e.buffer == buffer:
        return True
    if dataclasses.is_dataclass(e):
        return any(_reads(getattr(e, f.name), buffer) for f in dataclasses.fields(e))
    if isinstance(e, tuple):
        return any(_reads(x, buffer) for x in e)
    return False


def fault_kinds(full: Any) -> frozenset[str]:
    """Fault kinds that occurred in an oracle FullRun."""
    return frozenset(f.kind for f in full.fates if f is not None)
