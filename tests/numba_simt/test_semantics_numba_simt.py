"""The oracle's hand-derived semantics tests, replayed on numba-simt.

Every test of tests/oracles/test_oracle.py that is about the language's meaning (not about the
oracle's own race detector, full-run internals or write logs) runs here again with numba-simt
as the target, at a small register budget so spills are exercised too. numba-simt runs
with `after_exception: finish`, so never-ran waves still run after an exception and the
expected values are the same hand-derived ones. The loop-trip budget tests (`test_trip_budget_*`) run here too: both sides
honour the same budget and report the same error.
"""

from __future__ import annotations

from typing import Any

import pytest

from targets.numba_simt.target import NumbaSimtTarget

from ..oracles import test_oracle as semantics

ORACLE_ONLY = ("race", "step_budget", "write_logs")

# Re-collect the language-semantics tests in this module (the oracle-only ones are left
# out, not skipped).
for _name in dir(semantics):
    if _name.startswith("test_") and not any(w in _name for w in ORACLE_ONLY):
        globals()[_name] = getattr(semantics, _name)


class _AllWaves:
    def run(self, case: Any, schedule: Any = None, options: Any = None) -> Any:
        return NumbaSimtTarget().run(case, {"after_exception": "finish"},
                                     {"registers": 8, **(options or {})})


@pytest.fixture(autouse=True)
def on_numba_simt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantics, "ReferenceTarget", _AllWaves)
