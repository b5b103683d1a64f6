# Atomics that return, on u64 with values at and past 2^63: whatever the order, the
# returned values are the running values of one order.
# n = 8, waves of 4.
#   old = atomic_add(c, 0, 2^62): the 8 olds are k * 2^62 mod 2^64, k = 0..7: each of
#   0, 2^62, 2^63, 3 * 2^62 twice; hist[old >> 62] += 1 -> [2, 2, 2, 2]; c[0] ends 8 * 2^62 mod 2^64 = 0
#   x = atomic_compare_exchange(m, 0, 2^63, u64(g) + 1): m starts 2^63: exactly one finds 2^63
#   -> cnt[0] = 1 ; m[0] ends in 1..8 (unknown which: not checked here, only that cnt is 1)
#   y = atomic_max(m, 1, u64(g) << 60) from 0: m[1] ends 7 * 2^60 ; each y <= 7*2^60 and y is
#   a value some earlier one left; cnt[1] += i32(y <= 8070450532247928832) -> 8
#   expect c = [0]
#   expect hist = [2, 2, 2, 2]
#   expect cnt = [1, 8]
# difftest: launch n=8 wave=4
# difftest: arg c = u64[0]
# difftest: arg hist = i32[0] * 4
# difftest: arg m = u64[9223372036854775808, 0]
# difftest: arg cnt = i32[0, 0]
def k(c: Buffer[u64], hist: Buffer[i32], m: Buffer[u64], cnt: Buffer[i32]):
    g = gid()
    old = atomic_add(c, 0, u64(4611686018427387904))
    atomic_add(hist, i32(old >> 62), 1)
    x = atomic_compare_exchange(m, 0, 9223372036854775808, u64(g) + 1)
    atomic_add(cnt, 0, i32(x == 9223372036854775808))
    y = atomic_max(m, 1, u64(g) << 60)
    atomic_add(cnt, 1, i32(y <= 8070450532247928832))
