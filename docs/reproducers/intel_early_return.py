"""intel-early-return-sees-next-trip (docs/findings.md): a work-item that returns early
from a loop stores with the loop counter of a later trip.

One subgroup of 64 (work-items 5 and up return at once), s = 4, ctr = [5], out at -1:
work-item 4 meets `s == lane` in trip 0 and stores out[4] = -1 + 0 * 10 + 100 = 99;
work-item 3 in trip 1 stores -1 + 1 * 10 + 100 = 109. Every other statement under a
condition is never taken. Intel's runtime stores 109 in both. Plain pyopencl and numpy,
nothing of difftest; Intel's CPU runtime from pip (intel-opencl-rt). Arguments: build
options to try (default: the default build); CL_CONFIG_CPU_TARGET_ARCH picks the
instruction set."""
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
typedef struct { int kind; int fdepth; int fns[2]; int gid; int lane; } Ctx;

void body(__private Ctx* C, __global int* out, long n, __global int* ctr, int s) {
    int g = C->lane;
    int x = ctr[0];                                     /* 5 */
    for (long k = 0; k < 2; k++) {
        if (s == C->lane) {                             /* 4 in trip 0, 3 in trip 1 */
            if (g >= n) { C->fdepth = 1; return; }      /* never taken */
            out[g] = out[g] + (int)k * 10 + 100;
            return;
        }
        int v = 0;
        if (0 >= x) v = sub_group_non_uniform_scan_exclusive_add(g);  /* never taken */
        int t = out[g] + v;
        if (g >= n) { C->kind = 1; return; }            /* never taken */
        out[g] = t;
        s = s - 1;
    }
}

__attribute__((intel_reqd_sub_group_size(64)))
__kernel void k(__global int* res, int active, __global int* out, long n,
                __global int* ctr, int s) {
    Ctx c = {0};
    int lane = get_sub_group_local_id();
    if (lane >= active) return;
    c.lane = lane;
    body(&c, out, n, ctr, s);
    res[lane] = c.kind;
    for (int i = 0; i < c.fdepth; i++) res[64 + lane] = c.fns[i];
}
"""

platform = [p for p in cl.get_platforms() if "Intel" in p.name][0]
ctx = cl.Context(platform.get_devices())
q = cl.CommandQueue(ctx)
mf = cl.mem_flags
for flags in sys.argv[1:] or [""]:
    k = cl.Program(ctx, SRC).build(options=flags, cache_dir=False).k
    res = np.zeros(128, np.int32)
    out = np.full(8, -1, np.int32)
    ctr = np.array([5], np.int32)
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in (res, out, ctr)]
    k(q, (64,), (64,), bufs[0], np.int32(5), bufs[1], np.int64(8), bufs[2], np.int32(4))
    cl.enqueue_copy(q, out, bufs[1])
    q.finish()
    want = [-1, -1, -1, 109, 99]
    got = out[:5].tolist()
    print(f"{platform.name} {platform.version}, build {flags or 'default'!r}: out[:5] = {got}"
          f"{'' if got == want else f'  <-- WRONG, expected {want}'}")
