"""The numba-simt target: compile (cached per kernel and compile options), lay out memory,
and run the case through the dispatch (dispatch.py: the machine, the deopt save area, the
host's trampoline) into an Outcome.

Target options (`--opt KEY=VALUE`; generators draw them too):
- `registers=N` physical vector registers (4..256, default 24): small values force spills;
- `uniform_writes=all_lanes|active` how uniform values (constants, parameters) are
  materialised: with all-lane writes (default, as real compilers do) or masked;
- `alloc_order=lowest|recent|random` (with `alloc_seed=N`): which free register the
  allocator takes (regalloc.py);
- `reduce=native|tree`: sums, scans, wave_any and ballot as one whole-wave instruction
  (default) or as shuffle butterflies in whole-wave mode reading a lane id the prologue
  computes in all lanes (lower.py): a long-lived whole-wave value, which spills;
- `speculate=N` (N > 0): speculation, seeded by N: about half the `if` arms after which no
  wave operation can follow are assumed cold and not compiled; lanes that take one deopt
  there and the host finishes them (speculate.py);
- `mutants`: injected bugs (mutants.py), compiler ones keyed into the compile cache and
  machine ones passed to the machine as flags;
- the common options (`difftest.core.options`): `step_budget` and `work_budget`, the loop-trip
  budget the oracle honours too (each TRIP instruction is one trip of the active lanes; a
  lane past `trip_budget()` stops the launch with the same `step_budget` error).
Schedule keys: see `NumbaSimtTarget.schedule_help` and dispatch.py.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from difftest.core.case import Case
from difftest.core.errors import DifftestError
from difftest.core.ir import nodes as n
from difftest.core.ir.types import INTS
from difftest.core.outcome import Outcome, TargetError
from difftest.core.target import Target

from . import mutants
from .mutants import NONE, Mutants
from .runtime.dispatch import check_schedule, run_case
from .runtime.host_program import run_program
from .compiler.emit import Compiled, emit
from .isa import kind
from .compiler.lower import lower
from .runtime.pool import Pool
from .compiler.regalloc import ORDERS, AllocationError, allocate_registers
from .compiler.speculate import host_facts, speculate
from .runtime.trampoline import decode

DEFAULT_REGISTERS = 24
CACHE_SIZE = 256


class OptionError(DifftestError):
    pass


@dataclass(frozen=True)
class CompileOptions:
    """Everything a compilation depends on besides the program: the compile cache's key."""

    registers: int = DEFAULT_REGISTERS
    uniform_all_lanes: bool = True
    alloc_order: str = "lowest"
    alloc_seed: int = 0
    speculate: int = 0                     # 0: no speculation; else its seed
    reduce_tree: bool = False              # `reduce=tree`
    mutants: Mutants = NONE  # the compiler's share (Mutants.compiler)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def run_mutants(options: dict[str, Any]) -> Mutants:
    """The mutants `options` switch on (OptionError names an unknown one)."""
    names = options.get("mutants", [])
    unknown = [m for m in names if m not in mutants.REGISTRY]
    if unknown:
        raise OptionError(f"unknown mutant '{unknown[0]}'")
    return Mutants.of(names)


def compile_options(options: dict[str, Any]) -> CompileOptions:
    """The compile options of a run's options, validated (OptionError names the bad one)."""
    regs = options.get("registers", DEFAULT_REGISTERS)
    if not _int(regs) or not 4 <= regs <= 256:
        raise OptionError(f"option registers={regs!r}: expected an integer in 4..256")
    uniform = options.get("uniform_writes", "all_lanes")
    if uniform not in ("all_lanes", "active"):
        raise OptionError(f"option uniform_writes={uniform!r}: expected all_lanes or active")
    order = options.get("alloc_order", "lowest")
    if order not in ORDERS:
        raise OptionError(f"option alloc_order={order!r}: expected one of {', '.join(ORDERS)}")
    seed = options.get("alloc_seed", 0)
    if not _int(seed) or not 0 <= seed < 2**32:
        raise OptionError(f"option alloc_seed={seed!r}: expected an integer in 0..2**32-1")
    spec = options.get("speculate", 0)
    if not _int(spec) or not 0 <= spec < 2**32:
        raise OptionError(f"option speculate={spec!r}: expected 0 (off) or a seed in "
                          "1..2**32-1")
    reduce = options.get("reduce", "native")
    if reduce not in ("native", "tree"):
        raise OptionError(f"option reduce={reduce!r}: expected native or tree")
    return CompileOptions(regs, uniform == "all_lanes", order, seed, spec, reduce == "tree",
                          run_mutants(options).compiler())


