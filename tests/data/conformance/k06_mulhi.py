# mul_hi of negative and extreme values at several widths (semantics "Bit operations":
# "the high N bits of the exact 2N-bit product, of the signed values for a signed type
# and of the unsigned ones for an unsigned type (`mul_hi(i64(-1), i64(-1))` is 0,
# `mul_hi(u64 max, u64 max)` is 2^64 - 2)").
# Launch n=1. s = i64[-1, MIN, -2, 3], u = u64[2^64-1], b = i8[-128, 127], c = u8[255]
# Expected:
#  o[0] = mul_hi(-1, -1) = 0;  o[1] = mul_hi(MIN, MIN) = 2^126 >> 64 = 2^62 = 4611686018427387904
#  o[2] = mul_hi(MIN, -1) = 2^63 >> 64 = 0;  o[3] = mul_hi(-2, 3) = -6 >> 64 = -1
#  o[4] = mul_hi(MIN, 3): -3*2^63 >> 64 = floor(-1.5) = -2
#  o[5] = i64(mul_hi(i8 -128, i8 -128)) = 16384 >> 8 = 64
#  o[6] = mul_hi(i8 -128, i8 127) = -16256 >> 8 = floor(-63.5) = -64
#  o[7] = mul_hi(u8 255, u8 255) = 65025 >> 8 = 254
#  o[8] = mul_hi(i16 -1, i16 1) = -1
#  o[9] = mul_hi(i32 -5, i32 3) = -15 >> 32 = -1
#  ou[0] = mul_hi(u64 max, u64 max) = 2^64 - 2 = 18446744073709551614
#  ou[1] = mul_hi(u64 max, 2) = 1
# difftest: launch n=1 wave=1
# difftest: arg s = i64[-1, -9223372036854775808, -2, 3]
# difftest: arg u = u64[18446744073709551615, 2]
# difftest: arg b = i8[-128, 127]
# difftest: arg c = u8[255]
# difftest: arg o = i64[0] * 10
# difftest: arg ou = u64[0] * 2
def k(s: Buffer[i64], u: Buffer[u64], b: Buffer[i8], c: Buffer[u8], o: Buffer[i64], ou: Buffer[u64]):
    o[0] = mul_hi(s[0], s[0])
    o[1] = mul_hi(s[1], s[1])
    o[2] = mul_hi(s[1], s[0])
    o[3] = mul_hi(s[2], s[3])
    o[4] = mul_hi(s[1], s[3])
    o[5] = i64(mul_hi(b[0], b[0]))
    o[6] = i64(mul_hi(b[0], b[1]))
    o[7] = i64(mul_hi(c[0], c[0]))
    o[8] = i64(mul_hi(i16(s[0]), i16(1)))
    o[9] = i64(mul_hi(i32(s[3]) - 8, i32(s[3])))
    ou[0] = mul_hi(u[0], u[0])
    ou[1] = mul_hi(u[0], u[1])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [0, 4611686018427387904, 0, -1, -2, 64, -64, 254, -1, -1]
# expect: ou = [18446744073709551614, 1]
