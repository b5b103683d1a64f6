"""What the reducer's passes share: a candidate is a case whose program is printed and
parsed again (`with_program`: None when invalid or unchanged), its size (`measure`:
what a reduction must make smaller), the program's statement blocks by path, and the
reduction's deadline."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, TypeVar
from collections.abc import Callable

import numpy as np

from difftest.core.case import Case
from difftest.core.errors import CaseError, KernelError
from difftest.core.host import parse_host
from difftest.core.ir import nodes as n
from difftest.core.ir import parse, to_source
from difftest.core.ir.walk import Path, blocks, substitute


_N = TypeVar("_N")


Predicate = Callable[[Case], bool]


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


class Deadline:
    """The reduction's end: a number of candidate checks (`checks`: the same on every
    machine, so a reduction is reproducible), a time the user asked for (`at`, None for
    none; `timed_out` says it cut), or a `stop()` that says so first."""

    def __init__(self, at: float | None, stop: Callable[[], bool] | None,
                 checks: int | None = None) -> None:
        self.at = at
        self.stop = stop
        self.checks = checks
        self.used = 0  # candidate checks so far
        self.timed_out = False

    def over(self) -> bool:
        if self.checks is not None and self.used >= self.checks:
            return True
        if self.at is not None and time.monotonic() >= self.at:
            self.timed_out = True
            return True
        return self.stop is not None and self.stop()


def with_program(case: Case, program: n.Program, **changes: Any) -> Case | None:
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


def replace_function(program: n.Program, index: int, fn: n.Function) -> n.Program:
    fns = list(program.functions)
    fns[index] = fn
    return n.Program(tuple(fns))


def block_paths(program: n.Program) -> list[Path]:
    """Every statement block of every function (its path from the program), outermost
    first; a block's path survives deletions inside it."""
    return [("functions", fi, "body") + path for fi, f in enumerate(program.functions)
            for path, _ in blocks(f.body)]


def substituted(node: _N, name: str, value: n.Expr) -> _N:
    """`node` with every read of variable `name` replaced by `value`."""
    return substitute(node, lambda x: value if isinstance(x, n.Name) and x.id == name
                      else None)
