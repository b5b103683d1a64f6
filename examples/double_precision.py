# 64-bit floats as docs/semantics.md ("64-bit floats") defines them: binary64 arithmetic
# rounded once per operation, fma rounded once, f64 -> f32 rounded to nearest even,
# float -> integer truncated (faulting only where the truncation does not fit), and
# wave_min over the lanes, all 64 bits of each.
# Launch: n = 4, one wave of 4. Args: x = f64[0.1, 3.0, 5e-324, -2147483648.5] (5e-324
#   is 2^-1074, the smallest subnormal), out zeroed (16 values), ints zeroed (4).
# Oracle, per workitem g (0.1 is the double 0.1000000000000000055511151231257827):
#   out[g]      = fma(x, 10.0, -1.0), the exact x * 10 - 1 rounded once:
#                 2^-54 = 5.551115123125783e-17, 29.0, -1.0 (-1 + 10 * 2^-1074 rounds
#                 to -1), -21474836486.0;
#   out[g + 4]  = x * 10.0 - 1.0, two roundings: 0.0 (0.1 * 10 rounds to 1.0), 29.0,
#                 -1.0, -21474836486.0;
#   out[g + 8]  = f64(f32(x)): 0.10000000149011612 (the f32 nearest 0.1), 3.0, 0.0
#                 (2^-1074 rounds to f32's +0.0), -2147483648.0 (f32's spacing there is
#                 256);
#   out[g + 12] = wave_min(x) = -2147483648.5 in every lane;
#   ints[g]     = i32(x): 0, 3, 0, -2147483648 (the truncation of -2147483648.5 fits:
#                 no fault, where an f32 conversion rule of "x >= -2^31" would have one).
# A compiler that computes doubles in single precision gives out[0] = 0.0 (or another
# value than 2^-54) and out[8] differs from nothing; one that contracts x * 10.0 - 1.0
# into an fma gives out[4] = 2^-54.
# difftest: launch n=4 wave=4
# difftest: arg x = f64[0.1, 3.0, 5e-324, -2147483648.5]
# difftest: arg out = f64[0] * 16
# difftest: arg ints = i32[0] * 4
def double_precision(x: Buffer[f64], out: Buffer[f64], ints: Buffer[i32]):
    g = gid()
    out[g] = fma(x[g], f64(10.0), f64(-1.0))
    out[g + 4] = x[g] * f64(10.0) - f64(1.0)
    out[g + 8] = f64(f32(x[g]))
    out[g + 12] = wave_min(x[g])
    ints[g] = i32(x[g])
