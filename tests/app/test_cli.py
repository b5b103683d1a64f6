"""End-to-end tests of the command line as a user calls it.

Bad input must give one line on stderr naming the problem, exit 2, no traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from difftest.app.cli import main

from ..conftest import EXAMPLES, REPO, example_json

GOOD = example_json("simple_deopt")


def write_case(tmp_path: Path, obj: object, raw: str | None = None) -> Path:
    path = tmp_path / "case.json"
    path.write_text(raw if raw is not None else json.dumps(obj))
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse usage errors
        code = int(e.code or 0)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def bad(**changes: object) -> dict:
    obj = dict(GOOD)
    obj.update(changes)
    return obj


KERNEL_WHILE = "def k(out: Buffer[i32]):\n    while True:\n        pass\n"
KERNEL_UNKNOWN = "def k(out: Buffer[i32]):\n    out[0] = nope\n"
KERNEL_TYPE = "def k(out: Buffer[i32]):\n    out[0] = 1 + True\n"
KERNEL_NOANN = "def k(out):\n    out[0] = 1\n"
ONE_BUF = {"out": {"dtype": "i32", "data": [0]}}


@pytest.mark.parametrize(
    "obj, raw, needle",
    [
        (None, '{"kernel": ', "malformed JSON at line 1"),
        (None, "[1, 2]", "a case must be a JSON object"),
        (bad(kernel="def k(:\n"), None, "kernel line 1: syntax error"),
        (bad(kernel=KERNEL_WHILE, entry="k", args=ONE_BUF), None, "line 2: a `while True:` loop needs a `break`"),
        (bad(kernel=KERNEL_UNKNOWN, entry="k", args=ONE_BUF), None, "line 2: unknown name 'nope'"),
        (bad(kernel=KERNEL_TYPE, entry="k", args=ONE_BUF), None, "line 2: right operand of '+' must be an integer, got bool"),
        (bad(kernel=KERNEL_NOANN, entry="k", args=ONE_BUF), None, "line 1: missing type annotation on parameter 'out'"),
        (bad(args={"out": GOOD["args"]["out"]}), None, "missing argument 'length'"),
        (bad(args={**GOOD["args"], "extra": 1}), None, "unknown argument 'extra'"),
        (bad(args={"out": {"dtype": "i64", "data": [1]}, "length": 20}), None, "args.out.dtype: is i64 but the parameter is Buffer[i32]"),
        (bad(args={"out": {"dtype": "i32", "data": [1]}, "length": 2**40}), None, "args.length: 1099511627776 does not fit in i32"),
        (bad(launch={"n": 20, "wave": 3}), None, "launch.wave must be a power of two"),
        (bad(entry="nope"), None, "field 'entry': 'nope' is not a function"),
        (bad(policy="whenever"), None, "field 'policy' must be one of"),
    ],
)
def test_run_bad_case_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         obj: object, raw: str | None, needle: str) -> None:
    path = write_case(tmp_path, obj, raw)
    code, out, err = run_cli(capsys, "run", str(path), "--target", "reference")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err and needle in err, err


def test_unknown_target_names_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", str(EXAMPLES / "simple_deopt.py"),
                           "--target", "gpu9000")
    assert code == 2
    assert err.strip() == (f"difftest: error: {EXAMPLES / 'simple_deopt.py'}: "
                           "unknown target 'gpu9000' (known: cuda, cuda-sim, "
                           "lavapipe-glsl, lavapipe-wgsl, numba-simt, opencl, opencl-intel, "
                           "reference, vulkan-glsl, vulkan-wgsl)")


def test_bad_opt_and_bad_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", str(EXAMPLES / "simple_deopt.py"), "--opt", "x")
    assert code == 2 and "--opt 'x': expected KEY=VALUE" in err
    code, _, err = run_cli(capsys, "frobnicate")
    assert code == 2 and "invalid choice: 'frobnicate'" in err and err.count("\n") == 1


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "run", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json: no such file" in err


def test_human_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", str(EXAMPLES / "simple_deopt.py"),
                           "--target", "reference")
    assert code == 0
    assert "19 completed, 1 faulted, 0 never ran" in out
    assert "exception: workitem 10: out_of_bounds at write_int_array:19 <- simple_deopt:15" in out


def test_a_form_feed_before_the_kernels_def_is_python_and_read_as_such(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Python lets a form feed lead a line (editors put one between sections): the
    # kernel after it is still the file's first function.
    text = (EXAMPLES / "simple_deopt.py").read_text()
    cut = text.index("\ndef ") + 1
    path = tmp_path / "paged.py"
    path.write_text(text[:cut] + "\f" + text[cut:])
    code, out, err = run_cli(capsys, "run", str(path), "--target", "reference")
    assert code == 0, err
    assert "19 completed, 1 faulted, 0 never ran" in out


@pytest.mark.parametrize("command, target", [
    ("run", "reference"), ("check", "reference"), ("check", "numba-simt"),
    ("show", "numba-simt")])  # (`run` on numba-simt consults no oracle: no race check)
def test_racy_kernel_is_bad_input_with_the_race_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, target: str) -> None:
    # A racy kernel is outside the semantics: the kernel's fault, not a finding.
    case = {"kernel": "def k(out: Buffer[i32]):\n    out[0] = gid()\n", "entry": "k",
            "launch": {"n": 2, "wave": 2}, "args": ONE_BUF}
    code, out, err = run_cli(capsys, command, str(write_case(tmp_path, case)),
                             "--target", target)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "race: " in err and "workitem 0 stores to out[0] and workitem 1" in err, err


def test_console_script_is_installed(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "difftest"
    proc = subprocess.run([str(exe), "run", str(EXAMPLES / "payload_clobber.py"), "--json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["buffers"]["used"] == [0, 3, 0, 9, 0, 15, 0, 21]


@pytest.mark.parametrize("n, wave, options", [
    (4, 2, {"step_budget": 50}),   # every workitem runs past its own budget
    (65536, 64, {}),               # the whole-run budget: 1,000,000 // 65,536 = 15 trips each
])
def test_over_budget_kernels_agree_and_stop_on_both_sides(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, wave: int,
        options: dict) -> None:
    kernel = ("def k(out: Buffer[i32], big: i32):\n    s = 0\n    for j in range(0, big):\n"
              "        s = s + 1\n    out[gid()] = s\n")
    case = {"kernel": kernel, "entry": "k", "launch": {"n": n, "wave": wave},
            "args": {"out": {"dtype": "i32", "data": [0] * n}, "big": 20000},
            "options": options}
    path = str(write_case(tmp_path, case))
    for target in ("reference", "numba-simt"):
        code, out, _ = run_cli(capsys, "run", path, "--target", target)
        assert code == 1 and "error: step_budget: workitem " in out, out
    code, out, _ = run_cli(capsys, "check", path, "--schedules", "3")
    assert code == 0 and "3 of 3 schedules agree on numba-simt" in out, out


@pytest.mark.parametrize("command, target", [
    ("run", "reference"), ("check", "reference"), ("check", "numba-simt"), ("reduce", None)])
def test_a_kernel_past_the_oracles_work_limit_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
        target: str | None) -> None:
    """A 5 KB kernel asking for tens of millions of evaluations is refused within seconds
    (docs/semantics.md, "Size limits"), not judged for minutes."""
    from oracles.reference import MAX_WORK

    body = "".join(f"        out[gid()] = out[gid()] + (i ^ gid()) % {k + 2}\n"
                   for k in range(200))
    case = {"kernel": f"def k(out: Buffer[i32]):\n    for i in range(0, 99999):\n{body}",
            "entry": "k", "launch": {"n": 8, "wave": 8},
            "args": {"out": {"dtype": "i32", "data": [0] * 8}}}
    started = time.process_time()
    code, out, err = run_cli(capsys, command, str(write_case(tmp_path, case)),
                             *(["--target", target] if target else []))
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "work: " in err and f"more than {MAX_WORK:,} evaluations" in err, err
    assert "the limit was reached at line " in err
    assert time.process_time() - started < 60


# ------------------------------------------------------------------ small things


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"difftest {version('difftest-simt')}"


def test_the_case_format_is_explained_once_not_under_every_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, top, _ = run_cli(capsys, "--help")
    _, sub, _ = run_cli(capsys, "check", "--help")
    assert "case file" in top.lower() and '"launch"' in top
    assert '"launch"' not in sub
    from difftest.core.ir.types import DTYPES

    assert all(f" {name}" in top for name in DTYPES), "every element type a case may hold"


def test_compile_of_a_case_the_target_cannot_run_is_one_clear_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyopencl")
    from difftest.campaign.registry import installed_target_names

    if "opencl" not in installed_target_names():
        pytest.skip("PoCL (the opencl target) is not installed")
    code, out, err = run_cli(capsys, "compile", str(EXAMPLES / "divergent_wave_ops.py"),
                             "--target", "opencl")
    assert code == 2, (out, err)
    assert "target opencl cannot run this case: wave operations (wave_sum() at line" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_replay_of_a_folder_without_cases_fails(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "replay", str(tmp_path))
    assert code == 2 and "nothing to replay" in err


def test_a_case_file_of_a_future_format_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_case(tmp_path, {**GOOD, "version": 99})
    code, _, err = run_cli(capsys, "replay", str(path))
    assert code == 2, err
    code, _, err = run_cli(capsys, "check", str(path))
    assert code == 2 and "'version': 99 is not a case format" in err, err
    assert "Traceback" not in err


def test_fuzz_keeps_counterexamples_out_of_the_regression_corpus(tmp_path: Path) -> None:
    """By default a campaign writes into ./counterexamples, never into ./corpus (in the
    repository, the tracked regression corpus); --json writes its summary."""
    (tmp_path / "corpus").mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "difftest", "fuzz", "--workers", "1", "--time", "120",
         "--stop-on-first", "--opt", "mutants=loop-var-before-check", "--json", "s.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "PYTHONPATH": str(EXAMPLES.parent)})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert not list((tmp_path / "corpus").iterdir())
    kept = list((tmp_path / "counterexamples").glob("*.json"))
    assert len(kept) == 1, proc.stdout
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["format"] == "difftest-fuzz-summary" and summary["target"] == "numba-simt"
    assert [f["path"] for f in summary["found"]] == [str(Path("counterexamples") / kept[0].name)]
    assert summary["cases"] > 0 and summary["interrupted"] is None


def test_difftest_bench_finds_the_benchmarks_of_its_clone() -> None:
    from difftest.app.commands.info import bench_script

    assert bench_script() == REPO / "benchmarks" / "bench_target.py"
    assert bench_script().is_file()


def test_avoid_all_is_one_campaign_option_for_every_target(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--opt avoid=all` spells every known bug of a target's compilers another way; a
    target with nothing to avoid takes it too (one campaign command serves every
    target), while a name no target of its knows is still one clear error."""
    from difftest.campaign.registry import installed_target_names

    names = [n for n in installed_target_names() if n != "cuda"]  # cuda: a GPU's
    assert "numba-simt" in names and "reference" in names
    for name in names:
        assert main(["check", str(EXAMPLES / "simple_deopt.py"), "--target", name,
                     "--opt", "avoid=all"]) == 0, (name, capsys.readouterr())
    capsys.readouterr()
    assert main(["check", str(EXAMPLES / "simple_deopt.py"), "--opt",
                 "avoid=sext-compare"]) == 2
    err = capsys.readouterr().err
    assert "unknown sext-compare for target numba-simt (known: none, or all)" in err


