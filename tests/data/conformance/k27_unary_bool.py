# Unary - and ~ on unsigned and narrow values; conversions of bools; comparisons across
# widths (semantics "Integer types": "`+ - *`, unary `-` and `~` ... compute the exact
# result and keep its low N bits"; "Widening": "`i32(b)` / `u8(b)` of a bool is 0 or 1";
# "32-bit floats": "`f32(b)` of a bool is 0.0 or 1.0"; "Comparisons compare the values").
# Launch n=1. b = u8[1, 0], s = i8[-128], h = u16[0], q = u64[1]
# Expected o (i64):
#  [0] -u8 1 = 255         [1] ~u8 0 = 255         [2] -i8 -128 = -128     [3] ~i8 -128 = 127
#  [4] -u16 0 = 0          [5] ~u16 0 = 65535      [6] i64(-u64 1) = -1 (2^64-1's bits)
#  [7] i64(u8(True)) = 1   [8] i64(i8(s[0] < 0)) = 1   [9] i64(u64(False)) = 0
#  [10] i64(s[0] < i64(-129)) : -128 < -129 false = 0   [11] i64(b[0] < u64(256)) : 1 < 256 = 1
#  [12] i64(-(-s[0] - 1)) : -s = -128 (i8) ; -128 - 1 = 127 (i8 wraps); -127 = -127
#  f[0] = f32(s[0] < 0) = 1.0 ; e[0] = f64(s[0] > 0) = 0.0 ; e[1] = f64(True) = 1.0
# difftest: launch n=1 wave=1
# difftest: arg b = u8[1, 0]
# difftest: arg s = i8[-128]
# difftest: arg h = u16[0]
# difftest: arg q = u64[1]
# difftest: arg o = i64[0] * 13
# difftest: arg f = f32[0.0]
# difftest: arg e = f64[0.5, 0.5]
def k(b: Buffer[u8], s: Buffer[i8], h: Buffer[u16], q: Buffer[u64], o: Buffer[i64], f: Buffer[f32], e: Buffer[f64]):
    o[0] = i64(-b[0])
    o[1] = i64(~b[1])
    o[2] = i64(-s[0])
    o[3] = i64(~s[0])
    o[4] = i64(-h[0])
    o[5] = i64(~h[0])
    o[6] = i64(-q[0])
    o[7] = i64(u8(True))
    o[8] = i64(i8(s[0] < 0))
    o[9] = i64(u64(False))
    o[10] = i64(s[0] < i64(-129))
    o[11] = i64(b[0] < u64(256))
    o[12] = i64(-(-s[0] - 1))
    f[0] = f32(s[0] < 0)
    e[0] = f64(s[0] > 0)
    e[1] = f64(True)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [255, 255, -128, 127, 0, 65535, -1, 1, 1, 0, 0, 1, -127]
# expect: f = [1.0]
# expect: e = [0.0, 1.0]
