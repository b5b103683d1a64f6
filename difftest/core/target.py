"""The Target protocol: what a target is, with a default for every optional part.

A target turns (case, schedule, options) into an `Outcome`. Targets in this repository
subclass `Target`, and so must a third-party one (the registry refuses any other object):
the rest of difftest then reads every part of every target directly, never probing for it.

The parts, and what the fuzz loop, the checker and the CLI do with them:
- `name`, `description`: how it is named and listed (`difftest targets`);
- `capabilities`: `wave_ops` (it runs wave operations), `alloc` (kernels that call
  `alloc()`), `host_programs` (cases' host programs), `workgroups` (launches with a
  workgroup size, workgroup arrays, barriers and the group work ids), `f32` (32-bit
  floats, docs/semantics.md), `f64` (64-bit floats), `bit_ops` (the integer functions:
  popcount, clz, ctz, bit_reverse, the rotations, mul_hi, integer min, max and abs),
  `private_arrays` (`a: Array[T, N]`, an array private to the workitem),
  `returning_atomics` (atomics that return, docs/semantics.md: it reports the values
  they returned, targets/returned_log.py), `faults`,
  `mutants`: the generators leave out what a target does not declare;
- `wave_sizes`: the wave sizes W it can run (a real target: its subgroup sizes);
- `reconvergence`: the model its wave operations are checked against
  (`difftest.core.reconvergence`): generators place wave operations only where it defines them;
- `never_ran_granularity`: "wave" when it checks the deopt flag at wave start (R5);
- `policies`: the exception policies its reports follow (docs/semantics.md, R1): every
  target here is a `stream` target; a case of another policy is one it cannot run;
- `option_names` / `option_help`, `validate_options(options)`: its own options;
- `avoidable`: the known bugs of its compilers whose triggers it can spell another way
  (the common option `avoid`, difftest.core.options; none by default);
- `int_types`: the integer types it runs (default i32 and i64, the language's first
  two): a case that holds or computes with another is one it cannot run, and the
  generators draw only these;
- `schedule_keys` / `schedule_help`, `validate_schedule(schedule)`: the schedule keys it
  reads (a target that reads none is run once per case: schedules cannot change it);
- `mutant_names` / `mutant_help` / `mutant_seeds`: its injectable bugs;
- `cases_per_kernel`: how many launches and inputs the fuzz loop draws for each generated
  kernel (a target whose build is expensive amortises it over more); with
  `one_wave_per_kernel` they share one wave size (a target that builds per W);
  `group_waves`: the wave sizes that may run several to a workgroup (None: any; CUDA's
  blocks are warps of 32), so the generators draw groups of one wave for the others;
- `reduce_checks`: the candidate checks a campaign's reduction of one counterexample may
  make (work, not time: the same reduction on any machine; fewer where each check costs
  a build);
- `unsupported(case)`: why it cannot run a case (None when it can); the default checks the
  declarations above;
- `listing(case, options)`: its compiled code as text, or None;
- `option_variants(options)`: other settings the reducer's polish pass may try;
- `reproducer(case, options, expected)`: a standalone reproducer's files (`difftest
  export`), or None; `reproducer_needs`: what running it needs, in words;
- `warm_up()`, `cold_start_note()`: load or compile what it needs once, and a line to print
  first when that takes a while;
- `configure(options)`: settle what the target's options choose before anything reads
  its declarations (a Vulkan target's `device`: its wave sizes and reconvergence model
  are the device's); `device_summary()`: a line on the device it runs on, or None;
  `compiler(options)`: the compiler it tests, as known findings name it.
"""

from __future__ import annotations

from typing import Any

from difftest.core.case import Case
from difftest.core.outcome import Outcome
from difftest.core.reconvergence import MAXIMAL, WHY_UNDEFINED, describe, undefined_wave_ops
from difftest.core.ir.types import I32, I64, INTS, Type

WAVE_SIZES = (1, 2, 4, 8, 16, 32, 64)


