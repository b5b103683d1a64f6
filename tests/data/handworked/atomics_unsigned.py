# Atomics on unsigned / 64-bit buffers: add wraps at the element width, min/max by the
# element's signedness, and/or/xor/exchange/compare_exchange whole 64 bits.
# n = 8, wave 4 (two waves). Statements only (no returned values) except cx.
#   atomic_add(u, 0, 2^31): 8 * 2^31 = 2^34 -> mod 2^32 = 0 ; start u[0] = 5 -> 5
#   atomic_max(u, 1, u32(g) - 4): values 2^32-4..2^32-1, 0..3 -> max 2^32-1 (g = 3) ; u[1] starts 0
#   atomic_min(w, 0, (u64(g) << 61) | 1): values 1, 2^61+1, 2^62+1, ..., 7*2^61+1 -> min 1 ; w[0] starts 2^64-1
#   atomic_max(w, 1, u64(g) << 61): max 7 * 2^61 = 16140901064495857664 ; w[1] = 0
#   atomic_max(s, 0, i64(g) << 61): signed: g=4 -> 2^63 -> MIN; g=1: 2^61, 2: 2^62, 3: 3*2^61, 5: 5*2^61 - 2^64 neg.. -> max 3*2^61 ; s[0] = MIN
#   atomic_or(w, 2, u64(1) << (63 - g)): bits 63..56 -> 0xFF00000000000000
#   atomic_xor(w, 3, 2^63 + g): 8 terms; 2^63 appears 8 times -> cancels; 0^1^...^7 = 0 -> w[3] = 0 ^ init 3 = 3
#   atomic_and(u, 2, ~(u32(1) << u32(g + 24))): clears bits 24..31 of 0xFFFFFFFF -> 0x00FFFFFF
#   expect u = [5, 4294967295, 16777215]
#   expect w = [1, 16140901064495857664, 18374686479671623680, 3]
#   expect s = [3 * 2**61]
# difftest: launch n=8 wave=4
# difftest: arg u = u32[5, 0, 4294967295]
# difftest: arg w = u64[18446744073709551615, 0, 0, 3]
# difftest: arg s = i64[-9223372036854775808]
def k(u: Buffer[u32], w: Buffer[u64], s: Buffer[i64]):
    g = gid()
    atomic_add(u, 0, u32(2147483648))
    a = atomic_max(u, 1, u32(g) - 4)
    b = atomic_min(w, 0, (u64(g) << 61) | 1)
    c = atomic_max(w, 1, u64(g) << 61)
    d = atomic_max(s, 0, i64(g) << 61)
    e = atomic_or(w, 2, u64(1) << u64(63 - g))
    f = atomic_xor(w, 3, 9223372036854775808 + u64(g))
    h = atomic_and(u, 2, ~(u32(1) << u32(g + 24)))
