# Returning atomics on u32 and u64 buffers with the top bit set (semantics "Atomics that
# return": "Min and max compare by the element type's signedness; add wraps to its width";
# `old` "is the value the location held just before").
# Launch n=4, one wave of 4. Per workitem g (all lanes):
#   m32 = u32[2^31 - 1]: atomic_min with [2^31, 2^32-1, 7, 2^31+5] -> final 7 (unsigned order;
#     a signed min would give 2^31 = -2^31 as i32)
#   x32 = u32[2^31]: atomic_max with the same values -> final 2^32-1
#   a64 = u64[2^64-2]: atomic_add with 1 in every lane -> 2^64-2+4 = 2 (wraps)
#   m64 = u64[5]: atomic_min with [2^63, 2^64-1, 6, 2^63+1] in odd lanes only
#     (lanes 1, 3: 2^64-1, 2^63+1) -> stays 5
#   Returned values go to r; the checker accepts any order.
# difftest: launch n=4 wave=4
# difftest: arg v = u32[2147483648, 4294967295, 7, 2147483653]
# difftest: arg w = u64[9223372036854775808, 18446744073709551615, 6, 9223372036854775809]
# difftest: arg m32 = u32[2147483647]
# difftest: arg x32 = u32[2147483648]
# difftest: arg a64 = u64[18446744073709551614]
# difftest: arg m64 = u64[5]
# difftest: arg r = u64[0] * 16
def k(v: Buffer[u32], w: Buffer[u64], m32: Buffer[u32], x32: Buffer[u32], a64: Buffer[u64],
      m64: Buffer[u64], r: Buffer[u64]):
    g = gid()
    a: u32 = atomic_min(m32, 0, v[g])
    b: u32 = atomic_max(x32, 0, v[g])
    c: u64 = atomic_add(a64, 0, 1)
    d: u64 = 0
    if g % 2 == 1:
        d = atomic_min(m64, 0, w[g])
    r[4 * g] = u64(a)
    r[4 * g + 1] = u64(b)
    r[4 * g + 2] = c
    r[4 * g + 3] = d

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# (Each location's atomics may take the lanes in any order: per old value, the values
# some order gives it; the add's old values are 2^64-2, 2^64-1, 0, 1 in some order; the
# u64 min never changes 5.)
# expect: m32 = [7]
# expect: x32 = [4294967295]
# expect: a64 = [2]
# expect: m64 = [5]
# expect: r[0:4] = [2147483647|7, 2147483648|2147483653|4294967295, _, 0]
# expect: r[4:8] = [2147483647|7, 2147483648|2147483653, _, 5]
# expect: r[8:12] = [2147483647, 2147483648|2147483653|4294967295, _, 0]
# expect: r[12:16] = [2147483647|7, 2147483648|4294967295, _, 5]
# expect-sorted: r[2::4] = [0, 1, 18446744073709551614, 18446744073709551615]
