# Scalar parameters of every new type, at their limits (a different path from buffers:
# kernel arguments / push constants / uniforms).
#   o[0] = a (u64 2^64-1) ; o[1] = u64(b) (i8 -128 sign-extends: 2^64-128) ; o[2] = u64(c) (u8 255) ;
#   o[3] = u64(d) (u32 2^32-1) ; o[4] = u64(e) (i16 -32768: 2^64-32768) ; o[5] = u64(f) (u16 65535) ;
#   o[6] = u64(h) (i64 MIN: 2^63) ; o[7] = u64(i32(p > f64(0.1))) with p = the double 0.1 -> 0, and i32(p == f64(0.1)) * 2 -> 2
#   expect o = [2**64-1, 2**64-128, 255, 2**32-1, 2**64-32768, 65535, 2**63, 2]
#   fo[0] = q (f64 nan) ; fo[1] = r (f64 -0.0) ; fo[2] = s (f64 5e-324... use 2.2250738585072014e-308)
#   expect fo = [nan, -0.0, 2.2250738585072014e-308]
# difftest: launch n=1 wave=1
# difftest: arg a = 18446744073709551615
# difftest: arg b = -128
# difftest: arg c = 255
# difftest: arg d = 4294967295
# difftest: arg e = -32768
# difftest: arg f = 65535
# difftest: arg h = -9223372036854775808
# difftest: arg p = 0.1
# difftest: arg q = nan
# difftest: arg r = -0.0
# difftest: arg s = 2.2250738585072014e-308
# difftest: arg o = u64[0] * 8
# difftest: arg fo = f64[0] * 3
def k(a: u64, b: i8, c: u8, d: u32, e: i16, f: u16, h: i64, p: f64, q: f64, r: f64, s: f64, o: Buffer[u64], fo: Buffer[f64]):
    o[0] = a
    o[1] = u64(b)
    o[2] = u64(c)
    o[3] = u64(d)
    o[4] = u64(e)
    o[5] = u64(f)
    o[6] = u64(h)
    o[7] = u64(i32(p > f64(0.1))) + u64(i32(p == f64(0.1)) * 2)
    fo[0] = q
    fo[1] = r
    fo[2] = s
