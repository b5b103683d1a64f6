# A shift of two operands of one signedness and different widths is done in the wider
# type ("The amount is masked to the width of the result's type (its left operand's,
# widened with the right one within their signedness)").
# x = u32[2^32-1, 1, 2^31, 5], s = u64[32, 63, 33, 2^64-1]
#   l = x << s  (u64): (2^32-1) << 32 = 2^64 - 2^32 ; 1 << 63 = 2^63 ; 2^31 << 33 = 0 (2^64 wraps) ; 5 << 63 = 2^63
#   expect l = [2**64-2**32, 2**63, 0, 2**63]
#   r = x >> s  (u64, logical): 0, 0, 0, 0 (amount 63 for the last)
#   expect r = [0, 0, 0, 0]
# y = i8[-1, 1, -128, 64], t = i64[8, 62, 7, 70]
#   l2 = y << t (i64): -256, 2^62, -16384, 64 << 6 = 4096
#   expect l2 = [-256, 2**62, -16384, 4096]
#   r2 = y >> t (i64 arithmetic): -1, 0, -1, 64 >> 6 = 1
#   expect r2 = [-1, 0, -1, 1]
# z = u8[255, 1, 128, 3], a = u32[8, 31, 24, 30] : m = z << a (u32): 65280, 2^31, 2^31, 3 << 30 = 3221225472
#   expect m = [65280, 2**31, 2**31, 3221225472]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[4294967295, 1, 2147483648, 5]
# difftest: arg s = u64[32, 63, 33, 18446744073709551615]
# difftest: arg y = i8[-1, 1, -128, 64]
# difftest: arg t = i64[8, 62, 7, 70]
# difftest: arg z = u8[255, 1, 128, 3]
# difftest: arg a = u32[8, 31, 24, 30]
# difftest: arg l = u64[0] * 4
# difftest: arg r = u64[0] * 4
# difftest: arg l2 = i64[0] * 4
# difftest: arg r2 = i64[0] * 4
# difftest: arg m = u32[0] * 4
def k(x: Buffer[u32], s: Buffer[u64], y: Buffer[i8], t: Buffer[i64], z: Buffer[u8], a: Buffer[u32], l: Buffer[u64], r: Buffer[u64], l2: Buffer[i64], r2: Buffer[i64], m: Buffer[u32]):
    g = gid()
    l[g] = x[g] << s[g]
    r[g] = x[g] >> s[g]
    l2[g] = y[g] << t[g]
    r2[g] = y[g] >> t[g]
    m[g] = z[g] << a[g]
