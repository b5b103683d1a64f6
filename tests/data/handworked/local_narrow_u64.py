# Workgroup arrays of narrow and u64 types across a barrier; atomics on a Local[u64].
# n = 16, waves of 4, groups of 8 (two waves each).
#   t8: Local[i8, 8]: each local id l stores i8(l * 40) (wraps: 0, 40, 80, 120, -96, -56, -16, 24), barrier,
#       then reads its neighbour's t8[(l + 1) % 8]: out8[g] = that
#   expect out8 = [40, 80, 120, -96, -56, -16, 24, 0, 40, 80, 120, -96, -56, -16, 24, 0]
#   tw: Local[u64, 2]: atomic_add(tw, 0, 2^63 + l) by every item of the group: 8 * 2^63 + 28 -> 28 ;
#       atomic_max(tw, 1, u64(l) << 61): 7 << 61 = 16140901064495857664 (top bits) ; read after the barrier
#   expect outw = [28, 16140901064495857664] * 2 + [0] * 12
# difftest: launch n=16 wave=4 group=8
# difftest: arg out8 = i8[0] * 16
# difftest: arg outw = u64[0] * 16
def k(out8: Buffer[i8], outw: Buffer[u64]):
    t8: Local[i8, 8]
    tw: Local[u64, 2]
    g = gid()
    l = local_id()
    t8[l] = i8(l * 40)
    atomic_add(tw, 0, 9223372036854775808 + u64(l))
    old = atomic_max(tw, 1, u64(l) << 61)
    barrier()
    out8[g] = t8[(l + 1) % 8]
    if l < 1:
        outw[group_id() * 2] = tw[0]
        outw[group_id() * 2 + 1] = tw[1]
