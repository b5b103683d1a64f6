"""The commands about one case: run, check, replay, show, sample, compile, export, record,
upgrade."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from difftest.core.case import Case
from difftest.core.errors import OUTSIDE_SEMANTICS, DifftestError, OracleError
from difftest.core.kernelfile import load_case
from difftest.core.outcome import Outcome

from .common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    _check_json_destination,
    _load,
    _oracle,
    _schedule,
    _seconds,
    _summary,
    _target_and_options,
    _unsupported,
    _write_json,
)


def cmd_run(args: argparse.Namespace) -> int:
    case = _load(args)
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    from difftest.campaign.runner import declined

    reason = declined(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {run.name} cannot run this case: {reason}")
    schedule = _schedule(case, args)
    if run.name != "reference":
        # a kernel outside the semantics (a race, a barrier not every workitem of the
        # group reaches) has no right answer: refused on every target, as check does
        _oracle(case, args.case, options)
    outcome = target.run(case, schedule, options)
    if outcome.error is not None and outcome.error.kind in (*OUTSIDE_SEMANTICS, "work"):
        kind = outcome.error.kind
        outside = "the kernel is outside the semantics: " if kind in OUTSIDE_SEMANTICS \
            else ""
        raise OracleError(kind, f"{args.case}: {outside}{outcome.error.message}")
    if args.json:
        print(json.dumps(outcome.to_json()))
    else:
        print(_summary(case, run.name, outcome))
    return EXIT_FAIL if outcome.error is not None else EXIT_OK


def _check_outcome_file(args: argparse.Namespace, case: Case, policy: str) -> int:
    """`check --outcome`: the outcome file judged as `--target`'s (its rules: R5 where it
    checks the deopt flag at wave start; default: the rules every target shares), under
    the case's options and `--opt`'s (budgets decide verdicts)."""
    from difftest.campaign.runner import judged
    from difftest.core.jsonio import read_json

    if args.schedules != 1 or args.schedule_seed is not None:
        raise DifftestError("--schedules and --schedule-seed choose the runs of a target: "
                            "with --outcome none runs")
    outcome = Outcome.from_json(read_json(args.outcome), str(args.outcome))
    run = _target_and_options(args.target or "reference", case, args.case, args.opt,
                              announce=False)
    full, error = _oracle(case, args.case, run.options)
    verdict = judged(case, full, error, outcome, run.options, policy,
                     run.target.never_ran_granularity == "wave")[0]
    if args.json:
        print(json.dumps({"case": args.case, "outcome": args.outcome, "target": run.name,
                          "options": run.options, "verdict": verdict.to_json()}))
    else:
        print(f"{args.outcome}: {verdict}")
    return EXIT_OK if verdict.agree else EXIT_FAIL


def cmd_check(args: argparse.Namespace) -> int:
    import dataclasses

    from difftest.campaign.runner import check_case

    case = _load(args)
    policy = args.policy or case.policy
    case = dataclasses.replace(case, policy=policy)  # what a target must support too
    if args.outcome:
        return _check_outcome_file(args, case, policy)
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
    failed = unchecked = 0
    rows = []
    for seed, schedule in schedules:
        res = check_case(case, target, schedule, options, policy, full, None)
        failed += not res.verdict.agree
        unchecked += res.verdict.unchecked
        rows.append({"schedule_seed": seed, "schedule": schedule,
                     "verdict": res.verdict.to_json()})
        if not args.json:
            read = {k: v for k, v in schedule.items() if k in target.schedule_keys}
            label = json.dumps(read, sort_keys=True)  # only what this target reads
            which = "the case's schedule" if seed is None else f"schedule seed {seed}"
            print(f"{which} {label}: {res.verdict}")
    if args.json:
        print(json.dumps({"case": args.case, "target": run.name,
                          "options": options, "checks": rows,
                          "agree": len(schedules) - failed - unchecked,
                          "unchecked": unchecked}))
    else:
        print(f"{len(schedules) - failed - unchecked} of {len(schedules)} schedules agree "
              f"on {run.name}" + (f" ({unchecked} not checked)" if unchecked else "")
              + ("" if not failed or args.schedule_seed is not None
                 or not target.schedule_keys else
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
    import dataclasses

    from difftest.app.report import numbered_source, render_png, status_picture
    from difftest.campaign.runner import check_case
    from difftest.core.fullrun import FullRun
    from difftest.core.verdict import float_buffers, memory_differences

    if args.png is not None and not args.png.strip():
        raise DifftestError("--png needs a file name")
    if args.png:
        from difftest.campaign.corpus import check_destination

        check_destination(args.png, "--png", source=args.case)
    case = _load(args)
    case = dataclasses.replace(case, policy=args.policy or case.policy)
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    reason = _unsupported(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {run.name} cannot run this case: {reason}")
    full, _ = _oracle(case, args.case, options)
    res = check_case(case, target, _schedule(case, args), options, None, full, None)
    if isinstance(res.full, FullRun):
        full = res.full  # (the run that replays the target's returned values)
    print(numbered_source(case.kernel))
    print()
    headline = f"{case.entry}: {case.launch_text} on {run.name}: {res.verdict}"
    print(headline)
    if res.outcome.error is None:
        print(status_picture(case, res.outcome))
        rows, total = memory_differences(full, res.outcome, floats=float_buffers(case))
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


def cmd_sample(args: argparse.Namespace) -> int:
    from difftest.campaign.corpus import check_writable, content_name, write_atomic
    from difftest.campaign.registry import option_readers
    from generators.cases import cases
    from generators.sampling import each

    if args.count < 1:
        raise DifftestError(f"--count must be at least 1, got {args.count}")
    out = Path(args.out)
    check_writable(out, "--out")
    names: set[str] = set()
    readers = option_readers()

    def write(case: Any) -> None:
        # each generated option filed under the targets that read it: the file runs on
        # every target
        obj = case.filed(readers).to_json()
        name = content_name(obj)
        try:
            write_atomic(out / name, json.dumps(obj, indent=1) + "\n")
        except OSError as e:
            raise DifftestError(f"--out {out}: cannot write {name}: {e.strerror or e}") from None
        names.add(name)

    drawn = each(cases(), args.count, args.seed, write)
    dup = drawn - len(names)
    print(f"wrote {len(names)} case files to {out}"
          + (f" ({dup} drawn case{'s' if dup != 1 else ''} repeated an earlier one)"
             if dup else ""))
    return EXIT_OK


def cmd_compile(args: argparse.Namespace) -> int:
    case = _load(args)
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    reason = _unsupported(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {run.name} cannot run this case: {reason}")
    text = target.listing(case, options)
    if text is None:
        raise DifftestError(f"target {run.name} has no compiled code to show")
    print(text)
    return EXIT_OK


def _reference(args: argparse.Namespace, target: Any) -> dict[str, Any]:
    """`export --reduce`'s reference setting, checked before anything is written."""
    from difftest.core.options import parse_cli, validate

    if not args.reference:
        raise DifftestError("--reduce needs --reference KEY=VALUE: a setting the bug does "
                            "not have (icd=PATH, opt=off, cpu_arch=...), which the reduced "
                            "kernel must still give the expected result on")
    return validate(target, parse_cli(args.reference, "--reference"), "--reference")


