# Conversions to floats (semantics "64-bit floats", Conversions: "`f64(i)` rounds to
# nearest even (exact below 2^53), `f64(x)` of an f32 is exact, `f32(x)` of an f64 rounds
# to nearest even (past f32's largest finite: an infinity)"; "32-bit floats": "`f32(i)`
# rounds an i32 or i64 to the nearest binary32 (ties to even)"; "Integer types": "To f32:
# the value rounded to nearest even, once").
# Launch n=1. u = u64[2^64-1, 2^53+1, 16777217, 2^63+2^39+1], s = i64[-(2^53+3)], d = f64[3.4028235677973366e38 (f32 max + 2^103), 1+2^-24, 1 + 2^-24 + 2^-52]
# Expected:
#  f[0] = f32(u64 2^64-1) = 2^64 = 1.8446744e19     f[1] = f32(u32 16777217) = 16777216 (tie -> even)
#  f[2] = f32(u64 2^63+2^39+1): 2^63 + 2^39 + 1: f32 spacing at 2^63 is 2^40; 2^39+1 > half -> 2^63 + 2^40 = 9.223373e18
#  f[3] = f32(f64 3.4028235677973366e38) : that is (2^128 - 2^103) + ... ; take d0 = 2^128 - 2^104 (f32 max) + 2^103 exactly (the halfway) -> ties to even: max has odd mantissa (all ones) -> rounds up -> inf
#  f[4] = f32(1 + 2^-24) tie -> 1.0 ;  f[5] = f32(1 + 2^-24 + 2^-52) -> above the tie -> 1 + 2^-23 = 1.0000001
#  f[6] = f32(i8 -128) = -128.0
#  e[0] = f64(u64 2^64-1) = 2^64;  e[1] = f64(u64 2^53+1) = 2^53 (tie -> even) = 9007199254740992
#  e[2] = f64(i64 -(2^53+3)) = -(2^53+4) (tie between +2 and +4 -> even mantissa: 2^53+4) = -9007199254740996
#  e[3] = f64(h) with h = 0.1 an f32 variable = 0.10000000149011612; e[4] = f64(0.1), an f64 literal = 0.1
# difftest: launch n=1 wave=1
# difftest: arg u = u64[18446744073709551615, 9007199254740993, 16777217, 9223372586610589697]
# difftest: arg s = i64[-9007199254740995]
# difftest: arg d = f64[3.4028235677973366e38, 1.0000000596046448, 1.0000000596046450]
# difftest: arg f = f32[0.0] * 7
# difftest: arg e = f64[0.0] * 5
def k(u: Buffer[u64], s: Buffer[i64], d: Buffer[f64], f: Buffer[f32], e: Buffer[f64]):
    f[0] = f32(u[0])
    f[1] = f32(u32(u[2]))
    f[2] = f32(u[3])
    f[3] = f32(d[0])
    f[4] = f32(d[1])
    f[5] = f32(d[2])
    f[6] = f32(i8(s[0] + 9007199254740867))
    e[0] = f64(u[0])
    e[1] = f64(u[1])
    e[2] = f64(s[0])
    h = 0.1
    e[3] = f64(h)
    e[4] = f64(0.1)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: f = [1.8446744e19, 16777216.0, 9.223373e18, inf, 1.0, 1.0000001, -128.0]
# expect: e = [18446744073709551616.0, 9007199254740992.0, -9007199254740996.0, 0.10000000149011612, 0.1]
