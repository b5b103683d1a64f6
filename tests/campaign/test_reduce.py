"""The IR reducer (difftest/campaign/reduce/) and `difftest reduce`.

The predicates are real ones: the oracle against numba-simt with a mutant on, as the fuzz
loop uses them; never a predicate read off the reducer's own output."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from difftest.core.case import Case, case_from_json

from difftest.core.kernelfile import load_case
from difftest.app.cli import main
from difftest.core.ir import parse
from difftest.campaign.reduce import reduce_case, size, statements
from difftest.campaign.runner import check_case, oracle_run, still_fails
from targets.numba_simt.target import NumbaSimtTarget

from ..conftest import EXAMPLES

DATA = Path(__file__).resolve().parents[1] / "data"
BIG = DATA / "wwm_ignores_inactive.case.json"
PAYLOAD_OPTS = ["--opt", "registers=8", "--opt", "alloc_order=random"]


def verdicts(case: Case, mutant: str) -> tuple[Any, Any]:
    """(verdict with the mutant, verdict without it)."""
    target = NumbaSimtTarget()
    full, error = oracle_run(case)
    assert error is None
    clean = {k: v for k, v in case.options.items() if k != "mutants"}
    on = check_case(dataclasses.replace(case, options={**clean, "mutants": [mutant]}),
                    target, case.schedule, None, None, full, None).verdict
    off = check_case(dataclasses.replace(case, options=clean), target, case.schedule,
                     None, None, full, None).verdict
    return on, off


def test_statement_count_counts_nested_statements() -> None:
    program = parse("def k(out: Buffer[i32]):\n    x = 0\n    for j in range(0, 2):\n"
                    "        if j == 1:\n            x = j\n        else:\n"
                    "            x = 2\n    out[gid()] = x\n")
    assert statements(program) == 6


def test_the_big_case_fails_only_with_its_mutant() -> None:
    case = load_case(BIG)
    assert statements(case.program) >= 30 and case.n > 100
    on, off = verdicts(case, "wwm-ignores-inactive")
    assert not on.agree and off.agree


def test_reduce_cli_turns_the_wwm_ignores_inactive_case_into_at_most_8_statements(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reduced.json"
    assert main(["reduce", str(BIG), "--out", str(out), "--time", "120"]) == 0
    reduced = load_case(out)
    assert statements(reduced.program) <= 8, reduced.kernel
    assert reduced.n <= load_case(BIG).n
    on, off = verdicts(reduced, "wwm-ignores-inactive")
    assert not on.agree and off.agree  # still the mutant's bug, and only the mutant's
    assert on.rule == "R3 memory"
    assert "statements" in capsys.readouterr().out


def test_reduce_cli_on_the_payload_clobber_example_with_the_mutant(
        tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    # 002's example: with 8 registers and the random order (seed 0) the all-lane `b = 7`
    # takes a's register once the mutant forgets the else-lanes' a
    assert main(["reduce", str(EXAMPLES / "payload_clobber.py"), "--opt",
                 "mutant=wwm-ignores-inactive", *PAYLOAD_OPTS, "--out", str(out),
                 "--time", "60"]) == 0
    reduced = load_case(out)
    assert statements(reduced.program) <= 8
    on, off = verdicts(reduced, "wwm-ignores-inactive")
    assert not on.agree and off.agree


def test_reduction_keeps_the_predicate_and_never_grows() -> None:
    case = load_case(BIG)
    target = NumbaSimtTarget()
    full, _ = oracle_run(case)
    rule = check_case(case, target, case.schedule, None, None, full, None).verdict.rule
    seen: list[Case] = []
    pred = still_fails(target, case, rule)

    def recording(c: Case) -> bool:
        ok = pred(c)
        if ok:
            seen.append(c)
        return ok

    reduced, stats = reduce_case(case, recording, seconds=60)
    assert stats.kept == len(seen) and stats.checks >= stats.kept
    assert reduced is case or reduced is seen[-1]
    sizes = [size(c) for c in [case, *seen]]
    assert all(s1[0] <= s0[0] for s0, s1 in zip(sizes, sizes[1:])) or stats.kept == 0
    for c in seen:  # every kept candidate is a valid case: its text parses to its program
        assert parse(c.kernel) == c.program


def test_a_predicate_nothing_satisfies_leaves_the_case_alone() -> None:
    case = load_case(BIG)
    reduced, stats = reduce_case(case, lambda c: False, seconds=5)
    assert reduced is case and stats.kept == 0 and stats.after == stats.before


def test_reduce_an_agreeing_case_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["reduce", str(EXAMPLES / "simple_deopt.py")])
    err = capsys.readouterr().err
    assert code == 2 and "agrees on numba-simt" in err and err.count("\n") == 1


def test_reduce_to_an_unwritable_place_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    code = main(["reduce", str(EXAMPLES / "payload_clobber.py"), "--opt",
                 "mutant=wwm-ignores-inactive", *PAYLOAD_OPTS,
                 "--out", str(tmp_path / "file" / "r.json"), "--time", "5"])
    err = capsys.readouterr().err
    assert code == 2 and "--out" in err and "not a folder" in err and err.count("\n") == 1


def test_reduced_case_file_is_a_loadable_case(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    assert main(["reduce", str(EXAMPLES / "payload_clobber.py"), "--opt",
                 "mutant=uniform-writemask-all", "--out", str(out), "--time", "30"]) == 0
    obj = json.loads(out.read_text())
    assert obj["target"] == "numba-simt" and obj["mutants"] == ["uniform-writemask-all"]
    assert "mutants" not in obj.get("options", {})
    case_from_json(obj)
    # what it failed under is what check runs by default: it disagrees as recorded
    assert main(["check", str(out)]) == 1


def test_a_predicate_that_raises_is_not_kept() -> None:
    case = load_case(BIG)

    def boom(c: Case) -> bool:
        raise RuntimeError("a candidate the predicate cannot judge")

    reduced, stats = reduce_case(case, boom, seconds=3)
    assert reduced is case and stats.kept == 0 and stats.checks > 0


def test_the_reduced_files_note_gives_the_reduced_cases_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from difftest.app.cli import main

    kernel = tmp_path / "scale.py"
    kernel.write_text("# difftest: launch n=8 wave=4\n# difftest: arg out = i32[0] * 8\n"
                      "def kernel(out: Buffer[i32]):\n    t = 0\n"
                      "    for i in range(0, 10):\n        if i == gid():\n"
                      "            break\n        t = t + 3\n    out[gid()] = t + 7\n")
    out = tmp_path / "small.json"
    assert main(["reduce", str(kernel), "--opt", "mutants=break-mask-lost", "--out",
                 str(out), "--time", "30"]) == 0
    capsys.readouterr()
    note = json.loads(out.read_text())["note"]
    assert main(["check", str(out), "--json"]) == 1
    verdicts = json.loads(capsys.readouterr().out)
    words = json.dumps(verdicts)
    assert note.startswith("reduced by difftest reduce: disagree: ")
    message = note.split(": ", 3)[-1].split(" [")[0]
    assert message in words, (note, words)


def test_a_checks_budget_reduces_the_same_way_however_slow_each_check_is() -> None:
    """The fuzz loop's reductions stop after a number of checks, not seconds: the same
    case reduces to the same case when every check takes longer (a loaded machine), and
    exactly the budget is spent when it runs out."""
    import time

    case = load_case(BIG)
    target = NumbaSimtTarget()
    full, _ = oracle_run(case)
    rule = check_case(case, target, case.schedule, None, None, full, None).verdict.rule
    pred = still_fails(target, case, rule)

    def slow(c: Case) -> bool:
        time.sleep(0.005)
        return pred(c)

    fast_case, fast = reduce_case(case, pred, seconds=600, checks=40)
    slow_case, slower = reduce_case(case, slow, seconds=600, checks=40)
    assert fast.checks == slower.checks == 40 and not fast.finished
    assert fast_case.to_json() == slow_case.to_json()
    assert not fast.cut_by_time


def test_a_reduction_keeps_the_options_that_say_what_is_looked_for_and_where() -> None:
    """A campaign run past a known bug (`avoid`) on one device (`icd`) must reduce its
    failure under both: a candidate without `avoid` may fail by the known bug instead,
    and the reduction would turn a new finding into the old one."""
    kept = {"avoid": "float-constants", "icd": "/x/lvp_icd.json", "device": "gpu",
            "mutants": ["div-floor"]}
    case = dataclasses.replace(load_case(BIG), options={**kept, "step_budget": 500})
    seen: list[dict[str, Any]] = []

    def recording(c: Case) -> bool:
        seen.append(dict(c.options))
        return True  # every candidate "fails": the reduction drops what it may

    reduced, _ = reduce_case(case, recording, seconds=20)
    assert reduced.options == kept  # the step budget went, the rest stayed
    assert all(kept.items() <= o.items() for o in seen)
