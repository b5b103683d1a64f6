"""The real targets (PoCL, Intel's OpenCL CPU runtime, lavapipe through WGSL and GLSL) on
cases whose results are derived by hand from docs/semantics.md, not from any target.

Each test runs on every real target that is installed here and skips, with the reason,
on the others (CI installs lavapipe, wgpu and glslang; the Intel runtime is optional).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from difftest.core.case import Case

from difftest.core.kernelfile import load_case
from difftest.core.errors import DifftestError
from difftest.core.ir import parse
from difftest.campaign.registry import load_target
from difftest.core.target import Target

from ..conftest import REPO

GPU = pytest.param("cuda", marks=pytest.mark.gpu)  # `pytest -m gpu` on the GPU machine
REAL = ("opencl", "opencl-intel", "lavapipe-wgsl", "lavapipe-glsl", "vulkan-wgsl",
        "vulkan-glsl", "cuda-sim", GPU)
WAVES = ("opencl-intel", "lavapipe-wgsl", "lavapipe-glsl", "cuda-sim", GPU)
_LOADED: dict[str, Target | str] = {}


def target(name: str) -> Target:
    if name not in _LOADED:
        try:
            _LOADED[name] = load_target(name)
        except DifftestError as e:
            _LOADED[name] = str(e)
    got = _LOADED[name]
    if isinstance(got, str):
        pytest.skip(f"{name} is not installed here: {got.split(': ', 2)[-1]}")
    return got


def case(text: str, n: int = 1, wave: int = 1, **args: object) -> Case:
    program = parse(text)
    arrays: dict[str, Any] = {}
    for k, v in args.items():
        if isinstance(v, tuple):  # (dtype, values)
            arrays[k] = np.array(v[1], dtype=v[0])
        elif isinstance(v, list):
            arrays[k] = np.array(v, dtype=np.int32)
        else:
            arrays[k] = v
    return Case(text, "kernel", n, wave, arrays, program)


def options(name: str) -> list[dict[str, Any]]:
    return [{"opt": "on"}, {"opt": "off"}] if name.startswith("opencl") else [{}]


@pytest.mark.parametrize("name", REAL)
def test_wrapping_truncating_and_masked_arithmetic(name: str) -> None:
    t = target(name)
    c = case("def kernel(out: Buffer[i32], m: i32, k: i64):\n"
             "    out[0] = m + m\n"              # wraps: 2 * -2^31 == 0
             "    out[1] = m // -1\n"            # MIN // -1 == MIN
             "    out[2] = m % -1\n"             # 0
             "    out[3] = -7 // 2\n"            # truncates: -3
             "    out[4] = -7 % 2\n"             # -1
             "    out[5] = 1 << 33\n"            # masked to 1 << 1
             "    out[6] = -8 >> 34\n"           # arithmetic, masked: -8 >> 2 == -2
             "    out[7] = i32(k)\n"             # low 32 bits of 2^32 + 5
             "    out[8] = -m\n"                 # -MIN == MIN
             "    out[9] = (m + 7) % -2\n"       # -2147483641 % -2 == -1
             "    out[10] = 7 // (m + 2147483641)\n",  # 7 // -7 == -1
             out=[0] * 11, m=-(1 << 31), k=(1 << 32) + 5)
    for opts in options(name):
        got = t.run(c, {}, opts)
        assert got.error is None and got.status == ["completed"], (opts, got.error)
        assert got.buffers["out"].tolist() == [0, -(1 << 31), 0, -3, -1, 2, -2, 5,
                                               -(1 << 31), -1, -1], opts


@pytest.mark.parametrize("name", REAL)
def test_a_fault_in_a_helper_reports_the_stack_and_stops_the_workitem(name: str) -> None:
    t = target(name)
    c = case("def kernel(out: Buffer[i32]):\n"
             "    out[gid()] = 1\n"
             "    x = h(out, gid())\n"
             "    out[gid()] = 2\n"
             "\n\n"
             "def h(b: Buffer[i32], g: i32) -> i32:\n"
             "    if g == 1:\n"
             "        fail(40 + g)\n"
             "    return b[g + 5]\n", n=3, out=[0, 0, 0])
    got = t.run(c, {}, {})
    assert got.status == ["faulted", "faulted", "faulted"]
    assert got.buffers["out"].tolist() == [1, 1, 1]  # none reached line 4
    assert got.faults is not None
    assert got.faults[1].kind == "fail" and got.faults[1].code == 41
    assert [(f.function, f.line) for f in got.faults[1].stack] == [("kernel", 3), ("h", 9)]
    assert got.faults[0].kind == "out_of_bounds"
    assert [(f.function, f.line) for f in got.faults[0].stack] == [("kernel", 3), ("h", 10)]
    assert got.exception is not None and got.exception.gid == 0


@pytest.mark.parametrize("name", REAL)
def test_loop_bounds_are_evaluated_once_and_the_budget_stops_a_loop(name: str) -> None:
    t = target(name)
    c = case("def kernel(out: Buffer[i32], s: i32):\n"
             "    k = 0\n"
             "    for k in range(0, s):\n"
             "        s = 0\n"
             "    out[0] = k\n", out=[0], s=4)
    assert t.run(c, {}, {}).buffers["out"].tolist() == [3]
    spin = case("def kernel(out: Buffer[i32]):\n"
                "    while True:\n"
                "        out[0] = out[0] + 1\n"
                "        if out[0] < 0:\n"
                "            break\n", out=[0])
    got = t.run(spin, {}, {"step_budget": 50})
    assert got.error is not None and str(got.error).startswith("step_budget: workitem 0 ")


@pytest.mark.parametrize("name", WAVES)
def test_the_divergent_example_runs_every_workitem_to_its_fate(name: str) -> None:
    """examples/divergent_wave_ops.py derives every value in its comments."""
    t = target(name)
    c = load_case(REPO / "examples" / "divergent_wave_ops.py")
    got = t.run(c, {}, {})
    assert got.buffers["out"].tolist() == [120, -1, 121, -1, 90, 60, -1, 35]
    assert got.status == ["completed"] * 3 + ["faulted"] + ["completed"] * 4
    assert got.exception is not None and got.exception.gid == 3
    assert got.exception.fault.kind == "division_by_zero"


@pytest.mark.parametrize("name", WAVES)
def test_inactive_lanes_and_lanes_past_n_take_no_part(name: str) -> None:
    """n = 6 in waves of 4: wave 1 has lanes 0 and 1 only. Under `lane() != 0` lane 0 is
    inactive: elect() picks lane 1, readfirstlane reads lane 1, a shuffle from lane 0
    reads 0, one from lane 3 reads its value where it exists (0 past n)."""
    t = target(name)
    c = case("def kernel(out: Buffer[i64]):\n"
             "    g = gid()\n"
             "    if lane() != 0:\n"
             "        out[g * 6] = i64(elect())\n"
             "        out[g * 6 + 1] = readfirstlane(i64(g))\n"
             "        out[g * 6 + 2] = shuffle(i64(g), 0)\n"
             "        out[g * 6 + 3] = shuffle(i64(g), 3)\n"
             "    out[g * 6 + 4] = ballot(True)\n"
             "    out[g * 6 + 5] = wave_sum(i64(g))\n",
             n=6, wave=4, out=("int64", [-1] * 36))
    got = t.run(c, {}, {})
    assert got.error is None, got.error
    rows = got.buffers["out"].reshape(6, 6).tolist()
    assert rows == [[-1, -1, -1, -1, 15, 6],
                    [1, 1, 0, 3, 15, 6],
                    [0, 1, 0, 3, 15, 6],
                    [0, 1, 0, 3, 15, 6],
                    [-1, -1, -1, -1, 3, 9],
                    [1, 5, 0, 0, 3, 9]]


@pytest.mark.parametrize("name", WAVES)
def test_a_loop_runs_its_wave_operations_with_the_lanes_of_each_trip(name: str) -> None:
    """Lane l makes l + 1 trips: at trip k the lanes l >= k are active."""
    t = target(name)
    c = case("def kernel(out: Buffer[i64]):\n"
             "    for k in range(0, lane() + 1):\n"
             "        out[gid() * 4 + k] = ballot(True) + wave_sum(i64(100))\n",
             n=4, wave=4, out=("int64", [0] * 16))
    got = t.run(c, {}, {})
    assert got.buffers["out"].reshape(4, 4).tolist() == [
        [15 + 400, 0, 0, 0],
        [15 + 400, 14 + 300, 0, 0],
        [15 + 400, 14 + 300, 12 + 200, 0],
        [15 + 400, 14 + 300, 12 + 200, 8 + 100]]


@pytest.mark.parametrize("name", WAVES)
def test_every_wave_size_the_target_declares_runs_as_one_subgroup(name: str) -> None:
    t = target(name)
    for w in t.wave_sizes:
        n = 2 * w + 1
        c = case("def kernel(out: Buffer[i64]):\n"
                 "    out[gid()] = ballot(True)\n", n=n, wave=w, out=("int64", [0] * n))
        got = t.run(c, {}, {})
        assert got.error is None, (w, got.error)
        full = (1 << w) - 1 if w < 64 else -1
        assert got.buffers["out"].tolist() == [full] * (2 * w) + [1], w


def test_a_wave_operation_on_a_loop_exit_path_is_unsupported_where_the_model_leaves_it(
        ) -> None:
    t = target("opencl-intel")
    c = case("def kernel(out: Buffer[i64]):\n"
             "    for k in range(0, 4):\n"
             "        if lane() == k:\n"
             "            out[gid()] = ballot(True)\n"
             "            break\n", n=4, wave=4, out=("int64", [0] * 4))
    why = t.unsupported(c)
    assert why is not None and "ballot() at line 4 is on a loop's exit path" in why
    assert target("lavapipe-glsl").unsupported(c) is None  # maximal: defined there


@pytest.mark.parametrize("name", ("lavapipe-wgsl", "lavapipe-glsl"))
def test_waves_wider_than_the_device_runs_are_unsupported_by_declaration(name: str) -> None:
    c = case("def kernel(out: Buffer[i32]):\n    out[gid()] = 1\n", n=32, wave=32,
             out=[0] * 32)
    assert "wave size 32" in (target(name).unsupported(c) or "")


MUTANTS = Path(__file__).resolve().parents[1] / "data" / "mutants"


def _mutant_cases() -> list[tuple[str, str]]:
    out = []
    for folder in sorted(MUTANTS.iterdir()):
        for path in sorted(folder.glob("*.json")):
            import json

            entry = json.loads(path.read_text())
            out += [(folder.name, m) for m in entry.get("mutants", [])]
    return sorted(set(out))


@pytest.mark.parametrize("name,mutant", _mutant_cases())
def test_each_translation_mutant_is_caught_by_its_hunt_counterexample(name: str,
                                                                        mutant: str) -> None:
    """Non-equivalent: the reduced counterexample a hunt found (kept in tests/data, not
    corpus/, so a checkout without the target's extra replays none of them) disagrees
    with the mutant and agrees without it. Every mutant a real target offers has one."""
    import json

    from difftest.core.case import case_from_json
    from difftest.campaign.runner import check_case

    t = target(name)
    assert mutant in t.mutant_names
    entries = [json.loads(p.read_text()) for p in (MUTANTS / name).glob("*.json")]
    mine = [e for e in entries if e.get("mutants") == [mutant]]
    c = case_from_json(mine[0])
    assert not check_case(c, t, options={"mutants": [mutant]}).verdict.agree
    assert check_case(c, t, options={}).verdict.agree


@pytest.mark.parametrize("name", REAL)
def test_every_offered_mutant_has_a_kept_counterexample(name: str) -> None:
    t = target(name)
    assert sorted(t.mutant_names) == sorted(m for n, m in _mutant_cases() if n == name)


SEXT = ("def kernel(out: Buffer[i32], s: i32):\n"
        "    x: i64 = s\n"
        "    if x <= 2:\n"
        "        out[0] = 1\n")


def test_a_target_bug_is_recorded_replayed_and_exported_as_a_standalone_reproducer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """lavapipe 22.3.6's sign-extension comparison bug (docs/findings.md): `record` keeps
    it as a known bug, `replay` accepts it as that bug (and would fail if the target
    stopped showing it), `export` writes a reproducer that runs without difftest."""
    import json
    import subprocess
    import sys

    from difftest.app.cli import main

    t = target("lavapipe-glsl")
    case_file = tmp_path / "sext.json"
    case_file.write_text(json.dumps({
        "kernel": SEXT, "entry": "kernel", "launch": {"n": 1, "wave": 1},
        "args": {"out": {"dtype": "i32", "data": [0]}, "s": -5}}))
    got = t.run(load_case(case_file), {}, {})
    if got.buffers["out"].tolist() == [1]:
        pytest.skip("this lavapipe compares sign-extended values right (a fixed Mesa)")
    corpus = tmp_path / "corpus"
    assert main(["record", str(case_file), "--target", "lavapipe-glsl", "--finding",
                 "lavapipe-sext-compare", "--corpus", str(corpus)]) == 0
    [recorded] = list(corpus.glob("*.json"))
    entry = json.loads(recorded.read_text())
    assert entry["finding"] == "lavapipe-sext-compare"
    assert entry["expected"] == {"verdict": "disagree", "rule": "R3 memory"}
    assert entry["signature"]["failure"] == "R3 memory"
    capsys.readouterr()
    # recorded again: the same entry, kept; an entry edited since is not taken for it
    assert main(["record", str(case_file), "--target", "lavapipe-glsl", "--finding",
                 "lavapipe-sext-compare", "--corpus", str(corpus)]) == 0
    assert json.loads(recorded.read_text()) == entry
    recorded.write_text(json.dumps({**entry, "finding": "something-else"}))
    assert main(["record", str(case_file), "--target", "lavapipe-glsl", "--finding",
                 "lavapipe-sext-compare", "--corpus", str(corpus)]) == 2
    assert "holds another entry" in capsys.readouterr().err
    assert json.loads(recorded.read_text())["finding"] == "something-else"
    recorded.write_text(json.dumps(entry))
    # recorded as a lead, then that entry recorded as the finding: a lead no more
    leads, attributed = tmp_path / "leads", tmp_path / "attributed"
    assert main(["record", str(recorded), "--finding", "a-lead", "--lead",
                 "--corpus", str(leads)]) == 0
    [lead] = list(leads.glob("*.json"))
    assert json.loads(lead.read_text())["lead"] is True
    assert main(["record", str(lead), "--finding", "lavapipe-sext-compare",
                 "--corpus", str(attributed)]) == 0
    [finding] = list(attributed.glob("*.json"))
    assert "lead" not in json.loads(finding.read_text())
    capsys.readouterr()
    assert main(["replay", str(corpus), "--target", "lavapipe-glsl",
                 "--target", "reference"]) == 0
    out = capsys.readouterr().out
    assert "the known bug lavapipe-sext-compare of this target" in out, out
    repro = tmp_path / "repro"
    assert main(["export", str(recorded), "--target", "lavapipe-glsl", "--out",
                 str(repro)]) == 0
    texts = {p.name: p.read_text() for p in repro.iterdir()}
    assert set(texts) == {"kernel.comp", "vulkan_runner.py", "repro.py", "data.json"}
    for name in ("vulkan_runner.py", "repro.py"):
        imports = [x for x in texts[name].splitlines()
                   if x.lstrip().startswith(("import ", "from "))]
        assert not [x for x in imports if "difftest" in x or "targets" in x], imports
    done = subprocess.run([sys.executable, "-I", str(repro / "repro.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "out[0]: expected 1, got 0" in done.stdout  # -5 <= 2


@pytest.mark.parametrize("name", ["lavapipe-glsl", "lavapipe-wgsl"])
def test_the_sext_variant_keeps_a_relative_shuffles_lane_opaque(name: str) -> None:
    """A shuffle up or down by 0: its source lane `(lane + zero) - (0 + zero)` is the
    lane's bare sign extension again, and its bounds check the comparison
    lavapipe-sext-compare gets wrong on Mesa 22.3.6 (every lane took 0: a ten-minute
    lavapipe-wgsl campaign under avoid=all). With the variant the zero is added once
    more, after the subtraction."""
    from difftest.campaign.runner import check_case

    c = case("def kernel(out: Buffer[i32]):\n"
             "    out[gid()] = shuffle_up(gid() + 5, 0) + shuffle_down(gid(), 0)\n",
             n=16, wave=16, out=[0] * 16)
    t = target(name)
    avoided = check_case(c, t, {}, {"avoid": "sext-compare"})
    assert avoided.verdict.agree, str(avoided.verdict)
    assert [int(x) for x in avoided.outcome.buffers["out"]] == [2 * g + 5 for g in range(16)]


def test_an_unexplained_disagreement_still_fails_replay(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """A known bug explains only failures of its class and shape: a case that fails
    another way on the same target is not excused."""
    from difftest.campaign.findings import KnownFinding, explain
    from difftest.campaign.signature import Signature
    from difftest.core.verdict import Verdict

    known = [KnownFinding("x", Signature("lavapipe-glsl", "R3 memory",
                                         frozenset({"Store", "Compare:<="})), tmp_path)]
    c = case(SEXT, s=-5, out=[0])
    r3 = Verdict(False, "R3 memory", "m")
    r1 = Verdict(False, "R1 exception", "m")
    assert explain(known, "lavapipe-glsl", c, r3) is known[0]
    assert explain(known, "lavapipe-glsl", c, r1) is None       # another class
    assert explain(known, "lavapipe-wgsl", c, r3) is None       # another target
    plain = case("def kernel(out: Buffer[i32]):\n    out[0] = 1\n", out=[0])
    assert explain(known, "lavapipe-glsl", plain, r3) is None   # not the bug's operations


@pytest.mark.parametrize("name", REAL)
def test_a_build_past_its_limit_is_slow_or_hung_never_wrong(name: str) -> None:
    """build_timeout is the build's own limit, in CPU seconds of the device's process: a
    build past it (and past ten times it, on its rerun) is a hang, and a translation
    whose build hung is not built again for the next case of the same kernel (a build is
    deterministic); one that answers on its rerun is slow and not checked; another
    kernel is built afresh. (tests/real_targets/test_slow_and_hung.py has each path on
    a device that takes a known time.)"""
    import time

    t = target(name)
    slow = {"build_timeout": 0.0001}
    fresh = time.time_ns() % 1_000_000  # a kernel no device process has built before
    body = "".join(f"    out[0] = out[0] * {fresh + k} + {k}\n" for k in range(40))
    a = case(f"def kernel(out: Buffer[i32]):\n{body}", out=[0])  # a build of some length
    first = t.run(a, {}, slow)
    if first.error is None:  # answered before the process's clock was first read
        pytest.skip(f"{name} built this kernel within the first look at its clock")
    assert first.error.kind in ("timeout", "slow"), first.error
    if first.error.kind == "timeout":
        assert str(first.error).startswith("timeout: its build did not finish")
        assert "a hang" in first.error.message
        start = time.monotonic()
        again = t.run(a, {}, slow)
        assert again.error == first.error and time.monotonic() - start < 0.5
    b = case("def kernel(out: Buffer[i32]):\n    out[0] = 8\n", out=[0])
    assert t.run(b, {}, {"build_timeout": 60}).buffers["out"].tolist() == [8]


def test_the_intel_icd_folder_belongs_to_one_installation(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    """Two environments of one user (a CI clone's beside the user's) each get their own
    ICD folder: one's runtime path never replaces the other's under its device processes."""
    import targets.opencl.target as ocl

    folders = []
    for env in ("a", "b"):
        lib = tmp_path / env / "libintelocl.so"
        lib.parent.mkdir()
        lib.write_text("")

        class _File:
            def __str__(self) -> str:
                return "lib/libintelocl.so"

            def locate(self, lib: Path = lib) -> Path:
                return lib

        class _Dist:
            files = [_File()]

        monkeypatch.setattr(ocl, "distribution", lambda name: _Dist())
        folders.append(Path(ocl.intel_icd_dir()))
    assert folders[0] != folders[1]
    assert [(f / "intel.icd").read_text().strip() for f in folders] == [
        str((tmp_path / e / "libintelocl.so").resolve()) for e in ("a", "b")]