def _reference_files(case: Case, target: Any, options: dict[str, Any],
                     reference: dict[str, Any], full: Any, files: dict[str, str]
                     ) -> dict[str, str]:
    """The reproducer's files under the reference setting, which must run the source
    the export writes (checked before anything is written)."""
    target.configure({**options, **reference})
    ref = target.reproducer(case, {**options, **reference}, full.outcome())
    kernel = json.loads(ref["data.json"])["kernel_file"]
    target.configure(options)
    if ref[kernel] != files[kernel]:
        raise DifftestError("--reference changes the kernel's translation: the reference "
                            "must run the same source (a driver, a build flag, an "
                            "instruction set)")
    return ref  # type: ignore[no-any-return]


def _reduce_reproducer(args: argparse.Namespace, reference: dict[str, str],
                       out: Path) -> None:
    """`export --reduce`: the kernel's source reduced by C-Vise against the reference
    setting's files (difftest/app/source_reducer.py), into OUT/reduced."""
    import os

    from difftest.app.source_reducer import reduce_source
    from difftest.campaign.corpus import write_atomic

    data = json.loads(reference["data.json"])
    write_atomic(out / "reference.json", reference["data.json"])
    print(f"reducing {data['kernel_file']} with C-Vise for at most {args.reduce:g} s ...",
          flush=True)
    reduced = reduce_source(out, out / "reference.json", args.reduce, os.cpu_count() or 1,
                            note=lambda x: print(x, flush=True))
    before = (out / data["kernel_file"]).read_text()
    after = (reduced / data["kernel_file"]).read_text()

    def size(text: str) -> str:  # (C-Vise's formatting may spread fewer tokens on more lines)
        return f"{len(text.splitlines())} lines, {len(''.join(text.split()))} characters"

    print(f"reduced {data['kernel_file']} from {size(before)} to {size(after)} (without "
          f"spaces): python3 {reduced / 'repro.py'}")


def cmd_export(args: argparse.Namespace) -> int:
    from difftest.campaign.corpus import write_atomic

    if args.reference and args.reduce is None:
        raise DifftestError("--reference is the setting --reduce checks candidates on: "
                            "give --reduce too")
    _seconds(args.reduce, "--reduce")
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
    if full.ordered:
        raise DifftestError(f"{args.case}: its atomics return values, so what it must print "
                            "depends on the order the device takes (docs/semantics.md, "
                            "\"Atomics that return\"): a reproducer compares with one "
                            "expected outcome; check it with difftest check")
    reference = _reference(args, target) if args.reduce is not None else {}
    files = target.reproducer(case, options, full.outcome())
    if files is None:
        raise DifftestError(f"target {run.name} has no standalone reproducer")
    ref_files = (_reference_files(case, target, options, reference, full, files)
                 if args.reduce is not None else {})
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
    if target.reproducer_needs:
        print(f"it needs {target.reproducer_needs}")
    if args.reduce is not None:
        _reduce_reproducer(args, ref_files, out)
    return EXIT_OK


