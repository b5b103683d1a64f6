# Unsigned 32/64-bit wave operations under divergence, bitwise and clustered
# reductions (semantics "Integer types", Wave operations: "`wave_min`/`wave_max` are the
# type's order (unsigned for an unsigned type)"; "Bitwise and clustered reductions":
# "reduces each cluster of C consecutive lanes ... over its own active lanes").
# Launch n=8, one wave of 8. x = u32[2^31, 1, 2^32-1, 7, 0x80000001, 2, 3, 0x7FFFFFFF]
#   q = u64[2^63, 1, 2^64-1, 7, 2^63+1, 2, 3, 2^63-1]
# Odd lanes (1,3,5,7) only, inside `if g % 2 == 1`:
#   x: 1, 7, 2, 2^31-1; wave_min = 1, wave_max = 2147483647 (unsigned)
#   ox[g] = wave_min(x[g]) = 1 ; ox[8+g] = wave_max = 2147483647 for odd g.
# Even lanes (0,2,4,6) (else arm): x: 2^31, 2^32-1, 0x80000001, 3
#   ox[g] = wave_min = 3; ox[8+g] = wave_max = 4294967295 for even g.
# All lanes after the if:
#   ox[16+g] = wave_min(x[g], cluster=4): lanes 0-3 min(2^31,1,2^32-1,7) = 1; lanes 4-7 min(0x80000001,2,3,0x7FFFFFFF) = 2
#   ox[24+g] = wave_and(x[g], cluster=2): (2^31 & 1)=0,0, (2^32-1 & 7)=7,7, (0x80000001 & 2)=0,0, (3 & 0x7FFFFFFF)=3,3
#   oq[g] = wave_max(q[g]) = 2^64-1;  oq[8+g] = wave_min(q[g], cluster=4): lanes 0-3: 1; lanes 4-7: 2
#   oq[16+g] = wave_or(q[g]) under `if q[g] >= 2^63` (lanes 0, 2, 4): 2^63 | 2^64-1 | .. = 2^64-1; others 0.
#   oq[24+g] = wave_xor(q[g]): 2^63 ^ 1 ^ (2^64-1) ^ 7 ^ (2^63+1) ^ 2 ^ 3 ^ (2^63-1):
#      the 2^63 bits: 1,1,1,0 ones -> bit63 = 1 (three from 2^63, 2^64-1, 2^63+1... plus 2^63-1 has 0) : count = 3 -> 1;
#      low 63 bits: 0 ^ 1 ^ (2^63-1) ^ 7 ^ 1 ^ 2 ^ 3 ^ (2^63-1) = 1^7^1^2^3 = 7^2^3 = 6 -> 2^63 + 6 = 9223372036854775814
# difftest: launch n=8 wave=8
# difftest: arg x = u32[2147483648, 1, 4294967295, 7, 2147483649, 2, 3, 2147483647]
# difftest: arg q = u64[9223372036854775808, 1, 18446744073709551615, 7, 9223372036854775809, 2, 3, 9223372036854775807]
# difftest: arg ox = u32[0] * 32
# difftest: arg oq = u64[0] * 32
def k(x: Buffer[u32], q: Buffer[u64], ox: Buffer[u32], oq: Buffer[u64]):
    g = gid()
    v = x[g]
    if g % 2 == 1:
        ox[g] = wave_min(v)
        ox[8 + g] = wave_max(v)
    else:
        ox[g] = wave_min(v)
        ox[8 + g] = wave_max(v)
    ox[16 + g] = wave_min(v, cluster=4)
    ox[24 + g] = wave_and(v, cluster=2)
    w = q[g]
    oq[g] = wave_max(w)
    oq[8 + g] = wave_min(w, cluster=4)
    if w >= 9223372036854775808:
        oq[16 + g] = wave_or(w)
    oq[24 + g] = wave_xor(w)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: ox = [3, 1] * 4 + [4294967295, 2147483647] * 4 + [1] * 4 + [2] * 4 + [0, 0, 7, 7, 0, 0, 3, 3]
# expect: oq = [18446744073709551615] * 8 + [1] * 4 + [2] * 4 + [18446744073709551615, 0] * 3 + [0, 0] + [9223372036854775814] * 8
