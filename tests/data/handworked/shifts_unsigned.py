# Shifts: amount masked to the result type's width; >> logical for unsigned.
# x = u32[2^31, 2^31, 2^31, 0xFFFFFFFF], s = u32[31, 32, 33, 4294967295]
#   r  = x >> s : 2^31>>31 = 1; >>32 -> >>0 = 2^31; >>33 -> >>1 = 2^30; >>(4294967295&31=31) = 1
#   expect r = [1, 2**31, 2**30, 1]
#   l  = x << s : 2^31<<31 = 0; <<0 = 2^31; <<1 = 0; 0xFFFFFFFF<<31 = 2^31
#   expect l = [0, 2**31, 0, 2**31]
# u64: y = [2^63, 2^63, 1, 2^64-1], t = u64[63, 64, 65, 127]
#   expect r64 = [1, 2**63, 0, 1]
#   expect l64 = [0, 2**63, 2, 2**63]
# u8: z = [128, 128, 255, 1], a = u8[7, 8, 9, 255]
#   z >> a: 128>>7=1, >>0=128, 255>>1 = 127, 1>>7 = 0
#   expect r8 = [1, 128, 127, 0]
#   z << a: 128<<7 = 0 (wrap), 128<<0=128, 255<<1 = 254, 1<<7 = 128
#   expect l8 = [0, 128, 254, 128]
# mixed widths u8 << u32: done in u32 (the wider): z << u32(1): 256, 256, 510, 2
#   expect m = [256, 256, 510, 2]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[2147483648, 2147483648, 2147483648, 4294967295]
# difftest: arg s = u32[31, 32, 33, 4294967295]
# difftest: arg y = u64[9223372036854775808, 9223372036854775808, 1, 18446744073709551615]
# difftest: arg t = u64[63, 64, 65, 127]
# difftest: arg z = u8[128, 128, 255, 1]
# difftest: arg a = u8[7, 8, 9, 255]
# difftest: arg r = u32[0] * 4
# difftest: arg l = u32[0] * 4
# difftest: arg r64 = u64[0] * 4
# difftest: arg l64 = u64[0] * 4
# difftest: arg r8 = u8[0] * 4
# difftest: arg l8 = u8[0] * 4
# difftest: arg m = u32[0] * 4
def k(x: Buffer[u32], s: Buffer[u32], y: Buffer[u64], t: Buffer[u64], z: Buffer[u8], a: Buffer[u8], r: Buffer[u32], l: Buffer[u32], r64: Buffer[u64], l64: Buffer[u64], r8: Buffer[u8], l8: Buffer[u8], m: Buffer[u32]):
    g = gid()
    r[g] = x[g] >> s[g]
    l[g] = x[g] << s[g]
    r64[g] = y[g] >> t[g]
    l64[g] = y[g] << t[g]
    r8[g] = z[g] >> a[g]
    l8[g] = z[g] << a[g]
    m[g] = z[g] << u32(1)
