# Conversions from i32 to every unsigned type: truncate the two's-complement bits, read
# as T (semantics.md "Conversions ... the value's two's-complement bits are truncated to
# T's width, then read as T (so widening extends by the *source's* signedness").
# x = [-1, -128, 2147483647, -2147483648]
#   expect a = [255, 128, 255, 0]
#   expect b = [65535, 65408, 65535, 0]
#   expect c = [4294967295, 4294967168, 2147483647, 2147483648]
#   expect d = [2**64-1, 2**64-128, 2147483647, 2**64-2**31]
#   expect e = [2**64-1, 2**64-128, 2**64-1, 0]
# e = u64(i8(x)): i8 truncation then sign-extension to 64 bits.
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-1, -128, 2147483647, -2147483648]
# difftest: arg a = u8[0] * 4
# difftest: arg b = u16[0] * 4
# difftest: arg c = u32[0] * 4
# difftest: arg d = u64[0] * 4
# difftest: arg e = u64[0] * 4
def k(x: Buffer[i32], a: Buffer[u8], b: Buffer[u16], c: Buffer[u32], d: Buffer[u64], e: Buffer[u64]):
    g = gid()
    v = x[g]
    a[g] = u8(v)
    b[g] = u16(v)
    c[g] = u32(v)
    d[g] = u64(v)
    e[g] = u64(i8(v))
