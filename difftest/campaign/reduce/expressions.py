"""Expressions: simplify a node into a constant or one of its operands, and propagate
copies (a variable assigned once from a simple value is replaced by that value)."""

from __future__ import annotations

import math

import dataclasses
from typing import Any
from collections.abc import Iterator

from difftest.core.case import Case
from difftest.core.ir import nodes as n
from difftest.core.ir.types import F32
from difftest.core.ir.walk import at, children, replace_at, sites, walk

from .candidates import block_paths, replace_function, substituted, with_program


def _simpler(e: Any) -> list[Any]:
    """Replacements for an expression, simplest first."""
    if isinstance(e, n.Const):
        if isinstance(e.value, bool):
            return [n.Const(False)] if e.value else []
        if isinstance(e.value, float):  # an f32: toward 0.0 (from -0.0 too) and 1.0
            if e.value == 0.0 and math.copysign(1.0, e.value) > 0:
                return []
            return [n.Const(0.0)] if e.value in (1.0, 0.0) else [n.Const(0.0), n.Const(1.0)]
        return [n.Const(0), n.Const(1)] if e.value not in (0, 1) else (
            [n.Const(0)] if e.value == 1 else [])
    out: list[Any] = []
    if e.ty is F32:
        out += [n.Const(0.0), n.Const(1.0)]
    elif e.ty is not None and e.ty.is_int:
        out += [n.Const(0), n.Const(1)]
    elif e.ty is not None and not e.ty.is_buffer:
        out += [n.Const(False), n.Const(True)]
    out += [child for child in children(e) if isinstance(child, n.EXPR_NODES)]  # operands
    return out


def simplify_expressions(case: Case) -> Iterator[Case]:
    program = case.program
    for fi, f in enumerate(program.functions):
        for path, e in sites(f.body):
            if not isinstance(e, n.EXPR_NODES):
                continue
            for repl in _simpler(e):
                body = replace_at(f.body, path, repl)
                cand = with_program(case, replace_function(
                    program, fi, dataclasses.replace(f, body=body)))
                if cand is not None:
                    yield cand


def propagate_copies(case: Case) -> Iterator[Case]:
    program = case.program
    for fi, f in enumerate(program.functions):
        assigns: dict[str, list[n.Assign]] = {}
        for x in walk(f.body):
            if isinstance(x, n.Assign):
                assigns.setdefault(x.target, []).append(x)
            elif isinstance(x, n.For):
                assigns.setdefault(x.var, []).append(x)  # type: ignore[arg-type]
        params = {p.name for p in f.params}
        for path in block_paths(program):
            if path[1] != fi:  # ("functions", fi, "body", ...)
                continue
            block = at(program, path)
            for i, s in enumerate(block):
                if not (isinstance(s, n.Assign) and len(assigns.get(s.target, ())) == 1
                        and s.target not in params and s.declared is None):
                    continue
                v = s.value
                # a copy of another local too: if that local changes before a use the
                # candidate means something else, and the check (the same failure
                # under the mutant, agreement without) judges it like any other
                simple = isinstance(v, (n.WorkId, n.Const, n.Len, n.Name))
                if not simple:
                    continue
                prog = replace_at(program, path, block[:i] + block[i + 1:])
                fn = prog.functions[fi]
                body = substituted(fn.body, s.target, v)
                cand = with_program(case, replace_function(
                    prog, fi, dataclasses.replace(fn, body=body)))
                if cand is not None:
                    yield cand
