"""The fuzz campaign behind `difftest fuzz`: generated cases on a target vs the oracle.

Each worker process runs Hypothesis in short seeded batches until the time or example
budget is spent: a batch draws kernels (each serving several inputs, launches and
schedules) and checks every (case, schedule) against the oracle. On a disagreement the
worker notes the time (time to first failure), lets Hypothesis shrink for at most
`SHRINK_ATTEMPTS` more examples (only failures by the same rule count), then runs the IR
reducer (difftest.campaign.reduce) for at most the target's `reduce_checks` candidate
checks; the reduced case is written to the corpus (atomically) and reported with its
timings and size. Both check their candidates as runner.Recheck says (a real target does
not rerun a candidate past its limits, and a hang's shrinking waits on a bounded number
of timeouts); the case kept is confirmed under its own options (runner.confirmed). Both
budgets count work, never seconds (a user may ask for a cap in seconds,
`reduce_seconds`, and the summary then says that the result depends on the machine).
Workers of a campaign without a database do not share what they find while they run:
each does the same work however fast the others go, and the parent merges their findings
in the seed order (`merge_findings`). So a seeded campaign with an example budget keeps
the same files on any machine, however loaded. Workers publish counters in shared
memory; the parent prints progress and the summary. With `stop_on_first` (the hunt) the
parent stops the other workers as soon as one finds a failure, so the reduction has the
machine to itself.

Faults of the campaign itself: a counterexample is never lost (a corpus write that fails
prints the case JSON on stderr instead); Ctrl-C or SIGTERM stops the workers (they also die
with the parent, on Linux) and the summary so far is printed (`Interrupted`); the corpus
folder is checked before any work starts (the CLI does it).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from difftest.campaign.results import Journal
from difftest.core.edges import EDGE_PAIRS
from difftest.core.fullrun import OracleRun
from difftest.core.outcome import TargetError

BATCH = 25  # examples per Hypothesis run: bounds the overshoot past --time
SEEN_AGAIN = "seen-again"  # the corpus subfolder of failing cases known findings explained
SHRINK_ATTEMPTS = 300  # examples Hypothesis's shrinking may try after the first failure
(_CASES, _EXECS, _KERNELS, _FAILURES, _SKIPPED, _REPEATS, _SLOW, _SLOW_MS,
 _UNORDERED) = range(9)
_FIXED = 9  # the construct and pair counters follow
#: the fuzz loop's collector thresholds (gen 0, 1, 2): see `collect_less`. A young
#: generation of 30,000 lets a compile's or an oracle run's objects die before a
#: collection looks at them: the collector's own time (`gc.callbacks`) in the loop's
#: work was about half of what 10,000 gave, and more did not halve it again
GC_THRESHOLDS = (30_000, 50, 100)


@dataclass
class FuzzConfig:
    target: str
    seconds: float | None = None
    examples: int | None = None
    workers: int = 1
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    corpus: Path = Path("corpus")
    schedules_per_case: int | None = None  # None: the target's (2, or 1 without schedules)
    stop_on_first: bool = False  # stop the campaign at its first counterexample
    database: str | None = None  # redis://HOST:PORT: a campaign shared across machines
    known: list[Path] = field(default_factory=list)  # corpus folders of known target bugs
    command: str = "fuzz"  # what the results journal calls the campaign (fuzz, hunt)
    #: the user's cap in seconds (wall clock) on each failure's shrinking and reduction,
    #: None for none: with one, what a campaign keeps may differ from machine to machine
    reduce_seconds: float | None = None


@dataclass
class Found:
    """One counterexample: where it went, its verdict, and the campaign clock when it
    was first seen and when its reduced form was ready (seconds since the start)."""

    path: str
    verdict: str
    rule: str | None
    first: float
    shrunk: float
    statements: int
    n: int
    saved: bool = True
    host_steps: int = 0  # of its host program (0: none)
    key: str = ""        # its signature's key (difftest.campaign.signature)
    failure: str = ""    # its failure class
    repeats: int = 0     # times the campaign saw it again
    #: where in the seed order it was met: (batch, worker, example of the batch)
    position: tuple[int, int, int] = (0, 0, 0)
    cut: bool = False    # its shrinking or reduction was cut by --reduce-time

    def describe(self) -> str:
        where = self.path if self.saved else "(not saved: printed on stderr)"
        again = f"; seen again {self.repeats} times" if self.repeats else ""
        cut = "; cut by --reduce-time" if self.cut else ""
        return (f"{where}: {self.verdict} [first failure at {self.first:.1f} s, reduced at "
                f"{self.shrunk:.1f} s to {self.statements} statements, n = {self.n}"
                f"{f', {self.host_steps} host steps' if self.host_steps else ''}{again}"
                f"{cut}]")


@dataclass
class SeenAgain:
    """A finding the campaign met again: its name (a corpus finding's id, or the path of
    this campaign's counterexample), how many failing cases it explained, and one of
    them kept (`case`), so that the attribution can be checked (`difftest check CASE`)."""

    key: str
    name: str
    count: int
    case: str = ""
    recorded: str = ""  # the compiler the finding was recorded on, where it names one
    compilers: list[str] = field(default_factory=list)  # the ones it was seen on here

    def describe(self) -> str:
        where = ""
        if self.compilers and self.compilers != [self.recorded]:
            where = f" on {', '.join(self.compilers)}" + (
                f" (recorded on {self.recorded})" if self.recorded else "")
        return (f"{self.name}: {self.count} case(s){where}"
                f"{f', e.g. {self.case}' if self.case else ''}")


@dataclass
class FuzzSummary:
    elapsed: float
    kernels: int
    cases: int
    executions: int
    errors: list[str]  # problems of the campaign itself (not findings)
    construct_counts: dict[str, int]
    workers: int
    skipped: int = 0
    found: list[Found] = field(default_factory=list)
    # counterexamples announced by other workers (--database), replayed here:
    # (corpus path, verdict), the path "" when it agrees here
    replayed: list[tuple[str, str]] = field(default_factory=list)
    repeats: int = 0  # failing cases that were a known finding again
    unreduced: list[str] = field(default_factory=list)  # kept before their reduction ended
    seen_again: list[SeenAgain] = field(default_factory=list)  # by finding
    slow: int = 0  # cases not checked: the target answered only past its limits
    slow_cpu: float = 0.0  # the CPU seconds those answers took
    #: the user's --reduce-time: what the campaign kept may differ on another machine
    reduce_seconds: float | None = None
    unordered: int = 0  # cases not checked: their atomics' order was not decided

    def rate(self, count: int) -> float:
        return count / self.elapsed if self.elapsed > 0 else 0.0


class Interrupted(Exception):
    """The campaign was stopped by a signal; carries the summary so far."""

    def __init__(self, summary: FuzzSummary, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.summary = summary
        self.signal_name = signal.Signals(signum).name
        self.exit_code = 128 + signum


class Counterexample(AssertionError):
    """Raised inside the property so Hypothesis shrinks; carries the failing case."""

    def __init__(self, case_json: dict[str, Any], verdict: str, rule: str | None) -> None:
        super().__init__(verdict)
        self.case_json = case_json
        self.verdict = verdict
        self.rule = rule


class _ShrinkBudgetSpent(BaseException):
    """Ends Hypothesis's shrinking early (a BaseException passes through Hypothesis at
    once); the best failing case seen so far is kept by the property itself."""


def _names() -> list[str]:
    from generators.coverage import ALL_CONSTRUCTS, FAULT_KINDS

    return (list(ALL_CONSTRUCTS) + [f"fault:{k}" for k in FAULT_KINDS] + list(_pairs())
            + list(EDGE_PAIRS))


def _pairs() -> tuple[str, ...]:
    """The pair names (generators/pairs.py), in their order: counted like constructs,
    shown apart from them."""
    from generators.pairs import ALL_PAIRS

    return ALL_PAIRS


def _die_with_parent() -> None:
    """Linux: SIGTERM this process when its parent dies, even by SIGKILL (no orphans)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def kernel_cases_for(target: Any) -> Any:
    """The kernels and cases a campaign on `target` draws: its capabilities, wave sizes,
    reconvergence, integer types and cases per kernel."""
    from generators.cases import kernel_cases

    t = target
    return kernel_cases(t.cases_per_kernel, capabilities=t.capabilities,
                        waves=t.wave_sizes, reconvergence=t.reconvergence,
                        one_wave=t.one_wave_per_kernel,
                        group_waves=getattr(t, "group_waves", None), int_types=t.int_types)


