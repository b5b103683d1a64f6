# Narrow arithmetic wraps at its own width ("every type wraps at its own width").
# Lane g picks inputs; u = u8[250, 0, 255, 16], s = i8[127, -128, -1, 16],
#   h = i16[32767, -32768, 255, 256], v = u16[65535, 0, 256, 65535]
#   a[g] = u + 10                      : 4, 10, 9, 26
#   expect a = [4, 10, 9, 26]
#   b[g] = u - 1                       : 249, 255, 254, 15
#   expect b = [249, 255, 254, 15]
#   c[g] = u * u                       : 62500%256=36, 0, 65025%256=1, 256%256=0
#   expect c = [36, 0, 1, 0]
#   d[g] = s + 1                       : -128, -127, 0, 17
#   expect d = [-128, -127, 0, 17]
#   e[g] = -s                          : -127, -128 (wraps), 1, -16
#   expect e = [-127, -128, 1, -16]
#   f[g] = s * s                       : 16129%256=1 -> 1; 16384%256 = 0; 1; 256%256 = 0
#   expect f = [1, 0, 1, 0]
#   p[g] = h * 2                       : 65534 -> -2; -65536 -> 0; 510; 512
#   expect p = [-2, 0, 510, 512]
#   q[g] = v * v                       : (2^16-1)^2 mod 2^16 = 1; 0; 65536 mod -> 0; 1
#   expect q = [1, 0, 0, 1]
#   r[g] = ~u                          : 5, 255, 0, 239
#   expect r = [5, 255, 0, 239]
#   t[g] = -v                          : 1, 0, 65280, 1
#   expect t = [1, 0, 65280, 1]
#   z[g] = i32(u + 10 > u)             : 250+10=4 > 250 false -> 0; 1; 255+10 = 9 false 0; 1
#   expect z = [0, 1, 0, 1]
# difftest: launch n=4 wave=4
# difftest: arg u = u8[250, 0, 255, 16]
# difftest: arg s = i8[127, -128, -1, 16]
# difftest: arg h = i16[32767, -32768, 255, 256]
# difftest: arg v = u16[65535, 0, 256, 65535]
# difftest: arg a = u8[0] * 4
# difftest: arg b = u8[0] * 4
# difftest: arg c = u8[0] * 4
# difftest: arg d = i8[0] * 4
# difftest: arg e = i8[0] * 4
# difftest: arg f = i8[0] * 4
# difftest: arg p = i16[0] * 4
# difftest: arg q = u16[0] * 4
# difftest: arg r = u8[0] * 4
# difftest: arg t = u16[0] * 4
# difftest: arg z = i32[0] * 4
def k(u: Buffer[u8], s: Buffer[i8], h: Buffer[i16], v: Buffer[u16], a: Buffer[u8], b: Buffer[u8], c: Buffer[u8], d: Buffer[i8], e: Buffer[i8], f: Buffer[i8], p: Buffer[i16], q: Buffer[u16], r: Buffer[u8], t: Buffer[u16], z: Buffer[i32]):
    g = gid()
    x = u[g]
    y = s[g]
    a[g] = x + 10
    b[g] = x - 1
    c[g] = x * x
    d[g] = y + 1
    e[g] = -y
    f[g] = y * y
    p[g] = h[g] * 2
    w = v[g]
    q[g] = w * w
    r[g] = ~x
    t[g] = -w
    z[g] = i32(x + 10 > x)
