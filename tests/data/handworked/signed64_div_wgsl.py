# i64 / i32 division and remainder with MIN // -1 and negative operands (WGSL-able).
# m = i64[MIN, MIN, -9, 9], n = i64[-1, 2, 4, -4]
#   expect q64 = [-2**63, -2**62, -2, -2]
#   expect r64 = [0, 0, -1, 1]
# x = i32[MIN, -7, 7, MIN], y = i32[-1, 2, -2, 3]
#   MIN // -1 = MIN, % = 0 ; -7 // 2 = -3 r -1 ; 7 // -2 = -3 r 1 ; MIN // 3 = -715827882 r -2
#   expect q32 = [-2**31, -3, -3, -715827882]
#   expect r32 = [0, -1, 1, -2]
# difftest: launch n=4 wave=4
# difftest: arg m = i64[-9223372036854775808, -9223372036854775808, -9, 9]
# difftest: arg n = i64[-1, 2, 4, -4]
# difftest: arg x = i32[-2147483648, -7, 7, -2147483648]
# difftest: arg y = i32[-1, 2, -2, 3]
# difftest: arg q64 = i64[0] * 4
# difftest: arg r64 = i64[0] * 4
# difftest: arg q32 = i32[0] * 4
# difftest: arg r32 = i32[0] * 4
def k(m: Buffer[i64], n: Buffer[i64], x: Buffer[i32], y: Buffer[i32], q64: Buffer[i64], r64: Buffer[i64], q32: Buffer[i32], r32: Buffer[i32]):
    g = gid()
    q64[g] = m[g] // n[g]
    r64[g] = m[g] % n[g]
    q32[g] = x[g] // y[g]
    r32[g] = x[g] % y[g]
