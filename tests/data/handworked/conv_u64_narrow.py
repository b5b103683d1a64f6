# u64 -> narrower / signed types: truncate, then read as T.
# x = [2^64-1, 2^63, 2^32+1, 0x8000000080808080]
#   expect a = [-1, 0, 1, -2139062144]
#   expect b = [4294967295, 0, 1, 2155905152]
#   expect c = [-1, 0, 1, -32640]
#   expect d = [255, 0, 1, 128]
#   expect e = [-1, -2**63, 4294967297, -9223372034698870656]
#   expect f = [-1, 0, 1, -128]
# difftest: launch n=4 wave=4
# difftest: arg x = u64[18446744073709551615, 9223372036854775808, 4294967297, 9223372039010680960]
# difftest: arg a = i32[0] * 4
# difftest: arg b = u32[0] * 4
# difftest: arg c = i16[0] * 4
# difftest: arg d = u8[0] * 4
# difftest: arg e = i64[0] * 4
# difftest: arg f = i8[0] * 4
def k(x: Buffer[u64], a: Buffer[i32], b: Buffer[u32], c: Buffer[i16], d: Buffer[u8], e: Buffer[i64], f: Buffer[i8]):
    g = gid()
    v = x[g]
    a[g] = i32(v)
    b[g] = u32(v)
    c[g] = i16(v)
    d[g] = u8(v)
    e[g] = i64(v)
    f[g] = i8(v)
