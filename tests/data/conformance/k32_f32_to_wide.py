# f32 -> u32/u64/i64 at the limits (semantics "Integer types": "From f32: truncated toward
# zero; a NaN or a value whose truncation T cannot hold faults"; "32-bit floats": `i64(x)`
# truncates toward zero and faults where the truncated value does not fit).
# Launch n=8, waves of 4. x = f32[4294967040 (largest f32 < 2^32), 4294967296, -0.0,
#   18446742974197923840 (largest f32 < 2^64), -9223372036854775808, -0.75, 9223371487098961920 (largest f32 < 2^63), -inf]
# Expected: lanes 3, 4, 6 take the then arm (line 23 u64, line 24 i64), the others the
#  else arm (line 26 u32, line 27 u64, line 28 i64):
#  g0: 4294967040 in a, b, c -> completes     g1: u32(2^32) faults at line 26
#  g2: -0.0 -> 0, 0, 0 -> completes            g3: u64 = 18446742974197923840, i64 faults at line 24
#  g4: u64(-2^63) faults at line 23            g5: -0.75 -> 0, 0, 0 -> completes
#  g6: u64 = i64 = 9223371487098961920 -> completes   g7: u32(-inf) faults at line 26
#  a = [4294967040, 0...], b = [4294967040, 0, 0, 18446742974197923840, 0, 0, 9223371487098961920, 0],
#  c = [4294967040, 0, 0, 0, 0, 0, 9223371487098961920, 0]
# difftest: launch n=8 wave=4
# difftest: arg x = f32[4294967040.0, 4294967296.0, -0.0, 18446742974197923840.0, -9223372036854775808.0, -0.75, 9223371487098961920.0, -inf]
# difftest: arg a = u32[0] * 8
# difftest: arg b = u64[0] * 8
# difftest: arg c = i64[0] * 8
def k(x: Buffer[f32], a: Buffer[u32], b: Buffer[u64], c: Buffer[i64]):
    g = gid()
    v = x[g]
    if g == 3 or g == 4 or g == 6:
        b[g] = u64(v)
        c[g] = i64(v)
    else:
        a[g] = u32(v)
        b[g] = u64(v)
        c[g] = i64(v)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: a = [4294967040, 0, 0, 0, 0, 0, 0, 0]
# expect: b = [4294967040, 0, 0, 18446742974197923840, 0, 0, 9223371487098961920, 0]
# expect: c = [4294967040, 0, 0, 0, 0, 0, 9223371487098961920, 0]
# expect-fault: 1 invalid_conversion k:26
# expect-fault: 3 invalid_conversion k:24
# expect-fault: 4 invalid_conversion k:23
# expect-fault: 7 invalid_conversion k:26
