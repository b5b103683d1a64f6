"""The `difftest` command line.

Exit codes: 0 success (agree, nothing found); 1 a finding or a failure of the run itself (a
disagreement, a counterexample, a target error, a campaign that checked nothing); 2 bad
input: one line on stderr naming the file, field or option and what is wrong, never a
traceback (a racy kernel is bad input too: it is outside the semantics); 130 / 143
interrupted by Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
import math
import os
import sys
from pathlib import Path
from typing import Any, NoReturn
from collections.abc import Callable, Sequence

from difftest.core.case import Case

from difftest.core.kernelfile import load_case
from difftest.core.errors import DifftestError, OracleError
from difftest.core.outcome import COMPLETED, FAULTED, NEVER_RAN, Outcome

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
DEFAULT_TARGET = "numba-simt"
MAX_WORKERS_PER_CORE = 4

CASE_FORMAT = """\
A case file is JSON:
  {"kernel": "<source text>", "entry": "<kernel function>",
   "launch": {"n": <workitems>, "wave": <1|2|4|...|64>},
   "args": {"<buffer>": {"dtype": "i32"|"i64", "data": [...]}, "<scalar>": <int|bool>},
   "schedule": {...}, "policy": "stream"|"sequential",
   "options": {"step_budget": 1000, "<target>": {"<its option>": ...}}}
