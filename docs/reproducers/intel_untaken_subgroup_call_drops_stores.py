"""Intel's OpenCL CPU runtime drops every work-item's store after a call of a helper with
a subgroup vote, made in a branch that no work-item takes: `st[g] = 7` never reaches
memory, in any of the 32 work-items. Built for `CL_CONFIG_CPU_TARGET_ARCH=skx`,
`corei7` or `core-avx2`, or with -cl-opt-disable, it is right; the default build on a
CPU whose newest target is sapphirerapids (this one) is wrong. Each of these makes it
right: the `if (g >= N) return;`, the private array's store with a run-time index, the
copy of the struct, or the vote, taken out; `sub_group_broadcast_first(0)` replaced by
`sub_group_any(0)`; the loop after the store taken out (it never runs: fdepth is 0).
Run: no argument (the default build), or "-cl-opt-disable". Needs: pip install numpy
pyopencl intel-opencl-rt intel-cmplr-lib-rt."""

import os
import sys
import tempfile
from importlib.metadata import distribution

import numpy as np
import pyopencl as cl

SRC = r"""
typedef struct { int depth; int fdepth; int lns[2]; int lane; } Ctx;

void h(Ctx *C) {
    sub_group_non_uniform_any(C->lane);
}

void f(Ctx *C) {
    Ctx D = *C;
    if (sub_group_broadcast_first(0)) {     /* never taken */
        D.lns[C->depth] = 12;
        h(&D);
    }
}

__kernel void k(__global long* st, long N) {
    Ctx ctx = {0};
    int g = get_global_id(0);
    if (g >= N) return;                     /* N = 32: no work-item returns */
    ctx.lane = g;
    f(&ctx);
    st[g] = 7;                              /* expected in every work-item */
    for (int i = 0; i < ctx.fdepth; i++)    /* fdepth is 0: no trip */
        st[32 + i] = ctx.lns[i];
}
"""

files = distribution("intel-opencl-rt").files or []
lib = next(str(f.locate()) for f in files if str(f).endswith("libintelocl.so"))
folder = tempfile.mkdtemp()
with open(os.path.join(folder, "intel.icd"), "w") as f:
    f.write(lib + "\n")
os.environ["OCL_ICD_VENDORS"] = folder
device = next(p for p in cl.get_platforms() if "Intel" in p.name).get_devices()[0]
ctx = cl.Context([device])
queue = cl.CommandQueue(ctx)
options = " ".join(sys.argv[1:])
st = np.full(34, -1, dtype=np.int64)
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=st)
program = cl.Program(ctx, SRC).build(options=options, cache_dir=False)
program.k(queue, (32,), (32,), buf, np.int64(32))
cl.enqueue_copy(queue, st, buf)
wrote = int((st[:32] == 7).sum())
print(f"{device.platform.version}, {options or 'default options'}: {wrote} of 32 work-items "
      f"stored 7 (expected 32)")
sys.exit(0 if wrote == 32 else 1)
