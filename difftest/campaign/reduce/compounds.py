"""Unwrapping compound statements: an `if` into one of its arms, a loop into its body."""

from __future__ import annotations

from collections.abc import Iterator

from difftest.core.case import Case
from difftest.core.ir import nodes as n
from difftest.core.ir.walk import at, replace_at

from .candidates import block_paths, with_program


def unwrap_compounds(case: Case) -> Iterator[Case]:
    """An `if` into its then- or else-block; a loop into its body (the loop variable
    assigned its start first; skipped when the body breaks or continues this loop)."""
    program = case.program
    for path in block_paths(program):
        block = at(program, path)
        for i, s in enumerate(block):
            options: list[tuple[n.Stmt, ...]] = []
            if isinstance(s, n.If):
                options = [s.then, s.orelse]
            elif isinstance(s, n.For) and not _jumps(s.body):
                options = [(n.Assign(s.var, s.start),) + s.body]
            elif isinstance(s, n.While) and not _jumps(s.body):
                options = [s.body]
            elif (isinstance(s, n.While) and s.body and isinstance(s.body[-1], n.Break)
                  and not _jumps(s.body[:-1])):
                options = [s.body[:-1]]  # one trip, then the break
            for inner in options:
                cand = with_program(case, replace_at(program, path,
                                                      block[:i] + inner + block[i + 1:]))
                if cand is not None:
                    yield cand


def _jumps(stmts: tuple[n.Stmt, ...]) -> bool:
    """A break or continue of the loop owning `stmts` (not of a loop nested in it)."""
    for s in stmts:
        if isinstance(s, (n.Break, n.Continue)):
            return True
        if isinstance(s, n.If) and (_jumps(s.then) or _jumps(s.orelse)):
            return True
    return False
