# alloc() mid-launch: every workitem allocates a private buffer, fills it and sums it.
# On numba-simt each lane deopts at alloc() (device code cannot allocate); the host
# allocates in the pool -- which grows, moving every buffer -- while the frames of the
# other deopted lanes wait, holding `out` and `inp` by their old bases: the host must
# relocate them (seed 000's oops in saved registers). With m = g % 5 + 1:
# out[g] = inp[0] + ... + inp[m - 1] + 10 * g * m.
# difftest: launch n=12 wave=4
# difftest: arg inp = i32[1, 2, 3, 4, 5]
# difftest: arg out = i32[0] * 12
def kernel(inp: Buffer[i32], out: Buffer[i32]):
    g = gid()
    p = alloc(g % 5 + 1)
    for k in range(0, len(p)):
        p[k] = inp[k] + g * 10
    t = 0
    for k in range(0, len(p)):
        t = t + p[k]
    out[g] = t
