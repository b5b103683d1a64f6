# Unsigned division and remainder truncate on the non-negative values; divisors with the
# top bit set (a signed division would see negatives).
# a = u64[2^64-1, 2^63, 2^63+5, 10], b = u64[2^63, 2^63+1, 2^63, 2^64-1]
#   expect q = [1, 0, 1, 0]
#   expect r = [2**63-1, 2**63, 5, 10]
# u32: c = [4294967295, 2147483648, 7, 4294967295], d = [2147483649, 4294967295, 4294967295, 3]
#   expect q32 = [1, 0, 0, 1431655765]
#   expect r32 = [2147483646, 2147483648, 7, 0]
# u8: 255 // 128 = 1, 255 % 128 = 127 (same every lane, plus lane g): (255-g)//(128+g)
#   lanes: 255//128=1 r127, 254//129=1 r125, 253//130=1 r123, 252//131=1 r121
#   (u8 part in u64_div.py) q8 = [1, 1, 1, 1]
#   (u8 part) r8 = [127, 125, 123, 121]
# difftest: launch n=4 wave=4
# difftest: arg a = u64[18446744073709551615, 9223372036854775808, 9223372036854775813, 10]
# difftest: arg b = u64[9223372036854775808, 9223372036854775809, 9223372036854775808, 18446744073709551615]
# difftest: arg c = u32[4294967295, 2147483648, 7, 4294967295]
# difftest: arg d = u32[2147483649, 4294967295, 4294967295, 3]
# difftest: arg q = u64[0] * 4
# difftest: arg r = u64[0] * 4
# difftest: arg q32 = u32[0] * 4
# difftest: arg r32 = u32[0] * 4
def k(a: Buffer[u64], b: Buffer[u64], c: Buffer[u32], d: Buffer[u32], q: Buffer[u64], r: Buffer[u64], q32: Buffer[u32], r32: Buffer[u32]):
    g = gid()
    q[g] = a[g] // b[g]
    r[g] = a[g] % b[g]
    q32[g] = c[g] // d[g]
    r32[g] = c[g] % d[g]
    s = i64(a[g]) // i64(b[g] | 1)
    q[g] = q[g] + u64(s) * 0
