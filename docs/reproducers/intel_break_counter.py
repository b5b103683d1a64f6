"""intel-break-counter-from-another-work-item (docs/findings.md, open lead): after a loop
that one work-item leaves by `break`, a work-item that ran the loop to its end stores the
counter the first one left with.

One work-group of 2 work-items, which Intel's runtime makes one subgroup of 2 (lane =
get_sub_group_local_id() is 0 and 1; the kernel reports get_sub_group_size() and
get_num_sub_groups()). Work-item 0 (lane 0) leaves the loop by `break` in trip 0 with
last = 0 and stores out[0] = 0 + 10 = 10. Work-item 1 runs both trips (storing 71 into
its own out[1] in each) and leaves with last = 1: it must store out[1] = 11.
Expected out = [10, 11]; Intel's runtime stores [10, 10] (CL_CONFIG_CPU_TARGET_ARCH
corei7, core-avx2 and skx alike); with -cl-opt-disable it stores [10, 11]. Every other
branch under a condition (the two bounds checks, `if (c.fail)`) is never taken; no
subgroup collective function is called anywhere (get_sub_group_local_id,
get_sub_group_size and get_num_sub_groups are work-item functions).

Plain pyopencl and numpy, nothing of difftest; Intel's CPU runtime from pip
(intel-opencl-rt). Arguments: build options to try (default: the default build);
CL_CONFIG_CPU_TARGET_ARCH picks the instruction set."""
import os, sys, tempfile
from importlib.metadata import distribution

lib = next(str(f.locate()) for f in distribution("intel-opencl-rt").files or []
           if str(f).endswith("libintelocl.so"))
d = tempfile.mkdtemp()
open(os.path.join(d, "intel.icd"), "w").write(os.path.realpath(lib) + "\n")
os.environ.setdefault("OCL_ICD_VENDORS", d)
import numpy as np, warnings
warnings.simplefilter("ignore")
import pyopencl as cl

SRC = """
typedef struct { int fail; int line[2]; int lane; } Ctx;

void body(__private Ctx* C, __global int* out, long n) {
    int last = 0;
    for (int k = 0; k < 2; k++) {
        last = k;
        if (C->lane < 1) {                              /* work-item 0, trip 0 */
            if (0 >= n) { C->fail = 1; return; }        /* never taken: n = 2 */
            break;
        }
        int v = 70 + (int)get_local_id(0);              /* 71 */
        if (C->lane < 2) out[C->lane] = v;
    }
    if (C->lane < 0 || C->lane >= n) { C->fail = 1; return; }   /* never taken */
    out[C->lane] = last + 10;                           /* 10, and 11 */
}

__kernel void k(__global int* out, __global long* st, int n) {
    Ctx c = {0};
    int lane = get_sub_group_local_id();
    c.lane = lane;
    body(&c, out, n);
    if (lane >= 2) return;
    st[lane] = c.fail;                                  /* 0 */
    if (c.fail) st[2] = c.line[lane];                   /* never taken */
    st[4 + lane] = get_sub_group_size() * 100 + get_num_sub_groups();
}
"""

platform = [p for p in cl.get_platforms() if "Intel" in p.name][0]
ctx = cl.Context(platform.get_devices())
q = cl.CommandQueue(ctx)
mf = cl.mem_flags
arch = os.environ.get("CL_CONFIG_CPU_TARGET_ARCH", "the CPU's")
for flags in sys.argv[1:] or [""]:
    k = cl.Program(ctx, SRC).build(options=flags, cache_dir=False).k
    out = np.full(2, -1, np.int32)
    st = np.full(8, -1, np.int64)
    bo = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    bs = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=st)
    k(q, (2,), (2,), bo, bs, np.int32(2))
    cl.enqueue_copy(q, out, bo)
    cl.enqueue_copy(q, st, bs)
    q.finish()
    sizes = st[4:6].tolist()
    if sizes != [201, 201] or st[:2].tolist() != [0, 0]:
        print(f"not one subgroup of 2 (size * 100 + count: {sizes}, fail flags "
              f"{st[:2].tolist()}): the case does not apply")
        continue
    got, want = out.tolist(), [10, 11]
    print(f"{platform.name} {platform.version}, arch {arch}, build {flags or 'default'!r}: "
          f"out = {got}{'' if got == want else f'  <-- WRONG, expected {want}'}")
