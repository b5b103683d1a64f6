"""A target nobody in this repository registered: a package that exists only in a temp
folder, with its own dist-info and `difftest.targets` entry point, is found by name with
no change to difftest (as the opencl plugin and any vendor's target are)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ..conftest import EXAMPLES

TARGET = '''\
"""A vendor's target: runs each case on the reference oracle, but (to show its verdicts
are its own) can be told to drop every store with --opt lossy=1."""
from oracles.oracle import ReferenceTarget


class VendorTarget(ReferenceTarget):
    name = "vendor-x"
    description = "a third-party target from a test package"
    capabilities = frozenset({"faults", "wave_ops", "host_programs", "alloc"})
    option_names = ("lossy",)

    def run(self, case, schedule=None, options=None):
        options = dict(options or {})
        lossy = options.pop("lossy", 0)
        outcome = super().run(case, schedule, options)
        if lossy:
            for name, data in case.buffers().items():
                outcome.buffers[name] = data.astype("int64")
        return outcome
'''


def _package(root: Path) -> None:
    (root / "vendor_x.py").write_text(TARGET)
    info = root / "vendor_x-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vendor-x\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[difftest.targets]\nvendor-x = vendor_x:VendorTarget\n")


def _difftest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root), str(Path(__file__).resolve().parents[2])])}
    return subprocess.run([sys.executable, "-m", "difftest", *args], capture_output=True,
                          text=True, env=env, timeout=300)


def test_a_target_registered_only_by_a_test_package_is_found_by_name(tmp_path: Path) -> None:
    _package(tmp_path)
    listed = _difftest(tmp_path, "targets")
    assert listed.returncode == 0, listed.stderr
    assert "vendor-x" in listed.stdout
    case = str(EXAMPLES / "payload_clobber.py")
    good = _difftest(tmp_path, "check", case, "--target", "vendor-x")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "agree on vendor-x" in good.stdout
    bad = _difftest(tmp_path, "check", case, "--target", "vendor-x", "--opt", "lossy=1")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "disagree" in bad.stdout


def test_a_registered_object_that_is_no_target_subclass_is_one_clear_error(
        tmp_path: Path) -> None:
    """Every part of a target is read directly, never probed: a registered object that
    does not subclass difftest's Target is refused by name, with no traceback."""
    (tmp_path / "duck.py").write_text(
        "class Duck:\n    name = 'duck'\n\n    def run(self, case, schedule=None, options=None):\n"
        "        raise AssertionError('never run')\n")
    info = tmp_path / "duck-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: duck\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[difftest.targets]\nduck = duck:Duck\n")
    out = _difftest(tmp_path, "check", str(EXAMPLES / "payload_clobber.py"), "--target", "duck")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "does not subclass difftest.core.target.Target" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_broken_plugin_is_left_out_with_a_warning_and_the_others_still_run(
        tmp_path: Path) -> None:
    """A plugin whose object is no Target (or whose constructor fails) never stops the
    built-in targets: `check`, `run` and `targets` go on without it, saying so once."""
    (tmp_path / "duck.py").write_text("class Duck:\n    name = 'duck'\n")
    info = tmp_path / "duck-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: duck\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[difftest.targets]\nduck = duck:Duck\n")
    case = str(EXAMPLES / "payload_clobber.py")
    for args in (("check", case, "--target", "reference"), ("run", case, "--target",
                                                             "reference")):
        out = _difftest(tmp_path, *args)
        assert out.returncode == 0, out.stdout + out.stderr
        warnings = [x for x in out.stderr.splitlines() if "warning: target 'duck'" in x]
        assert len(warnings) <= 1, out.stderr


def test_a_broken_plugin_breaks_nothing_else(tmp_path: Path) -> None:
    """A plugin whose module raises on import: `difftest targets` lists every other
    target and the broken one with its one-line reason (exit 0); naming it is one line
    and exit 2, never a traceback."""
    _package(tmp_path)
    (tmp_path / "broken_gpu.py").write_text(
        'raise RuntimeError("the driver library lacks a symbol")\n')
    info = tmp_path / "broken_gpu-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-gpu\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[difftest.targets]\nbroken-gpu = broken_gpu:BrokenTarget\n")
    listed = _difftest(tmp_path, "targets")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "Traceback" not in listed.stdout + listed.stderr
    assert ("broken-gpu: cannot be loaded: target 'broken-gpu' is registered by "
            "broken_gpu:BrokenTarget but is broken: RuntimeError: the driver library lacks "
            "a symbol") in listed.stdout
    assert "vendor-x: a third-party target" in listed.stdout
    assert "numba-simt: " in listed.stdout
    named = _difftest(tmp_path, "check", str(EXAMPLES / "simple_deopt.py"), "--target",
                      "broken-gpu")
    assert named.returncode == 2 and "Traceback" not in named.stderr, named.stderr
    assert len(named.stderr.strip().splitlines()) == 1
    assert "is broken: RuntimeError: the driver library lacks a symbol" in named.stderr
