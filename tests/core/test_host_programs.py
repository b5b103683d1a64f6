"""Host programs (difftest/core/host.py): the case format and its one-line errors, the oracle's
plain model against hand-derived observations, and generated programs agreeing on
numba-simt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from difftest.core.case import case_from_json
from difftest.app.cli import main
from difftest.campaign.runner import check_case, oracle_run
from generators.cases import cases_for
from generators.host import host_programs
from generators.kernels import kernels
from targets.numba_simt.target import NumbaSimtTarget

KERNEL = "def k(out: Buffer[i32], inp: Buffer[i32]):\n    g = gid()\n    out[g] = inp[g] * 2\n"


def _case(host: list[dict[str, Any]], n: int = 2) -> dict[str, Any]:
    return {"kernel": KERNEL, "entry": "k", "launch": {"n": n, "wave": 2},
            "args": {"out": {"dtype": "i32", "data": [0] * n},
                     "inp": {"dtype": "i32", "data": list(range(1, n + 1))}},
            "host": host}


@pytest.mark.parametrize("host, message", [
    ("x", "field 'host' must be a list of steps"),
    ([{"op": "jump"}], "host step 0: a step is an object with 'op' one of"),
    ([{"op": "read"}], "host step 0: 'read' needs field 'buffer'"),
    ([{"op": "read", "buffer": "out", "extra": 1}], "unknown field 'extra' for 'read'"),
    ([{"op": "create", "buffer": "b", "dtype": "f32", "length": 2}], "field 'dtype'"),
    ([{"op": "create", "buffer": "b", "dtype": "i32", "length": -1}], "field 'length'"),
    ([{"op": "write", "buffer": "out", "offset": 0, "data": [1.5]}], "field 'data'"),
    ([{"op": "write", "buffer": "out", "offset": 0, "data": [2**64]}],
     "field 'data' must be a list of 64-bit integers (-2^63..2^64-1"),
    ([{"op": "write", "buffer": "out", "offset": 0, "data": [0] * (2**20 + 1)}],
     "field 'data' holds 1048577 values, over 1048576"),
    ([{"op": "map", "buffer": "out", "mode": "rw", "as": "m"}], "field 'mode'"),
    ([{"op": "launch", "bind": {"nope": "out"}}], "'nope' is not a buffer parameter"),
    ([{"op": "launch", "bind": {"out": "inp"}}], "binds one buffer to two parameters"),
])
def test_a_bad_host_program_is_one_line_exit_2(tmp_path: Path, host: Any, message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.case.json"
    path.write_text(json.dumps(_case(host)))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and str(path) in err


def test_a_host_program_round_trips_through_json() -> None:
    host = [{"op": "create", "buffer": "b", "dtype": "i32", "length": 2},
            {"op": "write", "buffer": "b", "offset": 0, "data": [2**64 - 1, -2**63]},
            {"op": "launch", "bind": {"out": "b"}}, {"op": "read", "buffer": "b"}]
    case = case_from_json(_case(host))
    again = case_from_json(json.loads(json.dumps(case.to_json())))
    assert again.host == host == case.host


def test_the_model_by_hand() -> None:
    # inp = [1, 2]; out mapped for reading across two launches, the second writing
    # out = inp * 2 through a rebinding; a write mapping of inp written before a launch
    host = [
        {"op": "map", "buffer": "out", "mode": "read", "as": "r"},
        {"op": "map_read", "mapping": "r"},                          # [0, 0]
        {"op": "launch"},                                            # out = [2, 4]
        {"op": "map_read", "mapping": "r"},                          # [2, 4]
        {"op": "map", "buffer": "inp", "mode": "write", "as": "w"},
        {"op": "map_write", "mapping": "w", "offset": 1, "data": [2**31]},  # wraps
        {"op": "map_read", "mapping": "w"},                          # [1, -2**31]
        {"op": "unmap", "mapping": "w"},
        {"op": "create", "buffer": "c", "dtype": "i32", "length": 2},
        {"op": "launch", "bind": {"out": "c"}},                      # c = [2, 0]
        {"op": "read", "buffer": "c"},
        {"op": "free", "buffer": "c"},
        {"op": "read", "buffer": "c"},                               # no_buffer: ends
        {"op": "read", "buffer": "out"},
    ]
    case = case_from_json(_case(host))
    run, error = oracle_run(case)
    assert error is None
    assert run.observations == [(1, [0, 0]), (3, [2, 4]), (6, [1, -2**31]), (10, [2, 0])]
    assert run.error == (12, "no_buffer")
    assert {k: v.tolist() for k, v in run.final.items()} == {"out": [2, 4],
                                                              "inp": [1, -2**31]}
    assert check_case(case, NumbaSimtTarget()).verdict.agree


@pytest.mark.parametrize("ty, written, stored, doubled", [
    # host data wrapped to the element type as a store would (its storage form: a u64 as
    # its bits); the kernel's `inp[g] + inp[g]` wraps at the type's width
    ("i8", [-1, 200, 127], [-1, -56, 127], [-2, -112, -2]),
    ("u8", [-1, 300, 128], [255, 44, 128], [254, 88, 0]),
    ("i16", [40000, -32768, 5], [-25536, -32768, 5], [14464, 0, 10]),
    ("u16", [-2, 65536, 40000], [65534, 0, 40000], [65532, 0, 14464]),
    ("u32", [-1, 2**32 + 7, 2**31], [2**32 - 1, 7, 2**31], [2**32 - 2, 14, 0]),
    ("i32", [2**31, -1, 3], [-2**31, -1, 3], [0, -2, 6]),
    ("u64", [-1, 2**62, 1], [-1, 2**62, 1], [-2, -2**63, 2]),
    # a u64 written by its value, as a case file writes one (it was refused)
    ("u64", [2**64 - 1, 2**63, 5], [-1, -2**63, 5], [-2, 0, 10]),
    ("i64", [-2**63, 2**62, -3], [-2**63, 2**62, -3], [0, -2**63, -6]),
])
def test_host_programs_on_buffers_of_every_integer_type(ty: str, written: list[int],
                                                        stored: list[int],
                                                        doubled: list[int]) -> None:
    # a created buffer of the parameter's type, written (wrapped), bound to a launch
    # and read back, on the oracle and numba-simt; worked by hand
    kernel = (f"def k(out: Buffer[{ty}], inp: Buffer[{ty}]):\n"
              "    g = gid()\n    out[g] = inp[g] + inp[g]\n")
    host = [{"op": "create", "buffer": "b", "dtype": ty, "length": 3},
            {"op": "write", "buffer": "b", "offset": 0, "data": written},
            {"op": "read", "buffer": "b"},
            {"op": "map", "buffer": "out", "mode": "write", "as": "w"},
            {"op": "map_write", "mapping": "w", "offset": 0, "data": written},
            {"op": "map_read", "mapping": "w"},
            {"op": "unmap", "mapping": "w"},
            {"op": "launch", "bind": {"inp": "b"}},
            {"op": "read", "buffer": "out"}]
    case = case_from_json({"kernel": kernel, "entry": "k", "launch": {"n": 3, "wave": 2},
                           "args": {"out": {"dtype": ty, "data": [0, 0, 0]},
                                    "inp": {"dtype": ty, "data": [1, 2, 3]}},
                           "host": host})
    run, error = oracle_run(case)
    assert error is None and run.error is None
    assert run.observations == [(2, stored), (5, stored), (8, doubled)]
    res = check_case(case, NumbaSimtTarget())
    assert res.verdict.agree, res.verdict
    assert res.outcome.host is not None and res.outcome.host["observations"] == [
        [2, stored], [5, stored], [8, doubled]]


def test_an_exception_ends_the_program_and_its_launch_is_checked() -> None:
    host = [{"op": "launch"}, {"op": "read", "buffer": "out"}]
    obj = _case(host, n=4)
    obj["args"]["inp"]["data"] = [1, 2, 3]  # inp[3] is out of bounds
    case = case_from_json(obj)
    run, _ = oracle_run(case)
    assert run.ended_by is not None and run.observations == []
    res = check_case(case, NumbaSimtTarget(), {"wave_order": "descending"})
    assert res.verdict.agree and res.outcome.exception is not None


@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_host_programs_agree_on_numba_simt(data: st.DataObject) -> None:
    # host programs move integer buffers, and a kernel's atomics return one launch's
    # values: as the fuzz loop does (generators/cases.py), neither kind gets one
    kernel = data.draw(kernels(without=frozenset({"returning", "f32"})))
    case = data.draw(cases_for(kernel, max_n=64))
    case.host = data.draw(host_programs(case))
    res = check_case(case, NumbaSimtTarget())
    assert res.oracle_error is not None or res.verdict.agree, (
        f"{res.verdict}\n{json.dumps(case.to_json())}")


def test_a_target_error_is_named_before_the_observations_it_cut_short() -> None:
    """The oracle's program reads once, then ends in a faulting launch; a target that
    died in the first launch made no observation. The verdict names its error (R0), the
    cause, not the missing observation (R6) it led to."""
    from difftest.core.outcome import Outcome
    from difftest.core.verdict import check_outcome

    host = [{"op": "launch"}, {"op": "read", "buffer": "out"},
            {"op": "create", "buffer": "b", "dtype": "i32", "length": 1},
            {"op": "launch", "bind": {"inp": "b"}}]
    obj = _case(host)
    case = case_from_json(obj)
    run, error = oracle_run(case)
    assert error is None and run.ended_by is not None and len(run.observations) == 1
    died = Outcome({"out": [0, 0], "inp": [1, 2]}, None, [], {},
                   "internal: machine error 6: the deopt save area overflowed")
    verdict = check_outcome(case, run, died)
    assert verdict.rule == "R0 error" and "machine error 6" in verdict.message
    out_of_budget = Outcome({"out": [0, 0], "inp": [1, 2]}, None, [], {},
                            "step_budget: workitem 0 ran out of its budget")
    assert check_outcome(case, run, out_of_budget).rule == "R6 host"  # as before


@pytest.mark.parametrize("status, faults, rule", [
    (["completed", "completed"], {}, None),
    (["never_ran", "completed"], {}, "R2 fates: workitem 0 of the last launch is never_ran"),
    (["completed", "faulted"], {}, "R2 fates: workitem 1 of the last launch is faulted"),
    (["completed", "completed"], {1: "out_of_bounds"}, "R2 fates: a fault is listed for "
                                                       "workitem 1"),
    ([], {}, "R2 fates: status has 0 entries for 2 workitems (of the last launch)"),
    (["completed"] * 3, {}, "R2 fates: status has 3 entries for 2 workitems"),
])
def test_a_program_no_launch_ended_ran_its_last_launch_to_the_end(
        status: list[str], faults: dict[int, str], rule: str | None) -> None:
    # the outcome's fates are its last launch's: where no launch faults, all completed
    from difftest.core.outcome import Fault, Frame, Outcome
    from difftest.core.verdict import check_outcome

    case = case_from_json(_case([{"op": "launch"}, {"op": "read", "buffer": "out"}]))
    run, error = oracle_run(case)
    assert error is None and run.ended_by is None
    outcome = Outcome({"out": [2, 4], "inp": [1, 2]}, None, status,
                      {g: Fault(k, (Frame("k", 3),)) for g, k in faults.items()}, None,
                      host={"observations": [[1, [2, 4]]], "error": None})
    verdict = check_outcome(case, run, outcome)
    if rule is None:
        assert verdict.agree, verdict
    else:
        assert f"{verdict.rule}: {verdict.message}".startswith(rule), verdict


def test_a_buffer_the_ending_launch_bound_is_named_where_the_outcome_lacks_it() -> None:
    """The launch that ended the program bound `out` to `b`: an outcome without `b` is
    told so (it said "buffer out has 0 values, not 4" of an `out` that has 4)."""
    from difftest.core.outcome import Outcome
    from difftest.core.verdict import check_outcome

    kernel = ("def k(out: Buffer[i32], inp: Buffer[i32]):\n    g = gid()\n"
              "    if inp[g] == 0:\n        fail(5)\n    out[g] = inp[g] * 2\n")
    case = case_from_json({**_case([
        {"op": "create", "buffer": "b", "dtype": "i32", "length": 2},
        {"op": "write", "buffer": "inp", "offset": 1, "data": [0]},
        {"op": "launch", "bind": {"out": "b"}}]), "kernel": kernel})
    run, error = oracle_run(case)
    assert error is None and run.ended_by is not None
    outcome = Outcome.from_json({
        "buffers": {"out": [0, 0], "inp": [1, 0]}, "status": ["completed", "faulted"],
        "exception": {"kind": "fail", "gid": 1, "code": 5,
                      "stack": [{"function": "k", "line": 4}]},
        "host": {"observations": [], "error": None}})
    verdict = check_outcome(case, run, outcome)
    assert f"{verdict.rule}: {verdict.message}" == (
        "R3 memory: the outcome has no buffer b, bound to parameter out of the launch that "
        "ended the program")
    with_b = Outcome.from_json({**outcome.to_json(), "buffers": {
        "out": [0, 0], "inp": [1, 0], "b": [2, 0]}})
    assert check_outcome(case, run, with_b).agree
