# Clustered and bitwise reductions as docs/semantics.md ("Bitwise and clustered
# reductions") defines them: `wave_sum/min/max/and/or/xor(x, cluster=C)` reduces each
# cluster of C consecutive lanes (lanes C*k .. C*k+C-1) over its active lanes; a cluster
# of C >= W is the whole wave; without `cluster=` the whole wave.
# Launch: n = 8, one wave of 8. Args: out zeroed (56 values).
# x = lane + 1 in every lane: 1, 2, ..., 8.
# Oracle, per workitem g (its lane is g):
#   out[g]      = wave_sum(x, cluster=4): 10 in lanes 0-3 (1+2+3+4), 26 in lanes 4-7;
#   out[g + 8]  = wave_max(x, cluster=2): 2, 2, 4, 4, 6, 6, 8, 8;
#   out[g + 16] = wave_and(x | 48): 48 (bits 4 and 5 in every lane; no low bit in all);
#   out[g + 24] = wave_xor(x): 1^2^...^8 = 8;
#   out[g + 32] = under `if lane() % 3 != 0` (lanes 1, 2, 4, 5, 7), wave_min(x,
#                 cluster=4): cluster 0's active lanes 1, 2 hold 2, 3 -> 2; cluster 1's
#                 lanes 4, 5, 7 hold 5, 6, 8 -> 5; lanes 0, 3, 6 keep 0:
#                 0, 2, 2, 0, 5, 5, 0, 5;
#   out[g + 40] = wave_sum(x, cluster=16): a cluster past the wave is the wave: 36;
#   out[g + 48] = under the same `if`, wave_and(x | 48): 48 in the active lanes (an
#                 inactive lane adds nothing), 0 in lanes 0, 3, 6.
# A compiler that reduces the whole wave gives out[0] = 36; one that combines each cluster
# with its neighbour gives out[8] = 4; one that counts inactive lanes gives out[33] = 1,
# one that gives them 0 in a wave_and gives out[49] = 0.
# difftest: launch n=8 wave=8
# difftest: arg out = i32[0] * 56
def clustered_reductions(out: Buffer[i32]):
    g = gid()
    x = lane() + 1
    out[g] = wave_sum(x, cluster=4)
    out[g + 8] = wave_max(x, cluster=2)
    out[g + 16] = wave_and(x | 48)
    out[g + 24] = wave_xor(x)
    if lane() % 3 != 0:
        out[g + 32] = wave_min(x, cluster=4)
        out[g + 48] = wave_and(x | 48)
    out[g + 40] = wave_sum(x, cluster=16)
