# Signed division of every width truncates toward zero; MIN // -1 is MIN, MIN % -1 is 0.
# lane 0: i8 -128 // -1, lane 1: -7 // 2, lane 2: 7 // -2, lane 3: -128 // 127
#   x = i8[-128, -7, 7, -128], y = i8[-1, 2, -2, 127]
#   expect q8 = [-128, -3, -3, -1]
#   expect r8 = [0, -1, 1, -1]
# i16 likewise: x = [-32768, -7, 32767, -32768], y = [-1, 2, -2, -32768]
#   expect q16 = [-32768, -3, -16383, 1]
#   expect r16 = [0, -1, 1, 0]
# i64 MIN // -1, MIN % -1 in every lane offset: m = i64[MIN, MIN, -9, 9] by [-1, 2, 4, -4]
#   expect q64 = [-2**63, -2**62, -2, -2]
#   expect r64 = [0, 0, -1, 1]
# difftest: launch n=4 wave=4
# difftest: arg x = i8[-128, -7, 7, -128]
# difftest: arg y = i8[-1, 2, -2, 127]
# difftest: arg x16 = i16[-32768, -7, 32767, -32768]
# difftest: arg y16 = i16[-1, 2, -2, -32768]
# difftest: arg m = i64[-9223372036854775808, -9223372036854775808, -9, 9]
# difftest: arg n = i64[-1, 2, 4, -4]
# difftest: arg q8 = i8[0] * 4
# difftest: arg r8 = i8[0] * 4
# difftest: arg q16 = i16[0] * 4
# difftest: arg r16 = i16[0] * 4
# difftest: arg q64 = i64[0] * 4
# difftest: arg r64 = i64[0] * 4
def k(x: Buffer[i8], y: Buffer[i8], x16: Buffer[i16], y16: Buffer[i16], m: Buffer[i64], n: Buffer[i64], q8: Buffer[i8], r8: Buffer[i8], q16: Buffer[i16], r16: Buffer[i16], q64: Buffer[i64], r64: Buffer[i64]):
    g = gid()
    q8[g] = x[g] // y[g]
    r8[g] = x[g] % y[g]
    q16[g] = x16[g] // y16[g]
    r16[g] = x16[g] % y16[g]
    q64[g] = m[g] // n[g]
    r64[g] = m[g] % n[g]
