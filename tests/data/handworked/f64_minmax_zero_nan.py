# f64 min/max (minimumNumber/maximumNumber): NaN loses to a number, -0.0 below +0.0;
# comparisons IEEE (false with NaN except !=; -0.0 == 0.0).
# a = f64[-0.0, 0.0, nan, nan], b = f64[0.0, -0.0, 1.0, nan]
#   expect mn = [-0.0, -0.0, 1.0, nan]
#   expect mx = [0.0, 0.0, 1.0, nan]
#   cmp code = i32(a==b) + 2*i32(a!=b) + 4*i32(a<b) + 8*i32(a<=b) + 16*i32(a>b) + 32*i32(a>=b)
#   lanes 0,1: equal -> 1 + 8 + 32 = 41; lanes 2,3: NaN -> only != -> 2
#   expect cc = [41, 41, 2, 2]
# -a flips the sign bit, abs clears it: neg = [0.0, -0.0, nan, nan]; ab = [0.0, 0.0, nan, nan]
#   expect ng = [0.0, -0.0, nan, nan]
#   expect ab = [0.0, 0.0, nan, nan]
# subnormal arithmetic (no flush): s = 5e-324 * [0.5, 1.5, 2.5, -0.5]:
#   0.5 * 2^-1074 ties -> even -> 0.0; 1.5 -> 2 * 2^-1074 = 1e-323; 2.5 -> tie between 2 and 3 -> 2 (even) = 1e-323; -0.5 -> -0.0
#   expect sb = [0.0, 1e-323, 1e-323, -0.0]
# difftest: launch n=4 wave=4
# difftest: arg a = f64[-0.0, 0.0, nan, nan]
# difftest: arg b = f64[0.0, -0.0, 1.0, nan]
# difftest: arg m = f64[0.5, 1.5, 2.5, -0.5]
# difftest: arg tiny = f64[5e-324] * 4
# difftest: arg mn = f64[0] * 4
# difftest: arg mx = f64[0] * 4
# difftest: arg cc = i32[0] * 4
# difftest: arg ng = f64[0] * 4
# difftest: arg ab = f64[0] * 4
# difftest: arg sb = f64[0] * 4
def k(a: Buffer[f64], b: Buffer[f64], m: Buffer[f64], tiny: Buffer[f64], mn: Buffer[f64], mx: Buffer[f64], cc: Buffer[i32], ng: Buffer[f64], ab: Buffer[f64], sb: Buffer[f64]):
    g = gid()
    x = a[g]
    y = b[g]
    mn[g] = min(x, y)
    mx[g] = max(x, y)
    cc[g] = i32(x == y) + 2 * i32(x != y) + 4 * i32(x < y) + 8 * i32(x <= y) + 16 * i32(x > y) + 32 * i32(x >= y)
    ng[g] = -x
    ab[g] = abs(x)
    sb[g] = tiny[g] * m[g]
