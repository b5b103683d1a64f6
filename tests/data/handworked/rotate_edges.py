# rotate_left/right by n mod N, n of any integer type (negative, > width, u64 huge).
# u32 x = 0x80000001 in every lane; n = i32[33, -1, 64, -33]
#   rotl(x, 33) = rotl 1 = 3; rotl(x,-1) = rotl 31 = 0xC0000000; rotl 0 = x; rotl(-33 mod 32 = 31) = 0xC0000000
#   expect rl = [3, 3221225472, 2147483649, 3221225472]
#   rotr: rotr 1 = 0xC0000000; rotr 31 = 3; x; rotr 31 = 3
#   expect rr = [3221225472, 3, 2147483649, 3]
# amount u64 m = [2^64-1, 2^63, 1, 32]: (2^64-1) mod 32 = 31 -> rotl 31 = 0xC0000000; 2^63 mod 32 = 0 -> x; rotl 1 = 3; 0 -> x
#   expect rm = [3221225472, 2147483649, 3, 2147483649]
# u8 y = 0x81 = 129; rotl by n (i32): 33 mod 8 = 1 -> 3; -1 -> 7 -> rotr 1 = 0xC0 = 192; 64 mod 8 = 0 -> 129; -33 mod 8 = 7 -> 192
#   expect r8 = [3, 192, 129, 192]
# i8 z = i8(-127) (0x81): same bits read as i8: 3, -64, -127, -64
#   expect s8 = [3, -64, -127, -64]
# i16 w = -32768 (0x8000): rotr by n: 33 mod 16 = 1 -> 0x4000 = 16384; -1 -> 15 -> rotl 1 = 1; 64 -> 0 -> -32768; -33 mod 16 = 15 -> 1
#   expect s16 = [16384, 1, -32768, 1]
# u64 v = 2^63 + 1: rotl by n: 33 -> bits 32 and 0 set... rotl(2^63+1, 33) = 2^32 + 2^33... : bit 63 -> (63+33) mod 64 = 32, bit 0 -> 33: 2^32+2^33
#   -1 -> 63: bit 63 -> 62, bit 0 -> 63: 2^62+2^63 ; 64 -> 0: v ; -33 -> 31: bit63 -> 30, bit0 -> 31: 2^30+2^31
#   expect r64 = [2**32+2**33, 2**62+2**63, 2**63+1, 2**30+2**31]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[2147483649] * 4
# difftest: arg n = i32[33, -1, 64, -33]
# difftest: arg m = u64[18446744073709551615, 9223372036854775808, 1, 32]
# difftest: arg y = u8[129] * 4
# difftest: arg z = i8[-127] * 4
# difftest: arg w = i16[-32768] * 4
# difftest: arg v = u64[9223372036854775809] * 4
# difftest: arg rl = u32[0] * 4
# difftest: arg rr = u32[0] * 4
# difftest: arg rm = u32[0] * 4
# difftest: arg r8 = u8[0] * 4
# difftest: arg s8 = i8[0] * 4
# difftest: arg s16 = i16[0] * 4
# difftest: arg r64 = u64[0] * 4
def k(x: Buffer[u32], n: Buffer[i32], m: Buffer[u64], y: Buffer[u8], z: Buffer[i8], w: Buffer[i16], v: Buffer[u64], rl: Buffer[u32], rr: Buffer[u32], rm: Buffer[u32], r8: Buffer[u8], s8: Buffer[i8], s16: Buffer[i16], r64: Buffer[u64]):
    g = gid()
    rl[g] = rotate_left(x[g], n[g])
    rr[g] = rotate_right(x[g], n[g])
    rm[g] = rotate_left(x[g], m[g])
    r8[g] = rotate_left(y[g], n[g])
    s8[g] = rotate_left(z[g], n[g])
    s16[g] = rotate_right(w[g], n[g])
    r64[g] = rotate_left(v[g], n[g])
