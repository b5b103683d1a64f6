"""Helper functions: drop the ones nobody calls, inline calls of straight-line ones."""

from __future__ import annotations

from typing import Any, TypeVar
from collections.abc import Iterator

from difftest.core.case import Case
from difftest.core.ir import nodes as n
from difftest.core.ir.walk import at, replace_at, rewrite, walk

from .candidates import block_paths, substituted, with_program

_N = TypeVar("_N")


def _called(program: n.Program) -> set[str]:
    return {x.func for x in walk(program.functions) if isinstance(x, n.Call)}


def drop_unused_helpers(case: Case) -> Iterator[Case]:
    program = case.program
    used = _called(program) | {case.entry}
    kept = tuple(f for f in program.functions if f.name in used)
    if len(kept) < len(program.functions):
        cand = with_program(case, n.Program(kept))
        if cand is not None:
            yield cand


def inline_helpers(case: Case) -> Iterator[Case]:
    """Calls of straight-line helpers (no return but a final one, no loop control)
    replaced by their bodies: `h(a)` as a statement, or `x = h(a)` as an assignment."""
    program = case.program
    funcs = {f.name: f for f in program.functions}
    for path in block_paths(program):
        block = at(program, path)
        for i, s in enumerate(block):
            call, target = None, None
            if isinstance(s, n.CallStmt):
                call = s.call
            elif isinstance(s, n.Assign) and isinstance(s.value, n.Call):
                call, target = s.value, s.target
            if call is None or call.func not in funcs:
                continue
            body = _inlined(funcs[call.func], call, target)
            if body is not None:
                inlined = replace_at(program, path, block[:i] + body + block[i + 1:])
                used = _called(inlined) | {case.entry}  # the helper may be gone now
                cand = with_program(case, n.Program(
                    tuple(f for f in inlined.functions if f.name in used)))
                if cand is not None:
                    yield cand


def _inlined(fn: n.Function, call: n.Call, target: str | None) -> tuple[n.Stmt, ...] | None:
    body = fn.body
    result: n.Expr | None = None
    if fn.returns is not None:
        last = body[-1] if body else None
        if not isinstance(last, n.Return) or last.value is None:
            return None
        body, result = body[:-1], last.value
    if any(isinstance(x, n.Return) for x in walk(body)):
        return None
    prefix = f"{fn.name}_"
    out: list[n.Stmt] = []
    body = _renamed(body, prefix)
    result = None if result is None else _renamed(result, prefix)
    assigned = {x.target for x in walk(body) if isinstance(x, n.Assign)}
    for p, a in zip(fn.params, call.args):
        local = prefix + p.name
        pure = isinstance(a, (n.Const, n.WorkId, n.Name, n.Len))
        if pure and local not in assigned:  # substitute it: no assignment needed
            body = substituted(body, local, a)
            result = None if result is None else substituted(result, local, a)
        else:
            out.append(n.Assign(local, a))
    out += list(body)
    if target is not None and result is not None:
        out.append(n.Assign(target, result))
    return tuple(out)


_NAME_FIELDS = ("id", "target", "var", "buffer")  # the fields that name a local or buffer


def _renamed(node: _N, prefix: str) -> _N:
    """`node` with every local and buffer name it uses prefixed (an inlined helper's)."""
    def rename(x: Any) -> Any:
        changes = {f: prefix + getattr(x, f) for f in _NAME_FIELDS
                   if isinstance(getattr(x, f, None), str)}
        return n.replace(x, **changes) if changes else x

    return rewrite(node, rename)
