"""intel-o0-clustered-reduce (docs/findings.md): built with -cl-opt-disable, Intel's
cl_khr_subgroup_clustered_reduce functions give every work-item of the subgroup the
result of the first cluster, in uniform control flow (no branch, no return, every
work-item of the subgroup there).

One work-group of SG work-items, one subgroup (intel_reqd_sub_group_size(SG); the kernel
reports get_sub_group_size() * 100 + get_num_sub_groups() to show it); a[g] = g + 1;
out[g] = sub_group_clustered_reduce_add(a[g], C): the sum over the C consecutive
work-items of g's cluster. For SG = 8, C = 2 the expected out is
[3, 3, 7, 7, 11, 11, 15, 15]; Intel's runtime at -cl-opt-disable stores
[3, 3, 3, 3, 3, 3, 3, 3] (min and the bitwise ones alike, C = 1 included: every
work-item gets work-item 0's value); the default build is right. A cluster as wide as the
subgroup is right in both builds (there is only the first cluster).

Nothing in it is left undefined: every index is in range, each work-item writes only its
own elements, the cluster size is a compile-time power of two no larger than the
subgroup, and every work-item of the subgroup reaches the call.

Plain pyopencl and numpy, nothing of difftest; Intel's CPU runtime from pip
(intel-opencl-rt). Arguments: build options to try (default: the default build and
-cl-opt-disable)."""
import functools, os, sys, tempfile
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
#pragma OPENCL EXTENSION cl_khr_subgroup_clustered_reduce : enable
__attribute__((intel_reqd_sub_group_size(SG)))
__kernel void k(__global const int* a, __global int* out, __global int* info) {
    int g = get_sub_group_local_id();
    info[get_local_id(0)] = get_sub_group_size() * 100 + get_num_sub_groups();
    out[g] = sub_group_clustered_reduce_OP(a[g], Cu);
}
"""
OPS = {"add": sum, "min": min, "xor": lambda xs: functools.reduce(lambda x, y: x ^ y, xs)}

platform = [p for p in cl.get_platforms() if "Intel" in p.name][0]
ctx = cl.Context(platform.get_devices())
q = cl.CommandQueue(ctx)
mf = cl.mem_flags
print(platform.name, platform.version)
for flags in sys.argv[1:] or ["", "-cl-opt-disable"]:
    for sg, c, op in ((8, 2, "add"), (8, 4, "min"), (16, 1, "xor"), (8, 8, "add")):
        src = SRC.replace("SG", str(sg)).replace("OP", op).replace("Cu", f"{c}u")
        k = cl.Program(ctx, src).build(options=flags, cache_dir=False).k
        a = np.arange(1, sg + 1, dtype=np.int32)
        out = np.full(sg, -1, np.int32)
        info = np.full(sg, -1, np.int32)
        bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=h) for h in (a, out, info)]
        k(q, (sg,), (sg,), *bufs)
        cl.enqueue_copy(q, out, bufs[1])
        cl.enqueue_copy(q, info, bufs[2])
        q.finish()
        if info.tolist() != [sg * 100 + 1] * sg:
            print(f"not one subgroup of {sg} ({info.tolist()}): the case does not apply")
            continue
        want = [OPS[op](a[g // c * c:g // c * c + c].tolist()) for g in range(sg)]
        got = out.tolist()
        print(f"build {flags or 'default'!r}, subgroup {sg}, {op} in clusters of {c}: "
              f"out = {got}{'' if got == want else f'  <-- WRONG, expected {want}'}")
