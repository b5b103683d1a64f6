# A narrow operation's result wraps at its own width BEFORE it meets a wider value
# (implicit widening "never changes the value"): a translation that computes in 32 bits
# must truncate before widening, comparing, dividing, shifting right or indexing.
# a = u8[255, 200, 16, 128], b = u8[255, 100, 16, 128], c = i8[100, -128, 127, 64], h = u16[65535, 256, 300, 32768]
#   r0 = 10*(g+1) + i32(a * b)  : 10 + (65025 % 256 = 1) = 11 ; 20 + 20000 % 256 = 32 -> 52 ; 30 + 0 ; 40 + 0
#   expect r0 = [11, 52, 30, 40]
#   r1 = i32(a + b > 100)       : 254 > 100 -> 1 ; 300 -> 44 -> 0 ; 32 -> 0 ; 256 -> 0 -> 0
#   expect r1 = [1, 0, 0, 0]
#   r2 = (a << 4) >> 4          : 0x0F = 15 ; 200 = 0xC8 -> 0x80 >> 4 = 8 ; 16 -> 0 ; 128 -> 0
#   expect r2 = [15, 8, 0, 0]
#   r3 = (c + c) // 2 (i8)      : 200 -> -56 // 2 = -28 ; -256 -> 0 ; 254 -> -2 // 2 = -1 ; 128 -> -128 // 2 = -64
#   expect r3 = [-28, 0, -1, -64]
#   r4 = u64 2^40 + (h * h)     : 65535^2 % 65536 = 1 ; 65536 % .. = 0 ; 90000 % 65536 = 24464 ; 2^30 % 2^16 = 0
#   expect r4 = [2**40+1, 2**40, 2**40+24464, 2**40]
#   r5 = i64(-c) (i8 negation wraps first): -100, -128 (neg of -128 wraps), -127, -64
#   expect r5 = [-100, -128, -127, -64]
#   r6 = u32(~a) * 2 : ~255 = 0 ; ~200 = 55 -> 110 ; ~16 = 239 -> 478 ; ~128 = 127 -> 254
#   expect r6 = [0, 110, 478, 254]
#   r7 = i32(c * c < 0)       : 10000 % 256 = 16 -> 0 ; 16384 -> 0 -> 0 ; 16129 % 256 = 1 -> 0 ; 4096 -> 0 -> 0
#   expect r7 = [0, 0, 0, 0]
#   r8 = i32((c + 100) < 0) with c + 100 in i8 (100 fits i8): 200->-56: 1 ; -28: 1 ; 227 -> -29: 1 ; 164 -> -92: 1
#   expect r8 = [1, 1, 1, 1]
# difftest: launch n=4 wave=4
# difftest: arg a = u8[255, 200, 16, 128]
# difftest: arg b = u8[255, 100, 16, 128]
# difftest: arg c = i8[100, -128, 127, 64]
# difftest: arg h = u16[65535, 256, 300, 32768]
# difftest: arg r0 = i32[0] * 4
# difftest: arg r1 = i32[0] * 4
# difftest: arg r2 = u8[0] * 4
# difftest: arg r3 = i8[0] * 4
# difftest: arg r4 = u64[0] * 4
# difftest: arg r5 = i64[0] * 4
# difftest: arg r6 = u32[0] * 4
# difftest: arg r7 = i32[0] * 4
# difftest: arg r8 = i32[0] * 4
def k(a: Buffer[u8], b: Buffer[u8], c: Buffer[i8], h: Buffer[u16], r0: Buffer[i32], r1: Buffer[i32], r2: Buffer[u8], r3: Buffer[i8], r4: Buffer[u64], r5: Buffer[i64], r6: Buffer[u32], r7: Buffer[i32], r8: Buffer[i32]):
    g = gid()
    x = a[g]
    y = b[g]
    z = c[g]
    base = 10 * (g + 1)
    r0[g] = base + i32(x * y)
    r1[g] = i32(x + y > 100)
    r2[g] = (x << 4) >> 4
    r3[g] = (z + z) // 2
    big: u64 = 1099511627776
    w = h[g]
    r4[g] = big + (w * w)
    r5[g] = i64(-z)
    r6[g] = u32(~x) * 2
    r7[g] = i32(z * z < 0)
    r8[g] = i32((z + 100) < 0)