def batch_seed(seed: int, worker: int, batch: int) -> int:
    """The Hypothesis seed of a worker's batch: distinct per campaign seed, worker and
    batch, and the same on every run (benchmarks draw their samples by it too)."""
    return seed * 1_000_003 + worker * 7_919 + batch


def collect_less() -> None:
    """Tune the cyclic garbage collector for the fuzz loop, which allocates heaps of
    short-lived acyclic objects (IR nodes, instructions, bitsets, Hypothesis's choices):
    under CPython's defaults the collector re-scans older generations full of them again
    and again (`difftest bench` prints checked cases per CPU-second under both
    settings). What is loaded so far is frozen out of those
    scans (`gc.freeze`) and collections run less often; cycles are still collected."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class _Known:
    """The findings a worker recognises, each a JSON file in one of `folders`: the
    target's known bugs (the corpus's, which the parent writes first), the worker's own
    counterexamples, and -- in a campaign shared through a database -- every worker's and
    every peer's. Without a database each worker has a folder of its own and knows no
    other worker's findings until the campaign ends, when the parent merges them in the
    seed order (`merge_findings`): what a worker does never depends on how fast the
    others run. Beside a finding, `.seen` files hold the fingerprints of the failing
    cases that led to it (the cases its shrinking went through), so the same case met
    again -- replayed from the example database -- is known before it is shrunk again."""

    def __init__(self, folders: list[Path], own: Path) -> None:
        self.folders = folders
        self.own = own
        self.seen: dict[str, Any] = {}  # file path -> Signature
        self.avoids: dict[Any, str] = {}  # Signature -> the variant avoiding its trigger
        self.names: dict[str, str] = {}  # key -> what the finding is called
        self.cases: dict[str, str] = {}  # fingerprint of a failing case -> finding key
        self._read: set[str] = set()  # .seen files read

    def refresh(self) -> list[Any]:
        from difftest.campaign.signature import Signature

        for folder in self.folders:
            for path in sorted(folder.glob("*.json")):
                if str(path) not in self.seen:
                    try:
                        obj = json.loads(path.read_text())
                        sig = Signature.from_json(obj)
                    except (OSError, ValueError, KeyError, TypeError):
                        continue
                    self.seen[str(path)] = sig
                    self.avoids[sig] = str(obj.get("avoid", ""))
                    self.names[self.key(sig)] = str(obj.get("name", "") or self.key(sig))
            for path in sorted(folder.glob("*.seen")):
                if str(path) not in self._read:
                    try:
                        obj = json.loads(path.read_text())
                    except (OSError, ValueError):
                        continue
                    self._read.add(str(path))
                    for fingerprint in obj.get("cases", []):
                        self.cases[str(fingerprint)] = str(obj.get("key", ""))
        return list(self.seen.values())

    def add(self, signature: Any, avoid: str = "", name: str = "",
            cases: list[str] | tuple[str, ...] = ()) -> str:
        """Record a finding (its name, the variant that avoids its trigger if any, the
        fingerprints of failing cases that led to it); returns its key (the same
        signature gives the same key)."""
        from difftest.campaign.corpus import write_atomic

        key = self.key(signature)
        path = self.own / f"{key}.json"
        if not path.exists():
            write_atomic(path, json.dumps(
                {**signature.to_json(), **({"avoid": avoid} if avoid else {}),
                 **({"name": name} if name else {})}, sort_keys=True))
        if cases:
            self.add_cases(key, cases)
        return key

    def add_cases(self, key: str, cases: list[str] | tuple[str, ...]) -> None:
        """Fingerprints of failing cases that are the finding `key` again."""
        import hashlib

        from difftest.campaign.corpus import write_atomic

        text = json.dumps({"key": key, "cases": sorted(set(cases))}, sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        write_atomic(self.own / f"{key}.{digest}.seen", text)
        for fingerprint in cases:
            self.cases[fingerprint] = key

    def by_cause(self, signature: Any, target: str, compiler: str, failure: str,
                 rerun: Callable[[dict[str, Any]], bool]) -> bool:
        """Whether a failure of `target` (running `compiler`) is the finding `signature`
        by its cause: the finding names a variant, and the case agrees under it; or the
        finding is an optimizer's failure, and the case agrees with its passes taken out
        of the recipe."""
        avoid = self.avoids.get(signature, "")
        if avoid:
            return signature.on_any_version(target, compiler) and rerun({"avoid": avoid})
        extra = signature.without_passes(target, failure, compiler)
        return extra is not None and rerun(extra)

    def caused(self, signature: Any) -> bool:
        """Whether `by_cause` can tell the finding `signature` (else its shape does)."""
        return bool(self.avoids.get(signature)) or "spirv-opt" in signature.failure

    @staticmethod
    def key(signature: Any) -> str:
        import hashlib

        text = json.dumps(signature.to_json(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprint(case_json: dict[str, Any]) -> str:
    """What makes two failing cases the same case (the example database replays one
    exactly): a hash of its JSON."""
    import hashlib

    return hashlib.sha256(json.dumps(case_json, sort_keys=True).encode()).hexdigest()[:24]


def _worker(index: int, config: FuzzConfig, counters: Any, start: float, stop_at: float,
            examples: int | None, results: Any, known: _Folders, first: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    _Worker(index, config, counters, start, stop_at, examples, results, known, first).run()


@dataclass(frozen=True)
class _Folders:
    """Where the campaign's findings are written: `base` holds the target's known bugs
    (the parent's), `workers` one folder per worker, or one shared by all of them in a
    campaign with a database."""
    base: str
    workers: list[str]


# What a worker tells the campaign, through its results queue (pickled between processes).
# A position is where in the campaign's seed order something was met: (batch, worker,
# example of the batch); the parent orders what the workers found by it, never by when
# it arrived.

@dataclass(frozen=True)
class _FirstFailure:
    """A worker's first failure, kept unreduced at `path` while it is shrunk and reduced."""
    worker: int
    seconds: float
    path: str


@dataclass(frozen=True)
class _Reduced:
    """A worker kept a reduced counterexample (its signature's JSON beside it)."""
    found: Found
    worker: int
    signature: dict[str, Any]


@dataclass(frozen=True)
class _SeenAgain:
    """A failing case a known finding explains: the finding's key and name, the worker
    that met it and where, and -- for the first such case of that finding in this
    worker -- the case itself (the campaign keeps one per finding, for a user to check
    the attribution); `reduced`: it was only recognised after its reduction."""
    key: str
    name: str
    worker: int
    position: tuple[int, int, int]
    case: dict[str, Any] | None = None
    reduced: bool = False
    compiler: str = ""  # the compiler the target ran, where it names one
    recorded: str = ""  # the finding's own compiler


@dataclass(frozen=True)
class _Replayed:
    """An announced counterexample replayed here: where it was kept ("" when it agrees
    here), and its verdict."""
    path: str
    verdict: str


@dataclass(frozen=True)
class _Warning:
    text: str
    key: str = ""  # messages with the same key are printed once (default: the text)


@dataclass(frozen=True)
class _WorkerFailed:
    text: str


_Message = _FirstFailure | _Reduced | _SeenAgain | _Replayed | _Warning | _WorkerFailed


def _hypothesis_counts_work() -> None:
    """Hypothesis stops shrinking after five minutes of wall clock (its engine's
    MAX_SHRINKING_SECONDS), a limit a busy machine reaches and a quiet one does not; the
    campaign's own budget (SHRINK_ATTEMPTS examples) bounds shrinking here, so that
    limit is lifted in the worker. Its report of a failing example (the worker keeps
    its own) is not printed either: a warning that its text is large says nothing."""
    import warnings

    from hypothesis.errors import HypothesisWarning
    from hypothesis.internal.conjecture import engine

    if hasattr(engine, "MAX_SHRINKING_SECONDS"):
        engine.MAX_SHRINKING_SECONDS = 10**9
    warnings.filterwarnings("ignore", category=HypothesisWarning,
                            message="Generating overly large repr")


class _Worker:
    """One worker process's campaign: Hypothesis batches until the time or example
    budget is spent. A failure is shrunk, reduced and kept, then (unless the campaign
    stops at its first) the worker goes on; a failing case that a known finding
    explains (difftest.campaign.signature), or that is a case an earlier failure's
    shrinking already met, is counted as that finding seen again, not reduced."""

    def __init__(self, index: int, config: FuzzConfig, counters: Any, start: float,
                 stop_at: float, examples: int | None, results: Any, known: _Folders,
                 first: Any) -> None:
        from difftest.campaign.registry import load_target

        self.index, self.config, self.counters = index, config, counters
        self.first = first  # shared: the worker whose failure a stop_on_first run keeps
        self.start, self.stop_at, self.examples = start, stop_at, examples
        self.results = results
        own = Path(known.workers[index])
        self.known = _Known(list(dict.fromkeys([Path(known.base), own])), own)
        self.target = load_target(config.target, config.options)
        collect_less()
        _hypothesis_counts_work()
        self.shared = None
        self.database = None
        if config.database is not None:
            from difftest.campaign.sharing import Shared

            def warn(text: str, key: str = "") -> None:
                results.put(_Warning(text, key))

            self.shared = Shared(config.database, warn)
            self.database = self.shared.database()
        names = _names()
        self.slot = {name: _FIXED + i for i, name in enumerate(names)}
        self.per_case = config.schedules_per_case or self.target.schedules_per_case
        self.kernel_kinds: dict[int, set[str]] = {}  # hash(kernel text) -> fault kinds
        # the failure being shrunk: [case JSON, verdict, failure class, when, rule,
        # provisional path]; later ones of the same class (Hypothesis shrinking) replace
        # the case and verdict
        self.best: list[Any] = []
        self.shrunk: list[str] = []  # fingerprints of the failing cases of that shrinking
        self.cut = False  # the user's --reduce-time cut that shrinking
        self.landed: str | None = None  # the known finding that shrinking reached
        self.shrink_attempts = 0  # examples tried since the failure being shrunk
        self.first_case: dict[str, Any] | None = None  # that failure's first case
        self.recheck: Any = None  # how its shrinking and reduction check (runner.Recheck)
        self.batch_no = 0
        self.example_no = 0  # examples of this batch so far
        self.position = (0, index, 0)  # where the failure being shrunk was met
        self.repeat_kept: set[str] = set()  # finding keys whose case was sent to be kept

    def run(self) -> None:
        from targets.device.process import DeviceDeadline

        # a check still waiting on a device when --time runs out is abandoned there (a
        # hung compiler is given minutes before it counts as one); the shrinking and
        # reduction of a failure found in time are not (--reduce-time caps those)
        self.deadline(True)
        try:
            self.batches()
        except DeviceDeadline:
            self.results.put(_Warning(
                f"worker {self.index}: a case was still being checked when --time ran out "
                "(a device call waiting on its build or run): stopped there, not checked"))
        finally:
            self.deadline(False)

    def batches(self) -> None:
        from difftest.campaign.runner import Recheck

        done = 0
        while time.monotonic() < self.stop_at and (self.examples is None
                                                   or done < self.examples):
            batch = BATCH if self.examples is None else min(BATCH, self.examples - done)
            if self.shared is not None:
                _replay_announced(self.shared, self.config, self.target, self.results,
                                  self.known)
            self.best, self.shrunk, self.cut, self.landed = [], [], False, None
            self.shrink_attempts = self.example_no = 0
            self.first_case, self.recheck = None, Recheck(self.target)
            try:
                self.property(batch, batch_seed(self.config.seed, self.index,
                                                self.batch_no))()
            except (Counterexample, _ShrinkBudgetSpent):
                pass
            except Exception as e:  # noqa: BLE001 - e.g. Flaky: report, do not hide
                if not self.best:
                    self.counters[_FAILURES] += 1
                    self.results.put(_WorkerFailed(f"worker {self.index}: {_why(e)}"))
                    return
            done += batch
            self.batch_no += 1
            if self.best:
                self.keep()
                self.deadline(True)
                if self.config.stop_on_first:
                    return

    def deadline(self, on: bool) -> None:
        """Device calls abandoned at --time's end (`on`), or never (a failure's
        shrinking and reduction)."""
        from targets.device.process import set_deadline

        set_deadline(self.stop_at if on and self.config.seconds is not None else None)

    def property(self, batch: int, seed_value: int) -> Any:
        from hypothesis import HealthCheck, Phase, given, seed, settings
        from hypothesis import strategies as st

        from generators.schedules import schedule_numbers

        t = self.target
        phases = [Phase.generate, Phase.shrink]
        if self.shared is not None:
            phases.insert(0, Phase.reuse)  # what any worker anywhere saw fail, first

        @settings(max_examples=batch, database=self.database, deadline=None,
                  phases=phases, report_multiple_bugs=False,
                  suppress_health_check=list(HealthCheck))
        @seed(seed_value)
        @given(kernel_cases_for(t),
               st.lists(schedule_numbers(), min_size=self.per_case - 1,
                        max_size=self.per_case - 1))
        def prop(kc: Any, extra_numbers: list[int]) -> None:
            self.example(kc, extra_numbers)

        return prop

    def example(self, kc: Any, extra_numbers: list[int]) -> None:
        from generators.coverage import fault_kinds
        from generators.pairs import host_pairs
        from generators.schedules import schedule_by_number

        from difftest.campaign.runner import (check_case, oracle_run, target_options,
                                              undefined_in_run)
        from difftest.campaign.signature import verdict_class
        from difftest.core.errors import OracleError

        best, counters = self.best, self.counters
        if best:
            self.shrink_attempts += 1
            if self.shrink_attempts > SHRINK_ATTEMPTS or self.recheck.spent:
                raise _ShrinkBudgetSpent
            limit = self.config.reduce_seconds
            if limit is not None and time.monotonic() - best[3] > limit:
                self.cut = True  # the user's cap in seconds (the summary says so)
                raise _ShrinkBudgetSpent
        if not best and time.monotonic() > self.stop_at:
            return
        self.example_no += 1
        kernel, cases = kc
        # Hypothesis often mutates an earlier example's cases and keeps its kernel: the
        # kernel counts (and its constructs and fault kinds) once per worker
        key = hash(kernel.source)
        kinds = self.kernel_kinds.get(key)
        if kinds is None:
            kinds = set()
            if not best:
                self.kernel_kinds[key] = kinds
                counters[_KERNELS] += 1
                for name in kernel.constructs:  # read off when it was generated
                    if name in self.slot:
                        counters[self.slot[name]] += 1
        for case in cases:
            if self.target.unsupported(case):
                counters[_SKIPPED] += 1
                continue
            if case.host and not best:  # its step-by-state pairs, once per kernel too
                new_pairs = host_pairs(case) - kinds
                kinds |= new_pairs
                for name in new_pairs:
                    counters[self.slot[name]] += 1
            options = target_options(self.target, {**case.options, **self.config.options})
            # a shrinking candidate is checked as the reduction's are (runner.Recheck)
            checked = {**options, **self.recheck.options} if best else options
            try:
                full, oracle_error = oracle_run(case, options)
            except OracleError:  # past the oracle's work limit: no verdict can be given
                counters[_SKIPPED] += 1
                continue
            counters[_EXECS] += 1
            if undefined_in_run(self.target, full):
                counters[_SKIPPED] += 1
                continue
            if full is not None and not best:
                new = set(fault_kinds(full)) - kinds
                kinds |= new
                for kind in new:
                    counters[self.slot[f"fault:{kind}"]] += 1
                met = set(getattr(full, "edges", ())) - kinds  # what its operations met
                kinds |= met
                for name in met:
                    counters[self.slot[name]] += 1
            extra = [schedule_by_number(case, k) for k in extra_numbers]
            for sched in [case.schedule, *extra]:
                res = check_case(case, self.target, sched, checked, None, full, oracle_error)
                counters[_EXECS] += 1
                if best:
                    self.recheck.note(res.outcome)
                verdict = res.verdict
                if verdict.slow:  # answered only past the target's limits: not checked
                    counters[_SLOW] += 1
                    slow = res.outcome.diagnostics.get("slow", {})
                    counters[_SLOW_MS] += int(1000 * sum(
                        float(v) for k, v in slow.items() if k.endswith("_cpu")))
                    break
                if verdict.unchecked:
                    counters[_UNORDERED if verdict.unordered else _SKIPPED] += 1
                    break
                counters[_CASES] += 1
                if verdict.agree:
                    continue
                failure = verdict_class(verdict)
                if best and failure != best[2]:
                    continue
                # the case as it would be kept: what the example database replays
                case_json = dataclasses.replace(case, schedule=res.schedule,
                                                options=dict(options)).to_json()
                if not best and self.explained(case, case_json, failure, options, full,
                                               oracle_error):
                    counters[_REPEATS] += 1
                    break
                if options.get("mutants") and not self.mutant_only(case, sched, checked,
                                                                   full, oracle_error):
                    counters[_REPEATS] += 1  # the target's own bug, not the mutant's
                    break
                case.schedule = res.schedule
                case.options = options
                if best and not self.config.stop_on_first:
                    again = self.known.cases.get(fingerprint(case_json))
                    if again is not None:
                        # shrinking led to a case a known finding holds: this failure is
                        # that finding's (not shrunk on, and not saved to the database)
                        self.landed = again
                        raise _ShrinkBudgetSpent
                if not best:
                    if self.config.stop_on_first and not self.claim_first():
                        os._exit(0)  # another worker's failure is the campaign's: stop here
                    best[:] = [None, None, failure, time.monotonic(), verdict.rule, ""]
                    self.deadline(False)
                    self.first_case = case_json
                    self.position = (self.batch_no, self.index, self.example_no)
                    # kept at once, unreduced: a signal during the reduction loses nothing
                    best[5] = _keep(case, str(verdict), verdict.rule, self.config, None,
                                    provisional=True)[0]
                    self.results.put(_FirstFailure(self.index, best[3] - self.start, best[5]))
                best[0], best[1] = case_json, str(verdict)
                self.shrunk.append(fingerprint(case_json))
                raise Counterexample(best[0], best[1], verdict.rule)

    def mutant_only(self, case: Any, schedule: dict[str, Any], options: dict[str, Any],
                    full: OracleRun | None, oracle_error: TargetError | None) -> bool:
        """Whether a case that disagrees with mutants on agrees without them: only then
        is the failure the injected bug's (a real target has bugs of its own)."""
        from difftest.campaign.runner import check_case

        plain = {k: v for k, v in options.items() if k != "mutants"}
        return check_case(case, self.target, schedule, plain, None, full,
                          oracle_error).verdict.agree

    def explained(self, case: Any, case_json: dict[str, Any], failure: str,
                  options: dict[str, Any], full: OracleRun | None,
                  oracle_error: TargetError | None) -> bool:
        """Whether a known finding explains this failing case (and if so, say so): the
        very case an earlier failure's shrinking met (the example database replays such
        cases), else by its cause where the finding names a variant that spells its
        trigger another way (the case agrees under it), else by its class and shape."""
        if self.config.stop_on_first:
            return False
        from difftest.campaign.runner import rerun_with
        from difftest.campaign.signature import launch_wave, setting, shape

        known = self.known.refresh()
        found = self.known.cases.get(fingerprint(case_json))
        compiler = self.target.compiler(options)
        if found is None:
            case_shape = shape(case.program, case.entry, case.n,
                               launch_wave(self.target.capabilities, case.wave))
            where = setting(options)
            rerun = rerun_with(case, self.target, options, full, oracle_error)
            for sig in known:
                if self.known.by_cause(sig, self.config.target, compiler, failure, rerun) \
                        if self.known.caused(sig) \
                        else sig.explains(self.config.target, failure, case_shape, where,
                                          compiler):
                    found = _Known.key(sig)
                    break
        if found is None:
            return False
        self.seen_again(found, (self.batch_no, self.index, self.example_no), case_json,
                        compiler)
        return True

    def seen_again(self, key: str, position: tuple[int, int, int],
                   case_json: dict[str, Any] | None, compiler: str,
                   reduced: bool = False) -> None:
        """Tell the campaign a known finding was met again (with the case, the first
        time this worker met that finding)."""
        first = key not in self.repeat_kept and case_json is not None
        self.repeat_kept.add(key)
        recorded = next((sig.compiler for sig in self.known.seen.values()
                         if _Known.key(sig) == key), "")
        self.results.put(_SeenAgain(key, self.known.names.get(key, key), self.index,
                                    position, case_json if first else None, reduced,
                                    compiler, recorded))

    def claim_first(self) -> bool:
        """Whether this worker's failure is the first of a stop_on_first campaign (claimed
        before its copy is kept: a worker stopped between keeping a copy and saying so
        would leave a second counterexample nobody knows of)."""
        with self.first.get_lock():
            if self.first.value < 0:
                self.first.value = self.index
            return bool(self.first.value == self.index)

    def keep(self) -> None:
        """Reduce the shrunk failure; keep it unless its signature is a known finding's
        (or its shrinking reached a case of one)."""
        case_json, verdict, failure, first, rule, provisional = self.best
        if self.landed is not None:
            if provisional:
                Path(provisional).unlink(missing_ok=True)
            self.known.add_cases(self.landed, tuple(self.shrunk))
            if self.shared is not None:
                self.shared.announce_cases(self.landed, self.shrunk)
            self.counters[_REPEATS] += 1
            self.seen_again(self.landed, self.position, case_json,
                            self.target.compiler(case_json.get("options", {})), reduced=True)
            return
        remaining = None
        if self.config.reduce_seconds is not None:
            remaining = max(0.0, self.config.reduce_seconds - (time.monotonic() - first))
        found, entry, signature = _reduce_and_keep(
            case_json, verdict, rule, failure, first, self.start, self.config, self.target,
            self.known, remaining, self.cut, self.position, self.shrunk, self.recheck,
            self.first_case)
        if provisional and (found is None or found.path != provisional):
            try:  # the reduced case (or a known finding) replaces the unreduced one
                Path(provisional).unlink()
            except OSError:
                pass
        if found is None:  # the same bug as a known finding, found again
            if self.shared is not None:
                self.shared.announce_cases(_Known.key(signature), self.shrunk)
            self.counters[_REPEATS] += 1
            self.seen_again(_Known.key(signature), self.position, case_json,
                            self.target.compiler(case_json.get("options", {})), reduced=True)
            return
        if self.shared is not None:
            self.shared.announce(entry, self.shrunk)
        self.counters[_FAILURES] += 1
        self.results.put(_Reduced(found, self.index, signature.to_json()))


def _replay_announced(shared: Any, config: FuzzConfig, target: Any, results: Any,
                      known: _Known) -> None:
    """Replay the counterexamples other workers announced on this worker's target and
    options; keep those that fail here too in the local corpus, and know them (with the
    failing cases that led to them), so that they are not shrunk again here."""
    from difftest.core.case import case_from_json
    from difftest.campaign.corpus import save
    from difftest.core.errors import CaseError
    from difftest.campaign.runner import check_case
    from difftest.campaign.signature import Signature

    for entry, cases in shared.new_announcements():
        if set(entry) == {"key"}:  # more failing cases of a finding
            known.add_cases(str(entry["key"]), tuple(cases))
            continue
        try:
            case = case_from_json(entry, "announced counterexample")
        except CaseError as e:
            results.put(_Warning(f"an announced counterexample is malformed: {e}"))
            continue
        own, _ = case.options_for(config.target, tuple(target.option_names))
        options = {**own, **config.options}
        verdict = check_case(case, target, options=options).verdict
        if verdict.agree:
            results.put(_Replayed("", "agrees here"))
            continue
        try:
            path = str(save(config.corpus, entry))
        except OSError as e:
            path = f"(not saved: {e.strerror or e})"
        try:
            signature = Signature.from_json(entry["signature"])
        except (KeyError, TypeError, ValueError):
            signature = None
        if signature is not None:
            known.add(signature, name=path, cases=tuple(cases))
        results.put(_Replayed(path, str(verdict)))


def _why(e: BaseException) -> str:
    """An exception that stopped a worker, with what it holds: Hypothesis's Flaky
    errors are groups whose first member is the error itself (with its traceback's last
    frame, where it was raised)."""
    import traceback

    inner = getattr(e, "exceptions", None)
    if inner:
        first = inner[0]
        where = traceback.extract_tb(first.__traceback__)[-1:] if first.__traceback__ else []
        at = f" (at {where[0].filename}:{where[0].lineno})" if where else ""
        return (f"{type(e).__name__}: {str(e).splitlines()[-1][-200:]}; the error: "
                f"{type(first).__name__}: {first}{at}")
    return f"{type(e).__name__}: {e}"


def _reduce_and_keep(case_json: dict[str, Any], verdict: str, rule: str | None,
                     failure: str, first: float, start: float, config: FuzzConfig,
                     target: Any, known: _Known, seconds: float | None = None,
                     cut: bool = False, position: tuple[int, int, int] = (0, 0, 0),
                     shrunk: list[str] | None = None, recheck: Any = None,
                     first_case: dict[str, Any] | None = None
                     ) -> tuple[Found | None, dict[str, Any], Any]:
    """Reduce the shrunk case (IR reducer, keeping its failure class, within the
    target's `reduce_checks` and the user's `seconds` if any); if its signature is new,
    keep it in the corpus and record it among the worker's findings, with the
    fingerprints of the failing cases (`shrunk`) that led to it. Returns (what was
    found, or None when it was a known finding again; its corpus entry; its
    signature). `recheck`: how the shrinking checked its candidates, which the reduction
    goes on with (runner.Recheck); `first_case`: the first failing case, which the kept
    case falls back to when no smaller one fails the same way checked as it was."""
    from difftest.core.case import case_from_json
    from difftest.campaign.reduce import reduce_case, statements
    from difftest.campaign.runner import confirmed, rerun_with, still_fails
    from difftest.campaign.signature import Signature, launch_wave, setting, shape, verdict_class

    case = case_from_json(case_json)
    reduced, stats = reduce_case(case, still_fails(target, case, rule, failure, recheck),
                                 seconds, target.option_variants,
                                 checks=target.reduce_checks)
    cut = cut or stats.cut_by_time
    fallbacks = [case] + ([case_from_json(first_case)] if first_case is not None else [])
    reduced, final = confirmed([reduced, *(c for c in fallbacks if c is not reduced)],
                               target, failure)
    full, error = final.full, final.oracle_error
    if not final.verdict.agree:
        verdict, failure = str(final.verdict), verdict_class(final.verdict)
    signature = Signature(config.target, failure,
                          shape(reduced.program, reduced.entry, reduced.n,
                                launch_wave(target.capabilities, reduced.wave)),
                          setting(reduced.options), target.compiler(reduced.options))
    fingerprints = tuple(shrunk or ())
    if not config.stop_on_first:
        # a known bug by cause where the finding can tell it so (the reduced case agrees
        # with the trigger spelled another way; the failing case itself may not, where
        # it held other triggers the variant does not spell), else by shape: a finding
        # that names a variant is never taken by shape, since a reduction cut short
        # keeps a shape holding nearly any small finding's, and a case failing with the
        # variant on already is not that finding
        rerun = rerun_with(reduced, target, reduced.options, full, error)
        for old in known.refresh():
            if known.by_cause(old, config.target, signature.compiler, signature.failure,
                              rerun) if known.caused(old) else old.same_bug(signature):
                known.add_cases(_Known.key(old), fingerprints)
                return None, {}, old
    path, saved, entry = _keep(reduced, verdict, rule, config, signature)
    known.add(signature, name=path, cases=fingerprints)
    return Found(path, verdict, rule, first - start, time.monotonic() - start,
                 statements(reduced.program), reduced.n, saved,
                 len(reduced.host or ()), _Known.key(signature), failure,
                 position=position, cut=cut), entry, signature


def _keep(case: Any, verdict: str, rule: str | None, config: FuzzConfig,
          signature: Any, provisional: bool = False) -> tuple[str, bool, dict[str, Any]]:
    """Write a counterexample to the corpus; if that fails, print it whole on stderr.
    `provisional`: the first failing case, kept unreduced until its reduction replaces
    it."""
    import dataclasses

    from difftest.campaign.corpus import corpus_json, save

    mutants = list(case.options.get("mutants", []))
    case = dataclasses.replace(case, options={k: v for k, v in case.options.items()
                                              if k != "mutants"})
    expected = ({"verdict": "disagree", "rule": rule} if mutants
                else {"verdict": "agree"})
    note = ("found by difftest fuzz, not reduced (a reduction interrupted?): "
            if provisional else "found by difftest fuzz: ")
    obj = corpus_json(case, config.target, expected, note + verdict, mutants)
    if signature is not None:
        obj["signature"] = signature.to_json()
    try:
        return str(save(config.corpus, obj)), True, obj
    except OSError as e:
        sys.stderr.write(f"difftest: could not write the counterexample to {config.corpus}: "
                         f"{e.strerror or e}; here it is, whole:\n"
                         f"{json.dumps(obj, indent=1, sort_keys=True)}\n")
        sys.stderr.flush()
        return f"(not saved: {e.strerror or e})", False, obj


def warm_up(target: str, out: TextIO | None = None) -> frozenset[str]:
    """Load the target once in the parent, so workers never pay (or race on) a cold
    compile cache; says so first when it will take a while (on `out`, default stderr).
    Returns its capabilities."""
    from difftest.campaign.registry import load_target

    out = sys.stderr if out is None else out
    t = load_target(target)
    message = t.cold_start_note()
    if message:
        out.write(message + "\n")
        out.flush()
    t.warm_up()
    return frozenset(t.capabilities)


class _Stop(Exception):
    def __init__(self, signum: int) -> None:
        self.signum = signum


def _raise_stop(signum: int, frame: Any) -> None:
    raise _Stop(signum)


def fuzz(config: FuzzConfig, out: TextIO | None = None) -> FuzzSummary:
    """Run the campaign, reporting on `out` (default: stderr at the time of the call);
    raises `Interrupted` (with the summary so far) on SIGINT/SIGTERM."""
    out = sys.stderr if out is None else out
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    try:
        return _campaign(config, out)
    except _Stop as stop:  # before the workers started or after they ended: nothing lost
        raise Interrupted(FuzzSummary(0.0, 0, 0, 0, [], {}, config.workers, 0, [], [], 0, []),
                          stop.signum) from None
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _campaign(config: FuzzConfig, out: TextIO) -> FuzzSummary:
    return _Campaign(config, out).run()


class _Campaign:
    """One campaign in the parent process: starts the workers, takes their messages,
    prints progress, keeps the journal, and sums up."""

    def __init__(self, config: FuzzConfig, out: TextIO) -> None:
        self.config, self.out = config, out
        self.names = _names()
        self.hidden: frozenset[str] = frozenset()  # pairs the target is never given
        self.ctx = mp.get_context("fork")
        self.results = self.ctx.Queue()
        self.arrays = [self.ctx.Array("q", _FIXED + len(self.names), lock=False)
                       for _ in range(config.workers)]
        self.first = self.ctx.Value("i", -1)  # the worker that claimed the first failure
        self.procs: list[Any] = []
        self.errors: list[str] = []
        self.found: list[Found] = []  # as the workers reduced them
        self.signatures: dict[str, Any] = {}  # Found.path -> its Signature
        self.repeats: dict[str, int] = {}  # finding key -> times seen again
        self.repeat_names: dict[str, str] = {}  # finding key -> its name
        self.repeat_compilers: dict[str, tuple[str, set[str]]] = {}  # recorded, seen on
        self.repeat_cases: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}
        self.unreduced: dict[int, str] = {}  # worker -> its failure kept unreduced
        self.warned: set[str] = set()
        self.server_down = False
        self.replayed: list[tuple[str, str]] = []  # announced ones: (path or "", verdict)
        self.start = time.monotonic()
        self.gap = "\n" if out.isatty() else ""
        self.journal = Journal(config.corpus, config.command, config.target, {
            "seconds": config.seconds, "examples": config.examples,
            "workers": config.workers, "seed": config.seed, "options": config.options,
            "schedules_per_case": config.schedules_per_case,
            "stop_on_first": config.stop_on_first, "database": config.database})

    def run(self) -> FuzzSummary:
        config, out = self.config, self.out
        known = tempfile.TemporaryDirectory(prefix="difftest-findings-")
        base = Path(known.name) / "known"
        base.mkdir()
        recorded = _seed_known(base, config)
        if recorded:
            out.write(f"{recorded} known bug(s) of {config.target} recorded in "
                      f"{', '.join(map(str, config.known))}: cases they explain are "
                      "skipped\n")
        warned = self.journal.problem
        if warned:
            out.write(f"warning: {warned}\n")
        try:
            from generators.pairs import unreachable_pairs

            self.hidden = unreachable_pairs(warm_up(config.target, out))
            self.start = time.monotonic()
            self._start_workers(_folders(Path(known.name), base, config))
            self._watch()
        except _Stop as stop:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            _terminate(self.procs)
            out.write("\n")
            interrupted = self.summary()
            self.journal.end(interrupted.elapsed, summary_json(
                interrupted, config.target, signal.Signals(stop.signum).name))
            self._warn_journal(warned, out)
            raise Interrupted(interrupted, stop.signum) from None
        finally:
            known.cleanup()
        result = self.summary()
        _record_progress(self.journal, self.arrays, self.names, result.elapsed, self.hidden)
        self.journal.end(result.elapsed, summary_json(result, config.target))
        self._warn_journal(warned, out)
        stopped = config.stop_on_first and bool(self.found)
        for i, p in enumerate(self.procs):
            if p.exitcode not in (0, None) and not (stopped and p.exitcode == -signal.SIGTERM):
                how = (f"was killed by {signal.Signals(-p.exitcode).name}" if p.exitcode < 0
                       else f"exited with code {p.exitcode}")
                self.errors.append(f"worker {i} {how} (the campaign went on without it)")
        return result

    def _warn_journal(self, warned: str | None, out: TextIO) -> None:
        """Say that the journal stopped being written during the campaign (a disk that
        filled, a folder taken away): its record ends early, which the user must know."""
        if self.journal.problem and self.journal.problem != warned:
            out.write(f"warning: {self.journal.problem} (its record of this campaign "
                      "ends there)\n")

    def _start_workers(self, known: _Folders) -> None:
        config = self.config
        stop_at = self.start + (config.seconds if config.seconds is not None else 10**9)
        per_worker = None
        if config.examples is not None:
            per_worker = [config.examples // config.workers
                          + (i < config.examples % config.workers)
                          for i in range(config.workers)]
        for i in range(config.workers):
            p = self.ctx.Process(target=_worker, args=(
                i, config, self.arrays[i], self.start, stop_at,
                None if per_worker is None else per_worker[i], self.results, known,
                self.first),
                daemon=True)
            p.start()
            self.procs.append(p)

    def _watch(self) -> None:
        """Until every worker ends: their messages, progress on screen (a line in place on
        a terminal, every 5 s otherwise) and in the journal (every 5 s)."""
        last_line = last_record = 0.0
        while any(p.is_alive() for p in self.procs):
            time.sleep(0.1)
            while not self.results.empty():
                self.take(self.results.get())
            now = time.monotonic()
            if now - last_record >= 5:
                _record_progress(self.journal, self.arrays, self.names, now - self.start,
                                 self.hidden)
                last_record = now
            if self.gap or now - last_line >= 5:
                line = _progress(self.arrays, self.names, now - self.start, self.hidden)
                self.out.write(("\r" + line) if self.gap else (line + "\n"))
                self.out.flush()
                last_line = now
        for p in self.procs:
            p.join()
        if self.gap:
            self.out.write("\n")

    def take(self, msg: _Message) -> None:
        out, gap, config = self.out, self.gap, self.config
        match msg:
            case _FirstFailure(worker, seconds, path):
                self.unreduced[worker] = path
                out.write(f"{gap}worker {worker}: first failure at {seconds:.1f} s, kept "
                          f"unreduced in {path}; shrinking and reducing it\n")
                if config.stop_on_first:  # the one worker that claimed it (`claim_first`)
                    # reduces it with the machine to itself
                    _terminate([p for i, p in enumerate(self.procs) if i != worker])
            case _Warning(text, key):
                # the server's state is said each time it changes (however many workers
                # saw the change); any other warning once per campaign
                if key in ("server-down", "server-up"):
                    if (key == "server-down") == self.server_down:
                        return
                    self.server_down = key == "server-down"
                elif (key or text) in self.warned:
                    return
                self.warned.add(key or text)
                out.write(f"{gap}{'warning: ' if key != 'server-up' else ''}{text}\n")
            case _Replayed(path, verdict):
                self.replayed.append((path, verdict))
                if path:
                    out.write(f"{gap}replayed an announced counterexample: {path}: "
                              f"{verdict}\n")
            case _Reduced(counterexample, worker, signature):
                from difftest.campaign.signature import Signature

                self.found.append(counterexample)
                self.signatures[counterexample.path] = Signature.from_json(signature)
                self.journal.finding(time.monotonic() - self.start, counterexample)
                self.unreduced.pop(worker, None)
                out.write(f"{gap}counterexample: {counterexample.describe()}\n")
            case _SeenAgain(key, name, worker, position, case, reduced, compiler, recorded):
                self.repeats[key] = self.repeats.get(key, 0) + 1
                self.repeat_names.setdefault(key, name)
                seen_on = self.repeat_compilers.setdefault(key, (recorded, set()))[1]
                if compiler:
                    seen_on.add(compiler)
                held = self.repeat_cases.get(key)
                if case is not None and (held is None or position < held[0]):
                    self.repeat_cases[key] = (position, case)
                if reduced:  # the failure it was shrinking: said, with what it is
                    self.unreduced.pop(worker, None)
                    out.write(f"{gap}worker {worker}: that failure is {name} again\n")
            case _WorkerFailed(text):
                self.errors.append(text)
                out.write(f"{gap}error: {text}\n")

    def summary(self) -> FuzzSummary:
        while not self.results.empty():
            self.take(self.results.get())
        totals = [sum(a[i] for a in self.arrays) for i in range(_FIXED + len(self.names))]
        kept, into = merge_findings([(f, self.signatures[f.path]) for f in self.found])
        kept_paths = {f.path for f in kept}
        counts: dict[str, int] = {}

        def count(key: str, times: int = 1) -> None:
            final = into.get(key, key)
            counts[final] = counts.get(final, 0) + times

        for key, times in self.repeats.items():
            count(key, times)
        for f in self.found:
            if any(f is g for g in kept):
                continue
            count(f.key)  # a worker's finding of a bug met earlier in the seed order
            if f.saved and f.path not in kept_paths:
                same = next(g.path for g in kept if g.key == into[f.key])
                self.out.write(f"{f.path}: the same bug as {same} (met earlier in the "
                               "seed order): removed\n")
                self.journal.write({"type": "duplicate", "path": f.path, "into": same})
                try:
                    Path(f.path).unlink()
                except OSError:
                    pass
        names = {f.key: f.path for f in kept}
        seen = []
        for key, times in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            held = [v for k, v in self.repeat_cases.items() if into.get(k, k) == key]
            name = names.get(key) or self.repeat_names.get(key, key)
            case = self._keep_repeat(min(held, key=lambda v: v[0])[1], name) if held else ""
            recorded, on = "", set[str]()
            for k, (r, c) in self.repeat_compilers.items():
                if into.get(k, k) == key:
                    recorded, on = recorded or r, on | c
            seen.append(SeenAgain(key, name, times, case, recorded, sorted(on)))
        for f in kept:
            f.repeats = counts.get(f.key, 0)
        return FuzzSummary(time.monotonic() - self.start, totals[_KERNELS], totals[_CASES],
                           totals[_EXECS], self.errors,
                           {name: totals[_FIXED + i] for i, name in enumerate(self.names)
                            if name not in self.hidden},
                           self.config.workers, totals[_SKIPPED], kept, self.replayed,
                           sum(counts.values()),
                           sorted(p for p in self.unreduced.values() if p and Path(p).exists()),
                           seen, totals[_SLOW], totals[_SLOW_MS] / 1000,
                           self.config.reduce_seconds, totals[_UNORDERED])

    def _keep_repeat(self, case_json: dict[str, Any], name: str) -> str:
        """Keep one failing case a finding explained (under SEEN_AGAIN in the corpus
        folder, where corpus replay and triage do not look), for a user to check."""
        from difftest.campaign.corpus import corpus_json, save
        from difftest.core.case import case_from_json

        try:
            case = case_from_json(case_json)
        except Exception:  # noqa: BLE001 - a case the worker wrote: never lose the summary
            return ""
        mutants = list(case.options.get("mutants", []))
        plain = dataclasses.replace(case, options={k: v for k, v in case.options.items()
                                                   if k != "mutants"})
        try:  # this campaign's counterexample, by its name in the folder (wherever it is)
            name = str(Path(name).relative_to(self.config.corpus))
        except ValueError:
            pass  # a corpus finding's id
        obj = corpus_json(plain, self.config.target,
                          {"verdict": "disagree"} if mutants else {"verdict": "agree"},
                          f"a failing case difftest {self.config.command} took for {name} "
                          "seen again", mutants)
        obj["seen_again"] = name
        try:
            return str(save(self.config.corpus / SEEN_AGAIN, obj))
        except OSError:
            return ""


