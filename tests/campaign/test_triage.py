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
    larger = _f("b", {"Binary://", "Binary:+", "While", "Store", "Load"}, 7)
    other = _f("c", {"Break", "For", "Store"}, 3)
    as_r2 = _f("d", {"Binary:%", "Store"}, 4, failure="R2 fates")  # the same family
    in_a_while = _f("e", {"Break", "While", "If"}, 5)
    bs = buckets([larger, other, small, as_r2, in_a_while])
    groups = sorted(sorted(f.path for f in b.members) for b in bs)
    assert groups == [["a", "b", "d"], ["c", "e"]]
    assert {b.representative.path for b in bs} == {"a", "c"}  # each bucket's smallest


def test_a_targets_error_never_shares_a_bucket_with_a_wrong_result() -> None:
    """A workitem out of its step budget (R0) is not wrong memory (R3), whatever the
    operations: each has a bucket of its own; two findings of one R0 kind still join."""
    wrong = _f("a", {"Binary://", "While", "Store"}, 3)
    stuck = _f("b", {"Binary://", "While", "Store", "Load"}, 4,
               failure="R0 error: step_budget: workitem # ran out of its budget")
    stuck_too = _f("c", {"Binary://", "While", "Store", "Load", "If"}, 5,
                   failure="R0 error: step_budget: workitem # ran out of its budget")
    crash = _f("d", {"Binary://", "While", "Store", "Load", "If"}, 6,
               failure="R0 error: crash: the device's process killed by SIGSEGV")
    groups = sorted(sorted(f.path for f in b.members)
                    for b in buckets([wrong, stuck, stuck_too, crash]))
    assert groups == [["a"], ["b", "c"], ["d"]]


def test_a_pattern_that_is_less_than_half_of_a_findings_core_does_not_take_it() -> None:
    """A one-operation pattern is in many cores: a witness whose core is more than twice
    the pattern has more of its own than it shares (a hunt's barrier bug joined the
    bucket of a division bug because its kernel divides)."""
    division = _f("a", {"Binary://", "Store"}, 1)
    barrier = _f("b", {"Binary://", "Barrier", "id:local_id", "Store"}, 4)
    loop = _f("c", {"Binary://", "While", "Store"}, 3)
    groups = sorted(sorted(f.path for f in b.members) for b in buckets([barrier, loop,
                                                                         division]))
    assert groups == [["a", "c"], ["b"]]


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
    # (b, an R0 error, and c, wrong memory, share a pattern but not a failure group)
    assert groups == [["a", "a2"], ["a3"], ["b"], ["c"]]


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
    assert "separation (the findings name their injected bugs): 1 mutant(s)" in out
    assert main(["triage", str(folder), "--no-probes", "--json", str(tmp_path / "n.json")]
                ) == 0
    quick = json.loads((tmp_path / "n.json").read_text())
    assert all(b["agrees_with"] == [] for b in quick["buckets"])
    # a copied folder (campaigns merge by copying) keeps its journal's times and counts
    import shutil

    shutil.copytree(folder, tmp_path / "copy")
    copied = load_findings(tmp_path / "copy")
    assert [(Path(f.path).name, f.first, f.seen) for f in copied] == \
        [(Path(f.path).name, f.first, f.seen) for f in found]


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


def test_findings_whose_failures_go_away_under_different_mechanisms_are_different_bugs(
        ) -> None:
    """Alike reduced kernels, but one fails only with spills and the other whatever the
    register budget: two bugs (the cause is what each finding agrees under)."""
    spill = _f("a", {"Break", "While", "Store"}, 3)
    spill.cause = {"spills": "registers=256"}
    lowering = _f("b", {"Break", "While", "Store", "If"}, 4)
    twin = _f("c", {"Break", "While", "Store", "Binary:*"}, 5)
    twin.cause = {"spills": "registers=256"}
    groups = sorted(sorted(f.path for f in b.members) for b in buckets([lowering, twin, spill]))
    assert groups == [["a", "c"], ["b"]]


def test_a_findings_cause_is_found_by_running_it_under_the_targets_probes(
        tmp_path: Path) -> None:
    """Two corpus entries, a spill bug and a lowering bug: only the spill bug's failure
    goes away with registers enough for no spills."""
    from difftest.campaign.triage import probe_causes

    corpus = Path(__file__).resolve().parents[2] / "corpus"
    for name in ("kernel-2d7e0b2c60177060.json",   # partial-def-no-reload, registers=4
                 "kernel-bc2677879e8647c7.json"):  # break-mask-lost
        obj = json.loads((corpus / name).read_text())
        obj["signature"] = {"target": "numba-simt", "failure": obj["expected"]["rule"],
                            "shape": []}
        (tmp_path / name).write_text(json.dumps(obj))
    findings = load_findings(tmp_path)
    probe_causes(findings)
    cause = {Path(f.path).name: f.cause for f in findings}
    assert "spills" in cause["kernel-2d7e0b2c60177060.json"]
    assert "spills" not in cause["kernel-bc2677879e8647c7.json"]


def test_the_host_steps_a_reduced_program_keeps_are_part_of_its_core() -> None:
    from difftest.campaign.triage import _needs

    steps = [{"op": "create", "buffer": "b1"}, {"op": "map", "mode": "write"},
             {"op": "launch"}, {"op": "launch"}, {"nonsense": 1}, "junk"]
    # every program makes a buffer and launches: only a second launch says something
    assert _needs({"host": steps}) == {"host:map:write", "host:launch:again"}
    assert _needs({"host": [{"op": "create"}, {"op": "launch"}]}) == set()


def test_a_hunts_triage_says_how_well_it_separated_the_injected_bugs() -> None:
    from difftest.campaign.triage import format_buckets

    a1 = _f("a1", {"Binary://", "Store"}, 1)
    a2 = _f("a2", {"Binary://", "Store"}, 2)
    b = _f("b", {"Binary://", "Store"}, 3)
    c = _f("c", {"Break", "While"}, 2)
    a3 = _f("a3", {"Break", "While"}, 3)
    a1.mutants, a2.mutants, b.mutants = ("x",), ("x",), ("y",)
    c.mutants, a3.mutants = ("z",), ("x",)
    findings = [a1, a2, b, c, a3]
    text = format_buckets(buckets(findings), len(findings))
    # buckets {a1, a2, b} and {c, a3}: y joins x's bucket, x joins z's; x is in both
    assert text.splitlines()[-1] == (
        "separation (the findings name their injected bugs): 3 mutant(s) in 2 bucket(s); "
        "joined 2 (a bucket's mutants past its first, summed), split 1 (a mutant's "
        "buckets past its first, summed)")
    no_hunt = [_f("d", {"Break"}, 1)]
    assert "separation" not in format_buckets(buckets(no_hunt), 1)
