# 32/64-bit only (every target incl. WGSL): popcount/clz/ctz/bit_reverse of u64 with only
# high bits, and of i64/u32 at edges.
# x = u64[0xFFFFFFFF00000000, 2^63, 2^63+1, 2^32]
#   popcount: 32, 1, 2, 1 ; clz: 0, 0, 0, 31 ; ctz: 32, 63, 0, 32
#   bit_reverse: 0xFFFFFFFF, 1, 2^63+1, 2^31
#   expect pc = [32, 1, 2, 1]
#   expect lz = [0, 0, 0, 31]
#   expect tz = [32, 63, 0, 32]
#   expect br = [4294967295, 1, 2**63+1, 2**31]
# y = i64 same bits: bit_reverse(i64): 0xFFFFFFFF, 1, -2^63+1, 2^31
#   expect bs = [4294967295, 1, -2**63+1, 2**31]
# z = u32[0, 1, 0x80000000, 0x00010000]: clz 32, 31, 0, 15; ctz 32, 0, 31, 16 (packed)
#   expect z2 = [32, 32, 31, 0, 0, 31, 15, 16]
# ctz(i64(0)) + clz(i64(0)) = 128 every lane (from a zero load)
#   expect zz = [128, 128, 128, 128]
# difftest: launch n=4 wave=4
# difftest: arg x = u64[18446744069414584320, 9223372036854775808, 9223372036854775809, 4294967296]
# difftest: arg y = i64[-4294967296, -9223372036854775808, -9223372036854775807, 4294967296]
# difftest: arg z = u32[0, 1, 2147483648, 65536]
# difftest: arg zero = i64[0] * 4
# difftest: arg pc = u64[0] * 4
# difftest: arg lz = u64[0] * 4
# difftest: arg tz = u64[0] * 4
# difftest: arg br = u64[0] * 4
# difftest: arg bs = i64[0] * 4
# difftest: arg z2 = u32[0] * 8
# difftest: arg zz = i64[0] * 4
def k(x: Buffer[u64], y: Buffer[i64], z: Buffer[u32], zero: Buffer[i64], pc: Buffer[u64], lz: Buffer[u64], tz: Buffer[u64], br: Buffer[u64], bs: Buffer[i64], z2: Buffer[u32], zz: Buffer[i64]):
    g = gid()
    pc[g] = popcount(x[g])
    lz[g] = clz(x[g])
    tz[g] = ctz(x[g])
    br[g] = bit_reverse(x[g])
    bs[g] = bit_reverse(y[g])
    z2[g * 2] = clz(z[g])
    z2[g * 2 + 1] = ctz(z[g])
    zz[g] = ctz(zero[g]) + clz(zero[g])
