# Private arrays written in a loop that some lanes `break` out of and others `continue`,
# with a wave op in the same trips; and a u16 array re-declared each trip (zeroed again),
# filled by an inner loop whose trip count depends on the lane. n = 8, wave 8.
# (expected values computed by an independent Python model of semantics.md: M = 10^12)
#   lane g runs i = 0..g (breaks at i = g + 1), skips the store when (i + g) % 3 == 0;
#   a[(3i + g) % 8] += (i + 1) * M ; out[g] = sum a[j] * (j + 1)
#   expect out = [0, 12000000000000, 6000000000000, 20000000000000, 50000000000000, 76000000000000, 70000000000000, 92000000000000]
#   c[g] += wave_sum(1) at each trip past the continue: the lanes there
#   expect c = [0, 10, 9, 9, 16, 14, 14, 18]
#   w[g] = wave_sum(a[g % 8]) after the loop
#   expect w = [5000000000000] * 8
#   t[g]: 3 trips r; b: Array[u16, 5] fresh each trip; g + r inner trips add 40000 (wraps at 65536) to b[q % 5]; t += sum(b)
#   expect t = [120000, 240000, 360000, 480000, 534464, 523392, 446784, 370176]
# difftest: launch n=8 wave=8
# difftest: arg out = i64[0] * 8
# difftest: arg c = i64[0] * 8
# difftest: arg w = i64[0] * 8
# difftest: arg t = i64[0] * 8
def k(out: Buffer[i64], c: Buffer[i64], w: Buffer[i64], t: Buffer[i64]):
    g = gid()
    a: Array[i64, 8]
    for i in range(8):
        if i > g:
            break
        if (i + g) % 3 == 0:
            continue
        a[(i * 3 + g) % 8] = a[(i * 3 + g) % 8] + i64(i + 1) * 1000000000000
        c[g] = c[g] + wave_sum(i64(1))
    s: i64 = 0
    for j in range(8):
        s = s + a[j] * i64(j + 1)
    out[g] = s
    w[g] = wave_sum(a[g % 8])
    tot: i64 = 0
    for r in range(3):
        b: Array[u16, 5]
        for q in range(g + r):
            b[q % 5] = b[q % 5] + 40000
        for e in range(5):
            tot = tot + i64(u64(b[e]))
    t[g] = tot
