"""intel-reversed-ballot-is-zero (docs/findings.md): the bits of a sub_group_ballot,
reversed by the usual five shift-and-mask steps, come out 0.

Each work-item takes sub_group_ballot(lane < 1).x and reverses its 32 bits (swaps of 1,
2, 4, 8 and 16 bits). Only lane 0's predicate is true, so the ballot's part x is 1 in
every subgroup, whatever its size, and its reversal is 0x80000000 = 2147483648, which
every work-item stores into out[gid]. Control flow is uniform. Intel's runtime stores 0
everywhere (the compiled kernel stores the constant 0); with -cl-opt-disable it is
right. Plain pyopencl and numpy, nothing of difftest; Intel's CPU runtime from pip
(intel-opencl-rt). Arguments: build options to try (default: the default build);
CL_CONFIG_CPU_TARGET_ARCH picks the instruction set."""
import os, sys, tempfile
from importlib.metadata import distribution

lib = next(str(f.locate()) for f in distribution("intel-opencl-rt").files or []
           if str(f).endswith("libintelocl.so"))
d = tempfile.mkdtemp()
open(os.path.join(d, "intel.icd"), "w").write(os.path.realpath(lib) + "\n")
os.environ.setdefault("OCL_ICD_VENDORS", d)
import numpy as np
import pyopencl as cl

SRC = """
#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
__kernel void k(__global uint* out, uint n) {
    uint x = sub_group_ballot(get_sub_group_local_id() < n).x;  /* 1 */
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    x = (x >> 16) | (x << 16);                                  /* 0x80000000 */
    out[get_global_id(0)] = x;
}
"""

platform = [p for p in cl.get_platforms() if "Intel" in p.name][0]
ctx = cl.Context(platform.get_devices())
q = cl.CommandQueue(ctx)
print(f"{platform.name} {platform.version}, "
      f"CL_CONFIG_CPU_TARGET_ARCH={os.environ.get('CL_CONFIG_CPU_TARGET_ARCH', '(unset)')}")
for flags in sys.argv[1:] or [""]:
    k = cl.Program(ctx, SRC).build(options=flags, cache_dir=False).k
    out = np.full(64, 12345, np.uint32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    k(q, (64,), (64,), buf, np.uint32(1))
    cl.enqueue_copy(q, out, buf)
    q.finish()
    got = sorted(set(out.tolist()))
    print(f"  build {flags or 'default'!r}: out[0..63] all in {got}"
          f"{'' if got == [2**31] else f'  <-- WRONG, expected [{2**31}]'}")
