# atomic_add statements (R4 atomic-only locations) on u64 and i8-free 64-bit buffers whose
# sums cross 2^63 and 2^64: the location holds initial + contributions, wrapped to 64 bits.
# n = 8, waves of 4: w[0] from 2^63 adds 2^62 eight times: 2^63 + 2^65 -> 2^63 ;
#   w[1] from 2^64-1 adds g + 1: 2^64 - 1 + 36 -> 35 ; s[0] (i64) from MAX adds 1 each: MAX + 8 -> MIN + 7
#   expect w = [2**63, 35]
#   expect s = [-2**63 + 7]
# difftest: launch n=8 wave=4
# difftest: arg w = u64[9223372036854775808, 18446744073709551615]
# difftest: arg s = i64[9223372036854775807]
def k(w: Buffer[u64], s: Buffer[i64]):
    g = gid()
    atomic_add(w, 0, u64(4611686018427387904))
    atomic_add(w, 1, u64(g + 1))
    atomic_add(s, 0, 1)
