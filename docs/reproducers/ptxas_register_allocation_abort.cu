struct Ctx {
    int kind; long long code; int depth; int fdepth;
    int fns[3]; int lns[3];
    int gid; int lane; int wave; long long trips; long long budget;
    int local_id; int group_id; int group_size;
};
__device__ int f_h0(Ctx* C, unsigned m0, int* v_b, long long n_b, int v_a, int v_x) {
    bool ret = false;
    int rv = (0);
    rv = (0);
    ret = true;
    return rv;
}

__device__ void f_hv(Ctx* C, unsigned m0, long long* v_o, long long n_o, int v_v, int* v_b, long long n_b, long long* v_r, long long n_r) {
    int v_x14 = (0);
    int v_x15 = (0);
    v_x14 = (0);
    v_x15 = (0);
    int t1 = ((int)(((unsigned int)(C->gid)) * ((unsigned int)((2)))));
    int t2 = ((int)(((unsigned int)(t1)) + ((unsigned int)((1)))));
    if (t2 < (0) || ((long long)(t2)) >= n_o) {
        C->kind = 1; C->code = (0LL); C->fns[C->depth] = 1; C->lns[C->depth] = 12; C->fdepth = C->depth + 1; return;
    }
    long long t3 = v_o[t2];
    unsigned a4 = __ballot_sync(m0, 1);
    int r5 = (0);
    for (int j6 = 0; j6 < 32; j6++) {
        int v7 = __shfl_sync(a4, (0), j6);
        if ((((a4) >> j6) & 1u) != 0u && (j6 & -4) == (C->lane & -4) && v7 > r5) { r5 = v7; }
    }
    C->fns[C->depth] = 1; C->lns[C->depth] = 12; C->depth = C->depth + 1;
    int t8 = f_h0(C, m0, v_b, n_b, r5, (0));
    C->depth = C->depth - 1;
    if (C->kind != 0) { return; }
    long long t9 = ((long long)(((unsigned long long)(t3)) + ((unsigned long long)(((long long)(t8))))));
    int t10 = ((int)(((unsigned int)(C->gid)) * ((unsigned int)((2)))));
    int t11 = ((int)(((unsigned int)(t10)) + ((unsigned int)((1)))));
    if (t11 < (0) || ((long long)(t11)) >= n_o) {
        C->kind = 1; C->code = (0LL); C->fns[C->depth] = 1; C->lns[C->depth] = 12; C->fdepth = C->depth + 1; return;
    }
    v_o[t11] = t9;
}

__device__ void f_kernel(Ctx* C, unsigned m0, int* v_inp, long long n_inp, long long* v_out, long long n_out, long long* v_acc, long long n_acc, int v_s) {
    int v_x1 = (0);
    int v_x2 = (0);
    int v_x10 = (0);
    v_x1 = (0);
    C->fns[C->depth] = 0; C->lns[C->depth] = 3; C->depth = C->depth + 1;
    f_hv(C, m0, v_out, n_out, (0), v_inp, n_inp, v_acc, n_acc);
    C->depth = C->depth - 1;
    if (C->kind != 0) { return; }
    v_x2 = (0);
    unsigned a1 = __ballot_sync(m0, 1);
    int r2 = (1);
    for (int j3 = 0; j3 < 32; j3++) {
        int v4 = __shfl_sync(a1, (1), j3);
        if ((((a1) >> j3) & 1u) != 0u) { r2 = r2 & (int)v4; }
    }
    v_x10 = r2;
    if ((0) < (0) || ((long long)((0))) >= n_out) {
        C->kind = 1; C->code = (0LL); C->fns[C->depth] = 0; C->lns[C->depth] = 6; C->fdepth = C->depth + 1; return;
    }
    v_out[(0)] = ((long long)(v_x10));
}

extern "C" __global__ void k_kernel(long long* ST, long long N, long long BUDGET, int* v_inp, long long n_inp, long long* v_out, long long n_out, long long* v_acc, long long n_acc, int v_s) {
    Ctx ctx = {};
    Ctx* C = &ctx;
    int lane = (int)(threadIdx.x % 32u);
    int wave = (int)blockIdx.x * 1 + (int)(threadIdx.x / 32u);
    if (blockDim.x != 32u) { atomicAdd((unsigned long long*)ST, 1ull); return; }
    long long gid = (long long)wave * 32 + lane;
    unsigned m0 = __ballot_sync(0xffffffffu, gid < N);
    if (gid >= N) return;  // an exited thread holds no barrier up
    C->gid = (int)gid; C->lane = lane; C->wave = wave; C->budget = BUDGET;
    f_kernel(C, m0, v_inp, n_inp, v_out, n_out, v_acc, n_acc, v_s);
    if (gid >= N) return;
    long long* r = ST + 2 + gid * 9;
    r[0] = C->kind; r[1] = C->code; r[2] = C->fdepth;
    for (int i = 0; i < C->fdepth; i++) { r[3 + 2 * i] = C->fns[i]; r[4 + 2 * i] = C->lns[i]; }
}
