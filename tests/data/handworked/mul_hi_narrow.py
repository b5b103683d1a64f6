# mul_hi of 8/16-bit types, and mixed widths (one signedness, the wider width) + literal.
# i8 a = [-128, -128, 127, -1], b = [-128, 127, 127, 1]
#   16384>>8 = 64; -16256>>8 = floor(-63.5) = -64; 16129>>8 = 63; -1>>8 = -1
#   expect h8 = [64, -64, 63, -1]
# u8 c = [255, 255, 128, 16], d = [255, 2, 2, 16]
#   65025>>8 = 254; 510>>8 = 1; 256>>8 = 1; 256>>8 = 1
#   expect u8h = [254, 1, 1, 1]
# i16 e = [-32768, -32768, 32767, -1], f = [-32768, 32767, 32767, -1]
#   2^30>>16 = 16384; -1073709056>>16 = -16384; 1073676289>>16 = 16383; 0
#   expect h16 = [16384, -16384, 16383, 0]
# mixed: mul_hi(u8 c, u32 d32) in u32: c * d32 >> 32, d32 = [2^32-1]*4:
#   255*(2^32-1)>>32 = 254; 254; 128*.. = 127; 16*.. = 15
#   expect mx = [254, 254, 127, 15]
# literal: mul_hi(c, 255) is u8: 65025>>8=254, 254, 32640>>8=127, 4080>>8 = 15
#   expect lt = [254, 254, 127, 15]
# difftest: launch n=4 wave=4
# difftest: arg a = i8[-128, -128, 127, -1]
# difftest: arg b = i8[-128, 127, 127, 1]
# difftest: arg c = u8[255, 255, 128, 16]
# difftest: arg d = u8[255, 2, 2, 16]
# difftest: arg e = i16[-32768, -32768, 32767, -1]
# difftest: arg f = i16[-32768, 32767, 32767, -1]
# difftest: arg d32 = u32[4294967295] * 4
# difftest: arg h8 = i8[0] * 4
# difftest: arg u8h = u8[0] * 4
# difftest: arg h16 = i16[0] * 4
# difftest: arg mx = u32[0] * 4
# difftest: arg lt = u8[0] * 4
def k(a: Buffer[i8], b: Buffer[i8], c: Buffer[u8], d: Buffer[u8], e: Buffer[i16], f: Buffer[i16], d32: Buffer[u32], h8: Buffer[i8], u8h: Buffer[u8], h16: Buffer[i16], mx: Buffer[u32], lt: Buffer[u8]):
    g = gid()
    h8[g] = mul_hi(a[g], b[g])
    u8h[g] = mul_hi(c[g], d[g])
    h16[g] = mul_hi(e[g], f[g])
    mx[g] = mul_hi(c[g], d32[g])
    lt[g] = mul_hi(c[g], 255)
