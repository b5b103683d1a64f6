"""Runs a case on the oracle and on a target and returns the verdict.

The one place that wires oracle, target and checker together; the CLI, the fuzz loop, the
corpus replay and the pytest plugin all go through `check_case`.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from difftest.core.case import Case
from difftest.core.fullrun import OracleRun
from difftest.core.outcome import Outcome, TargetError
from difftest.core.verdict import Verdict, check_outcome


@dataclass
class CheckResult:
    verdict: Verdict
    outcome: Outcome
    full: OracleRun | None  # None when the oracle failed
    oracle_error: TargetError | None
    schedule: dict[str, Any]


def oracle_run(case: Case, options: dict[str, Any] | None = None,
               returned: list[list[int]] | None = None, skipped: frozenset[int] = frozenset()
               ) -> tuple[OracleRun | None, TargetError | None]:
    """The oracle's full run under the budgets of `options` (default: the case's), or
    (None, error) for a racy kernel (whose verdict the checker still gives: a target must
    report the race too). A kernel past the oracle's work limit raises OracleError: no
    verdict can be given."""
    from difftest.core.errors import OUTSIDE_SEMANTICS, OracleError
    from difftest.campaign.registry import load_oracle

    opts = {**case.options, **(options or {})}
    try:
        if case.host is not None:
            return load_oracle().run_host(case, opts), None
        if returned is not None:
            return load_oracle().run_full(case, opts, returned, skipped=skipped), None
        return load_oracle().run_full(case, opts), None
    except OracleError as e:
        if e.kind not in OUTSIDE_SEMANTICS:
            raise
        return None, TargetError(e.kind, e.message)


def replayed(case: Case, full: OracleRun | None, oracle_error: TargetError | None,
             outcome: Outcome, options: dict[str, Any] | None = None
             ) -> tuple[OracleRun | None, TargetError | None]:
    """The oracle run to check `outcome` against: in a kernel whose atomics are ordered,
    the run replaying the values the target's atomics returned (docs/semantics.md,
    "Atomics that return"); otherwise the one given."""
    from difftest.core.fullrun import FullRun

    if not (isinstance(full, FullRun) and full.ordered and outcome.error is None
            and outcome.returned is not None and len(outcome.status) == case.n):
        return full, oracle_error  # (a status of the wrong length fails R2 first)
    from difftest.core.outcome import NEVER_RAN

    skipped = frozenset(g for g, s in enumerate(outcome.status) if s == NEVER_RAN)
    if not skipped and outcome.returned == full.returned:
        return full.as_replayed(), oracle_error  # the replay would be this run again
    # the fuzz loop checks several schedules against one run, and a quarter of the
    # replays its schedules ask for are one asked for before (the same values returned)
    key = ("replay", tuple(map(tuple, outcome.returned)), skipped,
           repr(sorted((options or {}).items())))
    if key not in full.derived:
        full.derived[key] = _replay(case, options, outcome.returned, skipped)
    hit: tuple[OracleRun | None, TargetError | None] = full.derived[key]
    return hit


def _replay(case: Case, options: dict[str, Any] | None, returned: list[list[int]],
            skipped: frozenset[int]) -> tuple[OracleRun | None, TargetError | None]:
    from difftest.campaign.registry import load_oracle
    from difftest.core.errors import OracleError

    again, error = oracle_run(case, options, returned, skipped)
    if error is None or error.kind != "race":
        return again, error
    try:  # the values may be wrong: the checker orders them first (R4)
        unraced = load_oracle().run_full(case, {**case.options, **(options or {})},
                                         returned, races=False, skipped=skipped)
    except OracleError:
        return again, error
    unraced.replay_error = f"{error.kind}: {error.message}"
    return unraced, None


def undefined_in_run(target: Any, full: OracleRun | None) -> str | None:
    """Why this oracle run's results are undefined on `target`, or None: the run-time
    half of what it cannot promise (the static half is its `unsupported(case)`) --
    under the `uniform` reconvergence model a wave operation some wave ran with part of
    its lanes; on a target that may flush subnormals (`flushes_subnormals`), a
    subnormal f32 or f64 anywhere in the run; on one that ends long loops
    (`loop_limit`), a workitem running more loop trips than it lets run."""
    from difftest.core.fullrun import FullRun
    from difftest.core.reconvergence import UNIFORM

    if not isinstance(full, FullRun):
        return None
    if target.reconvergence == UNIFORM and full.partial_wave_op is not None:
        return (f"{full.partial_wave_op}, where its reconvergence model ({UNIFORM}) "
                "leaves the result undefined")
    if getattr(target, "flushes_subnormals", False) and full.subnormal is not None:
        return (f"{full.subnormal}, which its device may flush to zero (it cannot be asked "
                "to preserve subnormals)")
    limit = getattr(target, "loop_limit", None)
    if limit is not None and full.trips and max(full.trips) > limit:
        g = max(range(len(full.trips)), key=full.trips.__getitem__)
        return (f"workitem {g} runs {full.trips[g]} loop trips, past the {limit} its device "
                "runs for sure (Mesa's gallivm ends a shader's loops after 65,535 "
                "iterations in all)")
    return None


def _undefined_at_run_time(target: Any, case: Case) -> bool:
    """Whether `target` may leave some runs of `case` undefined (so its oracle run must
    be looked at)."""
    from difftest.core.ir.walk import f32_use, f64_use
    from difftest.core.reconvergence import UNIFORM

    return target.reconvergence == UNIFORM or getattr(target, "loop_limit", None) \
        is not None or (
        getattr(target, "flushes_subnormals", False)
        and (f32_use(case.program, case.entry) is not None
             or f64_use(case.program, case.entry) is not None))


def unchecked(case: Case) -> str | None:
    """Why no target runs `case`, whatever it declares (None when one may): a case the
    checker has no rules for."""
    from difftest.core.ir.walk import has_ordered_atomics

    if case.host is not None and has_ordered_atomics(case.program, case.entry):
        return ("a host program's kernel has atomics that return (the checker orders one "
                "launch's atomics, not a program's: docs/semantics.md, \"Atomics that "
                "return\")")
    return None


def declined(target: Any, case: Case) -> str | None:
    """Why `target` cannot run `case` before any run (None when it can): a case no target
    runs, or one it declares it cannot."""
    why: str | None = unchecked(case) or target.unsupported(case)
    return why


def cannot_run(target: Any, case: Case, options: dict[str, Any] | None = None
               ) -> str | None:
    """Why `target` cannot run `case` (None when it can): what it declares it cannot,
    and a run it leaves undefined (`undefined_in_run`: this runs the oracle when the
    target may leave one)."""
    why = declined(target, case)
    if why is not None or not _undefined_at_run_time(target, case):
        return why
    full, _ = oracle_run(case, options)
    return undefined_in_run(target, full)


def target_options(target: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The options `target` reads: the common ones and its own (generated cases carry
    numba-simt's compile options, which another target would reject)."""
    from difftest.core.options import COMMON

    own = set(target.option_names) | set(COMMON)
    return {k: v for k, v in options.items() if k in own}


