# Literals alone and literals meeting narrow/unsigned values (semantics "Language
# decisions", Literals: "Literals are `i32` when they fit, else `i64`, else `u64`; where
# a literal meets a value of a narrow or unsigned type ... it is of that type when its
# value fits there"; "`18446744073709551615 >> 63` is u64 arithmetic"; "`-2147483648` is
# an `i32`"; shift amounts masked to the result's width; i32 wraps).
# Launch n=1. x = u8[0], y = i8[100]
# Expected o (i64):
#  [0] 1 << 40: i32, 40 & 31 = 8: 256
#  [1] -2147483648 // -1: i32: -2147483648   [2] -2147483648 % -1 = 0
#  [3] 2147483647 + 1: i32 wraps: -2147483648
#  [4] i64(18446744073709551615 >> 63) = 1
#  [5] i64(9223372036854775808 - 1) = 9223372036854775807
#  [6] x - 1 with x: u8 = 0: u8: 255       [7] x + 255 = 255 (u8)
#  [8] y * -128: -128 fits i8 -> i8: -12800 wrapped: -12800 mod 256 = 0 -> 0
#  [9] y + 200: 200 does not fit i8 -> i32: 300
#  [10] -9223372036854775808 // -1 (i64 literal) = MIN64
#  [11] i64(~0) = -1 (i32)   [12] x - 1 < x : u8 255 < 0 false -> 0
#  [13] i64(4294967295 + 1): 4294967295 is i64 -> 4294967296
# difftest: launch n=1 wave=1
# difftest: arg x = u8[0]
# difftest: arg y = i8[100]
# difftest: arg o = i64[0] * 14
def k(x: Buffer[u8], y: Buffer[i8], o: Buffer[i64]):
    o[0] = 1 << 40
    o[1] = -2147483648 // -1
    o[2] = -2147483648 % -1
    o[3] = 2147483647 + 1
    o[4] = i64(18446744073709551615 >> 63)
    o[5] = i64(9223372036854775808 - 1)
    a = x[0]
    o[6] = i64(a - 1)
    o[7] = i64(a + 255)
    b = y[0]
    o[8] = i64(b * -128)
    o[9] = b + 200
    o[10] = -9223372036854775808 // -1
    o[11] = ~0
    o[12] = i64(a - 1 < a)
    o[13] = 4294967295 + 1

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [256, -2147483648, 0, -2147483648, 1, 9223372036854775807, 255, 255, 0, 300, -9223372036854775808, -1, 0, 4294967296]
