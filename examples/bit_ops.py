# The integer functions as docs/semantics.md ("Bit operations") defines them: counts and
# reversals within the type's own bits (of 0: clz and ctz give the width), rotations by
# the amount mod the width, mul_hi the high half of the full product, and min, max and
# abs of integers in the type's order (abs of the minimum is the minimum).
# Launch: n = 4, one wave of 4. Args: x = u32[0, 1, 2^31, 2^32 - 1],
#   b = i8[-128, -1, 5, 127], the outputs zeroed.
# Oracle, per workitem g:
#   c[g]     = clz(x[g]):      32, 31, 0, 0;
#   c[g + 4] = ctz(x[g]):      32, 0, 31, 0;
#   c[g + 8] = popcount(x[g]): 0, 1, 1, 32;
#   r[g]     = bit_reverse(x[g]):  0, 2^31 = 2147483648, 1, 4294967295;
#   r[g + 4] = rotate_left(x[g], 33), by 33 mod 32 = 1: 0, 2, 1, 4294967295;
#   h[g]     = mul_hi(x[g], 2^32 - 1) = x[g] - 1 for x[g] > 0: 0, 0, 2147483647, 4294967294;
#   h[g + 4] = min(x[g], 2), unsigned: 0, 1, 2, 2;
#   s[g]     = abs(b[g]): -128 (the negation wraps), 1, 5, 127.
# A compiler whose clz or ctz of 0 is 31 (or undefined) gives c[0] or c[4] = 31; one that
# compares u32 as signed gives h[6] = 2147483648 and h[7] = 4294967295 (each below 2
# as a signed value).
# difftest: launch n=4 wave=4
# difftest: arg x = u32[0, 1, 2147483648, 4294967295]
# difftest: arg b = i8[-128, -1, 5, 127]
# difftest: arg c = u32[0] * 12
# difftest: arg r = u32[0] * 8
# difftest: arg h = u32[0] * 8
# difftest: arg s = i8[0] * 4
def bit_ops(x: Buffer[u32], b: Buffer[i8], c: Buffer[u32], r: Buffer[u32], h: Buffer[u32],
            s: Buffer[i8]):
    g = gid()
    c[g] = clz(x[g])
    c[g + 4] = ctz(x[g])
    c[g + 8] = popcount(x[g])
    r[g] = bit_reverse(x[g])
    r[g + 4] = rotate_left(x[g], 33)
    h[g] = mul_hi(x[g], u32(4294967295))
    h[g + 4] = min(x[g], 2)
    s[g] = abs(b[g])
