# Private arrays indexed by lane-dependent values inside divergent branches and loops;
# element types u8 (wraps), u64, i8, f64.  n = 8, one wave of 8.
# a: Array[u8, 4]: loop i in 0..g: a[(g + i) % 4] += 100  (g+1 trips? no: range(g) = g trips)
#   lane g adds 100 to indices (g+i)%4 for i < g. Then out8[g] = a[0]+a[1]+a[2]+a[3] in u32.
#   per lane: g=0: nothing -> 0. g=1: a[1]=100 -> 100. g=2: a[2],a[3] = 100 -> 200.
#   g=3: a[3],a[0],a[1] -> 300. g=4: i=0..3 -> a[0..3] each 100 -> 400.
#   g=5: 5 trips: indices 1,2,3,0,1 -> a[1] = 200, others 100 -> 500 (u8 elements hold 200, 100: no wrap)
#   g=6: 6 trips: 2,3,0,1,2,3 -> a[2] = a[3] = 200 -> 600
#   g=7: 7 trips: 3,0,1,2,3,0,1 -> a[3]=200, a[0]=200, a[1]=200, a[2]=100 -> 700
#   expect s = [0, 100, 200, 300, 400, 500, 600, 700]
#   then odd lanes: a[g % 4] = a[g % 4] + 200 (wraps at 256): out9[g] = a[g % 4]
#   g=1: a[1] = 100+200 = 300-256 = 44; g=3: a[3] = 100+200 = 44; g=5: a[1] = 200+200 = 144; g=7: a[3]=200+200 = 144
#   even lanes: a[g % 4]: g=0: 0; g=2: 100; g=4: 100; g=6: 200
#   expect t = [0, 44, 100, 44, 100, 144, 200, 144]
# b: Array[u64, 3]: b[g % 3] = 2^64 - 1 - g; then in lanes g >= 4: b[(g+1) % 3] = b[g % 3] >> 1
#   v[g] = b[0] ^ b[1] ^ b[2]
#   g<4: only b[g%3] = M-g (M=2^64-1): v = M - g
#   g=4: b[1]=M-4, b[2] = (M-4)>>1 ; g=5: b[2] = M-5, b[0] = (M-5)>>1; g=6: b[0]=M-6, b[1]=(M-6)>>1; g=7: b[1]=M-7,b[2]=(M-7)>>1
#   expect v = [2**64-1, 2**64-2, 2**64-3, 2**64-4, (2**64-5)^((2**64-5)>>1), (2**64-6)^((2**64-6)>>1), (2**64-7)^((2**64-7)>>1), (2**64-8)^((2**64-8)>>1)]
# c: Array[f64, 2]: c[g % 2] = f64(-0.0) in even lanes, f64(1.5) * f64(g) in odd lanes; d[g] = c[0] + c[1]... with -0.0 + 0.0 = 0.0
#   even: c[0] = -0.0, c[1] = 0.0 -> -0.0 + 0.0 = 0.0 ; odd: c[1] = 1.5g, c[0] = 0.0 -> 1.5 g
#   and e[g] = c[0] (even: -0.0, odd 0.0)
#   expect d = [0.0, 1.5, 0.0, 4.5, 0.0, 7.5, 0.0, 10.5]
#   expect e = [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0]
# difftest: launch n=8 wave=8
# difftest: arg s = u32[0] * 8
# difftest: arg t = u8[0] * 8
# difftest: arg v = u64[0] * 8
# difftest: arg d = f64[0] * 8
# difftest: arg e = f64[0] * 8
def k(s: Buffer[u32], t: Buffer[u8], v: Buffer[u64], d: Buffer[f64], e: Buffer[f64]):
    g = gid()
    a: Array[u8, 4]
    for i in range(g):
        a[(g + i) % 4] = a[(g + i) % 4] + 100
    s[g] = u32(a[0]) + u32(a[1]) + u32(a[2]) + u32(a[3])
    if g % 2 == 1:
        a[g % 4] = a[g % 4] + 200
    t[g] = a[g % 4]
    b: Array[u64, 3]
    b[g % 3] = 18446744073709551615 - u64(g)
    if g >= 4:
        b[(g + 1) % 3] = b[g % 3] >> 1
    v[g] = b[0] ^ b[1] ^ b[2]
    c: Array[f64, 2]
    if g % 2 == 0:
        c[0] = f64(-0.0)
    else:
        c[1] = f64(1.5) * f64(g)
    d[g] = c[0] + c[1]
    e[g] = c[0]
