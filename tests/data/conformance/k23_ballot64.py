# ballot in a wave of 64 with lane 63 set, and ballot functions (semantics "Wave
# operations": "`ballot` (i64, bit = lane index; lane 63 makes it negative)"; "Ballot
# arithmetic": "`ballot_find_lsb(b)` / `ballot_find_msb(b)` (... -1 where none is set)";
# "`inverse_ballot(b)` (a bool: whether bit `l` is set)").
# Launch n=64, one wave of 64. Per lane l:
#   b = ballot(l == 0 or l == 63) = 2^63 + 1 -> as i64: -9223372036854775807
#   o[l]       = b (every lane)
#   o[64 + l]  = ballot_find_msb(b) = 63; o[128 + l] = ballot_find_lsb(ballot(False)) = -1
#   o[192 + l] = ballot_inclusive_bit_count(b): 1 for l in 0..62, 2 for 63
#   o[256 + l] = i64(inverse_ballot(b)): 1 for l in {0, 63}, else 0
#   o[320 + l] = shuffle_down(l, u64(2^64-1)): amount converted to i64 = -1: reads lane l - 1: l - 1 (lane 0 reads -1 -> outside -> 0)
#   o[384 + l] = ballot_bit_count(-1) = 64
# difftest: launch n=64 wave=64
# difftest: arg m = u64[18446744073709551615]
# difftest: arg o = i64[0] * 448
def k(m: Buffer[u64], o: Buffer[i64]):
    l = lane()
    b = ballot(l == 0 or l == 63)
    o[l] = b
    o[64 + l] = i64(ballot_find_msb(b))
    o[128 + l] = i64(ballot_find_lsb(ballot(False)))
    o[192 + l] = i64(ballot_inclusive_bit_count(b))
    o[256 + l] = i64(inverse_ballot(b))
    o[320 + l] = i64(shuffle_down(l, m[0]))
    o[384 + l] = i64(ballot_bit_count(ballot(l < 64)))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o[0:64] = [-9223372036854775807] * 64
# expect: o[64:128] = [63] * 64
# expect: o[128:192] = [-1] * 64
# expect: o[192:256] = [1] * 63 + [2]
# expect: o[256:320] = [1] + [0] * 62 + [1]
# expect: o[320:384] = [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62]
# expect: o[384:448] = [64] * 64
