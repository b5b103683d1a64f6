# Wave reductions of unsigned/narrow types: sum wraps at the type's width, min/max in the
# type's order. n = 4, one wave.
# x = u32[2^31, 2^32-1, 1, 2^31+5]
#   wave_sum: 2^31 + (2^32-1) + 1 + 2^31+5 = 2^33 + 5 -> mod 2^32 = 5
#   wave_min: 1 ; wave_max: 2^32-1
#   expect a = [5, 5, 5, 5, 1, 1, 1, 1, 4294967295, 4294967295, 4294967295, 4294967295]
# b = i8[-128, 127, -1, 100]
#   sum: -128+127-1+100 = 98 ; min -128 ; max 127
#   prefix_sum (exclusive, wraps): 0, -128, -1, -2 ; inclusive: -128, -1, -2, 98
#   expect c = [98, 98, 98, 98, -128, -128, -128, -128, 127, 127, 127, 127, 0, -128, -1, -2, -128, -1, -2, 98]
# d = u64[2^63, 2^64-1, 2^63, 3]
#   sum mod 2^64: 2^63 + 2^64-1 + 2^63 + 3 = 2^65 + 2 -> 2 ; min 3 ; max 2^64-1
#   inclusive_sum: 2^63, 2^63-1 (2^63 + 2^64 - 1 mod 2^64), 2^64 - 1, 2
#   expect e = [2, 2, 2, 2, 3, 3, 3, 3, 2**64-1, 2**64-1, 2**64-1, 2**64-1, 2**63, 2**63-1, 2**64-1, 2]
# h = u16[65535, 1, 32768, 32768]: sum = 65535+1+65536 = 131072 -> 0; min 1; max 65535
#   expect f = [0, 0, 0, 0, 1, 1, 1, 1, 65535, 65535, 65535, 65535]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[2147483648, 4294967295, 1, 2147483653]
# difftest: arg b = i8[-128, 127, -1, 100]
# difftest: arg d = u64[9223372036854775808, 18446744073709551615, 9223372036854775808, 3]
# difftest: arg h = u16[65535, 1, 32768, 32768]
# difftest: arg a = u32[0] * 12
# difftest: arg c = i8[0] * 20
# difftest: arg e = u64[0] * 16
# difftest: arg f = u16[0] * 12
def k(x: Buffer[u32], b: Buffer[i8], d: Buffer[u64], h: Buffer[u16], a: Buffer[u32], c: Buffer[i8], e: Buffer[u64], f: Buffer[u16]):
    g = gid()
    a[g] = wave_sum(x[g])
    a[g + 4] = wave_min(x[g])
    a[g + 8] = wave_max(x[g])
    c[g] = wave_sum(b[g])
    c[g + 4] = wave_min(b[g])
    c[g + 8] = wave_max(b[g])
    c[g + 12] = prefix_sum(b[g])
    c[g + 16] = inclusive_sum(b[g])
    e[g] = wave_sum(d[g])
    e[g + 4] = wave_min(d[g])
    e[g + 8] = wave_max(d[g])
    e[g + 12] = inclusive_sum(d[g])
    f[g] = wave_sum(h[g])
    f[g + 4] = wave_min(h[g])
    f[g + 8] = wave_max(h[g])