class Target:
    name: str = ""
    description: str = ""
    capabilities: frozenset[str] = frozenset()
    wave_sizes: tuple[int, ...] = WAVE_SIZES
    reconvergence: str = MAXIMAL
    never_ran_granularity: str | None = None
    option_names: tuple[str, ...] = ()
    avoidable: tuple[str, ...] = ()
    int_types: frozenset[Type] = frozenset({I32, I64})
    option_help: dict[str, str] = {}
    schedule_keys: tuple[str, ...] = ()
    schedule_help: dict[str, str] = {}
    mutant_names: tuple[str, ...] = ()
    mutant_help: dict[str, str] = {}
    mutant_seeds: dict[str, str] = {}
    cases_per_kernel: int = 2
    one_wave_per_kernel: bool = False
    group_waves: tuple[int, ...] | None = None
    reduce_checks: int = 2500
    reproducer_needs: str = ""
    policies: tuple[str, ...] = ("stream",)

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome:
        raise NotImplementedError

    def validate_options(self, options: dict[str, Any]) -> None:
        """Check the values of this target's own options (raise DifftestError)."""

    def validate_schedule(self, schedule: dict[str, Any]) -> None:
        """Check the values of the schedule keys this target reads."""

    def unsupported(self, case: Case) -> str | None:
        return declared_unsupported(self, case)

    def listing(self, case: Case, options: dict[str, Any]) -> str | None:
        return None

    def option_variants(self, options: dict[str, Any]) -> list[dict[str, Any]]:
        return []

    def reproducer(self, case: Case, options: dict[str, Any], expected: Outcome
                   ) -> dict[str, str] | None:
        """Files of a standalone reproducer of `case` in the target's own terms (a kernel
        and a program that runs it and prints what differs from `expected`, importing
        nothing of difftest), or None when the target has none."""
        return None

    def probes(self, options: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Settings that each switch one of the target's mechanisms off or to another
        implementation (a name -> the options that do it, from `options`): triage runs a
        finding again under each, and those under which it agrees are its cause, part of
        what tells two bugs apart (difftest.campaign.triage)."""
        return {}

    def warm_up(self) -> None:
        pass

    def configure(self, options: dict[str, Any]) -> None:
        """Settle the settings `options` (the target's own) choose for every case."""

    def device_summary(self) -> str | None:
        return None

    def compiler(self, options: dict[str, Any]) -> str:
        """The compiler a run under `options` tests, where the target names one (a Vulkan
        target: its front end and the device's driver), else "": a known bug of a
        compiler is the same bug whichever target meets it (docs/semantics.md,
        "Findings")."""
        return ""

    def cold_start_note(self) -> str | None:
        return None

    @property
    def schedules_per_case(self) -> int:
        """Schedules the fuzz loop checks per case: two where schedules matter."""
        return 2 if self.schedule_keys else 1


def declared_unsupported(target: Target, case: Case) -> str | None:
    """Why `case` needs something `target` does not declare (None when it does not)."""
    caps = target.capabilities
    if case.policy not in target.policies:
        return (f"policy {case.policy} (it reports the exception of any faulting workitem "
                f"it ran: policies {', '.join(target.policies)})")
    if case.host is not None and "host_programs" not in caps:
        return "host programs"
    if case.wave not in target.wave_sizes:
        return (f"wave size {case.wave} (it runs waves of "
                f"{', '.join(map(str, target.wave_sizes))})")
    if case.group is not None and "workgroups" not in caps:
        return f"workgroups (a launch with group={case.group})"
    from difftest.core.ir import nodes as n
    from difftest.core.ir.walk import f32_use, f64_use, int_types_used, reachable, walk

    floats = None if "f32" in caps else f32_use(case.program, case.entry)
    if floats is not None:
        return f"f32 ({floats})"
    doubles = None if "f64" in caps else f64_use(case.program, case.entry)
    if doubles is not None:
        return f"f64 ({doubles})"
    for ty, where in int_types_used(case.program, case.entry).items():
        if ty not in target.int_types:
            runs = ", ".join(str(t) for t in INTS if t in target.int_types)
            return f"{ty} ({where}; it runs {runs})"

    for fn in reachable(case.program, case.entry):
        for node in walk(fn.body):
            if "workgroups" not in caps and (
                    isinstance(node, (n.Barrier, n.LocalArray))
                    or isinstance(node, n.WorkId) and node.which in n.GROUP_IDS):
                what = {n.Barrier: "barrier()", n.LocalArray: "a workgroup array"}.get(
                    type(node), f"{getattr(node, 'which', '')}()")
                return f"workgroups ({what} at line {node.line})"
            if isinstance(node, n.WaveOp) and "wave_ops" not in caps:
                return f"wave operations ({node.op}() at line {node.line})"
            if isinstance(node, n.Alloc) and "alloc" not in caps:
                return f"alloc() (line {node.line})"
            if isinstance(node, n.PrivateArray) and "private_arrays" not in caps:
                return f"private arrays ({node.name} at line {node.line})"
            if isinstance(node, n.AtomicOp) and "returning_atomics" not in caps:
                return f"atomics that return (atomic_{node.op}() at line {node.line})"
    undefined = undefined_wave_ops(case.program, case.entry, target.reconvergence)
    if undefined:
        return (f"{describe(undefined[0])} {WHY_UNDEFINED[target.reconvergence]}, where its "
                f"reconvergence model ({target.reconvergence}) leaves the result undefined")
    return None

