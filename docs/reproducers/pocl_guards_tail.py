"""pocl-guards-lost-after-conditional-barrier with every arm ending at a barrier (the
`avoid=barrier-branch-tail` spelling, which cures the 7-line kernel of
docs/reproducers/pocl_guards.py but not this one): inside a branch every work-item takes,
after a barrier, a work-item's own guard (lid < n) around an if/else, and a private value
set on one arm used after the branch. One work-group of G, n = 1, m = 1: only work-item 0
passes the guard, so out[0] == 1 and out[1 + lid] == 0. Plain pyopencl and numpy, nothing
of difftest; runs on every platform found (Intel's CPU runtime, pip intel-opencl-rt, is
added through an ICD folder when installed)."""
import os, tempfile
try:  # Intel's wheel ships an ICD file naming a conda path: write one naming the library
    from importlib.metadata import distribution
    lib = next(str(f.locate()) for f in distribution("intel-opencl-rt").files or []
               if str(f).endswith("libintelocl.so"))
    d = tempfile.mkdtemp(); open(os.path.join(d, "intel.icd"), "w").write(os.path.realpath(lib) + "\n")
    os.environ.setdefault("OCL_ICD_VENDORS", d)
except Exception:
    pass
import numpy as np
import pyopencl as cl

SRC = """
__kernel void k(__global int* out, int n, int m) {
    int lid = get_local_id(0);
    int x = 0;
    if (m > 0) {                          // m: a kernel argument, the same for all
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < n) {                    // this work-item's own condition
            if (m > 5) x = 1;             // (false here)
            else out[0] += 1;             // only work-item 0 may get here
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    } else {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[1 + lid] = x;
}
"""
for p in cl.get_platforms():
    ctx = cl.Context(p.get_devices()); q = cl.CommandQueue(ctx)
    for flags in ("", "-cl-opt-disable"):
        k = cl.Kernel(cl.Program(ctx, SRC).build(options=flags), "k")
        for G in (2, 32):
            out = np.zeros(1 + G, np.int32)
            b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
            k(q, (G,), (G,), b, np.int32(1), np.int32(1))
            cl.enqueue_copy(q, out, b); q.finish()
            ok = out[0] == 1 and not out[1:].any()
            print(f"{p.name[:28]:28} {flags or 'default':16} G={G:2}, n=1: out[0] expected 1, "
                  f"got {out[0]}{'' if ok else '  <-- WRONG'}")
