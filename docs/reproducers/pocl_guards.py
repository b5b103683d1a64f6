"""Standalone reproducer of pocl-guards-lost-after-conditional-barrier (docs/findings.md):
the kernel below, run on PoCL's CPU device in one work-group of 32 for several n, with
and without -cl-opt-disable. Needs numpy, pyopencl and a PoCL (pip install numpy
pyopencl pocl-binary-distribution); imports nothing from difftest."""

import numpy as np
import pyopencl as cl

KERNEL = """
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
"""

platform = next(p for p in cl.get_platforms() if "Portable" in p.name)
context = cl.Context(platform.get_devices())
queue = cl.CommandQueue(context)
print(platform.version)
wrong = 0
for flags in ("", "-cl-opt-disable"):
    kernel = cl.Kernel(cl.Program(context, KERNEL).build(options=flags), "k")
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
        print(f"build {flags or '(default)'}, n = {n}: " + (
            "right" if ok else f"WRONG: {int((out != 0).sum())} stores made, {2 * n} expected"))
raise SystemExit(1 if wrong else 0)
