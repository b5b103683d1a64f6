"""NVVM (NVRTC 13.0 and 13.5) narrows a 64-bit sum of sign-extended 32-bit values into
one 32-bit dp2a (docs/findings.md, nvvm-dp2a-narrows-sum): with c = INT_MAX, a = {1, 0},
`(long long)c + (long long)(a[0] * 5) + (long long)(a[1] * 9)` is 2147483652, but the
PTX computes `dp2a.lo.s32.u32` (a 32-bit accumulate, which wraps) and sign-extends it:
-2147483644. Prints NVRTC's PTX for the sum; with CuPy and a GPU, also runs it.
Needs: pip install cuda-bindings nvidia-cuda-nvrtc (and cupy-cuda13x to run it)."""

from cuda.bindings import nvrtc

SRC = r"""
extern "C" __global__ void k(const short* a, int c, long long* out) {
    int p = a[0] * 5;   /* 5: no int overflow */
    int q = a[1] * 9;   /* 0 */
    out[0] = (long long)c + (long long)p + (long long)q;   /* 64-bit: 2147483652 */
}
"""

err, prog = nvrtc.nvrtcCreateProgram(SRC.encode(), b"k.cu", 0, [], [])
opts = [b"--gpu-architecture=compute_90"]
(result,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
assert result == nvrtc.nvrtcResult.NVRTC_SUCCESS, result
_, size = nvrtc.nvrtcGetPTXSize(prog)
ptx = b" " * size
nvrtc.nvrtcGetPTX(prog, ptx)
ptx_text = ptx.rstrip(b"\0").decode()
print("NVRTC", ".".join(map(str, nvrtc.nvrtcVersion()[1:])))
for line in ptx_text.splitlines():
    if any(op in line for op in ("dp2a", "cvt.s64", "add.s64", "st.global")):
        print("   ", line.strip())
try:
    import cupy as cp
    import numpy as np

    fn = cp.RawModule(code=SRC).get_function("k")
    a = cp.asarray(np.array([1, 0], dtype=np.int16))
    out = cp.zeros(1, dtype=np.int64)
    fn((1,), (1,), (a, np.int32(2**31 - 1), out))
    print(f"out[0] = {int(out.get()[0])} (expected 2147483652)")
except Exception as e:  # noqa: BLE001 - no CuPy or no GPU: the PTX above is the evidence
    print(f"not run ({type(e).__name__}: {e})")