def compile_program(program: n.Program, entry: str, copts: CompileOptions) -> Compiled:
    """Compile one (checked) program. Pure: each compilation owns its state, and the
    mutants it was asked for are handed to the passes that consult them. The result is
    whole (the host's decoding of its host code too) and never changed after.

    The listing, when asked for, compiles the program again (the same compilation): what
    it is printed from -- the lowered code, the allocation and its liveness, thousands of
    objects a compilation -- is then not kept alive by the compile cache, where the
    garbage collector would scan it again and again."""
    compiled = _compile(program, entry, copts)
    return dataclasses.replace(
        compiled, make_listing=functools.partial(_listing, program, entry, copts),
        decoded=decode(compiled.host.rows, compiled.host.nvregs, compiled.host.nmasks,
                       compiled.infopoints))


def _listing(program: n.Program, entry: str, copts: CompileOptions) -> str:
    return _compile(program, entry, copts).listing


def _compile(program: n.Program, entry: str, copts: CompileOptions) -> Compiled:
    m = copts.mutants
    host = lower(program, entry, copts.uniform_all_lanes, copts.reduce_tree, m)
    facts = host_facts(host, m)
    device = speculate(host, copts.speculate, facts, m) if copts.speculate else host
    alloc = allocate_registers(device, copts.registers, copts.alloc_order, copts.alloc_seed,
                               facts.live if device is host else None, m)
    return emit(device, alloc, host, facts, m)


_CACHE: OrderedDict[tuple[str, str, CompileOptions], Compiled] = OrderedDict()


def compile_case(case: Case, options: dict[str, Any]) -> Compiled:
    """The case's kernel compiled under `options`; cached by (kernel text, entry, compile
    options), so the schedules and inputs of one kernel pay once. The case's parsed
    program is used: the text is never parsed again."""
    key = (case.kernel, case.entry, compile_options(options))
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    compiled = compile_program(case.program, case.entry, key[2])
    _CACHE[key] = compiled
    if len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return compiled


