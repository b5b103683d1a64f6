# Float wave operations with signed zeros and NaN (semantics "32-bit floats", Wave
# operations: "`wave_min` and `wave_max` (the rule above, over the active lanes: a NaN lane
# loses unless all are NaN)"; "`shuffle` (an inactive or out-of-range source gives
# +0.0)"; "64-bit floats": "`readfirstlane`, `shuffle` (an inactive source gives +0.0),
# `wave_min` and `wave_max` move or reduce all 64 bits").
# Launch n=4, one wave of 4. x = f64[0.0, nan, -0.0, nan], y = f32[nan, nan, -1.5, -0.0]
# Expected:
#  o[g]    = wave_min(x) = -0.0 (NaNs lose; -0.0 below +0.0)
#  o[4+g]  = wave_max(x) = +0.0
#  o[8+g]  under `if g % 2 == 1` (lanes 1, 3: both NaN): wave_max(x) = nan; lanes 0, 2 write nothing: 0.0
#  o[12+g] = shuffle(-x, g + 1) ... under `if g < 3`: lane 3 inactive: lane 0 reads -x1 = -nan (any NaN),
#            lane 1 reads -x2 = +0.0, lane 2 reads lane 3 (inactive) = +0.0; lane 3 writes nothing
#  o[16+g] = readfirstlane(x) in lanes 2, 3 (if g >= 2) = -0.0 ; lanes 0, 1 nothing
#  f[g]    = wave_min(y) = -1.5; f[4+g] = wave_max(y) = -0.0
# difftest: launch n=4 wave=4
# difftest: arg x = f64[0.0, nan, -0.0, nan]
# difftest: arg y = f32[nan, nan, -1.5, -0.0]
# difftest: arg o = f64[0.0] * 20
# difftest: arg f = f32[0.0] * 8
def k(x: Buffer[f64], y: Buffer[f32], o: Buffer[f64], f: Buffer[f32]):
    g = gid()
    v = x[g]
    o[g] = wave_min(v)
    o[4 + g] = wave_max(v)
    if g % 2 == 1:
        o[8 + g] = wave_max(v)
    if g < 3:
        o[12 + g] = shuffle(-v, g + 1)
    if g >= 2:
        o[16 + g] = readfirstlane(v)
    f[g] = wave_min(y[g])
    f[4 + g] = wave_max(y[g])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [-0.0] * 4 + [0.0] * 4 + [0.0, nan, 0.0, nan] + [nan, 0.0, 0.0, 0.0] + [0.0, 0.0, -0.0, -0.0]
# expect: f = [-1.5] * 4 + [-0.0] * 4
