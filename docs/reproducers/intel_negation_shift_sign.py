"""Intel's OpenCL CPU compiler: the sign of a wrapping negation, `as_long(0UL -
as_ulong(t)) >> 63`, is 0 for t = LONG_MIN at the default optimisation level (the
negation of LONG_MIN wraps to LONG_MIN itself, whose sign is -1), while the same value
shifted by a run-time 63, and the same kernel built with -cl-opt-disable, give -1.
Needs: pip install numpy pyopencl intel-opencl-rt intel-cmplr-lib-rt."""

import os
import tempfile
from importlib.metadata import distribution

import numpy as np
import pyopencl as cl

SRC = r"""
__kernel void k(__global long* out, long t, long s) {
    long n = as_long(0UL - as_ulong(t));  /* -t, wrapping: LONG_MIN for t = LONG_MIN */
    out[0] = n >> 63;                     /* its sign bit, shifted in: -1 */
    out[1] = n >> s;                      /* the same with s = 63 at run time: -1 */
    out[2] = n;                           /* LONG_MIN */
}
"""


def intel_platform() -> cl.Platform:
    """Intel's runtime from its wheel, through the ICD loader."""
    files = distribution("intel-opencl-rt").files or []
    lib = next(str(f.locate()) for f in files if str(f).endswith("libintelocl.so"))
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "intel.icd"), "w") as f:
        f.write(lib + "\n")
    os.environ["OCL_ICD_VENDORS"] = folder
    return next(p for p in cl.get_platforms() if "Intel" in p.name)


device = intel_platform().get_devices()[0]
ctx = cl.Context([device])
queue = cl.CommandQueue(ctx)
for options in ("", "-cl-opt-disable"):
    out = np.zeros(3, dtype=np.int64)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    cl.Program(ctx, SRC).build(options=options).k(queue, (1,), None, buf,
                                                  np.int64(-2**63), np.int64(63))
    cl.enqueue_copy(queue, out, buf)
    print(f"{device.platform.version} {options or '(default options)'}: {out.tolist()}")
print("expected: [-1, -1, -9223372036854775808]")
