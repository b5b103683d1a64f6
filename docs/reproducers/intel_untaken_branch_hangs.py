"""Reduced reproducer: Intel OpenCL CPU runtime 2026.2.0 (pip intel-opencl-rt) -- a kernel
whose every work-item skips the body of a loop by `continue` (sub_group_non_uniform_all_equal(0)
is true) never finishes.  One work-group of 16, all 16 work-items active (uniform control flow
everywhere).  Expected: out[0..15] = 1.

usage: python3 reduced.py [BUILD_OPTIONS]    (CL_CONFIG_CPU_TARGET_ARCH picks the target)
       The kernel carries reqd_work_group_size(16,1,1) and intel_reqd_sub_group_size(16);
       NOREQD=1 leaves both out (then core-avx2/corei7 pick subgroups of 8/4 and finish).
The launch runs in a child process killed after 30 s.  pyopencl + numpy only."""
import os, subprocess, sys, tempfile

SRC = r"""
typedef struct {
    int kind; int depth; int fdepth;
    int fns[2]; int lns[2];
    int lane; int gid;
} Ctx;

void f_kernel(__private Ctx* C, long n) {
    for (int i = 0; i < 7; i++) {
        if (sub_group_non_uniform_all_equal(0)) continue;   /* true: every trip continues */
        int v = sub_group_non_uniform_all(C->lane >= 3);     /* never reached (unused) */
        int g = C->gid + C->gid;
        int t = C->lane + sub_group_non_uniform_reduce_add(0);
        for (long k = t; k < 3; k++) {
            sub_group_non_uniform_any(1);
        }
        int a = sub_group_non_uniform_all(C->lane > -1);
        if (g >= n) {                                         /* n = 404: never taken */
            C->kind = 1; C->fns[C->depth] = 1; C->lns[C->depth] = 17; C->fdepth = C->depth + 1;
        }
    }
}
ATTR
__kernel void k_kernel(__global int* out, long n) {
    Ctx ctx = {0};
    f_kernel(&ctx, n);
    int l = get_local_id(0);
    out[l] = 1 + ctx.kind;
    out[16 + l] = get_sub_group_size() * 100 + get_num_sub_groups();
    out[32 + l] = get_max_sub_group_size();
}
"""
ATTR = ("__attribute__((reqd_work_group_size(16, 1, 1)))\n"
        "__attribute__((intel_reqd_sub_group_size(16)))")


def child(flags):
    from importlib.metadata import distribution
    lib = next(str(f.locate()) for f in distribution("intel-opencl-rt").files or []
               if str(f).endswith("libintelocl.so"))
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "intel.icd"), "w") as f:
        f.write(os.path.realpath(lib) + "\n")
    os.environ.setdefault("OCL_ICD_VENDORS", d)
    import warnings; warnings.simplefilter("ignore")
    import numpy as np, pyopencl as cl
    p = [p for p in cl.get_platforms() if "Intel" in p.name][0]
    dev = p.get_devices()[0]
    ctx = cl.Context([dev]); q = cl.CommandQueue(ctx)
    src = SRC.replace("ATTR", "" if os.environ.get("NOREQD") else ATTR)
    k = cl.Program(ctx, src).build(options=flags, cache_dir=False).k_kernel
    info = cl.kernel_sub_group_info
    print(f"{p.name} {p.version}: {dev.name}; built with {flags!r}, "
          f"CL_CONFIG_CPU_TARGET_ARCH={os.environ.get('CL_CONFIG_CPU_TARGET_ARCH', '(default)')}; "
          f"host says max subgroup size {k.get_sub_group_info(dev, info.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (16,))}, "
          f"{k.get_sub_group_info(dev, info.SUB_GROUP_COUNT_FOR_NDRANGE, (16,))} subgroup(s)", flush=True)
    out = np.full(48, -1, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    k(q, (16,), (16,), buf, np.int64(404))
    cl.enqueue_copy(q, out, buf); q.finish()
    print(f"FINISHED: out[0:16] = {out[:16].tolist()} (expected all 1); "
          f"sub_group_size*100+num_sub_groups = {sorted(set(out[16:32].tolist()))}, "
          f"max_sub_group_size = {sorted(set(out[32:48].tolist()))}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(" ".join(sys.argv[2:]))
        sys.exit()
    try:
        r = subprocess.run([sys.executable, __file__, "--child"] + sys.argv[1:],
                           capture_output=True, text=True, timeout=30)
        print(r.stdout + r.stderr[-2000:], end="")
        sys.exit(0 if "FINISHED" in r.stdout and "[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]" in r.stdout else 1)
    except subprocess.TimeoutExpired as e:
        print((e.stdout or b"").decode(), end="")
        print("NEVER FINISHED: no answer in 30 s")
        sys.exit(1)