def _seed_known(folder: Path, config: FuzzConfig) -> int:
    """Start the campaign's findings with the target's known bugs recorded in the
    corpus folders `config.known` (difftest.campaign.findings), each under its id;
    returns how many."""
    from difftest.campaign.findings import known_findings

    if config.stop_on_first:
        return 0
    known = _Known([folder], folder)
    # a finding that names its compiler may be another target's (lavapipe-glsl's, met by
    # vulkan-glsl on the same lavapipe): which apply is decided case by case
    found = [f for f in known_findings([p for p in config.known if p.is_dir()])
             if f.target == config.target or f.signature.compiler]
    for f in found:
        known.add(f.signature, f.avoid, f.name)
    return len(found)


def _folders(root: Path, base: Path, config: FuzzConfig) -> _Folders:
    """A folder of findings for each worker, or one for all of them in a campaign with a
    database (whose workers share what they find as they go, as peers do)."""
    if config.database is not None:
        shared = root / "all-workers"
        shared.mkdir()
        return _Folders(str(base), [str(shared)] * config.workers)
    folders = []
    for i in range(config.workers):
        (root / f"worker-{i}").mkdir()
        folders.append(str(root / f"worker-{i}"))
    return _Folders(str(base), folders)


def merge_findings(found: list[tuple[Found, Any]]) -> tuple[list[Found], dict[str, str]]:
    """The workers' findings (each with its Signature) as one campaign: in the seed
    order, each kept unless it is the same bug (`Signature.same_bug`) as one kept
    before it. Returns the kept ones, in that order, and the key of each finding's kept
    one (its own when kept). A function of what was found, never of when it arrived: a
    seeded campaign keeps the same files however fast each worker ran."""
    kept: list[tuple[Found, Any]] = []
    into: dict[str, str] = {}
    for f, signature in sorted(found, key=lambda fs: fs[0].position):
        same = next((g for g, s in kept if s.same_bug(signature)), None)
        if same is None:
            kept.append((f, signature))
            into[f.key] = f.key
        else:
            into[f.key] = same.key
    return [f for f, _ in kept], into


