# Shuffle sources of 64-bit / unsigned types: a source outside the wave gives 0, even
# where its low 32 bits name a lane; relative amounts are converted to i64 first
# (semantics.md: "computed in 64 bits, an amount of any integer type converted to i64
# first: shuffle_down(x, -1) reads the lane below").
# n = 4, wave 4, x = i32[10, 11, 12, 13]
#   a[g] = shuffle(x, u64(2^32) + u64(g)) : outside -> 0
#   expect a = [0, 0, 0, 0]
#   b[g] = shuffle(x, u32(4294967295)) : outside -> 0
#   expect b = [0, 0, 0, 0]
#   c[g] = shuffle_down(x, u64(2^64-1)) : i64(2^64-1) = -1 -> lane g - 1: 0, 10, 11, 12
#   expect c = [0, 10, 11, 12]
#   d[g] = shuffle_down(x, u32(4294967295)) : i64(u32 max) = 4294967295 -> outside -> 0
#   expect d = [0, 0, 0, 0]
#   e[g] = shuffle_xor(x, i64(2^32) + 1) : lane ^ (2^32+1) outside -> 0
#   expect e = [0, 0, 0, 0]
#   f[g] = shuffle_up(x, i64(-4294967295)) : lane + 4294967295 -> outside -> 0
#   expect f = [0, 0, 0, 0]
#   h[g] = shuffle(x, i64(-4294967293)) : negative -> outside -> 0 (its low 32 bits are 3)
#   expect h = [0, 0, 0, 0]
# difftest: launch n=4 wave=4
# difftest: arg x = i32[10, 11, 12, 13]
# difftest: arg big = u64[4294967296, 18446744073709551615]
# difftest: arg a = i32[9] * 4
# difftest: arg b = i32[9] * 4
# difftest: arg c = i32[9] * 4
# difftest: arg d = i32[9] * 4
# difftest: arg e = i32[9] * 4
# difftest: arg f = i32[9] * 4
# difftest: arg h = i32[9] * 4
def k(x: Buffer[i32], big: Buffer[u64], a: Buffer[i32], b: Buffer[i32], c: Buffer[i32], d: Buffer[i32], e: Buffer[i32], f: Buffer[i32], h: Buffer[i32]):
    g = gid()
    v = x[g]
    a[g] = shuffle(v, big[0] + u64(g))
    b[g] = shuffle(v, u32(big[1]))
    c[g] = shuffle_down(v, big[1])
    d[g] = shuffle_down(v, u32(big[1]))
    e[g] = shuffle_xor(v, i64(big[0]) + 1)
    f[g] = shuffle_up(v, -i64(u32(big[1])))
    h[g] = shuffle(v, -i64(big[0]) + 3)
