"""Intel's OpenCL CPU compiler aborts ("UNREACHABLE executed: Scalar
sub_group_ballot_bit_count execution breaks subgroup semantics!") when
sub_group_ballot_bit_count is given a value the same in every work-item (a kernel
argument, or a constant); a value that differs per work-item builds and runs, and so does
the uniform one with -cl-opt-disable. Run with no argument: the default build of the
uniform kernel (the process dies of SIGABRT); with "varying" or "-cl-opt-disable": the two
that work. Needs: pip install numpy pyopencl intel-opencl-rt intel-cmplr-lib-rt."""

import os
import sys
import tempfile
from importlib.metadata import distribution

import numpy as np
import pyopencl as cl

SRC = r"""
#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
__attribute__((intel_reqd_sub_group_size(8)))
__kernel void k(__global int* out, uint v) {
    out[get_global_id(0)] = (int)sub_group_ballot_bit_count((uint4)(VALUE, 0u, 0u, 0u));
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
how = sys.argv[1] if len(sys.argv) > 1 else ""
value = "(uint)get_global_id(0)" if how == "varying" else "v"
options = "-cl-opt-disable" if how == "-cl-opt-disable" else ""
out = np.zeros(8, dtype=np.int32)
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
cl.Program(ctx, SRC.replace("VALUE", value)).build(options=options).k(
    queue, (8,), (8,), buf, np.uint32(0xFF))
cl.enqueue_copy(queue, out, buf)
print(f"{device.platform.version}, value {value}, {options or 'default options'}: "
      f"{out.tolist()}")
print("expected: [8] * 8 for v = 0xFF; the bits of each work-item's id counted for "
      "the varying one")
