"""Standalone reproducer of pocl-guards-lost-after-conditional-barrier (docs/findings.md):
the two kernels below, each run on PoCL's CPU device in one work-group of 32 for several
n, with and without -cl-opt-disable; expected: out[lid] = 1 and out[32 + lid] = 2 for
every lid < n, nothing else. Needs numpy, pyopencl and a PoCL (pip install numpy
pyopencl pocl-binary-distribution); imports nothing from difftest."""

import numpy as np
import pyopencl as cl

#: the bug's two faces: every work-item makes the stores its condition guards, or none
#: does (the second runs an atomic on local memory before the branch, as a vote would)
KERNELS = {
    "all store": """
__kernel void k(__global int* out, int n) {
    int lid = get_local_id(0);
    if (n > 0) {                        // a kernel argument: the same for every work-item
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < n) out[lid] = 1;
    }
    if (lid < n) out[32 + lid] = 2;
}
""",
    "none stores": """
__kernel void k(__global int* out, int n) {
    __local int V[2];
    int lid = get_local_id(0);
    if (lid == 0) { V[0] = 0; V[1] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < n) atomic_or(V + 1, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (V[0] == 0) {                    // 0 for every work-item: all take it
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < n) out[lid] = 1;
    }
    if (lid < n) out[32 + lid] = 2;
}
""",
}

platform = next(p for p in cl.get_platforms() if "Portable" in p.name)
context = cl.Context(platform.get_devices())
queue = cl.CommandQueue(context)
print(platform.version)
wrong = 0
for face, source in KERNELS.items():
    for flags in ("", "-cl-opt-disable"):
        kernel = cl.Kernel(cl.Program(context, source).build(options=flags), "k")
        for n in (1, 2, 31, 32):
            out = np.zeros(64, np.int32)
            buf = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                            hostbuf=out)
            kernel(queue, (32,), (32,), buf, np.int32(n))
            cl.enqueue_copy(queue, out, buf)
            queue.finish()
            want = [1] * n + [0] * (32 - n) + [2] * n + [0] * (32 - n)
            ok = out.tolist() == want
            wrong += not ok
            print(f"{face!r} kernel, build {flags or '(default)'}, n = {n}: " + (
                "right" if ok else
                f"WRONG: {int((out != 0).sum())} stores made, {2 * n} expected"))
raise SystemExit(1 if wrong else 0)
