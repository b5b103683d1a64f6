# A tiled tree reduction: each workgroup sums its inputs in workgroup memory, one barrier
# per step, while workitem 5 of every group faults before the first barrier.
# Launch: n = 40 workitems in waves of 8, workgroups of 16 (groups 0 and 1 whole, group 2
#   holds gids 32..39 only: its other eight workitems do not exist). Args: inp = the ten
#   values below, out = i32[40] filled with -1.
# Oracle: workitems 5, 21 and 37 (local id 5) fault (out-of-bounds load, index 100) at
#   the `inp[100]` line: they store nothing and take no step of the tree, but count as
#   arrived at every barrier, so their groups go on. tile[l] starts as inp[g % 10] (0 for
#   the faulted slot 5 and for the missing workitems), and step d adds tile[l + d] into
#   tile[l] for each live l < d: slot 13 (d = 8) is never added, since its partner 5 is
#   gone. So out[g] = tile[0] + 1000 * group_id() for every other g:
#   group 0: 62 - inp[5] (9) - inp[3] (slot 13: 1) = 52, so out[0..15] = 52 except
#     out[5] = -1;
#   group 1 (gids 16..31, inputs 2 6 5 3 3 1 4 1 5 9 2 6 5 3 3 1: 59): 59 - inp[1] (slot
#     5: 1) - inp[9] (slot 13: 3) = 55, so out[16..31] = 1055 except out[21] = -1;
#   group 2 (gids 32..39, inputs 4 1 5 9 2 6 5 3: 35; slot 13 is missing): 35 - inp[6]
#     (slot 5: 6) = 29, so out[32..39] = 2029 except out[37] = -1.
# The reported exception is workitem 5's. Under the default (stream) policy a target may
#   leave whole workgroups never-ran, never workitem 5's, and never part of a group (this
#   kernel meets at barriers: a group runs whole or not at all).
# difftest: launch n=40 wave=8 group=16
# difftest: arg inp = i32[3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
# difftest: arg out = i32[-1] * 40
def workgroup_reduce(inp: Buffer[i32], out: Buffer[i32]):
    g = gid()
    l = local_id()
    tile: Local[i32, 16]
    if l == 5:
        x = inp[100]
    tile[l] = inp[g % len(inp)]
    barrier()
    d = group_size() // 2
    while True:
        if d == 0:
            break
        if l < d:
            tile[l] = tile[l] + tile[l + d]
        barrier()
        d = d // 2
    out[g] = tile[0] + group_id() * 1000
