"""`export --reduce` (difftest/app/source_reducer.py): the guard before every C-Vise
candidate (no declaration left without the initial value the original gave it) and the
tidying after it (each step keeps the program's meaning)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import shutil

import pytest

from difftest.app.source_reducer import (
    _BARE_DECLARATION,
    _GUARD,
    _NULL_POINTER,
    clang_check,
    bare_declarations,
    drop_attributes_and_no_ops,
    drop_parentheses,
    drop_redundant_braces,
    drop_unused_fields,
    inline_truths,
    join_short_records,
    TIDY_STEPS,
)

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


def _guard(tmp_path: Path, clang: list[str] | None = None) -> Path:
    guard = tmp_path / "guard.py"
    guard.write_text(_GUARD.format(pattern=_BARE_DECLARATION.pattern,
                                   null=_NULL_POINTER.pattern, clang=clang))
    return guard


def test_the_guard_refuses_a_candidate_that_drops_an_initializer(tmp_path: Path) -> None:
    guard = _guard(tmp_path)
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
    looped = ORIGINAL.replace("    ST[wave] = ctx.kind;\n",
                              "    ST[wave] = ctx.kind;\n    for (int i = 0; i < 1; i++) ;\n")
    assert passes(looped)
    assert not passes(looped.replace("for (int i = 0;", "for (int i;"))  # i never given one
    # a pointer set to null that the original does not set so (C-Vise's cut of an argument)
    helper = ORIGINAL.replace("__kernel", "int h(Ctx* C) { return C->kind; }\n__kernel")
    assert passes(helper)
    assert not passes(helper.replace("int h(Ctx* C) { return", "int h() { Ctx *C = 0; return"))
    assert not passes(helper.replace("int h(Ctx* C) { return",
                                     "int h() { Ctx *__private C = 0; return"))
    assert not passes(helper.replace("{ return C->kind; }",
                                     "{ Ctx *D = (void *) 0; return C->kind; }"))


def test_the_guard_refuses_what_clang_warns_of_as_undefined(tmp_path: Path) -> None:
    """With a clang installed (C-Vise's Debian package brings one), an OpenCL C candidate
    that can fall off the end of a valued function, or reads a value before any is given,
    is refused; the original and a defined cut pass."""
    original = tmp_path / "kernel.cl"
    original.write_text(ORIGINAL.replace("__kernel", "int h(int x) { return x + 1; }\n__kernel")
                        .replace("ST[wave] = ctx.kind;", "ST[wave] = h(ctx.kind);"))
    clang = clang_check(original)
    if clang is None:
        pytest.skip("no clang that accepts OpenCL C is installed")
    guard = _guard(tmp_path, clang)

    def passes(candidate: str) -> bool:
        path = tmp_path / "candidate.cl"
        path.write_text(candidate)
        return subprocess.run([sys.executable, str(guard), str(original), str(path)]
                              ).returncode == 0

    text = original.read_text()
    assert passes(text)
    assert passes(text.replace("    if (wave >= N) return;\n", ""))
    assert not passes(text.replace("{ return x + 1; }", "{ if (x) return x + 1; }"))
    assert not passes(text.replace("{ return x + 1; }", "{ int y; if (x) y = 1; return y; }"))
    assert not passes(text.replace("int h(int x)", "h(int x)"))  # implicit int


# Tidying. Each step is checked on what C-Vise leaves, and all of them together on a C
# program whose output must not change.

def test_no_ops_go_but_a_block_keeps_its_name() -> None:
    glsl = ("layout(binding = 0) buffer S {\n  int64_t d[];\n}\nST;\nvoid main() {\n"
            "  int;\n  0;\n  long;\n  return;\n}\n")
    assert drop_attributes_and_no_ops(glsl) == (
        "layout(binding = 0) buffer S {\n  int64_t d[];\n}\nST;\nvoid main() {\n"
        "  return;\n}\n")
    assert drop_attributes_and_no_ops("__attribute__(()) __kernel void k() {\n  break;\n}"
                                      ) == "__kernel void k() {\n  break;\n}"


def test_parentheses_go_where_they_group_nothing() -> None:
    assert drop_parentheses("int x = (((1)));\nm.d[((00))] = (v);\n") \
        == "int x = 1;\nm.d[00] = v;\n"
    assert drop_parentheses("long s = (((-1))) % v;\nreturn (s1);\nint t = (f(a) + b);\n") \
        == "long s = (-1) % v;\nreturn s1;\nint t = f(a) + b;\n"
    kept = ("if (t1) x = (int)y;\nf((a, b));\nx = (a, b);\nint y = g(x)(z);\n"
            "__attribute__((reqd(32))) void k();\nx = (a) (b);\n")
    assert drop_parentheses(kept) == kept


def test_unused_fields_go_with_their_place_in_each_constructor() -> None:
    glsl = ("struct Ctx {\n  int kind;\n  int64_t code;\n  int fns[1];\n} C = "
            "Ctx(0, 0l, int[](0));\nvoid main() { C.fns[0] = C.kind; }\n")
    assert drop_unused_fields(glsl) == (
        "struct Ctx {\n  int kind;\n  int fns[1];\n} C = Ctx(0, int[](0));\n"
        "void main() { C.fns[0] = C.kind; }\n")
    c = "typedef struct {\n  int kind;\n  long trips\n} Ctx;\nint f(Ctx *C) { return C->kind; }\n"
    assert drop_unused_fields(c) == ("typedef struct {\n  int kind;\n} Ctx;\n"
                                     "int f(Ctx *C) { return C->kind; }\n")
    by_place = "typedef struct { int a; int b; } P;\nP p = {1, 2};\nint g() { return p.b; }\n"
    assert drop_unused_fields(by_place) == by_place  # dropping `a` would make b = 1


def test_truths_are_written_where_they_are_read_once() -> None:
    assert inline_truths("  int t4 = v < t2;\n  if (t4) {\n") == "  if ((v < t2)) {\n"
    kept = ("  int t4 = v < t2;\n  if (t4) x = t4;\n"    # read twice
            "  int t5 = f(v) < 2;\n  if (t5) {\n"        # calls
            "  int t6 = a + b;\n  if (t6) {\n")          # not a truth value
    assert inline_truths(kept) == kept


def test_blocks_that_hold_one_statement_are_that_statement() -> None:
    assert drop_redundant_braces("if (t) {\n  {\n    a = 1;\n    return;\n  }\n}\n") \
        == "if (t) {\n  a = 1;\n    return;\n}\n"
    assert drop_redundant_braces("x = 1;\n{\n  for (i = 0; i < 3; i++) {\n a;\n }\n}\n") \
        == "x = 1;\nfor (i = 0; i < 3; i++) {\n a;\n }\n"
    kept = "x = 1;\n{\n  int y = 2;\n  {\n    a = y;\n  }\n  b = y;\n}\nif (t) {\n  a;\n}\n"
    assert drop_redundant_braces(kept) == kept


def test_short_records_go_on_one_line() -> None:
    assert join_short_records("layout(binding = 1) buffer P {\n  int64_t d[];\n}\nP;\nx;") \
        == "layout(binding = 1) buffer P { int64_t d[]; } P;\nx;"
    assert join_short_records("typedef struct {\n  int kind;\n} Ctx;") \
        == "typedef struct { int kind; } Ctx;"
    long_record = "struct S {\n" + "".join(f"  int field{i};\n" for i in range(12)) + "};"
    assert join_short_records(long_record) == long_record


PROGRAM = """#include <stdio.h>
typedef struct {
  int kind;
  long unused;
  int depth;
} Ctx;
int f(Ctx *C, long v) {
  int t1 = (v <= (0));
  if (t1) {
    {
      C->kind = (((3)));
      return ((C->kind));
    }
  }
  {
    for (long i = 0; i < v; i++) {
      C->depth = C->depth + ((int)(i));
    }
  }
  return (C->depth, 7);
}
int main(void) {
  Ctx ctx = {0};
  int;
  0;
  int a = f(&ctx, -1);
  Ctx d = {0};
  int b = f(&d, 4);
  printf("%d %d %d %d\\n", a, b, ctx.kind, d.depth);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_tidying_keeps_a_programs_meaning(tmp_path: Path) -> None:
    def run(source: str) -> str:
        (tmp_path / "p.c").write_text(source)
        subprocess.run(["cc", "-w", "-o", str(tmp_path / "p"), str(tmp_path / "p.c")],
                       check=True)
        return subprocess.run([str(tmp_path / "p")], capture_output=True, text=True,
                              check=True).stdout

    tidied = PROGRAM
    for step in TIDY_STEPS:
        tidied = step(tidied)
    assert run(tidied) == run(PROGRAM) == "3 7 3 6\n"
    # clang-format's layout (installed with C-Vise) joins short blocks; without it the
    # tidying still drops the unused field and the empty blocks
    import shutil

    shorter = 10 if shutil.which("clang-format") else 5
    assert len(tidied.splitlines()) < len(PROGRAM.splitlines()) - shorter
    assert "unused" not in tidied and "(((" not in tidied and "int;" not in tidied


def test_oclgrind_refuses_a_race_of_equal_values(tmp_path: Path) -> None:
    """Where Oclgrind is installed, an OpenCL C candidate must also run clean on it: the
    PoCL finding's kernel passes, and the cut C-Vise once made of it (its vote's
    `local_id == 0` turned into `local_id != 0`: 31 work-items store the same 0 to a
    `__local` word, unsynchronised) gives the expected result everywhere but is refused."""
    from difftest.app.cli import main
    from difftest.app.source_reducer import oclgrind_check, oclgrind_library

    from ..conftest import REPO
    from ..real_targets.test_real_targets import target

    if oclgrind_library() is None:
        pytest.skip("Oclgrind is not installed (apt-get install oclgrind)")
    target("opencl")
    folder, work = tmp_path / "repro", tmp_path / "work"
    work.mkdir()
    assert main(["export", str(REPO / "corpus/kernel-5d19f2c06524aa8f.json"), "--out",
                 str(folder)]) == 0
    lines = oclgrind_check(folder, folder / "kernel.cl", work)
    assert "OCLGRIND_DATA_RACES=1" in lines
    test = work / "test.sh"
    test.write_text("#!/bin/sh\n" + lines)
    text = (folder / "kernel.cl").read_text()
    vote = "if (C->local_id == 0) { V[0] = 0; V[1] = 0; }"
    assert vote in text

    def passes(candidate: str) -> bool:
        (work / "kernel.cl").write_text(candidate)
        return subprocess.run(["sh", str(test)], cwd=work).returncode == 0

    assert passes(text)
    assert not passes(text.replace(vote, vote.replace("==", "!=")))
    # and a store past the end of a workgroup array
    assert not passes(text.replace(vote, vote.replace("V[1] = 0;", "V[1] = 0; V[2] = 0;")))
