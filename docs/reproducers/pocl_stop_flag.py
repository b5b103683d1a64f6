"""pocl-guards-lost-after-conditional-barrier through a private flag (docs/findings.md):
work-item t sets its `stop` flag inside a branch that every work-item takes (n > 0, a
kernel argument) before the branch's barrier; after the branch, `if (!stop)` must keep
it from storing. The `avoid=barrier-branch-tail` spelling does not help: the arm already
ends at a barrier, and clang moves the test right after it. One work-group of 8, n = 1:
expected out[lid] = 2 for every lid != t and out[t] = -1 (untouched). Plain pyopencl and
numpy, nothing of difftest; runs on every platform found (Intel's CPU runtime, pip
intel-opencl-rt, is added through an ICD folder when installed)."""
import os, tempfile
try:  # Intel's CPU runtime (pip intel-opencl-rt): its ICD file names a conda path
    from importlib.metadata import distribution
    lib = next(str(f.locate()) for f in distribution("intel-opencl-rt").files or []
               if str(f).endswith("libintelocl.so"))
    d = tempfile.mkdtemp(); open(os.path.join(d, "intel.icd"), "w").write(os.path.realpath(lib) + "\n")
    os.environ.setdefault("OCL_ICD_VENDORS", d)
except Exception:
    pass
import numpy as np, pyopencl as cl

SRC = """
__kernel void k(__global int* out, int n, int t) {
    int lid = get_local_id(0);
    int stop = 0;
    if (n > 0) {                          // the same for every work-item: all take it
        if (lid == t) stop = 1;           // work-item t takes its stop path
        barrier(CLK_LOCAL_MEM_FENCE);     // (the arm ends at a barrier)
    } else {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (!stop) out[lid] = 2;              // work-item t must skip this
}
"""
G = 8
for p in cl.get_platforms():
    ctx = cl.Context(p.get_devices()); q = cl.CommandQueue(ctx)
    for flags in ("", "-cl-opt-disable"):
        k = cl.Kernel(cl.Program(ctx, SRC).build(options=flags), "k")
        for t in (3, 7):
            out = np.full(G, -1, np.int32)
            b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
            k(q, (G,), (G,), b, np.int32(1), np.int32(t)); cl.enqueue_copy(q, out, b); q.finish()
            want = [-1 if i == t else 2 for i in range(G)]
            print(f"{p.name[:12]:12} {flags or 'default':15} t={t}: {out.tolist()}"
                  f"{'' if out.tolist() == want else '  <-- WRONG'}")
