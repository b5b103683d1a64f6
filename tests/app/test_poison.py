"""difftest/app/poison.py: workgroup memory filled before the kernel's code, in each
language, so that `export --reduce` refuses candidates that read it unwritten."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from difftest.app import poison
from difftest.app.poison import POISON, poisoned

OPENCL = """__kernel void k(__global int* out) {
    __local int l_tile[256];
    __local long wide[4];  // a comment stays
    out[0] = l_tile[0];
}
"""


def test_opencl_arrays_are_filled_where_declared_then_a_barrier() -> None:
    got = poisoned(OPENCL, ".cl").splitlines()
    assert got[1] == "    __local int l_tile[256];"
    assert got[2] == ("    if (get_local_id(0) == 0) { for (int p_ = 0; p_ < 256; p_++) "
                      f"l_tile[p_] = (int){POISON}; }} barrier(CLK_LOCAL_MEM_FENCE);")
    assert got[4].strip().startswith("if (get_local_id(0) == 0)") and "(long)" in got[4]
    assert got[5] == "    out[0] = l_tile[0];"


def test_cuda_shared_arrays_of_two_word_types() -> None:
    src = "__global__ void k() {\n    __shared__ long long l_a[8];\n}\n"
    got = poisoned(src, ".cu")
    assert "l_a[p_] = (long long)0x5A5A5A5A; } __syncthreads();" in got


def test_glsl_and_wgsl_fill_at_the_start_of_main() -> None:
    glsl = "shared int v_t[16];\nshared int64_t v_w[2];\nvoid main() {\n    f();\n}\n"
    got = poisoned(glsl, ".comp")
    head, body = got.split("void main() {", 1)
    assert head == glsl.split("void main() {")[0]
    assert "v_t[p_] = int(0x5A5A5A5A)" in body and "v_w[p_] = int64_t(0x5A5A5A5A)" in body
    assert body.index("barrier();") < body.index("f();")
    wgsl = ("var<workgroup> VT: array<atomic<i32>, 2>;\nvar<workgroup> v_t: array<i32, 8>;\n"
            "@compute @workgroup_size(8)\nfn main(@builtin(workgroup_id) wg: vec3<u32>, "
            "@builtin(local_invocation_index) li: u32) {\n    f();\n}\n")
    got = poisoned(wgsl, ".wgsl")
    assert "if (li == 0u) { for (var p_ = 0; p_ < 8; p_++) { v_t[p_] = i32(0x5A5A5A5A); } }" \
        " workgroupBarrier();" in got
    assert "VT[p_]" not in got  # atomics are not stored plainly


def test_without_workgroup_memory_nothing_changes() -> None:
    for suffix in (".cl", ".cu", ".comp", ".wgsl", ".txt"):
        src = "void main() {\n    int x = 0;\n}\n"
        assert poisoned(src, suffix) == src


def test_the_script_writes_the_poisoned_form(tmp_path: Path) -> None:
    kernel = tmp_path / "kernel.cl"
    kernel.write_text(OPENCL)
    out = tmp_path / "p.cl"
    done = subprocess.run([sys.executable, poison.__file__, str(kernel), str(out)])
    assert done.returncode == 0 and out.read_text() == poisoned(OPENCL, ".cl")
    assert subprocess.run([sys.executable, poison.__file__]).returncode == 2
