# A literal on the LEFT of an operator meeting a narrow/unsigned value takes its type
# (semantics "Literals": "where a literal meets a value of a narrow or unsigned type (an
# operand, ...) it is of that type when its value fits there"; "Shifts": "The amount is
# masked to the width of the result's type").
# Launch n=1. s = u8[7, 8, 9, 251], h = i16[15, 16, -1]
# Expected o (i64):
#  [0] 1 << s0 (u8 arithmetic) = 128        [1] 1 << s1: amount 8 & 7 = 0: 1
#  [2] 1 << s2: by 1: 2                      [3] 250 - s3 = 250 - 251 wraps at u8: 255
#  [4] i64(200 < s3) = 1 (u8 compare)        [5] 1 << h0 (i16) = -32768
#  [6] 1 << h1 (i16, by 0) = 1               [7] -1 >> h0 ... -32768 >> h0? : (1 << h0) >> h0 = -32768 >> 15 = -1
#  [8] 100 * h2 (i16) = -100                 [9] 255 // s0 (u8) = 36
#  [10] 65535 + h2 : 65535 does not fit i16 -> stays i32: 65535 + (-1) = 65534
# difftest: launch n=1 wave=1
# difftest: arg s = u8[7, 8, 9, 251]
# difftest: arg h = i16[15, 16, -1]
# difftest: arg o = i64[0] * 11
def k(s: Buffer[u8], h: Buffer[i16], o: Buffer[i64]):
    o[0] = i64(1 << s[0])
    o[1] = i64(1 << s[1])
    o[2] = i64(1 << s[2])
    o[3] = i64(250 - s[3])
    o[4] = i64(200 < s[3])
    o[5] = i64(1 << h[0])
    o[6] = i64(1 << h[1])
    o[7] = i64((1 << h[0]) >> h[0])
    o[8] = i64(100 * h[2])
    o[9] = i64(255 // s[0])
    o[10] = i64(65535 + h[2])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [128, 1, 2, 255, 1, -32768, 1, -1, -100, 36, 65534]
