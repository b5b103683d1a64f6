# 64-bit integer constants as indices and source lanes (semantics "Private arrays": an
# index is checked like a buffer's, so a constant past the end faults only where it is
# reached; "Relative shuffles" and "Wave operations": a source lane outside the wave gives
# 0). A translation must build such constants wherever they stand: WGSL's front end (naga)
# cannot convert an i64 or u64 constant to u32 while evaluating constants, so a literal
# written straight into `u32(...)` did not build.
# Launch n=4, one wave of 4. x = i64[1, 2, 3, 4].
# Expected: the `if` is never taken (g <= 3), so its three out-of-bounds reads never run;
#   o[g]      = a[g] + 10 with a[g] = x[g]: [11, 12, 13, 14];
#   o[g + 4]  = shuffle(x, 4294967297): lane 2^32 + 1 is outside the wave: 0;
#   o[g + 8]  = shuffle_xor(x, 4294967296): g ^ 2^32 is outside the wave: 0;
#   o[g + 12] = shuffle_up(x, 2^63 - 1): g - (2^63 - 1) is outside the wave: 0.
# difftest: launch n=4 wave=4
# difftest: arg x = i64[1, 2, 3, 4]
# difftest: arg o = i64[0] * 16
def k(x: Buffer[i64], o: Buffer[i64]):
    g = gid()
    a: Array[i64, 4]
    a[g] = x[g]
    if g > 100:
        o[0] = a[4294967296]
        o[1] = o[4294967296]
        o[2] = a[u64(18446744073709551615)]
    o[g] = a[g] + 10
    o[g + 4] = shuffle(x[g], 4294967297)
    o[g + 8] = shuffle_xor(x[g], 4294967296)
    o[g + 12] = shuffle_up(x[g], 9223372036854775807)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [11, 12, 13, 14] + [0] * 12
