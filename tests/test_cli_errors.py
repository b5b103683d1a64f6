"""Bad input to every subcommand: one line on stderr naming the problem, exit 2, nothing
written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from difftest.cli import main

from .conftest import EXAMPLES

CASE = str(EXAMPLES / "simple_deopt.case.json")


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("argv, needle", [
    (["sample", "--count", "0", "--seed", "1", "--out", "{tmp}/new"], "--count must be at least 1"),
    (["sample", "--count", "2", "--out", "{tmp}/file"], "not a folder"),
    (["fuzz", "--target", "nope", "--time", "1"], "unknown target 'nope'"),
    (["fuzz", "--time", "-1"], "--time must be positive"),
    (["fuzz", "--workers", "many", "--time", "1"], "--workers must be a number or 'auto'"),
    (["fuzz", "--target", "numba-simt", "--opt", "registers=1", "--time", "1"],
     "registers=1: expected an integer in 4..256"),
    (["fuzz", "--target", "numba-simt", "--opt", "mutants=nope", "--time", "1"],
     "unknown mutant 'nope'"),
    (["fuzz", "--corpus", "{tmp}/file", "--time", "1"], "not a folder"),
    (["fuzz", "--time", "1", "--examples", "3"], "not allowed with argument"),
    (["show", "{tmp}/missing.json"], "missing.json: no such file"),
    (["compile", "{tmp}/bad.json"], "malformed JSON"),
    (["compile", CASE, "--opt", "uniform_writes=maybe"], "expected all_lanes or active"),
    (["check", CASE, "--outcome", "{tmp}/bad.json"], "malformed JSON"),
    (["check", CASE, "--outcome", "{tmp}/partial.json"], "missing field 'status'"),
    (["check", CASE, "--schedules", "0"], "--schedules must be at least 1"),
    (["check", CASE, "--policy", "chaos"], "invalid choice: 'chaos'"),
    (["replay", CASE, "--target", "nope"], "unknown target 'nope'"),
    (["run", CASE, "--target", "numba-simt", "--opt", "frobs=1"], "unknown option 'frobs'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], needle: str) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "bad.json").write_text("{nope")
    (tmp_path / "partial.json").write_text(json.dumps({"buffers": {}, "exception": None}))
    before = sorted(p.name for p in tmp_path.iterdir())
    code, err = call(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 2, err
    assert needle in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_sample_writes_loadable_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from difftest.case import load_case

    assert main(["sample", "--count", "3", "--seed", "7", "--out", str(tmp_path / "s")]) == 0
    files = sorted((tmp_path / "s").iterdir())
    assert len(files) == 3
    for f in files:
        load_case(f)
    again = tmp_path / "t"
    assert main(["sample", "--count", "3", "--seed", "7", "--out", str(again)]) == 0
    assert [f.read_text() for f in files] == [f.read_text() for f in sorted(again.iterdir())]