def run_target(target: Any, case: Case, schedule: dict[str, Any],
               options: dict[str, Any]) -> Outcome:
    """A target's outcome; an exception escaping the target is an `internal` error (R0),
    never a crash of the harness."""
    try:
        outcome: Outcome = target.run(case, schedule, options)
        return outcome
    except Exception as e:  # noqa: BLE001 - a target crash is a finding, not our crash
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return Outcome(case.buffers(), None, [], error=TargetError("internal", tb))


def check_case(case: Case, target: Any, schedule: dict[str, Any] | None = None,
               options: dict[str, Any] | None = None, policy: str | None = None,
               full: OracleRun | None = None, oracle_error: TargetError | None = None
               ) -> CheckResult:
    """Verdict for one (case, schedule, options) on `target`. Pass `full` to reuse one
    oracle run across several schedules of the same case."""
    options = {**case.options, **(options or {})}
    if full is None and oracle_error is None:
        full, oracle_error = oracle_run(case, options)
    schedule = dict(case.schedule if schedule is None else schedule)
    outcome = run_target(target, case, schedule, options)
    verdict, full, oracle_error = judged(case, full, oracle_error, outcome, options, policy,
                                         target.never_ran_granularity == "wave")
    return CheckResult(verdict, outcome, full, oracle_error, schedule)


def judged(case: Case, full: OracleRun | None, oracle_error: TargetError | None,
           outcome: Outcome, options: dict[str, Any] | None = None,
           policy: str | None = None, wave_granularity: bool = False
           ) -> tuple[Verdict, OracleRun | None, TargetError | None]:
    """The verdict on `outcome` (and the oracle run it was judged by: `replayed`). A
    replay of the target's returned values past the oracle's work limit, where its own
    run stays under it, leaves the outcome unordered: values a run could return may ask
    for more work than the oracle's order did, so it is no disagreement, and a campaign
    counts it on the line of runs whose atomics the checker could not order."""
    from difftest.core.errors import OracleError
    from difftest.core.verdict import unordered

    try:
        full, oracle_error = replayed(case, full, oracle_error, outcome, options)
    except OracleError:
        return unordered("the oracle's replay of the values they returned runs past its "
                         "work limit, which its own run stays under"), full, oracle_error
    return check_outcome(case, full, outcome, policy=policy,
                         wave_granularity=wave_granularity,
                         oracle_error=oracle_error), full, oracle_error


