# Quad operations and shuffles of narrow values with inactive sources, wave_all_equal
# of u64 (semantics "Quad operations": "each a shuffle within the lane's quad ... with
# `shuffle`'s rule: 0 / False where the source is not active"; "They move every type
# `shuffle` moves"; "`wave_all_equal(x)` (an integer or a bool)").
# Launch n=8, one wave of 8. x = i8[-1, -128, 127, 5, 6, -7, 8, -9]; lanes 2 and 7 inactive
#   (inside `if g != 2 and g != 7`).
# Expected (i64), lane g active:
#  o[g]    = quad_swap_horizontal(x): lane g ^ 1: 0<-1: -128, 1<-0: -1, 3<-2 (inactive): 0,
#            4<-5: -7, 5<-4: 6, 6<-7 (inactive): 0  -> [-128, -1, 0, 0, -7, 6, 0, 0]
#  o[8+g]  = quad_broadcast(x, 2): lanes 0..3 read lane 2 (inactive): 0; lanes 4..6 read lane 6: 8
#            -> [0, 0, 0, 0, 8, 8, 8, 0]
#  o[16+g] = quad_swap_diagonal(u16(x)): lane g ^ 3: 0<-3: 5, 1<-2: 0, 3<-0: 65535, 4<-7: 0,
#            5<-6: 8, 6<-5: u16(-7) = 65529 -> [5, 0, 0, 65535, 0, 8, 65529, 0]
#  o[24+g] = i64(wave_all_equal(u64(x) >> 63)) among lanes 0,1,3,4,5,6: signs 1,1,0,0,1,0 -> 0
#  o[32+g] = i64(wave_all_equal(u64(x) | u64(2^63))) after `if`: all lanes: u64(-1)|2^63 = 2^64-1, others differ -> 0
# Inactive lanes 2 and 7 write nothing in the first part: o[2], o[7], o[10], o[15], o[18], o[23], o[26], o[31] stay 0.
# difftest: launch n=8 wave=8
# difftest: arg x = i8[-1, -128, 127, 5, 6, -7, 8, -9]
# difftest: arg o = i64[0] * 40
def k(x: Buffer[i8], o: Buffer[i64]):
    g = gid()
    v = x[g]
    if g != 2 and g != 7:
        o[g] = i64(quad_swap_horizontal(v))
        o[8 + g] = i64(quad_broadcast(v, 2))
        o[16 + g] = i64(quad_swap_diagonal(u16(v)))
        o[24 + g] = i64(wave_all_equal(u64(v) >> 63))
    o[32 + g] = i64(wave_all_equal(u64(v) | u64(9223372036854775808)))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [-128, -1, 0, 0, -7, 6, 0, 0] + [0, 0, 0, 0, 8, 8, 8, 0] + [5, 0, 0, 65535, 0, 8, 65529, 0] + [0] * 8 + [0] * 8
