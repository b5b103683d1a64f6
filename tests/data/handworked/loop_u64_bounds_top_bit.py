# range() over u64 bounds on both sides of 2^63: the loop runs b - a trips when a < b
# (semantics.md "Comparisons compare the values: an unsigned 2^64-1 is greater than 1";
# Loops: "for k in range(a, b)", Python's range).
#   a = 2^63 - 1, b = a + 2 = 2^63 + 1 : 2 trips ; k takes 2^63 - 1, 2^63 -> o[1] = last k = 2^63
#   range(u64 5, u64 2^64 - 1) would be huge: not used.
#   range(u64 2^63, u64 2^63 + 3): 3 trips (both bounds "negative" as i64, but ordered)
#   range(u64 2^63 + 3, u64 2): 0 trips (a signed compare would say 2^63+3 < 2: many trips)
#   expect o = [2, 3, 0]
#   expect last = [2**63]
# difftest: launch n=1 wave=1
# difftest: arg lo = u64[9223372036854775807]
# difftest: arg o = i32[0] * 3
# difftest: arg last = u64[0]
def k(lo: Buffer[u64], o: Buffer[i32], last: Buffer[u64]):
    a = lo[0]
    n = 0
    j: u64 = 0
    for j in range(a, a + 2):
        n = n + 1
    o[0] = n
    last[0] = j
    m = 0
    for q in range(a + 1, a + 4):
        m = m + 1
    o[1] = m
    c = 0
    for r in range(a + 4, a - 9223372036854775805):
        c = c + 1
        if c > 5:
            break
    o[2] = c
