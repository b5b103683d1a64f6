# Literals at the 32/64-bit limits (semantics.md "Literals are i32 when they fit, else
# i64, else u64; where a literal meets a value of a narrow or unsigned type ... it is of
# that type when its value fits there").  Every translation must spell them exactly.
# x = u32[0, 1, 2, 3] (g), y = u64[...] = g
#   a[g] = x + 4294967295          (u32 wrap): g - 1 mod 2^32
#   expect a = [4294967295, 0, 1, 2]
#   b[g] = y + 18446744073709551615 (u64 literal): g - 1 mod 2^64
#   expect b = [2**64-1, 0, 1, 2]
#   c[g] = i64(g) + -9223372036854775808  (i64 literal)
#   expect c = [-2**63, -2**63+1, -2**63+2, -2**63+3]
#   d[g] = g + -2147483648 (i32): MIN + g
#   expect d = [-2**31, -2**31+1, -2**31+2, -2**31+3]
#   e[g] = g + 4294967296 (i64 literal, i32 widened): 2^32 + g
#   expect e = [2**32, 2**32+1, 2**32+2, 2**32+3]
#   f[g] = u64(i32(y > 9223372036854775807) ... comparisons with u64 literal 2^63 :
#        i32(y * 9223372036854775808 >= 9223372036854775808): y*2^63 = 0, 2^63, 0, 2^63 -> 0,1,0,1
#   expect f = [0, 1, 0, 1]
#   h[g] = i32(x < 4294967295) + i32(x > 2147483647) * 2: x small -> 1 each
#   expect h = [1, 1, 1, 1]
#   w[g] = 9223372036854775808 (a bare u64 literal stored into a u64 buffer) >> g
#   expect w = [2**63, 2**62, 2**61, 2**60]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[0, 1, 2, 3]
# difftest: arg y = u64[0, 1, 2, 3]
# difftest: arg a = u32[0] * 4
# difftest: arg b = u64[0] * 4
# difftest: arg c = i64[0] * 4
# difftest: arg d = i32[0] * 4
# difftest: arg e = i64[0] * 4
# difftest: arg f = i32[0] * 4
# difftest: arg h = i32[0] * 4
# difftest: arg w = u64[0] * 4
def k(x: Buffer[u32], y: Buffer[u64], a: Buffer[u32], b: Buffer[u64], c: Buffer[i64], d: Buffer[i32], e: Buffer[i64], f: Buffer[i32], h: Buffer[i32], w: Buffer[u64]):
    g = gid()
    a[g] = x[g] + 4294967295
    b[g] = y[g] + 18446744073709551615
    c[g] = i64(g) + -9223372036854775808
    d[g] = g + -2147483648
    e[g] = g + 4294967296
    f[g] = i32(y[g] * 9223372036854775808 >= 9223372036854775808)
    h[g] = i32(x[g] < 4294967295) + i32(x[g] > 2147483647) * 2
    w[g] = 9223372036854775808 >> y[g]
