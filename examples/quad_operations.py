# Quad operations as docs/semantics.md ("Quad operations") defines them: a lane's quad is
# lanes 4q..4q+3 (q = lane // 4); `quad_broadcast(x, i)` reads the quad's lane i,
# `quad_swap_horizontal/vertical/diagonal(x)` the lane ^ 1, ^ 2, ^ 3; a source lane that
# is not active (or past the wave) gives 0 / False, as `shuffle` does.
# Launch: n = 8, one wave of 8. Args: out zeroed (48 values).
# x = 10 * lane + 1 in every lane: 1, 11, 21, 31, 41, 51, 61, 71.
# Oracle, per workitem g (its lane is g):
#   out[g]      = quad_broadcast(x, 2): 21 in quad 0 (lanes 0-3), 61 in quad 1;
#   out[g + 8]  = quad_swap_horizontal(x): 11, 1, 31, 21, 51, 41, 71, 61;
#   out[g + 16] = quad_swap_vertical(x): 21, 31, 1, 11, 61, 71, 41, 51;
#   out[g + 24] = quad_swap_diagonal(x): 31, 21, 11, 1, 71, 61, 51, 41;
#   under `if lane() != 2 and lane() != 5` (lanes 2 and 5 keep 0):
#   out[g + 32] = quad_broadcast(x, 2): quad 0's lane 2 is not active -> 0; quad 1's
#                 lane 6 is -> 61: 0, 0, 0, 0, 61, 0, 61, 61;
#   out[g + 40] = quad_swap_diagonal(x): lane 0 reads 3 (31), 1 reads 2 (not active: 0),
#                 3 reads 0 (1), 4 reads 7 (71), 6 reads 5 (not active: 0), 7 reads 4
#                 (41): 31, 0, 0, 1, 71, 0, 0, 41.
# A compiler that numbers quad lanes across quads (lane i of the wave) gives out[4] = 21.
# difftest: launch n=8 wave=8
# difftest: arg out = i32[0] * 48
def quad_operations(out: Buffer[i32]):
    g = gid()
    x = lane() * 10 + 1
    out[g] = quad_broadcast(x, 2)
    out[g + 8] = quad_swap_horizontal(x)
    out[g + 16] = quad_swap_vertical(x)
    out[g + 24] = quad_swap_diagonal(x)
    if lane() != 2 and lane() != 5:
        out[g + 32] = quad_broadcast(x, 2)
        out[g + 40] = quad_swap_diagonal(x)
