# for-loops whose bounds are unsigned / narrow / 64-bit values near the limits: the trip
# count is the values' (range(a, b) runs b - a trips when a < b, none otherwise).
#   t0: range(u64 2^63 - 1, u64 2^63 + 1): 2 trips (a signed counter sees MAX..MIN: 0)
#   t1: range(u32 4294967293, u32 4294967295): 2 trips, k = 4294967293, 4294967294 -> sum of (k - 4294967290) = 3 + 4 = 7
#   t2: range(u32 4294967295, u32 0): 0 trips
#   t3: range(i8 -128, i8 -125): 3 trips ; k sum in i32 = -128 - 127 - 126 = -381
#   t4: range(u8 250, u8 255): 5 trips (k = 250..254), sum in u32 = 1260
#   t5: range(i64 -2^63, i64 -2^63 + 2): 2 trips
#   last[0] = k after t1 (k assigned before: 4294967294)
#   expect o = [2, 7, 0, -381, 1260, 2]
#   expect last = [4294967294]
# difftest: launch n=1 wave=1
# difftest: arg lo = u64[9223372036854775807]
# difftest: arg o = i32[0] * 6
# difftest: arg last = u32[0]
def k(lo: Buffer[u64], o: Buffer[i32], last: Buffer[u32]):
    a = lo[0]
    n = 0
    for kk in range(a, a + 2):
        n = n + 1
    o[0] = n
    s: u32 = 0
    j: u32 = 0
    for j in range(u32(4294967293) + u32(n - 2), u32(4294967295)):
        s = s + (j - 4294967290)
    o[1] = i32(s)
    last[0] = j
    m = 0
    for q in range(u32(4294967295), u32(n - 2)):
        m = m + 1
    o[2] = m
    t = 0
    for p in range(i8(-128), i8(-125)):
        t = t + p
    o[3] = t
    w: u32 = 0
    for r in range(u8(250), u8(255)):
        w = w + r
    o[4] = i32(w)
    c = 0
    for z in range(i64(-9223372036854775808), -9223372036854775806):
        c = c + 1
    o[5] = c