OUTSIDE = """# difftest: launch n=8 wave=4 group=8
# difftest: arg out = i32[0] * 8
def kernel(out: Buffer[i32]):
    if gid() < 3:
        barrier()
    out[gid()] = 1
"""


@pytest.mark.parametrize("target", ["numba-simt", "reference"])
def test_run_refuses_a_kernel_outside_the_semantics_on_every_target(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """A barrier some workitems of the group do not reach: no answer is right, so `run`
    refuses it on any target, as `check` does (it used to print numba-simt's outcome)."""
    path = tmp_path / "divergent_barrier.py"
    path.write_text(OUTSIDE)
    code, out, err = run_cli(capsys, "run", str(path), "--target", target)
    assert code == 2 and out == "", (out, err)
    assert f"{path}: the kernel is outside the semantics" in err
    assert "reaches barrier() at line 5" in err


def test_an_opt_error_names_the_file_it_was_for(capsys: pytest.CaptureFixture[str]) -> None:
    case = str(EXAMPLES / "simple_deopt.py")
    for opt, what in (("mutants=nope", "unknown mutant 'nope'"),
                      ("bogus", "expected KEY=VALUE"),
                      ("step_budget=1.5", "option step_budget=1.5")):
        code, _, err = run_cli(capsys, "check", case, "--opt", opt)
        assert code == 2 and err.startswith(f"difftest: error: {case}: --opt"), err
        assert what in err


def test_the_reference_reports_a_host_programs_last_launch(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A host program's outcome holds its last launch's workitems (it said "0
    completed" on the reference, every workitem on numba-simt)."""
    case = str(EXAMPLES / "host_program_pairs.py")
    lines = {t: run_cli(capsys, "run", case, "--target", t)[1].splitlines()
             for t in ("reference", "numba-simt")}
    assert "a host program of" in lines["reference"][1]
    assert lines["reference"][2] == lines["numba-simt"][2] == \
        "  4 completed, 0 faulted, 0 never ran"


def test_a_version_2_case_file_with_a_workgroup_size_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = json.loads(json.dumps(example_json("workgroup_reduce")))
    obj["version"] = 2
    path = write_case(tmp_path, obj)
    code, _, err = run_cli(capsys, "check", str(path))
    assert code == 2 and "launch.group came with case format version 3" in err, err


SCALE = """# difftest: launch n=8 wave=4
# difftest: arg inp = i32[3, 0, 5, 1, 4, 2, 0, 6]
# difftest: arg out = i32[-1] * 8
def kernel(inp: Buffer[i32], out: Buffer[i32]):
    total = 0
    for k in range(0, 8):
        if k == inp[gid()]:
            break
        total = total + wave_sum(1)
    out[gid()] = total
"""


def test_reduce_says_what_it_made_smaller(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The README's tutorial: the reduction keeps the statements but shrinks the launch
    and the text, and says so (it printed "6 -> 6 statements" for a kernel it changed)."""
    path = tmp_path / "scale.py"
    path.write_text(SCALE)
    code, out, err = run_cli(capsys, "reduce", str(path), "--opt", "mutants=break-mask-lost",
                             "--out", str(tmp_path / "r.json"))
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("reduced: "))
    assert line.startswith("reduced: 6 -> 6 statements, n 8 -> 1, kernel text "), line
    assert "checks)" in line
    # the written case keeps no header line of the kernel file (its launch said n = 8
    # beside a launch of 1), its lines numbered as before
    written = json.loads((tmp_path / "r.json").read_text())
    assert "difftest:" not in written["kernel"] and written["launch"]["n"] == 1
    # a budget that ends it mid-way is said to (10 checks: it said nothing)
    code, out, err = run_cli(capsys, "reduce", str(path), "--opt", "mutants=break-mask-lost",
                             "--checks", "10", "--out", str(tmp_path / "r10.json"))
    assert code == 0 and "(10 checks, stopped at its budget of 10 checks)" in out, out


def test_a_campaign_knows_the_clones_corpus_wherever_it_runs(tmp_path: Path) -> None:
    """The known bugs recorded in the clone's corpus count for a campaign started in any
    folder (they counted only from the clone's root: a campaign run elsewhere reported
    lavapipe-sext-compare as new)."""
    from difftest.app.commands.common import default_known

    elsewhere = default_known(tmp_path / "c")
    assert (REPO / "corpus").resolve() in [p.resolve() for p in elsewhere]
    assert elsewhere[0] == tmp_path / "c"
    import os

    here = os.getcwd()
    try:
        os.chdir(REPO)  # ./corpus is the clone's own: named once
        assert [p.resolve() for p in default_known()].count((REPO / "corpus").resolve()) == 1
    finally:
        os.chdir(here)


def test_check_outcome_judges_under_opt_and_the_target_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`check --outcome`: `--opt` sets the budgets the oracle judges by (a workitem of
    50 loop trips is out of a budget of 10, in one of 100), `--target` the rules of the
    target the outcome is said to come from (R5 on numba-simt: never-ran in whole
    waves), `--json` the form; it said the same whatever they were."""
    case = tmp_path / "case.json"
    case.write_text(json.dumps({
        "kernel": "def k(out: Buffer[i32], t: Buffer[i32]):\n    g = gid()\n"
                  "    out[g] = 1\n    for i in range(t[g]):\n        out[g] = out[g] + 1\n"
                  "    if g == 3:\n        fail(7)\n",
        "entry": "k", "launch": {"n": 4, "wave": 2}, "options": {"step_budget": 10},
        "args": {"out": {"dtype": "i32", "data": [0] * 4},
                 "t": {"dtype": "i32", "data": [2, 50, 2, 1]}}}))
    outcome = tmp_path / "outcome.json"
    fault = {"kind": "fail", "gid": 3, "code": 7, "stack": [{"function": "k", "line": 7}]}
    outcome.write_text(json.dumps({
        "buffers": {"out": [3, 51, 3, 2], "t": [2, 50, 2, 1]}, "exception": fault,
        "status": ["completed", "completed", "completed", "faulted"]}))
    code, out, _ = run_cli(capsys, "check", str(case), "--outcome", str(outcome))
    assert code == 1 and "R2 fates: workitem 1 runs out of its loop-trip budget" in out
    code, out, _ = run_cli(capsys, "check", str(case), "--outcome", str(outcome),
                           "--opt", "step_budget=100", "--json")
    assert code == 0 and json.loads(out)["verdict"]["agree"] is True
    code, _, err = run_cli(capsys, "check", str(case), "--outcome", str(outcome),
                           "--opt", "bogus=1")
    assert code == 2 and "unknown option 'bogus'" in err
    # workitem 2 never ran, its wave-mate 3 faulted: a stream target may, numba-simt not
    outcome.write_text(json.dumps({
        "buffers": {"out": [3, 51, 0, 2], "t": [2, 50, 2, 1]}, "exception": fault,
        "status": ["completed", "completed", "never_ran", "faulted"]}))
    argv = ["check", str(case), "--outcome", str(outcome), "--opt", "step_budget=100"]
    assert run_cli(capsys, *argv)[0] == 0
    code, out, _ = run_cli(capsys, *argv, "--target", "numba-simt")
    assert code == 1 and "R5 granularity: wave 1 is partly never-ran" in out