def cmd_record(args: argparse.Namespace) -> int:
    import re

    from difftest.campaign.corpus import check_writable, content_name, corpus_json, save
    from difftest.campaign.runner import check_case
    from difftest.campaign.signature import Signature, launch_wave, setting, shape, verdict_class

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
                          shape(case.program, case.entry, case.n,
                                launch_wave(target.capabilities, case.wave)),
                          setting(options), target.compiler(options))
    case.options = options
    what = "lead" if args.lead else "known bug"
    obj = corpus_json(case, name, {"verdict": "disagree", "rule": verdict.rule},
                      f"{what} {args.finding} of {name}: {verdict}")
    obj["finding"] = args.finding
    obj.pop("lead", None)  # a lead's entry recorded again as the finding it turned out to be
    if args.lead:
        obj["lead"] = True
    obj["signature"] = signature.to_json()
    _not_another_entry(corpus / content_name(obj), obj)
    try:
        path = save(corpus, obj)
    except OSError as e:
        raise DifftestError(f"--corpus {corpus}: cannot write: {e.strerror or e}") from None
    print(f"{args.case}: {verdict}")
    print(f"recorded as {name}'s {what} {args.finding}: {path}")
    return EXIT_OK


def _not_another_entry(path: Path, obj: dict[str, Any]) -> None:
    """An entry already at `path` is this one (its name is a hash of its content, the
    note aside): one that is not was edited, and is neither kept as if it were this
    entry nor overwritten."""
    if not path.exists():
        return
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        held = None
    ours = {k: v for k, v in json.loads(json.dumps(obj)).items() if k != "note"}
    if not isinstance(held, dict) or {k: v for k, v in held.items() if k != "note"} != ours:
        raise DifftestError(f"{path}: exists and holds another entry (edited since it was "
                            "written?): not overwritten; move it away to record this case")


#: the targets that run in this process, opening no device: `upgrade` checks the values
#: of a file's options for them
_IN_PROCESS = ("numba-simt", "reference")


def _options_read(path: Path, case: Case) -> None:
    """Every option the file holds is one its target (or, common, some target) reads:
    `upgrade` rewrote a file every other command refused (the targets' classes say which
    options they read; no device is opened)."""
    from difftest.campaign.registry import option_readers
    from difftest.core.options import COMMON

    readers = option_readers()
    recorded = str(case.extra.get("target", ""))
    from difftest.campaign.registry import load_target, target_names

    if recorded and recorded not in target_names():
        raise DifftestError(f"{path}: target: unknown target {recorded!r} (known: "
                            f"{', '.join(sorted(target_names()))})")
    for key in case.options:
        if key not in COMMON and key not in readers:
            raise DifftestError(f"{path}: options: unknown option {key!r} (no target "
                                "reads it)")
    for target, section in case.target_options.items():
        for key in section:
            if key not in COMMON and target not in readers.get(key, ()):
                which = f"target {target}" + (" (where the file was found)"
                                               if target == recorded else "")
                raise DifftestError(f"{path}: options: unknown option {key!r} for {which}")
    if recorded in _IN_PROCESS:  # its options' values too, as a run checks them
        from difftest.core.options import case_options

        mutants = case.extra.get("mutants")
        case_options(case, load_target(recorded), f"{path}",
                     list(mutants) if isinstance(mutants, list) else None)


def cmd_upgrade(args: argparse.Namespace) -> int:
    from difftest.campaign.corpus import files, write_output
    from difftest.core.case import VERSION
    from difftest.core.jsonio import read_json
    from difftest.core.kernelfile import is_kernel_file

    paths = files(args.paths)
    upgraded = []  # every file read first: one that cannot be stops the command before
    for path in paths:  # any is rewritten
        if is_kernel_file(path):
            raise DifftestError(f"{path}: a kernel file, not a case file (upgrade rewrites "
                                "the JSON files fuzz, reduce, record and sample write)")
        obj = read_json(path)
        if isinstance(obj, dict) and obj.get("version", VERSION) == VERSION:
            continue
        case = load_case(path)  # migrates, or names what is wrong
        _options_read(path, case)
        upgraded.append((path, case))
    for path, case in upgraded:
        write_output(path, json.dumps(case.to_json(), indent=1, sort_keys=True) + "\n")
        print(f"{path}: rewritten as case format version {VERSION}")
    print(f"{len(upgraded)} of {len(paths)} file(s) rewritten")
    return EXIT_OK
