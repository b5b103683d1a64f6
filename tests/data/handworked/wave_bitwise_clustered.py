# Bitwise and clustered reductions of u64 / u32 / i64 (WGSL-able), plus wave_all_equal
# of u64 values that differ only in their high half. n = 8, wave 8.
# x = u64[2^63+1, 2^63+3, 2^32+1, 1, 2^64-1, 2^63, 6, 2^62]
#   wave_and: 2^63+1 & 2^63+3 = 2^63+1; & (2^32+1) = 1; &1 = 1; & max = 1; & 2^63 = 0 -> 0
#   wave_or: 2^64-1 (contains max)
#   wave_xor: (2^63+1)^(2^63+3) = 2 ; ^ (2^32+1) = 2^32+3 ; ^1 = 2^32+2 ; ^(2^64-1) = 2^64-1-(2^32+2) ;
#             ^2^63 = 2^63-1-(2^32+2) ; ^6 ; ^2^62
#   expect a = [0]*8 + [2**64-1]*8 + [((((((((2**63+1)^(2**63+3))^(2**32+1))^1)^(2**64-1))^(2**63))^6)^(2**62))]*8
#   clustered wave_min(x, cluster=2): pairs (0,1): 2^63+1 ; (2,3): 1 ; (4,5): 2^63 ; (6,7): 6
#   expect c = [2**63+1, 2**63+1, 1, 1, 2**63, 2**63, 6, 6]
#   clustered wave_max(x, cluster=4): lanes 0-3: 2^63+3 ; 4-7: 2^64-1
#   expect d = [2**63+3]*4 + [2**64-1]*4
#   clustered wave_sum(x, cluster=4) wraps at 64: 0-3: 2^64 + 4 + 2^32 + 1 -> 2^32+5... (2^63+1)+(2^63+3) = 2^64+4 -> 4 ; + 2^32+1 + 1 = 2^32+6
#                                          4-7: 2^64-1 + 2^63 + 6 + 2^62 = 2^64 + 2^63 + 2^62 + 5 -> 2^63+2^62+5
#   expect s = [2**32+6]*4 + [2**63+2**62+5]*4
#   eq[g] = i32(wave_all_equal(y)) with y = x & 0xFFFFFFFF00000000 + 1 ... y = (u64(g % 2) << 32) | 7: differ only in high half -> 0
#          and i32(wave_all_equal(u64(7) | (u64(1) << 40))) = 1 ; stored eq[g] = first + 2 * second = 2
#   expect eq = [2]*8
# i64 z = i64(x): wave_min (signed): 2^63 as i64 = MIN -> MIN ; wave_max signed: 2^62+... max of (2^32+1, 1, -1, 6, 2^62, MIN+1, MIN+3, MIN) = 2^62
#   expect m = [-2**63]*8 + [2**62]*8
# difftest: launch n=8 wave=8
# difftest: arg x = u64[9223372036854775809, 9223372036854775811, 4294967297, 1, 18446744073709551615, 9223372036854775808, 6, 4611686018427387904]
# difftest: arg a = u64[0] * 24
# difftest: arg c = u64[0] * 8
# difftest: arg d = u64[0] * 8
# difftest: arg s = u64[0] * 8
# difftest: arg eq = i32[0] * 8
# difftest: arg m = i64[0] * 16
def k(x: Buffer[u64], a: Buffer[u64], c: Buffer[u64], d: Buffer[u64], s: Buffer[u64], eq: Buffer[i32], m: Buffer[i64]):
    g = gid()
    v = x[g]
    a[g] = wave_and(v)
    a[g + 8] = wave_or(v)
    a[g + 16] = wave_xor(v)
    c[g] = wave_min(v, cluster=2)
    d[g] = wave_max(v, cluster=4)
    s[g] = wave_sum(v, cluster=4)
    y = (u64(g % 2) << 32) | 7
    eq[g] = i32(wave_all_equal(y)) + 2 * i32(wave_all_equal(u64(7) | (u64(1) << 40)))
    z = i64(v)
    m[g] = wave_min(z)
    m[g + 8] = wave_max(z)
