# mul_hi: the high N bits of the exact 2N-bit product, signed for a signed type.
# i32 a = [MIN, -1, MIN, -1], b = [MIN, -1, MAX, 1]
#   MIN*MIN = 2^62 -> 2^30; (-1)(-1) = 1 -> 0; MIN*MAX = -2^62+2^31 -> floor(/2^32) = -2^30; -1 -> -1
#   expect h32 = [2**30, 0, -2**30, -1]
# u32 c = [0xFFFFFFFF, 0xFFFFFFFF, 2^31, 1], d = [0xFFFFFFFF, 2^31, 2, 0xFFFFFFFF]
#   (2^32-1)^2 >> 32 = 2^32-2; (2^32-1)*2^31 >> 32 = 2^31-1; 2^32 >> 32 = 1; 0
#   expect u32h = [4294967294, 2147483647, 1, 0]
# i64 e = [MIN, MIN, MAX, MIN], f = [MIN, -1, MAX, 3]
#   2^126 >> 64 = 2^62; 2^63 >> 64 = 0; (2^63-1)^2 >> 64 = 2^62-1; -3*2^63 >> 64 = -2
#   expect h64 = [2**62, 0, 2**62-1, -2]
# u64 p = [2^64-1, 2^64-1, 2^63, 1], q = [2^64-1, 2^63, 2, 2^64-1]
#   2^64-2; 2^63-1; 1; 0
#   expect u64h = [2**64-2, 2**63-1, 1, 0]
# difftest: launch n=4 wave=4
# difftest: arg a = i32[-2147483648, -1, -2147483648, -1]
# difftest: arg b = i32[-2147483648, -1, 2147483647, 1]
# difftest: arg c = u32[4294967295, 4294967295, 2147483648, 1]
# difftest: arg d = u32[4294967295, 2147483648, 2, 4294967295]
# difftest: arg e = i64[-9223372036854775808, -9223372036854775808, 9223372036854775807, -9223372036854775808]
# difftest: arg f = i64[-9223372036854775808, -1, 9223372036854775807, 3]
# difftest: arg p = u64[18446744073709551615, 18446744073709551615, 9223372036854775808, 1]
# difftest: arg q = u64[18446744073709551615, 9223372036854775808, 2, 18446744073709551615]
# difftest: arg h32 = i32[0] * 4
# difftest: arg u32h = u32[0] * 4
# difftest: arg h64 = i64[0] * 4
# difftest: arg u64h = u64[0] * 4
def k(a: Buffer[i32], b: Buffer[i32], c: Buffer[u32], d: Buffer[u32], e: Buffer[i64], f: Buffer[i64], p: Buffer[u64], q: Buffer[u64], h32: Buffer[i32], u32h: Buffer[u32], h64: Buffer[i64], u64h: Buffer[u64]):
    g = gid()
    h32[g] = mul_hi(a[g], b[g])
    u32h[g] = mul_hi(c[g], d[g])
    h64[g] = mul_hi(e[g], f[g])
    u64h[g] = mul_hi(p[g], q[g])
