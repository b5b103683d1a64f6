# 32/64-bit integer functions and division at the limits, in the types WGSL runs
# (semantics "Bit operations" and "Integer types"; same rules as k04-k09: clz/ctz of 0 is
# the width; mul_hi the high half of the exact product; rotations by n mod N; `//`/`%`
# truncate, MIN // -1 = MIN, MIN % -1 = 0; shift amounts masked).
# Launch n=1. q = u64[0, 2^64-1, 2^63], l = i64[MIN, -1, -7, 2], w = u32[0, 2^31, 33]
# Expected o (i64):
#  [0] clz(u64 0) = 64     [1] ctz(u64 2^63) = 63    [2] popcount(u64 max) = 64
#  [3] i64(mul_hi(u64 max, u64 max)) = i64(2^64-2) = -2   [4] mul_hi(i64 MIN, i64 -1) = 0
#  [5] mul_hi(-7, 2) = -1  [6] i64(rotate_right(u64 2^63, i64 -1)): right by 63 = left 1: 1
#  [7] MIN // -1 = MIN     [8] MIN % -1 = 0          [9] -7 % 2 = -1   [10] -7 // 2 = -3
#  [11] i64(u32 2^31 >> w2): 33 & 31 = 1: 2^30 = 1073741824
#  [12] l0 >> 63 = -1      [13] i64(bit_reverse(u32 2^31)) = 1   [14] i64(clz(u32 0)) = 32
#  [15] i64(u64 max // u64 2^63) = 1   [16] abs(MIN) = MIN  [17] i64(bit_reverse(u64 1)) = MIN
#  [18] i64(ctz(w0)) = 32  [19] i64(u32(l[1]) % w[2]) = 4294967295 % 33 = 4294967295 - 33*130150524 = 3
# difftest: launch n=1 wave=1
# difftest: arg q = u64[0, 18446744073709551615, 9223372036854775808, 1]
# difftest: arg l = i64[-9223372036854775808, -1, -7, 2]
# difftest: arg w = u32[0, 2147483648, 33]
# difftest: arg o = i64[0] * 20
def k(q: Buffer[u64], l: Buffer[i64], w: Buffer[u32], o: Buffer[i64]):
    o[0] = i64(clz(q[0]))
    o[1] = i64(ctz(q[2]))
    o[2] = i64(popcount(q[1]))
    o[3] = i64(mul_hi(q[1], q[1]))
    o[4] = mul_hi(l[0], l[1])
    o[5] = mul_hi(l[2], l[3])
    o[6] = i64(rotate_right(q[2], l[1]))
    o[7] = l[0] // l[1]
    o[8] = l[0] % l[1]
    o[9] = l[2] % l[3]
    o[10] = l[2] // l[3]
    o[11] = i64(w[1] >> w[2])
    o[12] = l[0] >> 63
    o[13] = i64(bit_reverse(w[1]))
    o[14] = i64(clz(w[0]))
    o[15] = i64(q[1] // q[2])
    o[16] = abs(l[0])
    o[17] = i64(bit_reverse(q[3]))
    o[18] = i64(ctz(w[0]))
    o[19] = i64(u32(l[1]) % w[2])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [64, 63, 64, -2, 0, -1, 1, -9223372036854775808, 0, -1, -3, 1073741824, -1, 1, 32, 1, -9223372036854775808, -9223372036854775808, 32, 3]
