"""The campaign commands: fuzz, reduce, hunt, triage, report."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from difftest.core.errors import DifftestError

from .common import (
    DEFAULT_TARGET,
    EXIT_CAMPAIGN,
    EXIT_FAIL,
    EXIT_OK,
    _campaign_folder,
    _check_json_destination,
    _load,
    _oracle,
    _schedule,
    _seconds,
    _signals_stop,
    _target_and_options,
    _unsupported,
    _workers,
    _write_json,
    default_known,
)


def cmd_fuzz(args: argparse.Namespace) -> int:
    from difftest.campaign.corpus import check_writable
    from difftest.campaign.fuzz import FuzzConfig, Interrupted, format_summary, fuzz, summary_json

    run = _target_and_options(args.target, None, "", args.opt, announce=False)
    options = run.options
    _seconds(args.time, "--time")
    if args.reduce_time is not None:
        _seconds(args.reduce_time, "--reduce-time")
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
    known = _known(args.known) if args.known else default_known(corpus)
    config = FuzzConfig(target=run.name, seconds=seconds, examples=args.examples,
                        workers=_workers(args.workers), seed=args.seed, options=options,
                        corpus=corpus, database=database, stop_on_first=args.stop_on_first,
                        known=list(dict.fromkeys(known)), reduce_seconds=args.reduce_time)
    try:
        summary = fuzz(config)
    except Interrupted as stop:
        print(format_summary(stop.summary, run.name))
        print(f"interrupted ({stop.signal_name}): the summary above is the campaign so far")
        _write_json(args.json, summary_json(stop.summary, run.name, stop.signal_name))
        return stop.exit_code
    print(format_summary(summary, run.name))
    _write_json(args.json, summary_json(summary, run.name))
    if summary.found or summary.unreduced:
        return EXIT_FAIL
    if summary.cases == 0:
        print("fuzz: no case was checked, so nothing was tested (see the messages above)")
        return EXIT_CAMPAIGN
    return EXIT_CAMPAIGN if summary.errors else EXIT_OK


def cmd_reduce(args: argparse.Namespace) -> int:
    import dataclasses
    import time

    from difftest.campaign.corpus import check_destination, corpus_json, write_atomic
    from difftest.campaign.reduce import reduce_case, size
    from difftest.campaign.runner import Recheck, check_case, confirmed, still_fails
    from difftest.campaign.signature import verdict_class

    case = _load(args)
    out = Path(args.out) if args.out else Path(Path(args.case).stem + ".reduced.json")
    check_destination(out, "--out", source=args.case)
    if args.time is not None:
        _seconds(args.time, "--time")
    if args.checks is not None and args.checks < 1:
        raise DifftestError(f"--checks must be at least 1, got {args.checks}")
    run = _target_and_options(args.target, case, args.case, args.opt)
    target, options = run.target, run.options
    reason = _unsupported(target, case)
    if reason:
        raise DifftestError(f"{args.case}: target {run.name} cannot run this case: {reason}")
    case = dataclasses.replace(case, options=options, schedule=_schedule(case, args))
    full, _ = _oracle(case, args.case, options)
    verdict = check_case(case, target, case.schedule, None, None, full, None).verdict
    if verdict.agree:
        raise DifftestError(f"{args.case}: the case agrees on {run.name}: there is no "
                            "failure to keep while reducing")
    start = time.monotonic()
    with _signals_stop() as stopped:  # before the verdict line: a stop after it is caught
        print(f"{args.case}: {verdict}", flush=True)
        checks = args.checks if args.checks is not None else target.reduce_checks
        # candidates past a limit count as the hang they are reduced for (a timeout
        # each, as many as --checks); the case kept is checked with the full patience
        failure = verdict_class(verdict)
        reduced, stats = reduce_case(case, still_fails(target, case, verdict.rule, failure,
                                                       Recheck(target, checks)),
                                     args.time, target.option_variants,
                                     stop=lambda: bool(stopped), checks=checks)
        reduced, final_check = confirmed([reduced, case] if reduced is not case else [case],
                                         target, failure)
        mutants = list(reduced.options.get("mutants", []))
        plain = dataclasses.replace(reduced, options={k: v for k, v in reduced.options.items()
                                                      if k != "mutants"})
        expected = case.extra.get("expected") or (
            {"verdict": "disagree", "rule": verdict.rule} if mutants else {"verdict": "agree"})
        final = final_check.verdict  # the note's words
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
    changes = [f"{s0} -> {s1} statements", f"n {n0} -> {n1}"]
    if len(case.kernel) != len(reduced.kernel):
        changes.append(f"kernel text {len(case.kernel)} -> {len(reduced.kernel)} characters")
    if len(case.host or ()) != len(reduced.host or ()):
        changes.append(f"host steps {len(case.host or ())} -> {len(reduced.host or ())}")
    if (s0, n0, len(case.kernel)) == (s1, n1, len(reduced.kernel)) and reduced is not case:
        changes.append("inputs, schedule or options simpler")
    if reduced is case:
        changes = ["nothing smaller fails the same way"]
    why = ("" if stats.finished else
           f", stopped by {stopped[0]}" if stopped else
           ", stopped at the time limit" if stats.cut_by_time else
           f", stopped at its budget of {_checks(checks)}")
    print(f"reduced: {', '.join(changes)}, in {time.monotonic() - start:.1f} s "
          f"({_checks(stats.checks)}{why})")
    print(f"wrote {out}")
    if stopped:
        import signal

        return 128 + int(signal.Signals[stopped[0]])
    return EXIT_OK


def _checks(k: int) -> str:
    return f"{k} check" + ("" if k == 1 else "s")


def cmd_hunt(args: argparse.Namespace) -> int:
    import signal

    from difftest.campaign.hunt import HuntInterrupted, format_table, hunt, to_json, write_json
    from difftest.campaign.registry import load_target

    args.target = args.target or DEFAULT_TARGET
    target = load_target(args.target)
    names = tuple(target.mutant_names)
    seeds = dict(target.mutant_seeds)
    helps = dict(target.mutant_help)
    if not names:
        raise DifftestError(f"target {args.target} has no mutants to hunt")
    if args.list:
        for name in names:
            print(f"{name}\t{seeds.get(name, '')}\t{helps.get(name, '')}")
        return EXIT_OK
    chosen = list(names) if args.mutants == "all" else [
        m for m in args.mutants.split(",") if m]
    if not chosen:
        raise DifftestError("--mutants: no mutant named (NAME,NAME,... or all; `difftest "
                            "hunt --list` lists them)")
    for m in chosen:
        if m not in names:
            raise DifftestError(f"--mutants: unknown mutant '{m}' for target {args.target} "
                                "(`difftest hunt --list` lists them)")
    if args.trials < 1:
        raise DifftestError(f"--trials must be at least 1, got {args.trials}")
    seconds = _seconds(args.time, "--time") or 60.0
    reduce_seconds = _seconds(args.reduce_time, "--reduce-time")
    from difftest.campaign.corpus import check_writable

    corpus = Path(args.corpus)
    check_writable(corpus, "--corpus")
    _check_json_destination(args.json)
    workers = _workers(args.workers)
    settings = {"target": args.target, "trials": args.trials, "time_s": seconds,
                "workers": workers, "seed": args.seed, "reduce_time_s": reduce_seconds}
    try:
        with _signals_stop() as between:  # a campaign sets its own handlers while it runs
            results = hunt(args.target, chosen, seeds, args.trials, seconds, workers,
                           args.seed, corpus, stopped=lambda: int(
                               signal.Signals[between[0]]) if between else None,
                           reduce_seconds=reduce_seconds)
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
    from difftest.campaign.findings import known_findings
    from difftest.campaign.triage import (buckets, format_buckets, link_known, load_findings,
                                          probe_causes, triage_json)

    folder = _campaign_folder(args.folder, "triage")
    _check_json_destination(args.json)
    findings = load_findings(folder)
    if not args.no_probes:
        probe_causes(findings)
    bs = buckets(findings)
    known = _known(args.known) if args.known else default_known()
    link_known(bs, known_findings([p for p in known if p.exists()]))
    print(format_buckets(bs, len(findings)))
    if args.json:
        _write_json(args.json, triage_json(bs, folder, len(findings)))
        print(f"wrote {args.json}")
    return EXIT_OK


def _known(given: list[str]) -> list[Path]:
    """`--known` paths: each a corpus folder or file that exists (one mistyped path
    silently turned known-bug recognition off, and known bugs came back as new), and a
    note where none holds a known bug."""
    from difftest.campaign.findings import known_findings

    paths = [Path(p) for p in given]
    for p in paths:
        if not p.exists():
            raise DifftestError(f"--known {p}: no such folder or file")
    if not known_findings(paths):
        print(f"note: --known {', '.join(given)}: no known bug recorded there (corpus "
              "entries with \"finding\" and \"signature\"): every failure counts as new",
              file=sys.stderr)
    return paths


def cmd_report(args: argparse.Namespace) -> int:
    from difftest.app.campaign_report import build_report
    from difftest.campaign.corpus import check_destination, write_output

    folder = _campaign_folder(args.folder, "report")
    out = Path(args.output)
    check_destination(out, "-o")
    write_output(out, build_report(folder), "-o")
    print(f"wrote {out}")
    return EXIT_OK
