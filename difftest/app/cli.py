"""The `difftest` command line.

Exit codes: 0 success (agree, nothing found); 1 a finding or a failure of the run itself (a
disagreement, a counterexample, a target error, a campaign that checked nothing); 2 bad
input: one line on stderr naming the file, field or option and what is wrong, never a
traceback (a racy kernel is bad input too: it is outside the semantics); 130 / 143
interrupted by Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from difftest.app.commands.campaigns import cmd_fuzz, cmd_hunt, cmd_reduce, cmd_report, cmd_triage
from difftest.app.commands.common import (
    CASE_FORMAT,
    DEFAULT_TARGET,
    EXIT_OK,
    EXIT_USAGE,
    MAX_WORKERS_PER_CORE,
)
from difftest.app.commands.info import cmd_bench, cmd_targets
from difftest.app.commands.one_case import (
    cmd_check,
    cmd_compile,
    cmd_export,
    cmd_record,
    cmd_replay,
    cmd_run,
    cmd_sample,
    cmd_show,
    cmd_upgrade,
)
from difftest.core.errors import DifftestError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _named(text: str) -> str:
    """A file or folder the command writes: an empty name is a mistake, not the default
    (`--out ''` wrote to the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a file or folder name")
    return text


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
    group.add_argument("--group", type=int, default=None, metavar="G",
                       help="workgroup size, a multiple of W (over the header; default W)")
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
                       "running a target: judged as --target's (default: by the rules "
                       "every target shares), under --opt")
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
    ex.add_argument("--out", required=True, type=_named, metavar="DIR",
                    help="an empty or new folder for the reproducer's files")
    ex.add_argument("--reduce", nargs="?", type=float, const=900.0, default=None,
                    metavar="SECONDS", help="also reduce the kernel's source with C-Vise "
                    "(at most SECONDS, default 900) into DIR/reduced: it must keep the "
                    "difference and give the expected result on the --reference setting")
    ex.add_argument("--reference", action="append", default=[], metavar="KEY=VALUE",
                    help="the setting the bug does not have, as --opt takes it (icd=PATH, "
                    "opt=off, cpu_arch=...): the reduction's check that a candidate still "
                    "means what the original did")
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
    fz.add_argument("--corpus", default="counterexamples", type=_named, metavar="DIR",
                    help="where reduced counterexamples are written (default: "
                    "counterexamples; the regression corpus is yours to copy them into)")
    fz.add_argument("--json", type=_named, metavar="FILE", help="also write the summary as JSON")
    fz.add_argument("--known", action="append", default=None, metavar="DIR",
                    help="corpus folder whose recorded target bugs (docs/findings.md) the "
                    "campaign skips, repeatable (default: --corpus, ./corpus and the corpus "
                    "of the clone difftest runs from)")
    fz.add_argument("--stop-on-first", action="store_true",
                    help="stop the campaign at its first counterexample (default: keep "
                    "going, each distinct failure reduced and kept once)")
    fz.add_argument("--database", default=None, metavar="redis://HOST:PORT",
                    help="share the campaign through a Redis server: Hypothesis's example "
                    "database and announced counterexamples (the corpus stays local)")
    fz.add_argument("--reduce-time", type=float, default=None, metavar="SECONDS",
                    help="cap each failure's shrinking and reduction at SECONDS of wall "
                    "clock (default: none; they stop on work, so a seeded campaign keeps "
                    "the same files on any machine, which a cap in seconds gives up)")
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
    hu.add_argument("--reduce-time", type=float, default=None, metavar="SECONDS",
                    help="cap each caught trial's shrinking and reduction at SECONDS of "
                    "wall clock (default: none): the detection rate and the time to the "
                    "first failure do not change, the reduced sizes may be larger")
    hu.add_argument("--corpus", default="counterexamples", type=_named, metavar="DIR",
                    help="where the reduced counterexamples go (default: counterexamples)")
    hu.add_argument("--json", type=_named, metavar="FILE", help="also write the results as JSON")
    hu.set_defaults(func=cmd_hunt)

    rd = command("reduce", "reduce a failing case (any kernel, generated or yours) to a small "
                 "one that fails the same way, and write it")
    rd.add_argument("case", metavar="CASE.json",
                    help="case, corpus or kernel file (.py) that disagrees")
    _add_kernel_file(rd)
    _add_target(rd)
    _add_opt(rd)
    rd.add_argument("--checks", type=int, default=None, metavar="N",
                    help="stop after N candidate checks (default: the target's budget, as a "
                    "campaign's reduction has it: the same result on any machine)")
    rd.add_argument("--time", type=float, default=None, metavar="SECONDS",
                    help="also stop after this long (default: no time limit)")
    _add_schedule_seed(rd)
    rd.add_argument("--out", type=_named, metavar="FILE",
                    help="where to write the reduced case (default: CASE.reduced.json in "
                    "the current folder, not beside a corpus file)")
    rd.set_defaults(func=cmd_reduce)

    rep = command("replay", "replay corpus files or folders: each recorded verdict must "
                  "hold, and every target must agree without mutants")
    rep.add_argument("paths", nargs="+", metavar="PATH", help="corpus file or folder")
    rep.add_argument("--target", action="append", default=None, metavar="NAME",
                     help="replay on this target (repeatable; default: every registered one)")
    rep.add_argument("--json", type=_named, metavar="FILE", help="also write the results as JSON")
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
    rc.add_argument("--lead", action="store_true",
                    help="record it as a lead (shown, not yet argued to the end: "
                    "docs/findings.md's \"Open leads\"): campaigns recognise it, naming it "
                    "a lead")
    _add_opt(rc)
    rc.add_argument("--corpus", default="corpus", type=_named, metavar="DIR",
                    help="the corpus folder to record it in (default: corpus)")
    rc.set_defaults(func=cmd_record)

    tr = command("triage", "group a campaign folder's counterexamples into buckets, one per "
                 "bug as far as the reduced cases tell, the most different first")
    tr.add_argument("folder", metavar="FOLDER", help="a campaign's --corpus folder")
    tr.add_argument("--json", type=_named, metavar="FILE", help="also write the buckets as JSON")
    tr.add_argument("--known", action="append", metavar="DIR",
                    help="corpus folders of known target bugs to link buckets to "
                    "(default: ./corpus and the corpus of the clone difftest runs from)")
    tr.add_argument("--no-probes", action="store_true",
                    help="do not run the findings again under the target's probes (their "
                    "cause is left out: faster, less separated)")
    tr.set_defaults(func=cmd_triage)

    rp = command("report", "one self-contained HTML page about a campaign folder: bugs "
                 "found and how fast, plots over time, each bucket's smallest kernel")
    rp.add_argument("folder", metavar="FOLDER", help="a campaign's --corpus folder")
    rp.add_argument("-o", "--output", default="report.html", type=_named, metavar="FILE",
                    help="the page to write (default report.html)")
    rp.set_defaults(func=cmd_report)


def _other_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The parsers of the rest: sample, upgrade, targets, bench."""
    sm = command("sample", "write N generated cases as case files")
    sm.add_argument("--count", type=int, required=True, metavar="N", help="cases to draw")
    sm.add_argument("--seed", type=int, default=0, help="generation seed (default 0)")
    sm.add_argument("--out", required=True, type=_named, metavar="DIR",
                    help="folder to write them to")
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
    be.add_argument("--json", type=_named, metavar="FILE", help="also write the results as JSON")
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
