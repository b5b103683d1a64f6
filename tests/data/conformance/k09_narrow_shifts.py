# Shifts by the width and beyond at narrow widths, >> of negative narrow values (semantics
# "Integer types", Shifts: "The amount is masked to the width of the result's type (its
# left operand's, widened with the right one within their signedness); `>>` is
# arithmetic for a signed type and logical for an unsigned one"; a literal takes the
# narrow type where it fits).
# Launch n=1. Amounts from a buffer: s = u8[8, 9, 7, 15, 4], t = i8[8, 7, 1], v = u8[1, 128, 255], w = i8[-128, -1]
# Expected o (i64):
#  [0] u8 1 << u8 8  -> 8 & 7 = 0: 1       [1] u8 1 << u8 9 -> by 1: 2
#  [2] u8 128 >> u8 7 = 1                  [3] i8 -128 >> i8 7 = -1
#  [4] i8 -128 >> i8 8 -> by 0: -128       [5] u16(32768) >> u8 15: u16 arithmetic: 1
#  [6] i16(-32768) >> i8 1 = -16384        [7] i8 -1 << i8 7 = -128
#  [8] u8 255 << u8 4 = 240 (wrapped)      [9] i8 -128 >> 200 (200 an i32 literal:
#      i32 arithmetic, 200 & 31 = 8): -128 >> 8 = -1
#  [10] u8 1 << u32(9): u32 arithmetic: 512  [11] i32(1) << i64(40): i64: 2^40 = 1099511627776
#  [12] u8 255 >> 9 (9 a u8 literal: by 1) = 127   [13] i16(-1) >> 17 (17 fits i16 -> i16, 17&15 = 1) = -1
#  [14] u16(65535) << 17 (u16, by 1) = 65534
# difftest: launch n=1 wave=1
# difftest: arg s = u8[8, 9, 7, 15, 4]
# difftest: arg t = i8[8, 7, 1]
# difftest: arg v = u8[1, 128, 255]
# difftest: arg w = i8[-128, -1]
# difftest: arg o = i64[0] * 15
def k(s: Buffer[u8], t: Buffer[i8], v: Buffer[u8], w: Buffer[i8], o: Buffer[i64]):
    o[0] = i64(v[0] << s[0])
    o[1] = i64(v[0] << s[1])
    o[2] = i64(v[1] >> s[2])
    o[3] = i64(w[0] >> t[1])
    o[4] = i64(w[0] >> t[0])
    o[5] = i64(u16(v[1]) * u16(256) >> s[3])
    o[6] = i64(i16(w[0]) * i16(256) >> t[2])
    o[7] = i64(w[1] << t[1])
    o[8] = i64(v[2] << s[4])
    o[9] = i64(w[0] >> 200)
    o[10] = i64(v[0] << u32(s[1]))
    o[11] = i32(v[0]) << i64(s[1]) + 31
    o[12] = i64(v[2] >> 9)
    o[13] = i64(i16(w[1]) >> 17)
    o[14] = i64(u16(v[2]) * u16(257) << 17)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [1, 2, 1, -1, -128, 1, -16384, -128, 240, -1, 512, 1099511627776, 127, -1, 65534]
