# Plain atomic_add (unordered: no value returned) on narrow and unsigned buffers wraps
# to the element's width (semantics "R3/R4 split": an atomic location holds "initial
# value plus the contributions of exactly the ran workitems, wrapped to the buffer's
# width"; "Integer types": arithmetic wraps at the type's own width).
# Launch n=8, two waves of 4; every workitem adds to element 0 of each buffer:
#   w32 = u32 [5]:  + 2^31 each: 5 + 8 * 2^31 = 5 + 2^34 = 5 mod 2^32
#   w8  = u8 [7]:   + 200 each: 7 + 1600 = 1607 = 6 * 256 + 71 -> 71
#   w16 = i16 [0]:  + (-20000) each: -160000 = -160000 + 3 * 65536 = 36608 -> as i16
#                   36608 - 65536 = -28928
#   wi8 = i8 [100]: + gid each: 100 + (0 + 1 + ... + 7) = 128 -> as i8 -128
#   wu16 = u16 [65535]: + 1 each: 65543 mod 65536 = 7
#   w64 = u64 [2^64 - 1]: + 1 each: 2^64 + 7 mod 2^64 = 7
# difftest: launch n=8 wave=4
# difftest: arg w32 = u32[5]
# difftest: arg w8 = u8[7]
# difftest: arg w16 = i16[0]
# difftest: arg wi8 = i8[100]
# difftest: arg wu16 = u16[65535]
# difftest: arg w64 = u64[18446744073709551615]
def k(w32: Buffer[u32], w8: Buffer[u8], w16: Buffer[i16], wi8: Buffer[i8],
      wu16: Buffer[u16], w64: Buffer[u64]):
    atomic_add(w32, 0, u32(2147483648))
    atomic_add(w8, 0, 200)
    atomic_add(w16, 0, -20000)
    atomic_add(wi8, 0, i8(gid()))
    atomic_add(wu16, 0, 1)
    atomic_add(w64, 0, 1)

# What the header derives, for tests/oracles/test_conformance.py:
# expect: w32 = [5]
# expect: w8 = [71]
# expect: w16 = [-28928]
# expect: wi8 = [-128]
# expect: wu16 = [7]
# expect: w64 = [7]
