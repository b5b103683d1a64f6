"""intel-break-counter-from-another-work-item (docs/findings.md, open lead), its second
witness (met by an opencl-intel campaign, reduced by hand from its export): after a loop that some work-items leave by `break` in its first trip while
another takes `continue` in every trip and runs it to its end, that work-item stores the
loop-carried value the others left with -- when the loop also counts its trips in a
private array that stays in memory.

One work-group of 8 work-items, one subgroup of 8 (intel_reqd_sub_group_size(8): without
it corei7 makes two subgroups of 4; the kernel reports get_sub_group_size() and
get_num_sub_groups(); g = get_sub_group_local_id() is 0..7); lanes 5-7 return at once.
s = 3, so the loop runs k1 = 1, 2. Lanes 0-3 are not > 3: they set
k2 = 1 and leave by `break` in trip 1 (k2 < n, n = 5), storing out[g] = 1.
Lane 4 takes `continue` in both trips and leaves the loop at its end with k2 = 2: it must
store out[4] = 2. The trip counter c[1] counts 1 or 2 trips and never exceeds 100000, so
its `return` is never taken; c[n - 5] is c[0], which is 0 (read with a run-time index, it
keeps c in memory).
Expected out = [1, 1, 1, 1, 2]; Intel's runtime stores [1, 1, 1, 1, 1] (the value the
work-items that left by `break` carried); with -cl-opt-disable it stores [1, 1, 1, 1, 2];
CL_CONFIG_CPU_TARGET_ARCH corei7, core-avx2 and skx alike.

Nothing in it is left undefined: every variable is initialised, every index is in range
(c[1], c[n - 5] = c[0], out[0..4], info[0..7]), each work-item writes only its own
elements, and get_sub_group_local_id, get_sub_group_size, get_num_sub_groups and
get_local_id are work-item functions, not subgroup collectives.

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
__attribute__((intel_reqd_sub_group_size(8)))
__kernel void k(__global int* out, int n, int s, __global int* info) {
    int c[2] = {0, 0};
    int g = get_sub_group_local_id();
    info[get_local_id(0)] = get_sub_group_size() * 100 + get_num_sub_groups();
    if (g >= 5) return;                         /* lanes 5-7 */
    int k2 = 0;
    for (int k1 = 1; k1 < s; k1++) {            /* s = 3: k1 = 1, 2 */
        c[1]++;
        if (c[1] > 100000) return;              /* never taken */
        k2 = k1;
        if (g > 3) continue;                    /* lane 4, both trips */
        if (k2 < n) break;                      /* lanes 0-3, trip 1 */
    }
    out[g] = k2 + c[n - 5];                     /* c[0] = 0: 1, and 2 for lane 4 */
}
"""

platform = [p for p in cl.get_platforms() if "Intel" in p.name][0]
ctx = cl.Context(platform.get_devices())
q = cl.CommandQueue(ctx)
mf = cl.mem_flags
arch = os.environ.get("CL_CONFIG_CPU_TARGET_ARCH", "the CPU's")
for flags in sys.argv[1:] or [""]:
    k = cl.Program(ctx, SRC).build(options=flags, cache_dir=False).k
    out = np.full(5, -1, np.int32)
    info = np.full(8, -1, np.int32)
    bo = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    bi = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=info)
    k(q, (8,), (8,), bo, np.int32(5), np.int32(3), bi)
    cl.enqueue_copy(q, out, bo)
    cl.enqueue_copy(q, info, bi)
    q.finish()
    if info.tolist() != [801] * 8:
        print(f"not one subgroup of 8 (size * 100 + count: {info.tolist()}): "
              "the case does not apply")
        continue
    got, want = out.tolist(), [1, 1, 1, 1, 2]
    print(f"{platform.name} {platform.version}, arch {arch}, build {flags or 'default'!r}: "
          f"out = {got}{'' if got == want else f'  <-- WRONG, expected {want}'}")