@dataclass
class ReplayResult:
    target: str
    mutants: list[str]
    ok: bool
    verdict: Verdict | None
    expected: dict[str, Any]
    problem: str = ""  # why it could not be replayed (bad options)
    known: str = ""    # the known target bug (difftest.campaign.findings) that explains it
    skipped: str = ""  # why it was not run: its recorded target is not installed here

    def describe(self) -> str:
        conf = self.target + (f" +{','.join(self.mutants)}" if self.mutants else "")
        if self.skipped:
            return f"skip {conf}: {self.skipped}"
        if self.problem:
            return f"FAIL {conf}: {self.problem}"
        want = self.expected.get("verdict")
        if self.expected.get("rule"):
            want = f"{want} ({self.expected['rule']})"
        if self.known:
            return (f"ok {conf}: the known bug {self.known} of this target "
                    f"({self.verdict})")
        return f"{'ok' if self.ok else 'FAIL'} {conf}: expected {want}, got {self.verdict}"


def _matches(verdict: Verdict, expected: dict[str, Any]) -> bool:
    if expected.get("verdict") == "agree":
        return verdict.agree
    return not verdict.agree and expected.get("rule") in (None, verdict.rule)


def replay(case: Case, recorded_target: str, mutants: list[str], expected: dict[str, Any],
           targets: list[str], known: list[Any] | None = None) -> list[ReplayResult]:
    """Replay one corpus case: the recorded configuration must give the recorded verdict,
    and every target in `targets` without mutants must agree with the oracle (a target
    that cannot run the case, by its declared capabilities, is skipped) -- or disagree in
    a way one of its `known` findings explains (difftest.campaign.findings). A target that is not
    installed is skipped (`skipped`: the recorded configuration on a machine without its
    runtime); options a target rejects fail this case alone."""
    from difftest.campaign.findings import explain

    from difftest.core.errors import DifftestError, NotOnThisMachine
    from difftest.core.options import case_options
    from difftest.campaign.registry import TargetNotInstalled, load_target

    full, oracle_error = oracle_run(case)
    results = []
    configs: list[tuple[str, list[str], dict[str, Any]]] = []
    if mutants or expected.get("verdict") != "agree" or recorded_target not in targets:
        configs.append((recorded_target, mutants, expected))
    configs += [(t, [], {"verdict": "agree"}) for t in targets]
    for name, muts, exp in configs:
        try:
            target = load_target(name)
            case_options(case, target, "corpus")  # as the file holds them
            options, _ = case_options(case, target, "corpus", muts)
            target.configure(options)
        except TargetNotInstalled as e:
            results.append(ReplayResult(name, muts, True, None, exp, skipped=str(e)))
            continue
        except NotOnThisMachine as e:  # a recorded setting this machine cannot run
            results.append(ReplayResult(name, muts, True, None, exp,
                                        skipped=f"not shown on this machine: {e}"))
            continue
        except DifftestError as e:
            results.append(ReplayResult(name, muts, False, None, exp, str(e)))
            continue
        if name != recorded_target and (target.unsupported(case)
                                        or undefined_in_run(target, full)):
            continue
        res = check_case(case, target, options=options, full=full, oracle_error=oracle_error)
        ok = _matches(res.verdict, exp)
        why = explain(known or [], name, case, res.verdict, options,
                      target.compiler(options), rerun_with(case, target, options, full,
                                                       oracle_error),
                      target.capabilities) if not ok and not muts \
            and exp.get("verdict") == "agree" else None
        if why is not None:
            results.append(ReplayResult(name, muts, True, res.verdict, exp, known=why.name))
            continue
        problem = ""
        if not ok and not muts and case.extra.get("finding") and name == recorded_target:
            problem = (f"the target's known bug {case.extra['finding']} no longer shows "
                       f"here ({res.verdict}): was the target fixed? docs/findings.md "
                       "needs a new look")
        results.append(ReplayResult(name, muts, ok, res.verdict, exp, problem))
    return results


def rerun_with(case: Case, target: Any, options: dict[str, Any], full: OracleRun | None,
           oracle_error: TargetError | None) -> Callable[[dict[str, Any]], bool]:
    """findings.Rerun for `case` on `target`: whether it agrees with `extra` options added
    (a variant a target does not offer never agrees). An `avoid` is added to the variants
    the case already runs with, never put in their place: a failure under `avoid=all`
    that goes away with one variant alone is not that variant's bug (the others are off
    then), and one that stays with every variant on is nobody's known bug."""
    from difftest.core.errors import DifftestError

    def agrees(extra: dict[str, Any]) -> bool:
        merged = {**options, **extra}
        if "avoid" in extra and options.get("avoid"):
            merged["avoid"] = _joined(options["avoid"], extra["avoid"])
            if merged["avoid"] == _joined(options["avoid"], ""):
                return False  # the variant is on already: the failure is under it
        try:
            target.validate_options(merged)
        except DifftestError:
            return False
        return check_case(case, target, case.schedule, merged, None, full,
                          oracle_error).verdict.agree

    return agrees