def _terminate(procs: list[Any]) -> None:
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + 5
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join()


def _record_progress(journal: Journal, arrays: list[Any], names: list[str],
                     elapsed: float, hidden: frozenset[str] = frozenset()) -> None:
    tot, (seen, constructs), (pairs, known) = _totals(arrays, names, hidden)
    journal.progress(elapsed, {
        "kernels": tot[_KERNELS], "cases": tot[_CASES], "executions": tot[_EXECS],
        "constructs": seen, "constructs_known": constructs,
        "pairs": pairs, "pairs_known": known,
        "failures": tot[_FAILURES]},
        [{"kernels": a[_KERNELS], "cases": a[_CASES]} for a in arrays])


def _totals(arrays: list[Any], names: list[str], hidden: frozenset[str] = frozenset()
            ) -> tuple[list[int], tuple[int, int], tuple[int, int]]:
    """The workers' counters summed; the constructs some worker has seen, of how many;
    the pairs some worker has seen, of how many the target can be given (not `hidden`)."""
    tot = [sum(a[i] for a in arrays) for i in range(_FIXED)]
    all_pairs = set(names) & set(_pairs())
    edges = set(names) & set(EDGE_PAIRS)  # counted apart (`_edges_met`)
    seen = {name for i, name in enumerate(names) if any(a[_FIXED + i] for a in arrays)}
    pairs = seen & all_pairs
    return (tot, (len(seen - pairs - edges), len(names) - len(all_pairs) - len(edges)),
            (len(pairs - hidden), len(all_pairs - hidden)))


