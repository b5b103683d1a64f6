# Signed shifts: >> arithmetic, amount masked (negative amounts too).
# x = i32[MIN, MIN, -1, 1], s = i32[31, 32, -1, -31]
#   x >> s: MIN>>31 = -1; >>0 = MIN; -1 >> 31 = -1; 1 >> (-31 & 31 = 1) = 0
#   expect r = [-1, -2**31, -1, 0]
#   x << s: MIN<<31 = 0; MIN; -1<<31 = MIN; 1<<1 = 2
#   expect l = [0, -2**31, -2**31, 2]
# i8: z = i8[-128, -128, -1, 64], a = i8[7, 8, -1, 1]
#   >>: -128>>7 = -1, >>0 = -128, -1>>7 = -1, 64>>1 = 32
#   expect r8 = [-1, -128, -1, 32]
#   <<: -128<<7 = 0, -128, -1<<7 = -128, 64<<1 = 128 wraps -128
#   expect l8 = [0, -128, -128, -128]
# i16: w = i16[-32768, 1, 16384, -2], b = i16[15, 16, 1, -1]
#   >>: -1, 1 (>>0), 8192, -2>>15 = -1
#   expect r16 = [-1, 1, 8192, -1]
#   <<: 0, 1, -32768, -2<<15 = 0
#   expect l16 = [0, 1, -32768, 0]
# i64: v = i64[MIN, -1, 1, 5], c = i64[63, 64, -1, 65]
#   >>: -1, -1, 0, 2
#   expect r64 = [-1, -1, 0, 2]
#   <<: 0, -1, MIN, 10
#   expect l64 = [0, -1, -2**63, 10]
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-2147483648, -2147483648, -1, 1]
# difftest: arg s = i32[31, 32, -1, -31]
# difftest: arg z = i8[-128, -128, -1, 64]
# difftest: arg a = i8[7, 8, -1, 1]
# difftest: arg w = i16[-32768, 1, 16384, -2]
# difftest: arg b = i16[15, 16, 1, -1]
# difftest: arg v = i64[-9223372036854775808, -1, 1, 5]
# difftest: arg c = i64[63, 64, -1, 65]
# difftest: arg r = i32[0] * 4
# difftest: arg l = i32[0] * 4
# difftest: arg r8 = i8[0] * 4
# difftest: arg l8 = i8[0] * 4
# difftest: arg r16 = i16[0] * 4
# difftest: arg l16 = i16[0] * 4
# difftest: arg r64 = i64[0] * 4
# difftest: arg l64 = i64[0] * 4
def k(x: Buffer[i32], s: Buffer[i32], z: Buffer[i8], a: Buffer[i8], w: Buffer[i16], b: Buffer[i16], v: Buffer[i64], c: Buffer[i64], r: Buffer[i32], l: Buffer[i32], r8: Buffer[i8], l8: Buffer[i8], r16: Buffer[i16], l16: Buffer[i16], r64: Buffer[i64], l64: Buffer[i64]):
    g = gid()
    r[g] = x[g] >> s[g]
    l[g] = x[g] << s[g]
    r8[g] = z[g] >> a[g]
    l8[g] = z[g] << a[g]
    r16[g] = w[g] >> b[g]
    l16[g] = w[g] << b[g]
    r64[g] = v[g] >> c[g]
    l64[g] = v[g] << c[g]
