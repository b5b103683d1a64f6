# Quad operations and relative shuffles of f64 (all 64 bits; an inactive or missing
# source gives +0.0). n = 8, wave 8; x = f64[-0.0, nan, 1e300, -2.5, 0.1, -1e-300, 3.0, 7.0]
#   a[g] = quad_swap_horizontal(x): x[g ^ 1]
#   expect a = [nan, -0.0, -2.5, 1e300, -1e-300, 0.1, 7.0, 3.0]
#   b[g] = quad_broadcast(x, 2): x[(g & ~3) | 2]
#   expect b = [1e300]*4 + [3.0]*4
#   c[g] = shuffle_xor(x, 4) in lanes g != 5 (lane 5 inactive): g=1 reads lane 5 -> +0.0 ; lane 5 untouched (9.0)
#   expect c = [0.1, 0.0, 3.0, 7.0, -0.0, 9.0, 1e300, -2.5]
#   d[g] = quad_swap_vertical(x) in even lanes only: src g ^ 2 (even too): x[2], x[0], x[6], x[4] ; odd lanes untouched
#   expect d = [1e300, 9.0, -0.0, 9.0, 3.0, 9.0, 0.1, 9.0]
# difftest: launch n=8 wave=8
# difftest: arg x = f64[-0.0, nan, 1e300, -2.5, 0.1, -1e-300, 3.0, 7.0]
# difftest: arg a = f64[9.0] * 8
# difftest: arg b = f64[9.0] * 8
# difftest: arg c = f64[9.0] * 8
# difftest: arg d = f64[9.0] * 8
def k(x: Buffer[f64], a: Buffer[f64], b: Buffer[f64], c: Buffer[f64], d: Buffer[f64]):
    g = gid()
    v = x[g]
    a[g] = quad_swap_horizontal(v)
    b[g] = quad_broadcast(v, 2)
    if g != 5:
        c[g] = shuffle_xor(v, 4)
    if g % 2 == 0:
        d[g] = quad_swap_vertical(v)
