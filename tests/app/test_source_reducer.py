"""The guard `export --reduce` puts before every C-Vise candidate
(difftest/app/source_reducer.py): no declaration left without the initial value the
original gave it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from difftest.app.source_reducer import _BARE_DECLARATION, _GUARD, bare_declarations

ORIGINAL = """typedef struct { int kind; long code; } Ctx;
__kernel void k(__global long* ST, long N) {
    Ctx ctx = {0};
    __local int tile[16];
    int wave = (int)get_group_id(0);
    if (wave >= N) return;
    ST[wave] = ctx.kind;
}
"""


def test_bare_declarations_are_those_without_a_value() -> None:
    assert bare_declarations(ORIGINAL) == {"int kind;", "long code;",
                                           "__local int tile[16];"}
    assert bare_declarations("    return x;\n    break;\n    else;\n    x = 1;\n") == set()
    assert bare_declarations("  int wave ;\n  __global long *r;\n") == {
        "int wave ;", "__global long *r;"}


def test_the_guard_refuses_a_candidate_that_drops_an_initializer(tmp_path: Path) -> None:
    guard = tmp_path / "guard.py"
    guard.write_text(_GUARD.format(pattern=_BARE_DECLARATION.pattern))
    original = tmp_path / "kernel.cl"
    original.write_text(ORIGINAL)

    def passes(candidate: str) -> bool:
        path = tmp_path / "candidate.cl"
        path.write_text(candidate)
        return subprocess.run([sys.executable, str(guard), str(original), str(path)]
                              ).returncode == 0

    assert passes(ORIGINAL)
    assert passes(ORIGINAL.replace("    if (wave >= N) return;\n", ""))  # a cut, defined
    assert not passes(ORIGINAL.replace("Ctx ctx = {0};", "Ctx ctx;"))
    assert not passes(ORIGINAL.replace("int wave = (int)get_group_id(0);", "int wave;"))
    joined = " ".join(ORIGINAL.replace("Ctx ctx = {0};", "Ctx ctx ;").splitlines())
    assert not passes(joined)  # C-Vise joins lines: a declaration after another statement
