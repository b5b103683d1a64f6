# Returning atomics on narrow and unsigned buffers (semantics "Atomics that return": "on
# integer buffers and workgroup arrays of every integer type"; "Min and max compare by
# the element type's signedness; add wraps to its width").
# Launch n=4, one wave of 4. Per workitem g:
#   mx = u64 buffer [0]: atomic_max with [1, 2^63, 5, 2^64-1] -> final 2^64-1 (unsigned order)
#   mn = i8 buffer [0]: atomic_min with [-128, 5, 127, -1] -> final -128
#   an = u16 buffer [65535]: atomic_and with [0xFFFE, 0xFFFD, 0xFFFF, 0x7FFF] -> 0x7FFC = 32764
#   ad = u32 buffer [4294967295]: atomic_add with 1 each -> 2^32-1+4 = 3 (wraps)
#   cx = i8 buffer [-1]: atomic_compare_exchange(cx, 0, -1, g): one lane wins; final its gid
#     (in the oracle's lane order lane 0 wins: final 0, returns -1 to lane 0 and 0 to others)
#   old values stored in r (i64) at r[5g..5g+4]; any order the checker accepts.
# difftest: launch n=4 wave=4
# difftest: arg mx = u64[0]
# difftest: arg vmx = u64[1, 9223372036854775808, 5, 18446744073709551615]
# difftest: arg mn = i8[0]
# difftest: arg vmn = i8[-128, 5, 127, -1]
# difftest: arg an = u16[65535]
# difftest: arg van = u16[65534, 65533, 65535, 32767]
# difftest: arg ad = u32[4294967295]
# difftest: arg cx = i8[-1]
# difftest: arg r = i64[0] * 20
def k(mx: Buffer[u64], vmx: Buffer[u64], mn: Buffer[i8], vmn: Buffer[i8], an: Buffer[u16],
      van: Buffer[u16], ad: Buffer[u32], cx: Buffer[i8], r: Buffer[i64]):
    g = gid()
    a: u64 = atomic_max(mx, 0, vmx[g])
    b: i8 = atomic_min(mn, 0, vmn[g])
    c: u16 = atomic_and(an, 0, van[g])
    d: u32 = atomic_add(ad, 0, 1)
    e: i8 = atomic_compare_exchange(cx, 0, -1, i8(g))
    r[5 * g] = i64(a)
    r[5 * g + 1] = i64(b)
    r[5 * g + 2] = i64(c)
    r[5 * g + 3] = i64(d)
    r[5 * g + 4] = i64(e)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# (Each location's atomics may take the lanes in any order: per old value, the values
# some order gives it; the add's old values are 2^32-1, 0, 1, 2 in some order; one lane's
# compare-exchange finds -1 and writes its gid, the others find that gid.)
# expect: mx = [18446744073709551615]
# expect: mn = [-128]
# expect: an = [32764]
# expect: ad = [3]
# expect: cx = [0|1|2|3]
# expect: r[0:5] = [0|5|-9223372036854775808|-1, 0|-1, 65535|65533|32767|32765, 4294967295|0|1|2, -1|1|2|3]
# expect: r[5:10] = [0|1|5|-1, 0|-128|-1, 65535|65534|32767|32766, 4294967295|0|1|2, -1|0|2|3]
# expect: r[10:15] = [0|1|-9223372036854775808|-1, 0|-128|-1, 65535|65534|65533|65532|32767|32766|32765|32764, 4294967295|0|1|2, -1|0|1|3]
# expect: r[15:20] = [0|1|5|-9223372036854775808, 0|-128, 65535|65534|65533|65532, 4294967295|0|1|2, -1|0|1|2]
# expect-sorted: r[3::5] = [0, 1, 2, 4294967295]
