# Extreme literals and clustered min/max identities in the 32/64-bit types WGSL runs
# (semantics "Literals": "`-2147483648` is an `i32`"; literals "are `i32` when they fit,
# else `i64`, else `u64`"; "Bitwise and clustered reductions": each cluster reduced
# over its own active lanes; "WGSL 32 and 64 bits of both signs").
# Launch n=4, one wave of 4. x = i64[-5, 7, -9223372036854775807, 3]; lane 3 inactive in the if.
# Expected (i64) lane g:
#  o[g]    = i64(-2147483648) + i64(g) ... written o[g] = -2147483648 - g (i32 arithmetic wraps for g>0):
#            g0: -2147483648; g1: 2147483647; g2: 2147483646; g3: 2147483645
#  o[4+g]  = -9223372036854775808 + i64(g): MIN, MIN+1, MIN+2, MIN+3
#  o[8+g]  = i64(18446744073709551615 >> u64(60 + g)): 15, 7, 3, 1
#  in `if g != 3`: o[12+g] = wave_max(x, cluster=2): {0,1}: 7; {2}: -9223372036854775807
#                  o[16+g] = i64(wave_max(i32(x), cluster=2)): i32(x): -5, 7, 1 (low bits of MIN+1 = 1); {0,1}: 7; {2}: 1
#                  o[20+g] = i64(wave_min(u32(x), cluster=4)): u32: 4294967291, 7, 1 -> 1
#                  o[24+g] = i64(wave_min(u64(x), cluster=2)): {0,1}: 7; {2}: 2^63+1 -> as i64 MIN+1
# difftest: launch n=4 wave=4
# difftest: arg x = i64[-5, 7, -9223372036854775807, 3]
# difftest: arg o = i64[0] * 28
def k(x: Buffer[i64], o: Buffer[i64]):
    g = gid()
    o[g] = -2147483648 - g
    o[4 + g] = -9223372036854775808 + i64(g)
    o[8 + g] = i64(18446744073709551615 >> u64(60 + g))
    v = x[g]
    if g != 3:
        o[12 + g] = wave_max(v, cluster=2)
        o[16 + g] = i64(wave_max(i32(v), cluster=2))
        o[20 + g] = i64(wave_min(u32(v), cluster=4))
        o[24 + g] = i64(wave_min(u64(v), cluster=2))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o[0:12] = [-2147483648, 2147483647, 2147483646, 2147483645, -9223372036854775808, -9223372036854775807, -9223372036854775806, -9223372036854775805, 15, 7, 3, 1]
# expect: o[12:28] = [7, 7, -9223372036854775807, 0, 7, 7, 1, 0, 1, 1, 1, 0, 7, 7, -9223372036854775807, 0]