class NumbaSimtTarget(Target):
    name = "numba-simt"
    description = ("a small GPU: exec-mask compiler, register allocation with spills, "
                   "deopt metadata, numba-compiled machine")
    capabilities = frozenset({"wave_ops", "faults", "host_programs", "alloc", "mutants",
                              "workgroups", "f32", "f64", "bit_ops",
                              "private_arrays", "returning_atomics"})
    int_types = frozenset(INTS)
    option_names = ("registers", "uniform_writes", "alloc_order", "alloc_seed", "speculate",
                    "reduce")
    option_help = {
        "registers": f"physical vector registers, 4..256 (default {DEFAULT_REGISTERS}); "
                     "small budgets force spills",
        "uniform_writes": "all_lanes (default) | active: how constants and parameters are "
                          "written",
        "alloc_order": "lowest (default) | recent | random: which free register the "
                       "allocator takes",
        "alloc_seed": "seed of the random allocation order",
        "speculate": "0 (default: off) | a seed: assume some `if` arms cold (lanes that "
                     "take one deopt)",
        "reduce": "native (default) | tree: sums, scans, wave_any and ballot as one "
                  "instruction or as butterflies of whole-wave shuffles",
    }
    schedule_keys = ("wave_order", "order_seed", "slots", "quantum", "replay_order",
                     "replay_seed", "never_ran", "after_exception", "deopt_percent",
                     "deopt_seed", "deopt_limit")
    schedule_help = {
        "wave_order": "ascending (default) | descending | shuffled: the order workgroups "
                      "(waves, in a launch without workgroups) are issued in",
        "order_seed": "seed of a shuffled order",
        "slots": "K resident workgroups (waves, without workgroups), whose waves run "
                 "round-robin (default 1); the save area holds K x G frames",
        "quantum": "instructions a resident wave runs per turn (default 64)",
        "replay_order": "ascending (default) | descending | shuffled: the order the host "
                        "resumes deopted workitems in",
        "replay_seed": "seed of a shuffled replay order",
        "never_ran": "device (default) | host: where never-ran waves run when they do (a "
                     "kernel with barriers or workgroup arrays: always the device)",
        "after_exception": "stop (default) | finish: whether never-ran waves still run "
                           "once an exception is reported",
        "deopt_percent": "0 (default) .. 100: DeoptimizeALot, the share of lanes forced to "
                         "deopt at each eligible infopoint",
        "deopt_seed": "seed of the forced deopts",
        "deopt_limit": "no limit (default) | N >= 0: at most N forced deopts in the run "
                       "(the lowest lanes first at each infopoint)",
    }
    mutant_names = mutants.NAMES
    mutant_help = {m.name: f"[{m.mechanism}] {m.description}"
                   for m in mutants.REGISTRY.values()}
    mutant_seeds = {m.name: m.seed for m in mutants.REGISTRY.values()}
    never_ran_granularity = "wave"

    def validate_options(self, options: dict[str, Any]) -> None:
        compile_options(options)

    def validate_schedule(self, schedule: dict[str, Any]) -> None:
        check_schedule(schedule)

    def option_variants(self, options: dict[str, Any]) -> list[dict[str, Any]]:
        """Other allocation settings for the reducer's polish pass (a deletion that moves
        a register clobber elsewhere may still show it under another budget or order)."""
        base = {k: v for k, v in options.items() if k not in ("alloc_order", "alloc_seed")}
        regs = options.get("registers", DEFAULT_REGISTERS)
        out = [{**base, "alloc_order": order} for order in ("lowest", "recent")]
        out += [{**base, "alloc_order": "random", "alloc_seed": s} for s in range(4)]
        out += [{**base, "registers": r, "alloc_order": "lowest"} for r in (4, 5, 6, 8)
                if r != regs]
        out += [{**base, "registers": r, "alloc_order": "random", "alloc_seed": s}
                for r in (4, 6) for s in range(3) if r != regs]
        return [o for o in out if o != options]

    def probes(self, options: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The compiler's switchable mechanisms: spills (none with 256 registers), the
        allocator's choice of register, how uniform values are written, how wave
        operations are lowered, speculation."""
        order = options.get("alloc_order", "lowest")
        writes = options.get("uniform_writes", "all_lanes")
        out: dict[str, dict[str, Any]] = {"spills": {"registers": 256},
               "allocation order": {"alloc_order": "recent" if order == "lowest"
                                    else "lowest"},
               "uniform writes": {"uniform_writes": "active" if writes == "all_lanes"
                                  else "all_lanes"},
               "wave-op lowering": {"reduce": "tree" if options.get("reduce", "native")
                                    == "native" else "native"}}
        if options.get("speculate"):
            out["speculation"] = {"speculate": 0}
        return out

    def cold_start_note(self) -> str | None:
        from .device import machine

        if machine.cache_is_warm():
            return None
        return ("compiling the numba-simt machine (first run only; cached on disk "
                "afterwards; 10-80 CPU seconds)...")

    def warm_up(self) -> None:
        from difftest.core.heartbeat import heartbeat

        from .compiler import coloring, dataflow
        from .device import machine
        from .runtime import host_loop

        with heartbeat("compiling the numba-simt machine"):
            machine.warm_up()
            host_loop.warm_up()
            coloring.warm_up()
            dataflow.warm_up()

    def listing(self, case: Case, options: dict[str, Any]) -> str | None:
        return compile_case(case, options).listing

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome:
        from targets.returned_log import run_logged

        return run_logged(case, lambda c: self._run(c, schedule, options))

    def _run(self, case: Case, schedule: dict[str, Any] | None = None,
             options: dict[str, Any] | None = None) -> Outcome:
        schedule = schedule or {}
        options = options or {}
        check_schedule(schedule)
        try:
            compiled = compile_case(case, options)
        except AllocationError as e:
            return Outcome(case.buffers(), None, [], error=TargetError("internal", str(e)))
        switched_on = run_mutants(options)
        if case.host is not None:
            return run_program(compiled, case, schedule, options, switched_on)
        bufs = case.buffers()
        pool = Pool(mutants=switched_on)
        bound = pool.create_from(bufs, {p.name: kind(p.ty.element)
                                        for p in case.function.params if p.ty.is_buffer})
        pool.promote(list(bound.values()))
        outcome, error, diagnostics = run_case(compiled, case, schedule, options, pool, bound,
                                               switched_on)
        out_bufs = {name: pool.contents(item).astype(bufs[name].dtype)
                    for name, item in bound.items()}
        diagnostics.update(code_size=len(compiled.rows), spill_slots=len(compiled.slot),
                           pool_grown=pool.grown)
        if outcome is None:
            return Outcome(out_bufs, None, [], error=error, diagnostics=diagnostics)
        outcome.buffers = out_bufs
        outcome.diagnostics = diagnostics
        return outcome