(schedule, options and policy are optional; docs/case-format.md has every field, and
`difftest targets` lists each target's options and schedule keys). A kernel file (.py)
takes its launch and arguments from '# difftest:' header lines or --n/--wave/--arg."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


# ------------------------------------------------------------------ shared helpers


def _summary(case: Case, target: str, outcome: Outcome) -> str:
    lines = [f"{case.entry}: {case.n} workitems in waves of {case.wave} on {target}"]
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
    for name, data in outcome.buffers.items():
        shown = ", ".join(str(int(x)) for x in data[:16])
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
    from difftest.core.options import case_options, parse_cli, validate

    recorded = str(case.extra.get("target", "")) if case is not None else ""
    chosen = name or recorded or DEFAULT_TARGET
    target = load_target(chosen)
    message = target.cold_start_note() if announce else None
    if message:
        print(message, file=sys.stderr, flush=True)
    cli_options = validate(target, parse_cli(pairs), "--opt")
    from_case: dict[str, Any] = {}
    if case is not None:
        _sections_name_targets(case, case_path)
        same = chosen == recorded
        recorded_mutants = list(case.extra.get("mutants") or []) if same else []
        from_case, aside = case_options(case, target, case_path, recorded_mutants or None)
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
    return _Run(chosen, target, {**from_case, **cli_options})


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
    with `--n`, `--wave` and `--arg` over its header."""
    from difftest.core.kernelfile import is_kernel_file, load_kernel_file

    path = Path(args.case)
    if is_kernel_file(path):
        return load_kernel_file(path, args.n, args.wave, args.arg)
    if args.n is not None or args.wave is not None or args.arg:
        raise DifftestError("--n, --wave and --arg go with a kernel file (.py); a case "
                            "file has its own launch and args")
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


def _oracle(case: Case, path: str, options: dict[str, Any]) -> tuple[Any, None]:
    """The oracle's full run; a racy kernel, or one past the oracle's work limit, is the
    kernel's fault (exit 2, what is wrong named)."""
    from difftest.campaign.runner import oracle_run

    try:
        full, error = oracle_run(case, options)
    except OracleError as e:  # past the oracle's work limit
        raise OracleError(e.kind, f"{path}: {e.message}") from None
    if error is not None:
        raise OracleError("race", f"{path}: the kernel is outside the semantics: "
                          f"{error.message}")
    return full, None


def _unsupported(target: Any, case: Case) -> str | None:
    return target.unsupported(case)  # type: ignore[no-any-return]


# ------------------------------------------------------------------------ commands


def cmd_run(args: argparse.Namespace) -> int:
    case = _load(args)
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    schedule = _schedule(case, args)
    outcome = target.run(case, schedule, options)
    if outcome.error is not None and outcome.error.kind in ("race", "work"):
        kind = outcome.error.kind
        outside = "the kernel is outside the semantics: " if kind == "race" else ""
        raise OracleError(kind, f"{args.case}: {outside}{outcome.error.message}")
    if args.json:
        print(json.dumps(outcome.to_json()))
    else:
        print(_summary(case, run.name, outcome))
    return EXIT_FAIL if outcome.error is not None else EXIT_OK


def _schedule(case: Case, args: argparse.Namespace) -> dict[str, Any]:
    """The case's schedule, or with --schedule-seed N the N-th generated one."""
    seed = getattr(args, "schedule_seed", None)
    if seed is None:
        return dict(case.schedule)
    from generators.schedules import schedule_by_number

    return schedule_by_number(case, seed)


def cmd_check(args: argparse.Namespace) -> int:
    from difftest.campaign.runner import check_case
    from difftest.core.verdict import check_outcome

    import dataclasses

    case = _load(args)
    policy = args.policy or case.policy
    case = dataclasses.replace(case, policy=policy)  # what a target must support too
    if args.outcome:
        from difftest.core.jsonio import read_json

        outcome = Outcome.from_json(read_json(args.outcome), str(args.outcome))
        full, _ = _oracle(case, args.case, case.options)
        verdict = check_outcome(case, full, outcome, policy=policy)
        print(f"{args.outcome}: {verdict}")
        return EXIT_OK if verdict.agree else EXIT_FAIL
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    if args.schedules < 1:
        raise DifftestError(f"--schedules must be at least 1, got {args.schedules}")
    if args.schedules > 1 and not target.schedule_keys:
        print(f"target {run.name} reads no schedule keys: one run (--schedules left aside)",
              file=sys.stderr)
        args.schedules = 1
    reason = _unsupported(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {run.name} cannot run this case: {reason}")
    full, _ = _oracle(case, args.case, options)
    # (seed of the generated schedule, or None for the case's own; the schedule)
    schedules: list[tuple[int | None, dict[str, Any]]]
    if args.schedule_seed is not None:
        schedules = [(args.schedule_seed, _schedule(case, args))]
    else:
        from generators.schedules import schedule_by_number

        schedules = [(None, dict(case.schedule))] + [
            (args.seed + i, schedule_by_number(case, args.seed + i))
            for i in range(args.schedules - 1)]
    failed = 0
    rows = []
    for seed, schedule in schedules:
        res = check_case(case, target, schedule, options, policy, full, None)
        failed += not res.verdict.agree
        rows.append({"schedule_seed": seed, "schedule": schedule,
                     "verdict": res.verdict.to_json()})
        if not args.json:
            label = json.dumps(schedule, sort_keys=True) if schedule else "{}"
            which = "the case's schedule" if seed is None else f"schedule seed {seed}"
            print(f"{which} {label}: {res.verdict}")
    if args.json:
        print(json.dumps({"case": args.case, "target": run.name,
                          "options": options, "checks": rows,
                          "agree": len(schedules) - failed}))
    else:
        print(f"{len(schedules) - failed} of {len(schedules)} schedules agree on {run.name}"
              + ("" if not failed or args.schedule_seed is not None else
                 " (--schedule-seed N reruns a generated one: difftest run, show, reduce "
                 "take it too)"))
    return EXIT_OK if not failed else EXIT_FAIL


def cmd_replay(args: argparse.Namespace) -> int:
    from difftest.campaign.corpus import entries, files
    from difftest.campaign.registry import installed_target_names, load_target
    from difftest.campaign.runner import replay

    names = args.target or installed_target_names()
    if args.target:
        for name in names:
            load_target(name)  # a target the user named must exist: exit 2 before work
    from difftest.campaign.findings import known_findings

    paths = files(args.paths)
    if not paths:
        raise DifftestError(f"nothing to replay: {', '.join(args.paths)} holds no .json "
                            "case files")
    _check_json_destination(args.json)
    known = known_findings(list(paths))
    bad = failed = passed = skipped = 0
    rows: list[dict[str, Any]] = []
    for entry in entries(list(paths)):
        if entry.case is None:
            bad += 1
            print(f"error {entry.error}")
            rows.append({"path": str(entry.path), "error": str(entry.error)})
            continue
        for res in replay(entry.case, entry.target, entry.mutants, entry.expected, names,
                          known):
            print(f"{entry.path.name}: {res.describe()}")
            skipped += bool(res.skipped)
            passed += res.ok and not res.skipped
            failed += not res.ok
            rows.append({"path": str(entry.path), "target": res.target,
                         "mutants": res.mutants, "ok": res.ok, "expected": res.expected,
                         "verdict": None if res.verdict is None else str(res.verdict),
                         "problem": res.problem or None, "known": res.known or None,
                         "skipped": res.skipped or None, "line": res.describe()})
    print(f"{passed} passed, {failed} failed"
          + (f", {skipped} skipped (target not installed)" if skipped else "")
          + (f", {bad} malformed" if bad else ""))
    _write_json(args.json, {"format": "difftest-replay", "version": 1, "passed": passed,
                            "failed": failed, "skipped": skipped, "malformed": bad,
                            "results": rows})
    if bad:
        return EXIT_USAGE
    return EXIT_FAIL if failed else EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from difftest.app.report import numbered_source, render_png, status_picture
    from difftest.campaign.runner import check_case
    from difftest.core.verdict import memory_differences

    import dataclasses

    case = _load(args)
    case = dataclasses.replace(case, policy=args.policy or case.policy)
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    reason = _unsupported(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {run.name} cannot run this case: {reason}")
    full, _ = _oracle(case, args.case, options)
    res = check_case(case, target, _schedule(case, args), options, None, full, None)
    print(numbered_source(case.kernel))
    print()
    headline = f"{case.entry}: n={case.n} wave={case.wave} on {run.name}: {res.verdict}"
    print(headline)
    if res.outcome.error is None:
        print(status_picture(case, res.outcome))
        rows, total = memory_differences(full, res.outcome)
        if rows:
            print(f"memory that differs from a run of the workitems that ran ({total} "
                  f"location{'s' if total != 1 else ''}):")
            for name, i, want, got, writers in rows:
                who = (f"written by workitem{'s' if len(writers) > 1 else ''} "
                       f"{', '.join(map(str, writers[:8]))}{' ...' if len(writers) > 8 else ''}"
                       if writers else "no workitem writes it")
                print(f"  {name}[{i}]: expected {want}, {run.name} {got} ({who})")
            if total > len(rows):
                print(f"  ... and {total - len(rows)} more")
    if args.png:
        render_png(case, res.outcome, args.png, title=f"{headline}")
        print(f"wrote {args.png}")
    return EXIT_OK if res.verdict.agree else EXIT_FAIL


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


def cmd_fuzz(args: argparse.Namespace) -> int:
    from difftest.campaign.corpus import check_writable
    from difftest.campaign.fuzz import FuzzConfig, Interrupted, format_summary, fuzz, summary_json

    run = _target_and_options(args.target, None, "", args.opt, announce=False)
    options = run.options
    _seconds(args.time, "--time")
    if args.examples is not None and args.examples < 1:
        raise DifftestError(f"--examples must be at least 1, got {args.examples}")
    corpus = Path(args.corpus)
    check_writable(corpus, "--corpus")
    _check_json_destination(args.json)
    seconds = args.time if args.time is not None or args.examples is not None else 60.0
    database = None
    if args.database is not None:
        from difftest.campaign.sharing import check_url

        database = check_url(args.database)
    known = [Path(p) for p in args.known] if args.known else [corpus, Path("corpus")]
    config = FuzzConfig(target=run.name, seconds=seconds, examples=args.examples,
                        workers=_workers(args.workers), seed=args.seed, options=options,
                        corpus=corpus, database=database, stop_on_first=args.stop_on_first,
                        known=list(dict.fromkeys(known)))
    try:
        summary = fuzz(config)
    except Interrupted as stop:
        print(format_summary(stop.summary, run.name))
        print(f"interrupted ({stop.signal_name}): the summary above is the campaign so far")
        _write_json(args.json, summary_json(stop.summary, run.name, stop.signal_name))
        return stop.exit_code
    print(format_summary(summary, run.name))
    _write_json(args.json, summary_json(summary, run.name))
    if summary.cases == 0:
        print("fuzz: no case was checked, so nothing was tested (see the messages above)")
        return EXIT_FAIL
    return EXIT_FAIL if summary.found or summary.errors or summary.unreduced else EXIT_OK


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
    from difftest.campaign.corpus import write_atomic

    write_atomic(Path(path), json.dumps(obj, indent=1, sort_keys=True) + "\n")


def cmd_sample(args: argparse.Namespace) -> int:
    from generators.cases import cases
    from generators.sampling import draw

    from difftest.campaign.corpus import check_writable, content_name, write_atomic

    if args.count < 1:
        raise DifftestError(f"--count must be at least 1, got {args.count}")
    out = Path(args.out)
    check_writable(out, "--out")
    names: set[str] = set()
    for case in draw(cases(), args.count, args.seed):
        # the generated options are numba-simt's compile options: filed under it, the
        # file runs on every target
        obj = case.recorded_for("numba-simt").to_json()
        name = content_name(obj)
        try:
            write_atomic(out / name, json.dumps(obj, indent=1) + "\n")
        except OSError as e:
            raise DifftestError(f"--out {out}: cannot write {name}: {e.strerror or e}") from None
        names.add(name)
    dup = args.count - len(names)
    print(f"wrote {len(names)} case files to {out}"
          + (f" ({dup} drawn case{'s' if dup != 1 else ''} repeated an earlier one)"
             if dup else ""))
    return EXIT_OK


def cmd_compile(args: argparse.Namespace) -> int:
    case = _load(args)
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    text = target.listing(case, options)
    if text is None:
        raise DifftestError(f"target {run.name} has no compiled code to show")
    print(text)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from difftest.campaign.corpus import write_atomic

    case = _load(args)
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    reason = _unsupported(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {run.name} cannot run this case: {reason}")
    full, _ = _oracle(case, args.case, options)
    if full.exhausted:
        raise DifftestError(f"{args.case}: workitem {full.exhausted[0]} runs out of its "
                            "loop-trip budget: a reproducer needs a case that finishes")
    files = target.reproducer(case, options, full.outcome())
    if files is None:
        raise DifftestError(f"target {run.name} has no standalone reproducer")
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise DifftestError(f"--out {out}: exists and is not an empty folder")
    try:
        for name, text in files.items():
            write_atomic(out / name, text)
    except OSError as e:
        raise DifftestError(f"--out {out}: cannot write: {e.strerror or e}") from None
    print(f"wrote {out}: {', '.join(sorted(files))}")
    print(f"run it with: python3 {out / 'repro.py'} (it imports nothing from difftest)")
    return EXIT_OK


def cmd_record(args: argparse.Namespace) -> int:
    import re

    from difftest.campaign.corpus import check_writable, corpus_json, save
    from difftest.campaign.runner import check_case
    from difftest.campaign.signature import Signature, setting, shape, verdict_class

    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", args.finding):
        raise DifftestError(f"--finding {args.finding!r}: expected a name of lowercase "
                            "letters, digits and dashes (its section in docs/findings.md)")
    case = _load(args)
    run = _target_and_options(args.target, case, args.case, args.opt)
    name, target, options = run.name, run.target, run.options
    if options.get("mutants"):
        raise DifftestError(f"{args.case}: a target's bug is recorded without mutants")
    reason = _unsupported(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {name} cannot run this case: {reason}")
    full, _ = _oracle(case, args.case, options)
    verdict = check_case(case, target, case.schedule, options, None, full, None).verdict
    if verdict.agree:
        raise DifftestError(f"{args.case}: the case agrees on {name}: there is no bug of "
                            "the target to record")
    corpus = Path(args.corpus)
    check_writable(corpus, "--corpus")
    signature = Signature(name, verdict_class(verdict),
                          shape(case.program, case.entry, case.n, case.wave),
                          setting(options))
    case.options = options
    obj = corpus_json(case, name, {"verdict": "disagree", "rule": verdict.rule},
                      f"known bug {args.finding} of {name}: {verdict}")
    obj["finding"] = args.finding
    obj["signature"] = signature.to_json()
    try:
        path = save(corpus, obj)
    except OSError as e:
        raise DifftestError(f"--corpus {corpus}: cannot write: {e.strerror or e}") from None
    print(f"{args.case}: {verdict}")
    print(f"recorded as {name}'s known bug {args.finding}: {path}")
    return EXIT_OK


def cmd_upgrade(args: argparse.Namespace) -> int:
    from difftest.core.case import VERSION
    from difftest.campaign.corpus import files, write_atomic
    from difftest.core.jsonio import read_json

    changed = 0
    paths = files(args.paths)
    for path in paths:
        obj = read_json(path)
        if isinstance(obj, dict) and obj.get("version", VERSION) == VERSION:
            continue
        case = load_case(path)  # migrates, or names what is wrong
        write_atomic(path, json.dumps(case.to_json(), indent=1, sort_keys=True) + "\n")
        changed += 1
        print(f"{path}: rewritten as case format version {VERSION}")
    print(f"{changed} of {len(paths)} file(s) rewritten")
    return EXIT_OK


def cmd_reduce(args: argparse.Namespace) -> int:
    import dataclasses
    import time

    from difftest.campaign.corpus import check_destination, corpus_json, write_atomic
    from difftest.campaign.reduce import reduce_case, size
    from difftest.campaign.runner import check_case, still_fails

    case = _load(args)
    out = Path(args.out) if args.out else Path(Path(args.case).stem + ".reduced.json")
    check_destination(out, "--out")
    if args.time is not None:
        _seconds(args.time, "--time")
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    case = dataclasses.replace(case, options=options, schedule=_schedule(case, args))
    full, _ = _oracle(case, args.case, options)
    verdict = check_case(case, target, case.schedule, None, None, full, None).verdict
    if verdict.agree:
        raise DifftestError(f"{args.case}: the case agrees on {run.name}: there is no "
                            "failure to keep while reducing")
    start = time.monotonic()
    with _signals_stop() as stopped:  # before the verdict line: a stop after it is caught
        print(f"{args.case}: {verdict}", flush=True)
        reduced, stats = reduce_case(case, still_fails(target, case, verdict.rule),
                                     args.time if args.time is not None else 60.0,
                                     target.option_variants, stop=lambda: bool(stopped))
        mutants = list(reduced.options.get("mutants", []))
        plain = dataclasses.replace(reduced, options={k: v for k, v in reduced.options.items()
                                                      if k != "mutants"})
        expected = case.extra.get("expected") or (
            {"verdict": "disagree", "rule": verdict.rule} if mutants else {"verdict": "agree"})
        final = check_case(reduced, target, reduced.schedule).verdict  # the note's words
        obj = corpus_json(plain, run.name, expected, "reduced by difftest reduce: "
                          f"{final if not final.agree else verdict}", mutants)
        for key in ("finding", "signature"):
            if key in case.extra:
                obj[key] = case.extra[key]
        try:
            write_atomic(out, json.dumps(obj, indent=1) + "\n")
        except OSError as e:
            raise DifftestError(f"--out {out}: cannot write: {e.strerror or e}") from None
    (s0, n0), (s1, n1) = size(case), size(reduced)
    why = ("" if stats.finished else
           f", stopped by {stopped[0]}" if stopped else ", stopped at the time limit")
    print(f"reduced {s0} -> {s1} statements, n {n0} -> {n1} in {time.monotonic() - start:.1f} s "
          f"({stats.checks} checks{why})")
    print(f"wrote {out}")
    if stopped:
        import signal

        return 128 + int(signal.Signals[stopped[0]])
    return EXIT_OK


def cmd_hunt(args: argparse.Namespace) -> int:
    import signal

    from difftest.campaign.hunt import HuntInterrupted, format_table, hunt, to_json, write_json
    from difftest.campaign.registry import load_target

    args.target = args.target or DEFAULT_TARGET
    target = load_target(args.target)
    names = tuple(target.mutant_names)
    seeds = dict(target.mutant_seeds)
    helps = dict(target.mutant_help)
    if args.list:
        for name in names:
            print(f"{name}\t{seeds.get(name, '')}\t{helps.get(name, '')}")
        return EXIT_OK
    if not names:
        raise DifftestError(f"target {args.target} has no mutants to hunt")
    chosen = list(names) if args.mutants == "all" else [
        m for m in args.mutants.split(",") if m]
    for m in chosen:
        if m not in names:
            raise DifftestError(f"--mutants: unknown mutant '{m}' for target {args.target} "
                                "(`difftest hunt --list` lists them)")
    if args.trials < 1:
        raise DifftestError(f"--trials must be at least 1, got {args.trials}")
    seconds = _seconds(args.time, "--time") or 60.0
    from difftest.campaign.corpus import check_writable

    corpus = Path(args.corpus)
    check_writable(corpus, "--corpus")
    _check_json_destination(args.json)
    workers = _workers(args.workers)
    settings = {"target": args.target, "trials": args.trials, "time_s": seconds,
                "workers": workers, "seed": args.seed}
    try:
        with _signals_stop() as between:  # a campaign sets its own handlers while it runs
            results = hunt(args.target, chosen, seeds, args.trials, seconds, workers,
                           args.seed, corpus, stopped=lambda: int(
                               signal.Signals[between[0]]) if between else None)
    except HuntInterrupted as stop:
        name = signal.Signals(stop.signum).name
        print(format_table(stop.results, seconds))
        print(f"hunt stopped by {name}: the table holds the trials that finished; their "
              f"counterexamples are in {corpus}")
        if args.json:  # what finished is kept, like the table
            write_json(args.json, {**to_json(stop.results, seconds, settings),
                                   "interrupted": name})
            print(f"wrote {args.json}")
        return 128 + int(stop.signum)
    print(format_table(results, seconds))
    if args.json:
        write_json(args.json, to_json(results, seconds, settings))
        print(f"wrote {args.json}")
    return EXIT_OK


def cmd_triage(args: argparse.Namespace) -> int:
    from difftest.campaign.triage import buckets, format_buckets, load_findings, triage_json

    folder = _campaign_folder(args.folder, "triage")
    _check_json_destination(args.json)
    findings = load_findings(folder)
    bs = buckets(findings)
    print(format_buckets(bs, len(findings)))
    if args.json:
        _write_json(args.json, triage_json(bs, folder, len(findings)))
        print(f"wrote {args.json}")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from difftest.app.campaign_report import build_report
    from difftest.campaign.corpus import check_destination, write_atomic

    folder = _campaign_folder(args.folder, "report")
    out = Path(args.output)
    check_destination(out, "-o")
    write_atomic(out, build_report(folder))
    print(f"wrote {out}")
    return EXIT_OK


def cmd_targets(args: argparse.Namespace) -> int:
    from difftest.core.options import COMMON
    from difftest.campaign.registry import capabilities, load_target, target_names

    common = {"step_budget": "loop trips one workitem may run (default 100000)",
              "work_budget": "loop trips the whole launch may run, shared out evenly "
                             "(default 1000000)",
              "mutants": "injected bugs to switch on: --opt mutants=a,b"}
    assert set(common) == set(COMMON)
    print("common options (every target and the oracle): " + ", ".join(COMMON))
    for key, text in common.items():
        print(f"    {key:<16} {text}")
    for name in target_names():
        print()
        try:
            t = load_target(name)
        except DifftestError as e:
            print(f"{name}: cannot be loaded: {e}")
            continue
        print(f"{name}: {t.description}")
        caps = sorted(capabilities(t))
        gran = t.never_ran_granularity
        print(f"  capabilities: {', '.join(caps) or 'none'}"
              + (f"; never-ran comes in whole {gran}s" if gran else ""))
        print(f"  wave sizes: {', '.join(map(str, t.wave_sizes))}; reconvergence: "
              f"{t.reconvergence}")
        for title, names, helps in (
                ("options", t.option_names, t.option_help),
                ("schedule keys", t.schedule_keys, t.schedule_help),
                ("mutants", t.mutant_names, t.mutant_help)):
            if not names:
                print(f"  {title}: none")
                continue
            print(f"  {title}:")
            width = max(len(k) for k in names)
            for key in names:
                print(f"    {key:<{width}}  {helps.get(key, '')}".rstrip())
    print()
    print(CASE_FORMAT)
    return EXIT_OK


def bench_script() -> Path:
    """The benchmark, in the source tree beside the difftest package (a clone's)."""
    import difftest

    return Path(difftest.__file__).resolve().parents[1] / "benchmarks" / "bench_target.py"


def cmd_bench(args: argparse.Namespace) -> int:
    script = bench_script()
    if not script.is_file():
        raise DifftestError(f"{script}: the benchmarks ship with the source repository; "
                            "run `difftest bench` from a clone")
    import runpy

    sys.argv = [str(script)] + (["--json", args.json] if args.json else []) + (
        ["--quick"] if args.quick else [])
    runpy.run_path(str(script), run_name="__main__")
    return EXIT_OK


# --------------------------------------------------------------------------- parser


def _add_target(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target", default=None, metavar="NAME",
                   help=f"target to run (default: the one a counterexample file records, "
                   f"else {DEFAULT_TARGET}; `difftest targets` "
                   "lists them)")


def _add_opt(p: argparse.ArgumentParser) -> None:
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                   help="target option, repeatable; overrides the case file's options "
                   "(e.g. registers=6, step_budget=1000, mutants=div-floor)")


def _add_schedule_seed(p: argparse.ArgumentParser) -> None:
    p.add_argument("--schedule-seed", type=int, default=None, metavar="N",
                   help="instead of the case's schedule, use the N-th generated schedule for "
                   "this case (deterministic: reproduces what the fuzz loop saw)")


def _add_policy(p: argparse.ArgumentParser) -> None:
    p.add_argument("--policy", choices=("stream", "sequential"), default=None,
                   help="exception policy to check against (default: the case's, else "
                   "stream)")


def _add_kernel_file(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("with a kernel file (.py) instead of a case file")
    group.add_argument("--n", type=int, default=None, metavar="N",
                       help="workitems (over the file's `# difftest: launch` header)")
    group.add_argument("--wave", type=int, default=None, metavar="W",
                       help="wave size (over the header)")
    group.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                       help="an argument: 3, true, i32[1, 2, 3] or i64[0] * 8 (over the "
                       "header; repeatable)")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("difftest-simt")
    except PackageNotFoundError:  # run from a checkout without installing
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="difftest", description=(
        "Property-based differential testing of SIMT kernel execution with deoptimization: "
        "targets against a reference oracle."),
        epilog=CASE_FORMAT, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"difftest {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text)

    _one_case_commands(command)
    _campaign_commands(command)
    _other_commands(command)
    return parser


def _one_case_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The parsers of commands on one case: run it, check it, show it, compile it, export it."""
    run = command("run", "run a case file on one target and print the outcome")
    run.add_argument("case", metavar="CASE.json", help="case file, or kernel file (.py)")
    _add_kernel_file(run)
    _add_target(run)
    run.add_argument("--json", action="store_true",
                     help="print the outcome as JSON (what `check --outcome` reads)")
    _add_opt(run)
    _add_schedule_seed(run)
    run.set_defaults(func=cmd_run)

    check = command("check", "run a case on the oracle and a target and print the verdict "
                    "(exit 0 agree, 1 disagree)")
    check.add_argument("case", metavar="CASE.json", help="case file, or kernel file (.py)")
    _add_kernel_file(check)
    _add_target(check)
    _add_opt(check)
    check.add_argument("--schedules", type=int, default=1, metavar="K",
                       help="check the case's own schedule and K-1 generated ones (numbered "
                       "from --seed)")
    check.add_argument("--seed", type=int, default=1, metavar="N",
                       help="number of the first generated schedule (default 1; schedule 0 "
                       "is the empty one)")
    _add_schedule_seed(check)
    _add_policy(check)
    check.add_argument("--json", action="store_true",
                       help="print the verdicts as JSON (docs/case-format.md)")
    check.add_argument("--outcome", metavar="FILE",
                       help="check this outcome (`difftest run --json` format) instead of "
                       "running a target")
    check.set_defaults(func=cmd_check)

    show = command("show", "print a case's kernel, the verdict on a target and each "
                   "workitem's fate as a picture")
    show.add_argument("case", metavar="CASE.json", help="case file, or kernel file (.py)")
    _add_kernel_file(show)
    _add_target(show)
    _add_opt(show)
    _add_schedule_seed(show)
    _add_policy(show)
    show.add_argument("--png", metavar="FILE",
                      help="also write the picture as a PNG (waves x lanes, with a legend)")
    show.set_defaults(func=cmd_show)

    co = command("compile", "print a target's compiled code for a case's kernel (numba-simt: "
                 "masks, registers, spills, infopoints)")
    co.add_argument("case", metavar="CASE.json", help="case file, or kernel file (.py)")
    _add_kernel_file(co)
    _add_target(co)
    _add_opt(co)
    co.set_defaults(func=cmd_compile)

    ex = command("export", "write a standalone reproducer of a case on a real target: the "
                 "kernel in the target's own language and a script that runs it and prints "
                 "expected against actual, importing nothing from difftest")
    ex.add_argument("case", metavar="CASE.json", help="case, corpus or kernel file (.py)")
    _add_kernel_file(ex)
    _add_target(ex)
    _add_opt(ex)
    ex.add_argument("--out", required=True, metavar="DIR",
                    help="an empty or new folder for the reproducer's files")
    ex.set_defaults(func=cmd_export)


def _campaign_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The parsers of campaigns and of what they leave: fuzz, hunt, reduce, replay,
    record, triage, report."""
    fz = command("fuzz", "fuzz campaign: generated cases on a target against the oracle; "
                 "shrunk counterexamples go to the corpus")
    _add_target(fz)
    budget = fz.add_mutually_exclusive_group()
    budget.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="stop after this long (default 60 s)")
    budget.add_argument("--examples", type=int, default=None, metavar="N",
                        help="stop after N generated kernels instead")
    fz.add_argument("--workers", default="1", metavar="N|auto",
                    help=f"worker processes (auto: one per core; at most "
                    f"{MAX_WORKERS_PER_CORE} per core)")
    fz.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    _add_opt(fz)
    fz.add_argument("--corpus", default="counterexamples", metavar="DIR",
                    help="where reduced counterexamples are written (default: "
                    "counterexamples; the regression corpus is yours to copy them into)")
    fz.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    fz.add_argument("--known", action="append", default=None, metavar="DIR",
                    help="corpus folder whose recorded target bugs (docs/findings.md) the "
                    "campaign skips, repeatable (default: --corpus and ./corpus)")
    fz.add_argument("--stop-on-first", action="store_true",
                    help="stop the campaign at its first counterexample (default: keep "
                    "going, each distinct failure reduced and kept once)")
    fz.add_argument("--database", default=None, metavar="redis://HOST:PORT",
                    help="share the campaign through a Redis server: Hypothesis's example "
                    "database and announced counterexamples (the corpus stays local)")
    fz.set_defaults(func=cmd_fuzz)

    hu = command("hunt", "measure the fuzzer against a target's injected bugs: detection "
                 "rate, time to first failure and to the reduced case, reduced size")
    _add_target(hu)
    hu.add_argument("--list", action="store_true",
                    help="list the mutants, one a line (name, seed, description)")
    hu.add_argument("--mutants", default="all", metavar="all|NAME,...",
                    help="which mutants to hunt (default all)")
    hu.add_argument("--trials", type=int, default=10, metavar="N",
                    help="independent campaigns per mutant (default 10)")
    hu.add_argument("--time", type=float, default=None, metavar="SECONDS",
                    help="budget of each campaign (default 60 s; a miss counts as this)")
    hu.add_argument("--workers", default="auto", metavar="N|auto",
                    help="worker processes per campaign (default: one per core)")
    hu.add_argument("--seed", type=int, default=0, help="seed of the first trial (default 0)")
    hu.add_argument("--corpus", default="counterexamples", metavar="DIR",
                    help="where the reduced counterexamples go (default: counterexamples)")
    hu.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    hu.set_defaults(func=cmd_hunt)

    rd = command("reduce", "reduce a failing case (any kernel, generated or yours) to a small "
                 "one that fails the same way, and write it")
    rd.add_argument("case", metavar="CASE.json",
                    help="case, corpus or kernel file (.py) that disagrees")
    _add_kernel_file(rd)
    _add_target(rd)
    _add_opt(rd)
    rd.add_argument("--time", type=float, default=None, metavar="SECONDS",
                    help="stop reducing after this long (default 60 s)")
    _add_schedule_seed(rd)
    rd.add_argument("--out", metavar="FILE",
                    help="where to write the reduced case (default: CASE.reduced.json in "
                    "the current folder, not beside a corpus file)")
    rd.set_defaults(func=cmd_reduce)

    rep = command("replay", "replay corpus files or folders: each recorded verdict must "
                  "hold, and every target must agree without mutants")
    rep.add_argument("paths", nargs="+", metavar="PATH", help="corpus file or folder")
    rep.add_argument("--target", action="append", default=None, metavar="NAME",
                     help="replay on this target (repeatable; default: every registered one)")
    rep.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    rep.set_defaults(func=cmd_replay)

    rc = command("record", "record a failing case as a known bug of a real target (a "
                 "corpus entry that replay expects to disagree, and that campaigns and "
                 "replays use to recognise the bug again)")
    rc.add_argument("case", metavar="CASE.json",
                    help="case, corpus or kernel file (.py) that disagrees")
    _add_kernel_file(rc)
    rc.add_argument("--target", default=None, metavar="NAME",
                    help="the target whose bug it is (default: the file's own target)")
    rc.add_argument("--finding", required=True, metavar="ID",
                    help="the bug's name: its section in docs/findings.md")
    _add_opt(rc)
    rc.add_argument("--corpus", default="corpus", metavar="DIR",
                    help="the corpus folder to record it in (default: corpus)")
    rc.set_defaults(func=cmd_record)

    tr = command("triage", "group a campaign folder's counterexamples into buckets, one per "
                 "bug as far as the reduced cases tell, the most different first")
    tr.add_argument("folder", metavar="FOLDER", help="a campaign's --corpus folder")
    tr.add_argument("--json", metavar="FILE", help="also write the buckets as JSON")
    tr.set_defaults(func=cmd_triage)

    rp = command("report", "one self-contained HTML page about a campaign folder: bugs "
                 "found and how fast, plots over time, each bucket's smallest kernel")
    rp.add_argument("folder", metavar="FOLDER", help="a campaign's --corpus folder")
    rp.add_argument("-o", "--output", default="report.html", metavar="FILE",
                    help="the page to write (default report.html)")
    rp.set_defaults(func=cmd_report)


def _other_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The parsers of the rest: sample, upgrade, targets, bench."""
    sm = command("sample", "write N generated cases as case files")
    sm.add_argument("--count", type=int, required=True, metavar="N", help="cases to draw")
    sm.add_argument("--seed", type=int, default=0, help="generation seed (default 0)")
    sm.add_argument("--out", required=True, metavar="DIR", help="folder to write them to")
    sm.set_defaults(func=cmd_sample)

    up = command("upgrade", "rewrite case and corpus files of an older format version as "
                 "the current one (version 1's flat options go under their target)")
    up.add_argument("paths", nargs="+", metavar="PATH", help="case file or folder")
    up.set_defaults(func=cmd_upgrade)

    tg = command("targets", "list the registered targets with their options, schedule keys "
                 "and mutants")
    tg.set_defaults(func=cmd_targets)

    be = command("bench", "benchmarks: checked cases per CPU-second, numba-simt vs a "
                 "hand-written @njit loop, oracle vs target")
    be.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    be.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    be.set_defaults(func=cmd_bench)



#: commands that run a case in this process: their work runs beside the main thread, which
#: stays free to take Ctrl-C (numba's machine runs without the GIL and would otherwise
#: hold the signal back until the launch ends)
_IN_A_THREAD = ("run", "check", "show", "compile", "export", "record")


def _beside_the_main_thread(func: Any, args: argparse.Namespace) -> int:
    import threading

    result: dict[str, Any] = {}

    def body() -> None:
        try:
            result["code"] = func(args)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread as it is
            result["error"] = e

    worker = threading.Thread(target=body, name=f"difftest {args.command}", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    if "error" in result:
        raise result["error"]
    code: int = result["code"]
    return code


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in _IN_A_THREAD:
            return _beside_the_main_thread(args.func, args)
        code: int = args.func(args)
        return code
    except DifftestError as e:
        print(f"difftest: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("difftest: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    """The `difftest` command. An interrupted run may leave its work (a machine launch
    without the GIL) still going in another thread: the process ends at once."""
    code = main()
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
