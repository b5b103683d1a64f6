# Clustered reductions of narrow types with inactive lanes (semantics "Bitwise and
# clustered reductions": "reduces each cluster of C consecutive lanes (lanes C*k ..
# C*k+C-1 of the wave) over its own active lanes"; "A wave operation on an 8- or 16-bit
# value runs on its 32-bit extension by the type's signedness, truncated back").
# Launch n=8, one wave of 8. b = u8[255, 254, 1, 128, 200, 100, 255, 3]; lanes 1 and 6
#   inactive (inside `if g != 1 and g != 6`).
# Expected (i64), active lanes:
#  o[g]    = wave_and(b, cluster=2): {0}: 255; {2,3}: 1 & 128 = 0; {4,5}: 200 & 100 = 64; {7}: 3
#            -> [255, -, 0, 0, 64, 64, -, 3]
#  o[8+g]  = wave_min(u16(b) * 300, cluster=4) (u16 wraps: 255*300 = 76500 - 65536 = 10964;
#            1*300 = 300; 128*300 = 38400; 200*300 = 60000; 100*300 = 30000; 3*300 = 900):
#            {0,2,3}: min(10964, 300, 38400) = 300; {4,5,7}: min(60000, 30000, 900) = 900
#  o[16+g] = wave_max(i8(b), cluster=2): i8: -1, -, 1, -128, -56, 100, -, 3:
#            {0}: -1; {2,3}: 1; {4,5}: 100; {7}: 3
#  o[24+g] = wave_or(u8(b) ^ 255, cluster=8) over active: 0|254|127|55|155|252 ->
#            0x00|0xFE|0x7F|0x37|0x9B|0xFC = 0xFF = 255
# Inactive lanes write nothing (stay 0).
# difftest: launch n=8 wave=8
# difftest: arg b = u8[255, 254, 1, 128, 200, 100, 255, 3]
# difftest: arg o = i64[0] * 32
def k(b: Buffer[u8], o: Buffer[i64]):
    g = gid()
    v = b[g]
    if g != 1 and g != 6:
        o[g] = i64(wave_and(v, cluster=2))
        o[8 + g] = i64(wave_min(u16(v) * 300, cluster=4))
        o[16 + g] = i64(wave_max(i8(v), cluster=2))
        o[24 + g] = i64(wave_or(v ^ 255, cluster=8))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [255, 0, 0, 0, 64, 64, 0, 3] + [300, 0, 300, 300, 900, 900, 0, 900] + [-1, 0, 1, 1, 100, 100, 0, 3] + [255, 0, 255, 255, 255, 255, 0, 255]
