"""Shared fixtures: where the shared examples live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = SHARED / "examples"


@pytest.fixture
def examples_dir() -> Path:
    if not EXAMPLES.is_dir():
        pytest.fail(f"shared examples not found at {EXAMPLES} (CI runs with ../shared beside)")
    return EXAMPLES
