"""The reference oracle as the registry finds it (entry-point group `difftest.oracles`),
and run as a target (`--target reference`): the full run (reference.py) and the host
program model built on it (host_model.py) behind one face."""

from __future__ import annotations

from typing import Any

from difftest.core.case import Case
from difftest.core.errors import OracleError
from difftest.core.fullrun import FullRun, HostRun
from difftest.core.outcome import COMPLETED, Outcome, TargetError, host_result
from difftest.core.target import Target
from difftest.core.ir.types import INTS

from .host_model import run_host
from .reference import run_full


class ReferenceOracle:
    """The oracle, as the registry finds it (entry-point group `difftest.oracles`)."""

    name = "reference"

    def run_full(self, case: Case, options: dict[str, Any] | None = None,
                 returned: list[list[int]] | None = None, races: bool = True,
                 skipped: frozenset[int] = frozenset()) -> FullRun:
        return run_full(case, options, returned, races, skipped)

    def run_host(self, case: Case, options: dict[str, Any] | None = None) -> HostRun:
        return run_host(case, options)


class ReferenceTarget(Target):
    """The oracle as a target (`--target reference`): runs everything, reports the
    lowest faulting workitem's exception; a race or budget overrun is an `error`."""

    name = "reference"
    description = "the reference oracle run as a target: every workitem, in wave order"
    capabilities = frozenset({"wave_ops", "faults", "host_programs", "alloc", "workgroups",
                              "f32", "f64", "bit_ops",
                              "private_arrays", "returning_atomics"})
    int_types = frozenset(INTS)
    option_names: tuple[str, ...] = ()  # only the common ones (difftest.core.options)
    mutant_names: tuple[str, ...] = ()

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome:
        try:
            if case.host is not None:
                return _host_outcome(case, options)
            return run_full(case, options).outcome()
        except OracleError as e:
            return Outcome(case.buffers(), None, [], None,
                           error=TargetError(e.kind, e.message))


def _host_outcome(case: Case, options: dict[str, Any] | None) -> Outcome:
    run = run_host(case, options)
    bufs = {k: v.copy() for k, v in run.final.items()}
    if run.full is not None:
        last = run.full.outcome()
        for param, buf in run.binding.items():
            bufs[buf] = last.buffers[param]
        out = Outcome(bufs, last.exception, last.status, last.faults, last.error)
    else:  # its last launch, if any, ran every workitem to completion
        out = Outcome(bufs, None, [COMPLETED] * case.n if run.launches else [])
    out.host = host_result(run.observations, run.error)
    return out
