# f32 as docs/semantics.md ("32-bit floats") defines it: each + - * rounds to the nearest
# binary32 (ties to even), fma rounds once, min lets a number win over NaN and puts -0.0
# below +0.0, a comparison with NaN is false, and i32(x) faults where i32 cannot hold x.
# Launch: n = 4, one wave of 4. Args: x = [0.1, nan, -0.0, 3e9], the outputs zeroed.
# Oracle, per workitem g (x[0] is the f32 nearest 0.1, 13421773 * 2^-27):
#   out[g]     = x[g] * 10.0 - 1.0: 0.0 (the product rounds to 1.0), nan, -1.0,
#                30000001024.0 (3e10 is a tie between two f32s, 2048 apart: the even one);
#   out[g + 4] = fma(x[g], 10.0, -1.0): 2^-26 = 1.4901161e-08 (exact), nan, -1.0,
#                29999998976.0 (29999999999 rounded once);
#   out[g + 8] = min(x[g], 0.0): 0.0, 0.0 (NaN loses), -0.0, 0.0;
#   small[g]   = i32(x[g] < 1.0): 1, 0, 1, 0;
#   conv[g]    = i32(x[g]): 0 and 0 for workitems 0 and 2; workitems 1 (NaN) and 3 (3e9 is
#                past 2^31 - 1) fault invalid_conversion at line 27, their conv stays 0.
# A compiler that contracts `x * 10.0 - 1.0` into an fma gives out[0] = 2^-26.
# difftest: launch n=4 wave=4
# difftest: arg x = f32[0.1, nan, -0.0, 3e9]
# difftest: arg out = f32[0.0] * 12
# difftest: arg small = i32[0] * 4
# difftest: arg conv = i32[0] * 4
def float_rounding(x: Buffer[f32], out: Buffer[f32], small: Buffer[i32], conv: Buffer[i32]):
    g = gid()
    a = x[g]
    out[g] = a * 10.0 - 1.0
    out[g + 4] = fma(a, 10.0, -1.0)
    out[g + 8] = min(a, 0.0)
    small[g] = i32(a < 1.0)
    conv[g] = i32(a)
