# f64 fma, -0.0, subnormals, min/max with NaN (semantics "64-bit floats": "`fma` rounded
# once, subnormals kept, no contraction; `-x` and `abs(x)` on the sign bit; `min`/`max`
# and comparisons as f32's"; "32-bit floats": "a NaN operand loses to a number (two NaNs
# give NaN), and -0.0 is below +0.0").
# Launch n=1. x = f64[1 + 2^-52, -0.0, 2^-1074 (4.9e-324), nan, 2^-1022]
# Expected o (f64):
#  [0] fma(x0, x0, -(1 + 2^-51)): x0^2 = 1 + 2^-51 + 2^-104 exactly; minus (1+2^-51) = 2^-104 = 4.930380657631324e-32
#  [1] x0 * x0 - (1 + 2^-51): x0*x0 rounds to 1 + 2^-51 -> 0.0
#  [2] min(x1, 0.0) = -0.0      [3] max(x1, 0.0) = 0.0
#  [4] min(nan, 1.0) = 1.0      [5] max(1.0, nan) = 1.0
#  [6] x2 * 0.5 : 2^-1075 is a tie between 0 and 2^-1074: even -> 0.0
#  [7] x2 + x2 = 2^-1073 = 1e-323 (9.88e-324)
#  [8] -x1 = 0.0 (+0.0)          [9] abs(x1) = 0.0
#  [10] x4 - x2 = 2^-1022 - 2^-1074: subnormal 2.225073858507201e-308
#  [11] fma(x2, 0.5, x2): 2^-1075 + 2^-1074 = 1.5*2^-1074: tie between 2^-1074 and 2^-1073: even mantissa -> 2^-1073 = 1e-323
#  [12] min(nan, nan) = nan     [13] x3 - x3 = nan; f64 compare: o2[0] = i32(x3 == x3) = 0, o2[1] = i32(x3 != x3) = 1, o2[2] = i32(x1 == 0.0)=1 ; o2[3] = i32(x1 < 0.0) = 0
# difftest: launch n=1 wave=1
# difftest: arg x = f64[1.0000000000000002, -0.0, 5e-324, nan, 2.2250738585072014e-308]
# difftest: arg o = f64[0.0] * 14
# difftest: arg o2 = i32[0] * 4
def k(x: Buffer[f64], o: Buffer[f64], o2: Buffer[i32]):
    a = x[0]
    c = f64(1.0000000000000004)
    o[0] = fma(a, a, -c)
    o[1] = a * a - c
    o[2] = min(x[1], f64(0.0))
    o[3] = max(x[1], f64(0.0))
    o[4] = min(x[3], f64(1.0))
    o[5] = max(f64(1.0), x[3])
    o[6] = x[2] * f64(0.5)
    o[7] = x[2] + x[2]
    o[8] = -x[1]
    o[9] = abs(x[1])
    o[10] = x[4] - x[2]
    o[11] = fma(x[2], f64(0.5), x[2])
    o[12] = min(x[3], x[3])
    o[13] = x[3] - x[3]
    o2[0] = i32(x[3] == x[3])
    o2[1] = i32(x[3] != x[3])
    o2[2] = i32(x[1] == f64(0.0))
    o2[3] = i32(x[1] < f64(0.0))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [4.930380657631324e-32, 0.0, -0.0, 0.0, 1.0, 1.0, 0.0, 1e-323, 0.0, 0.0, 2.225073858507201e-308, 1e-323, nan, nan]
# expect: o2 = [0, 1, 1, 0]
