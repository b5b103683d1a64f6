# Plain atomic_add (unordered) on u32 and u64 buffers, the widths every target's atomics
# take, wraps at the element's width (semantics "R3/R4 split": "initial value plus the
# contributions of exactly the ran workitems, wrapped to the buffer's width").
# Launch n=8, two waves of 4:
#   w32 = u32 [5]: + 2^31 each: 5 + 8 * 2^31 = 5 + 2^34 = 5 mod 2^32
#   v32 = u32 [4294967295]: + gid each: 2^32 - 1 + 28 = 27 mod 2^32
#   w64 = u64 [2^64 - 1]: + 1 each: 7 mod 2^64
#   s32 = i32 [2147483647]: + 1 each: 2^31 + 7 -> as i32 -2^31 + 7 = -2147483641
# difftest: launch n=8 wave=4
# difftest: arg w32 = u32[5]
# difftest: arg v32 = u32[4294967295]
# difftest: arg w64 = u64[18446744073709551615]
# difftest: arg s32 = i32[2147483647]
def k(w32: Buffer[u32], v32: Buffer[u32], w64: Buffer[u64], s32: Buffer[i32]):
    atomic_add(w32, 0, u32(2147483648))
    atomic_add(v32, 0, u32(gid()))
    atomic_add(w64, 0, 1)
    atomic_add(s32, 0, 1)

# What the header derives, for tests/oracles/test_conformance.py:
# expect: w32 = [5]
# expect: v32 = [27]
# expect: w64 = [7]
# expect: s32 = [-2147483641]
