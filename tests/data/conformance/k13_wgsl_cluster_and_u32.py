# Clustered wave_and of a u32 (semantics "Bitwise and clustered reductions": "each of
# the six takes `cluster=C` ... and then reduces each cluster of C consecutive lanes";
# "WGSL 32 and 64 bits of both signs" are types the WGSL target runs).
# Launch n=4, one wave of 4. x = u32[2^32-1, 7, 6, 3]
# Expected: o[g] = wave_and(x, cluster=2): lanes 0,1: 7; lanes 2,3: 6 & 3 = 2 -> [7, 7, 2, 2]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[4294967295, 7, 6, 3]
# difftest: arg o = u32[0] * 4
def k(x: Buffer[u32], o: Buffer[u32]):
    g = gid()
    o[g] = wave_and(x[g], cluster=2)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [7, 7, 2, 2]
