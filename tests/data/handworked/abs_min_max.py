# min/max/abs of integers: the type's order; abs(MIN) is MIN; abs of unsigned is itself.
# lane g selects via buffers.
# i8 a = [-128, -1, 127, 0]: abs -> -128, 1, 127, 0
#   expect ab8 = [-128, 1, 127, 0]
# i16 [-32768, ...]: abs -> -32768, 1, 32767, 0
#   expect ab16 = [-32768, 1, 32767, 0]
# i32 [MIN, -1, MAX, 0]
#   expect ab32 = [-2**31, 1, 2**31-1, 0]
# i64 [MIN, -1, MAX, 0]
#   expect ab64 = [-2**63, 1, 2**63-1, 0]
# u32 [2^32-1, 2^31, 1, 0]: abs is identity
#   expect abu = [2**32-1, 2**31, 1, 0]
# u64 p = [2^63, 2^64-1, 0, 5], q = [1, 2^63, 2^64-1, 5]: min: 1, 2^63, 0, 5; max: 2^63, 2^64-1, 2^64-1, 5
#   expect mn64 = [1, 2**63, 0, 5]
#   expect mx64 = [2**63, 2**64-1, 2**64-1, 5]
# u8 vs u32 mixed: min(u8 c, u32 d): c = [200, 255, 0, 128], d = [2^32-1, 100, 1, 2^31]: 200, 100, 0, 128
#   expect mnm = [200, 100, 0, 128]
# i8 vs literal: max(a, -5): -5, -1, 127, 0
#   expect mxl = [-5, -1, 127, 0]
# u8 min with literal 250: min(c, 250): 200, 250, 0, 128
#   expect mnl = [200, 250, 0, 128]
# difftest: launch n=4 wave=4
# difftest: arg a = i8[-128, -1, 127, 0]
# difftest: arg a16 = i16[-32768, -1, 32767, 0]
# difftest: arg a32 = i32[-2147483648, -1, 2147483647, 0]
# difftest: arg a64 = i64[-9223372036854775808, -1, 9223372036854775807, 0]
# difftest: arg au = u32[4294967295, 2147483648, 1, 0]
# difftest: arg p = u64[9223372036854775808, 18446744073709551615, 0, 5]
# difftest: arg q = u64[1, 9223372036854775808, 18446744073709551615, 5]
# difftest: arg c = u8[200, 255, 0, 128]
# difftest: arg d = u32[4294967295, 100, 1, 2147483648]
# difftest: arg ab8 = i8[0] * 4
# difftest: arg ab16 = i16[0] * 4
# difftest: arg ab32 = i32[0] * 4
# difftest: arg ab64 = i64[0] * 4
# difftest: arg abu = u32[0] * 4
# difftest: arg mn64 = u64[0] * 4
# difftest: arg mx64 = u64[0] * 4
# difftest: arg mnm = u32[0] * 4
# difftest: arg mxl = i8[0] * 4
# difftest: arg mnl = u8[0] * 4
def k(a: Buffer[i8], a16: Buffer[i16], a32: Buffer[i32], a64: Buffer[i64], au: Buffer[u32], p: Buffer[u64], q: Buffer[u64], c: Buffer[u8], d: Buffer[u32], ab8: Buffer[i8], ab16: Buffer[i16], ab32: Buffer[i32], ab64: Buffer[i64], abu: Buffer[u32], mn64: Buffer[u64], mx64: Buffer[u64], mnm: Buffer[u32], mxl: Buffer[i8], mnl: Buffer[u8]):
    g = gid()
    ab8[g] = abs(a[g])
    ab16[g] = abs(a16[g])
    ab32[g] = abs(a32[g])
    ab64[g] = abs(a64[g])
    abu[g] = abs(au[g])
    mn64[g] = min(p[g], q[g])
    mx64[g] = max(p[g], q[g])
    mnm[g] = min(c[g], d[g])
    mxl[g] = max(a[g], -5)
    mnl[g] = min(c[g], 250)
