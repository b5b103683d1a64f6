"""Intel's OpenCL CPU runtime dies of SIGSEGV (its crash handler printing "PLEASE submit a
bug report") running a kernel whose read of a private array is guarded by a range test
that fails: `s` = -1 never reaches `out[0] = a[s]`. With s = 1 or 4, or built with
-cl-opt-disable, it runs. Work-item 0 leaves early through the second loop's `return`.
Run: no argument (s = -1, the default build: the process dies), or "1", "4", or
"-1 -cl-opt-disable". Needs: pip install numpy pyopencl intel-opencl-rt intel-cmplr-lib-rt."""

import os
import sys
import tempfile
from importlib.metadata import distribution

import numpy as np
import pyopencl as cl

SRC = r"""
__kernel void k(__global int* out, long budget, int s) {
    int a[4];
    long mine = get_local_id(0) != 0 ? budget : 0;
    for (int k = 0; k < 4; k++) a[k] = 0;
    for (long k = 0; k < 4; k++) {
        if (k + 1 > mine) return;
        a[(int)k] = 0;
    }
    if (s < 0 || s >= 4) return;
    out[0] = a[s];
}
"""

files = distribution("intel-opencl-rt").files or []
lib = next(str(f.locate()) for f in files if str(f).endswith("libintelocl.so"))
folder = tempfile.mkdtemp()
with open(os.path.join(folder, "intel.icd"), "w") as f:
    f.write(lib + "\n")
os.environ["OCL_ICD_VENDORS"] = folder
device = next(p for p in cl.get_platforms() if "Intel" in p.name).get_devices()[0]
ctx = cl.Context([device])
queue = cl.CommandQueue(ctx)
s = int(sys.argv[1]) if len(sys.argv) > 1 else -1
options = " ".join(sys.argv[2:])
out = np.full(1, 7, dtype=np.int32)
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
cl.Program(ctx, SRC).build(options=options).k(queue, (32,), (32,), buf, np.int64(100), np.int32(s))
cl.enqueue_copy(queue, out, buf)
print(f"{device.platform.version}, s = {s}, {options or 'default options'}: out = {out.tolist()} "
      f"(expected {[0] if 0 <= s < 4 else [7]})")
