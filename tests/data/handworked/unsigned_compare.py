# Comparisons compare values: unsigned with the top bit set is large.
# a = u32[2^31, 4294967295, 0, 1], b = u32[1, 2^31, 4294967295, 1]
#   lt = a < b: 0, 0, 1, 0 ; ge: 1, 1, 0, 1 ; gt: 1, 1, 0, 0; le: 0,0,1,1
#   expect c = [0*1+1*2+1*4+0*8, 0+2+4+0, 1+0+0+8, 0+2+0+8]
# c[g] = lt + 2*ge + 4*gt + 8*le
# u64: p = u64[2^63, 2^64-1, 1, 2^63], q = u64[1, 2^63, 2^63, 2^63]
#   d = same encoding: lane0: gt ge -> 2+4=6; lane1: 6; lane2: lt, le -> 1+8=9; lane3 eq: ge le -> 2+8=10
#   expect d = [6, 6, 9, 10]
# u8 / u16 / i8: m = u8[200, 100, 255, 0] vs 128: gt, lt, gt, lt -> 6, 9, 6, 9
#   expect e = [6, 9, 6, 9]
#   s = i8[-128, 127, -1, 0] vs i8 0: lt, gt, lt, eq -> 9, 6, 9, 10
#   expect f = [9, 6, 9, 10]
# u32 wrap then compare with 0: (a - 1) < 0 is always false -> 0
#   expect z = [0, 0, 0, 0]
# difftest: launch n=4 wave=4
# difftest: arg a = u32[2147483648, 4294967295, 0, 1]
# difftest: arg b = u32[1, 2147483648, 4294967295, 1]
# difftest: arg p = u64[9223372036854775808, 18446744073709551615, 1, 9223372036854775808]
# difftest: arg q = u64[1, 9223372036854775808, 9223372036854775808, 9223372036854775808]
# difftest: arg m = u8[200, 100, 255, 0]
# difftest: arg s = i8[-128, 127, -1, 0]
# difftest: arg c = i32[0] * 4
# difftest: arg d = i32[0] * 4
# difftest: arg e = i32[0] * 4
# difftest: arg f = i32[0] * 4
# difftest: arg z = i32[0] * 4
def k(a: Buffer[u32], b: Buffer[u32], p: Buffer[u64], q: Buffer[u64], m: Buffer[u8], s: Buffer[i8], c: Buffer[i32], d: Buffer[i32], e: Buffer[i32], f: Buffer[i32], z: Buffer[i32]):
    g = gid()
    c[g] = enc(a[g] < b[g], a[g] >= b[g], a[g] > b[g], a[g] <= b[g])
    d[g] = enc(p[g] < q[g], p[g] >= q[g], p[g] > q[g], p[g] <= q[g])
    e[g] = enc(m[g] < 128, m[g] >= 128, m[g] > 128, m[g] <= 128)
    zero: i8 = 0
    f[g] = enc(s[g] < zero, s[g] >= zero, s[g] > zero, s[g] <= zero)
    z[g] = i32(a[g] - 1 < 0)

def enc(lt: bool, ge: bool, gt: bool, le: bool) -> i32:
    return i32(lt) + 2 * i32(ge) + 4 * i32(gt) + 8 * i32(le)
