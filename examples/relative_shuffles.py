# Relative shuffles as docs/semantics.md ("Relative shuffles") defines them: the value of
# x in lane lane ^ mask, lane - delta or lane + delta, and 0 where that lane is outside
# the wave or not active (not the lane's own value, as CUDA's shuffles give there).
# Launch: n = 8, one wave of 8. Args: out zeroed (32 values).
# x = 10 * lane + 1 in every lane: 1, 11, 21, 31, 41, 51, 61, 71.
# Oracle, per workitem g (its lane is g):
#   out[g]      = shuffle_xor(x, 1): 11, 1, 31, 21, 51, 41, 71, 61;
#   out[g + 8]  = shuffle_up(x, 2): 0, 0 (lanes -2, -1: outside), 1, 11, 21, 31, 41, 51;
#   out[g + 16] = shuffle_down(x, 3): 31, 41, 51, 61, 71, 0, 0, 0 (lanes 8-10: outside);
#   out[g + 24] = under `if lane() % 2 == 0`, shuffle_xor(x, 2) from the even lanes
#                 only: lane 0 reads lane 2 (21), 2 reads 0 (1), 4 reads 6 (61), 6 reads
#                 4 (41); the odd lanes do not run it and keep 0.
# A compiler that gives a lane past the wave its own value gives out[8] = 1 and out[21]
# = 51; one that reads inactive lanes has odd lanes' values nowhere here (even ^ 2 is
# even), so the branch shows a masked shuffle done right.
# difftest: launch n=8 wave=8
# difftest: arg out = i32[0] * 32
def relative_shuffles(out: Buffer[i32]):
    g = gid()
    x = lane() * 10 + 1
    out[g] = shuffle_xor(x, 1)
    out[g + 8] = shuffle_up(x, 2)
    out[g + 16] = shuffle_down(x, 3)
    if lane() % 2 == 0:
        out[g + 24] = shuffle_xor(x, 2)
