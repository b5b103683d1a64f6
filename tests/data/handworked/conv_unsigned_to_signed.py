# u32 -> every signed type: truncate and read as signed; widening zero-extends (source
# unsigned). x = [4294967295, 2147483648, 255, 128]
#   expect a = [-1, 0, -1, -128]
#   expect b = [-1, 0, 255, 128]
#   expect c = [-1, -2147483648, 255, 128]
#   expect d = [4294967295, 2147483648, 255, 128]
#   expect e = [-1, 0, -1, -128]
# e = i64(i8(x)) sign-extends the i8.
# difftest: launch n=4 wave=4
# difftest: arg x = u32[4294967295, 2147483648, 255, 128]
# difftest: arg a = i8[0] * 4
# difftest: arg b = i16[0] * 4
# difftest: arg c = i32[0] * 4
# difftest: arg d = i64[0] * 4
# difftest: arg e = i64[0] * 4
def k(x: Buffer[u32], a: Buffer[i8], b: Buffer[i16], c: Buffer[i32], d: Buffer[i64], e: Buffer[i64]):
    g = gid()
    v = x[g]
    a[g] = i8(v)
    b[g] = i16(v)
    c[g] = i32(v)
    d[g] = i64(v)
    e[g] = i64(i8(v))
