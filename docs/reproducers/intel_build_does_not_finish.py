"""intel-build-does-not-finish (docs/findings.md): Intel's OpenCL CPU compiler does not
finish building an 80-line kernel (difftest's translation of a generated kernel, reduced
by hand): a counted loop whose counter feeds a subgroup reduction, then a loop whose exit
differs by lane holding a loop with a 64-bit atomic max of a non-uniform subgroup
reduction and a clustered reduction. With -cl-opt-disable it builds in 0.13 CPU s, and
with CL_CONFIG_CPU_TARGET_ARCH=corei7 in 0.14 s; by default (AVX-512 here) and with
core-avx2 it does not finish.

usage: python intel_build_does_not_finish.py [SECONDS] [extra build flags...]
(default 600 s; the build runs in a child process, killed at the limit). Plain pyopencl,
nothing of difftest; Intel's CPU runtime from pip (intel-opencl-rt).
CL_CONFIG_CPU_TARGET_ARCH picks the instruction set."""

import multiprocessing as mp, os, sys, tempfile, time

LIMIT_S = 600
SRC = r"""
typedef struct {
    int gid; int lane; int wave; long trips; long budget;
} Ctx;
void f_kernel(__private Ctx* C, __global int* v_inp, long n_inp, __global int* v_out, long n_out, __global ulong* v_acc, long n_acc, __global int* v_ctr, long n_ctr, __global int* v_lst, long n_lst, __global uint* v_uacc, long n_uacc, __global float* v_fin, long n_fin, __global float* v_fout, long n_fout, __global uchar* v_tin, long n_tin, __global uint* v_tout, long n_tout, int v_s, int v_flag, uchar v_tv) {
    int v_g = (0);
    float v_f1 = (0x0.0p+0f);
    ulong v_x3 = (0UL);
    int v_k4 = (0);
    int v_x5 = (0);
    int v_x6 = (0);
    int v_c7 = (0);
    int v_c8 = (0);
    ulong v_x9 = (0UL);
    ulong v_x10 = (0UL);
    ulong t15 = 100UL ^ 9223372036854775808UL; ulong t33 = 0UL;
    long k35_stop = ((long)((2)));
    for (long k35 = ((long)((0))); k35 < k35_stop; k35++) {
        v_k4 = ((int)(uint)(ulong)(k35));
        int t36 = (((int)(uint)(ulong)(n_inp)) == (2));
        float s41 = (0x0.0p+0f);
        int t48 = ((int)(s41));
        int t49 = ((int)(((uint)(v_g)) * ((uint)((2)))));
        int t50 = v_out[t49];
        int t51 = ((int)(((uint)(t50)) + ((uint)(v_x5))));
        int t52 = ((int)(((uint)(v_x6)) * ((uint)((3)))));
    }
    v_c7 = (0);
    for (;;) {
        int t55 = ((int)(((uint)(v_c7)) + ((uint)((1)))));
        v_c7 = t55;
        int t56 = ((v_s < (0)) ? ((int)(((uint)((0))) - ((uint)(v_s)))) : v_s);
        int t57 = ((int)(((uint)(C->lane)) + ((uint)(t56))));
        int t58 = t57 & (7);
        int t59 = (v_c7 > t58);
        if (t59) {
            break;
        }
        for (;;) {
            int t60 = ((int)(((uint)(v_c8)) + ((uint)((1)))));
            v_c8 = t60;
            int t61 = (v_c8 > (3));
            if (t61) {
                break;
            }
            int t62 = C->wave & (255);
            int s63 = (0);
            ulong t64 = ((ulong)(v_k4));
            ulong t65 = ((ulong)sub_group_non_uniform_reduce_add(((ulong)t64)));
            ulong t66 = ((ulong)atom_max((volatile __global ulong*)(v_acc + s63), (ulong)(t65)));
            int t70 = ((int)sub_group_clustered_reduce_add(((uint)v_c8), 1u));
            int t74 = ((int)(((uint)(v_g)) * ((uint)((2)))));
            int t75 = v_out[t74];
            int t76 = ((int)(v_x9));
            int t77 = ((int)(((uint)(t75)) + ((uint)(t76))));
            int t78 = ((int)(((uint)(v_g)) * ((uint)((2)))));
        }
        float t90 = v_fin[v_g];
        v_f1 = t90;
        int t91 = ((int)(((uint)(v_g)) * ((uint)((2)))));
        int t92 = v_out[t91];
        int t93 = ((int)(((uint)(t92)) + ((uint)(v_c8))));
        int t94 = ((int)(v_x10));
        int t95 = ((int)(((uint)(t94)) * ((uint)((3)))));
        int t96 = ((int)(((uint)(t93)) + ((uint)(t95))));
    }
}

__attribute__((reqd_work_group_size(4, 1, 1)))
__attribute__((intel_reqd_sub_group_size(4)))
__kernel void k_kernel(__global long* ST, long N, long BUDGET, __global int* v_inp, long n_inp, __global int* v_out, long n_out, __global ulong* v_acc, long n_acc, __global int* v_ctr, long n_ctr, __global int* v_lst, long n_lst, __global uint* v_uacc, long n_uacc, __global float* v_fin, long n_fin, __global float* v_fout, long n_fout, __global uchar* v_tin, long n_tin, __global uint* v_tout, long n_tout, int v_s, int v_flag, uchar v_tv) {
    Ctx ctx = {0};
    __private Ctx* C = &ctx;
    int lane = (int)get_sub_group_local_id();
    int wave = (int)get_group_id(0);
    if (get_sub_group_size() != 4 || get_num_sub_groups() != 1) { atom_inc((volatile __global long*)ST); return; }
    long gid = (long)wave * 4 + lane;
    f_kernel(C, v_inp, n_inp, v_out, n_out, v_acc, n_acc, v_ctr, n_ctr, v_lst, n_lst, v_uacc, n_uacc, v_fin, n_fin, v_fout, n_fout, v_tin, n_tin, v_tout, n_tout, v_s, v_flag, v_tv);
    if (gid >= N) return;
    __global long* r = ST + 2 + gid * 5;
}
"""

