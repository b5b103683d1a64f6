#version 460
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 16) in;
struct Ctx {
    int kind; int64_t code; int depth; int fdepth;
    int fns[1]; int lns[1];
    int gid; int lane; int wave; int64_t trips; int64_t budget;
    int done; int local_id; int group_id; int group_size;
};
Ctx C = Ctx(0, 0l, 0, 0, int[1](0), int[1](0), 0, 0, 0, 0l, 0l, 0, 0, 0, 0);
layout(std430, set = 0, binding = 0) buffer Status { int64_t d[]; } ST;
layout(std430, set = 0, binding = 1) readonly buffer Params { int64_t d[]; } P;

void f_kernel() {
    precise float v_x4 = (0.0);
    for (;;) {
        C.trips = C.trips + (1l);
        if (C.trips > C.budget) { C.kind = 4; return; }
        precise float t1 = intBitsToFloat((floatBitsToInt((0.0)) + int(uint(uint64_t(P.d[2]) & 0xfffffffful))));
        precise float t2 = intBitsToFloat((floatBitsToInt((2.0)) + int(uint(uint64_t(P.d[2]) & 0xfffffffful))));
        precise float t3 = t1 * t2;
        v_x4 = t3;
        if (true) {
            break;
        }
    }
}

void main() {
    C.kind = 0; C.code = 0l; C.depth = 0; C.fdepth = 0; C.trips = 0l; C.done = 0;
    if (!(gl_NumSubgroups == 1u && gl_SubgroupInvocationID < 16u && gl_SubgroupSize == 16u)) { atomicAdd(ST.d[0], 1l); return; }
    int wv = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    int ln = int(gl_SubgroupInvocationID);
    int64_t gid = int64_t(wv) * (16l) + int64_t(ln);
    int64_t nn = P.d[0];
    if (gid >= nn) { return; }
    C.gid = int(uint(uint64_t(gid) & 0xfffffffful)); C.lane = ln; C.wave = wv; C.budget = P.d[1];
    f_kernel();
    if (gid >= nn) { return; }
    int64_t r = (2l) + gid * (5l);
    ST.d[int(r)] = int64_t(C.kind);
    ST.d[int(r + (1l))] = C.code;
    ST.d[int(r + (2l))] = int64_t(C.fdepth);
    if (C.fdepth > 0) { ST.d[int(r + (3l))] = int64_t(C.fns[0]); ST.d[int(r + (4l))] = int64_t(C.lns[0]); }
}