def _joined(have: Any, more: Any) -> Any:
    """Two `avoid` settings ("a,b", a list, or "all") as one."""
    def names(v: Any) -> list[str]:
        return [x.strip() for x in (v.split(",") if isinstance(v, str) else list(v))
                if str(x).strip()]
    both = names(have) + [x for x in names(more) if x not in names(have)]
    return "all" if "all" in both else ",".join(both)


#: the timeouts the rechecks of one counterexample (its shrinking and reduction) may wait
#: on: each costs its limit of the judged process's CPU time, so a hang shrinks within
#: minutes, where a campaign that waited on every candidate's took hours
RECHECK_TIMEOUTS = 24


class Recheck:
    """How a counterexample's candidates are checked (shrinking, reduction): a target that
    reruns a case past its limits (option `patience`) does not (a candidate past its
    limit counts as the hang it is shrunk for: the case kept is confirmed with the full
    patience), and only RECHECK_TIMEOUTS timeouts are waited on."""

    def __init__(self, target: Any, timeouts: int = RECHECK_TIMEOUTS) -> None:
        self.options: dict[str, Any] = (
            {"patience": 1} if "patience" in getattr(target, "option_names", ()) else {})
        self.left = timeouts

    @property
    def spent(self) -> bool:
        return self.left <= 0

    def note(self, outcome: Outcome) -> None:
        if outcome.error is not None and outcome.error.kind == "timeout":
            self.left -= 1


def confirmed(cases: list[Case], target: Any, failure: str) -> tuple[Case, CheckResult]:
    """The first of `cases` (smallest first) whose check under its own options fails by
    `failure`: a recheck counted a candidate past its limit as a hang without the rerun
    that tells a hang from a slow case (Recheck), and this check has it. The first case
    and its result when none does."""
    from difftest.campaign.signature import verdict_class

    results = []
    for case in cases:
        full, error = oracle_run(case)
        res = check_case(case, target, case.schedule, case.options, None, full, error)
        if verdict_class(res.verdict) == failure:
            return case, res
        results.append(res)
    return cases[0], results[0]


def still_fails(target: Any, original: Case, rule: str | None,
                failure: str | None = None, recheck: Recheck | None = None
                ) -> Callable[[Case], bool]:
    """The reducer's predicate for a counterexample `original` found on `target` (its
    options, mutants included, are the case's): a candidate the target can run still
    disagrees by the same rule and with the same failure class (difftest.campaign.signature: an
    R0 build failure never reduces into a crash), and -- when mutants are on -- agrees
    without them (so a reduced case shows the injected bug, not another one). `failure`
    is the original's class (None: found by running it). Candidates run under a tight
    trip budget (twice what the original's busiest workitem ran): a reduction that loops
    longer than that (say, a deleted loop counter) is rejected instead of running to the
    default budget. `recheck`: how candidates are checked (a fresh Recheck if None)."""
    import dataclasses

    from difftest.campaign.signature import verdict_class

    muts = list(original.options.get("mutants", []))
    full0, _ = oracle_run(original)
    most = max(full0.trips if full0 is not None else [], default=0)
    recheck = Recheck(target) if recheck is None else recheck
    tight = {"step_budget": 2 * most + 16, **recheck.options}
    if failure is None:
        failure = verdict_class(check_case(original, target, original.schedule, None, None,
                                           full0, None).verdict)

    def check(candidate: Case) -> bool:
        if target.unsupported(candidate) or recheck.spent:
            return False
        clean = {k: v for k, v in candidate.options.items() if k != "mutants"}
        full, error = oracle_run(candidate, tight)
        if full is None or full.exhausted:
            return False  # racy, or looping past the tight budget
        if undefined_in_run(target, full):
            return False  # a result the target's model does not define
        mutated = dataclasses.replace(candidate, options={**clean, **tight, "mutants": muts})
        res = check_case(mutated, target, candidate.schedule, None, None, full, None)
        recheck.note(res.outcome)
        if res.verdict.agree or verdict_class(res.verdict) != failure:
            return False
        if not muts:
            return True
        plain = dataclasses.replace(candidate, options={**clean, **tight})
        return check_case(plain, target, candidate.schedule, None, None, full,
                          None).verdict.agree

    return check
