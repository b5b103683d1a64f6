"""What a new user meets: a clone without anything beside it, the corpus in the test run,
campaigns that are interrupted or cannot write, and the small things of the command line.

Signals are sent to a real `difftest fuzz` process; everything else runs in process.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from difftest.campaign.signature import Signature
from difftest.core.target import Target
from difftest.campaign import fuzz
from difftest.core.kernelfile import load_case
from difftest.app.cli import build_parser, main

from ..conftest import EXAMPLES, REPO

CASE = str(EXAMPLES / "simple_deopt.py")


# ------------------------------------------------------------------ the repository


def test_nothing_in_the_repository_reads_a_folder_beside_it() -> None:
    """A clone from the public repository has no sibling folder of the development tree
    (the design documents' folder): nothing may need it."""
    sibling = "sha" + "red"  # spelled apart so this file does not match itself
    pattern = re.compile(r"\.\./" + sibling + r"|parents?\[\d\]\s*/\s*[\"']" + sibling
                         + r"|/ *\"" + sibling + r"\"")
    offenders = []
    for path in REPO.rglob("*"):
        rel = path.relative_to(REPO)
        if rel.parts[0] in (".git", ".venv", ".tox", ".hypothesis") or not path.is_file():
            continue
        if path.suffix not in (".py", ".toml", ".ini", ".cfg", ".json", ".sh") and \
                rel.parts[0] != ".ci":
            continue
        if pattern.search(path.read_text(errors="replace")):
            offenders.append(str(rel))
    assert not offenders, offenders


def test_the_test_run_collects_every_corpus_file() -> None:
    """`pytest` (the README's test command) replays corpus/ too, not only tests/."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:xdist", "-p", "no:cacheprovider"],
                          cwd=REPO, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    collected = set(proc.stdout.split())
    files = sorted(p.name for p in (REPO / "corpus").glob("*.json"))
    assert files
    for name in files:
        assert f"corpus/{name}::replay" in collected, name


# ------------------------------------------------------------- campaigns under faults


def _start_fuzz(tmp_path: Path, seconds: int = 300) -> tuple[subprocess.Popen[str], list[int]]:
    """A two-worker campaign, once its workers are running: (process, worker pids)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "difftest", "fuzz", "--target", "numba-simt", "--time",
         str(seconds),
         "--workers", "2", "--corpus", str(tmp_path / "corpus")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    seen = ""
    while time.monotonic() < deadline and "kernels" not in seen:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            seen += proc.stderr.readline()
        assert proc.poll() is None, seen
    assert "kernels" in seen, seen
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    mine = Path(f"/proc/{proc.pid}/cmdline").read_bytes()  # forked workers share it
    workers = [int(c) for c in children if Path(f"/proc/{c}/cmdline").read_bytes() == mine]
    assert len(workers) >= 2, workers
    return proc, workers


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_workers_and_prints_the_summary(
        tmp_path: Path, signum: int, code: int) -> None:
    proc, workers = _start_fuzz(tmp_path)
    time.sleep(1.0)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, (out, err)
    assert "fuzz summary: target numba-simt" in out
    assert f"interrupted ({signal.Signals(signum).name})" in out
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 10
    while not all(_gone(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all(_gone(w) for w in workers), f"orphaned workers: {workers}"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_a_worker_killed_by_the_system_is_a_problem_of_the_campaign_not_a_finding(
        tmp_path: Path) -> None:
    proc, workers = _start_fuzz(tmp_path, seconds=15)
    os.kill(workers[0], signal.SIGKILL)  # as the kernel's OOM killer would
    out, err = proc.communicate(timeout=120)
    assert "COUNTEREXAMPLES" not in out and "no counterexample found" in out, out
    assert "problems of the campaign itself: 1" in out, out
    assert "was killed by SIGKILL" in out, out
    assert proc.returncode == 3, (out, err)  # not 1: that says a counterexample was found
    assert not list((tmp_path / "corpus").glob("*.json"))  # no counterexample (a journal)


def test_a_counterexample_that_cannot_be_written_is_printed_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    config = fuzz.FuzzConfig(target="numba-simt", corpus=tmp_path / "file" / "sub")
    case = load_case(CASE)
    case.options = {"registers": 8, "mutants": ["div-floor"]}
    signature = Signature("numba-simt", "R3 memory", frozenset({"Store"}))
    where, saved, _ = fuzz._keep(case, "disagree: R3 memory: x", "R3 memory", config,
                                 signature)
    err = capsys.readouterr().err
    assert not saved and "not saved" in where
    assert "could not write the counterexample" in err
    printed = json.loads(err.split("here it is, whole:\n", 1)[1])
    # (the kernel file's header lines blank: the file's launch and args hold them)
    assert printed["kernel"] == "\n".join(
        "#" if line.startswith("# difftest:") else line for line in case.kernel.split("\n"))
    assert printed["options"] == {"numba-simt": {"registers": 8}}
    assert printed["mutants"] == ["div-floor"]
    assert printed["expected"] == {"verdict": "disagree", "rule": "R3 memory"}


class _Refuses(Target):
    """A target that can run nothing (by its own declaration)."""

    name = "refuses"
    option_names: tuple[str, ...] = ()

    def unsupported(self, case: Any) -> str:
        return "it runs nothing"

    def run(self, case: Any, schedule: Any = None, options: Any = None) -> Any:
        raise AssertionError("never called")


def test_a_campaign_that_checked_nothing_is_not_a_success(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from difftest.campaign import registry

    monkeypatch.setattr(registry, "load_target", lambda name, options=None: _Refuses())
    code = main(["fuzz", "--target", "refuses", "--examples", "3", "--corpus",
                 str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert code == 3
    assert "no case was checked" in out and "no counterexample found" in out


class _Cold(_Refuses):
    name = "cold"

    def cold_start_note(self) -> str:
        return "compiling the cold target (first run only)..."

    def warm_up(self) -> None:
        pass


def test_a_campaign_announces_a_cold_start_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from difftest.campaign import registry

    monkeypatch.setattr(registry, "load_target", lambda name, options=None: _Cold())
    main(["fuzz", "--target", "cold", "--examples", "1", "--corpus", str(tmp_path / "c")])
    assert capsys.readouterr().err.count("compiling the cold target") == 1


class _HungCompiler(_Refuses):
    """A target whose device's compiler never finishes: every build waits on a child
    process that spins, within limits far past the campaign's --time."""

    name = "hung-compiler"
    folder = ""

    def unsupported(self, case: Any) -> None:
        return None

    def run(self, case: Any, schedule: Any = None, options: Any = None) -> Any:
        from targets.device.process import DeviceProcess

        device = DeviceProcess("hung_runner", {"PYTHONPATH": self.folder})
        device.call({}, [], 600.0, build_timeout=600.0)
        raise AssertionError("the build never finishes")


def test_a_check_still_waiting_on_a_device_when_time_runs_out_is_stopped_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # a campaign of --time 2 whose first check waits on a compiler allowed ten minutes
    # ends within seconds, saying so (the check is not counted, nothing is kept)
    from difftest.campaign import registry

    (tmp_path / "hung_runner.py").write_text(
        "def handle(header, arrays, built):\n    while True:\n        pass\n")
    _HungCompiler.folder = os.pathsep.join([str(tmp_path), str(REPO)])
    monkeypatch.setattr(registry, "load_target", lambda name, options=None: _HungCompiler())
    start = time.monotonic()
    code = main(["fuzz", "--target", "hung-compiler", "--time", "2", "--corpus",
                 str(tmp_path / "c")])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert time.monotonic() - start < 60
    assert code == 3, out  # nothing was checked
    assert "a case was still being checked when --time ran out" in out
    assert not list((tmp_path / "c").glob("*.json"))


def test_replay_of_a_file_whose_target_is_not_installed_fails_that_file_and_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from difftest.campaign.corpus import corpus_json, save

    case = load_case(CASE)
    save(tmp_path, corpus_json(case, "reference", {"verdict": "agree"}, "fine"))
    save(tmp_path, corpus_json(case, "opencl-on-mars", {"verdict": "disagree"}, "elsewhere"))
    code = main(["replay", str(tmp_path), "--target", "reference"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL opencl-on-mars: unknown target 'opencl-on-mars'" in out
    assert "2 passed, 1 failed" in out  # each file's reference replay still ran


# ------------------------------------------------------------------- small things


def test_check_and_show_default_to_numba_simt(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", CASE]) == 0
    assert "agree on numba-simt" in capsys.readouterr().out
    assert main(["show", CASE]) == 0
    assert "on numba-simt: agree" in capsys.readouterr().out


def test_every_option_of_every_command_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) >= {"run", "check", "show", "fuzz", "sample", "replay", "compile",
                                "targets", "bench"}
    for name, command in sub.choices.items():
        assert command.description, name
        for action in command._actions:
            assert action.help, f"{name} {action.option_strings or action.dest}"


def test_targets_lists_each_target_with_its_options_and_the_case_format(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["targets"]) == 0
    out = capsys.readouterr().out
    assert "numba-simt:" in out and "reference:" in out
    assert "registers" in out and "after_exception" in out and "step_budget" in out
    assert '"launch": {"n": <workitems>' in out


def test_coverage_table_keeps_long_names_apart() -> None:
    counts = {"construct:with_a_name_longer_than_22": 5, "short": 1, "x" * 30: 2}
    summary = fuzz.FuzzSummary(10.0, 10, 20, 40, [], counts, 2)
    table = [line for line in fuzz.format_summary(summary, "t").splitlines()
             if "%" in line and "coverage" not in line]
    cells = [cell for line in table for cell in re.findall(r"\S+ +\d+\.\d%", line)]
    assert len(cells) == len(counts), table


def test_the_summary_shows_pair_coverage_apart_and_names_the_pairs_never_reached() -> None:
    from generators.pairs import ALL_PAIRS

    counts = {"stmt:If": 4, **{p: 1 for p in ALL_PAIRS}, "host:free@moved": 0}
    summary = fuzz.FuzzSummary(10.0, 10, 20, 40, [], counts, 2)
    text = fuzz.format_summary(summary, "t")
    head, pairs = text.split("pair coverage:")
    assert "stmt:If" in head and "host:" not in head
    assert pairs.startswith(f" {len(ALL_PAIRS) - 1}/{len(ALL_PAIRS)} pairs")
    assert "pairs never reached: host:free@moved" in pairs
    data = fuzz.summary_json(summary, "t")
    assert data["constructs"] == {"stmt:If": 4} and data["pairs"]["host:free@moved"] == 0


def test_the_summary_counts_cases_whose_atomics_were_not_ordered_apart() -> None:
    from difftest.core.verdict import UNCHECKED, Verdict

    # the checker's own limit is not the target's: said on a line of its own
    unordered = Verdict(True, UNCHECKED, "the checker could not order the atomics: no "
                        "order found in 200,000 steps")
    assert unordered.unordered and not Verdict(True, UNCHECKED, "unsupported").unordered
    summary = fuzz.FuzzSummary(10.0, 10, 20, 40, [], {}, 2, unordered=3)
    text = fuzz.format_summary(summary, "t")
    assert "unordered         3  cases not checked" in text and "skipped" not in text
    assert fuzz.summary_json(summary, "t")["unordered"] == 3


def test_a_cold_machine_cache_is_announced(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from targets.numba_simt.device import machine

    monkeypatch.setattr(machine, "cache_is_warm", lambda: False)
    out = io.StringIO()
    fuzz.warm_up("numba-simt", out)
    assert "compiling the numba-simt machine (first run only" in out.getvalue()
    monkeypatch.undo()
    machine.warm_up()
    assert machine.cache_is_warm()
    out = io.StringIO()
    fuzz.warm_up("numba-simt", out)
    assert out.getvalue() == ""


def test_sample_counts_the_files_it_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from generators import sampling

    real = sampling.each

    def twice(strategy: Any, count: int, seed_value: int, use: Any) -> int:
        got: list[Any] = []
        real(strategy, count - 1, seed_value, got.append)
        for value in got + got[:1]:  # the last draw repeats the first
            use(value)
        return count

    monkeypatch.setattr(sampling, "each", twice)
    assert main(["sample", "--count", "4", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert "wrote 3 case files" in out and "1 drawn case repeated" in out
    monkeypatch.setattr(sampling, "each", real)


def test_sampled_files_run_on_every_target_as_written(tmp_path: Path) -> None:
    """`sample` filed every generated option under numba-simt, SPIR-V recipes included:
    numba-simt then refused a third of the files (unknown option spirv_recipe). Each goes
    under the targets that read it now, and the files are written as they are drawn."""
    from difftest.core.kernelfile import load_case

    assert main(["sample", "--count", "12", "--seed", "5", "--out", str(tmp_path)]) == 0
    recipes = 0
    for path in tmp_path.glob("*.json"):
        obj = json.loads(path.read_text())
        sections = {k: v for k, v in obj.get("options", {}).items() if isinstance(v, dict)}
        recipes += any("spirv_recipe" in v for v in sections.values())
        assert "spirv_recipe" not in sections.get("numba-simt", {}), path.name
        assert main(["check", str(path)]) == 0, path.name
        load_case(path)
    assert recipes


def test_png_has_axes_and_a_legend(tmp_path: Path) -> None:
    from PIL import Image

    from difftest.app.report import _RGB, LEGEND

    png = tmp_path / "s.png"
    assert main(["show", CASE, "--png", str(png)]) == 0
    img = Image.open(png).convert("RGB")
    colours = {c for _, c in img.getcolors(maxcolors=1 << 20) or []}
    # every legend swatch is drawn, deopted included, whether or not a cell uses it
    assert all(_RGB[key] in colours for key, _ in LEGEND)
    # text (dark pixels) above the grid and beside it: the axis labels
    w, h = img.size
    dark = [(x, y) for x in range(w) for y in range(h) if sum(img.getpixel((x, y))) < 200]
    assert any(y < 16 for _, y in dark) and any(x < 40 for x, _ in dark)
    assert os.path.getsize(png) > 0


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_a_failure_is_shrunk_loses_nothing(tmp_path: Path, signum: int,
                                                          code: int) -> None:
    """The failing case is kept the moment it is found, before shrinking and reducing:
    a signal then leaves it in the corpus and the summary names it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "difftest", "fuzz", "--target", "numba-simt", "--time", "120",
         "--workers", "1", "--corpus", str(tmp_path / "corpus"),
         "--opt", "mutants=loop-var-before-check"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stderr is not None
    seen, deadline = "", time.monotonic() + 120
    while time.monotonic() < deadline and "first failure" not in seen:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            seen += proc.stderr.readline()
        assert proc.poll() is None, seen
    assert "kept unreduced in" in seen, seen
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, (out, err)
    kept = list((tmp_path / "corpus").glob("*.json"))
    assert kept, (out, err)
    entry = json.loads(kept[0].read_text())
    assert entry["mutants"] == ["loop-var-before-check"]
    assert str(kept[0]) in out or "COUNTEREXAMPLES" in out, out


def test_a_signal_during_difftest_reduce_writes_what_it_has(tmp_path: Path) -> None:
    big = Path(__file__).resolve().parents[1] / "data" / "wwm_ignores_inactive.case.json"
    out_file = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "difftest", "reduce", str(big), "--opt",
         "mutants=wwm-ignores-inactive", "--time", "120", "--out", str(out_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the verdict: the reduction has started
    assert "disagree" in first, first
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 130), (out, err)  # it may have finished first
    assert "Traceback" not in err, err
    assert json.loads(out_file.read_text())["mutants"] == ["wwm-ignores-inactive"]
    assert out_file.stat().st_mode & 0o044  # readable by others, as the umask allows


def _ctrl_c_as_a_terminal_sends_it() -> None:
    """A program started with SIGINT ignored (a background job of a script, `nohup`, a test
    runner's worker) keeps it ignored, as Python does and as a user who started it so
    wants: the test gives the run the default disposition a terminal's job has."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_a_long_run_at_once(tmp_path: Path) -> None:
    """The work runs beside the main thread, which takes the signal even while numba's
    machine (no GIL) or the compiler is busy."""
    body = "\n".join(f"        x{k} = out[gid()] + (i ^ gid()) % {k + 2}\n"
                     f"        out[gid()] = x{k} * 3 + out[gid()]" for k in range(400))
    kernel = tmp_path / "long.py"
    kernel.write_text("# difftest: launch n=8 wave=8\n# difftest: arg out = i32[0] * 8\n"
                      '# difftest: options {"step_budget": 100000000, '
                      '"work_budget": 1000000000}\n'  # hours of work: no machine finishes
                      f"def k(out: Buffer[i32]):\n    for i in range(0, 100000000):\n{body}\n")
    small = tmp_path / "small.py"  # first, every compiled part loaded (or compiled) once:
    small.write_text("# difftest: launch n=8 wave=8\n# difftest: arg out = i32[0] * 8\n"
                     "def k(out: Buffer[i32]):\n    out[gid()] = 1\n")
    subprocess.run([sys.executable, "-m", "difftest", "run", str(small)], check=True,
                   capture_output=True, timeout=600)  # a cold numba compile holds the GIL
    proc = subprocess.Popen([sys.executable, "-m", "difftest", "run", str(kernel)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_ctrl_c_as_a_terminal_sends_it)
    time.sleep(8)  # past the imports, however loaded the machine: the run itself is signalled
    assert proc.poll() is None, "the run ended before the signal: make it longer"
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=60)
    # the whole run takes hours; the signal is taken when the main thread next gets
    # the GIL (milliseconds; a numba compile of a new signature could hold it longer)
    assert time.monotonic() - sent < 10
    assert proc.returncode == 130 and "interrupted" in err, (out, err)


def _png_colours(path: Path) -> set[tuple[int, int, int]]:
    from PIL import Image

    return {c for _, c in Image.open(path).convert("RGB").getcolors(maxcolors=1 << 22) or []}


def test_a_faulted_workitem_is_drawn_faulted_even_after_a_deopt(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """simple_deopt's workitem 10 faults inside a helper; numba-simt lists it among the
    deopted workitems (its fault is a deopt), and it must still read as faulted."""
    from difftest.core.kernelfile import load_kernel_file
    from difftest.campaign.registry import load_target
    from difftest.app.report import _RGB, cells
    from difftest.campaign.runner import check_case

    case = load_kernel_file(EXAMPLES / "simple_deopt.py")
    res = check_case(case, load_target("numba-simt"), case.schedule, None, None, None, None)
    assert 10 in res.outcome.diagnostics.get("deopted", [])  # the situation under test
    assert cells(res.outcome)[10] == "F"
    png = tmp_path / "s.png"
    assert main(["show", str(EXAMPLES / "simple_deopt.py"), "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "..F." in out
    assert _RGB["F"] in _png_colours(png)


def test_nothing_is_cut_from_a_long_launch(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """n = 2172 in waves of 2: the only faulting and never-ran workitems are past the
    first 256 waves; both pictures show them, and identical rows fold in the text."""
    kernel = tmp_path / "k.py"
    kernel.write_text("# difftest: launch n=2172 wave=2\n# difftest: arg out = i32[0] * 2100\n"
                      "def kernel(out: Buffer[i32]):\n    out[gid()] = 1\n")
    png = tmp_path / "s.png"
    assert main(["show", str(kernel), "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "... the same up to gid 2047 (31 more rows)" in out
    assert "  2048 " in out and "FF --" in out and "  2112 --" in out
    from difftest.app.report import _RGB

    colours = _png_colours(png)
    assert _RGB["F"] in colours and _RGB["-"] in colours
    from PIL import Image

    assert Image.open(png).size[1] < 1400  # every row, in cells that fit a screen


def test_show_lists_expected_against_actual_memory(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    kernel = tmp_path / "k.py"
    kernel.write_text("# difftest: launch n=6 wave=2\n# difftest: arg out = i32[0] * 6\n"
                      "def kernel(out: Buffer[i32]):\n    k = 0\n    for k in range(0, 3):\n"
                      "        pass\n    out[gid()] = k\n")
    assert main(["show", str(kernel), "--opt", "mutants=loop-var-before-check"]) == 1
    out = capsys.readouterr().out
    assert "memory that differs from a run of the workitems that ran (6 locations):" in out
    assert "  out[0]: expected 2, numba-simt 3 (written by workitem 0)" in out


def test_show_prints_a_host_programs_case(capsys: pytest.CaptureFixture[str]) -> None:
    """A host program's memory is checked per launch and at its end: `show` prints its
    verdict and fates, no table of writers (it raised AttributeError on the example)."""
    assert main(["show", str(EXAMPLES / "host_program.py")]) == 0
    out = capsys.readouterr().out
    assert "on numba-simt: agree" in out and "status by workitem" in out


def test_run_prints_a_host_programs_reads_and_its_host_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A host error ends the program and is part of its outcome: `run` says which and
    where (it printed "exception: none" alone; the error was in --json only)."""
    case = tmp_path / "bind.json"
    case.write_text(json.dumps({
        "kernel": "def k(inp: Buffer[u8], out: Buffer[u8]):\n    out[gid()] = inp[gid()]\n",
        "entry": "k", "launch": {"n": 4, "wave": 4},
        "args": {"inp": {"dtype": "u8", "data": [1, 2, 3, 4]},
                 "out": {"dtype": "u8", "data": [0, 0, 0, 0]}},
        "host": [{"op": "write", "buffer": "inp", "offset": 0, "data": [9, 8, 7, 6]},
                 {"op": "read", "buffer": "inp"},
                 {"op": "create", "buffer": "z", "dtype": "i32", "length": 4},
                 {"op": "launch", "bind": {"inp": "z"}}]}))
    main(["run", str(case)])
    out = capsys.readouterr().out
    assert "  step 1 read [9, 8, 7, 6]\n" in out
    assert "  host error at step 3: dtype\n" in out


def test_the_cold_compile_is_not_charged_to_the_campaigns_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A warm-up of 20 s before a campaign of 2 s: the campaign still gets its 2 s of
    checking (the summary's time is the campaign's, well under the 20 s it would be if
    the wait were charged -- a loaded machine stretches a 2 s campaign to 10 s with its
    last batch and its workers' start --, and it checked cases), and the wait is
    announced first, saying what it waits for."""
    from difftest.campaign import registry

    real = registry.load_target

    def load(name: str, options: Any = None) -> Any:
        t = real(name, options)
        if name == "numba-simt":
            monkeypatch.setattr(t, "cold_start_note", lambda: "compiling the machine...")
            monkeypatch.setattr(t, "warm_up", lambda: time.sleep(20))
        return t

    monkeypatch.setattr(registry, "load_target", load)
    start = time.monotonic()
    main(["fuzz", "--time", "2", "--workers", "1", "--corpus", str(tmp_path / "c")])
    assert time.monotonic() - start >= 22  # the 20 s wait came on top of the 2 s
    cap = capsys.readouterr()
    assert cap.err.count("compiling the machine...") == 1
    summary = re.search(r"fuzz summary: target numba-simt, 1 worker\(s\), ([0-9.]+) s", cap.out)
    assert summary is not None and float(summary.group(1)) < 18
    cases = re.search(r"cases\s+(\d+)", cap.out)
    assert cases is not None and int(cases.group(1)) > 0


def test_an_output_is_written_through_a_link_and_into_a_device_never_replacing_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--json`, `-o`, `--out` name files: a link is written through (the link stays), a
    device or a pipe is written to as it is (as root, replacing /dev/null by a file would
    break the machine), a folder is one clear error before any work."""
    import os
    import stat
    import threading

    from difftest.campaign.corpus import write_atomic

    target = tmp_path / "kept.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    write_atomic(link, "[1]\n")
    assert link.is_symlink() and target.read_text() == "[1]\n"

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_atomic(fifo, "[2]\n")
    reader.join(10)
    assert got == ["[2]\n"] and stat.S_ISFIFO(fifo.stat().st_mode)

    write_atomic(Path(os.devnull), "[3]\n")
    assert stat.S_ISCHR(Path(os.devnull).stat().st_mode)

    folder = tmp_path / "a-folder"
    folder.mkdir()
    for argv in (["replay", str(tmp_path), "--json", str(folder)],
                 ["report", str(tmp_path), "-o", str(folder)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.strip().endswith(f"{folder}: is a folder, not a file"), err
