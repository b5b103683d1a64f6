"""Everything around the kernel: unused parameters, the launch (n, the workgroup size,
then the wave size),
the inputs, the schedule and options, and the host program."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np

from difftest.core import f32

from difftest.core.case import Case
from difftest.core.errors import CaseError
from difftest.core.host import parse_host
from difftest.core.ir import nodes as n
from difftest.core.ir.walk import walk

from .candidates import replace_function, with_program


def drop_unused_params(case: Case) -> Iterator[Case]:
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
        prog = replace_function(program, index, dataclasses.replace(fn, params=params))
        args = {k: v for k, v in case.args.items() if k != p.name}
        cand = with_program(case, prog, args=args)
        if cand is not None:
            yield cand


def shrink_launch(case: Case) -> Iterator[Case]:
    """Fewer workitems, then smaller workgroups (down to one wave), then smaller waves
    (each one dividing the workgroup)."""
    for n_items in sorted({1, 2, case.wave, case.group_size, case.n // 4, case.n // 2,
                           case.n - 1}):
        if 1 <= n_items < case.n:
            yield dataclasses.replace(case, n=n_items)
    if case.group is not None:
        g = case.wave
        while g < case.group:
            yield dataclasses.replace(case, group=g)
            g *= 2
    w = 1
    while w < case.wave:
        yield dataclasses.replace(case, wave=w)
        w *= 2


def simplify_inputs(case: Case) -> Iterator[Case]:
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
        elif isinstance(value, float):  # an f32 scalar stays a float
            for simple in (0.0, 1.0):
                if f32.to_bits(value) != f32.to_bits(simple):
                    yield dataclasses.replace(case, args={**case.args, name: simple})
        elif value not in (0, 1):
            for simple in (0, 1):
                yield dataclasses.replace(case, args={**case.args, name: simple})


#: options no reduction drops: they say which bug is being looked for (the mutants) or
#: past which known ones (`avoid`), and on which device (`icd`, `device`); without them
#: a candidate asks another question -- a campaign that avoids a known bug would reduce
#: its new failure into the known one
_KEPT_OPTIONS = ("mutants", "avoid", "icd", "device")


def simplify_schedule_and_options(case: Case) -> Iterator[Case]:
    yield from _fewer_passes(case)
    if case.schedule:
        yield dataclasses.replace(case, schedule={})
        for key in sorted(case.schedule):
            yield dataclasses.replace(
                case, schedule={k: v for k, v in case.schedule.items() if k != key})
    for key in sorted(case.options):
        if key not in _KEPT_OPTIONS:
            yield dataclasses.replace(
                case, options={k: v for k, v in case.options.items() if k != key})


def _fewer_passes(case: Case) -> Iterator[Case]:
    """The optimizer's recipe (`spirv_recipe`, or a recipe as `spirv_opt`) cut down: each
    pass alone first (most optimizer bugs need one), then the recipe less one pass --
    the fewest passes that still show a finding say whose it is."""
    for key in ("spirv_recipe", "spirv_opt"):
        text = case.options.get(key)
        if not isinstance(text, str) or "," not in text:
            continue
        steps = [p for p in text.split(",") if p]
        for cut in [[p] for p in steps] + [steps[:i] + steps[i + 1:]
                                           for i in range(len(steps))]:
            yield dataclasses.replace(case, options={**case.options, key: ",".join(cut)})


def simplify_host(case: Case) -> Iterator[Case]:
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
