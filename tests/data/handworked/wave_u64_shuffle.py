# shuffle/readfirstlane/quad ops/relative shuffles of u64 and i8 move the value whole
# (an i8 -1 stays -1; a u64's high half comes along); inactive source -> 0.
# x = u64[2^64-1, 2^63, 2^32, 1, 2^63+2^32, 0, 5, 2^64-2]  n = 8, wave 8
#   a[g] = shuffle(x, (g + 1) % 8) : x[1..7], x[0]
#   expect a = [2**63, 2**32, 1, 2**63+2**32, 0, 5, 2**64-2, 2**64-1]
#   b[g] = shuffle_xor(x, 5): x[g ^ 5] : g=0->5: 0; 1->4; 2->7; 3->6; 4->1; 5->0; 6->3; 7->2
#   expect b = [0, 2**63+2**32, 2**64-2, 5, 2**63, 2**64-1, 1, 2**32]
#   c[g] = quad_swap_diagonal(x): x[g ^ 3]
#   expect c = [1, 2**32, 2**63, 2**64-1, 2**64-2, 5, 0, 2**63+2**32]
#   d[g] = shuffle_down(x, 3) in lanes with g < 6 (lanes 6, 7 inactive): src = g + 3; src 6, 7 inactive -> 0; lanes 6,7 untouched (9)
#   g=0 -> x[3] = 1 ; 1 -> x[4] ; 2 -> x[5] = 0 ; 3 -> inactive 0 ; 4 -> 0 ; 5 -> src 8 outside -> 0
#   expect d = [1, 2**63+2**32, 0, 0, 0, 0, 9, 9]
#   e[g] = readfirstlane(x) in odd lanes: x[1] = 2^63
#   expect e = [9, 2**63, 9, 2**63, 9, 2**63, 9, 2**63]
# y = i8[-1, -128, 127, 0, -2, 1, -3, 2]
#   f[g] = shuffle_up(y, 1): lane 0 -> 0; else y[g - 1]
#   expect f = [0, -1, -128, 127, 0, -2, 1, -3]
#   h[g] = quad_broadcast(y, 1): y[(g & ~3) | 1]: -128 x4, 1 x4
#   expect h = [-128, -128, -128, -128, 1, 1, 1, 1]
# difftest: launch n=8 wave=8
# difftest: arg x = u64[18446744073709551615, 9223372036854775808, 4294967296, 1, 9223372041149743104, 0, 5, 18446744073709551614]
# difftest: arg y = i8[-1, -128, 127, 0, -2, 1, -3, 2]
# difftest: arg a = u64[9] * 8
# difftest: arg b = u64[9] * 8
# difftest: arg c = u64[9] * 8
# difftest: arg d = u64[9] * 8
# difftest: arg e = u64[9] * 8
# difftest: arg f = i8[9] * 8
# difftest: arg h = i8[9] * 8
def k(x: Buffer[u64], y: Buffer[i8], a: Buffer[u64], b: Buffer[u64], c: Buffer[u64], d: Buffer[u64], e: Buffer[u64], f: Buffer[i8], h: Buffer[i8]):
    g = gid()
    v = x[g]
    a[g] = shuffle(v, (g + 1) % 8)
    b[g] = shuffle_xor(v, 5)
    c[g] = quad_swap_diagonal(v)
    if g < 6:
        d[g] = shuffle_down(v, 3)
    if g % 2 == 1:
        e[g] = readfirstlane(v)
    w = y[g]
    f[g] = shuffle_up(w, 1)
    h[g] = quad_broadcast(w, 1)
