# abs/min/max at MIN and with the unsigned order (semantics "Bit operations": "`abs(MIN)`
# is MIN (the negation wraps), `abs` of an unsigned value is the value"; "the type's
# order (unsigned for an unsigned type)"; a literal takes the other's type).
# Launch n=1. b = i8[-128], h = i16[-32768], w = i32[MIN], l = i64[MIN], ub = u8[255], uq = u64[2^64-1], us = u16[65535]
# Expected o (i64):
#  [0] abs(i8 -128) = -128   [1] abs(i16 -32768) = -32768  [2] abs(i32 MIN) = -2147483648
#  [3] abs(i64 MIN) = MIN    [4] min(u8 255, 0) = 0        [5] max(i8 -128, -1) = -1
#  [6] i64(min(u64 max, 1)) = 1  [7] max(u16 65535, 1) = 65535
#  [8] min(i8 -128, 127) = -128  [9] max(i64 MIN, -1) = -1
#  ou[0] = abs(u64 max) = 2^64-1; ou[1] = max(u64 max, 0) = 2^64-1; ou[2] = min(u64 max, u64 2^63) = 2^63
# difftest: launch n=1 wave=1
# difftest: arg b = i8[-128]
# difftest: arg h = i16[-32768]
# difftest: arg w = i32[-2147483648]
# difftest: arg l = i64[-9223372036854775808]
# difftest: arg ub = u8[255]
# difftest: arg uq = u64[18446744073709551615, 9223372036854775808]
# difftest: arg us = u16[65535]
# difftest: arg o = i64[0] * 10
# difftest: arg ou = u64[0] * 3
def k(b: Buffer[i8], h: Buffer[i16], w: Buffer[i32], l: Buffer[i64], ub: Buffer[u8],
      uq: Buffer[u64], us: Buffer[u16], o: Buffer[i64], ou: Buffer[u64]):
    o[0] = i64(abs(b[0]))
    o[1] = i64(abs(h[0]))
    o[2] = i64(abs(w[0]))
    o[3] = abs(l[0])
    o[4] = i64(min(ub[0], 0))
    o[5] = i64(max(b[0], -1))
    o[6] = i64(min(uq[0], 1))
    o[7] = i64(max(us[0], 1))
    o[8] = i64(min(b[0], 127))
    o[9] = max(l[0], -1)
    ou[0] = abs(uq[0])
    ou[1] = max(uq[0], 0)
    ou[2] = min(uq[0], uq[1])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [-128, -32768, -2147483648, -9223372036854775808, 0, -1, 1, 65535, -128, -1]
# expect: ou = [18446744073709551615, 18446744073709551615, 9223372036854775808]