FLAGS = "-w"   # what difftest's opencl-intel target passes (opt=on)

def ensure_icd():
    if os.environ.get("OCL_ICD_VENDORS"):
        return
    from importlib.metadata import distribution
    lib = next(str(f.locate()) for f in distribution("intel-opencl-rt").files
               if str(f).endswith("libintelocl.so"))
    d = tempfile.mkdtemp()
    open(os.path.join(d, "intel.icd"), "w").write(os.path.realpath(lib) + "\n")
    os.environ["OCL_ICD_VENDORS"] = d

def child(src, flags, q):
    import pyopencl as cl
    plat = next(p for p in cl.get_platforms() if "intel" in p.name.lower())
    dev = plat.get_devices()[0]
    q.put(f"platform {plat.name!r}, device {dev.name!r}, driver {dev.driver_version}, "
          f"flags {flags!r}, CL_CONFIG_CPU_TARGET_ARCH={os.environ.get('CL_CONFIG_CPU_TARGET_ARCH')}")
    prog = cl.Program(cl.Context([dev]), src)
    c0 = time.process_time()
    try:
        prog.build(options=flags, cache_dir=False)
        q.put(f"BUILT in {time.process_time() - c0:.2f} CPU s")
    except cl.RuntimeError as e:
        q.put(f"BUILD ERROR: {e}\n{prog.get_build_info(dev, cl.program_build_info.LOG)}")

if __name__ == "__main__":
    ensure_icd()
    if len(sys.argv) > 1:
        LIMIT_S = float(sys.argv[1])
    flags = " ".join([FLAGS] + sys.argv[2:])
    q = mp.get_context("spawn").Queue()
    p = mp.get_context("spawn").Process(target=child, args=(SRC, flags, q))
    t0 = time.time(); p.start(); p.join(LIMIT_S)
    msgs = []
    while not q.empty(): msgs.append(q.get())
    print("\n".join(msgs))
    if p.is_alive():
        p.kill(); p.join()
        print(f"clBuildProgram did not finish within {LIMIT_S} s wall (child killed)")
        sys.exit(3)
    print(f"wall {time.time() - t0:.1f} s (including process start)")
    sys.exit(0 if msgs and msgs[-1].startswith("BUILT") else 1)
