// nvidia-sext-shift through CUDA 13.0's ptxas (docs/findings.md): the high word of
// t * 2^31 comes out as (lo * 2^31 >> 32) + hi * 2^31 - lo, one `- lo` too many.
// t = -836: t * 2^31 = -1795296362496 < 0, so out[0] must be -1 (out[1]: 0).
// On an H200 with CUDA 13.0 (V13.0.88):
//   nvcc -arch=sm_90 -o r ptxas_sext_shift.cu && ./r              -> out[0]=0  (wrong)
//   nvcc -arch=sm_90 -Xptxas -O0 -o r ptxas_sext_shift.cu && ./r  -> out[0]=-1
// The same source through the kernel-only path shows the SASS without a GPU:
//   nvcc -arch=sm_90 -cubin -o k.cubin ptxas_sext_shift.cu && nvdisasm -c k.cubin
// gives `IMAD.HI.U32 R9, R4, -0x80000000, RZ` ... `IADD3 R9, R9, -R4, R0` (13.0);
// CUDA 13.5's ptxas writes `IMAD.IADD R9, R9, 0x1, R0` there (right).
#include <cstdio>

extern "C" __global__ void k(long long t, long long* out) {
    unsigned m0 = __ballot_sync(0x1u, threadIdx.x < 1);
    int lane = threadIdx.x;
    if ((int)blockIdx.x >= 0) {
        long long t3 = (long long)((unsigned long long)t * 2147483648ULL);
        unsigned a4 = __ballot_sync(m0, 1);
        unsigned long long r5 = 0;
        for (int j6 = 0; j6 < 1; j6++) {
            long long v7 = __shfl_sync(a4, t3, j6);
            if (((a4 >> j6) & 1u) != 0u && j6 <= lane) r5 += (unsigned long long)v7;
        }
        out[0] = (long long)r5 < 0 ? -1 : 0;
    }
    long long t24 = (long long)((unsigned long long)t * 2147483648ULL);
    unsigned a25 = __ballot_sync(m0, 1);
    int src = lane ^ 1;
    bool ok = src < 1 && ((a25 >> src) & 1u) != 0u;
    long long t28 = __shfl_sync(a25, t24, ok ? src : lane);
    out[1] = ok ? t28 : 0;
}

int main() {
    long long* d;
    long long h[2] = {7, 7};
    cudaMalloc(&d, sizeof h);
    k<<<1, 1>>>(-836LL, d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("out[0]=%lld (expected -1) out[1]=%lld (expected 0) [%s]\n", h[0], h[1],
           cudaGetErrorString(e));
    return h[0] == -1 && h[1] == 0 ? 0 : 1;
}
