# Implicit widening at arguments, returns and assignments (same signedness only), and
# the narrow arithmetic inside helpers wrapping before it is widened.
# x = u32[4294967295, 2147483648, 0, 1], s = i8[-1, -128, 127, 0]
#   a[g] = zx(x) where zx(v: u64) -> u64 returns v + 1 : widening zero-extends: 2^32, 2^31+1, 1, 2
#   expect a = [2**32, 2**31+1, 1, 2]
#   b[g] = sq(s) where sq(v: i16) -> i64 returns v * v (i16 arithmetic, wraps at 16): 1, 16384, 16129, 0
#   expect b = [1, 16384, 16129, 0]
#   c[g] = nb(s) where nb(v: i8) -> i64 returns v * v (i8: wraps): 1, 0, 1, 0
#   expect c = [1, 0, 1, 0]
#   d[g] = (x if g % 2 == 0 else u32(s)) as u64 through a u64 variable: w: u64 = (x[g] if .. else u32(s[g]))
#     g0: 4294967295 ; g1: u32(-128) = 4294967168 ; g2: 0 ; g3: u32(0) = 0
#   expect d = [4294967295, 4294967168, 0, 0]
#   e[g] = pick(s, x) -> i64: returns i64 of (u8(s) if s < 0 else u8 200) + u8(100) in u8 then zero-extended via u64 -> i64
#     g0: u8(-1) = 255 + 100 = 355 -> 99 ; g1: 128 + 100 = 228 ; g2: 200+100 = 300 -> 44 ; g3: 44
#   expect e = [99, 228, 44, 44]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[4294967295, 2147483648, 0, 1]
# difftest: arg s = i8[-1, -128, 127, 0]
# difftest: arg a = u64[0] * 4
# difftest: arg b = i64[0] * 4
# difftest: arg c = i64[0] * 4
# difftest: arg d = u64[0] * 4
# difftest: arg e = i64[0] * 4
def k(x: Buffer[u32], s: Buffer[i8], a: Buffer[u64], b: Buffer[i64], c: Buffer[i64], d: Buffer[u64], e: Buffer[i64]):
    g = gid()
    a[g] = zx(x[g])
    b[g] = sq(s[g])
    c[g] = nb(s[g])
    w: u64 = x[g] if g % 2 == 0 else u32(s[g])
    d[g] = w
    e[g] = pick(s[g])

def zx(v: u64) -> u64:
    return v + 1

def sq(v: i16) -> i64:
    return v * v

def nb(v: i8) -> i64:
    return v * v

def pick(v: i8) -> i64:
    t = u8(v) if v < 0 else u8(200)
    r: u8 = t + u8(100)
    return i64(r)
