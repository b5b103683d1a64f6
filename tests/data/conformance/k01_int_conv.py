# Conversions between integer types at the limits (semantics "Integer types",
# Conversions: "the value's two's-complement bits are truncated to T's width, then read
# as T (so widening extends by the *source's* signedness").
# Launch n=1. Inputs s8=i8[-128], u32b=u32[2^31], u16b=u16[65535, 128, 383], i64b=i64[-1],
#   u64b=u64[2^63, 2^63 + 2^31], u8b=u8[200].
# Expected:
#   ou[0] = u64(i8 -128) = 2^64 - 128 = 18446744073709551488
#   ou[1] = u64(u32 2^31) = 2147483648
#   ou[2] = u64(i64 -1) = 18446744073709551615
#   os[0] = i64(u32 2^31) = 2147483648
#   os[1] = i64(i8(u16 65535)) = -1;  os[2] = i64(i8(u16 128)) = -128;  os[3] = i8(u16 383) = 127
#   os[4] = i64(u32(i64 -1)) = 4294967295
#   os[5] = i64(i32(u64 2^63)) = 0;   os[6] = i32(u64 2^63+2^31) = -2147483648
#   os[7] = i64(u16(i8 -128)) = 65408
#   os[8] = i64(i16(u8 200)) = 200;   os[9] = i64(i8(u8 200)) = -56
#   os[10] = i64(u8(i64 -1)) = 255;   os[11] = i64(i16(u32 2^31)) = 0
# difftest: launch n=1 wave=1
# difftest: arg s8 = i8[-128]
# difftest: arg u32b = u32[2147483648]
# difftest: arg u16b = u16[65535, 128, 383]
# difftest: arg i64b = i64[-1]
# difftest: arg u64b = u64[9223372036854775808, 9223372039002259456]
# difftest: arg u8b = u8[200]
# difftest: arg ou = u64[0] * 3
# difftest: arg os = i64[0] * 12
def k(s8: Buffer[i8], u32b: Buffer[u32], u16b: Buffer[u16], i64b: Buffer[i64],
      u64b: Buffer[u64], u8b: Buffer[u8], ou: Buffer[u64], os: Buffer[i64]):
    ou[0] = u64(s8[0])
    ou[1] = u64(u32b[0])
    ou[2] = u64(i64b[0])
    os[0] = i64(u32b[0])
    os[1] = i64(i8(u16b[0]))
    os[2] = i64(i8(u16b[1]))
    os[3] = i64(i8(u16b[2]))
    os[4] = i64(u32(i64b[0]))
    os[5] = i64(i32(u64b[0]))
    os[6] = i64(i32(u64b[1]))
    os[7] = i64(u16(s8[0]))
    os[8] = i64(i16(u8b[0]))
    os[9] = i64(i8(u8b[0]))
    os[10] = i64(u8(i64b[0]))
    os[11] = i64(i16(u32b[0]))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: ou = [18446744073709551488, 2147483648, 18446744073709551615]
# expect: os = [2147483648, -1, -128, 127, 4294967295, 0, -2147483648, 65408, 200, -56, 255, 0]
