"""The checker: legal outcomes agree; every perturbation is rejected by the right rule.

Legal outcomes are built here from the oracle's full run (fates and write logs) for a
Hypothesis-chosen set of never-ran waves; perturbations are then applied one at a time.
The expected rule is the first one in the semantics' order (docs/semantics.md) that the perturbation breaks.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from difftest.core.case import Case, case_from_json
from difftest.core.outcome import (COMPLETED, FAULTED, NEVER_RAN, ExceptionReport, Fault, Frame,
                                   Outcome, TargetError)
from difftest.core.verdict import check_outcome
from difftest.core.fullrun import FullRun
from oracles.reference import run_full

from ..conftest import example_json

MIXED = """\
def mixed(inp: Buffer[i32], out: Buffer[i32], acc: Buffer[i64]):
    g = gid()
    out[2 * g] = inp[g] * 3
    atomic_add(acc, g % 3, inp[g] + 1)
    out[2 * g + 1] = out[2 * g] + 100 // inp[g]
"""


def mixed_case(zeros: list[int], n: int = 16, wave: int = 4) -> Case:
    data = [g + 1 for g in range(n)]
    for z in zeros:
        data[z] = 0
    return case_from_json({
        "kernel": MIXED, "entry": "mixed", "launch": {"n": n, "wave": wave},
        "args": {"inp": {"dtype": "i32", "data": data},
                 "out": {"dtype": "i32", "data": [-1] * (2 * n)},
                 "acc": {"dtype": "i64", "data": [5, 6, 7]}},
    })


def example_case(name: str) -> Case:
    return case_from_json(example_json(name))


BASES = {
    "mixed_faults": lambda: mixed_case([1, 6, 13]),
    "mixed_clean": lambda: mixed_case([]),
    "simple_deopt": lambda: example_case("simple_deopt"),
    "divergent_wave_ops": lambda: example_case("divergent_wave_ops"),
    "payload_clobber": lambda: example_case("payload_clobber"),
}
_CACHE: dict[str, tuple[Case, FullRun]] = {}


def base(name: str) -> tuple[Case, FullRun]:
    if name not in _CACHE:
        case = BASES[name]()
        _CACHE[name] = (case, run_full(case))
    return _CACHE[name]


def wrap(v: int, dtype: np.dtype) -> int:
    bits = np.dtype(dtype).itemsize * 8
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def legal(case: Case, full: FullRun, never_waves: set[int], reported: int | None) -> Outcome:
    """Memory after running exactly the workitems outside `never_waves`."""
    status = []
    for g, fate in enumerate(full.fates):
        if g // case.wave in never_waves:
            status.append(NEVER_RAN)
        else:
            status.append(COMPLETED if fate is None else FAULTED)
    bufs = {k: v.astype(np.int64).copy() for k, v in full.initial.items()}
    for g, log in enumerate(full.writes):
        if status[g] == NEVER_RAN:
            continue
        for w in log:
            if w.atomic:
                bufs[w.buffer][w.index] = wrap(int(bufs[w.buffer][w.index]) + w.value,
                                               full.initial[w.buffer].dtype)
            else:
                bufs[w.buffer][w.index] = w.value
    exc = None if reported is None else ExceptionReport(reported, full.fates[reported])  # type: ignore[arg-type]
    return Outcome(bufs, exc, status)


def with_faults(out: Outcome, full: FullRun) -> Outcome:
    """`out` plus the optional `faults` map: every workitem it ran that faulted."""
    out.faults = {g: f for g, f in enumerate(full.fates)
                  if f is not None and out.status[g] == FAULTED}
    return out


@st.composite
def legal_outcomes(draw: st.DrawFn, names: list[str] | None = None
                   ) -> tuple[Case, FullRun, Outcome]:
    case, full = base(draw(st.sampled_from(names or sorted(BASES))))
    faulting = full.faulting
    n_waves = (case.n + case.wave - 1) // case.wave
    if not faulting:
        return case, full, legal(case, full, set(), None)
    reported = draw(st.sampled_from(faulting))
    others = [w for w in range(n_waves) if w != reported // case.wave]
    never = set(draw(st.lists(st.sampled_from(others), unique=True))) if others else set()
    out = legal(case, full, never, reported)
    return case, full, with_faults(out, full) if draw(st.booleans()) else out


SETTINGS = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(legal_outcomes())
def test_legal_never_ran_variants_agree(triple: tuple[Case, FullRun, Outcome]) -> None:
    case, full, outcome = triple
    verdict = check_outcome(case, full, outcome, wave_granularity=True)
    assert verdict.agree, str(verdict)


def test_the_full_run_itself_agrees_under_stream() -> None:
    for name in BASES:
        case, full = base(name)
        assert check_outcome(case, full, full.outcome(), policy="stream").agree
    # Running everything is not a sequential target's behaviour once a wave faults.
    case, full = base("mixed_faults")
    v = check_outcome(case, full, full.outcome(), policy="sequential")
    assert v.rule == "R1 exception"


def test_sequential_requires_lowest_fault_and_later_waves_unrun() -> None:
    case, full = base("mixed_faults")  # faults at 1, 6, 13; waves of 4
    lowest = legal(case, full, {1, 2, 3}, 1)
    assert check_outcome(case, full, lowest, policy="sequential").agree
    later_ran = legal(case, full, {2, 3}, 1)
    v = check_outcome(case, full, later_ran, policy="sequential")
    assert v.rule == "R1 exception" and "ran in a wave after" in v.message
    not_lowest = legal(case, full, {0, 2, 3}, 6)
    assert check_outcome(case, full, not_lowest).agree  # stream accepts it
    v = check_outcome(case, full, not_lowest, policy="sequential")
    assert v.rule == "R1 exception" and v.workitems == (1, 6)


def test_partial_wave_never_ran_breaks_granularity_only_when_asked() -> None:
    case, full = base("mixed_faults")
    out = legal(case, full, {3}, 1)
    # Workitem 12 (wave 3) "ran" after all: apply its writes and mark it completed.
    for w in full.writes[12]:
        if w.atomic:
            out.buffers[w.buffer][w.index] += w.value
        else:
            out.buffers[w.buffer][w.index] = w.value
    out.status[12] = COMPLETED
    assert check_outcome(case, full, out).agree
    v = check_outcome(case, full, out, wave_granularity=True)
    assert v.rule == "R5 granularity" and 13 in v.workitems


PERTURBATIONS = [
    "change_value", "drop_exception", "extra_exception", "exception_from_non_faulting",
    "wrong_stack", "completed_marked_never_ran", "never_ran_writes_visible", "half_done",
    "atomic_twice", "fault_marked_completed", "wrong_fail_code_or_kind", "target_error",
    "faults_entry_for_unfaulted", "faults_entry_missing",
]


def _perturb(draw: st.DrawFn, kind: str, case: Case, full: FullRun, out: Outcome
             ) -> str | None:
    """Apply `kind` to `out` in place; return the rule expected to fail, or None when the
    perturbation does not apply to this outcome."""
    ran = [g for g, s in enumerate(out.status) if s != NEVER_RAN]
    if kind == "change_value":
        atomic_only = {(w.buffer, w.index) for log in full.writes for w in log if w.atomic} - {
            (w.buffer, w.index) for log in full.writes for w in log if not w.atomic}
        name = draw(st.sampled_from(sorted(out.buffers)))
        i = draw(st.integers(0, len(out.buffers[name]) - 1))
        delta = draw(st.sampled_from([1, -1, 1 << 20]))
        dtype = full.initial[name].dtype
        out.buffers[name][i] = wrap(int(out.buffers[name][i]) + delta, dtype)
        return "R4 atomics" if (name, i) in atomic_only else "R3 memory"
    if kind == "drop_exception":
        if out.exception is None:
            return None
        out.exception = None
        return "R1 exception"
    if kind == "extra_exception":
        if out.exception is not None:
            return None
        g = draw(st.sampled_from(ran))
        out.exception = ExceptionReport(g, Fault("fail", (Frame(case.entry, 1),), 0))
        return "R1 exception"
    if kind == "exception_from_non_faulting":
        completed = [g for g in ran if full.fates[g] is None]
        if out.exception is None or not completed:
            return None
        out.exception = ExceptionReport(draw(st.sampled_from(completed)), out.exception.fault)
        return "R1 exception"
    if kind == "wrong_stack":
        if out.exception is None:
            return None
        f = out.exception.fault
        stacks = [f.stack[:-1], f.stack + f.stack[-1:],
                  f.stack[:-1] + (Frame(f.stack[-1].function, f.stack[-1].line + 1),)]
        new = draw(st.sampled_from(stacks))
        out.exception = ExceptionReport(out.exception.gid, Fault(f.kind, new, f.code))
        return "R1 exception"
    if kind == "completed_marked_never_ran":
        writers = [g for g in ran if full.fates[g] is None and full.writes[g]
                   and any(not w.atomic for w in full.writes[g])]
        if not writers:
            return None
        out.status[draw(st.sampled_from(writers))] = NEVER_RAN
        return "R2 fates" if out.exception is None else "R3 memory"
    if kind == "never_ran_writes_visible":
        unrun = [g for g, s in enumerate(out.status) if s == NEVER_RAN
                 and any(not w.atomic and w.value != full.initial[w.buffer][w.index]
                         for w in full.writes[g])]
        if not unrun:
            return None
        g = draw(st.sampled_from(unrun))
        for w in full.writes[g]:
            if not w.atomic:
                out.buffers[w.buffer][w.index] = w.value
        return "R3 memory"
    if kind == "half_done":
        # A ran workitem whose last plain write changed its location: undo just that one.
        candidates = []
        for g in ran:
            plain = [w for w in full.writes[g] if not w.atomic]
            if plain:
                last = plain[-1]
                initial = int(full.initial[last.buffer][last.index])
                if int(out.buffers[last.buffer][last.index]) == last.value != initial:
                    candidates.append((g, last))
        if not candidates:
            return None
        g, last = draw(st.sampled_from(candidates))
        out.buffers[last.buffer][last.index] = full.initial[last.buffer][last.index]
        return "R3 memory"
    if kind == "atomic_twice":
        contributions = [(g, w) for g in ran for w in full.writes[g] if w.atomic and w.value]
        if not contributions:
            return None
        g, w = draw(st.sampled_from(contributions))
        dtype = full.initial[w.buffer].dtype
        out.buffers[w.buffer][w.index] = wrap(int(out.buffers[w.buffer][w.index]) + w.value, dtype)
        return "R4 atomics"
    if kind == "fault_marked_completed":
        faulted = [g for g in ran if full.fates[g] is not None]
        if not faulted:
            return None
        out.status[draw(st.sampled_from(faulted))] = COMPLETED
        return "R2 fates"
    if kind == "wrong_fail_code_or_kind":
        if out.exception is None:
            return None
        f = out.exception.fault
        other = "division_by_zero" if f.kind != "division_by_zero" else "out_of_bounds"
        out.exception = ExceptionReport(out.exception.gid, Fault(other, f.stack, None))
        return "R1 exception"
    if kind == "faults_entry_for_unfaulted":
        # a completed or never-ran workitem listed as faulted, with a real fault's fate
        unfaulted = [g for g, s in enumerate(out.status) if s != FAULTED]
        if out.faults is None or not unfaulted or not full.faulting:
            return None
        g = draw(st.sampled_from(unfaulted))
        out.faults[g] = full.fates[draw(st.sampled_from(full.faulting))]  # type: ignore[assignment]
        return "R2 fates"
    if kind == "faults_entry_missing":
        if not out.faults:
            return None
        del out.faults[draw(st.sampled_from(sorted(out.faults)))]
        return "R2 fates"
    assert kind == "target_error"
    out.error = TargetError("timeout", "ran past 10 s")
    return "R0 error"


@SETTINGS
@given(st.data(), st.sampled_from(PERTURBATIONS))
def test_every_perturbation_is_rejected_by_its_rule(data: st.DataObject, kind: str) -> None:
    case, full, out = data.draw(legal_outcomes())
    out = copy.deepcopy(out)
    rule = _perturb(data.draw, kind, case, full, out)
    if rule is None:
        return  # this base outcome has nothing to perturb this way
    verdict = check_outcome(case, full, out)
    assert not verdict.agree, f"{kind} accepted"
    assert verdict.rule == rule, f"{kind}: expected {rule}, got {verdict}"


@pytest.mark.parametrize("kind", PERTURBATIONS)
def test_each_perturbation_applies_to_some_base(kind: str) -> None:
    """Guards the property above against vacuity: every perturbation kind must apply to
    at least one legal outcome of the base cases."""
    applied = []

    @settings(max_examples=80, deadline=None, database=None)
    @given(st.data())
    def probe(data: st.DataObject) -> None:
        case, full, out = data.draw(legal_outcomes())
        out = copy.deepcopy(out)
        rule = _perturb(data.draw, kind, case, full, out)
        if rule is not None:
            applied.append(rule)

    probe()
    assert applied, f"perturbation {kind} never applied"


def test_counted_twice_message_names_the_workitem() -> None:
    case, full = base("mixed_clean")
    out = legal(case, full, set(), None)
    w = full.writes[4][1]  # workitem 4's atomic_add(acc, 4 % 3, inp[4] + 1) = acc[1] += 6
    assert w.atomic and (w.buffer, w.index, w.value) == ("acc", 1, 6)
    out.buffers["acc"][1] += 6
    v = check_outcome(case, full, out)
    assert v.rule == "R4 atomics"
    assert "counted twice" in v.message and 4 in v.workitems


# ------------------------------------------------------------- the loop-trip budget

BUDGET_CASE = {
    "kernel": (
        "def k(out: Buffer[i32], big: i32):\n"
        "    g = gid()\n"
        "    bound = big if g == 2 else 3\n"
        "    s = 0\n"
        "    for j in range(0, 60):\n"
        "        if j >= bound:\n"
        "            break\n"
        "        s = s + 1\n"
        "    if g == 5:\n"
        "        fail(7)\n"
        "    out[g] = s\n"),
    "entry": "k", "launch": {"n": 8, "wave": 2},
    "args": {"out": {"dtype": "i32", "data": [0] * 8}, "big": 50},
    "options": {"step_budget": 10},
}


def budget_base(fail_too: bool = True) -> tuple[Case, FullRun]:
    obj = copy.deepcopy(BUDGET_CASE)
    if not fail_too:
        obj["kernel"] = obj["kernel"].replace("fail(7)", "s = s + 0")
    case = case_from_json(obj)
    return case, run_full(case)


def test_exhausted_workitem_target_error_step_budget_agrees() -> None:
    case, full = budget_base()
    assert full.exhausted == [2] and full.faulting == [5]
    err = Outcome(case.buffers(), None, [], error="step_budget: workitem 2 ran out")
    assert check_outcome(case, full, err).agree
    other = Outcome(case.buffers(), None, [], error="internal: machine error 4")
    assert check_outcome(case, full, other).rule == "R0 error"


def test_exhausted_workitem_may_only_be_never_ran() -> None:
    case, full = budget_base()
    never_ran = legal(case, full, {1}, 5)  # workitem 2's wave never ran; 5 reported
    assert check_outcome(case, full, never_ran, wave_granularity=True).agree
    ran = legal(case, full, set(), 5)  # it "completed": no target can do that
    v = check_outcome(case, full, ran)
    assert v.rule == "R2 fates" and v.workitems == (2,)


def test_exhausted_workitem_without_any_fault_leaves_only_the_error() -> None:
    case, full = budget_base(fail_too=False)
    assert full.exhausted == [2] and not full.faulting
    v = check_outcome(case, full, legal(case, full, {1}, None))
    assert v.rule == "R2 fates"  # never-ran with nothing reported
    v = check_outcome(case, full, legal(case, full, set(), None))
    assert v.rule == "R2 fates" and v.workitems == (2,)


def test_step_budget_error_without_an_exhausted_workitem_disagrees() -> None:
    case, full = base("simple_deopt")
    v = check_outcome(case, full, Outcome(case.buffers(), None, [], error="step_budget: x"))
    assert v.rule == "R0 error"
