# Wave reductions and scans over narrow and unsigned types (semantics "Integer types",
# Wave operations: "`wave_sum` and the scans wrap at the type's width;
# `wave_min`/`wave_max` are the type's order (unsigned for an unsigned type);
# `readfirstlane` and `shuffle` move the value whole").
# Launch n=4, one wave of 4. a = i8[100, 100, 100, -1], b = u8[200, 3, 255, 128],
#   h = u16[65535, 1, 2, 3], q = u64[2^63, 1, 2^64-1, 5]
# Expected o (i64), lane g:
#  o[g]    = wave_sum(a) = 299 wraps at i8: 43
#  o[4+g]  = wave_min(b) = 3;   o[8+g] = wave_max(b) = 255
#  o[12+g] = wave_min(a) = -1;  o[16+g] = wave_sum(h) = 65541 mod 65536 = 5
#  o[20+g] = prefix_sum(a): 0, 100, 200 -> -56, 300 -> 44
#  o[24+g] = inclusive_sum(b): 200, 203, 458 -> 202, 586 -> 74
#  o[28+g] = i64(readfirstlane(b)) = 200
#  oq[g]   = wave_min(q) = 1;  oq[4+g] = wave_max(q) = 2^64-1;  oq[8+g] = wave_sum(q) = 2^63 + 1 + (2^64-1) + 5 = 2^63 + 5 mod 2^64 = 9223372036854775813
#  o[32+g] = shuffle(a, 3 - g): -1, 100, 100, 100
# difftest: launch n=4 wave=4
# difftest: arg a = i8[100, 100, 100, -1]
# difftest: arg b = u8[200, 3, 255, 128]
# difftest: arg h = u16[65535, 1, 2, 3]
# difftest: arg q = u64[9223372036854775808, 1, 18446744073709551615, 5]
# difftest: arg o = i64[0] * 36
# difftest: arg oq = u64[0] * 12
def k(a: Buffer[i8], b: Buffer[u8], h: Buffer[u16], q: Buffer[u64], o: Buffer[i64], oq: Buffer[u64]):
    g = gid()
    x = a[g]
    y = b[g]
    o[g] = i64(wave_sum(x))
    o[4 + g] = i64(wave_min(y))
    o[8 + g] = i64(wave_max(y))
    o[12 + g] = i64(wave_min(x))
    o[16 + g] = i64(wave_sum(h[g]))
    o[20 + g] = i64(prefix_sum(x))
    o[24 + g] = i64(inclusive_sum(y))
    o[28 + g] = i64(readfirstlane(y))
    oq[g] = wave_min(q[g])
    oq[4 + g] = wave_max(q[g])
    oq[8 + g] = wave_sum(q[g])
    o[32 + g] = i64(shuffle(x, 3 - g))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [43] * 4 + [3] * 4 + [255] * 4 + [-1] * 4 + [5] * 4 + [0, 100, -56, 44] + [200, 203, 202, 74] + [200] * 4 + [-1, 100, 100, 100]
# expect: oq = [1] * 4 + [18446744073709551615] * 4 + [9223372036854775813] * 4