def _edges_met(arrays: list[Any], names: list[str]) -> int:
    return sum(1 for i, name in enumerate(names)
               if name in EDGE_PAIRS and any(a[_FIXED + i] for a in arrays))


def _progress(arrays: list[Any], names: list[str], elapsed: float,
              hidden: frozenset[str] = frozenset()) -> str:
    tot, (seen, constructs), (pairs, known) = _totals(arrays, names, hidden)

    def rate(c: float) -> float:
        return c / elapsed if elapsed > 0 else 0.0
    return (f"[{elapsed:6.1f}s] kernels {tot[_KERNELS]} ({rate(tot[_KERNELS]):.0f}/s)  "
            f"cases {tot[_CASES]} ({rate(tot[_CASES]):.0f}/s)  "
            f"execs {tot[_EXECS]} ({rate(tot[_EXECS]):.0f}/s)  "
            f"constructs {seen}/{constructs}  pairs {pairs}/{known}  "
            f"edges {_edges_met(arrays, names)}/{len(EDGE_PAIRS)}  "
            f"failures {tot[_FAILURES]}")


def is_hang(failure: str) -> bool:
    """Whether a failure class is a hang (a timeout: no answer even when given many times
    the target's limits), which a summary never lists among wrong results."""
    return failure.startswith("R0 error: timeout")


