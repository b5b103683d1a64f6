"""Corpus files: content-hash names, atomic writes, replay, malformed files by name."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

import pytest
from typing import Any

from difftest.core.case import case_from_json

from difftest.core.kernelfile import load_case
from difftest.app.cli import main
from difftest.campaign.corpus import content_name, corpus_json, entries, save
from difftest.campaign.runner import replay

from ..conftest import REPO, example_json


def example(name: str = "simple_deopt") -> dict:
    return example_json(name)


def entry_obj(expected: dict | None = None) -> dict:
    case = case_from_json(example())
    return corpus_json(case, "reference", expected or {"verdict": "agree"}, "a note")


def test_name_is_a_content_hash_ignoring_the_note(tmp_path: Path) -> None:
    a = entry_obj()
    b = dict(a, note="another note")
    assert content_name(a) == content_name(b)
    c = dict(a, launch={"n": 20, "wave": 8})
    assert content_name(a) != content_name(c)
    p1, p2 = save(tmp_path, a), save(tmp_path, b)
    assert p1 == p2 and p1.name.startswith("simple_deopt-")
    assert [p.name for p in tmp_path.iterdir()] == [p1.name]  # no temporary left behind


def test_corpus_file_round_trips_as_a_case(tmp_path: Path) -> None:
    path = save(tmp_path, entry_obj())
    case = load_case(path)
    assert case.extra["target"] == "reference" and case.extra["format"] == "difftest-case"
    assert case.to_json()["args"] == example()["args"]


def _writer(directory: str, k: int) -> None:
    obj = entry_obj()
    obj["launch"] = {"n": 20, "wave": 1 << (k % 7)}
    for _ in range(20):
        save(directory, obj)


def test_parallel_writers_never_tear_or_lose_a_file(tmp_path: Path) -> None:
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), k)) for k in range(14)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    files = sorted(tmp_path.iterdir())
    assert len(files) == 7  # 7 distinct wave sizes, each written by two processes
    for f in files:
        assert json.loads(f.read_text())["format"] == "difftest-case"


def test_replay_checks_recorded_and_registered_targets() -> None:
    case = case_from_json(entry_obj())
    results = replay(case, "reference", [], {"verdict": "agree"}, ["reference"])
    assert [r.ok for r in results] == [True]
    # A recorded disagreement that no longer happens is reported, not hidden.
    results = replay(case, "reference", [], {"verdict": "disagree", "rule": "R3 memory"},
                     ["reference"])
    assert [r.ok for r in results] == [False, True]
    assert "expected disagree (R3 memory), got agree" in results[0].describe()


def test_malformed_files_are_reported_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = save(tmp_path, entry_obj())
    (tmp_path / "torn.json").write_text('{"kernel": "def k(')
    bad_kernel = entry_obj()
    bad_kernel["kernel"] = "def simple_deopt(out: Buffer[i32], length: i32):\n    while True: pass\n"
    (tmp_path / "badkernel.json").write_text(json.dumps(bad_kernel))
    got = {e.path.name: e.error for e in entries([tmp_path])}
    assert got[good.name] is None
    assert "torn.json: malformed JSON" in str(got["torn.json"])
    assert "badkernel.json: kernel line 2: a `while True:` loop needs a `break`" in str(got["badkernel.json"])
    code = main(["replay", str(tmp_path), "--target", "reference"])
    out = capsys.readouterr().out
    assert code == 2
    assert f"{good.name}: ok reference" in out
    assert "1 passed, 0 failed, 2 malformed" in out


def test_replay_cli_missing_path_is_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["replay", str(tmp_path / "nothing")])
    assert code == 2
    assert "nothing: no such file or folder" in capsys.readouterr().err


def test_a_corpus_file_whose_target_is_not_installed_is_skipped_not_failed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A known bug of a real target, replayed where that target's runtime is missing (the
    README's test command without the [intel] extra): skipped with the reason."""
    from difftest.app.cli import main
    from difftest.campaign import registry

    path = next(p for p in sorted((REPO / "corpus").glob("*.json"))
                if json.loads(p.read_text()).get("target") == "opencl-intel")
    real = registry.load_target

    def load(name: str) -> Any:
        if name == "opencl-intel":
            raise registry.TargetNotInstalled("target 'opencl-intel' ... cannot be loaded")
        return real(name)

    monkeypatch.setattr(registry, "load_target", load)
    assert main(["replay", str(path), "--target", "numba-simt"]) == 0
    out = capsys.readouterr().out
    assert "skip opencl-intel" in out and "1 skipped (target not installed)" in out, out


def test_a_known_bug_that_needs_an_instruction_set_this_cpu_lacks_is_skipped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A finding recorded with `cpu_arch` (Intel's runtime compiling for AVX2) on a CPU
    without that instruction set: not shown on this machine, which is no failure; on a
    CPU with it, the recorded configuration is run as it was found."""
    from difftest.campaign.runner import replay

    path = REPO / "corpus" / "kernel-c0fe283dcbef1e38.json"
    case = case_from_json(json.loads(path.read_text()))
    try:
        from targets.opencl import target as ocl
        ocl.IntelTarget()
    except ImportError as e:
        pytest.skip(f"opencl-intel is not installed: {e}")
    monkeypatch.setattr(ocl, "cpu_flags", lambda: frozenset({"sse2", "avx"}))
    results = replay(case, "opencl-intel", [], case.extra["expected"], ["opencl-intel"])
    assert results and all(r.ok and r.skipped for r in results), \
        [r.describe() for r in results]
    assert "this CPU lacks avx2" in results[0].describe()
