"""Shared fixtures: where the example kernels live (the repository's own `examples/`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def example_json(name: str) -> dict[str, Any]:
    """An example kernel file's case, as the JSON object a case file would hold."""
    from difftest.core.kernelfile import load_case

    return load_case(EXAMPLES / f"{name}.py").to_json()


@pytest.fixture
def examples_dir() -> Path:
    assert EXAMPLES.is_dir(), f"examples not found at {EXAMPLES}"
    return EXAMPLES


def pytest_configure(config: pytest.Config) -> None:
    """Warm numba-simt's on-disk caches (the machine, the host's lane loop, the
    compiler's liveness and colouring) once, in the controlling process, before xdist workers start: concurrent cold
    compiles into one cache have crashed numba (numba#4807), and CI must not pay the
    cold compile once per worker."""
    if hasattr(config, "workerinput"):
        return
    from targets.numba_simt.compiler import coloring, dataflow
    from targets.numba_simt.device import machine
    from targets.numba_simt.runtime import host_loop

    machine.warm_up()
    host_loop.warm_up()
    coloring.warm_up()
    dataflow.warm_up()
