"""What the commands share: loading a case and its target's options, the exit codes, the
signal handling of long runs, checked output paths."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from difftest.core.case import Case
from difftest.core.errors import DifftestError, OracleError
from difftest.core.kernelfile import load_case
from difftest.core.ir.types import value_of
from difftest.core.outcome import COMPLETED, FAULTED, NEVER_RAN, Outcome

#: 0 agree / nothing found, 1 a disagreement or counterexample, 2 bad input, 3 a campaign
#: that could not do its job (a worker lost, no case checked): no finding, but no all-clear
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_CAMPAIGN = 0, 1, 2, 3


DEFAULT_TARGET = "numba-simt"


MAX_WORKERS_PER_CORE = 4


CASE_FORMAT = """\
A case file is JSON:
  {"kernel": "<source text>", "entry": "<kernel function>",
   "launch": {"n": <workitems>, "wave": <1|2|4|...|64>},
   "args": {"<buffer>": {"dtype": "<element type>", "data": [...]},
            "<scalar>": <int|number|bool>},
   "schedule": {...}, "policy": "stream"|"sequential",
   "options": {"step_budget": 1000, "<target>": {"<its option>": ...}}}
(an element type is i8, i16, i32, i64, u8, u16, u32, u64, f32 or f64, the parameter's;
schedule, options and policy are optional; docs/case-format.md has every field, and
`difftest targets` lists each target's options and schedule keys). A kernel file (.py)
takes its launch and arguments from '# difftest:' header lines or --n/--wave/--arg."""


def _summary(case: Case, target: str, outcome: Outcome) -> str:
    from difftest.core.floats import fmt
    from difftest.core.verdict import float_buffers

    lines = [f"{case.entry}: {case.n} workitems in waves of {case.wave} on {target}"]
    if case.host is not None:
        lines.append(f"  a host program of {len(case.host)} steps: its last launch's "
                     "workitems, then the buffers at its end")
    if outcome.error is not None:
        lines.append(f"  error: {outcome.error}")
        return "\n".join(lines)
    counts = {s: outcome.status.count(s) for s in (COMPLETED, FAULTED, NEVER_RAN)}
    lines.append(
        f"  {counts[COMPLETED]} completed, {counts[FAULTED]} faulted, "
        f"{counts[NEVER_RAN]} never ran"
    )
    exc = outcome.exception
    lines.append(
        "  exception: none" if exc is None
        else f"  exception: workitem {exc.gid}: {exc.fault.describe()}"
    )
    host = outcome.host or {}
    for step, values in host.get("observations", []):
        more = f", ... ({len(values)} values)" if len(values) > 16 else ""
        lines.append(f"  step {step} read [{', '.join(map(str, values[:16]))}{more}]")
    if host.get("error") is not None:  # (it ends the program: docs/semantics.md)
        step, kind = host["error"]
        lines.append(f"  host error at step {step}: {kind}")
    floats = float_buffers(case) if case.host is None else frozenset()
    elements = {p.name: p.ty.element for p in case.function.params if p.ty.is_buffer}
    for name, data in outcome.buffers.items():
        ty = elements.get(name)
        shown = ", ".join(fmt(ty).shortest(fmt(ty).from_bits(int(x)))
                          if name in floats and ty is not None
                          else str(value_of(int(x), ty) if ty is not None else int(x))
                          for x in data[:16])
        more = f", ... ({len(data)} values)" if len(data) > 16 else ""
        lines.append(f"  {name} = [{shown}{more}]")
    return "\n".join(lines)


@dataclass
class _Run:
    """What a command runs a case on: the target's name, the target, and the options
    (the case file's for that target, then `--opt` over them)."""

    name: str
    target: Any
    options: dict[str, Any]


def _target_and_options(name: str | None, case: Case | None, case_path: str,
                        pairs: Sequence[str], announce: bool = True) -> _Run:
    """The target and the run options. Without `--target` a case file that records
    where it failed (a counterexample) runs there, with the mutants it failed under; its
    options for that target come from its own section and its common ones, and options
    it holds for other targets are left aside (a note on stderr says both). `--opt` is
    validated strictly and overrides. `announce`: say so on stderr when the target's
    first use will compile for a while (the fuzz loop says it itself)."""
    from difftest.campaign.registry import load_target
    from difftest.core.options import OptionError, case_options, parse_cli, validate

    from difftest.campaign.registry import UnknownTarget

    recorded = str(case.extra.get("target", "")) if case is not None else ""
    chosen = name or recorded or DEFAULT_TARGET
    try:
        target = load_target(chosen)
    except UnknownTarget as e:
        raise UnknownTarget(f"{case_path}: {e}" if case_path else str(e)) from None
    message = target.cold_start_note() if announce else None
    if message:
        print(message, file=sys.stderr, flush=True)
        target.warm_up()  # now, with a sign of life, rather than inside its first run
    try:
        parsed = parse_cli(pairs)
    except OptionError as e:  # the file the options were for, named first
        raise OptionError(f"{case_path}: {e}" if case_path else str(e)) from None
    cli_options = validate(target, parsed, f"{case_path}: --opt" if case_path else "--opt")
    from_case: dict[str, Any] = {}
    if case is not None:
        _sections_name_targets(case, case_path)
        same = chosen == recorded
        recorded_mutants = list(case.extra.get("mutants") or []) if same else []
        from_case, aside = case_options(case, target, case_path, recorded_mutants or None,
                                        frozenset(cli_options))
        _no_target_reads(sorted(set(case.schedule) - set(target.schedule_keys)),
                         "schedule key", f"{case_path}: schedule")
        notes = []
        if same and name is None:
            what = f"target {chosen}"
            if from_case.get("mutants") and "mutants" not in cli_options:
                what += f", mutants {','.join(from_case['mutants'])}"
            notes.append(f"{case_path}: running it as recorded: {what} "
                         "(--target and --opt override)")
        if aside:
            _no_target_reads(aside, "option", f"{case_path}: options")
            notes.append(f"{case_path}: left aside, not options of {chosen}: "
                         f"{', '.join(aside)}")
        for line in notes:
            print(line, file=sys.stderr, flush=True)
    options = {**from_case, **cli_options}
    target.configure(options)  # what they choose (a Vulkan device) decides its declarations
    return _Run(chosen, target, options)


class _signals_stop:
    """While it is entered, SIGINT and SIGTERM do not interrupt: they are noted (the
    list holds the signal's name) so a long step can stop at its next check and keep
    what it has."""

    def __enter__(self) -> list[str]:
        import signal

        self.stopped: list[str] = []
        self.previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        for s in self.previous:
            signal.signal(s, lambda signum, frame: self.stopped.append(
                signal.Signals(signum).name))
        return self.stopped

    def __exit__(self, *exc: object) -> None:
        import signal

        for s, handler in self.previous.items():
            signal.signal(s, handler)


def _load(args: argparse.Namespace) -> Case:
    """The command's case: a case file, or a kernel file (`.py`, difftest.core.kernelfile)
    with `--n`, `--wave`, `--group` and `--arg` over its header."""
    from difftest.core.kernelfile import is_kernel_file, load_kernel_file

    path = Path(args.case)
    if is_kernel_file(path):
        return load_kernel_file(path, args.n, args.wave, args.arg, args.group)
    if args.n is not None or args.wave is not None or args.group is not None or args.arg:
        raise DifftestError("--n, --wave, --group and --arg go with a kernel file (.py); a "
                            "case file has its own launch and args")
    return load_case(path)


def _sections_name_targets(case: Case, where: str) -> None:
    """Each per-target section of a case's options names a registered target (a misspelt
    one would be left aside in silence, and the case run without its options); a flat
    option that is a target's name must be its section, an object."""
    from difftest.campaign.registry import target_names

    names = target_names()
    for section in case.target_options:
        if section not in names:
            raise DifftestError(f"{where}: options: a section for '{section}', which is no "
                                f"registered target (registered: {', '.join(names)})")
    for key in case.options:
        if key in names:
            raise DifftestError(f"{where}: options: '{key}' is a target's section and must "
                                "be an object of its options")


def _no_target_reads(keys: list[str], what: str, where: str) -> None:
    """A key that no installed target reads is a misspelling, not another target's: one
    error naming it (a key another target reads is left aside with a note instead)."""
    from difftest.campaign.registry import installed_target_names, load_target

    known: set[str] = set()
    for name in installed_target_names():
        t = load_target(name)
        known |= set(t.option_names if what == "option" else t.schedule_keys)
    for key in keys:
        if key not in known:
            raise DifftestError(f"{where}: unknown {what} '{key}': no installed target reads "
                                "it (`difftest targets` lists them)")


def default_known(*first: Path) -> list[Path]:
    """The corpus folders whose recorded known bugs a campaign (or triage) recognises
    when none is named: those given, `./corpus`, and the corpus of the clone difftest
    runs from (beside its package), wherever the command is run."""
    import difftest

    clone = Path(difftest.__file__).resolve().parents[1] / "corpus"
    folders = [*first, Path("corpus")] + ([clone] if clone.is_dir() else [])
    out: list[Path] = []
    for p in folders:  # each once, however it is spelled
        if not any(p.resolve() == q.resolve() for q in out):
            out.append(p)
    return out


def _oracle(case: Case, path: str, options: dict[str, Any]) -> tuple[Any, None]:
    """The oracle's full run; a racy kernel, or one past the oracle's work limit, is the
    kernel's fault (exit 2, what is wrong named)."""
    from difftest.campaign.runner import oracle_run

    try:
        full, error = oracle_run(case, options)
    except OracleError as e:  # past the oracle's work limit
        raise OracleError(e.kind, f"{path}: {e.message}") from None
    if error is not None:
        raise OracleError(error.kind, f"{path}: the kernel is outside the semantics: "
                          f"{error.message}")
    return full, None


def _unsupported(target: Any, case: Case) -> str | None:
    from difftest.campaign.runner import cannot_run

    return cannot_run(target, case)


def _schedule(case: Case, args: argparse.Namespace) -> dict[str, Any]:
    """The case's schedule, or with --schedule-seed N the N-th generated one."""
    seed = getattr(args, "schedule_seed", None)
    if seed is None:
        return dict(case.schedule)
    from generators.schedules import schedule_by_number

    return schedule_by_number(case, seed)


def _workers(text: str) -> int:
    cores = os.cpu_count() or 1
    if text == "auto":
        return cores
    try:
        value = int(text)
    except ValueError:
        raise DifftestError(f"--workers must be a number or 'auto', got {text!r}") from None
    limit = MAX_WORKERS_PER_CORE * cores
    if not 1 <= value <= limit:
        raise DifftestError(f"--workers must be in 1..{limit} ({MAX_WORKERS_PER_CORE} per "
                            f"core on this machine's {cores}), got {value}")
    return value


def _seconds(value: float | None, flag: str) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise DifftestError(f"{flag} must be a positive number of seconds, got {value}")
    return value


def _check_json_destination(path: str | None) -> None:
    """A `--json FILE` must be writable before the work starts, not after."""
    if path is not None:
        from difftest.campaign.corpus import check_destination

        check_destination(path, "--json")


def _campaign_folder(path: str, command: str) -> Path:
    folder = Path(path)
    if not folder.is_dir():
        raise DifftestError(f"{folder}: not a folder ({command} reads a campaign's "
                            "counterexamples folder)")
    return folder


def _write_json(path: str | None, obj: Any) -> None:
    if path is None:
        return
    from difftest.campaign.corpus import write_output

    write_output(path, json.dumps(obj, indent=1, sort_keys=True) + "\n", "--json")
