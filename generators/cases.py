"""Whole test cases: kernel, launch, arguments, schedule and target options.

Generating the kernel is the expensive part (tens of choices and a parse), so
`kernel_cases()` lets one kernel serve several launches, inputs and schedules; `cases()`
is the one-case form the CLI's `sample` and the benchmarks use.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from difftest.core.case import Case
from difftest.core.reconvergence import MAXIMAL, UNIFORM
from difftest.core.ir.types import INTS, Type

from .host import host_programs
from .inputs import arguments
from .kernels import DEFAULT_FAULT_RATE, GeneratedKernel, kernels
from .launches import WAVES, launches
from .workgroups import workgroup_kernels, workgroup_size
from .schedules import schedule_by_number, schedule_numbers, target_options


def make_case(kernel: GeneratedKernel, n: int, wave: int, args: dict[str, Any],
              schedule: dict[str, Any], options: dict[str, Any]) -> Case:
    """A Case from a generated kernel (its parsed program is reused, not re-parsed)."""
    return Case(kernel.source, kernel.entry, n, wave, args, kernel.program,
                dict(schedule), dict(options))


def cases_for(kernel: GeneratedKernel, max_n: int = 3000) -> st.SearchStrategy[Case]:
    """One case of `kernel`: a launch, arguments for it, a schedule and target options
    (about 20 choices)."""
    return target_options().flatmap(lambda options: _cases_for(kernel, launches(max_n),
                                                               options))


#: what a target must declare (registry capabilities) for the generators to draw each
#: feature; a target without one gets kernels and cases without it
NEEDS = {"wave": "wave_ops", "alloc": "alloc", "host": "host_programs",
         "workgroups": "workgroups", "f32": "f32", "f64": "f64", "bits": "bit_ops",
         "arrays": "private_arrays", "returning": "returning_atomics"}


def leave_out(capabilities: frozenset[str] | None) -> frozenset[str]:
    """The features a target with `capabilities` cannot run (None: it runs everything)."""
    if capabilities is None:
        return frozenset()
    return frozenset(f for f, need in NEEDS.items() if need not in capabilities)


#: speculation only for launches up to this size: every lane that takes a cold arm
#: finishes on numba-simt's host (as `HOST_LANES`; set when that ran in Python)
SPECULATE_MAX_N = 64


@st.composite
def _cases_for(draw: st.DrawFn, kernel: GeneratedKernel,
               launch: st.SearchStrategy[tuple[int, int]], options: dict[str, Any],
               host: bool = True, group_waves: tuple[int, ...] | None = None) -> Case:
    n, wave = draw(launch)
    n = min(n, kernel.max_n)  # within the work budget, whatever loops the kernel has
    options = dict(options)
    if n > SPECULATE_MAX_N:
        options.pop("speculate", None)
    case = make_case(kernel, n, wave, draw(arguments(kernel, n)), {}, options)
    if "workgroups" in kernel.features:
        group = draw(workgroup_size(wave))
        if group_waves is not None and wave not in group_waves:
            group = wave  # waves of this size run one to a group on the target
        case.group = group if group != wave else None  # one wave: the launch's default
    case.schedule = schedule_by_number(case, draw(schedule_numbers()))
    if host and "f32" not in kernel.features and "returning" not in kernel.features \
            and draw(_PERCENT) < _HOST_PERCENT[not kernel.faults]:
        # (host programs move integer buffers: an f32 kernel's cases have none; one
        # launch's atomics that return are ordered, a program's launches' are not)
        case.host = draw(host_programs(case))
    return case


# The cases that can carry a host program (of a kernel without f32 or atomics that
# return: a third of them) carry one, in percent: 90 of those of kernels that cannot
# fault, 25 of those that may (an exception ends the program, so a faulting kernel's
# programs often stop at their first launch, before the pool's bugs can show). About one
# case in six in all: the pool's bugs need them, and each kernel feature halved them.
_HOST_PERCENT = (25, 90)
_PERCENT = st.integers(0, 99)


_MOSTLY_ALL = st.integers(0, 9)

#: cases drawn per kernel by default: more cases share a kernel's generation and
#: compilation (more checked cases per second) but catch little that the first cases of
#: that kernel and its options miss; `python benchmarks/bench_schedules.py --per-kernel K`
#: measured detections per CPU-second for K = 1, 2, 3, 6 (README, Benchmarks): 2 is
#: ahead of 3 and 6 on detections per second and on the median time to detection
CASES_PER_KERNEL = 2


def kernel_cases(per_kernel: int = CASES_PER_KERNEL, max_n: int = 3000,
                 fault_rate: float = DEFAULT_FAULT_RATE,
                 capabilities: frozenset[str] | None = None, share_options: bool = True,
                 waves: tuple[int, ...] = WAVES, reconvergence: str = MAXIMAL,
                 one_wave: bool = False, group_waves: tuple[int, ...] | None = None,
                 int_types: frozenset[Type] | None = None
                 ) -> st.SearchStrategy[tuple[GeneratedKernel, list[Case]]]:
    """A kernel and `per_kernel` cases of it, each with its own launch, arguments and
    schedule (nine times in ten; otherwise one case, which is also where shrinking goes:
    the first case alone). The cases share one draw of target options (unless not
    `share_options`), so a target that compiles per kernel and options compiles once for
    them all: numba-simt's compile costs several times a case's other work
    (`python benchmarks/bench_schedules.py --per-case-options` measures the other way).
    `max_n` caps the launch size; `fault_rate` is `kernels()`'s; `capabilities` (a
    target's) leaves out what it cannot run (`NEEDS`), `waves` are the wave sizes it runs,
    `reconvergence` its model (wave operations only where it defines them); `one_wave`
    gives all the cases of a kernel one wave size (a target that builds per W), the
    widest drawn twice as often as each other one: it has the most lanes in each wave
    operation (and on a 64-lane wave, the upper word of a ballot), and such a target
    checks few kernels a second. `group_waves` (a target's): the wave sizes that may run
    several to a workgroup; launches of other sizes get groups of one wave. `int_types`
    (a target's): the integer types kernels may use (None: every one)."""
    if isinstance(per_kernel, bool) or not isinstance(per_kernel, int) or per_kernel < 1:
        raise ValueError(f"Invalid per_kernel={per_kernel!r} < 1")
    out = leave_out(capabilities)
    whole = reconvergence == UNIFORM
    launch: st.SearchStrategy[Any] = launches(max_n, waves, whole)
    if one_wave:
        widest_twice = tuple(sorted(waves)) + (max(waves),)
        launch = st.sampled_from(widest_twice).map(lambda w: launches(max_n, (w,), whole))
    plain = kernels(fault_rate, without=out - {"host", "workgroups"},
                    reconvergence=reconvergence,
                    int_types=frozenset(INTS) if int_types is None else int_types)
    if "workgroups" not in out:
        tiled = workgroup_kernels(fault_rate, without=out & {"wave"},
                                  reconvergence=reconvergence)
        plain = _mixed(plain, tiled)
    return _kernel_cases(plain, per_kernel, launch, "host" not in out, share_options,
                         one_wave, group_waves)


#: of the kernels for a target with workgroups, the share made of workgroup patterns
WORKGROUP_PERCENT = 30


@st.composite
def _mixed(draw: st.DrawFn, plain: st.SearchStrategy[GeneratedKernel],
           tiled: st.SearchStrategy[GeneratedKernel]) -> GeneratedKernel:
    """A kernel of `kernels()` mostly, of `workgroup_kernels()` in WORKGROUP_PERCENT of
    draws (one choice, which shrinks toward the plain kernels)."""
    use = draw(st.integers(0, 99)) >= 100 - WORKGROUP_PERCENT
    return draw(tiled if use else plain)


@st.composite
def _kernel_cases(draw: st.DrawFn, kernel_strategy: st.SearchStrategy[GeneratedKernel],
                  per_kernel: int, launch: st.SearchStrategy[Any], host: bool,
                  share_options: bool, one_wave: bool = False,
                  group_waves: tuple[int, ...] | None = None
                  ) -> tuple[GeneratedKernel, list[Case]]:
    kernel = draw(kernel_strategy)
    if one_wave:  # `launch` draws the kernel's launch strategy (its one wave size)
        launch = draw(launch)
    count = 1 if per_kernel == 1 or draw(_MOSTLY_ALL) == 0 else per_kernel
    shared = draw(target_options())
    return kernel, [draw(_cases_for(kernel, launch,
                                    shared if share_options else draw(target_options()),
                                    host, group_waves))
                    for _ in range(count)]


def cases(max_n: int = 3000, fault_rate: float = DEFAULT_FAULT_RATE
          ) -> st.SearchStrategy[Case]:
    """Single cases, each with its own kernel."""
    launch = launches(max_n)
    return kernels(fault_rate).flatmap(
        lambda k: target_options().flatmap(lambda options: _cases_for(k, launch, options)))
