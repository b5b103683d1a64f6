"""`difftest hunt` end to end: a short real hunt of one mutant, its table, its JSON and its
corpus entry (the long hunt is run by hand; its figures are in the README)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from difftest.app.cli import main
from difftest.campaign.corpus import entries
from difftest.campaign.runner import replay
from targets.numba_simt import mutants


def test_hunt_list_prints_each_mutant_with_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hunt", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == list(mutants.NAMES)
    assert all(len(line.split("\t")) == 3 and line.split("\t")[1] for line in lines)


def test_a_short_hunt_catches_div_floor_and_keeps_its_reduced_case(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, report = tmp_path / "corpus", tmp_path / "hunt.json"
    code = main(["hunt", "--mutants", "div-floor", "--trials", "1", "--time", "60",
                 "--workers", "2", "--corpus", str(corpus), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0
    assert "| `div-floor` | NOTES: semantics | 1/1 |" in out
    data = json.loads(report.read_text())
    [row] = data["mutants"]
    assert row["caught"] == 1 and row["ttf_median_s"] < 60
    found = row["runs"][0]["found"]
    assert found["statements"] <= 8 and found["shrunk"] >= found["first"]
    [entry] = list(entries([corpus]))
    assert entry.case is not None and entry.mutants == ["div-floor"]
    results = replay(entry.case, entry.target, entry.mutants, entry.expected, ["numba-simt"])
    assert all(r.ok for r in results), [r.describe() for r in results]


def test_a_hunts_reduce_time_cuts_the_reduction_not_the_catch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, report = tmp_path / "corpus", tmp_path / "hunt.json"
    code = main(["hunt", "--mutants", "div-floor", "--trials", "1", "--time", "60",
                 "--workers", "1", "--reduce-time", "0.01", "--corpus", str(corpus),
                 "--json", str(report)])
    out = capsys.readouterr()
    assert code == 0
    assert "(cut by --reduce-time)" in out.err
    data = json.loads(report.read_text())
    assert data["settings"]["reduce_time_s"] == 0.01
    [row] = data["mutants"]
    assert row["caught"] == 1 and row["runs"][0]["found"]["cut"] is True


@pytest.mark.parametrize("argv, needle", [
    (["hunt", "--mutants", "nope", "--trials", "1"], "unknown mutant 'nope'"),
    (["hunt", "--trials", "0"], "--trials must be at least 1"),
    (["hunt", "--time", "nan"], "--time must be a positive number"),
    (["hunt", "--reduce-time", "-1"], "--reduce-time must be a positive number"),
])
def test_hunt_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                    needle: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_a_signal_stops_a_hunt_with_the_trials_it_finished(tmp_path: Path) -> None:
    """SIGTERM in the middle of a hunt: no traceback, the finished trials' table, exit
    128 + the signal."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "difftest", "hunt", "--mutants", "div-floor", "--trials", "50",
         "--time", "30", "--workers", "1", "--corpus", str(tmp_path / "c"),
         "--json", str(tmp_path / "hunt.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stderr is not None
    line = proc.stderr.readline()  # the first trial's line: it finished
    assert "hunt div-floor trial 1/50" in line, line
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, (out, err)
    assert "Traceback" not in err, err
    assert "| `div-floor` |" in out and "hunt stopped by SIGTERM" in out
    kept = json.loads((tmp_path / "hunt.json").read_text())  # --json keeps them too
    assert kept["interrupted"] == "SIGTERM" and kept["mutants"][0]["runs"], kept
