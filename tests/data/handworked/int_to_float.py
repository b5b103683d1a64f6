# Integer -> f64 rounds to nearest even once; integer -> f32 rounds ONCE from the exact
# integer (semantics.md: "To f32: the value rounded to nearest even, once"; the oracle:
# "f32(i) through binary64 (exact below 2^53, else rounded from the exact integer)").
# u = u64[2^64-1, 2^63+2^39+1, 2^53+1, 2^63+2^10+1]
#   f64(u): 2^64; 2^63+2^39+1 -> ulp 2^11: 2^63+2^39; 2^53; 2^63+2^11
#   expect du = [2.0**64, 2.0**63+2.0**39, 2.0**53, 2.0**63+2.0**11]
#   f32(u): 2^64; 2^63+2^39+1 is past the halfway point (f32 ulp 2^40) -> 2^63+2^40
#           (through binary64 first it would be 2^63+2^39, a tie, -> 2^63: a double rounding);
#           2^53+1 -> 2^53; 2^63+2^10+1 -> 2^63
#   expect fu = [2.0**64, 2.0**63+2.0**40, 2.0**53, 2.0**63]
# s = i64[MIN, 2^62+2^38+1, -(2^62+2^38+1), 2^53+3]
#   f64: -2^63; 2^62+2^38 (ulp 2^10); -(2^62+2^38); 2^53+4
#   expect ds = [-2.0**63, 2.0**62+2.0**38, -(2.0**62+2.0**38), 2.0**53+4]
#   f32: -2^63; 2^62+2^39 (f32 ulp 2^39, remainder 2^38+1 > half); -(2^62+2^39); 2^53 (f32 ulp 2^30)
#   expect fs = [-2.0**63, 2.0**62+2.0**39, -(2.0**62+2.0**39), 2.0**53]
# w = u32[2^32-1, 16777217, 16777219, 2^31+129]: f32: 2^32; 16777216; 16777220; 2^31+256 (ulp 256, 129 > 128)
#   expect fw = [2.0**32, 16777216.0, 16777220.0, 2.0**31+256]
# b = i8[-128, -1, 127, 0] -> f64: exact
#   expect db = [-128.0, -1.0, 127.0, 0.0]
# difftest: launch n=4 wave=4
# difftest: arg u = u64[18446744073709551615, 9223372586610589697, 9007199254740993, 9223372036854776833]
# difftest: arg s = i64[-9223372036854775808, 4611686293305294849, -4611686293305294849, 9007199254740995]
# difftest: arg w = u32[4294967295, 16777217, 16777219, 2147483777]
# difftest: arg b = i8[-128, -1, 127, 0]
# difftest: arg du = f64[0] * 4
# difftest: arg fu = f32[0] * 4
# difftest: arg ds = f64[0] * 4
# difftest: arg fs = f32[0] * 4
# difftest: arg fw = f32[0] * 4
# difftest: arg db = f64[0] * 4
def k(u: Buffer[u64], s: Buffer[i64], w: Buffer[u32], b: Buffer[i8], du: Buffer[f64], fu: Buffer[f32], ds: Buffer[f64], fs: Buffer[f32], fw: Buffer[f32], db: Buffer[f64]):
    g = gid()
    du[g] = f64(u[g])
    fu[g] = f32(u[g])
    ds[g] = f64(s[g])
    fs[g] = f32(s[g])
    fw[g] = f32(w[g])
    db[g] = f64(b[g])
