# clz/ctz/popcount within the type's own N bits; of 0 they give N; result type = arg type.
# lane g: x8 = i8[0, -1, 1, -128]; u8 same bits u8[0, 255, 1, 128]
#   clz(i8):  8, 0, 7, 0 ; ctz(i8): 8, 0, 0, 7 ; popcount(i8): 0, 8, 1, 1
#   packed p8[g*3 + j] for j = clz, ctz, popcount
#   expect p8 = [8,8,0, 0,0,8, 7,0,1, 0,7,1]
#   expect q8 = [8,8,0, 0,0,8, 7,0,1, 0,7,1]
# i16 [0, -1, 1, -32768]: clz 16,0,15,0; ctz 16,0,0,15; pop 0,16,1,1 (u16 same bits)
#   expect p16 = [16,16,0, 0,0,16, 15,0,1, 0,15,1]
#   expect q16 = [16,16,0, 0,0,16, 15,0,1, 0,15,1]
# i32 [0, -1, 1, MIN]
#   expect p32 = [32,32,0, 0,0,32, 31,0,1, 0,31,1]
#   expect q32 = [32,32,0, 0,0,32, 31,0,1, 0,31,1]
# i64 [0, -1, 1, MIN]
#   expect p64 = [64,64,0, 0,0,64, 63,0,1, 0,63,1]
#   expect q64 = [64,64,0, 0,0,64, 63,0,1, 0,63,1]
# difftest: launch n=4 wave=4
# difftest: arg a8 = i8[0, -1, 1, -128]
# difftest: arg b8 = u8[0, 255, 1, 128]
# difftest: arg a16 = i16[0, -1, 1, -32768]
# difftest: arg b16 = u16[0, 65535, 1, 32768]
# difftest: arg a32 = i32[0, -1, 1, -2147483648]
# difftest: arg b32 = u32[0, 4294967295, 1, 2147483648]
# difftest: arg a64 = i64[0, -1, 1, -9223372036854775808]
# difftest: arg b64 = u64[0, 18446744073709551615, 1, 9223372036854775808]
# difftest: arg p8 = i8[0] * 12
# difftest: arg q8 = u8[0] * 12
# difftest: arg p16 = i16[0] * 12
# difftest: arg q16 = u16[0] * 12
# difftest: arg p32 = i32[0] * 12
# difftest: arg q32 = u32[0] * 12
# difftest: arg p64 = i64[0] * 12
# difftest: arg q64 = u64[0] * 12
def k(a8: Buffer[i8], b8: Buffer[u8], a16: Buffer[i16], b16: Buffer[u16], a32: Buffer[i32], b32: Buffer[u32], a64: Buffer[i64], b64: Buffer[u64], p8: Buffer[i8], q8: Buffer[u8], p16: Buffer[i16], q16: Buffer[u16], p32: Buffer[i32], q32: Buffer[u32], p64: Buffer[i64], q64: Buffer[u64]):
    g = gid()
    i = g * 3
    p8[i] = clz(a8[g])
    p8[i + 1] = ctz(a8[g])
    p8[i + 2] = popcount(a8[g])
    q8[i] = clz(b8[g])
    q8[i + 1] = ctz(b8[g])
    q8[i + 2] = popcount(b8[g])
    p16[i] = clz(a16[g])
    p16[i + 1] = ctz(a16[g])
    p16[i + 2] = popcount(a16[g])
    q16[i] = clz(b16[g])
    q16[i + 1] = ctz(b16[g])
    q16[i + 2] = popcount(b16[g])
    p32[i] = clz(a32[g])
    p32[i + 1] = ctz(a32[g])
    p32[i + 2] = popcount(a32[g])
    q32[i] = clz(b32[g])
    q32[i + 1] = ctz(b32[g])
    q32[i + 2] = popcount(b32[g])
    p64[i] = clz(a64[g])
    p64[i + 1] = ctz(a64[g])
    p64[i + 2] = popcount(a64[g])
    q64[i] = clz(b64[g])
    q64[i + 1] = ctz(b64[g])
    q64[i + 2] = popcount(b64[g])
