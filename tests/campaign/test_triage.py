"""The results journal (difftest/campaign/results.py) and triage (difftest/campaign/triage.py): journals
are whole lines however campaigns share a folder; buckets follow the documented rule and
the ranking puts the most different first."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

import pytest

from difftest.app.cli import main
from difftest.campaign.results import Journal, campaigns, read_journal
from difftest.campaign.triage import Finding, buckets, load_findings


def _write_many(folder: str, k: int) -> None:
    j = Journal(Path(folder), "fuzz", "numba-simt", {"k": k})
    for i in range(300):
        j.progress(float(i), {"kernels": i, "cases": 10 * i, "blob": "x" * 300}, [])
    j.end(300.0, {"kernels": 299, "found": []})


def test_journals_of_campaigns_sharing_a_folder_are_whole(tmp_path: Path) -> None:
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_write_many, args=(str(tmp_path), k)) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    cs = campaigns(tmp_path)
    assert sorted(c["settings"]["k"] for c in cs) == [0, 1, 2, 3]
    for c in cs:
        assert [p["kernels"] for p in c["progress"]] == list(range(300))
        assert c["end"] == {"kernels": 299, "found": []}
        lines = Path(c["journal"]).read_text().splitlines()
        assert all(json.loads(line) for line in lines) and len(lines) == 302


def test_an_unwritable_journal_is_one_problem_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "campaigns").write_text("a file where the folder should be")
    j = Journal(tmp_path, "fuzz", "numba-simt", {})
    assert j.problem is not None and "cannot be written" in j.problem
    j.progress(1.0, {}, [])
    j.end(1.0, {})


def test_a_torn_or_foreign_line_is_skipped(tmp_path: Path) -> None:
    j = Journal(tmp_path, "fuzz", "numba-simt", {})
    j.progress(1.0, {"cases": 5}, [])
    j.close()
    with open(j.path, "a") as f:
        f.write('{"type": "progress", "t": 2.0, "ca')  # a hand edit cut short
    assert [r["type"] for r in read_journal(j.path)] == ["campaign", "progress"]


def _f(path: str, shape: set[str], statements: int, failure: str = "R3 memory",
       target: str = "numba-simt", seen: int = 1) -> Finding:
    return Finding(path, target, "", failure, frozenset(shape), statements, 1, seen=seen)


def test_a_finding_joins_the_bucket_of_a_more_general_witness_it_contains() -> None:
    small = _f("a", {"Binary://", "Store"}, 2)
    larger = _f("b", {"Binary://", "Binary:+", "While", "Break", "Store", "Load"}, 7)
    other = _f("c", {"Break", "For", "Store"}, 3)
    as_r2 = _f("d", {"Binary:%", "Store"}, 4, failure="R2 fates")  # the same family
    in_a_while = _f("e", {"Break", "While", "If"}, 5)
    bs = buckets([larger, other, small, as_r2, in_a_while])
    groups = sorted(sorted(f.path for f in b.members) for b in bs)
    assert groups == [["a", "b", "d"], ["c", "e"]]
    assert {b.representative.path for b in bs} == {"a", "c"}  # each bucket's smallest


def test_an_empty_pattern_takes_only_findings_of_its_class_and_its_whole_shape() -> None:
    """A witness with nothing but plumbing says nothing about the operations, and the
    empty set is in every core: it takes only findings of its own class and shape. (The
    first rule let it take every later finding of its class: a hunt of 31 mutants came
    out as 6 buckets, one holding 20 of them.)"""
    bare = _f("a", {"Store"}, 1, failure="R0 error: internal: save area")
    twin = _f("a2", {"Store"}, 2, failure="R0 error: internal: save area")
    loads = _f("a3", {"Store", "Load"}, 1, failure="R0 error: internal: save area")
    same = _f("b", {"Binary:%", "Store"}, 1, failure="R0 error: internal: save area")
    other = _f("c", {"Binary:%", "Store"}, 2)
    groups = sorted(sorted(f.path for f in b.members)
                    for b in buckets([other, same, bare, twin, loads]))
    assert groups == [["a", "a2"], ["a3"], ["b", "c"]]


def test_a_workgroup_arrays_declaration_is_storage_not_an_operation() -> None:
    """A reduced case that is only a workgroup array's declaration (the array is an item
    of numba-simt's pool: the pool's bugs need nothing else) says nothing about the
    operations; as a pattern it took every later finding that declares one (a hunt of
    39 mutants: barriers, deadlocks and deopt metadata in one bucket)."""
    declared = _f("a", {"LocalArray"}, 1)
    deadlock = _f("b", {"Barrier", "Load", "LocalArray", "Store"}, 3,
                  failure="R0 error: internal: deadlock")
    metadata = _f("c", {"Binary:*", "Binary://", "Load", "LocalArray", "Store"}, 4)
    groups = sorted(sorted(f.path for f in b.members)
                    for b in buckets([deadlock, metadata, declared]))
    assert groups == [["a"], ["b"], ["c"]]


def test_the_schedule_keys_and_options_a_reduced_case_keeps_are_part_of_its_core() -> None:
    """Two bugs whose reduced kernels are alike but that need different schedules (a
    never-ran wave on the host, a register budget) are different buckets."""
    from difftest.campaign.triage import _needs

    host = _needs({"schedule": {"never_ran": "host", "order_seed": 3},
                   "options": {"numba-simt": {"registers": 8}, "mutants": ["x"]}})
    assert host == {"schedule:never_ran", "option:registers"}
    a = Finding("a", "numba-simt", "", "R3 memory", frozenset({"Store"}), 1, 1, needs=host)
    b = Finding("b", "numba-simt", "", "R3 memory", frozenset({"Store"}), 1, 1,
                needs=frozenset({"schedule:deopt_percent"}))
    assert len(buckets([a, b])) == 2


def test_ranking_puts_the_most_different_buckets_first() -> None:
    common = _f("a", {"wave:wave_sum", "If"}, 3, seen=50)
    near = _f("b", {"wave:ballot", "If", "Break"}, 3, failure="R2 fates")
    far = _f("c", {"alloc", "Alloc"}, 2, failure="R0 error: crash", target="opencl")
    ranked = [b.representative.path for b in buckets([near, far, common])]
    assert ranked == ["a", "c", "b"]  # the most seen, then the furthest from it


def test_triage_of_a_campaign_folder_through_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "c"
    code = main(["fuzz", "--examples", "40", "--seed", "0", "--workers", "1", "--corpus",
                 str(folder), "--opt", "mutants=div-floor"])
    assert code == 1
    capsys.readouterr()
    found = load_findings(folder)
    assert found and all(f.first is not None for f in found)
    assert main(["triage", str(folder), "--json", str(tmp_path / "t.json")]) == 0
    out = capsys.readouterr().out
    assert "bucket(s), most different first" in out and "representative" in out
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["format"] == "difftest-triage" and data["findings"] == len(found)
    assert sum(b["findings"] for b in data["buckets"]) == len(found)


def test_triage_of_what_is_not_a_folder_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["triage", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "not a folder" in err and err.count("\n") == 1


def test_a_record_with_fields_of_the_wrong_type_is_skipped_by_triage_and_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hand-edited journal: a finding whose path is a number, a progress record whose
    time is a string. Skipped like a torn line; triage and report still work."""
    j = Journal(tmp_path, "fuzz", "numba-simt", {})
    j.progress(1.0, {"cases": 5}, [])
    j.close()
    with open(j.path, "a") as f:
        f.write('{"type": "finding", "t": 1, "path": 5}\n')
        f.write('{"type": "progress", "t": "abc"}\n')
        f.write('{"type": "progress", "t": 3.0, "cases": true}\n')
    assert [r["type"] for r in read_journal(j.path)] == ["campaign", "progress"]
    assert main(["triage", str(tmp_path)]) == 0
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_a_bucket_is_linked_to_the_known_bug_it_is(tmp_path: Path) -> None:
    """A counterexample of lavapipe's sign-extension bug, in a shape the corpus entry
    does not have (`<` where it has `<=`, no `if`): triage runs it again with the bug's
    trigger avoided, sees it agree, and names the known finding."""
    import json

    from difftest.campaign.findings import known_findings
    from difftest.campaign.registry import TargetNotInstalled, load_target
    from difftest.campaign.triage import link_known

    from ..conftest import REPO

    try:
        target = load_target("vulkan-glsl")
    except TargetNotInstalled as e:
        pytest.skip(str(e))
    kernel = ("def kernel(out: Buffer[i32], s: i32):\n    x: i64 = s\n"
              "    out[0] = i32(x < 2)\n")
    case = {"format": "difftest-case", "version": 2, "kernel": kernel, "entry": "kernel",
            "launch": {"n": 1, "wave": 1}, "target": "vulkan-glsl",
            "args": {"out": {"dtype": "i32", "data": [0]}, "s": -5},
            "signature": {"target": "vulkan-glsl", "failure": "R3 memory",
                          "shape": ["Compare:<", "Store", "cast:i32"],
                          "compiler": target.compiler({})}}
    (tmp_path / "kernel-a.json").write_text(json.dumps(case))
    from difftest.campaign.runner import check_case
    from difftest.core.case import case_from_json

    if check_case(case_from_json(case), target).verdict.agree:
        pytest.skip("this lavapipe compares sign-extended values right (a fixed Mesa)")
    bs = buckets(load_findings(tmp_path))
    link_known(bs, known_findings([REPO / "corpus"]))
    assert bs[0].known.startswith("lavapipe-sext-compare (the case agrees with its "
                                  "trigger avoided")
