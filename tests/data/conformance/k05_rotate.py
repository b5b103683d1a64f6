# Rotations by negative and large amounts (semantics "Bit operations": "the N bits
# rotated by n mod N, n of any integer type (its low bits: `rotate_right(x, -1)` rotates
# right by N - 1)").
# Launch n=1. Amounts from buffers so nothing folds: ai = i32[-1, 17, 7, 33], al = i64[MIN], au = u64[2^64-1]
# Expected:
#  o[0] = rotate_left(u8 0x81, -1): by 7 = right by 1: 0xC0 = 192
#  o[1] = rotate_right(u16 1, 17): by 1: 0x8000 = 32768
#  o[2] = rotate_left(i8 1, 7) = 0x80 = -128
#  o[3] = rotate_right(u64 1, -1): right by 63 = left 1 = 2
#  o[4] = rotate_left(i32 -2, 33): by 1: 0xFFFFFFFD = -3
#  o[5] = rotate_left(u32 0x80000001, u64 2^64-1): by 31 = right 1: 0xC0000000 = 3221225472
#  o[6] = rotate_left(u8 0x81, i64 MIN): by 0: 129
#  o[7] = rotate_right(i16 -32768 = 0x8000, -1): right by 15 = left 1: 0x0001 = 1
# difftest: launch n=1 wave=1
# difftest: arg ai = i32[-1, 17, 7, 33]
# difftest: arg al = i64[-9223372036854775808]
# difftest: arg au = u64[18446744073709551615]
# difftest: arg x = u32[129, 1, 1, 2147483649]
# difftest: arg o = i64[0] * 8
def k(ai: Buffer[i32], al: Buffer[i64], au: Buffer[u64], x: Buffer[u32], o: Buffer[i64]):
    o[0] = i64(rotate_left(u8(x[0]), ai[0]))
    o[1] = i64(rotate_right(u16(x[1]), ai[1]))
    o[2] = i64(rotate_left(i8(x[2]), ai[2]))
    o[3] = i64(rotate_right(u64(x[1]), ai[0]))
    o[4] = i64(rotate_left(i32(x[1]) - 3, ai[3]))
    o[5] = i64(rotate_left(x[3], au[0]))
    o[6] = i64(rotate_left(u8(x[0]), al[0]))
    o[7] = i64(rotate_right(i16(x[3] >> 16), ai[0]))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [192, 32768, -128, 2, -3, 3221225472, 129, 1]
