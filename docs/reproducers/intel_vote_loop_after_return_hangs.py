"""The lead intel-vote-loop-after-return-hangs (docs/findings.md): a kernel whose every
work-item returns after one subgroup vote never finishes, when the code after that
return (which none runs) calls a voting helper in a loop and once more after it.

One work-group of 32, all active (n = 32: the kernel's guard returns none, and control
flow is uniform throughout; without the guard the kernel is right): expected out[lid] = 1
in every work-item. The launch runs in a child process given 30 s; without the loop after
the kernel's call the kernel finishes but stores nothing (a second face, `--no-loop`).
Plain pyopencl and numpy, nothing of difftest; Intel's CPU runtime from pip
(intel-opencl-rt)."""
import os
import subprocess
import sys
import tempfile
from importlib.metadata import distribution

SRC = """
typedef struct { int kind; int depth; int fdepth; int fns[2]; int lns[2]; int gid; int lane; } Ctx;

int vote(__private Ctx* C) { return sub_group_any(C->gid < 2); }

void body(__private Ctx* C) {
    if (sub_group_all(1)) return;                    /* taken by every work-item */
    for (int k = 0; k < C->lane; k++) {              /* never reached */
        C->fns[C->depth] = 0; C->lns[C->depth] = 5; C->depth++;
        vote(C);
        C->depth--;
    }
    C->fns[C->depth] = 0; C->lns[C->depth] = 6; C->depth++;
    vote(C);
    C->depth--;
}

__attribute__((intel_reqd_sub_group_size(32)))
__kernel void k(__global int* out, int n) {
    Ctx c = {0};
    int lane = get_sub_group_local_id();
    if (lane >= n) return;                           /* n = 32: none returns here */
    c.gid = lane; c.lane = lane;
    body(&c);
    out[lane] = 1 + c.kind;
    LOOP
}
"""
LOOP = "for (int i = 0; i < c.fdepth; i++) out[32 + i] = c.fns[i] + c.lns[i];"


def child(loop: bool) -> None:
    lib = next(str(f.locate()) for f in distribution("intel-opencl-rt").files or []
               if str(f).endswith("libintelocl.so"))
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "intel.icd"), "w") as f:
        f.write(os.path.realpath(lib) + "\n")
    os.environ.setdefault("OCL_ICD_VENDORS", folder)
    import numpy as np
    import pyopencl as cl

    platform = [p for p in cl.get_platforms() if "Intel" in p.name][0]
    ctx = cl.Context(platform.get_devices())
    q = cl.CommandQueue(ctx)
    src = SRC.replace("LOOP", LOOP if loop else "")
    k = cl.Program(ctx, src).build(cache_dir=False).k
    out = np.full(64, -1, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    print(f"{platform.name} {platform.version}: built", flush=True)
    k(q, (32,), (32,), buf, np.int32(32))
    cl.enqueue_copy(q, out, buf)
    q.finish()
    stored = int((out[:32] == 1).sum())
    print(f"{stored} of 32 work-items stored 1 (expected 32)")


if __name__ == "__main__":
    loop = "--no-loop" not in sys.argv
    if "--child" in sys.argv:
        child(loop)
        sys.exit()
    try:
        done = subprocess.run([sys.executable, __file__, "--child"] + sys.argv[1:],
                              capture_output=True, text=True, timeout=30)
        print(done.stdout, end="")
        sys.exit(0 if "32 of 32" in done.stdout else 1)
    except subprocess.TimeoutExpired as e:
        print((e.stdout or b"").decode(), end="")
        print("no answer in 30 s: the kernel never finishes")
        sys.exit(1)
