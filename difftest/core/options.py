"""Run options: the ones every target and the oracle honour, and the one validation path
for options from any source (`--opt`, a case file's `options`, a corpus file).

Common options (docs/semantics.md, "Budgets"):
- `step_budget`: loop trips one workitem may run (default 100,000);
- `work_budget`: loop trips the whole launch may run (default 1,000,000); it is shared out
  evenly, so each workitem may run `min(step_budget, work_budget // n)` trips. A budget
  of work, not time: the same case stops at the same point on every machine, and the
  oracle's full run never does more than `work_budget` trips in all;
- `mutants`: names of the target's injected bugs to switch on (a list; on the command
  line `--opt mutant=NAME`, repeatable, or `--opt mutants=A,B`);
- `avoid`: known bugs of the target's compilers whose triggers its translation spells
  another way (`Target.avoidable`; names, or "all"), so that a campaign finds the next
  ones. Every target takes it: `avoid=all` on one with nothing to avoid avoids nothing,
  so one campaign command serves every target.
A target adds its own through `option_names` and checks their values in
`validate_options(options)` (raising `DifftestError`); likewise the values of the schedule
keys it reads, in `validate_schedule(schedule)`.
"""

from __future__ import annotations

import json
from typing import Any
from collections.abc import Sequence

from difftest.core.errors import DifftestError, NotOnThisMachine
from difftest.core.outcome import TargetError

DEFAULT_STEP_BUDGET = 100_000
DEFAULT_WORK_BUDGET = 1_000_000
MAX_BUDGET = 10**12
COMMON = ("step_budget", "work_budget", "mutants", "avoid")


class OptionError(DifftestError):
    """An unknown option or mutant, or a value of the wrong kind."""


