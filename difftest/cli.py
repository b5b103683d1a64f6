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


def cmd_run(args: argparse.Namespace) -> int:
    from targets.base import load_target

    case = load_case(args.case)
    target = load_target(args.target)
    options = {**case.options, **parse_options(args.opt)}
    outcome = target.run(case, case.schedule, options)
    if args.json:
        print(json.dumps(outcome.to_json()))
    else:
        print(_summary(case, args.target, outcome))
    return EXIT_FAIL if outcome.error is not None else EXIT_OK


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
