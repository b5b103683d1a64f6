"""Test-case reduction at the level of the kernel language (as C-Reduce and spirv-reduce
do for theirs), after Hypothesis's generic shrinking.

`reduce_case(case, still_fails)` greedily applies passes, each yielding smaller candidate
cases, and keeps a candidate whenever `still_fails(candidate)` holds (the caller decides
what "fails" means: the same verdict rule, and for a mutant also agreement without it):

- delete statements (halves, then quarters, ... then one at a time, in every block);
- unwrap compound statements (an `if` into one of its arms, a loop into its body);
- drop helpers nobody calls, inline calls of straight-line helpers;
- propagate copies (a variable assigned once from an id, a constant, a parameter, another
  variable or a length is replaced by that value, and its assignment deleted);
- simplify expressions (a node into `0`, `1`, `False`, `True` or one of its operands);
- drop unused kernel parameters; lower the launch (n, then the wave size); simplify inputs
  (truncate buffers, zero them, scalars to 0 or 1); drop schedule keys and options.

Bugs of register allocation are fragile: deleting an unrelated statement changes the
allocation and the failure with it. So once the passes reach a fixed point, a polish pass
retries each statement's deletion under a few other option settings the target proposes
(`variants`, e.g. numba-simt's register budget and allocation order), keeping the first
that still fails.

Every candidate is printed and parsed again, so it is a valid, checked kernel whose text
and line numbers agree (exception stacks name those lines); invalid candidates (a name
used after its assignment was deleted, a type that no longer fits) are skipped without a
check. Reduction stops at a fixed point or at the time limit; the result is never larger
than the input by `size()`.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from typing import Any, TypeVar
from collections.abc import Callable, Iterator

import numpy as np

from difftest.core.case import Case
from difftest.core.errors import CaseError, KernelError
from difftest.core.host import parse_host
from difftest.core.ir import nodes as n
from difftest.core.ir import parse, to_source
from difftest.core.ir.walk import (Path, at, blocks, replace_at, rewrite, sites,
                                   substitute, walk)

_N = TypeVar("_N")

Predicate = Callable[[Case], bool]


@dataclass
class ReduceStats:
    checks: int = 0
    kept: int = 0
    seconds: float = 0.0
    before: tuple[int, int] = (0, 0)  # (statements, n)
    after: tuple[int, int] = (0, 0)
    finished: bool = False  # a fixed point was reached (not the time limit)


def statements(program: n.Program) -> int:
    """Statements in all functions, nested ones included."""
    return sum(len(block) for f in program.functions for _, block in blocks(f.body))


def size(case: Case) -> tuple[int, int]:
    return statements(case.program), case.n


def measure(case: Case) -> tuple[int, int, int]:
    """What a reduction must make smaller: statements, then n, then everything else by
    weight (the text, the schedule and options, the inputs' lengths and nonzero values)."""
    rest = len(case.kernel) + len(json.dumps(case.schedule, sort_keys=True)) + len(
        json.dumps(case.options, sort_keys=True))
    for v in case.args.values():
        if isinstance(v, np.ndarray):
            rest += len(v) + int(np.count_nonzero(v))
        else:
            rest += int(v != 0)
    if case.host is not None:  # host steps weigh like statements of the kernel's text
        rest += 1000 * len(case.host) + len(json.dumps(case.host))
    return statements(case.program), case.n, rest


def reduce_case(case: Case, still_fails: Predicate, seconds: float = 30.0,
                variants: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
                stop: Callable[[], bool] | None = None) -> tuple[Case, ReduceStats]:
    """The smallest case the passes reach within `seconds` for which `still_fails` holds
    (the input itself when nothing smaller does). `variants(options)` proposes other
    option settings for the polish pass. `stop()` true ends it early (a signal), with
    the best case so far."""
    stats = ReduceStats(before=size(case))
    start = time.monotonic()
    deadline = _Deadline(start + seconds, stop)
    best = case
    passes: list[Callable[[Case], Iterator[Case]]] = [
        _drop_unused_helpers, _unwrap_compounds, _inline_helpers,
        _shrink_launch, _propagate_copies, _simplify_expressions, _drop_unused_params,
        _simplify_inputs, _simplify_schedule_and_options, _simplify_host,
    ]

    def test(candidate: Case) -> bool:
        if measure(candidate) >= measure(best):
            return False  # not a reduction (inlining that adds more than it removes)
        stats.checks += 1
        if _holds(still_fails, candidate):
            stats.kept += 1
            return True
        return False

    def apply(make: Callable[[Case], Iterator[Case]]) -> bool:
        """Runs one pass to its fixed point; True when it kept a candidate."""
        nonlocal best
        kept, restart = False, True
        while restart and not deadline.over():
            restart = False
            for candidate in make(best):
                if deadline.over():
                    break
                if test(candidate):
                    best = candidate
                    kept = restart = True
                    break
        return kept

    apply(_shrink_launch)  # first: a smaller launch makes every later check cheaper
    progress = True
    polished = False
    while progress and not deadline.over():
        progress = False
        smaller = _delete_statements(best, test, deadline)
        if smaller is not best:
            best, progress = smaller, True
        for make in passes:
            progress = apply(make) or progress
        if not progress and variants is not None and not polished:
            polished = True
            smaller = _delete_with_variants(best, test, deadline, variants)
            if smaller is not best:
                best, progress, polished = smaller, True, False
    stats.finished = not progress
    stats.seconds = time.monotonic() - start
    stats.after = size(best)
    return best, stats


class _Deadline:
    """The reduction's end: a time, or a `stop()` that says so first."""

    def __init__(self, at: float, stop: Callable[[], bool] | None) -> None:
        self.at = at
        self.stop = stop

    def over(self) -> bool:
        return time.monotonic() >= self.at or (self.stop is not None and self.stop())


def _holds(still_fails: Predicate, candidate: Case) -> bool:
    """A candidate the predicate cannot even judge (it raises) is not kept: a reduction
    must never end a campaign."""
    try:
        return bool(still_fails(candidate))
    except Exception:  # noqa: BLE001 - e.g. a candidate nesting deeper than a pass allows
        return False


# ---------------------------------------------------------------- building candidates


def _with_program(case: Case, program: n.Program, **changes: Any) -> Case | None:
    """A case running `program` (printed and parsed again), or None when it is invalid
    (or unchanged)."""
    try:
        text = to_source(program)
        if text == case.kernel and not changes:
            return None
        checked = parse(text)
    except (KernelError, RecursionError, AssertionError):
        return None
    if case.entry not in checked.names():
        return None
    if case.host is not None:
        try:
            parse_host(case.host, checked.function(case.entry), "candidate")
        except CaseError:
            return None  # the program binds a parameter the candidate no longer has
    return dataclasses.replace(case, kernel=text, program=checked, **changes)


def _replace_function(program: n.Program, index: int, fn: n.Function) -> n.Program:
    fns = list(program.functions)
    fns[index] = fn
    return n.Program(tuple(fns))


def _block_paths(program: n.Program) -> list[Path]:
    """Every statement block of every function (its path from the program), outermost
    first; a block's path survives deletions inside it."""
    return [("functions", fi, "body") + path for fi, f in enumerate(program.functions)
            for path, _ in blocks(f.body)]


# ------------------------------------------------------------------------- passes


def _delete_statements(case: Case, test: Predicate, deadline: _Deadline) -> Case:
    """ddmin over each block, outermost first: remove chunks of halving size, carrying on
    from where a removal worked (a block's own path survives deletions inside it; blocks
    nested in it come later in the order and are looked up again)."""
    k = 0
    while not deadline.over():
        paths = _block_paths(case.program)
        if k >= len(paths):
            return case
        path = paths[k]
        chunk = max(1, len(at(case.program, path)) // 2)
        while chunk >= 1 and not deadline.over():
            start = 0
            while start < len(at(case.program, path)) and not deadline.over():
                block = at(case.program, path)
                cut = block[:start] + block[start + chunk:]
                cand = _with_program(case, replace_at(case.program, path, cut))
                if cand is not None and test(cand):
                    case = cand  # the next chunk now starts here
                else:
                    start += chunk
            chunk //= 2
        k += 1
    return case


def _delete_with_variants(case: Case, test: Predicate, deadline: _Deadline,
                          variants: Callable[[dict[str, Any]], list[dict[str, Any]]]
                          ) -> Case:
    """Single-statement deletions that only fail under other options: each deletion is
    tried with every proposed variant of the options (innermost blocks first)."""
    for path in reversed(_block_paths(case.program)):
        i = 0
        while not deadline.over():
            try:
                block = at(case.program, path)
            except (IndexError, AttributeError):
                break  # the path went away with an earlier deletion
            if i >= len(block):
                break
            cand = _with_program(case, replace_at(case.program, path, block[:i] + block[i + 1:]))
            kept = None
            if cand is not None:
                for options in variants(cand.options):
                    if deadline.over():
                        break
                    alt = dataclasses.replace(cand, options=options)
                    if test(alt):
                        kept = alt
                        break
            if kept is not None:
                case = kept
            else:
                i += 1
    return case


def _unwrap_compounds(case: Case) -> Iterator[Case]:
    """An `if` into its then- or else-block; a loop into its body (the loop variable
    assigned its start first; skipped when the body breaks or continues this loop)."""
    program = case.program
    for path in _block_paths(program):
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
                cand = _with_program(case, replace_at(program, path,
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


def _called(program: n.Program) -> set[str]:
    return {x.func for x in walk(program.functions) if isinstance(x, n.Call)}


def _drop_unused_helpers(case: Case) -> Iterator[Case]:
    program = case.program
    used = _called(program) | {case.entry}
    kept = tuple(f for f in program.functions if f.name in used)
    if len(kept) < len(program.functions):
        cand = _with_program(case, n.Program(kept))
        if cand is not None:
            yield cand


def _inline_helpers(case: Case) -> Iterator[Case]:
    """Calls of straight-line helpers (no return but a final one, no loop control)
    replaced by their bodies: `h(a)` as a statement, or `x = h(a)` as an assignment."""
    program = case.program
    funcs = {f.name: f for f in program.functions}
    for path in _block_paths(program):
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
                cand = _with_program(case, n.Program(
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
            body = _substituted(body, local, a)
            result = None if result is None else _substituted(result, local, a)
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


def _substituted(node: _N, name: str, value: n.Expr) -> _N:
    """`node` with every read of variable `name` replaced by `value`."""
    return substitute(node, lambda x: value if isinstance(x, n.Name) and x.id == name
                      else None)


def _simpler(e: Any) -> list[Any]:
    """Replacements for an expression, simplest first."""
    if isinstance(e, n.Const):
        if isinstance(e.value, bool):
            return [n.Const(False)] if e.value else []
        return [n.Const(0), n.Const(1)] if e.value not in (0, 1) else (
            [n.Const(0)] if e.value == 1 else [])
    out: list[Any] = []
    if e.ty is not None and e.ty.is_int:
        out += [n.Const(0), n.Const(1)]
    elif e.ty is not None and not e.ty.is_buffer:
        out += [n.Const(False), n.Const(True)]
    for fld in ("left", "right", "operand", "then", "orelse", "index"):
        child = getattr(e, fld, None)
        if isinstance(child, n.EXPR_NODES):
            out.append(child)
    if isinstance(e, (n.WaveOp, n.Call)):
        out += list(e.args)
    return out


def _simplify_expressions(case: Case) -> Iterator[Case]:
    program = case.program
    for fi, f in enumerate(program.functions):
        for path, e in sites(f.body):
            if not isinstance(e, n.EXPR_NODES):
                continue
            for repl in _simpler(e):
                body = replace_at(f.body, path, repl)
                cand = _with_program(case, _replace_function(
                    program, fi, dataclasses.replace(f, body=body)))
                if cand is not None:
                    yield cand


def _propagate_copies(case: Case) -> Iterator[Case]:
    program = case.program
    for fi, f in enumerate(program.functions):
        assigns: dict[str, list[n.Assign]] = {}
        for x in walk(f.body):
            if isinstance(x, n.Assign):
                assigns.setdefault(x.target, []).append(x)
            elif isinstance(x, n.For):
                assigns.setdefault(x.var, []).append(x)  # type: ignore[arg-type]
        params = {p.name for p in f.params}
        for path in _block_paths(program):
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
                body = _substituted(fn.body, s.target, v)
                cand = _with_program(case, _replace_function(
                    prog, fi, dataclasses.replace(fn, body=body)))
                if cand is not None:
                    yield cand


def _drop_unused_params(case: Case) -> Iterator[Case]:
    program = case.program
    fn = program.function(case.entry)
    nodes = list(walk(program.functions))
    used = {x.id for x in nodes if isinstance(x, n.Name)} | {
        x.buffer for x in nodes if isinstance(x, (n.Load, n.Store, n.AtomicAdd, n.Len))}
    for p in fn.params:
        if p.name in used:
            continue
        params = tuple(q for q in fn.params if q is not p)
        index = program.functions.index(fn)
        prog = _replace_function(program, index, dataclasses.replace(fn, params=params))
        args = {k: v for k, v in case.args.items() if k != p.name}
        cand = _with_program(case, prog, args=args)
        if cand is not None:
            yield cand


def _shrink_launch(case: Case) -> Iterator[Case]:
    for n_items in sorted({1, 2, case.wave, case.n // 4, case.n // 2, case.n - 1}):
        if 1 <= n_items < case.n:
            yield dataclasses.replace(case, n=n_items)
    w = 1
    while w < case.wave:
        yield dataclasses.replace(case, wave=w)
        w *= 2


def _simplify_inputs(case: Case) -> Iterator[Case]:
    for name, value in case.args.items():
        if isinstance(value, np.ndarray):
            for length in sorted({1, case.n, len(value) // 2}):
                if 1 <= length < len(value):
                    yield dataclasses.replace(case, args={**case.args, name: value[:length].copy()})
            if value.any():
                yield dataclasses.replace(case, args={**case.args, name: np.zeros_like(value)})
                half = value.copy()
                half[len(half) // 2:] = 0
                if half.any() and not np.array_equal(half, value):
                    yield dataclasses.replace(case, args={**case.args, name: half})
        elif isinstance(value, bool):
            if value:
                yield dataclasses.replace(case, args={**case.args, name: False})
        elif value not in (0, 1):
            for simple in (0, 1):
                yield dataclasses.replace(case, args={**case.args, name: simple})


def _simplify_schedule_and_options(case: Case) -> Iterator[Case]:
    if case.schedule:
        yield dataclasses.replace(case, schedule={})
        for key in sorted(case.schedule):
            yield dataclasses.replace(
                case, schedule={k: v for k, v in case.schedule.items() if k != key})
    for key in sorted(case.options):
        if key != "mutants":
            yield dataclasses.replace(
                case, options={k: v for k, v in case.options.items() if k != key})


def _simplify_host(case: Case) -> Iterator[Case]:
    """Host programs: no program at all (the plain launch), drop a step or a mapping or
    buffer with its uses, shorten a step's data -- each candidate still a valid program."""
    for cand in _host_candidates(case):
        if cand.host is not None:
            try:
                parse_host(cand.host, cand.function, "candidate")
            except CaseError:
                continue
        yield cand


def _host_candidates(case: Case) -> Iterator[Case]:
    """Host programs: no program at all (the plain launch), drop a step, then shorten a
    step's data."""
    if case.host is None:
        return
    steps = case.host
    yield dataclasses.replace(case, host=None)  # just the launch
    for i in range(len(steps)):
        yield dataclasses.replace(case, host=steps[:i] + steps[i + 1:])
    for step in steps:  # a mapping with every step through it; a buffer with its uses
        if step["op"] == "map":
            yield dataclasses.replace(case, host=[
                s for s in steps if s is not step and s.get("mapping") != step["as"]])
        if step["op"] == "create":
            name = step["buffer"]
            kept = []
            for s in steps:
                if s is step or s.get("buffer") == name:
                    continue
                if s["op"] == "launch" and name in s.get("bind", {}).values():
                    bind = {p: b for p, b in s["bind"].items() if b != name}
                    s = {"op": "launch", **({"bind": bind} if bind else {})}
                kept.append(s)
            yield dataclasses.replace(case, host=kept)
    for i, step in enumerate(steps):
        data = step.get("data")
        if data:
            for shorter in (data[:len(data) // 2], data[:-1], [0] * len(data)):
                if shorter != data:
                    yield dataclasses.replace(
                        case, host=steps[:i] + [{**step, "data": shorter}] + steps[i + 1:])
