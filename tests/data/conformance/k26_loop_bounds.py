# Loops whose bounds span a narrow or signed type's whole range, and the loop variable
# after the loop (semantics "Loops": "Bounds are any integer expressions ..., evaluated
# once at loop entry"; "After the loop it holds its last value, as in Python"; `range(a, b)`
# runs a, a+1, ..., b-1).
# Launch n=1. lo8 = i8[-128, 127], lo32 = i32[MIN, MAX], u = u64[0, 2^64-1]
# Expected o (i64):
#  [0] trips of `for k in range(lo8[0], lo8[1])` with break when k == -126: k = -128, -127, -126 -> 3 trips (counted before the break test), o[1] = i64(k) after = -126
#  [2] trips of range(i32 MIN, i32 MAX), break at k == MIN + 4: 5 trips; [3] k after = MIN + 4 = -2147483644
#  [4] trips of range(u64 0, u64 2^64-1), break at k == 6: 7; [5] = 6
#  [6] k3 = 100; for k3 in range(0, 5): pass -> k3 = 4   [7] k4 = 100; for k4 in range(5, 0): empty -> 100
#  [8] n = 3; for j in range(0, n): n = n + 1 -> 3 trips (bound read once): n = 6
#  [9] for i8 var: range(i8(120), 127): 7 trips, var 126 -> o[9] = trips*1000 + var = 7126
# difftest: launch n=1 wave=1
# difftest: arg lo8 = i8[-128, 127]
# difftest: arg lo32 = i32[-2147483648, 2147483647]
# difftest: arg u = u64[0, 18446744073709551615]
# difftest: arg o = i64[0] * 10
def k(lo8: Buffer[i8], lo32: Buffer[i32], u: Buffer[u64], o: Buffer[i64]):
    t: i64 = 0
    k1: i8 = 0
    for k1 in range(lo8[0], lo8[1]):
        t = t + 1
        if k1 == -126:
            break
    o[0] = t
    o[1] = i64(k1)
    t = 0
    k2: i32 = 0
    for k2 in range(lo32[0], lo32[1]):
        t = t + 1
        if k2 == -2147483644:
            break
    o[2] = t
    o[3] = i64(k2)
    t = 0
    k5: u64 = 0
    for k5 in range(u[0], u[1]):
        t = t + 1
        if k5 == 6:
            break
    o[4] = t
    o[5] = i64(k5)
    k3 = 100
    for k3 in range(0, 5):
        pass
    o[6] = k3
    k4 = 100
    for k4 in range(5, 0):
        pass
    o[7] = k4
    n = 3
    for j in range(0, n):
        n = n + 1
    o[8] = n
    t = 0
    k6: i8 = 0
    for k6 in range(i8(lo32[0] + 2147483648 + 120), 127):
        t = t + 1
    o[9] = t * 1000 + i64(k6)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [3, -126, 5, -2147483644, 7, 6, 4, 100, 6, 7126]
