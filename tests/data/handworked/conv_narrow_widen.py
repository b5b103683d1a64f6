# Narrow types widened: implicitly within a signedness (i8 -> i32 sign-extends, u8 -> u32
# zero-extends), explicitly across. x = i8[-128, -1, 127, 0], y = u8[128, 255, 127, 0]
#   a[g] = x (implicit i8 -> i32 store widening) : expect a = [-128, -1, 127, 0]
#   expect a = [-128, -1, 127, 0]
#   b[g] = y (implicit u8 -> u32)
#   expect b = [128, 255, 127, 0]
#   c[g] = u16(x): -128 -> 65408, -1 -> 65535
#   expect c = [65408, 65535, 127, 0]
#   d[g] = i16(y): zero-extends: 128, 255
#   expect d = [128, 255, 127, 0]
#   e[g] = x + 1000 in i32 (literal 1000 does not fit i8: i32, and i8 widens to i32)
#   expect e = [872, 999, 1127, 1000]
#   f[g] = u64(x) (sign-extends): 2^64-128, 2^64-1
#   expect f = [2**64-128, 2**64-1, 127, 0]
#   h[g] = i8(y) + x  (i8 arithmetic, wraps): -128+-128=0, -1+-1=-2, 127+127=-2, 0
#   expect h = [0, -2, -2, 0]
# difftest: launch n=4 wave=4
# difftest: arg x = i8[-128, -1, 127, 0]
# difftest: arg y = u8[128, 255, 127, 0]
# difftest: arg a = i32[0] * 4
# difftest: arg b = u32[0] * 4
# difftest: arg c = u16[0] * 4
# difftest: arg d = i16[0] * 4
# difftest: arg e = i32[0] * 4
# difftest: arg f = u64[0] * 4
# difftest: arg h = i8[0] * 4
def k(x: Buffer[i8], y: Buffer[u8], a: Buffer[i32], b: Buffer[u32], c: Buffer[u16], d: Buffer[i16], e: Buffer[i32], f: Buffer[u64], h: Buffer[i8]):
    g = gid()
    a[g] = x[g]
    b[g] = y[g]
    c[g] = u16(x[g])
    d[g] = i16(y[g])
    e[g] = x[g] + 1000
    f[g] = u64(x[g])
    h[g] = i8(y[g]) + x[g]
