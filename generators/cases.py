"""`cases()` and `kernel_cases()`: whole test cases (kernel, launch, inputs, schedule,
target options). One kernel serves several launches/inputs/schedules in `kernel_cases`,
because generating the kernel is the expensive part."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from difftest.case import Case

from .inputs import arguments
from .kernels import GeneratedKernel, kernels
from .launches import launches
from .schedules import schedules, target_options


def make_case(kernel: GeneratedKernel, n: int, wave: int, args: dict[str, Any],
              schedule: dict[str, Any], options: dict[str, Any]) -> Case:
    return Case(kernel.source, kernel.entry, n, wave, args, kernel.program,
                dict(schedule), dict(options))


@st.composite
def cases_for(draw: st.DrawFn, kernel: GeneratedKernel, max_n: int = 3000) -> Case:
    n, wave = draw(launches(max_n))
    return make_case(kernel, n, wave, draw(arguments(kernel, n)), draw(schedules()),
                     draw(target_options()))


@st.composite
def kernel_cases(draw: st.DrawFn, per_kernel: int = 3, max_n: int = 3000
                 ) -> tuple[GeneratedKernel, list[Case]]:
    kernel = draw(kernels())
    count = draw(st.integers(1, per_kernel))
    return kernel, [draw(cases_for(kernel, max_n)) for _ in range(count)]


def cases(max_n: int = 3000) -> st.SearchStrategy[Case]:
    return kernels().flatmap(lambda k: cases_for(k, max_n))