def summary_json(s: FuzzSummary, target: str, interrupted: str | None = None
                 ) -> dict[str, Any]:
    """The summary as `difftest fuzz --json FILE` writes it (the same facts as the text)."""
    out: dict[str, Any] = {"format": "difftest-fuzz-summary", "version": 1, "target": target,
                           **dataclasses.asdict(s)}
    counts, pairs = out.pop("construct_counts"), set(_pairs())
    out["constructs"] = {k: v for k, v in counts.items()
                         if k not in pairs and k not in EDGE_PAIRS}
    out["pairs"] = {k: v for k, v in counts.items() if k in pairs}
    out["edges"] = {k: v for k, v in counts.items() if k in EDGE_PAIRS}
    out["replayed"] = [{"path": p, "verdict": v} for p, v in s.replayed]
    out["interrupted"] = interrupted
    return out


def _table(items: list[tuple[str, int]], kernels: int) -> list[str]:
    """Coverage cells, as many to a row as fit in 100 columns."""
    width = max((len(name) for name, _ in items), default=10)
    per_row = max(1, 96 // (width + 9))
    return ["   " + "  ".join(f"{name:>{width}} {100 * c / max(1, kernels):5.1f}%"
                              for name, c in items[i:i + per_row])
            for i in range(0, len(items), per_row)]


def format_summary(s: FuzzSummary, target: str) -> str:
    cores = max(1, min(s.workers, os.cpu_count() or 1))
    lines = [
        f"fuzz summary: target {target}, {s.workers} worker(s), {s.elapsed:.1f} s",
        f"  kernels    {s.kernels:8d}  {s.rate(s.kernels):8.1f}/s  "
        f"{s.rate(s.kernels) / cores:8.1f}/s per core",
        f"  cases      {s.cases:8d}  {s.rate(s.cases):8.1f}/s  "
        f"{s.rate(s.cases) / cores:8.1f}/s per core   (checked: oracle + target + verdict)",
        f"  executions {s.executions:8d}  {s.rate(s.executions):8.1f}/s",
    ]
    if s.skipped:
        lines.append(f"  skipped    {s.skipped:8d}  cases the target declares it cannot run, "
                     "or the oracle cannot judge (past its work limit)")
    if s.unordered:
        lines.append(f"  unordered  {s.unordered:8d}  cases not checked: the checker could not "
                     "decide in its step budget whether their atomics' returned values form "
                     "an order")
    if s.slow:
        lines.append(f"  slow       {s.slow:8d}  cases not checked: the target answered only "
                     f"past its limits ({s.slow_cpu:.1f} CPU s in all on its reruns)")
    lines.append("  coverage (% of kernels; fault kinds: % of oracle runs' kernels):")
    pair_names = set(_pairs()) | set(EDGE_PAIRS)
    items = sorted((k, v) for k, v in s.construct_counts.items() if k not in pair_names)
    lines += _table(items, s.kernels)
    missing = [name for name, c in items if c == 0]
    if missing and s.kernels:
        lines.append(f"  never seen: {', '.join(missing)}")
    pairs = [(k, s.construct_counts[k]) for k in _pairs() if k in s.construct_counts]
    if pairs:
        reached = sum(1 for _, c in pairs if c)
        lines.append(f"  pair coverage: {reached}/{len(pairs)} pairs (% of kernels; host "
                     "steps by their buffer's state, where values die, wave operations "
                     "by divergence):")
        lines += _table(pairs, s.kernels)
        missing = [name for name, c in pairs if c == 0]
        if missing and s.kernels:
            lines.append(f"  pairs never reached: {', '.join(missing)}")
    edges = [(k[len("edge:"):], s.construct_counts[k]) for k in EDGE_PAIRS
             if k in s.construct_counts]
    if edges:
        reached = sum(1 for _, c in edges if c)
        lines.append(f"  edge values met: {reached}/{len(edges)} (operation:value, % of "
                     "kernels whose oracle run met it):")
        lines += _table(edges, s.kernels)
        rare = [name for name, c in edges if 0 < c < 0.01 * s.kernels]
        if rare:
            lines.append(f"  edge values met rarely (under 1%): {', '.join(rare)}")
        missing = [name for name, c in edges if c == 0]
        if missing and s.kernels:
            lines.append(f"  edge values never met: {', '.join(missing)}")
    if s.replayed:
        failing = [p for p, _ in s.replayed if p]
        lines.append(f"  announced counterexamples replayed: {len(s.replayed)}, "
                     f"{len(failing)} failing here too")
        lines += [f"    {p}" for p in failing]
    hangs = [f for f in s.found if is_hang(f.failure)]
    wrong = [f for f in s.found if not is_hang(f.failure)]
    if wrong:
        lines.append(f"  COUNTEREXAMPLES: {len(wrong)} distinct")
        lines += [f"    {f.describe()}" for f in wrong]
    if hangs:
        lines.append(f"  HANGS: {len(hangs)} distinct (no answer even on a rerun allowed "
                     "many times the limits)")
        lines += [f"    {f.describe()}" for f in hangs]
    if not s.found and not s.unreduced:
        lines.append("  no counterexample found")
    if s.seen_again:
        lines.append(f"  seen again: {s.repeats} failing case(s) explained by a finding "
                     "(one of each kept, to check the attribution with difftest check):")
        lines += [f"    {r.describe()}" for r in s.seen_again]
    if s.reduce_seconds is not None:
        lines.append(f"  note: each failure's shrinking and reduction was capped at "
                     f"{s.reduce_seconds:g} s (--reduce-time): what this campaign kept "
                     "depends on the machine and its load")
    if s.unreduced:
        lines.append(f"  counterexamples kept before their reduction ended: "
                     f"{len(s.unreduced)} (difftest reduce FILE finishes one)")
        lines += [f"    {p}" for p in s.unreduced]
    if s.errors:
        lines.append(f"  problems of the campaign itself: {len(s.errors)}")
        lines += [f"    {e}" for e in s.errors]
    return "\n".join(lines)