def trip_budget(options: dict[str, Any], n: int) -> int:
    """Loop trips each of the launch's `n` workitems may run (options already valid)."""
    step = options.get("step_budget", DEFAULT_STEP_BUDGET)
    work = options.get("work_budget", DEFAULT_WORK_BUDGET)
    return int(min(step, work // max(1, n)))


def describe_budget(options: dict[str, Any], n: int) -> str:
    """The budget in words, for the `step_budget` error both sides report."""
    step = options.get("step_budget", DEFAULT_STEP_BUDGET)
    work = options.get("work_budget", DEFAULT_WORK_BUDGET)
    return (f"{trip_budget(options, n)} loop trips per workitem (step_budget {step}, "
            f"work_budget {work} over {n} workitems)")


def out_of_budget(gid: int, described: str) -> TargetError:
    """The `step_budget` error, the same words from every producer (the oracle, numba-simt,
    the translated targets); `described`: `describe_budget`'s."""
    return TargetError("step_budget", f"workitem {gid} ran out of its budget of {described}")


def parse_cli(pairs: Sequence[str], flag: str = "--opt") -> dict[str, Any]:
    """`--opt KEY=VALUE` pairs (or those of another `flag`); values that parse as JSON
    (numbers, true) are typed, and `mutants=a,b` becomes a list."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(f"{flag} {pair!r}: expected KEY=VALUE")
        if key in ("mutants", "mutant"):  # --opt mutant=a --opt mutant=b, or mutants=a,b
            prior = out.get("mutants", [])
            out["mutants"] = prior + [m for m in value.split(",") if m]
            continue
        try:
            out[key] = json.loads(value)
        except (json.JSONDecodeError, ValueError, RecursionError):
            out[key] = value
    return out


def validate(target: Any, options: Any, where: str = "options") -> dict[str, Any]:
    """Check `options` for `target`; returns them unchanged or raises OptionError naming
    `where`, the option and what was expected."""
    if not isinstance(options, dict):
        raise OptionError(f"{where}: expected an object of options, got {_short(options)}")
    name = target.name
    known = tuple(target.option_names) + COMMON
    for key in options:
        if key not in known:
            raise OptionError(f"{where}: unknown option '{key}' for target {name} "
                              f"(known: {', '.join(sorted(set(known)))})")
    for key in ("step_budget", "work_budget"):
        if key in options:
            v = options[key]
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_BUDGET:
                raise OptionError(f"{where}: option {key}={_short(v)}: expected an integer "
                                  f"in 1..{MAX_BUDGET}")
    mutants = options.get("mutants", [])
    if not isinstance(mutants, list) or not all(isinstance(m, str) for m in mutants):
        raise OptionError(f"{where}: option mutants={_short(mutants)}: expected a list of "
                          "mutant names")
    known_mutants = tuple(target.mutant_names)
    for m in mutants:
        if m not in known_mutants:
            raise OptionError(f"{where}: unknown mutant '{m}' for target {name} (known: "
                              f"{', '.join(known_mutants) or 'none'}; `difftest targets` "
                              "lists them)")
    if "avoid" in options:
        _check_avoid(target, options["avoid"], where)
    _target_check(target.validate_options, options, where)
    return options


def avoided(target: Any, value: Any) -> frozenset[str]:
    """The known bugs an `avoid` value names ("a,b", a list, or "all": every one
    `target.avoidable` lists)."""
    names = _avoid_names(value)
    avoidable = tuple(getattr(target, "avoidable", ()))
    return frozenset(avoidable if "all" in names else names)


def _avoid_names(value: Any) -> list[str]:
    """The names an `avoid` value gives ("a,b" or a list), "all" among them if it is."""
    names = value.split(",") if isinstance(value, str) else list(value)
    return [x.strip() for x in names if x.strip()]


def _check_avoid(target: Any, value: Any, where: str) -> None:
    if not isinstance(value, (str, list)) or not all(
            isinstance(x, str) for x in (value if isinstance(value, list) else [value])):
        raise OptionError(f"{where}: option avoid={_short(value)}: expected names of known "
                          "bugs, or all")
    avoidable = tuple(getattr(target, "avoidable", ()))
    # ("all" beside other names: the others are checked all the same)
    unknown = set(_avoid_names(value)) - {"all"} - set(avoidable)
    if unknown:
        raise OptionError(f"{where}: option avoid: unknown {', '.join(sorted(unknown))} for "
                          f"target {target.name} (known: {', '.join(avoidable) or 'none'}, "
                          "or all)")


def case_options(case: Any, target: Any, where: str, mutants: list[str] | None = None,
                 overridden: frozenset[str] = frozenset()) -> tuple[dict[str, Any], list[str]]:
    """What a run of `case` on `target` takes from the case file, validated (OptionError
    names `where`): its common options and its section for the target (with `mutants`,
    when given, in place of any it holds), its schedule checked too; and the options it
    leaves aside (another target's). Options in `overridden` (the command line's) are
    left out unchecked: a recorded device=gpu must not stop a run asked for on the CPU.
    The one way the command line and the corpus replay read a case's options."""
    own, aside = case.options_for(target.name, tuple(target.option_names))
    own = {k: v for k, v in own.items() if k not in overridden}
    if mutants is not None:
        own = {k: v for k, v in own.items() if k != "mutants"}
        if mutants:
            own["mutants"] = list(mutants)
    validate(target, own, f"{where}: options")
    validate_schedule(target, case.schedule, where)
    return own, aside


def validate_schedule(target: Any, schedule: dict[str, Any], where: str = "case"
                      ) -> None:
    """Check the values of the schedule keys `target` reads (its `validate_schedule`); a
    schedule is an open mapping, so keys for other targets pass."""
    _target_check(target.validate_schedule, schedule, where)


def _target_check(check: Any, value: Any, where: str) -> None:
    """The target's own check of `value`; its error named by `where`."""
    try:
        check(value)
    except NotOnThisMachine as e:  # valid, but not here: the kind stays for replay
        raise NotOnThisMachine(f"{where}: {e}") from None
    except DifftestError as e:
        raise OptionError(f"{where}: {e}") from None


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."
