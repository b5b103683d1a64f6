# // and % of negative and unsigned values, MIN // -1 at every signed width (semantics
# "Integer types", Division: "`//` and `%` truncate toward zero on the values: signed as
# the core says (`i8(-128) // -1` is -128, `% -1` is 0), unsigned on the non-negative
# values"; core: "`MIN // -1 == MIN`, `MIN % -1 == 0`").
# Launch n=1. m = i64[-1, -7, 2, 7, -2], divisors come from buffers (no folding).
# Expected o (i64):
#  [0] i8(-128)//i8(-1) = -128  [1] i8(-128) % i8(-1) = 0
#  [2] i16(-32768)//-1 = -32768 [3] i16 % = 0
#  [4] i32 MIN // -1 = MIN32    [5] 0
#  [6] i64 MIN // -1 = MIN64    [7] 0
#  [8] -7 // 2 = -3   [9] -7 % 2 = -1   [10] 7 // -2 = -3  [11] 7 % -2 = 1
#  [12] i8(-7) // i8(2) = -3 [13] i8(-7) % i8(-2) = -1
#  [14] u8(200)//u8(7) = 28  [15] u8(200) % u8(7) = 4
#  [16] u32(2^32-1) // u32(2) = 2147483647  [17] u16(65535) % u16(256) = 255
#  [18] u64(2^64-1) % u64(2^63+1)... = 2^64-1 - (2^63+1) = 9223372036854775806
#  [19] u64(2^64-1) // u64(2^63) = 1
# difftest: launch n=1 wave=1
# difftest: arg m = i64[-1, -7, 2, 7, -2, -9223372036854775808]
# difftest: arg u = u64[18446744073709551615, 9223372036854775809, 9223372036854775808, 200, 7, 65535, 256]
# difftest: arg o = i64[0] * 20
def k(m: Buffer[i64], u: Buffer[u64], o: Buffer[i64]):
    n1 = m[0]
    o[0] = i64(i8(-128) // i8(n1))
    o[1] = i64(i8(-128) % i8(n1))
    o[2] = i64(i16(-32768) // i16(n1))
    o[3] = i64(i16(-32768) % i16(n1))
    o[4] = i64(i32(-2147483648) // i32(n1))
    o[5] = i64(i32(-2147483648) % i32(n1))
    o[6] = m[5] // n1
    o[7] = m[5] % n1
    o[8] = m[1] // m[2]
    o[9] = m[1] % m[2]
    o[10] = m[3] // m[4]
    o[11] = m[3] % m[4]
    o[12] = i64(i8(m[1]) // i8(m[2]))
    o[13] = i64(i8(m[1]) % i8(m[4]))
    o[14] = i64(u8(u[3]) // u8(u[4]))
    o[15] = i64(u8(u[3]) % u8(u[4]))
    o[16] = i64(u32(u[0]) // u32(m[2]))
    o[17] = i64(u16(u[5]) % u16(u[6]))
    o[18] = i64(u[0] % u[1])
    o[19] = i64(u[0] // u[2])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [-128, 0, -32768, 0, -2147483648, 0, -9223372036854775808, 0, -3, -1, -3, 1, -3, -1, 28, 4, 2147483647, 255, 9223372036854775806, 1]
