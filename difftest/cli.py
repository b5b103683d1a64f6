"""The `difftest` command line.

Exit codes: 0 success; 1 the run itself went wrong (a target error); 2 bad input (one line
on stderr naming the file, field or option, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn, Sequence

from .case import Case, load_case
from .errors import DifftestError
from .outcome import COMPLETED, FAULTED, NEVER_RAN, Outcome

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """`--opt KEY=VALUE` pairs; values that parse as JSON (numbers, true) are typed."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise DifftestError(f"--opt {pair!r}: expected KEY=VALUE")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


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


def _target_and_options(name: str, case: Case | None, pairs: Sequence[str]
                        ) -> tuple[Any, dict[str, Any]]:
    from targets.base import check_options, load_target

    target = load_target(name)
    cli_options = parse_options(pairs)
    check_options(target, cli_options)
    options = {**(case.options if case else {}), **cli_options}
    if isinstance(options.get("mutants"), str):
        options["mutants"] = [m for m in options["mutants"].split(",") if m]
    return target, options


def cmd_run(args: argparse.Namespace) -> int:
    case = load_case(args.case)
    target, options = _target_and_options(args.target, case, args.opt)
    outcome = target.run(case, case.schedule, options)
    if args.json:
        print(json.dumps(outcome.to_json()))
    else:
        print(_summary(case, args.target, outcome))
    return EXIT_FAIL if outcome.error is not None else EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from .runner import check_case, oracle_run
    from .verdict import check_outcome

    case = load_case(args.case)
    policy = args.policy or case.policy
    full, oracle_error = oracle_run(case)
    if args.outcome:
        outcome = Outcome.from_json(_read_json(args.outcome), str(args.outcome))
        verdict = check_outcome(case, full, outcome, policy=policy, oracle_error=oracle_error)
        print(f"{args.outcome}: {verdict}")
        return EXIT_OK if verdict.agree else EXIT_FAIL
    target, options = _target_and_options(args.target, case, args.opt)
    if args.schedules < 1:
        raise DifftestError(f"--schedules must be at least 1, got {args.schedules}")
    schedules = [case.schedule]
    if args.schedules > 1:
        from generators.sampling import draw
        from generators.schedules import schedules as schedule_strategy

        schedules += draw(schedule_strategy(), args.schedules - 1, args.seed)
    failed = 0
    for i, schedule in enumerate(schedules):
        res = check_case(case, target, schedule, options, policy, full, oracle_error)
        failed += not res.verdict.agree
        label = json.dumps(schedule, sort_keys=True) if schedule else "{}"
        print(f"schedule {i} {label}: {res.verdict}")
    print(f"{len(schedules) - failed} of {len(schedules)} schedules agree on {args.target}")
    return EXIT_OK if not failed else EXIT_FAIL


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise DifftestError(f"{path}: no such file") from None
    except json.JSONDecodeError as e:
        raise DifftestError(f"{path}: malformed JSON at line {e.lineno} column {e.colno}: "
                            f"{e.msg}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise DifftestError(f"{path}: cannot read: {e}") from None


def cmd_replay(args: argparse.Namespace) -> int:
    from targets.base import load_target, target_names

    from .corpus import entries, files
    from .runner import replay

    names = args.target or target_names()
    for name in names:
        load_target(name)  # unknown target: exit 2 before replaying anything
    paths = files(args.paths)
    bad = failed = passed = 0
    for entry in entries(list(paths)):
        if entry.case is None:
            bad += 1
            print(f"error {entry.error}")
            continue
        for res in replay(entry.case, entry.target, entry.mutants, entry.expected, names):
            print(f"{entry.path.name}: {res.describe()}")
            passed += res.ok
            failed += not res.ok
    print(f"{passed} passed, {failed} failed" + (f", {bad} malformed" if bad else ""))
    if bad:
        return EXIT_USAGE
    return EXIT_FAIL if failed else EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from .report import render_png, status_picture, numbered_source
    from .runner import check_case

    case = load_case(args.case)
    target, options = _target_and_options(args.target, case, args.opt)
    res = check_case(case, target, options=options, policy=args.policy)
    print(numbered_source(case.kernel))
    print()
    print(f"{case.entry}: n={case.n} wave={case.wave} on {args.target}: {res.verdict}")
    if res.outcome.error is None:
        print(status_picture(case, res.outcome))
    if args.png:
        render_png(case, res.outcome, args.png)
        print(f"wrote {args.png}")
    return EXIT_OK if res.verdict.agree else EXIT_FAIL


def _workers(text: str) -> int:
    import os

    if text == "auto":
        return os.cpu_count() or 1
    try:
        value = int(text)
    except ValueError:
        raise DifftestError(f"--workers must be a number or 'auto', got {text!r}") from None
    if value < 1:
        raise DifftestError(f"--workers must be at least 1, got {value}")
    return value


def cmd_fuzz(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .fuzz import FuzzConfig, format_summary, fuzz

    _, options = _target_and_options(args.target, None, args.opt)
    if args.time is not None and args.time <= 0:
        raise DifftestError(f"--time must be positive, got {args.time}")
    if args.examples is not None and args.examples < 1:
        raise DifftestError(f"--examples must be at least 1, got {args.examples}")
    corpus = Path(args.corpus)
    if corpus.exists() and not corpus.is_dir():
        raise DifftestError(f"--corpus {corpus}: not a folder")
    seconds = args.time if args.time is not None or args.examples is not None else 60.0
    config = FuzzConfig(target=args.target, seconds=seconds, examples=args.examples,
                        workers=_workers(args.workers), seed=args.seed, options=options,
                        corpus=corpus)
    summary = fuzz(config)
    print(format_summary(summary, args.target))
    return EXIT_FAIL if summary.failures else EXIT_OK


def cmd_sample(args: argparse.Namespace) -> int:
    from pathlib import Path

    from generators.cases import cases
    from generators.sampling import draw

    from .corpus import content_name, write_atomic

    if args.count < 1:
        raise DifftestError(f"--count must be at least 1, got {args.count}")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise DifftestError(f"--out {out}: not a folder")
    written = 0
    for case in draw(cases(), args.count, args.seed):
        obj = case.to_json()
        write_atomic(out / content_name(obj), json.dumps(obj, indent=1) + "\n")
        written += 1
    print(f"wrote {written} case files to {out}")
    return EXIT_OK


def cmd_compile(args: argparse.Namespace) -> int:
    from targets.numba_simt.target import compile_case

    case = load_case(args.case)
    _, options = _target_and_options("numba-simt", case, args.opt)
    print(compile_case(case, options).listing)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from targets.numba_simt.bench import main_bench

    return main_bench(args.json, args.quick)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="difftest", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run a case file on one target and print the outcome")
    run.add_argument("case", help="case file (JSON)")
    run.add_argument("--target", default="reference", help="target name (default: reference)")
    run.add_argument("--json", action="store_true", help="print the outcome as JSON")
    run.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                     help="target option (repeatable)")
    run.set_defaults(func=cmd_run)

    check = sub.add_parser("check", help="run a case on the oracle and a target; print the verdict")
    check.add_argument("case", help="case file (JSON)")
    check.add_argument("--target", default="reference")
    check.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE")
    check.add_argument("--schedules", type=int, default=1, metavar="K",
                       help="check the case's schedule and K-1 generated ones")
    check.add_argument("--seed", type=int, default=0, help="seed for generated schedules")
    check.add_argument("--policy", choices=("stream", "sequential"), default=None)
    check.add_argument("--outcome", metavar="FILE",
                       help="check this outcome (difftest run --json format) instead of a target")
    check.set_defaults(func=cmd_check)

    rep = sub.add_parser("replay", help="replay corpus files or folders")
    rep.add_argument("paths", nargs="+", metavar="PATH")
    rep.add_argument("--target", action="append", default=None,
                     help="replay on this target (repeatable; default: every registered one)")
    rep.set_defaults(func=cmd_replay)

    show = sub.add_parser("show", help="print a case's kernel, verdict and status picture")
    show.add_argument("case")
    show.add_argument("--target", default="reference")
    show.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE")
    show.add_argument("--policy", choices=("stream", "sequential"), default=None)
    show.add_argument("--png", metavar="FILE", help="also write the status picture as a PNG")
    show.set_defaults(func=cmd_show)

    fz = sub.add_parser("fuzz", help="fuzz campaign: generated cases on a target vs the oracle")
    fz.add_argument("--target", default="reference")
    budget = fz.add_mutually_exclusive_group()
    budget.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="stop after this long (default 60 s)")
    budget.add_argument("--examples", type=int, default=None, metavar="N",
                        help="stop after N generated kernels")
    fz.add_argument("--workers", default="1", metavar="N|auto")
    fz.add_argument("--seed", type=int, default=0)
    fz.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE")
    fz.add_argument("--corpus", default="corpus", metavar="DIR",
                    help="where shrunk counterexamples are written (default: corpus)")
    fz.set_defaults(func=cmd_fuzz)

    sm = sub.add_parser("sample", help="write N generated cases as case files")
    sm.add_argument("--count", type=int, required=True, metavar="N")
    sm.add_argument("--seed", type=int, default=0)
    sm.add_argument("--out", required=True, metavar="DIR")
    sm.set_defaults(func=cmd_sample)

    co = sub.add_parser("compile", help="print numba-simt's machine code for a case's kernel")
    co.add_argument("case")
    co.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE")
    co.set_defaults(func=cmd_compile)

    be = sub.add_parser("bench", help="numba-simt speed vs a hand-written @njit loop and the oracle")
    be.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    be.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    be.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except DifftestError as e:
        print(f"difftest: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
