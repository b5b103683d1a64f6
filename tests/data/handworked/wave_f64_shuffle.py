# shuffle / readfirstlane / wave_min / wave_max of f64 move or reduce all 64 bits;
# an inactive source lane gives +0.0. n = 4, wave 4.
# x = f64[-0.0, nan, 5e-324 (no: see _nosub), 0.1] -> here x = f64[-0.0, nan, 1.0000000000000002, 0.1]
#   s[g] = shuffle(x, 3 - g): 0.1, 1.0000000000000002, nan, -0.0
#   expect s = [0.1, 1.0000000000000002, nan, -0.0]
#   r[g] = readfirstlane(x) in lanes 1..3 (lane 0 inactive): nan in lanes 1..3, lane 0 untouched (7.0)
#   expect r = [7.0, nan, nan, nan]
#   mn[g] = wave_min(x): NaN loses: min(-0.0, 1.0000000000000002, 0.1) = -0.0
#   expect mn = [-0.0, -0.0, -0.0, -0.0]
#   mx[g] = wave_max(x) = 1.0000000000000002
#   expect mx = [1.0000000000000002, 1.0000000000000002, 1.0000000000000002, 1.0000000000000002]
#   z[g]: lanes 0, 1 only: wave_max of (-0.0, +0.0 written as x*0.0 for lane 1? nan*0 = nan) -> use lanes 0,3:
#         lanes g in {0, 3} (via g % 3 == 0): wave_max(-0.0, 0.1) = 0.1 ; wave_min = -0.0 ; shuffle(x, 1) with lane 1 inactive = +0.0
#   expect z = [0.1, 7.0, 7.0, 0.1, -0.0, 7.0, 7.0, -0.0, 0.0, 7.0, 7.0, 0.0]
# difftest: launch n=4 wave=4
# difftest: arg x = f64[-0.0, nan, 1.0000000000000002, 0.1]
# difftest: arg s = f64[7.0] * 4
# difftest: arg r = f64[7.0] * 4
# difftest: arg mn = f64[7.0] * 4
# difftest: arg mx = f64[7.0] * 4
# difftest: arg z = f64[7.0] * 12
def k(x: Buffer[f64], s: Buffer[f64], r: Buffer[f64], mn: Buffer[f64], mx: Buffer[f64], z: Buffer[f64]):
    g = gid()
    v = x[g]
    s[g] = shuffle(v, 3 - g)
    if g > 0:
        r[g] = readfirstlane(v)
    mn[g] = wave_min(v)
    mx[g] = wave_max(v)
    if g % 3 == 0:
        z[g] = wave_max(v)
        z[g + 4] = wave_min(v)
        z[g + 8] = shuffle(v, 1)
