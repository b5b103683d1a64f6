# wave_all_equal as docs/semantics.md ("Bitwise and clustered reductions") defines it:
# whether x is the same in every active lane of the wave (integers and bools).
# Launch: n = 8, two waves of 4. Args: out zeroed (40 values).
# Oracle, per workitem g:
#   out[g]      = wave_all_equal(g // 4): each wave holds one value -> 1 everywhere;
#   out[g + 8]  = wave_all_equal(g // 2): wave 0 holds 0, 0, 1, 1 -> 0 everywhere;
#   out[g + 16] = under `if lane() < 2` (lanes 0, 1 of each wave), wave_all_equal(g // 2):
#                 wave 0's active lanes hold 0, 0 and wave 1's 2, 2 -> 1 in gids 0, 1, 4,
#                 5; the others keep 0;
#   out[g + 24] = wave_all_equal(lane() < 4) (a bool: true in every lane of 4) -> 1;
#   out[g + 32] = under `if lane() >= 2` (lanes 2, 3 of each wave), wave_all_equal(lane()
#                 // 2): 1, 1 in both waves -> 1 in gids 2, 3, 6, 7; the others keep 0.
# A compiler that compares with lane 0's value (not the lowest active lane's) may give
# out[34] = 0: lane 0 is not active there and its lane() // 2 is 0.
# difftest: launch n=8 wave=4
# difftest: arg out = i32[0] * 40
def all_equal(out: Buffer[i32]):
    g = gid()
    out[g] = i32(wave_all_equal(g // 4))
    out[g + 8] = i32(wave_all_equal(g // 2))
    if lane() < 2:
        out[g + 16] = i32(wave_all_equal(g // 2))
    out[g + 24] = i32(wave_all_equal(lane() < 4))
    if lane() >= 2:
        out[g + 32] = i32(wave_all_equal(lane() // 2))
