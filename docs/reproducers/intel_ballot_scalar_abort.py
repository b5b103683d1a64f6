"""intel-ballot-bit-count-crash (docs/findings.md), a second way in: Intel's CPU runtime
aborts (SIGABRT, "UNREACHABLE executed: Scalar sub_group_ballot execution breaks subgroup
semantics!") at the first enqueue of a kernel it did not vectorise (build log: 'Kernel
"k" was not vectorized') that calls sub_group_ballot. The lane-dependent `while` keeps
the vectoriser off; with n = 1 only lane 0 of each subgroup gets past the return, and it
never enters the loop. Expected: out[gid] = 1 (the ballot of a subgroup of one) where a
work-item stores. Plain pyopencl and numpy, nothing of difftest; Intel's CPU runtime from
pip (intel-opencl-rt). Arguments: build options (default: the default build)."""
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
__kernel void k(__global uint* out, int n) {
    uint lane = get_sub_group_local_id();
    if (lane >= n) return;                       /* n = 1: only lane 0 goes on */
    while (lane >= 1) out[64] = 0;               /* never entered */
    out[get_global_id(0)] = sub_group_ballot(1).x;
}
"""
platform = [p for p in cl.get_platforms() if "Intel" in p.name][0]
ctx = cl.Context(platform.get_devices())
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, SRC).build(options=" ".join(sys.argv[1:]), cache_dir=False)
print("built; log:", prg.get_build_info(ctx.devices[0], cl.program_build_info.LOG).strip(), flush=True)
out = np.full(65, 12345, np.uint32)
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
prg.k(q, (8,), (8,), buf, np.int32(1))
cl.enqueue_copy(q, out, buf)
q.finish()
print("out[:8] =", out[:8].tolist())
