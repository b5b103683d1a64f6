# f64 -> u64 and f64 -> i64 at and past the limits (semantics "64-bit floats",
# Conversions: "any integer type truncate toward zero and fault (`invalid_conversion`)
# where the truncated value does not fit").
# Launch n=6, wave 2. x = f64[18446744073709549568 (largest double < 2^64), 2^64,
#   -0.99, -1.0, nan, -9223372036854775808.0].
# Expected per workitem g, line 18 (o[g] = u64(x[g])), then line 19 (p[g] = i64(x[g])):
#   g0: o = 18446744073709549568; then i64 of it faults (>= 2^63) at line 19.
#   g1: 2^64 faults at line 18.           g2: u64(-0.99) = 0 (truncates to -0), p = 0.
#   g3: u64(-1.0) faults at line 18.      g4: NaN faults at line 18.
#   g5: u64(-2^63) faults at line 18 (p stays 0).
#   So completed: only g2; faulted g0 (line 19), g1, g3, g4, g5 (line 18). o = [max_double, 0,0,0,0,0]
# difftest: launch n=6 wave=2
# difftest: arg x = f64[18446744073709549568.0, 18446744073709551616.0, -0.99, -1.0, nan, -9223372036854775808.0]
# difftest: arg o = u64[0] * 6
# difftest: arg p = i64[0] * 6
def k(x: Buffer[f64], o: Buffer[u64], p: Buffer[i64]):
    g = gid()
    o[g] = u64(x[g])
    p[g] = i64(x[g])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [18446744073709549568, 0, 0, 0, 0, 0]
# expect: p = [0] * 6
# expect-fault: 0 invalid_conversion k:19
# expect-fault: 1 invalid_conversion k:18
# expect-fault: 3 invalid_conversion k:18
# expect-fault: 4 invalid_conversion k:18
# expect-fault: 5 invalid_conversion k:18
