# Private arrays as docs/semantics.md ("Private arrays") defines them: one array per
# workitem, all zeros each time its declaration runs, indexed with run-time values,
# elements wrapping at their type's width, an index outside it faulting as a buffer's.
# Launch: n = 4, one wave of 4. Args: x = i32[1, 2, 3, 4], f = f32[0.5, -1.5, 3.0, 0.0,
#   then four zeros], out zeroed.
# Oracle, per workitem g (a = [x, 2x, 3x, 4x] after the first loop):
#   out[g]      = a[(g + 1) % 4]: 2, 6, 12, 4;
#   the odd lanes alone then write a[g] = 100 + g (a[1] = 101 in lane 1, a[3] = 103 in 3);
#   out[g + 4]  = a[g] + a[3 - g]: 1 + 4 = 5, 101 + 6 = 107, 9 + 6 = 15, 103 + 4 = 107;
#   out[g + 8]  = 388 in every lane: b restarts at [0, 0] on each of the 3 trips, so the
#                 trips add 44 (200 + 100 wraps to 44 in a u8), 300 and 44;
#   f[g + 4]    = c[0] + c[1] * 2.0 with c[0] still 0: 1.0, -3.0, 6.0, 0.0;
#   out[g + 12] = a[g + 1]: 2, 6, 12; workitem 3 indexes a[4] and faults (out of bounds)
#                 on the last line, so out[15] stays 0.
# A compiler that shares one array among the lanes of a wave, reads an element with
# another lane's index, or keeps b's values from one trip to the next changes out[4..11].
# difftest: launch n=4 wave=4
# difftest: arg x = i32[1, 2, 3, 4]
# difftest: arg f = f32[0.5, -1.5, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0]
# difftest: arg out = i32[0] * 16
def private_arrays(x: Buffer[i32], f: Buffer[f32], out: Buffer[i32]):
    g = gid()
    a: Array[i32, 4]
    for i in range(4):
        a[i] = x[g] * (i + 1)
    out[g] = a[(g + 1) % 4]
    if g % 2 == 1:
        a[g] = 100 + g
    out[g + 4] = a[g] + a[3 - g]
    t = 0
    for j in range(3):
        b: Array[u8, 2]
        b[j % 2] = b[j % 2] + u8(200)
        b[0] = b[0] + u8(100)
        t = t + i32(b[0]) + i32(b[1])
    out[g + 8] = t
    c: Array[f32, 2]
    c[1] = f[g]
    f[g + 4] = c[0] + c[1] * 2.0
    out[g + 12] = a[g + 1]
