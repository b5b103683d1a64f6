# f32(x) of an f64 rounds to nearest even; past f32's largest finite: infinity.
# x = [3.4028235677973366e38 (exactly halfway between FLT_MAX and 2^128: ties to even -> inf),
#      3.4028235677973362e38 (just below halfway -> FLT_MAX), 2^-150 (halfway 0 / 2^-149 -> 0.0),
#      next double above 2^-150 (-> 2^-149), -2^-150 (-> -0.0), 1e300 (-> inf),
#      0.1 (-> f32 0.1), 16777217.0 (tie -> 16777216)]
#   expect y = [inf, 3.4028234663852886e38, 0.0, 1.401298464324817e-45, -0.0, inf, 0.1, 16777216.0]
# and back: z = f64(y) exact
#   expect z = [inf, 3.4028234663852886e38, 0.0, 1.401298464324817e-45, -0.0, inf, 0.10000000149011612, 16777216.0]
# difftest: launch n=8 wave=8
# difftest: arg x = f64[3.4028235677973366e38, 3.4028235677973362e38, 7.006492321624085e-46, 7.006492321624087e-46, -7.006492321624085e-46, 1e300, 0.1, 16777217.0]
# difftest: arg y = f32[0] * 8
# difftest: arg z = f64[0] * 8
def k(x: Buffer[f64], y: Buffer[f32], z: Buffer[f64]):
    g = gid()
    y[g] = f32(x[g])
    z[g] = f64(f32(x[g]))
