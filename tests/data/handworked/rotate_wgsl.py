# 32/64-bit rotations only (WGSL-able), amount of a different signedness/width.
# x = i32[MIN, 1, -2, 0x12345678], n = u64[1, 2^64-1, 2^63+1, 36]
#   rotl(MIN,1) = 1; rotl(1, 63 mod 32 = 31) = MIN; rotl(-2 = 0xFFFFFFFE, 1) = 0xFFFFFFFD = -3;
#   rotl(0x12345678, 36 mod 32 = 4) = 0x23456781
#   expect a = [1, -2**31, -3, 0x23456781]
#   rotr(x, n): MIN rotr 1 = 0x40000000; 1 rotr 31 = 2; -2 rotr 1 = 0x7FFFFFFF; 0x12345678 rotr 4 = 0x81234567 -> signed
#   expect b = [0x40000000, 2, 0x7FFFFFFF, 0x81234567 - 2**32]
# i64 y = [MIN, 1, -2, 3], by n: rotl(MIN,1) = 1; rotl(1, 63) = MIN; rotl(-2, 1 (2^63+1 mod 64)) = -3; rotl(3, 36) = 3*2^36
#   expect c = [1, -2**63, -3, 3*2**36]
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-2147483648, 1, -2, 305419896]
# difftest: arg n = u64[1, 18446744073709551615, 9223372036854775809, 36]
# difftest: arg y = i64[-9223372036854775808, 1, -2, 3]
# difftest: arg a = i32[0] * 4
# difftest: arg b = i32[0] * 4
# difftest: arg c = i64[0] * 4
def k(x: Buffer[i32], n: Buffer[u64], y: Buffer[i64], a: Buffer[i32], b: Buffer[i32], c: Buffer[i64]):
    g = gid()
    a[g] = rotate_left(x[g], n[g])
    b[g] = rotate_right(x[g], n[g])
    c[g] = rotate_left(y[g], n[g])
