"""Whether pip's PoCL can build on this machine: its LLVM calls a CPU newer than itself
`generic` and then refuses that name, so every build fails alike (AMD's Zen 5 for PoCL
3.0). The target is then left out as not installed, with the reason; any other probe
outcome leaves it in."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyopencl")
from importlib.metadata import PackageNotFoundError, distribution  # noqa: E402

from targets.opencl import target as opencl  # noqa: E402

try:
    distribution("pocl-binary-distribution")
except PackageNotFoundError:
    pytest.skip("pocl-binary-distribution is not installed", allow_module_level=True)

REFUSED = ("clBuildProgram failed: BUILD_PROGRAM_FAILURE\n"
           "error: unknown target CPU 'generic'\n"
           "Device pthread-AMD EPYC failed to build the program\n")


def _probe_says(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, out: str) -> list[int]:
    """The probe's process answers `out`; returns the list its calls are counted in."""
    calls: list[int] = []

    def run(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        calls.append(1)
        return subprocess.CompletedProcess(args, 0, out, "")

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(opencl.tempfile, "gettempdir", lambda: str(tmp_path))
    return calls


def test_a_refused_generic_cpu_leaves_pocl_out_with_the_reason(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = _probe_says(monkeypatch, tmp_path, REFUSED)
    why = opencl.pocl_cannot_build()
    assert why is not None and "cannot build kernels for this CPU" in why
    assert "'generic'" in why and ": " not in why  # one clause: a skip prints it whole
    with pytest.raises(ImportError, match="cannot build kernels for this CPU"):
        opencl.PoclTarget()
    assert opencl.pocl_cannot_build() == why
    assert len(calls) == 1  # asked once: the answer is kept in a file


@pytest.mark.parametrize("out", ["built\n", "", "clBuildProgram failed: OUT_OF_HOST_MEMORY\n"])
def test_any_other_probe_outcome_keeps_pocl(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            out: str) -> None:
    _probe_says(monkeypatch, tmp_path, out)
    assert opencl.pocl_cannot_build() is None
